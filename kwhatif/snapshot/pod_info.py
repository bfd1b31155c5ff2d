"""A pod plus what the scheduler derives from it once (requests, ports), so per-node work stays small."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, TypeVar, cast

from kwhatif.api.objects import Pod
from kwhatif.api.resources import Resources, non_zero_requests, pod_requests

HostPort = tuple[str, str, int]  # (ip, protocol, port)
T = TypeVar("T")


def wanted_host_ports(pod: Pod) -> tuple[HostPort, ...]:
    """Host ports of regular containers and sidecars (regular init containers exit, node_ports.go:fitsPorts)."""
    out: list[HostPort] = []
    for c in pod.init_containers:
        if c.is_sidecar:
            out.extend((p.host_ip or "0.0.0.0", p.protocol or "TCP", p.host_port) for p in c.ports if p.host_port > 0)
    for c in pod.containers:
        out.extend((p.host_ip or "0.0.0.0", p.protocol or "TCP", p.host_port) for p in c.ports if p.host_port > 0)
    return tuple(out)


def claim_names(pod: Pod) -> tuple[str, ...]:
    """The claimName of each persistentVolumeClaim volume, in volume order ("" when it is not a
    string). Parsed once here: NodeInfo counts the claims in use, the volume plugins look them up."""
    if not pod.volumes:
        return ()
    out = []
    for volume in pod.volumes:
        if isinstance(volume, dict) and volume.get("persistentVolumeClaim") is not None:
            claim = volume["persistentVolumeClaim"]
            name = claim.get("claimName") if isinstance(claim, dict) else None
            out.append(name if isinstance(name, str) else "")
    return tuple(out)


def has_pod_affinity(pod: Pod) -> bool:
    """PodsWithAffinity membership (types.go:NodeInfo.update): podAffinity or podAntiAffinity is set."""
    aff = pod.affinity
    return aff is not None and (aff.pod_affinity is not None or aff.pod_anti_affinity is not None)


def has_required_anti_affinity(pod: Pod) -> bool:
    aff = pod.affinity
    return aff is not None and aff.pod_anti_affinity is not None and bool(aff.pod_anti_affinity.required)


_VECTORS: dict[tuple, tuple[Resources, int, int]] = {}
_MAX_VECTORS = 65536


def _status_signature(statuses: tuple) -> tuple:
    return tuple((st.name, tuple(st.requests.items()) if st.requests is not None else None,
                  tuple(st.allocated.items()) if st.allocated is not None else None) for st in statuses)


def _resource_signature(pod: Pod) -> tuple:
    """Everything the request vectors depend on (resource helpers.go:PodRequests), hashable."""
    signature: tuple = (
        tuple((c.name, tuple(c.requests.items()), c.restart_policy) for c in pod.containers),
        tuple((c.name, tuple(c.requests.items()), c.restart_policy) for c in pod.init_containers),
        tuple(pod.overhead.items()) if pod.overhead else None,
        tuple(pod.pod_requests.items()) if pod.pod_requests else None,
    )
    if pod.container_statuses or pod.init_container_statuses:
        resize = tuple((c.type, c.reason) for c in pod.conditions if c.type == "PodResizePending")
        signature += (_status_signature(pod.container_statuses), _status_signature(pod.init_container_statuses),
                      resize)
    return signature


def _request_vectors(pod: Pod) -> tuple[Resources, int, int]:
    """(requests, non-zero cpu, non-zero memory), computed once per distinct resource signature."""
    key = _resource_signature(pod)
    found = _VECTORS.get(key)
    if found is None:
        cpu, mem = non_zero_requests(pod, use_status=True)
        found = (Resources.from_list(pod_requests(pod, use_status=True)), cpu, mem)
        if len(_VECTORS) < _MAX_VECTORS:
            _VECTORS[key] = found
    return found


_Derived = tuple[Resources, int, int, tuple[HostPort, ...], bool, bool]
_BY_TEMPLATE: dict[tuple[int, ...], tuple[tuple, _Derived]] = {}


def _template_parts(pod: Pod) -> tuple:
    """The pod fields PodInfo derives from: the replicas of a template share these objects."""
    return (pod.containers, pod.init_containers, pod.overhead, pod.pod_requests, pod.container_statuses,
            pod.init_container_statuses, pod.conditions, pod.affinity)


def _derived(pod: Pod) -> tuple[tuple, _Derived]:
    """What PodInfo derives from a pod, remembered by the identity of its template parts: a dump
    of 150,000 pods has a few thousand templates, whose replicas share their decoded objects.
    Each entry holds its parts, so their ids cannot be reused by other objects meanwhile; the
    parts come back too, shared by the replicas (`PodInfo.template`)."""
    parts = _template_parts(pod)
    key = tuple(map(id, parts))
    entry = _BY_TEMPLATE.get(key)
    if entry is not None:
        return entry
    derived = (*_request_vectors(pod), wanted_host_ports(pod), has_pod_affinity(pod), has_required_anti_affinity(pod))
    if len(_BY_TEMPLATE) >= _MAX_VECTORS:
        _BY_TEMPLATE.clear()
    entry = _BY_TEMPLATE[key] = (parts, derived)
    return entry


@dataclass(eq=False, slots=True)
class PodInfo:
    """A pod with its integer request vectors and PVC claim names. `derived` holds per-plugin
    precomputation (e.g. parsed affinity terms) so that it is done once per pod, not once per node."""

    pod: Pod
    requests: Resources
    non_zero_cpu: int
    non_zero_mem: int
    host_ports: tuple[HostPort, ...]
    with_affinity: bool
    with_required_anti_affinity: bool
    derived: dict[str, Any] = field(default_factory=dict)
    pvc_names: tuple[str, ...] = ()
    template: tuple = ()
    """The fields requests and affinity are read from (containers, overhead, affinity...), one
    tuple object shared by the replicas of a template: what is worked out from those fields
    alone can be kept per template (`template_cache`)."""

    @classmethod
    def of(cls, pod: Pod) -> PodInfo:
        """Aggregates use status resources of pods already running (resource helpers.go:PodRequests
        (UseStatusResources))."""
        template, derived = _derived(pod)
        return cls(pod, *derived, pvc_names=claim_names(pod), template=template)

    @property
    def key(self) -> str:
        return self.pod.key


_PER_TEMPLATE: dict[tuple, tuple[tuple, Any]] = {}


def template_cache(info: PodInfo, what: Hashable, work_out: Callable[[], T]) -> T:
    """`work_out()` — which must read only the template's fields (`_template_parts`) — for the
    pod's template and `what` (the question, with whatever else the answer depends on), done
    once for all its replicas. The entry holds the template, so its id is not reused meanwhile."""
    if not info.template:
        return work_out()
    key = (id(info.template), what)
    entry = _PER_TEMPLATE.get(key)
    if entry is not None and entry[0] is info.template:
        return cast(T, entry[1])
    value = work_out()
    if len(_PER_TEMPLATE) >= _MAX_VECTORS:
        _PER_TEMPLATE.clear()
    _PER_TEMPLATE[key] = (info.template, value)
    return value
