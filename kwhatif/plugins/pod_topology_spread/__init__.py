"""PodTopologySpread: spread pods over topology domains (podtopologyspread filtering.go:Filter Filter,
podtopologyspread scoring.go:Score Score).

Args (PodTopologySpreadArgs): `defaultingType` "System" (default: hostname maxSkew 3 and zone
maxSkew 5, both ScheduleAnyway) or "List" (then `defaultConstraints` apply). Default constraints
only apply to pods without any constraint of their own, and only when the pod has a default
selector (Services / ReplicationController / ReplicaSet / StatefulSet).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.interfaces import (
    BatchFilter, BatchScore, FilterPlugin, Handle, NodeExplainer, PreFilterExtensions, PreFilterPlugin, PreFilterResult, PreScorePlugin,
    RowVerdicts, ScorePlugin,
)
from kwhatif.framework.status import SKIP, Status, error
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.table import NodeTable
from kwhatif.plugins.pod_topology_spread.common import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH, ERR_REASON_NODE_LABEL_NOT_MATCH, NAME, PRE_FILTER_STATE_KEY,
    PRE_SCORE_STATE_KEY, PodConstraints, PodTopologySpreadArgs, pod_constraints, resolve_args,
)
from kwhatif.plugins.pod_topology_spread.filtering import (
    PreFilterState, compute_pre_filter_state, explain_filter, filter_node, filter_rows, read_state, update_with_pod,
)
from kwhatif.plugins.pod_topology_spread.scoring import (
    PreScoreState, compute_pre_score_state, normalize, normalize_rows, score_node, score_rows,
)

__all__ = [
    "NAME", "ERR_REASON_CONSTRAINTS_NOT_MATCH", "ERR_REASON_NODE_LABEL_NOT_MATCH", "PodTopologySpread",
    "PodTopologySpreadArgs",
]


class _Extensions(PreFilterExtensions):
    """AddPod/RemovePod: keep the PreFilter counts right for nominated pods and victims."""

    def add_pod(self, state: CycleState, pod: PodInfo, to_add: PodInfo, node: NodeInfo) -> Status | None:
        s = read_state(state)
        if isinstance(s, Status):
            return s
        update_with_pod(s, to_add, pod, node, 1)
        return None

    def remove_pod(self, state: CycleState, pod: PodInfo, to_remove: PodInfo, node: NodeInfo) -> Status | None:
        s = read_state(state)
        if isinstance(s, Status):
            return s
        update_with_pod(s, to_remove, pod, node, -1)
        return None


MISSING_PRE_SCORE = f'error reading "{PRE_SCORE_STATE_KEY}" from cycleState: not found'


class PodTopologySpread(PreFilterPlugin, FilterPlugin, BatchFilter, PreScorePlugin, ScorePlugin, BatchScore,
                        NodeExplainer):
    name = NAME
    reads_node_pods = True

    def __init__(self, args: PodTopologySpreadArgs | None, handle: Handle) -> None:
        super().__init__(args, handle)
        self.args = args or PodTopologySpreadArgs()
        self.default_constraints, self.system_defaulted = resolve_args(self.args)
        self._extensions = _Extensions()

    def _constraints(self, pod: PodInfo) -> PodConstraints:
        return pod_constraints(self, pod, self.default_constraints, self.handle.snapshot)

    # PreFilter / Filter ----------------------------------------------------------------------
    def pre_filter(
        self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        constraints = self._constraints(pod).hard
        if not constraints:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, compute_pre_filter_state(pod, constraints, self.handle.snapshot))
        return None, None

    def pre_filter_extensions(self) -> PreFilterExtensions:
        return self._extensions

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        s = read_state(state)
        if isinstance(s, Status):
            return s
        return filter_node(s, node)

    def filter_rows(self, state: CycleState, pod: PodInfo, table: NodeTable, rows: np.ndarray) -> RowVerdicts:
        s = read_state(state)
        if isinstance(s, Status):
            return RowVerdicts.same(np.ones(rows.size, dtype=bool), s)
        return filter_rows(s, table, rows)

    # PreScore / Score ------------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> Status | None:
        all_nodes = self.handle.snapshot.node_infos
        if not all_nodes:
            return SKIP
        constraints = self._constraints(pod).soft
        if not constraints:
            return SKIP
        # Only non-system-default spreading requires every topology key: with the system
        # defaults a node without a zone label still gets hostname spreading.
        require_all = bool(pod.pod.topology_spread_constraints) or not self.system_defaulted
        state.write(PRE_SCORE_STATE_KEY, compute_pre_score_state(
            pod, constraints, nodes, self.handle.snapshot, require_all))
        return None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        return score_node(state.read_for_score(PRE_SCORE_STATE_KEY, MISSING_PRE_SCORE), pod, node)

    def score_rows(self, state: CycleState, pod: PodInfo, table: NodeTable, rows: np.ndarray) -> np.ndarray:
        return score_rows(state.read_for_score(PRE_SCORE_STATE_KEY, MISSING_PRE_SCORE), table, rows)

    def normalize_rows(self, state: CycleState, pod: PodInfo, names: Sequence[str], scores: np.ndarray
                       ) -> tuple[np.ndarray, Status | None]:
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return scores, error(MISSING_PRE_SCORE)
        return normalize_rows(s, names, scores), None

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: dict[str, int]) -> Status | None:
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return error(MISSING_PRE_SCORE)
        normalize(s, scores)
        return None

    # Explanations (kwhatif's own) ------------------------------------------------------------
    def explain_node(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> list[str]:
        """Why the spread Filter passes or rejects `node`, one sentence per DoNotSchedule
        constraint up to the rejecting one, from the PreFilter state; [] when the plugin was
        skipped (no DoNotSchedule constraint) or PreFilter did not run."""
        s = state.get(PRE_FILTER_STATE_KEY)
        if not isinstance(s, PreFilterState):
            return []
        return explain_filter(s, node)


__all__ += ["PreFilterState", "PreScoreState"]
