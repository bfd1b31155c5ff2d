"""InterPodAffinity PreScore, Score and NormalizeScore (interpodaffinity scoring.go:Score).

PreScore builds `topology_score[topologyKey][value]`, summing for each existing pod E on node M
(value = M's label for the term's key; nothing when M lacks it, and nodes without labels are
skipped):

1. +weight for each incoming preferred affinity term matching E,
2. −weight for each incoming preferred anti-affinity term matching E,
3. +hardPodAffinityWeight for each required affinity term of E matching the incoming pod,
4. +weight for each preferred affinity term of E matching the incoming pod,
5. −weight for each preferred anti-affinity term of E matching the incoming pod.

Items 1–2 need every pod (only when the incoming pod has preferred terms); items 3–5 only pods
with affinity, read from the per-node index. No entry at all → Skip.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.interfaces import MAX_NODE_SCORE
from kwhatif.framework.status import SKIP, Status, error
from kwhatif.plugins.inter_pod_affinity.index import (
    PREFERRED_AFFINITY, REQUIRED_AFFINITY, REQUIRED_ANTI_AFFINITY, TermIndex,
)
from kwhatif.plugins.inter_pod_affinity.terms import (
    NAME, IncomingTerm, PodTerms, TermMemo, matching_pods, namespace_labels, pod_terms, resolve_incoming,
)
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot
from kwhatif.snapshot.table import NodeTable

PRE_SCORE_KEY = "PreScore" + NAME

TopologyScore = dict[str, dict[str, int]]


class PreScoreState:
    """preScoreState; read-only after PreScore, so clones share it (no `clone`). Per topology key:
    the node rows' domain ids and the summed score per domain value, and which values have an
    entry (an entry exists even when its sum is 0)."""

    __slots__ = ("_topology_score", "per_key")

    def __init__(self, per_key: dict[str, tuple[np.ndarray, list[str], np.ndarray, np.ndarray]]) -> None:
        self.per_key = per_key
        self._topology_score: TopologyScore | None = None

    @property
    def topology_score(self) -> TopologyScore:
        """The upstream map, made when read: the fast path reads the arrays, and the hostname
        key alone would give every pod a map of thousands of entries."""
        if self._topology_score is None:
            self._topology_score = {
                key: {values[d]: int(sums[d]) for d in np.flatnonzero(present).tolist()}
                for key, (_, values, sums, present) in self.per_key.items()
            }
        return self._topology_score


class _Table:
    """Accumulates `topology_score` as arrays over each key's domain values."""

    def __init__(self, table: NodeTable) -> None:
        self.table = table
        self.per_key: dict[str, tuple[np.ndarray, list[str], np.ndarray, np.ndarray]] = {}

    def add(self, key: str, rows: np.ndarray, counts: np.ndarray, amount: int) -> None:
        """+amount × count at each given row's value of `key` (rows lacking the key add nothing)."""
        ids, values = self.table.domains(key)
        at = ids[rows]
        has = at >= 0
        if not has.any():
            return
        entry = self.per_key.get(key)
        if entry is None:
            entry = self.per_key[key] = (ids, values, np.zeros(len(values), dtype=np.int64),
                                         np.zeros(len(values), dtype=bool))
        np.add.at(entry[2], at[has], counts[has] * amount)
        entry[3][at[has]] = True


def pre_score(index: TermIndex, snapshot: Snapshot, state: CycleState, pod: PodInfo, hard_weight: int,
              ignore_existing_preferred: bool) -> Status | None:
    terms = pod_terms(pod)
    has_constraints = bool(terms.preferred_affinity) or bool(terms.preferred_anti_affinity)
    if ignore_existing_preferred and not has_constraints:
        return SKIP
    namespaces = snapshot.cluster.namespaces
    scores = _Table(snapshot.table)
    for t, amount in _incoming(terms, namespaces):
        per_row = _matching_pods(snapshot, t)
        rows = np.flatnonzero(per_row)
        scores.add(t.topology_key, rows, per_row[rows], amount)
    memo = TermMemo(pod.pod, namespace_labels(namespaces, pod.pod.namespace))
    for (kind, term, weight), rows, counts in index.matching(pod.pod, memo):
        if kind == REQUIRED_ANTI_AFFINITY:
            continue  # filters only
        if kind == REQUIRED_AFFINITY:
            if hard_weight <= 0:
                continue
            amount = hard_weight
        else:
            amount = weight if kind == PREFERRED_AFFINITY else -weight
        scores.add(term.topology_key, rows, counts, amount)
    if not scores.per_key:
        return SKIP
    state.write(PRE_SCORE_KEY, PreScoreState(scores.per_key))
    return None


def _incoming(terms: PodTerms, namespaces: Mapping) -> list[tuple[IncomingTerm, int]]:
    """The incoming pod's preferred terms with their signed weights (interpodaffinity scoring.go:Score)."""
    out = [(resolve_incoming(w.term, namespaces, w.weight), w.weight) for w in terms.preferred_affinity]
    out += [(resolve_incoming(w.term, namespaces, w.weight), -w.weight) for w in terms.preferred_anti_affinity]
    return out


def _matching_pods(snapshot: Snapshot, term: IncomingTerm) -> np.ndarray:
    return matching_pods(snapshot, (term,))


def get_state(state: CycleState) -> PreScoreState | None:
    return state.get(PRE_SCORE_KEY)


def score_rows(state: CycleState, rows: np.ndarray) -> np.ndarray:
    """Σ over the keys each node has of the score of its value (0 for values without entry)."""
    s: PreScoreState = state.read_for_score(PRE_SCORE_KEY, MISSING_STATE)
    total = np.zeros(rows.size, dtype=np.int64)
    for ids, _, sums, _ in s.per_key.values():
        at = ids[rows]
        total += np.where(at >= 0, sums[np.maximum(at, 0)], 0)
    return total


def score_node(state: CycleState, node: NodeInfo) -> int:
    """Upstream `Score` for one node (the per-node reference `score_rows` is tested against):
    Σ over the topology keys the node has of the score of its value."""
    s: PreScoreState = state.read_for_score(PRE_SCORE_KEY, MISSING_STATE)
    labels = node.node.labels
    return sum(by_value.get(labels[key], 0) for key, by_value in s.topology_score.items() if key in labels)


MISSING_STATE = f'failed to read "{PRE_SCORE_KEY}" from cycleState: not found'


def _missing_state() -> Status:
    return error(MISSING_STATE)



def normalize_rows(state: CycleState, raw: np.ndarray) -> tuple[np.ndarray, Status | None]:
    """trunc(100.0 × ((raw − min) / (max − min))) in float64, in that order; 0 when max = min."""
    s = get_state(state)
    if s is None:
        return raw, _missing_state()
    if not s.per_key or not raw.size:
        return raw, None
    lo, hi = int(raw.min()), int(raw.max())
    if hi == lo:
        return np.zeros_like(raw), None
    return np.trunc(float(MAX_NODE_SCORE) * ((raw - lo).astype(np.float64) / float(hi - lo))).astype(np.int64), None


def normalize(state: CycleState, scores: dict[str, int]) -> Status | None:
    """Upstream `NormalizeScore` in place (the per-node reference for `normalize_rows`)."""
    s = get_state(state)
    if s is None:
        return _missing_state()
    if not s.topology_score or not scores:
        return None
    lo, hi = min(scores.values()), max(scores.values())
    for name, raw in scores.items():
        scores[name] = int(float(MAX_NODE_SCORE) * (float(raw - lo) / float(hi - lo))) if hi > lo else 0
    return None


def explain_score(state: CycleState, node: NodeInfo) -> list[str]:
    s = get_state(state)
    if s is None:
        return []
    labels = node.node.labels
    out = []
    for key, by_value in s.topology_score.items():
        if key in labels and by_value.get(labels[key], 0) != 0:
            out.append(f"preferences for {key}={labels[key]} add {by_value[labels[key]]:+d} to the raw score")
    return out
