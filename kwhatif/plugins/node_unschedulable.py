"""NodeUnschedulable: a cordoned node takes only pods tolerating the unschedulable taint (§5.1)."""

from __future__ import annotations

from kwhatif.api.objects import Taint, tolerates
from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.interfaces import FilterPlugin
from kwhatif.framework.status import Status, unresolvable
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo

NAME = "NodeUnschedulable"
ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"
_UNSCHEDULABLE_TAINT = Taint("node.kubernetes.io/unschedulable", "", "NoSchedule")


class NodeUnschedulable(FilterPlugin):
    name = NAME

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        if not node.node.unschedulable or tolerates(pod.pod.tolerations, _UNSCHEDULABLE_TAINT):
            return None
        return unresolvable(ERR_REASON_UNSCHEDULABLE)
