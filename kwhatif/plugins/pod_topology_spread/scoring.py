"""PodTopologySpread PreScore, Score and NormalizeScore (upstream `scoring.go`, reference §6.6).

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

from kwhatif.framework.interfaces import MAX_NODE_SCORE
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.plugins.pod_topology_spread.common import (
    LABEL_HOSTNAME, Constraint, NodeInclusion, PodCounter, node_has_all_keys,
)


class PreScoreState:
    """Soft constraints, ignored nodes, per-domain counts of the non-hostname constraints and the
    normalizing weights. Not modified after PreScore, so a clone is the same object (as upstream)."""

    __slots__ = ("constraints", "ignored", "counts", "weights", "namespace")

    def __init__(self, constraints: list[Constraint], ignored: set[str], counts: list[dict[str, int]],
                 weights: list[float], namespace: str) -> None:
        self.constraints = constraints
        self.ignored = ignored
        self.counts = counts
        self.weights = weights
        self.namespace = namespace

    def clone(self) -> PreScoreState:
        return self


def round_half_away(x: float) -> int:
    """Go `math.Round`: halves go away from zero (Python's `round` is half-to-even)."""
    f = math.floor(abs(x))
    r = f + 1 if abs(x) - f >= 0.5 else f
    return int(r) if x >= 0 else -int(r)


def topology_normalizing_weight(size: int) -> float:
    return math.log(float(size + 2))


def compute_pre_score_state(
    pod: PodInfo, constraints: list[Constraint], feasible: list[NodeInfo], all_nodes: list[NodeInfo],
    require_all: bool, counter: PodCounter,
) -> PreScoreState:
    """`initPreScoreState` over the feasible nodes, then the counts over all nodes."""
    ignored: set[str] = set()
    counts: list[dict[str, int]] = [{} for _ in constraints]
    for node in feasible:
        labels = node.node.labels
        if require_all and not node_has_all_keys(labels, constraints):
            ignored.add(node.name)
            continue
        for i, c in enumerate(constraints):
            if c.topology_key != LABEL_HOSTNAME:  # per-node counts are taken at Score time
                counts[i].setdefault(labels.get(c.topology_key, ""), 0)
    weights = []
    for i, c in enumerate(constraints):
        size = len(feasible) - len(ignored) if c.topology_key == LABEL_HOSTNAME else len(counts[i])
        weights.append(topology_normalizing_weight(size))

    namespace = pod.pod.namespace
    inclusion = NodeInclusion(pod.pod, constraints)
    wanted = [i for i, c in enumerate(constraints) if c.topology_key != LABEL_HOSTNAME]
    if wanted:
        for node in all_nodes:
            labels = node.node.labels
            if require_all and not node_has_all_keys(labels, constraints):
                continue
            included = None
            for i in wanted:
                c = constraints[i]
                domain = counts[i]
                value = labels.get(c.topology_key, "")
                if value not in domain:  # no candidate node in this domain
                    continue
                if included is None:
                    included = inclusion.per_constraint(node, constraints)
                if not included[i]:
                    continue
                domain[value] += counter.count(node, c, namespace)
    return PreScoreState(constraints, ignored, counts, weights, namespace)


def score_node(s: PreScoreState, node: NodeInfo, counter: PodCounter) -> int:
    """`Score`: 0 for an ignored node; else the rounded weighted sum over the keys it has."""
    if node.name in s.ignored:
        return 0
    labels = node.node.labels
    score = 0.0
    for i, c in enumerate(s.constraints):
        value = labels.get(c.topology_key)
        if value is None:
            continue
        if c.topology_key == LABEL_HOSTNAME:
            cnt = counter.count(node, c, s.namespace)
        else:
            cnt = s.counts[i].get(value, 0)
        score += float(cnt) * s.weights[i] + float(c.max_skew - 1)
    return round_half_away(score)


def normalize(s: PreScoreState, scores: dict[str, int]) -> None:
    """`NormalizeScore` in place: min/max over non-ignored nodes; ignored nodes get 0."""
    valid = [v for name, v in scores.items() if name not in s.ignored]
    min_score = min(valid) if valid else 0
    max_score = max(valid) if valid else 0
    for name, raw in scores.items():
        if name in s.ignored:
            scores[name] = 0
        elif max_score == 0:
            scores[name] = MAX_NODE_SCORE
        else:
            scores[name] = MAX_NODE_SCORE * (max_score + min_score - raw) // max_score
