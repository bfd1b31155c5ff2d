"""NodeAffinity: nodeSelector and required node affinity filter (nodeaffinity.go:GetRequiredNodeAffinity);
preferred terms score (node_affinity.go:Score).

PreFilter also turns `matchFields metadata.name In [...]` terms into a node-name set, which is
how DaemonSet pods end up evaluated on their one node.

The plugin argument `addedAffinity` (NodeAffinityArgs, defaults.go:SetDefaults_*Args) applies a profile-wide
node affinity to every pod: its required terms are checked first, with their own reason; its preferred terms
add to the score."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from kwhatif.api.affinity import (
    NodeAffinity as NodeAffinitySpec, NodeSelector, NodeSelectorTerm, PreferredSchedulingTerm, RequiredNodeAffinity,
)
from kwhatif.api.objects import Pod
from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.interfaces import (
    BatchFilter, FilterPlugin, Handle, NodeExplainer, PreFilterPlugin, PreFilterResult, PreScorePlugin, RowVerdicts,
    ScorePlugin,
)
from kwhatif.framework.status import SKIP, ScoreFailure, Status, error, unresolvable
from kwhatif.plugins.normalize import default_normalize_rows, default_normalize_score
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.table import NodeTable

NAME = "NodeAffinity"
ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT = "pod affinity terms conflict"
_PRE_SCORE_KEY = "PreScore" + NAME


@dataclass(frozen=True)
class NodeAffinityArgs:
    """NodeAffinityArgs: the scheduler-enforced `addedAffinity` (None: unset). Its `required`
    is None when unset (a selector without terms is set and admits no node); its `preferred` is
    None when the list is empty, and keeps only terms with a weight and a requirement."""

    added_affinity: NodeAffinitySpec | None = None


def required_node_affinity(pod: PodInfo) -> RequiredNodeAffinity:
    """Parsed once per pod."""
    cached = pod.derived.get(NAME)
    if cached is None:
        cached = pod.derived[NAME] = RequiredNodeAffinity.of(pod.pod)
    return cached


def _term_node_names(term: NodeSelectorTerm) -> set[str] | None:
    """The intersection of a term's `metadata.name In` field requirements, or None if it has none."""
    names: set[str] | None = None
    for req in term.match_fields:
        if req.key == "metadata.name" and req.operator == "In":
            names = set(req.values) if names is None else names & set(req.values)
    return names


def _preferred_terms(pod: Pod) -> tuple[PreferredSchedulingTerm, ...] | None:
    aff = pod.affinity.node_affinity if pod.affinity else None
    return aff.preferred if aff is not None else None


_ENFORCED = unresolvable(ERR_REASON_ENFORCED)
_REJECTED = unresolvable(ERR_REASON_POD)


def _missed(term: NodeSelectorTerm, labels: Mapping[str, str], node_name: str) -> list[str]:
    """Why a term does not match the node: every requirement the node misses, as written
    (`disktype In [nvme] not matched`) — one fixed alone leaves the pod pending still."""
    if not term.valid:
        return ["a requirement is malformed, so the term matches no node"]
    if term.is_empty:
        return ["the term is empty, so it matches no node"]
    return ([f"{req.key} {req.operator} [{', '.join(req.values)}]".replace(" []", "") + " not matched"
             for req in term.match_expressions if not req.matches(labels)]
            + [f"field {req.key} {req.operator} [{', '.join(req.values)}] not matched"
               for req in term.match_fields if not req.matches({req.key: node_name})])


def _weighted_preferred(pod: PodInfo) -> tuple[PreferredSchedulingTerm, ...] | str:
    """The pod's preferred terms of non-zero weight, or the refusal of one it cannot parse (the
    scheduler does not score with it)."""
    preferred = _preferred_terms(pod.pod) or ()
    for i, t in enumerate(preferred):
        if t.weight != 0 and not t.term.valid:
            return (f"spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[{i}].preference: "
                    "Invalid value: a requirement value is not a valid label value (or a Gt/Lt value is not an integer)")
    return tuple(t for t in preferred if t.weight != 0)


class NodeAffinity(PreFilterPlugin, FilterPlugin, BatchFilter, PreScorePlugin, ScorePlugin, NodeExplainer):
    name = NAME

    def __init__(self, args: NodeAffinityArgs | None, handle: Handle) -> None:
        super().__init__(args, handle)
        self.args = args or NodeAffinityArgs()
        added = self.args.added_affinity or NodeAffinitySpec()
        # None when unset; a required selector without terms is set and admits no node.
        self.added_required: NodeSelector | None = added.required
        self.added_preferred: tuple[PreferredSchedulingTerm, ...] | None = added.preferred

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        required = required_node_affinity(pod)
        if required.required is None and self.added_required is None and pod.pod.node_selector is None:
            return None, SKIP
        if required.required is None or not required.required.terms:
            return None, None
        union: set[str] = set()
        for term in required.required.terms:
            names = _term_node_names(term)
            if names is None:
                return None, None  # terms are ORed: this one admits every node
            union |= names
        if not union:
            return None, unresolvable(ERR_REASON_CONFLICT)
        return PreFilterResult(frozenset(union)), None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        if self.added_required is not None and not self.added_required.matches(node.node.labels, node.name):
            return _ENFORCED
        if required_node_affinity(pod).matches(node.node.labels, node.name):
            return None
        return _REJECTED

    def explain_node(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> list[str]:
        """Which of the pod's requirements the node misses, in words shared by every node that
        misses the same one: a group of thousands of rejected nodes then says which label no
        node has, or how many lack each."""
        labels, name = node.node.labels, node.name
        out = []
        if self.added_required is not None and not self.added_required.matches(labels, name):
            out.append("the profile's addedAffinity excludes it")
        required = required_node_affinity(pod)
        out += [f"nodeSelector {key}={value} not matched" for key, value in (required.node_selector or {}).items()
                if labels.get(key) != value]
        if required.required is not None and not required.required.matches(labels, name):
            terms = required.required.terms
            out += [] if terms else ["required node affinity has no term (it matches no node)"]
            out += [f"required node affinity{f' term {i}' if len(terms) > 1 else ''}: {missed}"
                    for i, term in enumerate(terms) for missed in _missed(term, labels, name)]
        return out

    def filter_rows(self, state: CycleState, pod: PodInfo, table: NodeTable, rows: np.ndarray) -> RowVerdicts:
        enforced = np.zeros(rows.size, dtype=bool)
        if self.added_required is not None:
            admitted = table.affinity_rows(RequiredNodeAffinity(None, self.added_required), rows)
            enforced = ~admitted
        fails = enforced | ~table.affinity_rows(required_node_affinity(pod), rows)
        return RowVerdicts.pick(fails, enforced[fails], (_REJECTED, _ENFORCED))

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> Status | None:
        if _preferred_terms(pod.pod) is None and self.added_preferred is None:
            return SKIP
        weighted = _weighted_preferred(pod)
        if isinstance(weighted, str):
            return error(weighted)
        state.write(_PRE_SCORE_KEY, weighted)
        return None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        """Without PreScore's state (PreScore disabled), Score works the pod's terms out itself
        (node_affinity.go: "Fallback to calculate preferredNodeAffinity here")."""
        labels, name = node.node.labels, node.name
        own = state.get(_PRE_SCORE_KEY)
        if own is None:
            own = _weighted_preferred(pod)
            if isinstance(own, str):
                raise ScoreFailure(own)
        terms = (self.added_preferred or ()) + own
        return sum(t.weight for t in terms if t.term.matches(labels, name))

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: dict[str, int]) -> Status | None:
        default_normalize_score(scores, reverse=False)
        return None

    def normalize_rows(self, state: CycleState, pod: PodInfo, names: Sequence[str], scores: np.ndarray
                       ) -> tuple[np.ndarray, Status | None]:
        return default_normalize_rows(scores, reverse=False), None
