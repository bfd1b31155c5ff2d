"""NodePorts: delete (or move) the pods holding the host ports the pod wants."""

from __future__ import annotations

from kwhatif.api.objects import Pod
from kwhatif.explain.pod import NodeVerdict
from kwhatif.explain.suggest.model import (
    PORTS, Candidate, NodeOf, Size, Suggestion, Variant, comes_back, delete_change, rejected_alone,
)
from kwhatif.snapshot.pod_info import wanted_host_ports


def free_ports(pod: Pod, verdicts: list[NodeVerdict], node_of: NodeOf) -> list[Candidate]:
    """On the node NodePorts alone rejects with the fewest pods in the way (then the smallest
    name): delete the pods holding a host port the pod wants (or move them elsewhere) — never on
    a node where one holder would come back (a DaemonSet's, a static pod's mirror)."""
    wanted = {(protocol, port) for _ip, protocol, port in wanted_host_ports(pod)}
    best: tuple[int, str, list[Pod]] | None = None
    for v in rejected_alone(verdicts, PORTS):
        holders = [p.pod for p in node_of(v.node).pods
                   if any((protocol, port) in wanted for _ip, protocol, port in p.host_ports)]
        if any(map(comes_back, holders)):
            continue
        if holders and (best is None or (len(holders), v.node) < best[:2]):
            best = (len(holders), v.node, holders)
    if best is None:
        return []
    _, name, holders = best
    ports = ", ".join(f"{port}/{protocol}" for protocol, port in sorted(wanted))
    summary = (f"delete (or move) {', '.join(p.key for p in holders)} on {name}, holding host port(s) {ports} "
               "the pod wants")
    return [(Suggestion(summary, [delete_change(p) for p in holders], size=Size.DELETE_PODS),
             Variant(pod, removed=frozenset(p.key for p in holders)))]
