"""NodeName: a pod with spec.nodeName only fits that node (§5.1)."""

from __future__ import annotations

from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.interfaces import FilterPlugin
from kwhatif.framework.status import Status, unresolvable
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo

NAME = "NodeName"
ERR_REASON = "node(s) didn't match the requested node name"


class NodeName(FilterPlugin):
    name = NAME

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        wanted = pod.pod.node_name
        if not wanted or wanted == node.name:
            return None
        return unresolvable(ERR_REASON)
