"""InterPodAffinity PreScore, Score and NormalizeScore (reference §6.7).

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

from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.interfaces import MAX_NODE_SCORE
from kwhatif.framework.status import SKIP, Status, error
from kwhatif.plugins.inter_pod_affinity.terms import (
    NAME, IncomingTerm, NodeIndexCache, TermMemo, namespace_labels, pod_terms, resolve_incoming,
)
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo

PRE_SCORE_KEY = "PreScore" + NAME

TopologyScore = dict[str, dict[str, int]]


class PreScoreState:
    """preScoreState; read-only after PreScore, so clones share it (no `clone`)."""

    __slots__ = ("topology_score",)

    def __init__(self, topology_score: TopologyScore) -> None:
        self.topology_score = topology_score


def _add(scores: TopologyScore, key: str, value: str, amount: int) -> None:
    by_value = scores.get(key)
    if by_value is None:
        by_value = scores[key] = {}
    by_value[value] = by_value.get(value, 0) + amount


def pre_score(index: NodeIndexCache, all_nodes: list[NodeInfo], namespaces: Mapping, state: CycleState,
              pod: PodInfo, hard_weight: int, ignore_existing_preferred: bool) -> Status | None:
    terms = pod_terms(pod)
    has_constraints = bool(terms.preferred_affinity) or bool(terms.preferred_anti_affinity)
    if ignore_existing_preferred and not has_constraints:
        return SKIP

    preferred_affinity = tuple(resolve_incoming(w.term, namespaces, w.weight) for w in terms.preferred_affinity)
    preferred_anti = tuple(resolve_incoming(w.term, namespaces, w.weight) for w in terms.preferred_anti_affinity)
    incoming: tuple[tuple[IncomingTerm, int], ...] = tuple(
        [(t, t.weight) for t in preferred_affinity] + [(t, -t.weight) for t in preferred_anti])
    memo = TermMemo(pod.pod, namespace_labels(namespaces, pod.pod.namespace))
    group_memo: dict = {}
    scores: TopologyScore = {}
    found = False

    for ni in all_nodes:
        if not has_constraints and ni.pods_with_affinity <= 0:
            continue
        labels = ni.node.labels
        if not labels:
            continue
        idx = index.get(ni)
        if incoming:
            for gkey, ns, plabels, keys in idx.groups():
                hits = group_memo.get(gkey)
                if hits is None:
                    hits = group_memo[gkey] = tuple(
                        (t.topology_key, amount) for t, amount in incoming if t.matches(ns, plabels))
                if hits:
                    n = len(keys)
                    for key, amount in hits:
                        if key in labels:
                            _add(scores, key, labels[key], amount * n)
                            found = True
        if ni.pods_with_affinity <= 0:
            continue
        existing = idx.scoring()
        if existing.empty:
            continue
        if hard_weight > 0:
            for term, n in existing.required_affinity.items():
                key = term.topology_key
                if key in labels and memo[term]:
                    _add(scores, key, labels[key], hard_weight * n)
                    found = True
        for (term, weight), n in existing.preferred_affinity.items():
            key = term.topology_key
            if key in labels and memo[term]:
                _add(scores, key, labels[key], weight * n)
                found = True
        for (term, weight), n in existing.preferred_anti_affinity.items():
            key = term.topology_key
            if key in labels and memo[term]:
                _add(scores, key, labels[key], -weight * n)
                found = True

    if not found:
        return SKIP
    state.write(PRE_SCORE_KEY, PreScoreState(scores))
    return None


def get_state(state: CycleState) -> PreScoreState | None:
    return state.get(PRE_SCORE_KEY)


def score_node(state: CycleState, node: NodeInfo) -> int:
    s = get_state(state)
    if s is None:
        return 0
    labels = node.node.labels
    total = 0
    for key, by_value in s.topology_score.items():
        if key in labels:
            total += by_value.get(labels[key], 0)
    return total


def normalize(state: CycleState, scores: dict[str, int]) -> Status | None:
    s = get_state(state)
    if s is None:
        return error(f'failed to read "{PRE_SCORE_KEY}" from cycleState: not found')
    if not s.topology_score or not scores:
        return None
    lo = min(scores.values())
    hi = max(scores.values())
    diff = hi - lo
    for name, raw in scores.items():
        f = 0.0
        if diff > 0:
            f = float(MAX_NODE_SCORE) * (float(raw - lo) / float(diff))
        scores[name] = int(f)
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
