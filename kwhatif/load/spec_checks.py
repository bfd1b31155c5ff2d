"""What the API server refuses of the Services and PodDisruptionBudgets kwhatif reads only in part
(core validation.go: ValidateService, validateServicePort; policy validation.go:
ValidatePodDisruptionBudgetSpec), with its texts: a check must not pass on files that `kubectl
apply` refuses, although scheduling reads only a Service's selector and a budget's counts."""

from __future__ import annotations

from kwhatif.api import settings
from kwhatif.api.names import is_dns1123_label, is_valid_port_name, regex_error
from kwhatif.golang import go_quote, not_supported
from kwhatif.load.fields import Fields
from kwhatif.load.pod_checks import unique_name
from kwhatif.load.pods import PORT_RANGE, PROTOCOLS

SERVICE_TYPES = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")  # sets.List: sorted


def check_service(f: Fields, spec: dict) -> None:
    """The type (ClusterIP when empty), then each port: named when there are several (an RFC 1123
    label, unique), a port in range, a known protocol (TCP when empty), a target port that is a
    number in range or an IANA port name (the port when empty)."""
    kind = f.str(spec, "type", "spec") or "ClusterIP"
    if kind not in SERVICE_TYPES:
        raise f.error("spec.type", not_supported(kind, SERVICE_TYPES))
    ports = f.items(spec, "ports", "spec", lambda e, p: e)
    if not ports and kind != "ExternalName" and spec.get("clusterIP") != "None":  # headless services need none
        raise f.error("spec.ports", "Required value")
    names: set[str] = set()
    for i, port in enumerate(ports):
        path = f"spec.ports[{i}]"
        name = f.str(port, "name", path)
        if not name and len(ports) > 1:
            raise f.error(f"{path}.name", "Required value")
        if name:
            unique_name(f, name, f"{path}.name", is_dns1123_label, names)
        number = f.int(port, "port", path, 0) or 0
        if not 1 <= number <= 65535:
            raise f.error(f"{path}.port", f"Invalid value: {number}: {PORT_RANGE}")
        protocol = f.str(port, "protocol", path) or "TCP"
        if protocol not in PROTOCOLS:
            raise f.error(f"{path}.protocol", not_supported(protocol, PROTOCOLS))
        _check_target_port(f, port.get("targetPort"), f"{path}.targetPort")


def _check_target_port(f: Fields, target: object, path: str) -> None:
    """ValidatePortNumOrName: 0 or "" is the port itself (defaulted)."""
    if isinstance(target, int) and not isinstance(target, bool) and target != 0 and not 1 <= target <= 65535:
        raise f.error(path, f"Invalid value: {target}: {PORT_RANGE}")
    if isinstance(target, str) and target:
        wrong = is_valid_port_name(target)
        if wrong:
            raise f.error(path, f"Invalid value: {go_quote(target)}: {wrong[0]}")


PERCENT_MESSAGE = regex_error("a valid percent string must be a numeric string followed by an ending '%'",
                               "[0-9]+%", "1%", "93%")


UNHEALTHY_POD_EVICTION_POLICIES = ("AlwaysAllow", "IfHealthyBudget")  # sorted, as NotSupported lists them


def check_budget(f: Fields, spec: dict) -> None:
    """One of minAvailable and maxUnavailable, each a non-negative integer or a percentage of at
    most 100%."""
    if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
        raise f.error("spec", f"Invalid value: {settings.canonical(spec)}: minAvailable and maxUnavailable cannot "
                      "be both set")
    for key in ("minAvailable", "maxUnavailable"):
        value = spec.get(key)
        path = f"spec.{key}"
        if isinstance(value, bool) or not isinstance(value, (int, str, type(None))):
            raise f.error(path, f"expected an integer or a string, got {settings.canonical(value)}")
        if isinstance(value, int) and value < 0:
            raise f.error(path, f"Invalid value: {value}: must be greater than or equal to 0")
        # An IntOrString in field.Invalid prints by its String(): the string as written, unquoted.
        if isinstance(value, str) and not (value[:-1].isascii() and value[:-1].isdigit() and value.endswith("%")):
            raise f.error(path, f"Invalid value: {value}: {PERCENT_MESSAGE}")
        if isinstance(value, str) and int(value[:-1]) > 100:
            raise f.error(path, f"Invalid value: {value}: must not be greater than 100%")
    policy = spec.get("unhealthyPodEvictionPolicy")
    if policy is not None and policy not in UNHEALTHY_POD_EVICTION_POLICIES:
        supported = ", ".join(go_quote(p) for p in UNHEALTHY_POD_EVICTION_POLICIES)
        raise f.error("spec.unhealthyPodEvictionPolicy",
                      f"Unsupported value: {go_quote(str(policy))}: supported values: {supported}")
