"""NodeName: a pod with spec.nodeName only fits that node (default_plugins.go:getDefaultPlugins)."""

from __future__ import annotations

from kwhatif.framework.cycle_state import CycleState
import numpy as np

from kwhatif.framework.interfaces import BatchFilter, FilterPlugin, RowVerdicts
from kwhatif.framework.status import Status, unresolvable
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.table import NodeTable

NAME = "NodeName"
ERR_REASON = "node(s) didn't match the requested node name"


_REJECTED = unresolvable(ERR_REASON)


class NodeName(FilterPlugin, BatchFilter):
    name = NAME

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        wanted = pod.pod.node_name
        if not wanted or wanted == node.name:
            return None
        return _REJECTED

    def filter_rows(self, state: CycleState, pod: PodInfo, table: NodeTable, rows: np.ndarray) -> RowVerdicts:
        wanted = pod.pod.node_name
        if not wanted:
            return RowVerdicts.same(np.zeros(rows.size, dtype=bool), _REJECTED)
        return RowVerdicts.same(rows != table.index.get(wanted, -1), _REJECTED)
