"""NodeUnschedulable: a cordoned node takes only pods tolerating the unschedulable taint
(default_plugins.go:getDefaultPlugins)."""

from __future__ import annotations

from kwhatif.api.objects import CORDON_TAINT, uncordoned
from kwhatif.api.tolerations import tolerates
from kwhatif.framework.cycle_state import CycleState
import numpy as np

from kwhatif.framework.interfaces import BatchFilter, FilterPlugin, RowVerdicts
from kwhatif.framework.status import Status, unresolvable
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.table import NodeTable

NAME = "NodeUnschedulable"
ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"


_REJECTED = unresolvable(ERR_REASON_UNSCHEDULABLE)


class NodeUnschedulable(FilterPlugin, BatchFilter):
    name = NAME

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        if not node.node.unschedulable or tolerates(pod.pod.tolerations, CORDON_TAINT):
            return None
        return _REJECTED

    def node_once_passed(self, node: NodeInfo) -> NodeInfo:
        """Uncordoned: `kubectl uncordon` clears spec.unschedulable and the node lifecycle
        controller removes the cordon's taint with it, so TaintToleration does not "also fail"
        for that taint."""
        passed = node.clone()
        passed.node = uncordoned(node.node)
        return passed

    def filter_rows(self, state: CycleState, pod: PodInfo, table: NodeTable, rows: np.ndarray) -> RowVerdicts:
        if tolerates(pod.pod.tolerations, CORDON_TAINT):
            return RowVerdicts.same(np.zeros(rows.size, dtype=bool), _REJECTED)
        return RowVerdicts.same(table.unschedulable[rows], _REJECTED)
