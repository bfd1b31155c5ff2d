"""NodeResourcesBalancedAllocation: prefer nodes whose resource fractions stay even (§6.9)."""

from __future__ import annotations

import math
from typing import Any

from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.interfaces import MAX_NODE_SCORE, Handle, PreScorePlugin, ScorePlugin
from kwhatif.framework.status import SKIP, Status
from kwhatif.plugins.node_resources.resource_allocation import (
    DEFAULT_RESOURCES, ResourceSpec, allocatable_and_requested, pod_request_vector,
)
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo

NAME = "NodeResourcesBalancedAllocation"
_PRE_SCORE_KEY = "PreScore" + NAME


def balanced_score(requested: list[int], allocatable: list[int]) -> int:
    """trunc((1 − std) × 100) over the fractions min(1, requested / allocatable); with two
    fractions std is |f1 − f2| / 2, with more the population standard deviation."""
    fractions = [min(1.0, r / a) for r, a in zip(requested, allocatable) if a != 0]
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = sum(fractions) / len(fractions)
        std = math.sqrt(sum((f - mean) * (f - mean) for f in fractions) / len(fractions))
    return int((1 - std) * MAX_NODE_SCORE)


class NodeResourcesBalancedAllocation(PreScorePlugin, ScorePlugin):
    name = NAME

    def __init__(self, args: dict[str, Any] | None, handle: Handle) -> None:
        super().__init__(args, handle)
        self.resources = tuple(ResourceSpec(r["name"], r.get("weight") or 1)
                               for r in self.args.get("resources") or ()) or DEFAULT_RESOURCES

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status | None:
        """Best-effort pods (nothing requested) are not scored: it would pile them on one node."""
        request = pod_request_vector(pod, self.resources, use_requested=True)
        if not any(request):
            return SKIP
        state.write(_PRE_SCORE_KEY, request)
        return None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        request = state.read(_PRE_SCORE_KEY)
        allocs, reqs = allocatable_and_requested(node, self.resources, request, use_requested=True)
        return balanced_score(reqs, allocs)
