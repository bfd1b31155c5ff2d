"""PodTopologySpread PreScore, Score and NormalizeScore (upstream `scoring.go`, podtopologyspread scoring.go:Score).

    w_c        = ln(size_c + 2)          size_c = distinct values of c's key over the non-ignored
                                         feasible nodes ("" for a missing label); for the hostname
                                         key, |feasible| − |ignored|
    raw(N)     = roundHalfAway( Σ_c with N labelled c.key ( cnt_c(N) × w_c + (maxSkew_c − 1) ) )
                 cnt_c(N) = matching pods on N itself for the hostname key (counted at Score
                 time, no inclusion policies), else the count of N's domain summed over all nodes
    normalized = 100 × (max + min − raw) div max      (100 for all when max = 0; ignored → 0)

Nodes are ignored (score 0) when `requireAll` (own constraints, or defaultingType List) and they
lack one of the topology keys.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from kwhatif.framework.interfaces import MAX_NODE_SCORE
from kwhatif.plugins.normalize import go_round, round_half_away
from kwhatif.plugins.pod_topology_spread.common import (
    LABEL_HOSTNAME, Constraint, has_all_keys, inclusion_masks, matching_counts,
)
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot
from kwhatif.snapshot.table import NodeTable


class PreScoreState:
    """Soft constraints, ignored nodes, per-domain counts of the non-hostname constraints, the
    normalizing weights, and per node row the matching pods for hostname constraints. Not
    modified after PreScore, so a clone is the same object (as upstream)."""

    __slots__ = ("constraints", "ignored", "counts", "weights", "namespace", "per_row")

    def __init__(self, constraints: list[Constraint], ignored: set[str], counts: list[dict[str, int]],
                 weights: list[float], namespace: str, per_row: list[np.ndarray]) -> None:
        self.constraints = constraints
        self.ignored = ignored
        self.counts = counts
        self.weights = weights
        self.namespace = namespace
        self.per_row = per_row  # per constraint: the count each node row contributes to its score

    def clone(self) -> PreScoreState:
        return self


def topology_normalizing_weight(size: int) -> float:
    return math.log(float(size + 2))


def _value_ids(table: NodeTable, key: str) -> tuple[np.ndarray, list[str]]:
    """Domain ids where a missing label reads as the value "" (Go's `node.Labels[key]`)."""
    ids, values = table.domains(key)
    if table.labelled_everywhere(key):
        return ids, values
    if "" in values:
        empty = values.index("")
        names = values
    else:
        empty = len(values)
        names = values + [""]
    return np.where(ids < 0, empty, ids), names


def compute_pre_score_state(
    pod: PodInfo, constraints: list[Constraint], feasible: Sequence[NodeInfo], snapshot: Snapshot, require_all: bool,
) -> PreScoreState:
    """`initPreScoreState` over the feasible nodes, then the counts over all nodes."""
    table = snapshot.table
    frows = table.rows_of(feasible)
    all_rows = table.all_rows
    ignored: set[str] = set()
    kept = frows
    if require_all:
        dropped = ~has_all_keys(table, frows, constraints)
        ignored = {feasible[i].name for i in np.flatnonzero(dropped).tolist()}
        kept = frows[~dropped]
        eligible = has_all_keys(table, all_rows, constraints)
        included = [m & eligible for m in inclusion_masks(pod.pod, constraints, table, all_rows)]
    else:
        included = inclusion_masks(pod.pod, constraints, table, all_rows)
    namespace = pod.pod.namespace
    counts: list[dict[str, int]] = []
    weights: list[float] = []
    per_row: list[np.ndarray] = []
    for c, inc in zip(constraints, included):
        matched = matching_counts(snapshot, c, namespace)
        if c.topology_key == LABEL_HOSTNAME:  # per-node counts, taken at Score time upstream
            counts.append({})
            weights.append(topology_normalizing_weight(len(feasible) - len(ignored)))
            per_row.append(matched)
            continue
        ids, names = _value_ids(table, c.topology_key)
        sums, wanted = _domain_sums(ids, len(names), kept, inc, matched)
        domain = {names[d]: int(sums[d]) for d in wanted}
        counts.append(domain)
        weights.append(topology_normalizing_weight(len(domain)))
        per_row.append(sums[ids])
    return PreScoreState(constraints, ignored, counts, weights, namespace, per_row)


def _domain_sums(ids: np.ndarray, size: int, kept: np.ndarray, included: np.ndarray, matched: np.ndarray
                 ) -> tuple[np.ndarray, Sequence[int]]:
    """Per domain id, the matching pods of its included nodes — counted only for the domains of
    the kept feasible nodes, 0 elsewhere — and those domains' ids. Most pods keep a feasible node
    in every domain and have no inclusion policy to apply: then the sums need no selection."""
    wanted = np.bincount(ids[kept], minlength=size) > 0
    if wanted.all() and included.all():
        return np.bincount(ids, weights=matched, minlength=size).astype(np.int64), range(size)
    take = included & wanted[ids]
    sums = np.bincount(ids[take], weights=matched[take], minlength=size).astype(np.int64)
    return sums, np.flatnonzero(wanted).tolist()


def score_rows(s: PreScoreState, table: NodeTable, rows: np.ndarray) -> np.ndarray:
    """`Score` for many nodes: 0 for ignored ones, else the rounded weighted sum over the keys
    each node has — float operations in Go's order, constraint by constraint."""
    score = np.zeros(rows.size, dtype=np.float64)
    for i, c in enumerate(s.constraints):
        term = s.per_row[i][rows].astype(np.float64) * s.weights[i] + float(c.max_skew - 1)
        if not table.labelled_everywhere(c.topology_key):
            term = np.where(table.domains(c.topology_key)[0][rows] >= 0, term, 0.0)
        score = score + term
    raw = round_half_away(score)
    if s.ignored:
        names = table.names
        raw[[names[r] in s.ignored for r in rows.tolist()]] = 0
    return raw


def score_node(s: PreScoreState, pod: PodInfo, node: NodeInfo) -> int:
    """Upstream `Score` for one node (the per-node reference `score_rows` is tested against);
    hostname constraints count the node's own pods here, as upstream does."""
    if node.name in s.ignored:
        return 0
    labels = node.node.labels
    score = 0.0
    for c, counts, weight in zip(s.constraints, s.counts, s.weights):
        value = labels.get(c.topology_key)
        if value is None:
            continue
        if c.topology_key == LABEL_HOSTNAME:
            count = _count_on_node(node, c, pod.pod.namespace)
        else:
            count = counts.get(value, 0)
        score += float(count) * weight + float(c.max_skew - 1)
    return go_round(score)


def _count_on_node(node: NodeInfo, c: Constraint, namespace: str) -> int:
    """Upstream `countPodsMatchSelector` over one node's pods: same namespace, not terminating."""
    if c.counts_nothing:
        return 0
    return sum(1 for p in node.pods if p.pod.deletion_timestamp is None and p.pod.namespace == namespace
               and c.matches(p.pod.labels))


def normalize(s: PreScoreState, scores: dict[str, int]) -> None:
    """Upstream `NormalizeScore` in place (the per-node reference for `normalize_rows`):
    min/max over non-ignored nodes; ignored nodes get 0."""
    valid = [raw for name, raw in scores.items() if name not in s.ignored]
    lo = min(valid, default=0)
    hi = max(valid, default=0)
    for name, raw in scores.items():
        if name in s.ignored:
            scores[name] = 0
        elif hi == 0:
            scores[name] = MAX_NODE_SCORE
        else:
            scores[name] = MAX_NODE_SCORE * (hi + lo - raw) // hi


def normalize_rows(s: PreScoreState, names: Sequence[str], raw: np.ndarray) -> np.ndarray:
    ignored = np.array([n in s.ignored for n in names], dtype=bool) if s.ignored else np.zeros(len(names), dtype=bool)
    valid = raw[~ignored]
    lo = int(valid.min()) if valid.size else 0
    hi = int(valid.max()) if valid.size else 0
    if hi == 0:
        out = np.full_like(raw, MAX_NODE_SCORE)
    else:
        out = MAX_NODE_SCORE * (hi + lo - raw) // hi
    out[ignored] = 0
    return out
