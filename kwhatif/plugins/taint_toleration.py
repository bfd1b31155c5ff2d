"""TaintToleration: untolerated NoSchedule/NoExecute taints reject (taint_toleration.go:Filter); untolerated
PreferNoSchedule taints lower the score (taint_toleration.go:Score).

Both depend only on the node's taints, so the fast path judges each distinct taint set once and
broadcasts the verdict to the nodes that carry it."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from kwhatif.api.tolerations import Taint, Toleration, first_untolerated_taint, tolerates, untolerated_taint_reason
from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.interfaces import (
    BatchFilter, BatchScore, FilterPlugin, NodeExplainer, PreScorePlugin, RowVerdicts, ScorePlugin,
)
from kwhatif.framework.status import Status, unresolvable
from kwhatif.plugins.normalize import default_normalize_rows, default_normalize_score
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.table import NodeTable

NAME = "TaintToleration"
_PRE_SCORE_KEY = "PreScore" + NAME


def _first_untolerated(taints: tuple[Taint, ...], tolerations: tuple[Toleration, ...]) -> Status | None:
    taint = first_untolerated_taint(taints, tolerations)
    return None if taint is None else unresolvable(untolerated_taint_reason(taint))


def _shown(taint: Taint) -> str:
    """A taint as the reasons write it, with its effect."""
    return f"{{{taint.key}: {taint.value}}}:{taint.effect}"


def _intolerable_preferred(taints: tuple[Taint, ...], tolerations: tuple[Toleration, ...]) -> int:
    return sum(1 for t in taints if t.effect == "PreferNoSchedule" and not tolerates(tolerations, t))


def _filter_verdicts(tolerations: tuple[Toleration, ...]
                     ) -> Callable[[list[tuple[Taint, ...]]], tuple[np.ndarray, list[Status], np.ndarray]]:
    """Per taint set: whether it rejects, and the index of the status it rejects with among
    the rejecting sets' statuses (rows pick theirs in one step)."""
    def work_out(sets: list[tuple[Taint, ...]]) -> tuple[np.ndarray, list[Status], np.ndarray]:
        verdicts = [_first_untolerated(taints, tolerations) for taints in sets]
        rejects = np.array([v is not None for v in verdicts], dtype=bool)
        return rejects, [v for v in verdicts if v is not None], np.cumsum(rejects, dtype=np.intp) - 1
    return work_out


MISSING_PRE_SCORE = f'failed to read "{_PRE_SCORE_KEY}" from cycleState: not found'


class TaintToleration(FilterPlugin, BatchFilter, PreScorePlugin, ScorePlugin, BatchScore, NodeExplainer):
    name = NAME

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        return _first_untolerated(node.node.taints, pod.pod.tolerations)

    def explain_node(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> list[str]:
        """The untolerated taints beyond the first (the reason names that one alone: tolerating
        it would not be enough), and the PreferNoSchedule ones that lower the node's score."""
        tolerations = pod.pod.tolerations
        untolerated = [t for t in node.node.taints if not tolerates(tolerations, t)]
        hard = [t for t in untolerated if t.effect in ("NoSchedule", "NoExecute")]
        return ([f"also untolerated: taint {_shown(t)}" for t in hard[1:]]
                + [f"untolerated PreferNoSchedule taint {_shown(t)} lowers its score"
                   for t in untolerated if t.effect == "PreferNoSchedule"])

    def filter_rows(self, state: CycleState, pod: PodInfo, table: NodeTable, rows: np.ndarray) -> RowVerdicts:
        tolerations = pod.pod.tolerations
        bad, distinct, index = table.about_taint_sets((NAME, "filter", tolerations), _filter_verdicts(tolerations))
        groups = table.taint_group[rows]
        fails = bad[groups]
        return RowVerdicts(fails, distinct, index[groups[fails]])

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> Status | None:
        """Only tolerations with an empty or PreferNoSchedule effect count for scoring."""
        prefer: tuple[Toleration, ...] = tuple(
            t for t in pod.pod.tolerations if t.effect in ("", "PreferNoSchedule"))
        state.write(_PRE_SCORE_KEY, prefer)
        return None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        return _intolerable_preferred(node.node.taints, state.read_for_score(_PRE_SCORE_KEY, MISSING_PRE_SCORE))

    def score_rows(self, state: CycleState, pod: PodInfo, table: NodeTable, rows: np.ndarray) -> np.ndarray:
        tolerations = state.read_for_score(_PRE_SCORE_KEY, MISSING_PRE_SCORE)
        per_group = table.about_taint_sets((NAME, "score", tolerations), lambda sets: np.array(
            [_intolerable_preferred(t, tolerations) for t in sets], dtype=np.int64))
        return per_group[table.taint_group[rows]]

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: dict[str, int]) -> Status | None:
        default_normalize_score(scores, reverse=True)
        return None

    def normalize_rows(self, state: CycleState, pod: PodInfo, names: Sequence[str], scores: np.ndarray
                       ) -> tuple[np.ndarray, Status | None]:
        return default_normalize_rows(scores, reverse=True), None
