"""Pod request vectors as the scheduler computes them (resource helpers.go:PodRequests).

Quantities are combined exactly (sums and element-wise maxima of Fractions) and converted to
integers once per pod, because that is what kube-scheduler does and it matters at exact-fit
boundaries.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Iterable, Mapping

from kwhatif.api.names import is_qualified_name
from kwhatif.api.objects import Container, ContainerStatusResources, Pod, ResourceList
from kwhatif.api.quantity import milli_value, value

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL = "ephemeral-storage"
PODS = "pods"
DEFAULT_MILLI_CPU = 100
DEFAULT_MEMORY = 200 * 1024 * 1024
_DEFAULTS: dict[str, Fraction] = {CPU: Fraction(DEFAULT_MILLI_CPU, 1000), MEMORY: Fraction(DEFAULT_MEMORY)}

def is_extended_resource_name(name: str) -> bool:
    """v1helper.IsExtendedResourceName: a prefixed name outside kubernetes.io that would still be a
    valid name as a `requests.`-prefixed quota key."""
    if "/" not in name or "kubernetes.io/" in name or name.startswith("requests."):
        return False
    return not is_qualified_name(f"requests.{name}")


def is_scalar_resource(name: str) -> bool:
    """Extended, hugepages, prefixed-native and attachable-volume names count (fit.go:fitsRequest)."""
    if name.startswith("hugepages-") or name.startswith("attachable-volumes-"):
        return True
    return "kubernetes.io/" in name or is_extended_resource_name(name)


def is_pod_level_resource(name: str) -> bool:
    """Names that pod-level `spec.resources.requests` may override (resource helpers.go:PodRequests)."""
    return name in (CPU, MEMORY) or name.startswith("hugepages-")


@dataclass(slots=True)
class Resources:
    """An integer resource vector: millicores, bytes, and scalar units."""

    milli_cpu: int = 0
    memory: int = 0
    ephemeral_storage: int = 0
    scalars: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_list(cls, quantities: Mapping[str, Fraction]) -> Resources:
        """Convert an exact resource list; names the scheduler ignores are dropped."""
        res = cls()
        for name, q in quantities.items():
            if name == CPU:
                res.milli_cpu = milli_value(q)
            elif name == MEMORY:
                res.memory = value(q)
            elif name == EPHEMERAL:
                res.ephemeral_storage = value(q)
            elif is_scalar_resource(name):
                res.scalars[name] = value(q)
        return res

    def add(self, other: Resources, sign: int = 1) -> None:
        """Add (or with sign -1 subtract) another vector in place."""
        self.milli_cpu += sign * other.milli_cpu
        self.memory += sign * other.memory
        self.ephemeral_storage += sign * other.ephemeral_storage
        for name, amount in other.scalars.items():
            self.scalars[name] = self.scalars.get(name, 0) + sign * amount

    def copy(self) -> Resources:
        return Resources(self.milli_cpu, self.memory, self.ephemeral_storage, dict(self.scalars))

    def get(self, name: str) -> int:
        """The amount for any resource name (0 when absent)."""
        if name == CPU:
            return self.milli_cpu
        if name == MEMORY:
            return self.memory
        if name == EPHEMERAL:
            return self.ephemeral_storage
        return self.scalars.get(name, 0)

    def is_zero(self) -> bool:
        return not (self.milli_cpu or self.memory or self.ephemeral_storage or self.scalars)


def _add_into(total: dict[str, Fraction], extra: Mapping[str, Fraction]) -> None:
    for name, q in extra.items():
        total[name] = total.get(name, Fraction(0)) + q


def _max_into(total: dict[str, Fraction], other: Mapping[str, Fraction]) -> None:
    for name, q in other.items():
        if name not in total or q > total[name]:
            total[name] = q


def _with_defaults(requests: ResourceList, names: frozenset[str]) -> ResourceList:
    """Non-zero rule (pod_resources.go:GetNonzeroRequests): a missing key among `names` counts as its default (100m cpu,
    200Mi memory); an explicit 0 stays 0."""
    missing = [n for n in names if n not in requests]
    if not missing:
        return requests
    filled = dict(requests)
    for name in missing:
        filled[name] = _DEFAULTS[name]
    return filled


def _status_requests(
    spec: ResourceList, status: ContainerStatusResources | None, infeasible: bool
) -> ResourceList:
    """In-place resize (resource helpers.go:PodRequests (UseStatusResources)): max of spec, status and
    allocated requests (spec left out when the resize is Infeasible)."""
    if status is None or status.requests is None:
        return spec
    merged: dict[str, Fraction] = {} if infeasible else dict(spec)
    _max_into(merged, status.requests)
    _max_into(merged, status.allocated or {})
    return merged


def _resize_infeasible(pod: Pod) -> bool:
    for cond in pod.conditions:
        if cond.type == "PodResizePending" and cond.reason == "Infeasible":
            return True
    return False


def _container_requests(
    containers: Iterable[Container],
    statuses: tuple[ContainerStatusResources, ...] | None,
    infeasible: bool,
    defaults: frozenset[str],
    init: bool = False,
) -> list[tuple[Container, ResourceList]]:
    by_name = {s.name: s for s in statuses} if statuses else {}
    out = []
    for c in containers:
        req: ResourceList = c.requests
        if statuses is not None and (not init or c.is_sidecar):
            req = _status_requests(req, by_name.get(c.name), infeasible)
        out.append((c, _with_defaults(req, defaults) if defaults else req))
    return out


def container_aggregate(
    pod: Pod, *, use_status: bool = False, defaults: frozenset[str] = frozenset()
) -> dict[str, Fraction]:
    """Steps 1-3 of resource helpers.go:PodRequests: containers summed, sidecars added, then max with init candidates.
    `defaults` names the resources whose missing container requests take the non-zero default."""
    infeasible = use_status and _resize_infeasible(pod)
    total: dict[str, Fraction] = {}
    for _, req in _container_requests(
        pod.containers, pod.container_statuses if use_status else None, infeasible, defaults
    ):
        _add_into(total, req)
    sidecars: dict[str, Fraction] = {}
    init_max: dict[str, Fraction] = {}
    for c, req in _container_requests(
        pod.init_containers,
        pod.init_container_statuses if use_status else None,
        infeasible,
        defaults,
        init=True,
    ):
        if c.is_sidecar:
            _add_into(total, req)
            _add_into(sidecars, req)
            candidate = dict(sidecars)
        else:
            candidate = dict(req)
            _add_into(candidate, sidecars)
        _max_into(init_max, candidate)
    _max_into(total, init_max)
    return total


def _pod_level_set(pod: Pod) -> bool:
    return bool(pod.pod_requests) and any(is_pod_level_resource(n) for n in pod.pod_requests or {})


NON_ZERO = frozenset((CPU, MEMORY))


def pod_requests(
    pod: Pod, *, use_status: bool = False, pod_level: bool = True, defaults: frozenset[str] = frozenset(),
    overhead: bool = True,
) -> dict[str, Fraction]:
    """The exact request list of resource helpers.go:PodRequests (pod-level override, then the
    overhead unless `overhead` is False: its ExcludeOverhead)."""
    total = container_aggregate(pod, use_status=use_status, defaults=defaults)
    if pod_level and _pod_level_set(pod):
        for name, q in (pod.pod_requests or {}).items():
            if is_pod_level_resource(name):
                total[name] = q
    if pod.overhead and overhead:
        _add_into(total, pod.overhead)
    return total


QOS_RESOURCES = frozenset((CPU, MEMORY))


def qos_class(pod: Pod) -> str:
    """qos.go:ComputePodQOS. Pod-level resources, when the pod sets them, decide alone;
    else every container's and init container's. BestEffort: no cpu or memory request or limit
    above zero; Guaranteed: cpu and memory limited (by every container, or at pod level) and
    the requests equal to the limits; else Burstable."""
    if pod.pod_requests or pod.pod_limits:
        requests, limits = _qos_sums([pod.pod_requests or {}]), _qos_sums([pod.pod_limits or {}])
        guaranteed = not pod.pod_limits or QOS_RESOURCES <= _qos_sums([pod.pod_limits]).keys()
    else:
        containers = pod.containers + pod.init_containers
        requests, limits = _qos_sums([c.requests for c in containers]), _qos_sums([c.limits for c in containers])
        guaranteed = all(QOS_RESOURCES <= _qos_sums([c.limits]).keys() for c in containers)
    if not requests and not limits:
        return "BestEffort"
    if guaranteed and len(requests) == len(limits) and all(limits.get(n) == q for n, q in requests.items()):
        return "Guaranteed"
    return "Burstable"


def _qos_sums(lists: list[Mapping[str, Fraction]]) -> dict[str, Fraction]:
    """The cpu and memory amounts above zero, summed."""
    out: dict[str, Fraction] = {}
    for amounts in lists:
        for name, q in amounts.items():
            if name in QOS_RESOURCES and q > 0:
                out[name] = out.get(name, Fraction(0)) + q
    return out


def non_zero_requests(pod: Pod, *, use_status: bool = False, pod_level: bool = True) -> tuple[int, int]:
    """(Non0CPU millicores, Non0Mem bytes) of pod_resources.go:GetNonzeroRequests, used only for scoring and
    its aggregates."""
    defaults = NON_ZERO
    if pod_level and _pod_level_set(pod):
        # Only names absent from the whole request list take container defaults.
        defaults = NON_ZERO - pod_requests(pod, use_status=use_status).keys()
    reqs = pod_requests(pod, use_status=use_status, pod_level=pod_level, defaults=defaults)
    return milli_value(reqs.get(CPU, Fraction(0))), value(reqs.get(MEMORY, Fraction(0)))
