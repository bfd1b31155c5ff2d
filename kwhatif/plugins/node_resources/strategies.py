"""NodeResourcesFit scoring strategies (resource_allocation.go:score): LeastAllocated, MostAllocated,
RequestedToCapacityRatio. Each maps, per resource, arrays of requested-after-placement and
allocatable over nodes to node scores — one node or thousands at once, with Go's integer
arithmetic (every division here has a non-negative numerator except on the shape's falling
segments, where Go truncates toward zero)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from kwhatif.framework.interfaces import MAX_NODE_SCORE
from kwhatif.plugins.node_resources.resource_allocation import ResourceSpec
from kwhatif.plugins.goint import go_quo, go_quo_rows
from kwhatif.plugins.normalize import go_round, round_half_away

Scorer = Callable[[Sequence[np.ndarray], Sequence[np.ndarray]], np.ndarray]
NodeScorer = Callable[[Sequence[int], Sequence[int]], int]
MAX_CUSTOM_PRIORITY_SCORE = 10


@dataclass(frozen=True, slots=True)
class Strategy:
    """A scoring strategy written twice: `rows` over arrays of nodes (the fast path; calling the
    strategy calls it) and `node` for one node, straight from the upstream Go (the per-node
    path, the independent reference the plugin tests hold `rows` to)."""

    rows: Scorer
    node: NodeScorer

    def __call__(self, requested: Sequence[np.ndarray], allocatable: Sequence[np.ndarray]) -> np.ndarray:
        return self.rows(requested, allocatable)


def _weighted_average(resources: tuple[ResourceSpec, ...],
                      per_resource: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Scorer:
    """(Σ s_r × w_r) div (Σ w_r) over the resources the node has (allocatable ≠ 0)."""
    weight_sum = sum(spec.weight for spec in resources)

    def score(requested: Sequence[np.ndarray], allocatable: Sequence[np.ndarray]) -> np.ndarray:
        if weight_sum > 0 and all(alloc.all() for alloc in allocatable):
            # Every node has every resource (cpu and memory always do): the same sums, fewer passes.
            return sum((per_resource(req, alloc) * spec.weight
                        for spec, req, alloc in zip(resources, requested, allocatable)),
                       np.zeros(len(allocatable[0]), dtype=np.int64)) // weight_sum
        total = np.zeros(len(allocatable[0]), dtype=np.int64)
        weights = np.zeros_like(total)
        for spec, req, alloc in zip(resources, requested, allocatable):
            present = alloc != 0
            total += np.where(present, per_resource(req, np.where(present, alloc, 1)) * spec.weight, 0)
            weights += np.where(present, spec.weight, 0)
        return np.where(weights > 0, total // np.maximum(weights, 1), 0)
    return score


def least_requested_score(requested: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """((capacity − requested) × 100) div capacity; 0 when over capacity."""
    return np.where(requested > capacity, 0, (capacity - requested) * MAX_NODE_SCORE // capacity)


def most_requested_score(requested: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """(min(requested, capacity) × 100) div capacity."""
    return np.minimum(requested, capacity) * MAX_NODE_SCORE // capacity


def _node_weighted_average(resources: tuple[ResourceSpec, ...], per_resource: Callable[[int, int], int]) -> NodeScorer:
    """Upstream `leastResourceScorer` / `mostResourceScorer` for one node."""
    def score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
        node_score = weight_sum = 0
        for spec, req, alloc in zip(resources, requested, allocatable):
            if alloc == 0:
                continue
            node_score += per_resource(req, alloc) * spec.weight
            weight_sum += spec.weight
        return node_score // weight_sum if weight_sum else 0
    return score


def _node_least_requested(requested: int, capacity: int) -> int:
    if capacity == 0 or requested > capacity:
        return 0
    return (capacity - requested) * MAX_NODE_SCORE // capacity


def _node_most_requested(requested: int, capacity: int) -> int:
    if capacity == 0:
        return 0
    return min(requested, capacity) * MAX_NODE_SCORE // capacity


def least_allocated(resources: tuple[ResourceSpec, ...]) -> Strategy:
    return Strategy(_weighted_average(resources, least_requested_score),
                    _node_weighted_average(resources, _node_least_requested))


def most_allocated(resources: tuple[ResourceSpec, ...]) -> Strategy:
    return Strategy(_weighted_average(resources, most_requested_score),
                    _node_weighted_average(resources, _node_most_requested))


def broken_linear(shape: Sequence[tuple[int, int]]) -> Callable[[np.ndarray], np.ndarray]:
    """The piecewise-linear function through the shape points (scores already scaled ×10): the
    first point with p ≤ u_k decides; past the last point, its score."""
    def f(p: np.ndarray) -> np.ndarray:
        p = np.asarray(p, dtype=np.int64)
        out = np.full_like(p, shape[-1][1])
        decided = np.zeros(p.shape, dtype=bool)
        for i, (u, s) in enumerate(shape):
            here = (p <= u) & ~decided
            if i == 0:
                value = np.full_like(p, shape[0][1])
            else:
                u0, s0 = shape[i - 1]
                value = s0 + go_quo_rows((s - s0) * (p - u0), u - u0)
            out = np.where(here, value, out)
            decided |= here
        return out
    return f


def requested_to_capacity_ratio(resources: tuple[ResourceSpec, ...], shape: Sequence[tuple[int, int]]) -> Strategy:
    """Shape scores are 0-10 in the config and scaled to 0-100; only resources whose shape
    score is positive enter the weighted mean, which is rounded half away from zero."""
    scaled = [(u, s * (MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE)) for u, s in shape]
    return Strategy(_ratio_rows(resources, scaled), _ratio_node(resources, scaled))


def _ratio_rows(resources: tuple[ResourceSpec, ...], shape: Sequence[tuple[int, int]]) -> Scorer:
    f = broken_linear(shape)

    def score(requested: Sequence[np.ndarray], allocatable: Sequence[np.ndarray]) -> np.ndarray:
        total = np.zeros(len(allocatable[0]), dtype=np.int64)
        weights = np.zeros_like(total)
        for spec, req, alloc in zip(resources, requested, allocatable):
            present = alloc != 0
            safe = np.where(present, alloc, 1)
            utilization = np.where(req <= alloc, req * MAX_NODE_SCORE // safe, MAX_NODE_SCORE)
            rs = f(utilization)
            counted = present & (rs > 0)
            total += np.where(counted, rs * spec.weight, 0)
            weights += np.where(counted, spec.weight, 0)
        mean = total / np.maximum(weights, 1)
        return np.where(weights > 0, round_half_away(mean), 0)
    return score


def _node_broken_linear(shape: Sequence[tuple[int, int]], p: int) -> int:
    """Upstream `helper.BuildBrokenLinearFunction` at one utilization."""
    for i, (u, s) in enumerate(shape):
        if p <= u:
            if i == 0:
                return shape[0][1]
            u0, s0 = shape[i - 1]
            return s0 + go_quo((s - s0) * (p - u0), u - u0)
    return shape[-1][1]


def _ratio_node(resources: tuple[ResourceSpec, ...], shape: Sequence[tuple[int, int]]) -> NodeScorer:
    """Upstream `buildRequestedToCapacityRatioScorerFunction` for one node."""
    def score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
        node_score = weight_sum = 0
        for spec, req, alloc in zip(resources, requested, allocatable):
            if alloc == 0:
                continue
            utilization = MAX_NODE_SCORE if req > alloc else req * MAX_NODE_SCORE // alloc
            resource_score = _node_broken_linear(shape, utilization)
            if resource_score > 0:
                node_score += resource_score * spec.weight
                weight_sum += spec.weight
        return go_round(float(node_score) / float(weight_sum)) if weight_sum else 0
    return score
