"""NodePorts: delete (or move) the pods holding the host ports the pod wants."""

from __future__ import annotations

from collections.abc import Sequence

from kwhatif.api.objects import Pod, PodDisruptionBudget
from kwhatif.explain.pod import NodeVerdict
from kwhatif.explain.suggest.model import (
    PORTS, Candidate, NodeOf, Size, Suggestion, Variant, budget_note, budgets_broken, comes_back, delete_change,
    rejected_alone,
)
from kwhatif.plugins.node_ports import port_text, ports_conflict
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import HostPort, PodInfo, wanted_host_ports


def free_ports(pod: Pod, verdicts: list[NodeVerdict], node_of: NodeOf,
               pdbs: Sequence[PodDisruptionBudget] = ()) -> list[Candidate]:
    """On the node NodePorts alone rejects whose pods in the way break the fewest
    PodDisruptionBudgets, then are the fewest (then the smallest name): delete the pods holding a
    host port the pod wants (or move them elsewhere) — never on a node where one holder would
    come back (a DaemonSet's, a static pod's mirror). The summary names the ports those pods
    hold, not every port the pod wants, and the budgets the deletion breaks."""
    wanted = wanted_host_ports(pod)
    best: tuple[int, int, str, dict[str, tuple[Pod, list[HostPort]]], list[str]] | None = None
    for v in rejected_alone(verdicts, PORTS):
        holders = _holders(node_of(v.node), wanted)
        if not holders or any(comes_back(p) for p, _ in holders.values()):
            continue
        broken = budgets_broken([p for p, _ in holders.values()], pdbs)
        if best is None or (len(broken), len(holders), v.node) < best[:3]:
            best = (len(broken), len(holders), v.node, holders, broken)
    if best is None:
        return []
    _, _, name, holders, broken = best
    held = sorted({port for _, ports in holders.values() for port in ports}, key=lambda p: (p[2], p[1], p[0]))
    summary = (f"delete (or move) {', '.join(holders)} on {name}, holding host port(s) "
               f"{', '.join(map(port_text, held))} the pod wants{budget_note(broken)}")
    return [(Suggestion(summary, [delete_change(p) for p, _ in holders.values()], size=Size.DELETE_PODS),
             Variant(pod, removed=frozenset(holders)))]


def _holders(node: NodeInfo, wanted: tuple[HostPort, ...]) -> dict[str, tuple[Pod, list[HostPort]]]:
    """The node's pods in the way, by key, each with the ports it holds that conflict with a
    wanted one under NodePorts' own rule (a specific hostIP clashes only with the same IP or
    0.0.0.0): a pod on another IP of the same port is not in the way."""
    out: dict[str, tuple[Pod, list[HostPort]]] = {}
    for info in node.pods:
        clashing = _clashing(info, wanted)
        if clashing:
            out[info.pod.key] = (info.pod, clashing)
    return out


def _clashing(info: PodInfo, wanted: tuple[HostPort, ...]) -> list[HostPort]:
    return [held for held in dict.fromkeys(info.host_ports) if any(ports_conflict(w, held) for w in wanted)]
