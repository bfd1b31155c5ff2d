"""TaintToleration: untolerated NoSchedule/NoExecute taints reject (§5.3); untolerated
PreferNoSchedule taints lower the score (§6.2)."""

from __future__ import annotations

from kwhatif.api.objects import Toleration, tolerates
from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.interfaces import FilterPlugin, PreScorePlugin, ScorePlugin
from kwhatif.framework.status import Status, unresolvable
from kwhatif.plugins.normalize import default_normalize_score
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo

NAME = "TaintToleration"
_PRE_SCORE_KEY = "PreScore" + NAME


def untolerated_taint_reason(key: str, value: str) -> str:
    return f"node(s) had untolerated taint {{{key}: {value}}}"


class TaintToleration(FilterPlugin, PreScorePlugin, ScorePlugin):
    name = NAME

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        tolerations = pod.pod.tolerations
        for taint in node.node.taints:
            if taint.effect in ("NoSchedule", "NoExecute") and not tolerates(tolerations, taint):
                return unresolvable(untolerated_taint_reason(taint.key, taint.value))
        return None

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status | None:
        """Only tolerations with an empty or PreferNoSchedule effect count for scoring."""
        prefer: tuple[Toleration, ...] = tuple(
            t for t in pod.pod.tolerations if t.effect in ("", "PreferNoSchedule"))
        state.write(_PRE_SCORE_KEY, prefer)
        return None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        tolerations = state.read(_PRE_SCORE_KEY)
        return sum(1 for t in node.node.taints
                   if t.effect == "PreferNoSchedule" and not tolerates(tolerations, t))

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: dict[str, int]) -> Status | None:
        default_normalize_score(scores, reverse=True)
        return None
