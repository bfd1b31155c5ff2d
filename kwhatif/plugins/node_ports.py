"""NodePorts: a wanted host port must be free on the node (node_ports.go:fitsPorts)."""

from __future__ import annotations

from kwhatif.api.objects import Pod
from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.interfaces import FilterPlugin, NodeExplainer, PreFilterPlugin, PreFilterResult
from kwhatif.framework.status import SKIP, Status, error, unschedulable
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import HostPort, PodInfo

NAME = "NodePorts"
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"
PRE_FILTER_KEY = "PreFilter" + NAME


class NodePorts(PreFilterPlugin, FilterPlugin, NodeExplainer):
    name = NAME
    reads_node_pods = True

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        if not pod.host_ports:
            return None, SKIP
        state.write(PRE_FILTER_KEY, pod.host_ports)
        return None, None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        """Without PreFilter's state (PreFilter disabled), an error: node_ports.go getPreFilterState."""
        wanted_ports = state.get(PRE_FILTER_KEY)
        if wanted_ports is None:
            return error(f'reading "{PRE_FILTER_KEY}" from cycleState: not found')
        for wanted in wanted_ports:
            if node.port_conflicts(wanted):
                return unschedulable(ERR_REASON)
        return None

    def explain_node(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> list[str]:
        """Which wanted port is taken, and by whom: the reason names neither. A holder made by a
        controller is named by its controller, so thousands of nodes whose port a DaemonSet holds
        say one sentence (and deleting such a pod would not free the port for long)."""
        out = []
        for wanted in dict.fromkeys(pod.host_ports):
            if not node.port_conflicts(wanted):
                continue
            holders = sorted({_holder(other.pod) for other in node.pods
                              if any(ports_conflict(wanted, held) for held in other.host_ports)})
            out.append(f"host port {port_text(wanted)} is taken by {', '.join(holders) or 'a pod'}")
        return out


def ports_conflict(wanted: HostPort, held: HostPort) -> bool:
    """fitsPorts for two ports: same protocol and port, and 0.0.0.0 on either side or the same ip
    (HostPortInfo.CheckConflict). The suggestions ask it too, so that a fix deletes only the pods
    that really hold a wanted port."""
    return wanted[1:] == held[1:] and (wanted[0] == held[0] or "0.0.0.0" in (wanted[0], held[0]))


def port_text(port: HostPort) -> str:
    """`8080/TCP`, or `10.0.0.1:8080/TCP` for a port bound to one IP."""
    ip, protocol, number = port
    return f"{number}/{protocol}" if ip == "0.0.0.0" else f"{ip}:{number}/{protocol}"


def _holder(pod: Pod) -> str:
    ref = pod.controller_ref
    if ref is None:
        return f"pod {pod.key}"
    return f"a pod of {ref.kind} {pod.namespace}/{ref.name}"
