"""NodeResourcesBalancedAllocation: prefer nodes whose resource fractions stay even
(balanced_allocation.go:balancedResourceScorer)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.interfaces import MAX_NODE_SCORE, BatchScore, Handle, PreScorePlugin, ScorePlugin
from kwhatif.framework.status import SKIP, Status
from kwhatif.plugins.node_resources.resource_allocation import (
    DEFAULT_RESOURCES, ResourceSpec, node_pairs, pod_request_vector, pre_scored_request, table_pairs,
)
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.table import NodeTable

NAME = "NodeResourcesBalancedAllocation"
_PRE_SCORE_KEY = "PreScore" + NAME


@dataclass(frozen=True)
class NodeResourcesBalancedAllocationArgs:
    """NodeResourcesBalancedAllocationArgs: the resources whose fractions are balanced (cpu and
    memory by default, defaults.go:SetDefaults_*Args)."""

    resources: tuple[ResourceSpec, ...] = DEFAULT_RESOURCES


def balanced_score(requested: Sequence[np.ndarray], allocatable: Sequence[np.ndarray]) -> np.ndarray:
    """trunc((1 − std) × 100) over the fractions min(1, requested / allocatable) of the resources
    a node has; with two fractions std is |f1 − f2| / 2, with more the population standard
    deviation, with fewer 0. Float operations in Go's order, node by node in parallel."""
    if len(allocatable) == 2 and allocatable[0].all() and allocatable[1].all():
        # The default (cpu and memory, which every node has): the same operations, fewer passes.
        first, second = (np.minimum(1.0, r / a) for r, a in zip(requested, allocatable))
        return np.trunc((1 - np.abs((first - second) / 2)) * MAX_NODE_SCORE).astype(np.int64)
    present = [a != 0 for a in allocatable]
    fractions = [np.where(p, np.minimum(1.0, r / np.where(p, a, 1)), 0.0)
                 for r, a, p in zip(requested, allocatable, present)]
    count = np.sum(present, axis=0) if present else np.zeros(0, dtype=np.int64)
    std = np.zeros(len(allocatable[0]), dtype=np.float64)
    two = count == 2
    if two.any():
        firsts, seconds = _first_two(fractions, present)
        std = np.where(two, np.abs((firsts - seconds) / 2), std)
    many = count > 2
    if many.any():
        total = np.zeros_like(std)
        for f, p in zip(fractions, present):
            total = total + np.where(p, f, 0.0)
        mean = total / np.maximum(count, 1)
        squares = np.zeros_like(std)
        for f, p in zip(fractions, present):
            squares = squares + np.where(p, (f - mean) * (f - mean), 0.0)
        std = np.where(many, np.sqrt(squares / np.maximum(count, 1)), std)
    return np.trunc((1 - std) * MAX_NODE_SCORE).astype(np.int64)


def node_balanced_score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
    """Upstream `balancedResourceScorer` for one node, the per-node reference `balanced_score`
    is tested against: fractions of the resources the node has, capped at 1; std as above."""
    fractions = []
    total = 0.0
    for req, alloc in zip(requested, allocatable):
        if alloc == 0:
            continue
        fraction = min(float(req) / float(alloc), 1.0)
        total += fraction
        fractions.append(fraction)
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = total / len(fractions)
        squares = 0.0
        for fraction in fractions:
            squares = squares + (fraction - mean) * (fraction - mean)
        std = math.sqrt(squares / len(fractions))
    return int((1 - std) * MAX_NODE_SCORE)


def _first_two(fractions: list[np.ndarray], present: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Per node, the fractions of its first and second present resources (in config order)."""
    first = np.zeros_like(fractions[0])
    second = np.zeros_like(fractions[0])
    seen = np.zeros(fractions[0].shape, dtype=np.int64)
    for f, p in zip(fractions, present):
        first = np.where(p & (seen == 0), f, first)
        second = np.where(p & (seen == 1), f, second)
        seen = seen + p
    return first, second


class NodeResourcesBalancedAllocation(PreScorePlugin, ScorePlugin, BatchScore):
    name = NAME

    def __init__(self, args: NodeResourcesBalancedAllocationArgs | None, handle: Handle) -> None:
        super().__init__(args, handle)
        self.args = args or NodeResourcesBalancedAllocationArgs()
        self.resources = self.args.resources

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> Status | None:
        """Best-effort pods (nothing requested) are not scored: it would pile them on one node."""
        request = pod_request_vector(pod, self.resources, use_requested=True)
        if not any(request):
            return SKIP
        state.write(_PRE_SCORE_KEY, request)
        return None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        request = pre_scored_request(state, _PRE_SCORE_KEY, pod, self.resources, use_requested=True)
        allocs, reqs = node_pairs(node, self.resources, request, use_requested=True)
        return node_balanced_score(reqs, allocs)

    def score_rows(self, state: CycleState, pod: PodInfo, table: NodeTable, rows: np.ndarray) -> np.ndarray:
        request = pre_scored_request(state, _PRE_SCORE_KEY, pod, self.resources, use_requested=True)

        def work_out(stale: np.ndarray) -> np.ndarray:
            allocs, reqs = table_pairs(table, stale, self.resources, request, use_requested=True)
            return balanced_score(reqs, allocs)
        return table.remembered((NAME, self.resources, request), rows, work_out)
