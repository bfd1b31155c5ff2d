"""VolumeRestrictions (volume_restrictions.go:Filter): in-tree disk conflicts with the pods on the node, and
ReadWriteOncePod claims already in use anywhere in the cluster.

PreFilter looks up every `persistentVolumeClaim` volume (a missing claim is
`persistentvolumeclaim "<claim>" not found`, U&U — this plugin reports it before VolumeBinding)
and counts how many of the pod's ReadWriteOncePod claims some scheduled pod already uses. It skips
when the pod has no GCE PD / AWS EBS / RBD / iSCSI volume and no such conflict. AddPod/RemovePod
keep the count right for nominated pods and preemption victims.

Filter: a disk conflict with any pod on the node → `node(s) had no available disk` (U); otherwise a
positive count → the ReadWriteOncePod reason (U) on every node, so removing the holder by
preemption can help.
"""

from __future__ import annotations

from dataclasses import dataclass

from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.interfaces import (
    FilterPlugin,
    NodeExplainer,
    PreFilterExtensions,
    PreFilterPlugin,
    PreFilterResult,
)
from kwhatif.framework.status import SKIP, Code, Status, unresolvable
from kwhatif.plugins.volume_binding.storage import (
    READ_WRITE_ONCE_POD,
    InlineDisk,
    is_pvc_used_by_pods,
    pod_volumes,
    pvc_not_found,
    storage_of,
)
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.text import listed

NAME = "VolumeRestrictions"
PRE_FILTER_KEY = "PreFilter" + NAME
HOLDERS_KEY = "Holders" + NAME
ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"
ERR_REASON_RWOP_CONFLICT = ("node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode "
                            "already in-use by another pod")


@dataclass(slots=True)
class PreFilterState:
    """The pod's ReadWriteOncePod claim names and how many references scheduled pods hold."""

    rwop_claims: frozenset[str]
    conflicting_ref_count: int

    def clone(self) -> PreFilterState:
        return PreFilterState(self.rwop_claims, self.conflicting_ref_count)

    def update_with_pod(self, info: PodInfo, sign: int) -> None:
        if self.rwop_claims:
            # conflictingPVCRefCountForPod matches claim names only, whatever the pod's namespace
            self.conflicting_ref_count += sign * sum(
                1 for name in info.pvc_names if name in self.rwop_claims)


def is_volume_conflict(disk: InlineDisk, other: InlineDisk) -> bool:
    """Same GCE PD unless both read-only; same EBS volume; same iSCSI IQN unless both read-only;
    RBD images sharing a monitor, pool and image unless both read-only."""
    if disk.kind != other.kind:
        return False
    both_read_only = disk.read_only and other.read_only
    if disk.kind == "awsElasticBlockStore":
        return disk.ident == other.ident
    if disk.kind in ("gcePersistentDisk", "iscsi"):
        return disk.ident == other.ident and not both_read_only
    if disk.kind == "rbd":
        return (bool(disk.monitors & other.monitors) and disk.pool == other.pool and disk.ident == other.ident
                and not both_read_only)
    return False


def satisfies_volume_conflicts(disks: tuple[InlineDisk, ...], node: NodeInfo) -> bool:
    for disk in disks:
        for existing in node.pods:
            for other in pod_volumes(existing).conflict_disks:
                if is_volume_conflict(disk, other):
                    return False
    return True


class VolumeRestrictions(PreFilterPlugin, FilterPlugin, PreFilterExtensions, NodeExplainer):
    name = NAME
    reads_node_pods = True

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        volumes = pod_volumes(pod)
        if not pod.pvc_names and not volumes.conflict_disks:
            return None, SKIP
        rwop: set[str] = set()
        if pod.pvc_names:
            storage = storage_of(self.handle.snapshot)
            for claim in pod.pvc_names:
                pvc = storage.pvc(pod.pod.namespace, claim)
                if pvc is None:
                    return None, unresolvable(pvc_not_found(claim))
                if READ_WRITE_ONCE_POD in pvc.access_modes:
                    rwop.add(pvc.name)
        conflicts = 0
        for claim in rwop:
            if is_pvc_used_by_pods(self.handle.snapshot, f"{pod.pod.namespace}/{claim}"):
                conflicts += 1  # at most one pod can hold a ReadWriteOncePod claim
        if not volumes.conflict_disks and conflicts == 0:
            return None, SKIP
        state.write(PRE_FILTER_KEY, PreFilterState(frozenset(rwop), conflicts))
        return None, None

    def pre_filter_extensions(self) -> PreFilterExtensions:
        return self

    def add_pod(self, state: CycleState, pod: PodInfo, to_add: PodInfo, node: NodeInfo) -> Status | None:
        return self._update(state, to_add, 1)

    def remove_pod(self, state: CycleState, pod: PodInfo, to_remove: PodInfo, node: NodeInfo) -> Status | None:
        return self._update(state, to_remove, -1)

    def _update(self, state: CycleState, info: PodInfo, sign: int) -> Status | None:
        s = state.get(PRE_FILTER_KEY)
        if s is None:
            return Status(Code.ERROR, (f'cannot read "{PRE_FILTER_KEY}" from cycleState',))
        s.update_with_pod(info, sign)
        return None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        disks = pod_volumes(pod).conflict_disks
        if disks and not satisfies_volume_conflicts(disks, node):
            return Status(Code.UNSCHEDULABLE, (ERR_REASON_DISK_CONFLICT,))
        s = state.get(PRE_FILTER_KEY)
        if s is None:
            return Status(Code.ERROR, (f'cannot read "{PRE_FILTER_KEY}" from cycleState',))
        if s.conflicting_ref_count > 0:
            return Status(Code.UNSCHEDULABLE, (ERR_REASON_RWOP_CONFLICT,))
        return None

    def explain_node(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> list[str]:
        """kwhatif's sentences: which pods on the node hold a conflicting disk, and whether a
        ReadWriteOncePod claim of the pod is held elsewhere."""
        out = []
        for disk in pod_volumes(pod).conflict_disks:
            holders = sorted(p.key for p in node.pods
                             if any(is_volume_conflict(disk, o) for o in pod_volumes(p).conflict_disks))
            if holders:
                out.append(f"{disk.kind} {disk.ident!r} is already used by {', '.join(holders)}")
        s = state.get(PRE_FILTER_KEY)
        if s is not None and s.conflicting_ref_count > 0:
            holders = self._rwop_holders(state, pod, s)
            out.append(f"ReadWriteOncePod claim(s) {', '.join(sorted(s.rwop_claims))} already in use by "
                       + (listed(holders) if holders else "another pod")
                       + " (at most one pod may use such a claim: the other has to go first)")
        return out

    def _rwop_holders(self, state: CycleState, pod: PodInfo, s: PreFilterState) -> list[str]:
        """The pods (namespace/name on node) holding the pod's ReadWriteOncePod claims, found
        once per attempt (an explanation asks for every rejected node)."""
        found = state.get(HOLDERS_KEY)
        if found is None:
            wanted = {f"{pod.pod.namespace}/{claim}" for claim in s.rwop_claims}
            found = sorted(f"{p.key} on {node.name}" for node in self.handle.snapshot.node_infos
                           if wanted & node.pvc_ref_counts.keys()
                           for p in node.pods if p.pod.namespace == pod.pod.namespace
                           and set(p.pvc_names) & s.rwop_claims)
            state.write(HOLDERS_KEY, found)
        return list(found)
