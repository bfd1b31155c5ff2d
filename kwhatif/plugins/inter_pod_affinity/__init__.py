"""InterPodAffinity: required pod affinity / anti-affinity filter (interpodaffinity filtering.go:Filter) and
preferred scoring (interpodaffinity scoring.go:Score).

Args (InterPodAffinityArgs): `hardPodAffinityWeight` (default 1) weighs existing pods' required
affinity terms in scoring; `ignorePreferredTermsOfExistingPods` (default false) makes PreScore skip
pods that have no preferred terms of their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.interfaces import (
    BatchFilter, BatchScore, FilterPlugin, Handle, NodeExplainer, PreFilterExtensions, PreFilterPlugin, PreFilterResult, PreScorePlugin,
    RowVerdicts, ScorePlugin,
)
from kwhatif.framework.status import Status
from kwhatif.plugins.inter_pod_affinity import filtering, scoring
from kwhatif.plugins.inter_pod_affinity.index import term_index
from kwhatif.snapshot.table import NodeTable
from kwhatif.plugins.inter_pod_affinity.filtering import (
    ERR_REASON_AFFINITY, ERR_REASON_ANTI_AFFINITY, ERR_REASON_EXISTING_ANTI_AFFINITY, PRE_FILTER_KEY,
)
from kwhatif.plugins.inter_pod_affinity.scoring import PRE_SCORE_KEY
from kwhatif.plugins.inter_pod_affinity.terms import NAME, NodeIndexCache
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo

__all__ = [
    "NAME", "InterPodAffinity", "InterPodAffinityArgs", "ERR_REASON_AFFINITY", "ERR_REASON_ANTI_AFFINITY",
    "ERR_REASON_EXISTING_ANTI_AFFINITY", "PRE_FILTER_KEY", "PRE_SCORE_KEY",
]



@dataclass(frozen=True)
class InterPodAffinityArgs:
    """InterPodAffinityArgs with kube-scheduler's defaults (defaults.go:SetDefaults_*Args)."""

    hard_pod_affinity_weight: int = 1
    ignore_preferred_terms_of_existing_pods: bool = False


class InterPodAffinity(PreFilterPlugin, FilterPlugin, BatchFilter, PreScorePlugin, ScorePlugin, BatchScore,
                       PreFilterExtensions, NodeExplainer):
    name = NAME
    reads_node_pods = True

    def __init__(self, args: InterPodAffinityArgs | None, handle: Handle) -> None:
        super().__init__(args, handle)
        self.args = args or InterPodAffinityArgs()
        self.hard_pod_affinity_weight = self.args.hard_pod_affinity_weight
        self.ignore_preferred_terms_of_existing_pods = self.args.ignore_preferred_terms_of_existing_pods
        self._index = NodeIndexCache()
        self._holder: dict = {}

    # PreFilter / extensions / Filter ----------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        snapshot = self.handle.snapshot
        return None, filtering.pre_filter(term_index(self._holder, snapshot), self._index, snapshot, state, pod)

    def pre_filter_extensions(self) -> PreFilterExtensions:
        return self

    def add_pod(self, state: CycleState, pod: PodInfo, to_add: PodInfo, node: NodeInfo) -> Status | None:
        return filtering.update(state, to_add, node, 1)

    def remove_pod(self, state: CycleState, pod: PodInfo, to_remove: PodInfo, node: NodeInfo) -> Status | None:
        return filtering.update(state, to_remove, node, -1)

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        return filtering.filter_node(state, node)

    def filter_rows(self, state: CycleState, pod: PodInfo, table: NodeTable, rows: np.ndarray) -> RowVerdicts:
        result = filtering.filter_rows(state, rows)
        if isinstance(result, Status):  # the state is missing: every node gets the error
            return RowVerdicts.same(np.ones(rows.size, dtype=bool), result)
        return result

    # PreScore / Score / NormalizeScore -------------------------------------------------------
    def pre_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> Status | None:
        snapshot = self.handle.snapshot
        index = term_index(self._holder, snapshot)
        return scoring.pre_score(index, snapshot, state, pod, self.hard_pod_affinity_weight,
                                 self.ignore_preferred_terms_of_existing_pods)

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        return scoring.score_node(state, node)

    def score_rows(self, state: CycleState, pod: PodInfo, table: NodeTable, rows: np.ndarray) -> np.ndarray:
        return scoring.score_rows(state, rows)

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: dict[str, int]) -> Status | None:
        return scoring.normalize(state, scores)

    def normalize_rows(self, state: CycleState, pod: PodInfo, names: Sequence[str], scores: np.ndarray
                       ) -> tuple[np.ndarray, Status | None]:
        return scoring.normalize_rows(state, scores)

    # Explanations ----------------------------------------------------------------------------
    def explain_node(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> list[str]:
        """Human sentences on this plugin's view of `node` in the attempt whose state is given:
        which required term fails and which pods (namespace/name) matched or repelled, then the
        topology preferences that add to its raw score. Empty when the plugin did not take part."""
        out: list[str] = []
        pre_filter_state = filtering.get_state(state)
        if pre_filter_state is not None:
            out.extend(filtering.explain_filter(pre_filter_state, node))
        elif NAME in state.skip_filter:
            out.append("no required pod affinity or anti-affinity term applies, the pod's nor an existing pod's "
                       "(PreFilter skipped: Filter passes every node)")
        out.extend(scoring.explain_score(state, node))
        return out
