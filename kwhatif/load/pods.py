"""Pod manifests → `Pod`s, with API defaulting (core v1 defaults.go:SetDefaults_Pod). The spec is decoded in parts
(`TEMPLATE_PARTS`), the unit the big-dump reader (`kwhatif.load.raw_pods`) shares between replicas."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any, Callable

from kwhatif.api.affinity import (
    Affinity, NodeAffinity, NodeSelector, PodAffinityRules, PodAffinityTerm, PreferredSchedulingTerm,
    TopologySpreadConstraint, WeightedPodAffinityTerm,
)
from kwhatif.api.objects import (
    SCHEDULING_VOLUME_SOURCES, Container, ContainerPort, ContainerStatusResources, OwnerReference, Pod, PodCondition,
)
from kwhatif.api.names import is_dns1123_label, is_dns1123_subdomain, is_qualified_name
from kwhatif.api.quantity import QuantityError, parse_quantity
from kwhatif.api.quota import canonical, pod_amount, quantity_format
from kwhatif.api.resources import container_aggregate, is_pod_level_resource
from kwhatif.api.settings import container_settings
from kwhatif.api.tolerations import Toleration
from kwhatif.errors import Source
from kwhatif.golang import go_quote, not_supported
from kwhatif.load.dra import pod_resource_claim
from kwhatif.load.fields import Fields, object_fields
from kwhatif.load.pod_checks import check_pod, unique_name
from kwhatif.load.pod_spec_checks import check_host_names, check_pod_spec
from kwhatif.load.selectors import check_label_value, check_name, checked_annotations, checked_labels, label_selector, node_term


def toleration(f: Fields, raw: dict, path: str) -> Toleration:
    """ValidateTolerations, in its order: the key (a label name, when set), the operator Exists
    when the key is empty, tolerationSeconds only with NoExecute, the value (a label value for
    Equal — its error at `operator`, as upstream —, none for Exists), then the effect (empty:
    every effect)."""
    key, op, value = f.str(raw, "key", path), f.str(raw, "operator", path), f.str(raw, "value", path)
    effect = f.str(raw, "effect", path)
    seconds = f.int(raw, "tolerationSeconds", path, bits=64)
    if key:
        check_name(f, key, f"{path}.key", is_qualified_name)
    if not key and op != "Exists":
        raise f.error(f"{path}.operator", f"Invalid value: {go_quote(op)}: operator must be Exists when `key` is "
                                          'empty, which means "match all values and all keys"')
    if seconds is not None and effect != "NoExecute":
        raise f.error(f"{path}.effect", f"Invalid value: {go_quote(effect)}: effect must be 'NoExecute' when "
                                        "`tolerationSeconds` is set")
    if op in ("", "Equal"):
        check_label_value(f, value, f"{path}.operator")
    if op == "Exists" and value:
        raise f.error(f"{path}.operator", f"Invalid value: {_go_toleration(key, op, value, effect, seconds)}: value "
                                          "must be empty when `operator` is 'Exists'")
    if op not in ("", "Equal", "Exists"):
        raise f.error(f"{path}.operator", not_supported(op, ("Equal", "Exists")))
    if effect:
        taint_effect(f, raw, path, empty_ok=True)
    return Toleration(key, op, value, effect, seconds)


def _go_toleration(key: str, op: str, value: str, effect: str, seconds: int | None) -> str:
    """The core.Toleration the API server prints as the bad value: JSON since v1.34 (apimachinery
    field.Error), of the internal type, whose fields have no json tags (Go names, in order)."""
    return json.dumps({"Key": key, "Operator": op, "Value": value, "Effect": effect, "TolerationSeconds": seconds},
                      separators=(",", ":"), ensure_ascii=False)


TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
"""validation.go validateTaintEffect, in its order."""


def taint_effect(f: Fields, raw: dict, path: str, empty_ok: bool) -> str:
    """A taint's or a toleration's `effect`, one of TAINT_EFFECTS (validateTaintEffect: a taint's
    is required)."""
    effect = f.str(raw, "effect", path)
    if not effect and not empty_ok:
        raise f.error(f"{path}.effect", "Required value")
    if effect not in TAINT_EFFECTS and not (empty_ok and effect == ""):
        raise f.error(f"{path}.effect", not_supported(effect, TAINT_EFFECTS))
    return effect


def _node_affinity(f: Fields, raw: dict, path: str) -> NodeAffinity:
    required = None
    req_raw = f.opt_map(raw, "requiredDuringSchedulingIgnoredDuringExecution", path)
    if req_raw is not None:
        req_path = f"{path}.requiredDuringSchedulingIgnoredDuringExecution"
        if not f.list(req_raw, "nodeSelectorTerms", req_path):  # ValidateNodeSelector, before the terms
            raise f.error(f"{req_path}.nodeSelectorTerms", "Required value: must have at least one node selector term")
        required = NodeSelector(f.items(req_raw, "nodeSelectorTerms", req_path, lambda e, p: node_term(f, e, p)))
    preferred = None
    if raw.get("preferredDuringSchedulingIgnoredDuringExecution") is not None:
        preferred = f.items(raw, "preferredDuringSchedulingIgnoredDuringExecution", path, lambda e, p: PreferredSchedulingTerm(
            _weight(f, e, p), node_term(f, f.map(e, "preference", p), f"{p}.preference")))
    return NodeAffinity(required, preferred)


def _weight(f: Fields, raw: dict, path: str) -> int:
    weight = f.int(raw, "weight", path, 0) or 0
    if not 1 <= weight <= 100:
        raise f.error(f"{path}.weight", f"Invalid value: {weight}: must be in the range 1-100")
    return weight


def _pod_affinity_term(f: Fields, raw: dict, path: str) -> PodAffinityTerm:
    """validatePodAffinityTerm, in its order: the label and namespace selectors, each namespace
    (a namespace's name, refused at `namespace` as upstream words it), then the topology key
    (required, a label name)."""
    selector = label_selector(f, raw, "labelSelector", path)
    namespace_selector = label_selector(f, raw, "namespaceSelector", path)
    namespaces = f.str_list(raw, "namespaces", path)
    for namespace in namespaces:
        check_name(f, namespace, f"{path}.namespace", is_dns1123_label)
    topology_key = f.str(raw, "topologyKey", path)
    _required_topology_key(f, topology_key, path)
    check_name(f, topology_key, f"{path}.topologyKey", is_qualified_name)
    match_keys, mismatch_keys = f.str_list(raw, "matchLabelKeys", path), f.str_list(raw, "mismatchLabelKeys", path)
    for key, keys in (("matchLabelKeys", match_keys), ("mismatchLabelKeys", mismatch_keys)):
        _check_label_keys(f, keys, raw.get("labelSelector") is not None, f"{path}.{key}")
    for i, key in enumerate(match_keys):
        if key in mismatch_keys:
            raise f.error(f"{path}.matchLabelKeys[{i}]", f"Invalid value: {go_quote(key)}: exists in both "
                                                         "matchLabelKeys and mismatchLabelKeys")
    return PodAffinityTerm(
        label_selector=selector, topology_key=topology_key, namespaces=namespaces,
        namespace_selector=namespace_selector, match_label_keys=match_keys, mismatch_label_keys=mismatch_keys,
    )


def _check_label_keys(f: Fields, keys: tuple[str, ...], has_selector: bool, path: str) -> None:
    """validateLabelKeys: label keys only beside a labelSelector (they narrow it), each a label
    name. (Whether one repeats a key of the selector upstream judges after merging the pod's
    labels in, which depends on the feature gates of the version: kwhatif does not judge it.)"""
    if keys and not has_selector:
        raise f.error(path, "Forbidden: must not be specified when labelSelector is not set")
    for i, key in enumerate(keys):
        check_name(f, key, f"{path}[{i}]", is_qualified_name)


def _required_topology_key(f: Fields, topology_key: str, path: str) -> None:
    """validatePodAffinityTerm's and validateTopologyKey's: a topology key is required."""
    if not topology_key:
        raise f.error(f"{path}.topologyKey", "Required value: can not be empty")


def _pod_affinity_rules(f: Fields, parent: dict, key: str, path: str) -> PodAffinityRules | None:
    raw = f.opt_map(parent, key, path)
    if raw is None:
        return None
    rules_path = f"{path}.{key}"
    required = f.items(raw, "requiredDuringSchedulingIgnoredDuringExecution", rules_path,
                       lambda e, p: _pod_affinity_term(f, e, p))
    preferred = f.items(raw, "preferredDuringSchedulingIgnoredDuringExecution", rules_path,
                        lambda e, p: WeightedPodAffinityTerm(
                            _weight(f, e, p), _pod_affinity_term(f, f.map(e, "podAffinityTerm", p), f"{p}.podAffinityTerm")))
    return PodAffinityRules(required, preferred)


def _affinity(f: Fields, spec: dict) -> Affinity | None:
    raw = f.opt_map(spec, "affinity", "spec")
    if raw is None:
        return None
    node_raw = f.opt_map(raw, "nodeAffinity", "spec.affinity")
    return Affinity(
        node_affinity=_node_affinity(f, node_raw, "spec.affinity.nodeAffinity") if node_raw is not None else None,
        pod_affinity=_pod_affinity_rules(f, raw, "podAffinity", "spec.affinity"),
        pod_anti_affinity=_pod_affinity_rules(f, raw, "podAntiAffinity", "spec.affinity"),
    )


def _spread_constraint(f: Fields, raw: dict, path: str) -> TopologySpreadConstraint:
    max_skew = f.int(raw, "maxSkew", path, 0) or 0
    if max_skew <= 0:
        raise f.error(f"{path}.maxSkew", f"Invalid value: {max_skew}: must be greater than zero")
    when = f.str(raw, "whenUnsatisfiable", path)
    if when not in ("DoNotSchedule", "ScheduleAnyway"):
        raise f.error(f"{path}.whenUnsatisfiable", f"Unsupported value: {when!r}: supported values: \"DoNotSchedule\", \"ScheduleAnyway\"")
    topology_key = f.str(raw, "topologyKey", path)
    _required_topology_key(f, topology_key, path)
    min_domains = f.int(raw, "minDomains", path)
    if min_domains is not None and min_domains <= 0:
        raise f.error(f"{path}.minDomains", f"Invalid value: {min_domains}: must be greater than zero")
    if min_domains is not None and when != "DoNotSchedule":  # validateMinDomains
        raise f.error(f"{path}.minDomains", f"Invalid value: {min_domains}: can only use minDomains if "
                                            f"whenUnsatisfiable=DoNotSchedule, not {when}")
    match_keys = f.str_list(raw, "matchLabelKeys", path)
    _check_label_keys(f, match_keys, raw.get("labelSelector") is not None, f"{path}.matchLabelKeys")
    return TopologySpreadConstraint(
        max_skew=max_skew, topology_key=topology_key, when_unsatisfiable=when,
        label_selector=label_selector(f, raw, "labelSelector", path), min_domains=min_domains,
        node_affinity_policy=_policy(f, raw, "nodeAffinityPolicy", path),
        node_taints_policy=_policy(f, raw, "nodeTaintsPolicy", path),
        match_label_keys=match_keys,
    )


def _policy(f: Fields, raw: dict, key: str, path: str) -> str | None:
    value = f.opt_str(raw, key, path)
    if value is not None and value not in ("Honor", "Ignore"):
        raise f.error(f"{path}.{key}", f"Unsupported value: {value!r}: supported values: \"Honor\", \"Ignore\"")
    return value


PORT_RANGE = "must be between 1 and 65535, inclusive"
PROTOCOLS = ("SCTP", "TCP", "UDP")


def _port(f: Fields, raw: dict, path: str, host_network: bool) -> ContainerPort:
    """validation.go:validateContainerPorts: a containerPort is required and in range, a hostPort
    (0: none) in range, the protocol one of three."""
    container_port = f.int(raw, "containerPort", path, 0) or 0
    host_port = f.int(raw, "hostPort", path, 0) or 0
    if container_port == 0:
        raise f.error(f"{path}.containerPort", "Required value")
    for key, port in (("containerPort", container_port), ("hostPort", host_port)):
        if port and not 1 <= port <= 65535:
            raise f.error(f"{path}.{key}", f"Invalid value: {port}: {PORT_RANGE}")
    protocol = f.str(raw, "protocol", path) or "TCP"
    if protocol not in PROTOCOLS:
        raise f.error(f"{path}.protocol", f"Unsupported value: {json.dumps(protocol)}: supported values: "
                                          + ", ".join(f'"{p}"' for p in PROTOCOLS))
    if host_network and host_port == 0:
        host_port = container_port  # API defaulting for hostNetwork pods (core v1 defaults.go:SetDefaults_Pod)
    return ContainerPort(container_port, host_port, protocol, f.str(raw, "hostIP", path))


def overcommit_allowed(name: str) -> bool:
    """v1helper.IsOvercommitAllowed: native names (no domain, or kubernetes.io) but hugepages."""
    return ("/" not in name or "kubernetes.io/" in name) and not name.startswith("hugepages-")


def _quantity_text(text: object) -> str:
    """How the API server prints a quantity it parsed from `text` (resource.Quantity.String());
    `null` is the zero quantity, "0"."""
    return "0" if text is None else canonical(parse_quantity(text), quantity_format(text))


def _check_requests_within_limits(f: Fields, res: dict, requests: dict[str, Fraction],
                                  limits: dict[str, Fraction], path: str) -> None:
    """validation.go:ValidateResourceRequirements: a request above its limit is refused; for
    resources that cannot be overcommitted (extended, hugepages) request and limit must be equal
    and a limit is required. Upstream reports every error; kwhatif the first in name order.
    (Hugepages without cpu or memory: `hugepages_alone`, judged where the API server does.)"""
    raw_requests, raw_limits = res.get("requests") or {}, res.get("limits") or {}
    for name in sorted(raw_requests):
        if name not in limits:
            if not overcommit_allowed(name):
                raise f.error(f"{path}.limits", "Required value: Limit must be set for non overcommitable resources")
            continue
        if requests[name] != limits[name] and not overcommit_allowed(name):
            wording = "must be equal to"
        elif requests[name] > limits[name]:
            wording = "must be less than or equal to"
        else:
            continue
        raise f.error(f"{path}.requests", f'Invalid value: "{_quantity_text(raw_requests[name])}": '
                                          f"{wording} {name} limit of {_quantity_text(raw_limits[name])}")


_STANDARD_CONTAINER_RESOURCES = ("cpu", "memory", "ephemeral-storage")


def _resource_name_problem(name: str) -> str:
    """validation.go:validateContainerResourceName: a qualified name; without a domain, one of
    the container resources; with one, native (kubernetes.io) or a valid extended name."""
    problems = is_qualified_name(name)
    if problems:
        return problems[0]
    if "/" not in name:
        if name not in _STANDARD_CONTAINER_RESOURCES and not name.startswith("hugepages-"):
            return "must be a standard resource for containers"
    elif "kubernetes.io/" not in name and (name.startswith("requests.") or is_qualified_name(f"requests.{name}")):
        return "doesn't follow extended resource name standard"
    return ""


HUGEPAGES_ALONE = "Forbidden: HugePages require cpu or memory"


def hugepages_alone(pod: Pod) -> str | None:
    """validation.go:ValidateResourceRequirements: the path of the first container whose
    resources name hugepages without any cpu or memory request or limit, refused with
    HUGEPAGES_ALONE. Judged on a template as written (a workload's creation), on a pod after
    LimitRanger's defaults (a pod's: the mutating plugin may add a memory limit first)."""
    for key, containers in (("containers", pod.containers), ("initContainers", pod.init_containers)):
        for i, c in enumerate(containers):
            named = set(c.requests) | set(c.limits)
            if not named & {"cpu", "memory"} and any(n.startswith("hugepages-") for n in named):
                return f"spec.{key}[{i}].resources"
    return None


def _check_resource_list(f: Fields, res: dict, key: str, amounts: dict[str, Fraction], path: str) -> None:
    """The names of a container's requests or limits, and whole numbers for extended resources
    (validation.go:ValidateResourceQuantityValue: "must be an integer")."""
    written = res.get(key) or {}
    for name, amount in amounts.items():
        where = f"{path}.{key}[{name}]"
        problem = _resource_name_problem(name)
        if problem:
            raise f.error(where, f"Invalid value: {json.dumps(name)}: {problem}")
        if "/" in name and "kubernetes.io/" not in name and amount.denominator != 1:
            raise f.error(where, f'Invalid value: "{_quantity_text(written[name])}": must be an integer')
        if name.startswith("hugepages-") and not _whole_pages(name, amount):
            text = _quantity_text(written[name])
            raise f.error(where, f'Invalid value: "{text}": {text} is not positive integer multiple of {name}')


def _whole_pages(name: str, amount: Fraction) -> bool:
    """IsHugePageResourceValueDivisible (AllowIndivisibleHugePagesValues is false for a new pod):
    the amount a whole number of pages of a positive, whole size."""
    try:
        page = parse_quantity(name[len("hugepages-"):])
    except QuantityError:
        return False
    return page > 0 and page.denominator == 1 and math.ceil(amount) % page == 0


def _container(f: Fields, raw: dict, path: str, host_network: bool) -> Container:
    res = f.map(raw, "resources", path)
    requests = f.resources(res, "requests", f"{path}.resources")
    limits = f.resources(res, "limits", f"{path}.resources")
    _check_resource_list(f, res, "limits", limits, f"{path}.resources")
    _check_resource_list(f, res, "requests", requests, f"{path}.resources")
    _check_requests_within_limits(f, res, requests, limits, f"{path}.resources")
    for name, q in limits.items():
        requests.setdefault(name, q)  # requests default to limits (core v1 defaults.go:SetDefaults_Pod)
    return Container(
        name=f.str(raw, "name", path), image=f.str(raw, "image", path), requests=requests, limits=limits,
        ports=f.items(raw, "ports", path, lambda e, p: _port(f, e, p, host_network)),
        restart_policy=f.opt_str(raw, "restartPolicy", path), settings=container_settings(raw),
    )


def _status_resources(f: Fields, raw: dict, path: str) -> ContainerStatusResources:
    res = f.opt_map(raw, "resources", path)
    allocated = f.resources(raw, "allocatedResources", path) if raw.get("allocatedResources") is not None else None
    return ContainerStatusResources(
        name=f.str(raw, "name", path),
        requests=f.resources(res, "requests", f"{path}.resources") if res is not None else None,
        allocated=allocated,
    )


def _owner(f: Fields, raw: dict, path: str) -> OwnerReference:
    return OwnerReference(f.str(raw, "apiVersion", path), f.str(raw, "kind", path), f.str(raw, "name", path),
                          f.bool(raw, "controller", path))


READ_CONDITIONS = ("PodResizePending", "DisruptionTarget")
"""The only pod conditions scheduling reads: an Infeasible resize (resource helpers.go:PodRequests (UseStatusResources)) and a preemption in
progress (default_preemption.go:PodEligibleToPreemptOthers). The others (Ready, Initialized...) differ from pod to pod and are not kept."""


def pod_labels(f: Fields, meta: dict) -> dict[str, str]:
    return checked_labels(f, meta)


def pod_annotations(f: Fields, meta: dict) -> dict[str, str]:
    return f.str_map(meta, "annotations", "metadata")


def owner_references(f: Fields, meta: dict) -> tuple[OwnerReference, ...]:
    return f.items(meta, "ownerReferences", "metadata", lambda e, p: _owner(f, e, p))


def resource_claim_statuses(f: Fields, status: dict) -> tuple[tuple[str, str | None], ...]:
    """status.resourceClaimStatuses as (pod claim name, generated claim name or None)."""
    return f.items(status, "resourceClaimStatuses", "status",
                   lambda e, p: (f.str(e, "name", p), f.opt_str(e, "resourceClaimName", p)))


def kept_condition(kind: str | None, status: str | None) -> bool:
    """READ_CONDITIONS, and a Ready condition that is not True: a PodDisruptionBudget counts only
    Ready pods as healthy (`kwhatif.load.disruption`), and a bound pod without a Ready condition
    is read as Ready — so the many that are keep no condition, and share their template's."""
    return kind in READ_CONDITIONS or (kind == "Ready" and status != "True")


def pod_conditions(f: Fields, status: dict) -> tuple[PodCondition, ...]:
    conditions = f.items(status, "conditions", "status", lambda e, p: PodCondition(
        f.str(e, "type", p), f.str(e, "status", p), f.str(e, "reason", p)))
    return tuple(c for c in conditions if kept_condition(c.type, c.status))


def ready_since(f: Fields, status: dict) -> str:
    """podReadyTime: the Ready=True condition's lastTransitionTime ("" without one)."""
    found = f.items(status, "conditions", "status", lambda e, p: (
        f.str(e, "type", p), f.str(e, "status", p), f.str(e, "lastTransitionTime", p)))
    return next((since for kind, state, since in found if kind == "Ready" and state == "True"), "")


def most_restarts(f: Fields, status: dict) -> int:
    """maxContainerRestarts: the largest restartCount of status.containerStatuses (0 without)."""
    counts = f.items(status, "containerStatuses", "status", lambda e, p: f.int(e, "restartCount", p) or 0)
    return max(counts, default=0)


def container_statuses(f: Fields, status: dict, key: str) -> tuple[ContainerStatusResources, ...]:
    """The statuses of `key` (`containerStatuses`, `initContainerStatuses`) that report requests
    (an in-place resize, resource helpers.go:PodRequests (UseStatusResources)); the others change nothing and
    are not kept."""
    statuses = f.items(status, key, "status", lambda e, p: _status_resources(f, e, p))
    return tuple(s for s in statuses if s.requests is not None)


def _scheduling_part(f: Fields, spec: dict) -> dict[str, Any]:
    return dict(
        scheduler_name=f.str(spec, "schedulerName", "spec") or "default-scheduler",
        priority=f.int(spec, "priority", "spec"), priority_class_name=f.str(spec, "priorityClassName", "spec"),
        preemption_policy=f.opt_str(spec, "preemptionPolicy", "spec"),
        runtime_class_name=_runtime_class_name(f, spec),
        host_network=f.bool(spec, "hostNetwork", "spec"),
        active_deadline_seconds=_active_deadline(f, spec),
    )


def _runtime_class_name(f: Fields, spec: dict) -> str | None:
    """ValidateRuntimeClassName when set: an RFC 1123 subdomain, so "" is refused (unset is nil)."""
    name = f.opt_str(spec, "runtimeClassName", "spec")
    if name is not None:
        check_name(f, name, "spec.runtimeClassName", is_dns1123_subdomain)
    return name


INT32_MAX = 2147483647


def _active_deadline(f: Fields, spec: dict) -> int | None:
    """ValidatePodSpec: an activeDeadlineSeconds (int64) in [1, MaxInt32] when set."""
    seconds = f.int(spec, "activeDeadlineSeconds", "spec", bits=64)
    if seconds is not None and not 1 <= seconds <= INT32_MAX:
        raise f.error("spec.activeDeadlineSeconds", f"Invalid value: {seconds}: must be between 1 and {INT32_MAX}, "
                                                    "inclusive")
    return seconds


def _containers_part(f: Fields, spec: dict) -> dict[str, Any]:
    host_network = f.bool(spec, "hostNetwork", "spec")
    if not spec.get("containers"):
        raise f.error("spec.containers", "Required value")  # validation.go:validateContainers
    containers = f.items(spec, "containers", "spec", lambda e, p: _container(f, e, p, host_network))
    init_containers = f.items(spec, "initContainers", "spec", lambda e, p: _container(f, e, p, host_network))
    _check_containers(f, containers, init_containers)
    if host_network:
        _check_host_network_ports(f, containers)
    return dict(containers=containers, init_containers=init_containers)


def _check_containers(f: Fields, containers: tuple[Container, ...], init_containers: tuple[Container, ...]) -> None:
    """validation.go:validateContainers and validateInitContainers: each name required, an RFC 1123
    label, and unique among all the pod's containers (the regular ones are judged first); an
    image required; a restartPolicy only on an init container, and Always there (a sidecar; the
    ContainerRestartRules gate is off in v1.34); each host port once among the containers of a
    list (AccumulateUniqueHostPorts: protocol, host IP and port)."""
    seen: set[str] = set()
    for key, listed in (("containers", containers), ("initContainers", init_containers)):
        host_ports: set[str] = set()
        for i, container in enumerate(listed):
            path, name = f"spec.{key}[{i}].name", container.name
            if not name:
                raise f.error(path, "Required value")
            unique_name(f, name, path, is_dns1123_label, seen)
            if not container.image:
                raise f.error(f"spec.{key}[{i}].image", "Required value")
            restart = container.restart_policy
            if restart is not None and key == "containers":
                raise f.error(f"spec.{key}[{i}].restartPolicy", "Forbidden: may not be set for non-init containers")
            if restart is not None and restart != "Always":
                raise f.error(f"spec.{key}[{i}].restartPolicy",
                              f'Unsupported value: {go_quote(restart)}: supported values: "Always"')
            for j, port in enumerate(container.ports):
                taken = f"{port.protocol}/{port.host_ip}/{port.host_port}"
                if port.host_port:
                    unique_name(f, taken, f"spec.{key}[{i}].ports[{j}].hostPort", lambda _taken: (), host_ports)


def _check_host_network_ports(f: Fields, containers: tuple[Container, ...]) -> None:
    """validatePodHostNetworkDeps: on the host's network a container's port is the host's, so a
    hostPort (0 was defaulted to the containerPort) other than its containerPort is refused.
    Init containers are not judged, as upstream."""
    for i, container in enumerate(containers):
        for j, port in enumerate(container.ports):
            if port.host_port != port.container_port:
                raise f.error(f"spec.containers[{i}].ports[{j}].hostPort", f"Invalid value: {port.host_port}: must "
                                                                            "match `containerPort` when `hostNetwork` is true")


def _mounts_part(f: Fields, spec: dict) -> dict[str, Any]:
    """Nothing kept: what the API server refuses of the volumes and of the containers' fields
    scheduling does not read."""
    check_pod(f, spec)
    return {}


def _pod_fields_part(f: Fields, spec: dict) -> dict[str, Any]:
    """Nothing kept: what the API server refuses of the pod's own fields scheduling does not read
    (restart and DNS policies, security context, OS...)."""
    check_pod_spec(f, spec)
    return {}


def _resources_part(f: Fields, spec: dict) -> dict[str, Any]:
    pod_res = f.opt_map(spec, "resources", "spec")
    requests = f.resources(pod_res, "requests", "spec.resources") if pod_res else None
    limits = f.resources(pod_res, "limits", "spec.resources") if pod_res else None
    if pod_res and requests is not None and limits is not None:
        _check_pod_level_resources(f, spec, pod_res, requests, limits)
    return dict(
        overhead=f.resources(spec, "overhead", "spec") if spec.get("overhead") is not None else None,
        pod_requests=requests, pod_limits=limits,
    )


POD_LEVEL_SUPPORTED = 'supported values: "cpu", "hugepages-", "memory"'
_STANDARD_RESOURCES = frozenset({
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.ephemeral-storage",
    "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "resourcequotas", "services",
    "replicationcontrollers", "secrets", "configmaps", "persistentvolumeclaims", "storage", "requests.storage",
    "services.nodeports", "services.loadbalancers"})
"""validation.go standardResources: what validateResourceName takes without a domain."""


def _check_pod_level_resources(f: Fields, spec: dict, res: dict, requests: dict[str, Fraction],
                               limits: dict[str, Fraction]) -> None:
    """validatePodResources (PodLevelResources, on in 1.34): only cpu, memory and hugepages, a
    request within its limit; then validatePodResourceConsistency — each pod-level request at
    least what the containers ask together (resource helpers' aggregate: containers and
    sidecars summed, the largest init step), each container's limit within the pod's. A pod
    the API server refuses so is never created, whatever scheduling would make of it."""
    for key, amounts in (("limits", limits), ("requests", requests)):
        for name in sorted(amounts):
            where = f"spec.resources.{key}[{name}]"
            if "/" not in name and name not in _STANDARD_RESOURCES and not name.startswith("hugepages-"):
                raise f.error(where, f"Invalid value: {json.dumps(name)}: must be a standard resource type or fully "
                                     "qualified")
            if not is_pod_level_resource(name):
                raise f.error(where, f"Unsupported value: {json.dumps(name)}: {POD_LEVEL_SUPPORTED}")
    _check_requests_within_limits(f, res, requests, limits, "spec.resources")
    parts = _containers_part(f, spec)
    made = container_aggregate(Pod("", "", containers=parts["containers"], init_containers=parts["init_containers"]))
    raw_requests, raw_limits = res.get("requests") or {}, res.get("limits") or {}
    for name in sorted(made):
        if name in requests and requests[name] < made[name]:
            raise f.error(f"spec.resources.requests[{name}]", f'Invalid value: "{_quantity_text(raw_requests[name])}": '
                                                             f"must be greater than or equal to aggregate container "
                                                             f"requests of {pod_amount(name, made[name])}")
    for i, container in enumerate(parts["containers"]):
        for name in sorted(container.limits):
            if name in limits and container.limits[name] > limits[name]:
                raise f.error(f"spec.resources.containers[{i}][{name}].limits",
                              f'Invalid value: "{pod_amount(name, container.limits[name])}": must be less than or '
                              f"equal to pod limits of {_quantity_text(raw_limits[name])}")


def _node_selector_part(f: Fields, spec: dict) -> dict[str, Any]:
    return dict(node_selector=checked_labels(f, spec, "nodeSelector", "spec") if spec.get("nodeSelector") is not None
                else None)


def _tolerations_part(f: Fields, spec: dict) -> dict[str, Any]:
    return dict(tolerations=f.items(spec, "tolerations", "spec", lambda e, p: toleration(f, e, p)))


def _gates_part(f: Fields, spec: dict) -> dict[str, Any]:
    """validateSchedulingGates: each name a qualified name, once (both refused at the gate's
    index, not its `name`)."""
    gates = f.items(spec, "schedulingGates", "spec", lambda e, p: f.str(e, "name", p))
    seen: set[str] = set()
    for i, name in enumerate(gates):
        unique_name(f, name, f"spec.schedulingGates[{i}]", is_qualified_name, seen)
    return dict(scheduling_gates=gates)


def _affinity_part(f: Fields, spec: dict) -> dict[str, Any]:
    return dict(affinity=_affinity(f, spec))


def _spread_part(f: Fields, spec: dict) -> dict[str, Any]:
    """validateTopologySpreadConstraints: each (topologyKey, whenUnsatisfiable) once — the
    first of a repeated pair is the one refused (ValidateSpreadConstraintNotRepeat)."""
    constraints = f.items(spec, "topologySpreadConstraints", "spec", lambda e, p: _spread_constraint(f, e, p))
    for i, c in enumerate(constraints):
        if any((c.topology_key, c.when_unsatisfiable) == (o.topology_key, o.when_unsatisfiable)
               for o in constraints[i + 1:]):
            raise f.error(f"spec.topologySpreadConstraints[{i}].{{topologyKey, whenUnsatisfiable}}",
                          f'Duplicate value: "{{{c.topology_key}, {c.when_unsatisfiable}}}"')
    return dict(topology_spread_constraints=constraints)


def _storage_part(f: Fields, spec: dict) -> dict[str, Any]:
    volumes = f.items(spec, "volumes", "spec", lambda e, p: e)
    return dict(volumes=tuple(v for v in volumes if any(v.get(k) is not None for k in SCHEDULING_VOLUME_SOURCES)),
                resource_claims=f.items(spec, "resourceClaims", "spec", lambda e, p: pod_resource_claim(f, e, p)))


TEMPLATE_PARTS: tuple[tuple[tuple[str, ...], Callable[[Fields, dict], dict[str, Any]]], ...] = (
    (("schedulerName", "priority", "priorityClassName", "preemptionPolicy", "runtimeClassName", "hostNetwork",
      "activeDeadlineSeconds"), _scheduling_part),
    (("containers", "initContainers", "hostNetwork"), _containers_part),
    (("containers", "initContainers", "volumes", "resourceClaims", "hostUsers", "terminationGracePeriodSeconds"),
     _mounts_part),
    (("restartPolicy", "dnsPolicy", "securityContext", "shareProcessNamespace", "hostPID", "hostIPC", "hostNetwork",
      "hostUsers", "dnsConfig", "readinessGates", "serviceAccountName", "os", "containers", "initContainers"),
     _pod_fields_part),
    (("overhead", "resources", "containers", "initContainers", "hostNetwork"), _resources_part),
    (("nodeSelector",), _node_selector_part),
    (("affinity",), _affinity_part),
    (("tolerations",), _tolerations_part),
    (("topologySpreadConstraints",), _spread_part),
    (("schedulingGates",), _gates_part),
    (("volumes", "resourceClaims"), _storage_part),
)
"""The Pod fields a pod's spec decides but for the node name, in parts, each with the spec fields
it reads: what the replicas of one template share. A big dump's reader decodes each part once per
distinct text of those fields (DaemonSet pods differ only in their affinity's node name)."""


def pod_template(f: Fields, spec: dict) -> dict[str, Any]:
    template: dict[str, Any] = {}
    for _fields, part in TEMPLATE_PARTS:
        template.update(part(f, spec))
    return template


def _node_name(f: Fields, spec: dict) -> str:
    """ValidateNodeName (an RFC 1123 subdomain) when set."""
    name = f.str(spec, "nodeName", "spec")
    wrong = is_dns1123_subdomain(name) if name else ()
    if wrong:
        raise f.error("spec.nodeName", f"Invalid value: {go_quote(name)}: {wrong[0]}")
    return name


def decode_pod(obj: dict, source: Source | None) -> Pod:
    f, meta, namespace, name = object_fields(obj, source)
    spec = f.map(obj, "spec", "")
    status = f.map(obj, "status", "")
    pod = Pod(
        namespace=namespace, name=name, uid=f.str(meta, "uid", "metadata"),
        labels=pod_labels(f, meta), annotations=checked_annotations(f, meta),
        creation_timestamp=f.str(meta, "creationTimestamp", "metadata"),
        deletion_timestamp=f.opt_str(meta, "deletionTimestamp", "metadata"),
        owner_references=owner_references(f, meta),
        node_name=_node_name(f, spec),
        phase=f.str(status, "phase", "status"), start_time=f.time(status, "startTime", "status"),
        nominated_node_name=f.str(status, "nominatedNodeName", "status"),
        conditions=pod_conditions(f, status),
        container_statuses=container_statuses(f, status, "containerStatuses"),
        init_container_statuses=container_statuses(f, status, "initContainerStatuses"),
        source=source, resource_claim_statuses=resource_claim_statuses(f, status),
        ready_since=ready_since(f, status), restarts=most_restarts(f, status),
        **pod_template(f, spec),
    )
    check_host_names(f, spec)  # per pod, after the template: the big dump's reader does the same
    return pod
