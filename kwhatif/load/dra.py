"""resource.k8s.io manifests → `kwhatif.api.dra` objects, with the API server's defaults
(`allocationMode: ExactCount`, `count: 1`) and the checks of its validation (validation.go)
whose failure would make the allocator misbehave or run what the API server never stores: a
request name given twice, a constraint on no request of the claim or on an attribute without
a domain, a `version` attribute that is no semantic version, a CEL selector that does not parse
(one-line errors naming file, object and field, in the API server's words).

v1 and v1beta2 share one shape. v1beta1 — what 1.32 serves, 1.33 prefers, and many drivers'
manifests are written at — differs in two places, read as the API server converts them
(pkg/apis/resource/v1beta1/conversion.go): a device's fields sit under `basic`, and a request
holds its device class, selectors, mode and count itself where v1 nests them under `exactly`.
Errors name the field as the user's file spells it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from kwhatif.api.affinity import NodeSelector
from kwhatif.api.cel import syntax_error
from kwhatif.api.names import is_dns1123_label, is_dns1123_subdomain
from kwhatif.api.dra import (
    Allocation, ConsumerRef, Device, DeviceClass, DeviceConstraint, DeviceRequest, DeviceResult, DeviceSubRequest,
    ResourceClaim, ResourceClaimTemplate, ResourceSlice, Version,
)
from kwhatif.api.quantity import QuantityError, parse_quantity
from kwhatif.errors import Source
from kwhatif.golang import go_quote
from kwhatif.load.fields import Fields, object_fields
from kwhatif.load.selectors import node_term

V1BETA1 = "resource.k8s.io/v1beta1"
ALLOCATION_MODES = ("ExactCount", "All")
ATTRIBUTE_TYPES = ("bool", "int", "string", "version")
POD_CLAIM_NAME = "resource.kubernetes.io/pod-claim-name"
_EXACTLY_VALUES = ("deviceClassName", "allocationMode", "count")
_EXACTLY_POINTERS = ("selectors", "adminAccess", "tolerations", "capacity")
"""A v1beta1 request's own fields that v1 nests under `exactly`: values (unset at their zero
value) and lists or pointers (set once given, even empty or false)."""
NOT_A_REQUEST = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"
NOT_FULLY_QUALIFIED = "a fully qualified name must be a domain and a name separated by a slash"
NOT_SEMVER = "must be a string compatible with semver.org spec 2.0.0"
_NUMERIC = r"(0|[1-9]\d*)"
_PRE_RELEASE = r"(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)"
_BUILD = r"[0-9a-zA-Z-]+"
SEMVER = re.compile(rf"^{_NUMERIC}\.{_NUMERIC}\.{_NUMERIC}(-{_PRE_RELEASE}(\.{_PRE_RELEASE})*)?(\+{_BUILD}(\.{_BUILD})*)?$")
"""validation.go semverRe: what a `version` attribute must match (no leading zero in a number)."""


def _exactly_set(raw: dict) -> bool:
    """conversion.go:hasAnyMainRequestFieldsSet."""
    return (any(raw.get(k) not in (None, "", 0) for k in _EXACTLY_VALUES)
            or any(raw.get(k) is not None for k in _EXACTLY_POINTERS))


def _selectors(f: Fields, parent: dict, path: str) -> tuple[str, ...]:
    """The CEL expressions of a `selectors` list (each `cel.expression` is required)."""
    def one(raw: dict, p: str) -> str:
        expression = f.str(f.map(raw, "cel", p), "expression", f"{p}.cel")
        if not expression:
            raise f.error(f"{p}.cel.expression", "Required value")
        problem = syntax_error(expression)  # validateCELSelector: compiled when created
        if problem is not None:
            raise f.error(f"{p}.cel.expression", f"Invalid value: {go_quote(expression)}: {problem}")
        return expression
    return f.items(parent, "selectors", path, one)


def _unique_names(f: Fields, names: Sequence[str], path: str) -> None:
    """validation.go validateSet over requests (or a request's `firstAvailable`): a name given
    twice is refused at the later one."""
    seen: set[str] = set()
    for i, name in enumerate(names):
        if name in seen:
            raise f.error(f"{path}[{i}].name", f"Duplicate value: {go_quote(name)}")
        seen.add(name)


def _node_selector(f: Fields, parent: dict, key: str, path: str) -> NodeSelector | None:
    raw = f.opt_map(parent, key, path)
    if raw is None:
        return None
    return NodeSelector(f.items(raw, "nodeSelectorTerms", f"{path}.{key}", lambda e, p: node_term(f, e, p)))


def _attribute(f: Fields, raw: dict, path: str) -> bool | int | str | Version:
    kinds = [k for k in ATTRIBUTE_TYPES if raw.get(k) is not None]
    if len(kinds) != 1:
        raise f.error(path, "exactly one value must be specified (bool, int, string, version)")
    if kinds[0] == "bool":
        return f.bool(raw, "bool", path)
    if kinds[0] == "int":
        return f.int(raw, "int", path, bits=64) or 0
    text = f.str(raw, kinds[0], path)
    if kinds[0] != "version":
        return text
    if not SEMVER.match(text):
        raise f.error(f"{path}.version", f"Invalid value: {go_quote(text)}: {NOT_SEMVER}")
    return Version(text)


def _is_v1beta1(obj: dict) -> bool:
    return obj.get("apiVersion") == V1BETA1


def _device(f: Fields, raw: dict, path: str, v1beta1: bool) -> Device:
    name = _dns_label(f, f.str(raw, "name", path), f"{path}.name")  # validateDeviceName
    if v1beta1:  # v1beta1: everything but the name under `basic`
        raw, path = f.map(raw, "basic", path), f"{path}.basic"
    attributes = {k: _attribute(f, v if isinstance(v, dict) else {}, f"{path}.attributes[{k}]")
                  for k, v in f.map(raw, "attributes", path).items()}
    capacity = {}
    for k, v in f.map(raw, "capacity", path).items():
        value = v.get("value") if isinstance(v, dict) else None
        if value is None:
            raise f.error(f"{path}.capacity[{k}].value", "Required value")
        try:
            capacity[k] = parse_quantity(value)
        except QuantityError as err:
            raise f.error(f"{path}.capacity[{k}].value", f"invalid quantity {value!r}: {err}") from None
    return Device(name, attributes, capacity)


def decode_resource_slice(obj: dict, source: Source | None) -> ResourceSlice:
    f, _, _, name = object_fields(obj, source)
    spec = f.map(obj, "spec", "")
    pool = f.map(spec, "pool", "spec")
    node_name = f.opt_str(spec, "nodeName", "spec")
    all_nodes = f.bool(spec, "allNodes", "spec")
    selector = _node_selector(f, spec, "nodeSelector", "spec")
    per_device = f.bool(spec, "perDeviceNodeSelection", "spec")  # DRAPartitionableDevices, off: never used
    if sum((node_name is not None, all_nodes, selector is not None, per_device)) != 1:
        raise f.error("spec", "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required")
    devices = f.items(spec, "devices", "spec", lambda e, p: _device(f, e, p, _is_v1beta1(obj)))
    _unique_names(f, [device.name for device in devices], "spec.devices")
    return ResourceSlice(
        name=name, driver=_driver(f, spec), pool=_pool_name(f, pool),
        generation=_at_least(f, pool, "generation", 0, "must be greater than or equal to zero"),
        slice_count=_at_least(f, pool, "resourceSliceCount", 1, "must be greater than zero"),
        devices=devices, node_name=node_name, all_nodes=all_nodes, node_selector=selector, source=source,
    )


def _driver(f: Fields, spec: dict) -> str:
    """validateDriverName (core's ValidateCSIDriverName): required, a DNS subdomain (lowercased)."""
    driver = f.str(spec, "driver", "spec")
    if not driver:
        raise f.error("spec.driver", "Required value")
    problems = is_dns1123_subdomain(driver.lower())
    if problems:
        raise f.error("spec.driver", f"Invalid value: {go_quote(driver)}: {problems[0]}")
    return driver


def _pool_name(f: Fields, pool: dict) -> str:
    """validatePoolName: required; each part between slashes a DNS subdomain."""
    name = f.str(pool, "name", "spec.pool")
    if not name:
        raise f.error("spec.pool.name", "Required value")
    for part in name.split("/"):
        problems = is_dns1123_subdomain(part)
        if problems:
            raise f.error("spec.pool.name", f"Invalid value: {go_quote(part)}: {problems[0]}")
    return name


def _at_least(f: Fields, pool: dict, key: str, least: int, detail: str) -> int:
    """validateResourcePool's counts (absent is 0: neither has a default)."""
    value = f.int(pool, key, "spec.pool", 0, bits=64) or 0
    if value < least:
        raise f.error(f"spec.pool.{key}", f"Invalid value: {value}: {detail}")
    return value


def _dns_label(f: Fields, name: str, path: str) -> str:
    """validateRequestName, validateDeviceName (ValidateDNS1123Label): required, a DNS label."""
    if not name:
        raise f.error(path, "Required value")
    problems = is_dns1123_label(name)
    if problems:
        raise f.error(path, f"Invalid value: {go_quote(name)}: {problems[0]}")
    return name


def decode_device_class(obj: dict, source: Source | None) -> DeviceClass:
    f, _, _, name = object_fields(obj, source)
    return DeviceClass(name, _selectors(f, f.map(obj, "spec", ""), "spec"), source)


def _sub_request(f: Fields, raw: dict, path: str, name: str) -> DeviceSubRequest:
    """validateExactDeviceRequest / validateDeviceSubRequest, in their order: the class, the
    selectors, then validateDeviceAllocationMode (All takes no count; ExactCount defaults to 1)."""
    class_name = f.str(raw, "deviceClassName", path)
    if not class_name:
        raise f.error(f"{path}.deviceClassName", "Required value")
    selectors = _selectors(f, raw, path)
    mode = f.str(raw, "allocationMode", path) or "ExactCount"
    if mode not in ALLOCATION_MODES:
        raise f.error(f"{path}.allocationMode", f'Unsupported value: {mode!r}: supported values: "All", "ExactCount"')
    count = f.int(raw, "count", path, 1 if mode == "ExactCount" else 0, bits=64) or 0
    if mode == "ExactCount" and count <= 0:
        raise f.error(f"{path}.count", f"Invalid value: {count}: must be greater than zero")
    if mode == "All" and count != 0:
        raise f.error(f"{path}.count", f"Invalid value: {count}: must not be specified when allocationMode is 'All'")
    return DeviceSubRequest(name, class_name, selectors, mode, count, bool(raw.get("adminAccess")))


def _request(f: Fields, raw: dict, path: str, v1beta1: bool) -> DeviceRequest:
    name = _dns_label(f, f.str(raw, "name", path), f"{path}.name")
    first = f.list(raw, "firstAvailable", path)
    if v1beta1:
        exactly, exactly_path = (raw if _exactly_set(raw) else None), path
        one_of = "`deviceClassName` or `firstAvailable`"
    else:
        exactly, exactly_path = f.opt_map(raw, "exactly", path), f"{path}.exactly"
        one_of = "`exactly` or `firstAvailable`"
    if (exactly is None) == (not first):
        raise f.error(path, f"exactly one of {one_of} is required")
    if exactly is not None:
        return DeviceRequest(name, exactly=_sub_request(f, exactly, exactly_path, name))
    subs = f.items(raw, "firstAvailable", path,
                   lambda e, p: _sub_request(f, e, p, _dns_label(f, f.str(e, "name", p), f"{p}.name")))
    _unique_names(f, [sub.name for sub in subs], f"{path}.firstAvailable")
    return DeviceRequest(name, first_available=subs)


def _names_a_request(requests: Sequence[DeviceRequest], name: str) -> bool:
    """requestNames.Has: `request`, or `request/subrequest` of a `firstAvailable` request."""
    base, _, sub = name.partition("/")
    for request in requests:
        if request.name == base:
            return not sub or (request.exactly is None and sub in {s.name for s in request.first_available})
    return False


def _constraint(f: Fields, raw: dict, path: str, requests: Sequence[DeviceRequest]) -> DeviceConstraint:
    """validateDeviceConstraint (DRAConsumableCapacity off: `matchAttribute` is the only kind):
    each request named must be one of the claim's, the attribute fully qualified."""
    names = f.str_list(raw, "requests", path)
    for j, name in enumerate(names):
        if not _names_a_request(requests, name):
            raise f.error(f"{path}.requests[{j}]", f"Invalid value: {go_quote(name)}: {NOT_A_REQUEST}")
    for j, name in enumerate(names):  # validateSet with stringKey: the later one, at its index
        if name in names[:j]:
            raise f.error(f"{path}.requests[{j}]", f"Duplicate value: {go_quote(name)}")
    attribute = f.str(raw, "matchAttribute", path)
    if not attribute:
        raise f.error(f"{path}.matchAttribute", "Required value")
    if "/" not in attribute:
        raise f.error(f"{path}.matchAttribute", f"Invalid value: {go_quote(attribute)}: {NOT_FULLY_QUALIFIED}")
    return DeviceConstraint(names, attribute)


def _devices_spec(f: Fields, spec: dict, path: str, v1beta1: bool
                  ) -> tuple[tuple[DeviceRequest, ...], tuple[DeviceConstraint, ...]]:
    devices = f.map(spec, "devices", path)
    dpath = f"{path}.devices"
    requests = f.items(devices, "requests", dpath, lambda e, p: _request(f, e, p, v1beta1))
    _unique_names(f, [request.name for request in requests], f"{dpath}.requests")
    constraints = f.items(devices, "constraints", dpath, lambda e, p: _constraint(f, e, p, requests))
    return requests, constraints


def _result(f: Fields, raw: dict, path: str) -> DeviceResult:
    return DeviceResult(f.str(raw, "request", path), f.str(raw, "driver", path), f.str(raw, "pool", path),
                        f.str(raw, "device", path), bool(raw.get("adminAccess")))


def _allocation(f: Fields, status: dict) -> Allocation | None:
    raw = f.opt_map(status, "allocation", "status")
    if raw is None:
        return None
    results = f.items(f.map(raw, "devices", "status.allocation"), "results", "status.allocation.devices",
                      lambda e, p: _result(f, e, p))
    return Allocation(results, _node_selector(f, raw, "nodeSelector", "status.allocation"))


def _owner_pod_uid(meta: dict) -> str | None:
    for ref in meta.get("ownerReferences") or ():
        if isinstance(ref, dict) and ref.get("controller") and ref.get("kind") == "Pod":
            return str(ref.get("uid", ""))
    return None


def decode_resource_claim(obj: dict, source: Source | None) -> ResourceClaim:
    f, meta, namespace, name = object_fields(obj, source)
    requests, constraints = _devices_spec(f, f.map(obj, "spec", ""), "spec", _is_v1beta1(obj))
    status = f.map(obj, "status", "")
    reserved = f.items(status, "reservedFor", "status", lambda e, p: ConsumerRef(
        f.str(e, "resource", p), f.str(e, "name", p), f.str(e, "uid", p)))
    return ResourceClaim(
        namespace=namespace, name=name, uid=f.str(meta, "uid", "metadata"), requests=requests,
        constraints=constraints, allocation=_allocation(f, status), reserved_for=reserved,
        deleting=meta.get("deletionTimestamp") is not None, owner_pod_uid=_owner_pod_uid(meta),
        pod_claim_name=f.str_map(meta, "annotations", "metadata").get(POD_CLAIM_NAME, ""), source=source,
    )


def decode_resource_claim_template(obj: dict, source: Source | None) -> ResourceClaimTemplate:
    f, _, namespace, name = object_fields(obj, source)
    spec = f.map(f.map(obj, "spec", ""), "spec", "spec")
    requests, constraints = _devices_spec(f, spec, "spec.spec", _is_v1beta1(obj))
    return ResourceClaimTemplate(namespace, name, requests, constraints, source)


def pod_resource_claim(f: Fields, raw: dict, path: str) -> dict:
    """One `spec.resourceClaims` entry of a pod, as the API server validates it
    (validation.go:validatePodResourceClaim): a name, and exactly one source."""
    if not f.str(raw, "name", path):
        raise f.error(f"{path}.name", "Required value")
    sources = [f.opt_str(raw, key, path) for key in ("resourceClaimName", "resourceClaimTemplateName")]
    if sum(source is not None for source in sources) != 1:
        raise f.error(path, "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`")
    return raw


DRA_DECODERS: dict[str, Any] = {
    "ResourceSlice": decode_resource_slice,
    "DeviceClass": decode_device_class,
    "ResourceClaim": decode_resource_claim,
    "ResourceClaimTemplate": decode_resource_claim_template,
}
