"""NodeResourcesFit, InterPodAffinity and DynamicResources: add the fewest nodes like one that is
full, like one that anti-affinity keeps the pod off (a new node is a new hostname: one more
replica of a set spread one per node fits there), or like one whose devices are all taken (its
DRA drivers publish the same devices on the new node)."""

from __future__ import annotations

from typing import Any

from kwhatif.api.objects import Node, Pod, node_copies
from kwhatif.explain.pod import NodeVerdict
from kwhatif.explain.suggest.model import (
    DEVICES, FIT, INTERPOD, NodeOf, Rerun, Size, Suggestion, Variant, binds, quantity, rejected_alone,
)
from kwhatif.plugins.dynamic_resources.explain import taken
from kwhatif.plugins.inter_pod_affinity.filtering import ERR_REASON_ANTI_AFFINITY, ERR_REASON_EXISTING_ANTI_AFFINITY

MAX_NEW_NODES = 8  # add-node suggestions try 1, 2, 4, 8 nodes
_ANTI = {ERR_REASON_ANTI_AFFINITY, ERR_REASON_EXISTING_ANTI_AFFINITY}


def add_nodes(pod: Pod, verdicts: list[NodeVerdict], node_of: NodeOf, rerun: Rerun) -> list[Suggestion]:
    """The fewest nodes like the first (by name) that NodeResourcesFit alone rejects as full,
    not as too small (code Unschedulable: the pod fits the node empty) — or, with none, that
    InterPodAffinity alone rejects for anti-affinity (the re-run tells whether a new node is out
    of the way: a new hostname is, a zone the copies share is not), or DynamicResources alone
    (its devices taken: the copies come with the devices its drivers publish, `Variant.like`).
    Earlier pods of the queue may take the new nodes first, so 1, 2, 4... are tried, each by a
    re-run."""
    by_devices = sorted(v.node for v in rejected_alone(verdicts, DEVICES) if any(map(taken, v.insights.get(DEVICES, ()))))
    full = sorted(v.node for v in rejected_alone(verdicts, FIT) if v.code == "Unschedulable") or \
        sorted(v.node for v in rejected_alone(verdicts, INTERPOD) if set(v.reasons) & _ANTI) or by_devices
    if not full:
        return []
    template, names = node_of(full[0]).node, {v.node for v in verdicts}

    def tried(k: int) -> bool:
        return binds(rerun(Variant(pod, tuple(node_copies(template, k, names)), like=template.name)))
    count = 1
    while count <= MAX_NEW_NODES and not tried(count):
        count *= 2
    if count > MAX_NEW_NODES:
        return []
    # Between the last count that failed and the first that works, the smallest that works.
    count = next((k for k in range(count // 2 + 1, count) if tried(k)), count)
    added = node_copies(template, count, names)
    devices = " (its DRA drivers publishing the same devices there)" if full[0] in by_devices else ""
    summary = f"add {count} node(s) like {template.name}{devices}: the pod then fits"  # their names: in the changes
    return [Suggestion(summary, [{"op": "add", "object": node_manifest(n)} for n in added], size=Size.ADD_NODES)]


def node_manifest(node: Node) -> dict[str, Any]:
    """A Node as a manifest, with what scheduling reads: labels, taints, cordon, allocatable."""
    spec: dict[str, Any] = {}
    if node.unschedulable:
        spec["unschedulable"] = True
    if node.taints:
        spec["taints"] = [{k: v for k, v in (("key", t.key), ("value", t.value), ("effect", t.effect)) if v}
                          for t in node.taints]
    allocatable = {name: quantity(name, amount) for name, amount in sorted(node.allocatable.items())}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": node.name, "labels": dict(node.labels)},
            "spec": spec, "status": {"capacity": allocatable, "allocatable": dict(allocatable)}}
