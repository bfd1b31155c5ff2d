"""The shared allocation helper behind every resource scoring strategy (resource_allocation.go:score,
balanced_allocation.go:balancedResourceScorer).

For each configured resource it pairs the nodes' allocatable with what would be requested after
placing the pod, as arrays over nodes; strategies only turn those pairs into scores."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from kwhatif.api.quantity import milli_value, value
from kwhatif.api.resources import CPU, EPHEMERAL, MEMORY, NON_ZERO, is_scalar_resource, pod_requests
from kwhatif.framework.cycle_state import CycleState
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo, template_cache
from kwhatif.snapshot.table import NodeTable


@dataclass(frozen=True, slots=True)
class ResourceSpec:
    name: str
    weight: int = 1


DEFAULT_RESOURCES = (ResourceSpec(CPU, 1), ResourceSpec(MEMORY, 1))
Pairs = tuple[list[np.ndarray], list[np.ndarray]]


def pod_request_vector(pod: PodInfo, resources: tuple[ResourceSpec, ...], use_requested: bool) -> tuple[int, ...]:
    """The pod's request per configured resource.

    NodeResourcesFit scores with non-zero defaults and ignores pod-level requests (a v1.34.1 quirk,
    resource_allocation.go:score); BalancedAllocation (`use_requested`) uses the real requests with pod level
    honoured."""
    def work_out() -> tuple[int, ...]:
        exact = pod_requests(pod.pod, pod_level=use_requested, defaults=frozenset() if use_requested else NON_ZERO)
        return tuple(_to_int(r.name, exact.get(r.name, Fraction(0))) for r in resources)
    return template_cache(pod, ("request vector", resources, use_requested), work_out)


def pre_scored_request(state: CycleState, key: str, pod: PodInfo, resources: tuple[ResourceSpec, ...],
                       use_requested: bool) -> tuple[int, ...]:
    """The request PreScore wrote under `key`; worked out again when PreScore is disabled, as
    both plugins' Score fall back (fit.go, balanced_allocation.go: a best-effort pod that
    BalancedAllocation's PreScore would skip is then scored too)."""
    request = state.get(key)
    return pod_request_vector(pod, resources, use_requested) if request is None else request


def _to_int(name: str, q: Fraction) -> int:
    return milli_value(q) if name == CPU else value(q)


def table_pairs(table: NodeTable, rows: np.ndarray, resources: tuple[ResourceSpec, ...],
                pod_request: tuple[int, ...], use_requested: bool) -> Pairs:
    """(allocatable, requested-after-placement) per resource over the given rows; allocatable 0
    marks a resource to skip on a node: a scalar the pod does not request, or one the node does
    not advertise. cpu and memory count the non-zero aggregates unless `use_requested`."""
    allocs, reqs = [], []
    for spec, pod_req in zip(resources, pod_request):
        name = spec.name
        if pod_req == 0 and is_scalar_resource(name):
            alloc = used = np.zeros(rows.size, dtype=np.int64)
        elif name == CPU:
            alloc, used = table.alloc_cpu[rows], (table.req_cpu if use_requested else table.nz_cpu)[rows]
        elif name == MEMORY:
            alloc, used = table.alloc_mem[rows], (table.req_mem if use_requested else table.nz_mem)[rows]
        elif name == EPHEMERAL:
            alloc, used = table.alloc_eph[rows], table.req_eph[rows]
        else:
            scalar_alloc, scalar_req = table.scalar(name)
            alloc, used = scalar_alloc[rows], scalar_req[rows]
        allocs.append(alloc)
        reqs.append(np.where(alloc != 0, used + pod_req, 0))
    return allocs, reqs


def node_pairs(node: NodeInfo, resources: tuple[ResourceSpec, ...], pod_request: tuple[int, ...],
               use_requested: bool) -> tuple[list[int], list[int]]:
    """`table_pairs` for one node, written from upstream `resourceAllocationScorer.score` and
    `calculateResourceAllocatableRequest` (the per-node reference the table version is tested
    against): a resource whose allocatable is 0 is left at (0, 0)."""
    allocs, reqs = [], []
    for spec, pod_req in zip(resources, pod_request):
        alloc, req = _allocatable_request(node, spec.name, pod_req, use_requested)
        allocs.append(alloc)
        reqs.append(req if alloc != 0 else 0)
    return allocs, reqs


def _allocatable_request(node: NodeInfo, name: str, pod_req: int, use_requested: bool) -> tuple[int, int]:
    """(allocatable, requested + the pod's request) of one resource; (0, 0) for a scalar the pod
    does not request or the node does not advertise."""
    if pod_req == 0 and is_scalar_resource(name):
        return 0, 0
    alloc, requested = node.allocatable, node.requested
    if name == CPU:
        return alloc.milli_cpu, (requested.milli_cpu if use_requested else node.non_zero_cpu) + pod_req
    if name == MEMORY:
        return alloc.memory, (requested.memory if use_requested else node.non_zero_mem) + pod_req
    if name == EPHEMERAL:
        return alloc.ephemeral_storage, requested.ephemeral_storage + pod_req
    if name in alloc.scalars:
        return alloc.scalars[name], requested.scalars.get(name, 0) + pod_req
    return 0, 0
