"""Manifest mappings → typed API objects (`kwhatif.api.objects`), with API defaulting (§10.5).

Only scheduling-relevant fields are kept, so a 150,000-pod dump does not keep its raw dicts.
Malformed values become `InputError`s naming the field; values the API server would refuse in
selectors (unknown operators, missing values) are refused here too.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any, Callable

from kwhatif.api.affinity import (
    Affinity, NodeAffinity, NodeSelector, NodeSelectorTerm, PodAffinityRules, PodAffinityTerm, PreferredSchedulingTerm,
    TopologySpreadConstraint, WeightedPodAffinityTerm,
)
from kwhatif.api.objects import (
    SCHEDULING_VOLUME_SOURCES, Container, ContainerPort, ContainerStatusResources, Controller, ImageState, LimitRange,
    LimitRangeItem, Namespace, Node, OwnerReference, Pod, PodCondition, PodDisruptionBudget, PriorityClass,
    RuntimeClass, Service,
)
from kwhatif.api.storage import (
    ClaimRef, CSIDriver, CSINode, CSINodeDriver, PersistentVolume, PersistentVolumeClaim, StorageClass,
    TopologySelectorRequirement,
)
from kwhatif.api.tolerations import Taint, Toleration
from kwhatif.api.selectors import LABEL_OPERATORS, NODE_OPERATORS, LabelSelector, Requirement
from kwhatif.errors import InputError, Source
from kwhatif.load.fields import Fields
from kwhatif.load.refs import object_ref

TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def _metadata(f: Fields, obj: dict) -> tuple[dict, str, str]:
    meta = f.map(obj, "metadata", "")
    name = f.str(meta, "name", "metadata")
    if not name:
        raise f.error("metadata.name", "name or generateName is required")
    namespace = f.str(meta, "namespace", "metadata") or "default"
    return meta, namespace, name


_NAME_PART = r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_NAME_RE = re.compile(_NAME_PART)
_LABEL_VALUE_RE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
_DNS1123_SUBDOMAIN_RE = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_NAME_FMT = ("consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
             "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
             f"'{_NAME_PART}')")


@lru_cache(maxsize=4096)
def qualified_name_error(key: str) -> str | None:
    """apimachinery's IsQualifiedName (label keys, selector keys): the API server's first complaint."""
    parts = key.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            return "prefix part must be non-empty"
        if len(prefix) > 253:
            return "prefix part must be no more than 253 characters"
        if not _DNS1123_SUBDOMAIN_RE.fullmatch(prefix):
            return ("prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                    "'-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
                    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
    else:
        return f"a qualified name must {_NAME_FMT} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
    if not name:
        return "name part must be non-empty"
    if len(name) > 63:
        return "name part must be no more than 63 characters"
    if not _NAME_RE.fullmatch(name):
        return f"name part must {_NAME_FMT}"
    return None


@lru_cache(maxsize=4096)
def label_value_error(value: str) -> str | None:
    """apimachinery's IsValidLabelValue."""
    if len(value) > 63:
        return "must be no more than 63 characters"
    if not _LABEL_VALUE_RE.fullmatch(value):
        return ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
                "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
                "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
    return None


def _check_label_key(f: Fields, key: str, path: str) -> None:
    problem = qualified_name_error(key)
    if problem:
        raise f.error(path, f"Invalid value: {json.dumps(key)}: {problem}")


def _check_label_value(f: Fields, value: str, path: str) -> None:
    problem = label_value_error(value)
    if problem:
        raise f.error(path, f"Invalid value: {json.dumps(value)}: {problem}")


def _label_requirement(f: Fields, raw: dict, path: str) -> Requirement:
    """A metav1.LabelSelectorRequirement, validated as the API server does (ValidateLabelSelector)."""
    req = _requirement(f, raw, path, LABEL_OPERATORS)
    _check_label_key(f, req.key, f"{path}.key")
    for i, value in enumerate(req.values):
        _check_label_value(f, value, f"{path}.values[{i}]")
    return req


def _requirement(f: Fields, raw: dict, path: str, operators: tuple[str, ...]) -> Requirement:
    key = f.str(raw, "key", path)
    op = f.str(raw, "operator", path)
    values = f.str_list(raw, "values", path)
    if not key:
        raise f.error(f"{path}.key", "key is required")
    if op not in operators:
        raise f.error(f"{path}.operator", f"{op!r} is not a valid selector operator")
    if op in ("In", "NotIn") and not values:
        raise f.error(f"{path}.values", "must be specified when `operator` is 'In' or 'NotIn'")
    if op in ("Exists", "DoesNotExist") and values:
        raise f.error(f"{path}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
    if op in ("Gt", "Lt") and len(values) != 1:
        raise f.error(f"{path}.values", "must be specified single value when `operator` is 'Lt' or 'Gt'")
    return Requirement(key, op, values)


def label_selector(f: Fields, parent: dict, key: str, path: str) -> LabelSelector | None:
    """A metav1.LabelSelector; None when the field is absent or null (matches nothing)."""
    raw = f.opt_map(parent, key, path)
    if raw is None:
        return None
    sel_path = f"{path}.{key}" if path else key
    match_labels = f.str_map(raw, "matchLabels", sel_path)
    for k, v in match_labels.items():
        _check_label_key(f, k, f"{sel_path}.matchLabels")
        _check_label_value(f, v, f"{sel_path}.matchLabels")
    reqs = [Requirement(k, "In", (v,)) for k, v in sorted(match_labels.items())]
    reqs += f.items(raw, "matchExpressions", sel_path, lambda e, p: _label_requirement(f, e, p))
    return LabelSelector(tuple(reqs))


def _taint(f: Fields, raw: dict, path: str) -> Taint:
    effect = f.str(raw, "effect", path)
    if effect not in TAINT_EFFECTS:
        raise f.error(f"{path}.effect", f"Unsupported value: {effect!r}: supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"")
    return Taint(f.str(raw, "key", path), f.str(raw, "value", path), effect)


def toleration(f: Fields, raw: dict, path: str) -> Toleration:
    op = f.str(raw, "operator", path)
    value = f.str(raw, "value", path)
    if op not in ("", "Equal", "Exists"):
        raise f.error(f"{path}.operator", f"Unsupported value: {op!r}: supported values: \"Equal\", \"Exists\"")
    if op == "Exists" and value:
        raise f.error(f"{path}.operator", "value must be empty when `operator` is 'Exists'")
    key = f.str(raw, "key", path)
    if not key and op != "Exists":
        raise f.error(f"{path}.operator", "operator must be Exists when `key` is empty, which means \"match all values and all keys\"")
    return Toleration(key, op, value, f.str(raw, "effect", path), f.int(raw, "tolerationSeconds", path))


def _node_term(f: Fields, raw: dict, path: str) -> NodeSelectorTerm:
    exprs = f.items(raw, "matchExpressions", path, lambda e, p: _requirement(f, e, p, NODE_OPERATORS))
    fields = f.items(raw, "matchFields", path, lambda e, p: _field_requirement(f, e, p))
    return NodeSelectorTerm(exprs, fields, valid=all(r.parses_as_label_selector for r in exprs))


def _field_requirement(f: Fields, raw: dict, path: str) -> Requirement:
    req = _requirement(f, raw, path, ("In", "NotIn"))
    if req.key != "metadata.name":
        raise f.error(f"{path}.key", f"{req.key!r} is not a valid field selector key")
    if len(req.values) != 1:
        raise f.error(f"{path}.values", "must be only one value when `operator` is 'In' or 'NotIn' for node field selector")
    return req


def _node_affinity(f: Fields, raw: dict, path: str) -> NodeAffinity:
    required = None
    req_raw = f.opt_map(raw, "requiredDuringSchedulingIgnoredDuringExecution", path)
    if req_raw is not None:
        req_path = f"{path}.requiredDuringSchedulingIgnoredDuringExecution"
        required = NodeSelector(f.items(req_raw, "nodeSelectorTerms", req_path, lambda e, p: _node_term(f, e, p)))
    preferred = None
    if raw.get("preferredDuringSchedulingIgnoredDuringExecution") is not None:
        preferred = f.items(raw, "preferredDuringSchedulingIgnoredDuringExecution", path, lambda e, p: PreferredSchedulingTerm(
            _weight(f, e, p), _node_term(f, f.map(e, "preference", p), f"{p}.preference")))
    return NodeAffinity(required, preferred)


def _weight(f: Fields, raw: dict, path: str) -> int:
    weight = f.int(raw, "weight", path, 0) or 0
    if not 1 <= weight <= 100:
        raise f.error(f"{path}.weight", "must be in the range 1-100")
    return weight


def _pod_affinity_term(f: Fields, raw: dict, path: str) -> PodAffinityTerm:
    topology_key = f.str(raw, "topologyKey", path)
    if not topology_key:
        raise f.error(f"{path}.topologyKey", "can not be empty")
    return PodAffinityTerm(
        label_selector=label_selector(f, raw, "labelSelector", path),
        topology_key=topology_key,
        namespaces=f.str_list(raw, "namespaces", path),
        namespace_selector=label_selector(f, raw, "namespaceSelector", path),
        match_label_keys=f.str_list(raw, "matchLabelKeys", path),
        mismatch_label_keys=f.str_list(raw, "mismatchLabelKeys", path),
    )


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
    if not topology_key:
        raise f.error(f"{path}.topologyKey", "can not be empty")
    min_domains = f.int(raw, "minDomains", path)
    if min_domains is not None and min_domains <= 0:
        raise f.error(f"{path}.minDomains", f"Invalid value: {min_domains}: must be greater than zero")
    return TopologySpreadConstraint(
        max_skew=max_skew, topology_key=topology_key, when_unsatisfiable=when,
        label_selector=label_selector(f, raw, "labelSelector", path), min_domains=min_domains,
        node_affinity_policy=_policy(f, raw, "nodeAffinityPolicy", path),
        node_taints_policy=_policy(f, raw, "nodeTaintsPolicy", path),
        match_label_keys=f.str_list(raw, "matchLabelKeys", path),
    )


def _policy(f: Fields, raw: dict, key: str, path: str) -> str | None:
    value = f.opt_str(raw, key, path)
    if value is not None and value not in ("Honor", "Ignore"):
        raise f.error(f"{path}.{key}", f"Unsupported value: {value!r}: supported values: \"Honor\", \"Ignore\"")
    return value


def _port(f: Fields, raw: dict, path: str, host_network: bool) -> ContainerPort:
    container_port = f.int(raw, "containerPort", path, 0) or 0
    host_port = f.int(raw, "hostPort", path, 0) or 0
    if host_network and host_port == 0:
        host_port = container_port  # API defaulting for hostNetwork pods (§10.5)
    return ContainerPort(container_port, host_port, f.str(raw, "protocol", path) or "TCP", f.str(raw, "hostIP", path))


def _container(f: Fields, raw: dict, path: str, host_network: bool) -> Container:
    res = f.map(raw, "resources", path)
    requests = f.resources(res, "requests", f"{path}.resources")
    limits = f.resources(res, "limits", f"{path}.resources")
    for name, q in limits.items():
        requests.setdefault(name, q)  # requests default to limits (§10.5)
    return Container(
        name=f.str(raw, "name", path), image=f.str(raw, "image", path), requests=requests, limits=limits,
        ports=f.items(raw, "ports", path, lambda e, p: _port(f, e, p, host_network)),
        restart_policy=f.opt_str(raw, "restartPolicy", path),
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
"""The only pod conditions scheduling reads: an Infeasible resize (§4.7) and a preemption in
progress (§9.1). The others (Ready, Initialized...) differ from pod to pod and are not kept."""


def pod_labels(f: Fields, meta: dict) -> dict[str, str]:
    return f.str_map(meta, "labels", "metadata")


def pod_annotations(f: Fields, meta: dict) -> dict[str, str]:
    return f.str_map(meta, "annotations", "metadata")


def owner_references(f: Fields, meta: dict) -> tuple[OwnerReference, ...]:
    return f.items(meta, "ownerReferences", "metadata", lambda e, p: _owner(f, e, p))


def pod_conditions(f: Fields, status: dict) -> tuple[PodCondition, ...]:
    conditions = f.items(status, "conditions", "status", lambda e, p: PodCondition(
        f.str(e, "type", p), f.str(e, "status", p), f.str(e, "reason", p)))
    return tuple(c for c in conditions if c.type in READ_CONDITIONS)


def container_statuses(f: Fields, status: dict, key: str) -> tuple[ContainerStatusResources, ...]:
    """The statuses of `key` (`containerStatuses`, `initContainerStatuses`) that report requests
    (an in-place resize, §4.7); the others change nothing and are not kept."""
    statuses = f.items(status, key, "status", lambda e, p: _status_resources(f, e, p))
    return tuple(s for s in statuses if s.requests is not None)


def _scheduling_part(f: Fields, spec: dict) -> dict[str, Any]:
    return dict(
        scheduler_name=f.str(spec, "schedulerName", "spec") or "default-scheduler",
        priority=f.int(spec, "priority", "spec"), priority_class_name=f.str(spec, "priorityClassName", "spec"),
        preemption_policy=f.opt_str(spec, "preemptionPolicy", "spec"),
        runtime_class_name=f.opt_str(spec, "runtimeClassName", "spec"),
        host_network=f.bool(spec, "hostNetwork", "spec"),
    )


def _containers_part(f: Fields, spec: dict) -> dict[str, Any]:
    host_network = f.bool(spec, "hostNetwork", "spec")
    return dict(
        containers=f.items(spec, "containers", "spec", lambda e, p: _container(f, e, p, host_network)),
        init_containers=f.items(spec, "initContainers", "spec", lambda e, p: _container(f, e, p, host_network)),
    )


def _resources_part(f: Fields, spec: dict) -> dict[str, Any]:
    pod_res = f.opt_map(spec, "resources", "spec")
    return dict(
        overhead=f.resources(spec, "overhead", "spec") if spec.get("overhead") is not None else None,
        pod_requests=f.resources(pod_res, "requests", "spec.resources") if pod_res else None,
        pod_limits=f.resources(pod_res, "limits", "spec.resources") if pod_res else None,
    )


def _node_selector_part(f: Fields, spec: dict) -> dict[str, Any]:
    return dict(node_selector=f.str_map(spec, "nodeSelector", "spec") if spec.get("nodeSelector") is not None else None)


def _tolerations_part(f: Fields, spec: dict) -> dict[str, Any]:
    return dict(tolerations=f.items(spec, "tolerations", "spec", lambda e, p: toleration(f, e, p)))


def _gates_part(f: Fields, spec: dict) -> dict[str, Any]:
    return dict(scheduling_gates=f.items(spec, "schedulingGates", "spec", lambda e, p: f.str(e, "name", p)))


def _affinity_part(f: Fields, spec: dict) -> dict[str, Any]:
    return dict(affinity=_affinity(f, spec))


def _spread_part(f: Fields, spec: dict) -> dict[str, Any]:
    return dict(topology_spread_constraints=f.items(spec, "topologySpreadConstraints", "spec",
                                                    lambda e, p: _spread_constraint(f, e, p)))


def _storage_part(f: Fields, spec: dict) -> dict[str, Any]:
    volumes = f.items(spec, "volumes", "spec", lambda e, p: e)
    return dict(volumes=tuple(v for v in volumes if any(v.get(k) is not None for k in SCHEDULING_VOLUME_SOURCES)),
                resource_claims=tuple(f.list(spec, "resourceClaims", "spec")))


TEMPLATE_PARTS: tuple[tuple[tuple[str, ...], Callable[[Fields, dict], dict[str, Any]]], ...] = (
    (("schedulerName", "priority", "priorityClassName", "preemptionPolicy", "runtimeClassName", "hostNetwork"),
     _scheduling_part),
    (("containers", "initContainers", "hostNetwork"), _containers_part),
    (("overhead", "resources"), _resources_part),
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


def decode_pod(obj: dict, source: Source | None) -> Pod:
    f = Fields(source, object_ref(obj))
    meta, namespace, name = _metadata(f, obj)
    spec = f.map(obj, "spec", "")
    status = f.map(obj, "status", "")
    return Pod(
        namespace=namespace, name=name, uid=f.str(meta, "uid", "metadata"),
        labels=pod_labels(f, meta), annotations=pod_annotations(f, meta),
        creation_timestamp=f.str(meta, "creationTimestamp", "metadata"),
        deletion_timestamp=f.opt_str(meta, "deletionTimestamp", "metadata"),
        owner_references=owner_references(f, meta),
        node_name=f.str(spec, "nodeName", "spec"),
        phase=f.str(status, "phase", "status"), start_time=f.opt_str(status, "startTime", "status"),
        nominated_node_name=f.str(status, "nominatedNodeName", "status"),
        conditions=pod_conditions(f, status),
        container_statuses=container_statuses(f, status, "containerStatuses"),
        init_container_statuses=container_statuses(f, status, "initContainerStatuses"),
        source=source,
        **pod_template(f, spec),
    )


def decode_node(obj: dict, source: Source | None) -> Node:
    f = Fields(source, object_ref(obj))
    meta, _, name = _metadata(f, obj)
    spec = f.map(obj, "spec", "")
    status = f.map(obj, "status", "")
    allocatable = f.resources(status, "allocatable", "status")
    if status.get("allocatable") is None:
        allocatable = f.resources(status, "capacity", "status")  # §10.5: copied from capacity
    images = f.items(status, "images", "status", lambda e, p: ImageState(
        f.str_list(e, "names", p), f.int(e, "sizeBytes", p, 0) or 0))
    return Node(
        name=name, labels=f.str_map(meta, "labels", "metadata"),
        taints=f.items(spec, "taints", "spec", lambda e, p: _taint(f, e, p)),
        unschedulable=f.bool(spec, "unschedulable", "spec"), allocatable=allocatable, images=images, source=source,
    )


def decode_namespace(obj: dict, source: Source | None) -> Namespace:
    f = Fields(source, object_ref(obj))
    meta, _, name = _metadata(f, obj)
    labels = dict(f.str_map(meta, "labels", "metadata"))
    labels["kubernetes.io/metadata.name"] = name  # always set by the API server (§10.5)
    return Namespace(name, labels, source)


def decode_priority_class(obj: dict, source: Source | None) -> PriorityClass:
    f = Fields(source, object_ref(obj))
    _, _, name = _metadata(f, obj)
    if obj.get("value") is None:
        raise f.error("value", "Required value")
    policy = f.str(obj, "preemptionPolicy", "") or "PreemptLowerPriority"
    if policy not in ("PreemptLowerPriority", "Never"):
        raise f.error("preemptionPolicy", f"Unsupported value: {policy!r}: supported values: \"Never\", \"PreemptLowerPriority\"")
    return PriorityClass(name, f.int(obj, "value", "") or 0, f.bool(obj, "globalDefault", ""), policy, source)


def decode_runtime_class(obj: dict, source: Source | None) -> RuntimeClass:
    f = Fields(source, object_ref(obj))
    _, _, name = _metadata(f, obj)
    overhead_raw = f.map(obj, "overhead", "")
    scheduling = f.map(obj, "scheduling", "")
    return RuntimeClass(
        name=name, handler=f.str(obj, "handler", ""),
        overhead=f.resources(overhead_raw, "podFixed", "overhead") if overhead_raw.get("podFixed") else None,
        node_selector=f.str_map(scheduling, "nodeSelector", "scheduling") if scheduling.get("nodeSelector") else None,
        tolerations=f.items(scheduling, "tolerations", "scheduling", lambda e, p: toleration(f, e, p)),
        source=source,
    )


def decode_pdb(obj: dict, source: Source | None) -> PodDisruptionBudget:
    f = Fields(source, object_ref(obj))
    _, namespace, name = _metadata(f, obj)
    spec = f.map(obj, "spec", "")
    status = f.map(obj, "status", "")
    return PodDisruptionBudget(
        namespace=namespace, name=name, selector=label_selector(f, spec, "selector", "spec"),
        disruptions_allowed=f.int(status, "disruptionsAllowed", "status", 0) or 0,
        disrupted_pods=frozenset(f.map(status, "disruptedPods", "status")), source=source,
    )


def decode_service(obj: dict, source: Source | None) -> Service:
    f = Fields(source, object_ref(obj))
    _, namespace, name = _metadata(f, obj)
    spec = f.map(obj, "spec", "")
    selector = f.str_map(spec, "selector", "spec") if spec.get("selector") is not None else None
    return Service(namespace, name, selector, source)


def decode_controller(obj: dict, source: Source | None) -> Controller:
    f = Fields(source, object_ref(obj))
    _, namespace, name = _metadata(f, obj)
    spec = f.map(obj, "spec", "")
    kind = obj["kind"]
    replicas = f.int(spec, "replicas", "spec")
    if replicas is not None and replicas < 0:
        raise f.error("spec.replicas", f"Invalid value: {replicas}: must be greater than or equal to 0")
    if kind == "ReplicationController":
        selector = f.str_map(spec, "selector", "spec") if spec.get("selector") is not None else None
        return Controller(kind, namespace, name, map_selector=selector, source=source)
    return Controller(kind, namespace, name, selector=label_selector(f, spec, "selector", "spec"), source=source)


def decode_limit_range(obj: dict, source: Source | None) -> LimitRange:
    f = Fields(source, object_ref(obj))
    _, namespace, name = _metadata(f, obj)
    spec = f.map(obj, "spec", "")
    items = f.items(spec, "limits", "spec", lambda e, p: LimitRangeItem(
        f.str(e, "type", p), f.resources(e, "default", p), f.resources(e, "defaultRequest", p)))
    return LimitRange(namespace, name, items, source)


# Storage objects (volume plugins, §5.7-5.10) -------------------------------------------------

_BINDING_MODES = ("Immediate", "WaitForFirstConsumer")
_DEFAULT_CLASS_ANNOTATIONS = ("storageclass.kubernetes.io/is-default-class",
                              "storageclass.beta.kubernetes.io/is-default-class")
# PV source field -> the field that identifies the disk (for CSI migration of in-tree volumes).
_PV_SOURCE_IDS = {
    "csi": "volumeHandle", "awsElasticBlockStore": "volumeID", "gcePersistentDisk": "pdName",
    "azureDisk": "diskURI", "cinder": "volumeID", "portworxVolume": "volumeID",
    "vsphereVolume": "volumePath", "azureFile": "shareName",
}
_PV_SOURCES = tuple(_PV_SOURCE_IDS) + (
    "local", "hostPath", "nfs", "iscsi", "rbd", "fc", "flexVolume", "cephfs", "glusterfs", "flocker",
    "quobyte", "photonPersistentDisk", "scaleIO", "storageos",
)


def _controller_uid(f: Fields, meta: dict) -> str | None:
    """The uid of the controller ownerReference (metav1.GetControllerOf), None without one."""
    refs = f.items(meta, "ownerReferences", "metadata",
                   lambda e, p: (f.bool(e, "controller", p), f.str(e, "uid", p)))
    for controller, uid in refs:
        if controller:
            return uid
    return None


def _storage_request(f: Fields, spec: dict) -> Any:
    resources = f.map(spec, "resources", "spec")
    return f.resources(resources, "requests", "spec.resources").get("storage")


def decode_pvc(obj: dict, source: Source | None) -> PersistentVolumeClaim:
    f = Fields(source, object_ref(obj))
    meta, namespace, name = _metadata(f, obj)
    spec = f.map(obj, "spec", "")
    status = f.map(obj, "status", "")
    return PersistentVolumeClaim(
        namespace=namespace, name=name, uid=f.str(meta, "uid", "metadata"),
        labels=f.str_map(meta, "labels", "metadata"), annotations=f.str_map(meta, "annotations", "metadata"),
        creation_timestamp=f.str(meta, "creationTimestamp", "metadata"),
        deletion_timestamp=f.opt_str(meta, "deletionTimestamp", "metadata"),
        controller_uid=_controller_uid(f, meta),
        access_modes=f.str_list(spec, "accessModes", "spec"),
        storage_class_name=f.opt_str(spec, "storageClassName", "spec"),
        volume_name=f.str(spec, "volumeName", "spec"), volume_mode=f.opt_str(spec, "volumeMode", "spec"),
        requested_storage=_storage_request(f, spec), selector=label_selector(f, spec, "selector", "spec"),
        volume_attributes_class_name=f.opt_str(spec, "volumeAttributesClassName", "spec"),
        phase=f.str(status, "phase", "status"), source=source,
    )


def _pv_node_affinity(f: Fields, spec: dict) -> NodeSelector | None:
    affinity = f.opt_map(spec, "nodeAffinity", "spec")
    if affinity is None:
        return None
    required = f.opt_map(affinity, "required", "spec.nodeAffinity")
    if required is None:
        return None
    path = "spec.nodeAffinity.required"
    return NodeSelector(f.items(required, "nodeSelectorTerms", path, lambda e, p: _node_term(f, e, p)))


def _claim_ref(f: Fields, spec: dict) -> ClaimRef | None:
    raw = f.opt_map(spec, "claimRef", "spec")
    if raw is None:
        return None
    return ClaimRef(f.str(raw, "namespace", "spec.claimRef"), f.str(raw, "name", "spec.claimRef"),
                    f.str(raw, "uid", "spec.claimRef"))


def decode_pv(obj: dict, source: Source | None) -> PersistentVolume:
    f = Fields(source, object_ref(obj))
    meta, _, name = _metadata(f, obj)
    spec = f.map(obj, "spec", "")
    status = f.map(obj, "status", "")
    kind = next((k for k in _PV_SOURCES if spec.get(k) is not None), "")
    raw_source = f.map(spec, kind, "spec") if kind else {}
    id_field = _PV_SOURCE_IDS.get(kind)
    return PersistentVolume(
        name=name, labels=f.str_map(meta, "labels", "metadata"), annotations=f.str_map(meta, "annotations", "metadata"),
        creation_timestamp=f.str(meta, "creationTimestamp", "metadata"),
        deletion_timestamp=f.opt_str(meta, "deletionTimestamp", "metadata"),
        storage_class_name=f.str(spec, "storageClassName", "spec"),
        capacity=f.resources(spec, "capacity", "spec").get("storage"),
        access_modes=f.str_list(spec, "accessModes", "spec"), volume_mode=f.opt_str(spec, "volumeMode", "spec"),
        claim_ref=_claim_ref(f, spec), node_affinity=_pv_node_affinity(f, spec),
        volume_attributes_class_name=f.opt_str(spec, "volumeAttributesClassName", "spec"),
        volume_source=kind, csi_driver=f.str(raw_source, "driver", f"spec.{kind}") if kind == "csi" else "",
        volume_id=f.str(raw_source, id_field, f"spec.{kind}") if id_field else "",
        phase=f.str(status, "phase", "status"), source=source,
    )


def _topology_term(f: Fields, raw: dict, path: str) -> tuple[TopologySelectorRequirement, ...]:
    return f.items(raw, "matchLabelExpressions", path, lambda e, p: TopologySelectorRequirement(
        f.str(e, "key", p), f.str_list(e, "values", p)))


def decode_storage_class(obj: dict, source: Source | None) -> StorageClass:
    f = Fields(source, object_ref(obj))
    meta, _, name = _metadata(f, obj)
    mode = f.str(obj, "volumeBindingMode", "") or "Immediate"  # API default (§10.5)
    if mode not in _BINDING_MODES:
        raise f.error("volumeBindingMode", f"Unsupported value: {mode!r}: supported values: \"Immediate\", \"WaitForFirstConsumer\"")
    annotations = f.str_map(meta, "annotations", "metadata")
    return StorageClass(
        name=name, provisioner=f.str(obj, "provisioner", ""), volume_binding_mode=mode,
        allowed_topologies=f.items(obj, "allowedTopologies", "", lambda e, p: _topology_term(f, e, p)),
        is_default=any(annotations.get(a) == "true" for a in _DEFAULT_CLASS_ANNOTATIONS),
        creation_timestamp=f.str(meta, "creationTimestamp", "metadata"), source=source,
    )


def decode_csi_node(obj: dict, source: Source | None) -> CSINode:
    f = Fields(source, object_ref(obj))
    meta, _, name = _metadata(f, obj)
    spec = f.map(obj, "spec", "")
    migrated = f.str_map(meta, "annotations", "metadata").get("storage.alpha.kubernetes.io/migrated-plugins", "")
    drivers = f.items(spec, "drivers", "spec", lambda e, p: CSINodeDriver(
        f.str(e, "name", p), f.int(f.map(e, "allocatable", p), "count", f"{p}.allocatable")))
    return CSINode(name, drivers, frozenset(t for t in migrated.split(",") if t) if migrated else frozenset(), source)


def decode_csi_driver(obj: dict, source: Source | None) -> CSIDriver:
    f = Fields(source, object_ref(obj))
    _, _, name = _metadata(f, obj)
    spec = f.map(obj, "spec", "")
    attach = spec.get("attachRequired")
    return CSIDriver(name, f.bool(spec, "storageCapacity", "spec"),
                     True if attach is None else f.bool(spec, "attachRequired", "spec"), source)


DECODERS: dict[str, Callable[[dict, Source | None], Any]] = {
    "Pod": decode_pod,
    "Node": decode_node,
    "Namespace": decode_namespace,
    "PriorityClass": decode_priority_class,
    "RuntimeClass": decode_runtime_class,
    "PodDisruptionBudget": decode_pdb,
    "Service": decode_service,
    "ReplicaSet": decode_controller,
    "StatefulSet": decode_controller,
    "ReplicationController": decode_controller,
    "LimitRange": decode_limit_range,
    "PersistentVolumeClaim": decode_pvc,
    "PersistentVolume": decode_pv,
    "StorageClass": decode_storage_class,
    "CSINode": decode_csi_node,
    "CSIDriver": decode_csi_driver,
}


def decode(obj: dict, source: Source | None) -> Any | None:
    """The typed object for a known kind, or None for kinds kwhatif does not read."""
    kind = obj.get("kind")
    if not isinstance(kind, str) or not kind:
        raise InputError("kind is required", source, object_ref(obj), "kind")
    if not isinstance(obj.get("apiVersion"), str) or not obj.get("apiVersion"):
        raise InputError("apiVersion is required", source, object_ref(obj), "apiVersion")
    decoder = DECODERS.get(kind)
    return decoder(obj, source) if decoder else None

