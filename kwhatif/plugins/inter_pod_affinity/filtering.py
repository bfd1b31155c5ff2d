"""InterPodAffinity PreFilter, AddPod/RemovePod and Filter (interpodaffinity filtering.go:Filter).

PreFilter builds three (topologyKey, value) → count tables:

* `existing_anti`: required anti-affinity terms of existing pods that match the incoming pod,
  counted at the existing pod's node value (only nodes with `pods_with_required_anti_affinity`);
* `affinity`: existing pods matching **all** the incoming pod's required affinity terms, +1 per
  term at (term key, the pod's node value);
* `anti`: existing pods matching an incoming required anti-affinity term, +1 at (key, value).

Filter then only looks the node's labels up in them (`TopologyCounts`: an array per key, read
for all nodes at once). Counts reaching 0 are absent (AddPod/RemovePod can take them down), which
matters to the "first pod of a group" rule: it applies only when the whole affinity table is
empty.

For explanations the state also keeps a few pod names per table entry (`*_witnesses`, built once
in PreFilter and shared by clones; the counts are what decide).
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.interfaces import RowVerdicts
from kwhatif.framework.status import SKIP, Status, error, unresolvable, unschedulable
from kwhatif.plugins.inter_pod_affinity.counts import Pair, TopologyCounts
from kwhatif.plugins.inter_pod_affinity.index import REQUIRED_ANTI_AFFINITY, TermIndex
from kwhatif.plugins.inter_pod_affinity.terms import (
    NAME, AffinityTerm, IncomingTerm, NodeIndexCache, TermMemo, matching_pods, namespace_labels, pod_list,
    pod_terms, resolve_incoming,
)
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot
from kwhatif.snapshot.table import NodeTable

PRE_FILTER_KEY = "PreFilter" + NAME

ERR_REASON_AFFINITY = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
ERR_REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"

WITNESS_CAP = 5  # pod names kept per table entry for explanations


def _witness(table: dict, key: object, item: object) -> None:
    found = table.get(key)
    if found is None:
        table[key] = [item]
    elif len(found) < WITNESS_CAP:
        found.append(item)


class PreFilterState:
    """preFilterState. `clone()` copies the three count tables (AddPod/RemovePod mutate them)."""

    __slots__ = ("existing_anti", "affinity", "anti", "pod", "required_affinity", "required_anti_affinity",
                 "namespace_labels", "matches_own_affinity", "existing_witnesses", "affinity_witnesses",
                 "anti_witnesses")

    def __init__(self, pod: PodInfo, required_affinity: tuple[IncomingTerm, ...],
                 required_anti_affinity: tuple[IncomingTerm, ...], ns_labels: Mapping[str, str],
                 table: NodeTable) -> None:
        self.existing_anti = TopologyCounts(table)
        self.affinity = TopologyCounts(table)
        self.anti = TopologyCounts(table)
        self.pod = pod
        self.required_affinity = required_affinity
        self.required_anti_affinity = required_anti_affinity
        self.namespace_labels = ns_labels
        # podMatchesAllAffinityTerms(own terms, own pod): false without terms.
        self.matches_own_affinity = bool(required_affinity) and all(
            t.matches_pod(pod.pod) for t in required_affinity)
        self.existing_witnesses: dict[Pair, list[tuple[str, AffinityTerm]]] = {}
        self.affinity_witnesses: dict[Pair, list[str]] = {}
        self.anti_witnesses: dict[tuple[int, Pair], list[str]] = {}

    def clone(self) -> PreFilterState:
        copy = object.__new__(PreFilterState)
        for slot in PreFilterState.__slots__:
            setattr(copy, slot, getattr(self, slot))
        copy.existing_anti = self.existing_anti.copy()
        copy.affinity = self.affinity.copy()
        copy.anti = self.anti.copy()
        return copy

    def update_with_pod(self, other: PodInfo, node: NodeInfo, multiplier: int) -> None:
        """updateWithPod: a pod added to / removed from `node`."""
        labels = node.node.labels
        incoming = self.pod.pod
        for term in pod_terms(other).required_anti_affinity:
            if term.matches(incoming, self.namespace_labels):
                self.existing_anti.update(labels, term.topology_key, multiplier)
        target = other.pod
        if self.required_affinity and all(t.matches_pod(target) for t in self.required_affinity):
            for t in self.required_affinity:
                self.affinity.update(labels, t.topology_key, multiplier)
        for t in self.required_anti_affinity:
            if t.matches_pod(target):
                self.anti.update(labels, t.topology_key, multiplier)


def pre_filter(index: TermIndex, node_index: NodeIndexCache, snapshot: Snapshot, state: CycleState,
               pod: PodInfo) -> Status | None:
    """The three tables, counted over the whole cluster at once: existing pods' required
    anti-affinity terms from the term index, the incoming pod's terms through the pod groups.
    When the user asked for an explanation, the pods behind each entry are collected too."""
    namespaces = snapshot.cluster.namespaces
    terms = pod_terms(pod)
    required_affinity = tuple(resolve_incoming(t, namespaces) for t in terms.required_affinity)
    required_anti = tuple(resolve_incoming(t, namespaces) for t in terms.required_anti_affinity)
    ns_labels = namespace_labels(namespaces, pod.pod.namespace)
    table = snapshot.table
    s = PreFilterState(pod, required_affinity, required_anti, ns_labels, table)
    memo = TermMemo(pod.pod, ns_labels)
    for (kind, term, _), rows, counts in index.matching(pod.pod, memo):
        if kind == REQUIRED_ANTI_AFFINITY:
            s.existing_anti.add_rows(term.topology_key, rows, counts)
    all_rows = table.all_rows
    if required_affinity:
        matching_all = matching_pods(snapshot, required_affinity)
        for t in required_affinity:
            s.affinity.add_rows(t.topology_key, all_rows, matching_all)
    for t in required_anti:
        s.anti.add_rows(t.topology_key, all_rows, matching_pods(snapshot, (t,)))
    if not s.existing_anti and not required_affinity and not required_anti:
        return SKIP
    if state.explain:
        _collect_witnesses(s, node_index, snapshot.node_infos, memo)
    state.write(PRE_FILTER_KEY, s)
    return None


def _collect_witnesses(s: PreFilterState, index: NodeIndexCache, nodes: list[NodeInfo], memo: TermMemo) -> None:
    """A few pod names behind each table entry, for the explanation (not for the decision)."""
    required_affinity, required_anti = s.required_affinity, s.required_anti_affinity
    for ni in nodes:
        labels = ni.node.labels
        if ni.pods_with_required_anti_affinity > 0:
            for term, keys in index.get(ni).required_anti_affinity():
                if memo[term] and term.topology_key in labels:
                    pair = (term.topology_key, labels[term.topology_key])
                    for k in keys[:WITNESS_CAP]:
                        _witness(s.existing_witnesses, pair, (k, term))
        if not (required_affinity or required_anti):
            continue
        for _, ns, plabels, keys in index.get(ni).groups():
            if required_affinity and all(t.matches(ns, plabels) for t in required_affinity):
                for t in required_affinity:
                    if t.topology_key in labels:
                        for k in keys[:WITNESS_CAP]:
                            _witness(s.affinity_witnesses, (t.topology_key, labels[t.topology_key]), k)
            for i, t in enumerate(required_anti):
                if t.matches(ns, plabels) and t.topology_key in labels:
                    for k in keys[:WITNESS_CAP]:
                        _witness(s.anti_witnesses, (i, (t.topology_key, labels[t.topology_key])), k)


def _satisfies_affinity(s: PreFilterState, labels: Mapping[str, str]) -> bool:
    pods_exist = True
    for t in s.required_affinity:
        key = t.topology_key
        if key not in labels:
            return False  # all topology labels must exist on the node
        if s.affinity.get((key, labels[key])) <= 0:
            pods_exist = False
    if not pods_exist:
        # The first pod of a group with affinity to itself.
        return not s.affinity and s.matches_own_affinity
    return True


def _satisfies_anti_affinity(s: PreFilterState, labels: Mapping[str, str]) -> bool:
    if s.anti:
        for t in s.required_anti_affinity:
            key = t.topology_key
            if key in labels and s.anti.get((key, labels[key])) > 0:
                return False
    return True


def _satisfies_existing_anti_affinity(s: PreFilterState, labels: Mapping[str, str]) -> bool:
    existing = s.existing_anti
    return not any(key in labels and existing.get((key, labels[key])) > 0 for key in existing.by_key)


def get_state(state: CycleState) -> PreFilterState | None:
    return state.get(PRE_FILTER_KEY)


def filter_node(state: CycleState, node: NodeInfo) -> Status | None:
    s = get_state(state)
    if s is None:
        return error(f'error reading "{PRE_FILTER_KEY}" from cycleState: not found')
    labels = node.node.labels
    if not _satisfies_affinity(s, labels):
        return AFFINITY_REJECTED
    if not _satisfies_anti_affinity(s, labels):
        return ANTI_AFFINITY_REJECTED
    if not _satisfies_existing_anti_affinity(s, labels):
        return EXISTING_ANTI_AFFINITY_REJECTED
    return None


AFFINITY_REJECTED = unresolvable(ERR_REASON_AFFINITY)
ANTI_AFFINITY_REJECTED = unschedulable(ERR_REASON_ANTI_AFFINITY)
EXISTING_ANTI_AFFINITY_REJECTED = unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY)


def filter_rows(state: CycleState, rows: np.ndarray) -> RowVerdicts | Status:
    """`filter_node` for many nodes at once: the three checks in order, each vectorised over the
    nodes' label values."""
    s = get_state(state)
    if s is None:
        return error(f'error reading "{PRE_FILTER_KEY}" from cycleState: not found')
    affinity_bad = np.zeros(rows.size, dtype=bool)
    if s.required_affinity:
        has_all = np.ones(rows.size, dtype=bool)
        pods_exist = np.ones(rows.size, dtype=bool)
        for t in s.required_affinity:
            has, positive = s.affinity.positive_at(t.topology_key, rows)
            has_all &= has
            pods_exist &= positive
        first_pod = not s.affinity and s.matches_own_affinity
        affinity_bad = ~has_all | (~pods_exist & (not first_pod))
    anti_bad = np.zeros(rows.size, dtype=bool)
    if s.anti:
        for t in s.required_anti_affinity:
            _, positive = s.anti.positive_at(t.topology_key, rows)
            anti_bad |= positive
    existing_bad = np.zeros(rows.size, dtype=bool)
    for key in s.existing_anti.keys():
        _, positive = s.existing_anti.positive_at(key, rows)
        existing_bad |= positive
    fails = affinity_bad | anti_bad | existing_bad
    choice = np.where(affinity_bad[fails], 0, np.where(anti_bad[fails], 1, 2))
    return RowVerdicts.pick(fails, choice, (AFFINITY_REJECTED, ANTI_AFFINITY_REJECTED, EXISTING_ANTI_AFFINITY_REJECTED))


def update(state: CycleState, other: PodInfo, node: NodeInfo, multiplier: int) -> Status | None:
    s = get_state(state)
    if s is None:
        return error(f'error reading "{PRE_FILTER_KEY}" from cycleState: not found')
    s.update_with_pod(other, node, multiplier)
    return None


def explain_filter(s: PreFilterState, node: NodeInfo) -> list[str]:
    """Sentences on why the node passes or fails each of the three checks."""
    labels = node.node.labels
    out: list[str] = []
    pods_exist = True
    for t in s.required_affinity:
        key = t.topology_key
        if key not in labels:
            out.append(f"affinity term {t.describe()}: the node has no {key} label")
            continue
        pair = (key, labels[key])
        n = s.affinity.get(pair)
        if n > 0:
            who = pod_list(s.affinity_witnesses.get(pair, []), n)
            out.append(f"affinity term {t.describe()}: satisfied by {who} in {key}={pair[1]} "
                       f"matching all affinity terms")
        elif not s.affinity:  # the same words for every node: a summary of thousands groups them
            pods_exist = False
            out.append(f"affinity term {t.describe()}: no pod matching all affinity terms runs anywhere in the "
                       "cluster")
        else:
            pods_exist = False
            out.append(f"affinity term {t.describe()}: no pod matching all affinity terms runs in "
                       f"{key}={pair[1]}")
    if not pods_exist and all(t.topology_key in labels for t in s.required_affinity):
        if not s.affinity and s.matches_own_affinity:
            out.append("no pod in the cluster matches all affinity terms and the pod matches them itself: "
                       "allowed as the first pod of its group")
        elif s.affinity:
            out.append("the first-pod-of-a-group exception does not apply: matching pods run elsewhere")
        else:
            out.append("the first-pod-of-a-group exception does not apply: the pod does not match its own "
                       "affinity terms")
    for i, t in enumerate(s.required_anti_affinity):
        key = t.topology_key
        if key not in labels:
            continue
        pair = (key, labels[key])
        n = s.anti.get(pair)
        if n > 0:
            witnesses = s.anti_witnesses.get((i, pair), [])
            if witnesses:
                out.append(f"anti-affinity term {t.describe()}: {pod_list(witnesses)} in {key}={pair[1]} "
                           f"{'matches' if len(witnesses) == 1 else 'match'}")
            else:
                out.append(f"anti-affinity term {t.describe()}: {n} matching pod(s) counted in "
                           f"{key}={pair[1]} for the anti-affinity terms on {key}")
    for pair in labels.items():
        n = s.existing_anti.get(pair)
        if n <= 0:
            continue
        holders = s.existing_witnesses.get(pair, [])
        if not holders:
            out.append(f"{n} existing anti-affinity term(s) in {pair[0]}={pair[1]} match this pod")
        for pod_key, term in holders:
            out.append(f"pod {pod_key} in {pair[0]}={pair[1]} has anti-affinity term {term.describe()} "
                       f"that matches this pod")
    if filter_node_state_ok(s, labels):
        out.append("all pod affinity and anti-affinity rules are satisfied on this node")
    return out


def filter_node_state_ok(s: PreFilterState, labels: Mapping[str, str]) -> bool:
    return (_satisfies_affinity(s, labels) and _satisfies_anti_affinity(s, labels)
            and _satisfies_existing_anti_affinity(s, labels))
