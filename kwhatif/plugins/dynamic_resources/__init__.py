"""DynamicResources (dynamicresources.go) with the structured-parameters allocator, as
kube-scheduler v1.34.1 runs it with its default feature gates.

- PreEnqueue: every claim of the pod must exist (a template's claim is made as the resourceclaim
  controller would), not be deleted and, for a generated claim, belong to the pod.
- PreFilter writes its state first, then skips for pods without claims: their PostFilter says
  `no new claims to deallocate`; when an earlier PreFilter rejected the pod with
  UnschedulableAndUnresolvable, the state was never written and PostFilter fails with `not found`
  (the quirk that ends many real FailedScheduling messages). For pods with claims: `resourceclaim
  in use`, `request <r>: device class <c> does not exist` (U&U).
- Filter: an allocated claim must be usable from the node (`resourceclaim not available on the
  node`); the unallocated ones must all be allocatable there (`cannot allocate all claims`);
  a broken claim, class or pool is an Error.
- PostFilter: the first claim (in the pod's order; Go picks at random) that some node could not
  use because of where it is allocated, and that no other pod reserves, is deallocated
  (`deallocation of ResourceClaim completed`); else `still not schedulable`.
- Reserve records the node's allocation and the pod's reservation in the snapshot's DRA view
  (`index.py`), as PreBind writes them to the claims; later pods see the devices as taken.

No Score in v1.34. DRA-free pods touch nothing but the empty state."""

from __future__ import annotations

from dataclasses import dataclass, field

from kwhatif.api.dra import Allocation, ResourceClaim
from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.diagnosis import NodeToStatus
from kwhatif.framework.interfaces import (
    FilterPlugin, NodeExplainer, PostFilterPlugin, PostFilterResult, PreEnqueuePlugin, PreFilterPlugin,
    PreFilterResult, ReservePlugin,
)
from kwhatif.framework.status import SKIP, Status, error, unresolvable, unschedulable
from kwhatif.plugins.dynamic_resources.allocator import Allocator, AllocatorError
from kwhatif.plugins.dynamic_resources.claims import ClaimLookupError, pod_claims
from kwhatif.plugins.dynamic_resources.explain import devices_short, explain_devices
from kwhatif.plugins.dynamic_resources.index import DraIndex, dra_of
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo

NAME = "DynamicResources"
_STATE_KEY = "PreFilter" + NAME
NO_CLAIMS_TO_DEALLOCATE = "no new claims to deallocate"
STATE_NOT_FOUND = "not found"
ERR_REASON_CLAIM_IN_USE = "resourceclaim in use"
ERR_REASON_CANNOT_ALLOCATE = "cannot allocate all claims"
ERR_REASON_NOT_AVAILABLE = "resourceclaim not available on the node"
DEALLOCATED = "deallocation of ResourceClaim completed"
STILL_NOT_SCHEDULABLE = "still not schedulable"
RESERVED_FOR_MAX_SIZE = 256  # ResourceClaimReservedForMaxSize


def class_missing(request: str, device_class: str) -> str:
    return f"request {request}: device class {device_class} does not exist"


@dataclass(frozen=True)
class DynamicResourcesArgs:
    """DynamicResourcesArgs with kube-scheduler's default: `filter_timeout` in nanoseconds
    (10s, DRASchedulerFilterTimeout is on in 1.34). kwhatif's allocator has no deadline: a
    search that would time out in kube-scheduler still finishes here."""

    filter_timeout: int = 10_000_000_000


@dataclass
class DraCycle:
    """stateData: the pod's claims, which need allocating, where allocated ones can be used,
    the Filter results per node and the claims some node could not use."""

    index: DraIndex | None = None
    claims: list[ResourceClaim] = field(default_factory=list)
    to_allocate: list[int] = field(default_factory=list)
    node_allocations: dict[str, list[Allocation]] = field(default_factory=dict)
    unavailable: set[int] = field(default_factory=set)


def _reserved_for(claim: ResourceClaim, pod: PodInfo) -> bool:
    return any(r.is_pod(pod.pod.uid, pod.pod.name) for r in claim.reserved_for)


def _class_problem(claim: ResourceClaim, index: DraIndex) -> str | None:
    """validateDeviceClass for every request and sub-request of an unallocated claim."""
    for request in claim.requests:
        for name, sub in request.alternatives():
            if sub.device_class_name not in index.classes:
                return class_missing(name, sub.device_class_name)
    return None


class DynamicResources(PreEnqueuePlugin, PreFilterPlugin, FilterPlugin, PostFilterPlugin, ReservePlugin,
                       NodeExplainer):
    name = NAME
    reads_node_pods = True

    def pre_enqueue(self, pod: PodInfo) -> Status | None:
        if not pod.pod.resource_claims:
            return None
        try:
            pod_claims(pod.pod, dra_of(self.handle.snapshot))
        except ClaimLookupError as err:
            return unresolvable(str(err))
        return None

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        s = DraCycle()
        state.write(_STATE_KEY, s)
        if not pod.pod.resource_claims:
            return None, SKIP
        index = dra_of(self.handle.snapshot)
        try:
            claims = pod_claims(pod.pod, index)
        except ClaimLookupError as err:
            return None, unresolvable(str(err))
        for i, claim in enumerate(claims):
            if claim.allocation is not None:
                if len(claim.reserved_for) >= RESERVED_FOR_MAX_SIZE and not _reserved_for(claim, pod):
                    return None, unresolvable(ERR_REASON_CLAIM_IN_USE)
                continue
            problem = _class_problem(claim, index)
            if problem is not None:
                return None, unresolvable(problem)
            s.to_allocate.append(i)
        s.index, s.claims = index, claims
        return None, None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        s = state.get(_STATE_KEY)
        if s is None or not s.claims:
            return None
        unavailable = [i for i, c in enumerate(s.claims) if c.allocation is not None
                       and c.allocation.node_selector is not None
                       and not c.allocation.node_selector.matches(node.node.labels, node.name)]
        if s.to_allocate:
            try:
                found = Allocator(s.index, node.node, [s.claims[i] for i in s.to_allocate]).allocate()
            except AllocatorError as err:
                return error(str(err))
            if found is None:
                return unresolvable(ERR_REASON_CANNOT_ALLOCATE)
            s.node_allocations[node.name] = found
        if unavailable:
            s.unavailable.update(unavailable)
            return unresolvable(ERR_REASON_NOT_AVAILABLE)
        return None

    def post_filter(self, state: CycleState, pod: PodInfo, statuses: NodeToStatus
                    ) -> tuple[PostFilterResult | None, Status | None]:
        s = state.get(_STATE_KEY)
        if s is None:
            return None, error(STATE_NOT_FOUND)
        if not s.claims:
            return None, unschedulable(NO_CLAIMS_TO_DEALLOCATE)
        for i in sorted(s.unavailable):
            claim = s.claims[i]
            if not claim.reserved_for or (len(claim.reserved_for) == 1 and _reserved_for(claim, pod)):
                s.index.deallocate(claim)
                return None, unschedulable(DEALLOCATED)
        return None, unschedulable(STILL_NOT_SCHEDULABLE)

    def reserve(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None:
        """Reserve + PreBind: allocations of this node written to the claims, each claim reserved
        for the pod."""
        s = state.get(_STATE_KEY)
        if s is None or not s.claims:
            return None
        allocations = s.node_allocations.get(node_name) if s.to_allocate else []
        if allocations is None:
            return error("claim allocation not found for node")
        allocated = dict(zip(s.to_allocate, allocations))
        for i, claim in enumerate(s.claims):
            if i in allocated:
                claim = claim.evolve(allocation=allocated[i])
            s.index.commit(claim, pod.pod.uid, pod.pod.name)
        return None

    def explain_node(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> list[str]:
        """kwhatif's sentences: whether each claim allocated already can be used from this node,
        then the devices the others would get here and why every other device was refused."""
        s = state.get(_STATE_KEY)
        if s is None or not s.claims or s.index is None:
            return []
        out = [_allocated_sentence(c, node) for c in s.claims if c.allocation is not None]
        if s.to_allocate:
            out += explain_devices(s.index, node.node, [s.claims[i] for i in s.to_allocate],
                                   s.node_allocations.get(node.name))
        return out


    def measure_node(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> dict[str, int]:
        """Devices short on a rejected node (`devices_short`): the spread of a group of them."""
        s = state.get(_STATE_KEY)
        if s is None or not s.to_allocate or s.index is None:
            return {}
        short = devices_short(s.index, node.node, [s.claims[i] for i in s.to_allocate])
        return {"devices": short} if short else {}


def _allocated_sentence(claim: ResourceClaim, node: NodeInfo) -> str:
    assert claim.allocation is not None
    devices = ", ".join(f"{r.driver}/{r.pool}/{r.device}" for r in claim.allocation.results) or "no device"
    selector = claim.allocation.node_selector
    usable = selector is None or selector.matches(node.node.labels, node.name)
    where = "usable from this node" if usable else "not usable from this node (status.allocation.nodeSelector)"
    return f"ResourceClaim {claim.key} is allocated already ({devices}): {where}"
