"""NodePorts: a wanted host port must be free on the node (node_ports.go:fitsPorts)."""

from __future__ import annotations

from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.interfaces import FilterPlugin, PreFilterPlugin, PreFilterResult
from kwhatif.framework.status import SKIP, Status, unschedulable
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo

NAME = "NodePorts"
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"


class NodePorts(PreFilterPlugin, FilterPlugin):
    name = NAME

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        return None, (None if pod.host_ports else SKIP)

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        for wanted in pod.host_ports:
            if node.port_conflicts(wanted):
                return unschedulable(ERR_REASON)
        return None
