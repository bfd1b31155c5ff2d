"""PodTopologySpread PreFilter, AddPod/RemovePod and Filter (upstream `filtering.go`, podtopologyspread
filtering.go:Filter).

Filter rule for node N and each DoNotSchedule constraint c, in order:

    N lacks c.topologyKey                       → U&U "... (missing required label)"
    skew = count[c][N's value] + selfMatch − minMatch[c]
    skew > c.maxSkew                            → U   "node(s) didn't match pod topology spread constraints"

`minMatch[c]` is the count of the first of two "critical paths" (the minimum), or 0 while the
constraint has fewer domains than `minDomains`.
"""

from __future__ import annotations

import numpy as np

from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.interfaces import RowVerdicts
from kwhatif.framework.status import Status, error, unresolvable, unschedulable
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.plugins.pod_topology_spread.common import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH, ERR_REASON_NODE_LABEL_NOT_MATCH, PRE_FILTER_STATE_KEY, Constraint,
    has_all_keys, inclusion_masks, matching_counts, node_has_all_keys,
)
from kwhatif.snapshot.snapshot import Snapshot
from kwhatif.snapshot.table import NodeTable

MAX_INT32 = 2147483647

NODE_LABEL_NOT_MATCH = unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH)
CONSTRAINTS_NOT_MATCH = unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH)


class CriticalPaths:
    """Two (domain value, count) slots; slot 0 always holds the smallest count seen by `update`.

    This is upstream's `criticalPaths`: it can overstate the minimum when two different tracked
    domains change on the same state, which never happens in v1.34.1 (podtopologyspread filtering.go:Filter),
    and it is kept as is so that AddPod/RemovePod sequences behave exactly like the real scheduler's."""

    __slots__ = ("v0", "n0", "v1", "n1")

    def __init__(self, v0: str = "", n0: int = MAX_INT32, v1: str = "", n1: int = MAX_INT32) -> None:
        self.v0, self.n0, self.v1, self.n1 = v0, n0, v1, n1

    def update(self, value: str, num: int) -> None:
        if value == self.v0:  # checked first: both slots start with the value ""
            self.n0 = num
        elif value == self.v1:
            self.n1 = num
        elif num < self.n0:
            self.v1, self.n1 = self.v0, self.n0
            self.v0, self.n0 = value, num
            return
        elif num < self.n1:
            self.v1, self.n1 = value, num
            return
        else:
            return
        if self.n0 > self.n1:
            self.v0, self.n0, self.v1, self.n1 = self.v1, self.n1, self.v0, self.n0

    def copy(self) -> CriticalPaths:
        return CriticalPaths(self.v0, self.n0, self.v1, self.n1)

    def __repr__(self) -> str:
        return f"[({self.v0!r}, {self.n0}), ({self.v1!r}, {self.n1})]"


class PreFilterState:
    """Per constraint: matching pods per domain value, the critical paths, and whether the
    incoming pod matches the constraint's own selector (selfMatch). Cloned for nominated pods
    and preemption dry runs, whose AddPod/RemovePod mutate the copy."""

    __slots__ = ("constraints", "counts", "paths", "self_match", "table")

    def __init__(self, constraints: list[Constraint], counts: list[dict[str, int]],
                 paths: list[CriticalPaths], self_match: list[int], table: NodeTable) -> None:
        self.constraints = constraints  # shared between clones: never mutated
        self.counts = counts
        self.paths = paths
        self.self_match = self_match
        self.table = table  # the nodes' labels and taints, for AddPod/RemovePod's inclusion policies

    def clone(self) -> PreFilterState:
        return PreFilterState(self.constraints, [dict(c) for c in self.counts],
                              [p.copy() for p in self.paths], self.self_match, self.table)

    def min_match(self, i: int) -> int:
        """`minMatchNum`: fewer domains than minDomains → the global minimum is 0."""
        if len(self.counts[i]) < self.constraints[i].min_domains:
            return 0
        return self.paths[i].n0


def compute_pre_filter_state(pod: PodInfo, constraints: list[Constraint], snapshot: Snapshot) -> PreFilterState:
    """`calPreFilterState`: over all nodes having every topology key, each constraint whose
    inclusion policies pass creates the node's domain and adds the node's matching pods —
    evaluated for all nodes at once from the node table and the pod groups."""
    table = snapshot.table
    rows = table.all_rows
    eligible = has_all_keys(table, rows, constraints)
    included = inclusion_masks(pod.pod, constraints, table, rows)
    counts: list[dict[str, int]] = []
    paths = []
    for c, inc in zip(constraints, included):
        ids, values = table.domains(c.topology_key)
        take = eligible & inc
        per_node = matching_counts(snapshot, c, pod.pod.namespace)
        sums = np.bincount(ids[take], weights=per_node[take], minlength=len(values))
        domain = {values[d]: int(sums[d]) for d in np.unique(ids[take]).tolist()}
        p = CriticalPaths()
        for value, num in domain.items():
            p.update(value, num)
        counts.append(domain)
        paths.append(p)
    self_match = [1 if c.matches(pod.pod.labels) else 0 for c in constraints]
    return PreFilterState(constraints, counts, paths, self_match, table)


def update_with_pod(state: PreFilterState, updated: PodInfo, preemptor: PodInfo, node: NodeInfo, delta: int) -> None:
    """`updateWithPod` (AddPod +1, RemovePod −1). Unlike PreFilter counting it does not skip
    terminating pods, and an empty selector matches (no count-0 quirk here)."""
    if updated.pod.namespace != preemptor.pod.namespace:
        return
    labels = node.node.labels
    constraints = state.constraints
    if not node_has_all_keys(labels, constraints):
        return
    table = state.table
    included = [bool(m[0]) for m in inclusion_masks(preemptor.pod, constraints, table,
                                                     np.array([table.index[node.name]], dtype=np.int64))]
    pod_labels = updated.pod.labels
    for i, c in enumerate(constraints):
        if not c.matches(pod_labels) or not included[i]:
            continue
        value = labels[c.topology_key]
        domain = state.counts[i]
        domain[value] = domain.get(value, 0) + delta
        state.paths[i].update(value, domain[value])


def read_state(state: CycleState) -> PreFilterState | Status:
    try:
        return state.read(PRE_FILTER_STATE_KEY)
    except KeyError:
        return error(f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')


def filter_node(s: PreFilterState, node: NodeInfo) -> Status | None:
    """`Filter`: the first constraint whose key is missing or whose skew exceeds maxSkew."""
    labels = node.node.labels
    for i, c in enumerate(s.constraints):
        value = labels.get(c.topology_key)
        if value is None:
            return NODE_LABEL_NOT_MATCH
        skew = s.counts[i].get(value, 0) + s.self_match[i] - s.min_match(i)
        if skew > c.max_skew:
            return CONSTRAINTS_NOT_MATCH
    return None


def filter_rows(s: PreFilterState, table: NodeTable, rows: np.ndarray) -> RowVerdicts:
    """`filter_node` for many nodes at once: constraint by constraint, among the rows still
    passing, those that lack the key and those whose skew exceeds maxSkew."""
    verdict = np.zeros(rows.size, dtype=np.int8)  # 0 passes, 1 missing label, 2 skew too large
    for i, c in enumerate(s.constraints):
        ids, values = table.domains(c.topology_key)
        at = ids[rows]
        still = verdict == 0
        verdict[still & (at < 0)] = 1
        if values:
            counts = np.fromiter((s.counts[i].get(v, 0) for v in values), dtype=np.int64, count=len(values))
            skew = counts[np.maximum(at, 0)] + s.self_match[i] - s.min_match(i)
            verdict[still & (at >= 0) & (skew > c.max_skew)] = 2
    fails = verdict != 0
    return RowVerdicts.pick(fails, verdict[fails] - 1, (NODE_LABEL_NOT_MATCH, CONSTRAINTS_NOT_MATCH))


def explain_filter(s: PreFilterState, node: NodeInfo) -> list[str]:
    """One sentence per constraint, up to the one that rejects the node (Filter stops there)."""
    out: list[str] = []
    labels = node.node.labels
    for i, c in enumerate(s.constraints):
        kind = "default constraint" if c.from_defaults else "constraint"
        head = f"{kind} {c.topology_key} maxSkew {c.max_skew}"
        value = labels.get(c.topology_key)
        if value is None:
            out.append(f"{head}: node {node.name} has no label {c.topology_key} (missing required label)")
            return out
        count = s.counts[i].get(value, 0)
        domains = len(s.counts[i])
        minimum = s.min_match(i)
        if domains < c.min_domains:
            min_text = f"global minimum 0 ({domains} eligible domain(s) < minDomains {c.min_domains})"
        else:
            min_text = f"global minimum {minimum}"
        skew = count + s.self_match[i] - minimum
        self_text = "" if s.self_match[i] else " (the pod does not match its own selector)"
        verdict = f"> {c.max_skew}" if skew > c.max_skew else f"<= {c.max_skew}"
        out.append(f"{head}: domain {value} has {count} matching pods, {min_text}, "
                   f"placing here gives skew {skew} {verdict}{self_text}")
        if skew > c.max_skew:
            return out
    return out
