"""The scheduler's view of the cluster: node infos in node order plus cluster-wide indexes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Protocol

from kwhatif.api.objects import Node, Pod
from kwhatif.memory import collector_paused
from kwhatif.api.cluster import Cluster
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.groups import PodGroups
from kwhatif.snapshot.table import NodeTable

REGION_LABELS = ("failure-domain.beta.kubernetes.io/region", "topology.kubernetes.io/region")
ZONE_LABELS = ("failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone")


def label_read(node: Node, keys: tuple[str, ...]) -> str | None:
    """Which of `keys` GetZoneKey reads: a beta label wins over the GA one when present, even
    if empty (node_tree.go:nodeTree.list); None when the node has neither."""
    return next((key for key in keys if key in node.labels), None)


def region_and_zone(node: Node) -> tuple[str, str]:
    """component-helpers' GetZoneKey in two parts: a zone's name is unique only within its
    region ("" where the node has no such label)."""
    region, zone = label_read(node, REGION_LABELS), label_read(node, ZONE_LABELS)
    return (node.labels[region] if region else "", node.labels[zone] if zone else "")


def zone_key(node: Node) -> str:
    region, zone = region_and_zone(node)
    return "" if not region and not zone else f"{region}:\x00:{zone}"


def node_order(nodes: list[Node]) -> list[Node]:
    """Round-robin across zones, nodes inserted in name order, as the scheduler's node tree
    lists them after an informer start-up (node_tree.go:nodeTree.list)."""
    zones: dict[str, list[Node]] = {}
    for node in sorted(nodes, key=lambda n: n.name):
        zones.setdefault(zone_key(node), []).append(node)
    ordered: list[Node] = []
    columns = list(zones.values())
    for i in range(max((len(c) for c in columns), default=0)):
        ordered.extend(c[i] for c in columns if i < len(c))
    return ordered


@dataclass(frozen=True, slots=True)
class ImageSummary:
    size: int
    num_nodes: int


def image_summaries(nodes: list[Node]) -> dict[str, ImageSummary]:
    """Per image name: the size reported by the first node by name (the cache order) and how many
    nodes list it (image_locality.go:Score)."""
    sizes: dict[str, int] = {}
    counts: dict[str, int] = {}
    for node in sorted(nodes, key=lambda n: n.name):
        seen: set[str] = set()
        for image in node.images:
            for name in image.names:
                sizes.setdefault(name, image.size_bytes)
                if name not in seen:
                    seen.add(name)
                    counts[name] = counts.get(name, 0) + 1
    return {name: ImageSummary(sizes[name], counts[name]) for name in sizes}


Change = tuple[int, PodInfo, str, int]
"""(+1 assumed / -1 forgotten, the pod, its node, the slot it left on the node or -1)."""


class Restorable(Protocol):
    def save(self) -> object: ...

    def restore(self, state: object) -> None: ...


@dataclass(frozen=True)
class Mark:
    """A moment of a snapshot: its history then, and the saved state of what was attached."""

    changes: tuple[Change, ...]
    saved: tuple[tuple[Restorable, object], ...]


@dataclass
class Snapshot:
    """Node infos plus the objects plugins consult (namespaces, services, controllers, PDBs).

    `assume` / `forget` keep the bound-pod index and node aggregates in step, so the next pod
    sees the previous placement (schedule_one.go:ScheduleOne)."""

    cluster: Cluster
    node_infos: list[NodeInfo]
    by_name: dict[str, NodeInfo]
    images: dict[str, ImageSummary]
    table: NodeTable
    groups: PodGroups
    placed: dict[str, str] = field(default_factory=dict)
    pod_infos: dict[str, PodInfo] = field(default_factory=dict)
    generation: int = 0
    journal: list[tuple[int, PodInfo, int]] = field(default_factory=list)
    """(+1 or -1, pod, node row) for every assume/forget after the build, in order: indexes that
    plugins keep over the bound pods replay it to stay current (undone changes included)."""
    history: list[Change] = field(default_factory=list)
    """The changes since the build that `restore` can undo: undone ones leave it."""
    attached: list[tuple[Restorable, object]] = field(default_factory=list)
    lent_to: Snapshot | None = None
    """The snapshot derived from this one that shares its NodeInfos now (see `derive`)."""
    derived_from: Snapshot | None = None

    @classmethod
    def build(cls, cluster: Cluster, bound: list[Pod], for_the_run: bool = False) -> Snapshot:
        """`for_the_run`: the snapshot lives as long as the process (`kwhatif.memory`)."""
        with collector_paused(for_the_run):  # see kwhatif.memory
            infos = [NodeInfo.of(n) for n in node_order(cluster.nodes)]
            snap = cls(cluster, infos, {i.name: i for i in infos}, image_summaries(cluster.nodes), NodeTable(infos),
                       PodGroups(len(infos)))
            snap._put_built(bound, {})
            return snap

    def _put_built(self, pods: list[Pod], reuse: Mapping[str, PodInfo]) -> None:
        """Bound pods onto their nodes, in order, as part of what the snapshot is built with (no
        history, no journal); the PodInfo in `reuse` of the very same Pod is taken as it is."""
        rows: set[int] = set()
        by_name, index, placed, pod_infos, groups = self.by_name, self.table.index, self.placed, self.pod_infos, self.groups
        for pod in pods:
            key, node_name = pod.key, pod.node_name
            info = reuse.get(key) if reuse else None
            if info is None or info.pod is not pod:
                info = PodInfo.of(pod)
            by_name[node_name].add_pod(info)
            placed[key] = node_name
            pod_infos[key] = info
            row = index[node_name]
            groups.change(info, row, 1)
            rows.add(row)
        for row in rows:
            self.table.refresh(row)

    def derive(self, cluster: Cluster, bound: list[Pod]) -> Snapshot:
        """The snapshot of `cluster` with its `bound` pods (admitted, on its nodes), made from this
        one instead of from nothing — a scenario of the same loaded cluster (nodes lost, added or
        changed, pods deleted). A node of both, the same Node object with the very same pods,
        keeps its NodeInfo, shared with its pods and aggregates; any other is built afresh with
        its pods in input order, as `build` would. Only what is indexed by node row is made
        again. Sharing means one at a time: deriving again releases the previous derived
        snapshot (`release`), and this one must not schedule while one is lent."""
        if self.lent_to is not None:
            self.lent_to.release()
        with collector_paused():  # see kwhatif.memory
            snap = self._derived(cluster, bound, self._nodes_with_other_pods(bound))
        self.lent_to, snap.derived_from = snap, self
        return snap

    def _nodes_with_other_pods(self, bound: list[Pod]) -> set[str]:
        """The nodes whose pods in `bound` are not exactly this snapshot's: found from the pods
        only one side has (by identity), so that a scenario that changes a few pods costs a few
        set operations over 150,000, not a comparison node by node."""
        here = {id(info.pod): key for key, info in self.pod_infos.items()}
        there = {id(pod): pod for pod in bound}
        nodes = {self.placed[key] for pod_id, key in here.items() if pod_id not in there}
        nodes.update(pod.node_name for pod_id, pod in there.items() if pod_id not in here)
        return nodes

    def _derived(self, cluster: Cluster, bound: list[Pod], other_pods: set[str]) -> Snapshot:
        """The derived snapshot's structures: NodeInfos shared or built afresh in the scenario's
        node order, the pod groups renumbered (`rows[old row]` is the new row, -1 for a node not
        shared), the placements of the shared nodes copied, the fresh nodes' pods put on. A node
        is shared when it is the same Node object with the same pods (not in `other_pods`)."""
        infos: list[NodeInfo] = []
        rows = [-1] * len(self.node_infos)
        fresh: set[str] = set()
        for node in node_order(cluster.nodes):
            info = self.by_name.get(node.name)
            if info is not None and info.node is node and node.name not in other_pods:
                rows[self.table.index[node.name]] = len(infos)
            else:
                info = NodeInfo.of(node)
                fresh.add(node.name)
            infos.append(info)
        snap = Snapshot(cluster, infos, {i.name: i for i in infos}, image_summaries(cluster.nodes), NodeTable(infos),
                        self.groups.remapped(rows, len(infos)))
        shared = {info.name for info in infos if info is self.by_name.get(info.name)}
        snap.placed = {key: name for key, name in self.placed.items() if name in shared}
        snap.pod_infos = {key: self.pod_infos[key] for key in snap.placed}
        snap._put_built([pod for pod in bound if pod.node_name in fresh], self.pod_infos)
        return snap

    def release(self) -> None:
        """A derived snapshot gives its shared NodeInfos back as it found them (every change it
        made undone, pods back in their slots); it is not to be used afterwards."""
        source = self.derived_from
        if source is None or source.lent_to is not self:
            return
        self.restore(Mark((), ()))
        source.lent_to = None

    @property
    def num_nodes(self) -> int:
        return len(self.node_infos)

    def assume(self, info: PodInfo, node_name: str) -> None:
        """Add a pod to a node (binding a pending pod)."""
        self._place(info, node_name, None)
        self.history.append((1, info, node_name, -1))

    def forget(self, key: str) -> PodInfo | None:
        """Remove a bound pod (preemption victim); returns it."""
        node_name = self.placed.get(key)
        if node_name is None:
            return None
        taken = self._unplace(key, node_name)
        if taken is None:
            return None
        self.history.append((-1, taken[0], node_name, taken[1]))
        return taken[0]

    # What-ifs: back and forth between marks --------------------------------------------------
    def attach(self, holder: Restorable) -> None:
        """Register state a plugin derives from this snapshot and changes while scheduling (the
        volume bindings of Reserve), so that `restore` takes it back too. Its state now is what a
        mark taken before it existed restores: nothing had changed it yet."""
        self.attached.append((holder, holder.save()))

    def mark(self) -> Mark:
        """This moment, to come back to with `restore` (before or after it)."""
        return Mark(tuple(self.history), tuple((holder, holder.save()) for holder, _ in self.attached))

    def restore(self, mark: Mark) -> None:
        """Back (or forward) to `mark`: the changes made since the history both share are undone
        in reverse, then the mark's own later changes done again. Undoing is exact — a pod goes
        back to its slot — so a scenario replayed from a mark decides as it did the first time."""
        common = 0
        limit = min(len(self.history), len(mark.changes))
        while common < limit and self.history[common] is mark.changes[common]:
            common += 1
        while len(self.history) > common:
            delta, info, node_name, slot = self.history.pop()
            if delta > 0:
                self._unplace(info.key, node_name)
            else:
                self._place(info, node_name, slot)
        for change in mark.changes[common:]:
            delta, info, node_name, _slot = change
            if delta > 0:
                self._place(info, node_name, None)
            else:
                self._unplace(info.key, node_name)
            self.history.append(change)
        saved = {id(holder): state for holder, state in mark.saved}
        for holder, initial in self.attached:
            holder.restore(saved.get(id(holder), initial))

    def _place(self, info: PodInfo, node_name: str, slot: int | None) -> None:
        """A pod onto a node: appended, or back into the slot `take_pod` reported."""
        node = self.by_name[node_name]
        if slot is None:
            node.add_pod(info)
        else:
            node.put_back(info, slot)
        self.placed[info.key] = node_name
        self.pod_infos[info.key] = info
        self._changed(info, node_name, 1)

    def _unplace(self, key: str, node_name: str) -> tuple[PodInfo, int] | None:
        self.placed.pop(key, None)
        self.pod_infos.pop(key, None)
        taken = self.by_name[node_name].take_pod(key)
        if taken is not None:
            self._changed(taken[0], node_name, -1)
        else:
            self.generation += 1
            self.table.refresh(self.table.index[node_name])
        return taken

    def _changed(self, info: PodInfo, node_name: str, delta: int) -> None:
        row = self.table.index[node_name]
        self.table.refresh(row)
        self.groups.change(info, row, delta)
        self.journal.append((delta, info, row))
        self.generation += 1
