"""Run a plugin's Filter / Score / NormalizeScore through both paths of the engine and insist
that they agree: the per-node methods (`filter`, `score`, `normalize_score`, the plain path) and,
when the plugin has them, the node-table methods (`filter_rows`, `score_rows`, `normalize_rows`,
the fast path). Table-driven plugin tests call these instead of the plugin methods, so every case
checks its expected value against both implementations.

The rows are those of the plugin's snapshot table (`plugin.handle.snapshot.table`), as the
runner passes them (kwhatif.framework.runtime); the nodes given must be that snapshot's own
NodeInfos, otherwise the two paths would not look at the same state.
"""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from kwhatif.api.objects import Pod
from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.interfaces import BatchFilter, BatchScore, ScorePlugin
from kwhatif.framework.status import Code, Status
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot
from kwhatif.snapshot.table import NodeTable

Outcome = tuple[Code, tuple[str, ...]] | None


def outcome(status: Status | None) -> Outcome:
    """A status as the tests compare it: None for success, else (code, reasons)."""
    return None if status is None or status.code == Code.SUCCESS else (status.code, status.reasons)


def _rows(plugin: Any, nodes: list[NodeInfo]) -> tuple[NodeTable, np.ndarray]:
    table: NodeTable = plugin.handle.snapshot.table
    rows = np.array([table.index[n.name] for n in nodes], dtype=np.int64)
    for node, row in zip(nodes, rows.tolist()):
        assert table.infos[row] is node, f"{node.name} is not the snapshot's own NodeInfo"
    return table, rows


def filter_nodes(plugin: Any, state: CycleState, pod: PodInfo, nodes: Iterable[NodeInfo]) -> dict[str, Status | None]:
    """`filter` on each node; with `filter_rows`, the same verdicts (code and reasons) from the
    node table are asserted. Returns the per-node statuses by node name."""
    nodes = list(nodes)
    per_node = {n.name: plugin.filter(state, pod, n) for n in nodes}
    if isinstance(plugin, BatchFilter):
        table, rows = _rows(plugin, nodes)
        verdicts = plugin.filter_rows(state, pod, table, rows)
        fails, statuses = verdicts.fails, verdicts.statuses()
        assert len(statuses) == int(fails.sum())
        by_rows: dict[str, Outcome] = {n.name: None for n in nodes}
        for row, status in zip(rows[fails].tolist(), statuses):
            by_rows[table.names[row]] = outcome(status)
        assert by_rows == {name: outcome(s) for name, s in per_node.items()}, "filter_rows disagrees with filter"
    return per_node


def filter_node(plugin: Any, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
    """`filter_nodes` for one node."""
    return filter_nodes(plugin, state, pod, [node])[node.name]


def filter_outcomes(plugin: Any, snapshot: Snapshot, pod: Pod, state: CycleState | None = None
                    ) -> str | tuple[Code, str] | dict[str, tuple[Code, str] | None]:
    """A plugin's PreFilter then Filter (through `filter_nodes`) on every node of the snapshot:
    "skip", (code, message) for a PreFilter rejection, or {node: (code, message) | None}."""
    state = state or CycleState()
    info = PodInfo.of(pod)
    _, status = plugin.pre_filter(state, info, snapshot.node_infos)
    if status is not None:
        return "skip" if status.code == Code.SKIP else (status.code, status.message)
    return {name: None if s is None else (s.code, s.message)
            for name, s in filter_nodes(plugin, state, info, snapshot.node_infos).items()}


def score_nodes(plugin: Any, state: CycleState, pod: PodInfo, nodes: Iterable[NodeInfo]) -> dict[str, int]:
    """Raw `score` per node; with `score_rows`, the same scores from the node table are asserted."""
    nodes = list(nodes)
    per_node = {n.name: plugin.score(state, pod, n) for n in nodes}
    if isinstance(plugin, BatchScore):
        table, rows = _rows(plugin, nodes)
        by_rows = dict(zip((n.name for n in nodes), plugin.score_rows(state, pod, table, rows).tolist()))
        assert by_rows == per_node, "score_rows disagrees with score"
    return per_node


def normalize(plugin: ScorePlugin, state: CycleState, pod: PodInfo, raw: dict[str, int]
              ) -> tuple[dict[str, int], Status | None]:
    """`normalize_score` on a copy of `raw`, asserted equal to `normalize_rows` (scores and
    status). Returns (normalized scores, the per-node status)."""
    per_node = dict(raw)
    status = plugin.normalize_score(state, pod, per_node)
    names = list(raw)
    by_rows, rows_status = plugin.normalize_rows(state, pod, names, np.array([raw[n] for n in names], dtype=np.int64))
    assert outcome(rows_status) == outcome(status), "normalize_rows status disagrees with normalize_score"
    if outcome(status) is None:
        assert dict(zip(names, by_rows.tolist())) == per_node, "normalize_rows disagrees with normalize_score"
    return per_node, status


def scores(plugin: ScorePlugin, state: CycleState, pod: PodInfo, nodes: Iterable[NodeInfo]) -> dict[str, int]:
    """Score then NormalizeScore (asserted to succeed), both checked on both paths."""
    normalized, status = normalize(plugin, state, pod, score_nodes(plugin, state, pod, nodes))
    assert outcome(status) is None, status
    return normalized
