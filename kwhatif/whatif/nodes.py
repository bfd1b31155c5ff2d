"""Node operations: cordon, uncordon, taint, untaint, label, remove, add.

A cordon sets spec.unschedulable, which the NodeUnschedulable plugin reads; the node lifecycle
controller then adds the `node.kubernetes.io/unschedulable:NoSchedule` taint, and a dump of a
cordoned node shows both (samples/cluster.yaml). kwhatif's cordon sets both and its uncordon
removes both, as `explain`'s "uncordon" suggestion does (`kwhatif.api.objects.cordoned`,
`uncordoned`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from kwhatif.api.cluster import Cluster
from kwhatif.api.dra import ResourceSlice
from kwhatif.api.names import is_qualified_name, is_valid_label_value
from kwhatif.api.objects import Node, Pod, node_copies
from kwhatif.api.tolerations import Taint
from kwhatif.errors import InputError
from kwhatif.whatif.daemons import daemon_pods

EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def parse_taint(text: str) -> Taint:
    """`key=value:Effect` or `key:Effect`, as `kubectl taint` reads it."""
    spec, sep, effect = text.rpartition(":")
    if not sep or effect not in EFFECTS:
        raise InputError(f"--taint {text}: expected key=value:Effect with Effect one of {', '.join(EFFECTS)}")
    key, _, value = spec.partition("=")
    check_label(key, value, f"--taint {text}")
    return Taint(key, value, effect)


def tainted(node: Node, taint: Taint) -> Node:
    """The taint added, replacing one with the same key and effect (kubectl taint --overwrite)."""
    kept = tuple(t for t in node.taints if (t.key, t.effect) != (taint.key, taint.effect))
    return replace(node, taints=kept + (taint,))


def untainted(node: Node, text: str) -> Node:
    """`key` removes every taint with that key, `key:Effect` only that one (kubectl taint key-)."""
    key, _, effect = text.partition(":")
    if effect and effect not in EFFECTS:
        raise InputError(f"--untaint {node.name} {text}: Effect must be one of {', '.join(EFFECTS)}")
    kept = tuple(t for t in node.taints if t.key != key or (effect and t.effect != effect))
    return replace(node, taints=kept)


def check_label(key: str, value: str, where: str) -> None:
    errors = is_qualified_name(key) + is_valid_label_value(value)
    if errors:
        raise InputError(f"{where}: {errors[0]}")


def labelled(node: Node, text: str) -> Node:
    """`key=value` sets the label, `key-` removes it (kubectl label)."""
    if text.endswith("-") and "=" not in text:
        labels = {k: v for k, v in node.labels.items() if k != text[:-1]}
    else:
        key, sep, value = text.partition("=")
        if not sep:
            raise InputError(f"--label {node.name} {text}: expected key=value or key-")
        check_label(key, value, f"--label {node.name} {text}")
        labels = {**node.labels, key: value}
    return replace(node, labels=labels)


def drop_node_objects(cluster: Cluster, names: set[str]) -> None:
    """The nodes and what exists only because of them (their CSINodes) gone; their pods are the
    caller's."""
    cluster.nodes = [n for n in cluster.nodes if n.name not in names]
    for name in names:
        cluster.csi_nodes.pop(name, None)


def add_nodes(cluster: Cluster, template: Node, count: int, now: str) -> tuple[list[Node], list[Pod]]:
    """`count` nodes like `template` with fresh names (`api.objects.node_copies`), appended, with
    the pods the snapshot's DaemonSets create on them (`daemons.daemon_pods`) and, copies of a
    node of the cluster, its CSINode (the kubelet of a node of the same kind registers the same
    drivers and attach limits) and its own ResourceSlices (its DRA drivers publish the same
    devices: `_slice_copy`). (nodes, pods)."""
    added = node_copies(template, count, {n.name for n in cluster.nodes})
    of_cluster = template in cluster.nodes
    csi_node = cluster.csi_nodes.get(template.name) if of_cluster else None
    copies = copied_slices(cluster, template.name, added) if of_cluster else []
    cluster.nodes.extend(added)
    if csi_node is not None:
        cluster.csi_nodes.update((n.name, replace(csi_node, name=n.name, source=None)) for n in added)
    cluster.resource_slices.update((c.name, c) for c in copies)
    return added, daemon_pods(cluster, added, now)


def copied_slices(cluster: Cluster, like: str, added: Sequence[Node]) -> list[ResourceSlice]:
    """The node-local ResourceSlices of node `like`, as its drivers publish them on each node of
    `added` (`_slice_copy`)."""
    slices = [s for s in cluster.resource_slices.values() if s.node_name == like]
    return [_slice_copy(s, like, node.name) for node in added for s in slices]


def _slice_copy(original: ResourceSlice, old: str, new: str) -> ResourceSlice:
    """A node-local ResourceSlice as the same driver publishes it on the new node: for that
    node, its name and pool naming the new node where they named the old one (drivers name a
    node's pool after it), else suffixed with it — a pool is one node's."""
    def renamed(text: str) -> str:
        return text.replace(old, new) if old in text else f"{text}-{new}"
    return replace(original, name=renamed(original.name), pool=renamed(original.pool), node_name=new, source=None)
