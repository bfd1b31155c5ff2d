"""NodeResourcesFit scoring strategies (§6.4): LeastAllocated, MostAllocated,
RequestedToCapacityRatio. Each maps (requested, allocatable) per resource to a node score."""

from __future__ import annotations

import math
from typing import Callable, Sequence

from kwhatif.framework.interfaces import MAX_NODE_SCORE
from kwhatif.plugins.node_resources.resource_allocation import ResourceSpec

Scorer = Callable[[Sequence[int], Sequence[int]], int]
MAX_CUSTOM_PRIORITY_SCORE = 10


def _weighted_average(resources: tuple[ResourceSpec, ...], per_resource: Callable[[int, int], int]) -> Scorer:
    def score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
        total = weights = 0
        for spec, req, alloc in zip(resources, requested, allocatable):
            if alloc == 0:
                continue
            total += per_resource(req, alloc) * spec.weight
            weights += spec.weight
        return total // weights if weights else 0
    return score


def least_requested_score(requested: int, capacity: int) -> int:
    """((capacity − requested) × 100) div capacity; 0 when over capacity."""
    if capacity == 0 or requested > capacity:
        return 0
    return (capacity - requested) * MAX_NODE_SCORE // capacity


def most_requested_score(requested: int, capacity: int) -> int:
    """(min(requested, capacity) × 100) div capacity."""
    if capacity == 0:
        return 0
    return min(requested, capacity) * MAX_NODE_SCORE // capacity


def least_allocated(resources: tuple[ResourceSpec, ...]) -> Scorer:
    return _weighted_average(resources, least_requested_score)


def most_allocated(resources: tuple[ResourceSpec, ...]) -> Scorer:
    return _weighted_average(resources, most_requested_score)


def _go_div(a: int, b: int) -> int:
    """Go integer division truncates toward zero (the shape's falling segments go negative)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def broken_linear(shape: Sequence[tuple[int, int]]) -> Callable[[int], int]:
    """The piecewise-linear function through the shape points (scores already scaled ×10)."""
    def f(p: int) -> int:
        for i, (u, s) in enumerate(shape):
            if p <= u:
                if i == 0:
                    return shape[0][1]
                u0, s0 = shape[i - 1]
                return s0 + _go_div((s - s0) * (p - u0), u - u0)
        return shape[-1][1]
    return f


def requested_to_capacity_ratio(resources: tuple[ResourceSpec, ...], shape: Sequence[tuple[int, int]]) -> Scorer:
    """Shape scores are 0-10 in the config and scaled to 0-100; only resources whose shape
    score is positive enter the weighted mean, which is rounded half away from zero."""
    f = broken_linear([(u, s * (MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE)) for u, s in shape])

    def score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
        total = weights = 0
        for spec, req, alloc in zip(resources, requested, allocatable):
            if alloc == 0:
                continue
            utilization = req * MAX_NODE_SCORE // alloc if req <= alloc else MAX_NODE_SCORE
            rs = f(utilization)
            if rs > 0:
                total += rs * spec.weight
                weights += spec.weight
        if weights == 0:
            return 0
        x = total / weights
        return int(math.floor(x) + 1 if x - math.floor(x) >= 0.5 else math.floor(x))
    return score
