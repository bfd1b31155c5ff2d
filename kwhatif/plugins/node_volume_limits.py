"""NodeVolumeLimits (csi.go:CSILimits.Filter, `nodevolumelimits/csi.go`): CSI attach limits from CSINode.

The pod's attachable volumes are its claims (PVC and generic ephemeral) resolved to a CSI driver
and volume handle, plus inline in-tree volumes migrated to CSI (`kubernetes.io/aws-ebs` →
`ebs.csi.aws.com`, `kubernetes.io/gce-pd` → `pd.csi.storage.gke.io`, ...). A claim is resolved
through its PV (`spec.csi`, or an in-tree source translated when migration is on for the node),
or, when unbound or its PV is missing, through its StorageClass provisioner with a handle unique to
the claim. Volumes already used by pods on the node are counted once; per driver, when
`attached + new > spec.drivers[].allocatable.count` of the node's CSINode the node is rejected with
`node(s) exceed max volume count` (U). Nodes without a CSINode or without limits pass.

CSI migration is on for a node when it has a CSINode (AWS EBS, GCE PD, Azure Disk, Cinder), or,
for Portworx, when the CSINode lists the plugin in `storage.alpha.kubernetes.io/migrated-plugins`.

The volumes VolumeAttachments attach to the node (CSI PVs only, by attacher and volume handle)
count as attached too, once with the pods' volumes (getNodeVolumeAttachmentInfo); only the pods'
volumes, not the attachments, make a volume of the new pod not new. Per pod, the new volumes are
resolved once per kind of CSINode (none, with or without Portworx migration); the volumes of each
existing pod are cached until a binding changes.
"""

from __future__ import annotations

from typing import Any

from kwhatif.api.storage import CSINode, PersistentVolumeClaim, VolumeAttachment
from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.interfaces import (
    FilterPlugin,
    Handle,
    NodeExplainer,
    PreFilterPlugin,
    PreFilterResult,
)
from kwhatif.framework.status import SKIP, Code, Status
from kwhatif.plugins.volume_binding.storage import (
    InlineDisk,
    StorageIndex,
    claim_class,
    pod_volumes,
    pvc_not_found,
    storage_of,
)
from kwhatif.plugins.volume_binding.translation import (
    AWS_EBS,
    AZURE_DISK,
    CINDER,
    CSI_DRIVER_OF,
    GCE_PD,
    PLUGIN_OF_SOURCE,
    PORTWORX,
    UNSPECIFIED,
    TranslationError,
    ebs_volume_id,
    pv_handle,
)
from kwhatif.snapshot.cache import for_snapshot
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.text import listed

NAME = "NodeVolumeLimits"
PRE_FILTER_KEY = "PreFilter" + NAME
ERR_REASON_MAX_VOLUME_COUNT = "node(s) exceed max volume count"
UNBOUND_VOLUME_PREFIX = "kwhatif-unbound"  # upstream: a random prefix per plugin instance

VolumeMap = dict[str, str]  # "<driver>/<handle>" -> driver


class LimitsError(Exception):
    """A failure that is not a rejection; `not_found` marks the NotFound errors (U&U)."""

    def __init__(self, message: str, not_found: bool = False) -> None:
        super().__init__(message)
        self.not_found = not_found


def is_csi_migration_on(csi_node: CSINode | None, plugin: str) -> bool:
    """isCSIMigrationOn (v1.34): needs a CSINode; GA migrations need nothing more; Portworx
    needs the plugin in the migrated-plugins annotation; others are not migrated here."""
    if csi_node is None or not plugin:
        return False
    if plugin in (AWS_EBS, GCE_PD, AZURE_DISK, CINDER):
        return True
    if plugin == PORTWORX:
        return plugin in csi_node.migrated_plugins
    return False


def inline_handle(disk: InlineDisk) -> str:
    """TranslateInTreeInlineVolumeToCSI's volume handle."""
    if disk.kind == "awsElasticBlockStore":
        return ebs_volume_id(disk.ident)
    if disk.kind == "gcePersistentDisk":
        return f"projects/{UNSPECIFIED}/zones/{UNSPECIFIED}/disks/{disk.ident}"
    return disk.ident


class _Resolver:
    """filterAttachableVolumes for one kind of CSINode."""

    def __init__(self, storage: StorageIndex, csi_node: CSINode | None) -> None:
        self.storage = storage
        self.csi_node = csi_node

    def pod_volumes(self, info: PodInfo, new_pod: bool, result: VolumeMap) -> None:
        namespace = info.pod.namespace
        for ref in pod_volumes(info).refs:
            if ref.kind not in ("pvc", "ephemeral"):
                if ref.disk is not None:
                    self._inline(ref.disk, ref.name, result)
                continue
            if not ref.claim:
                raise LimitsError("PersistentVolumeClaim had no name")
            pvc = self.storage.pvc(namespace, ref.claim)
            if pvc is None:
                if new_pod:
                    raise LimitsError(f"looking up PVC {namespace}/{ref.claim}: {pvc_not_found(ref.claim)}", True)
                continue  # an existing pod's missing claim is not counted
            if ref.kind == "ephemeral" and not (pvc.controller_uid is not None and pvc.controller_uid == info.pod.uid):
                raise LimitsError(f"PVC {pvc.namespace}/{pvc.name} was not created for pod "
                                  f"{info.pod.namespace}/{info.pod.name} (pod is not owner)")
            driver, handle = self._claim(pvc)
            if driver and handle:
                result[f"{driver}/{handle}"] = driver

    def _inline(self, disk: InlineDisk, volume_name: str, result: VolumeMap) -> None:
        plugin = PLUGIN_OF_SOURCE.get(disk.kind)
        if plugin is None or not is_csi_migration_on(self.csi_node, plugin):
            return
        try:
            handle = inline_handle(disk)
        except TranslationError as err:
            raise LimitsError(f"converting volume({volume_name}) from inline to csi: "
                              f"failed to translate Kubernetes ID to EBS Volume ID {err}") from None
        driver = CSI_DRIVER_OF[plugin]
        result[f"{driver}/{handle}"] = driver

    def _claim(self, pvc: PersistentVolumeClaim) -> tuple[str, str]:
        """getCSIDriverInfo: from the bound PV, else from the StorageClass."""
        if not pvc.volume_name:
            return self._from_class(pvc)
        pv = self.storage.pv(pvc.volume_name)
        if pv is None:
            return self._from_class(pvc)
        if pv.volume_source == "csi":
            return pv.csi_driver, pv.volume_id
        plugin = PLUGIN_OF_SOURCE.get(pv.volume_source)
        if plugin is None or not is_csi_migration_on(self.csi_node, plugin):
            return "", ""
        try:
            return CSI_DRIVER_OF[plugin], pv_handle(pv)
        except TranslationError:
            return "", ""

    def _from_class(self, pvc: PersistentVolumeClaim) -> tuple[str, str]:
        """getCSIDriverInfoFromSC: the provisioner (translated when in-tree) and a handle unique
        to the claim."""
        class_name = claim_class(pvc)
        sc = self.storage.classes.get(class_name) if class_name else None
        if sc is None:
            return "", ""
        handle = f"{UNBOUND_VOLUME_PREFIX}-{pvc.namespace}/{pvc.name}"
        provisioner = sc.provisioner
        if provisioner in CSI_DRIVER_OF:
            if not is_csi_migration_on(self.csi_node, provisioner):
                return "", ""
            return CSI_DRIVER_OF[provisioner], handle
        return provisioner, handle


def _variant(csi_node: CSINode | None) -> tuple[bool, bool]:
    """What the resolution depends on: whether there is a CSINode and whether Portworx is migrated."""
    return csi_node is not None, csi_node is not None and PORTWORX in csi_node.migrated_plugins


def attachment_volumes(storage: StorageIndex, node_name: str) -> VolumeMap:
    """getNodeVolumeAttachmentInfo: the CSI volumes VolumeAttachments attach to the node, by
    `<attacher>/<PV volume handle>`."""
    return {unique: attachment.attacher for unique, attachment in node_attachments(storage, node_name)}


def node_attachments(storage: StorageIndex, node_name: str) -> list[tuple[str, VolumeAttachment]]:
    """The node's VolumeAttachments of CSI volumes, each with its volume's `<attacher>/<handle>`;
    one without attacher or PV name, or whose PV is missing or not a CSI PV, is skipped."""
    out = []
    for attachment in storage.attachments_by_node.get(node_name, ()):
        if not attachment.attacher or attachment.pv_name is None:
            continue
        pv = storage.pv(attachment.pv_name)
        if pv is not None and pv.volume_source == "csi":
            out.append((f"{attachment.attacher}/{pv.volume_id}", attachment))
    return out


def volume_limits(csi_node: CSINode | None) -> dict[str, int]:
    """getVolumeLimits: driver -> allocatable count, from the CSINode only."""
    if csi_node is None:
        return {}
    return {d.name: d.allocatable_count for d in csi_node.drivers if d.allocatable_count is not None}


class NodeVolumeLimits(PreFilterPlugin, FilterPlugin, NodeExplainer):
    name = NAME
    reads_node_pods = True

    def __init__(self, args: object, handle: Handle) -> None:
        super().__init__(args, handle)
        # Per snapshot (`for_snapshot`): node name -> (key, attached volumes, attached count per
        # driver) for the snapshot's own node infos; copies made by preemption are recomputed.
        self._holder: dict[str, Any] = {}

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        volumes = pod_volumes(pod)
        if not volumes.uses_claims and not volumes.migratable:
            return None, SKIP
        state.write(PRE_FILTER_KEY, {})  # the pod's new volumes per CSINode variant, filled lazily
        return None, None

    def _new_volumes(self, state: CycleState, pod: PodInfo, storage: StorageIndex,
                     csi_node: CSINode | None) -> VolumeMap | LimitsError:
        cache = state.get(PRE_FILTER_KEY)
        variant = _variant(csi_node)
        if cache is not None and variant in cache:
            return cache[variant]
        result: VolumeMap = {}
        try:
            _Resolver(storage, csi_node).pod_volumes(pod, True, result)
        except LimitsError as err:
            value: VolumeMap | LimitsError = err
        else:
            value = result
        if cache is not None:
            cache[variant] = value
        return value

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        if not pod_volumes(pod).has_volumes:
            return None
        storage = storage_of(self.handle.snapshot)
        csi_node = storage.csi_nodes.get(node.name)
        new = self._new_volumes(state, pod, storage, csi_node)
        if isinstance(new, LimitsError):
            code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE if new.not_found else Code.ERROR
            return Status(code, (str(new),))
        if not new:
            return None
        limits = volume_limits(csi_node)
        if not limits:
            return None
        try:
            attached, counts = self._attached(node, storage, csi_node)
        except LimitsError as err:
            return Status(Code.ERROR, (str(err),))
        for driver, (used, want) in _counts(new, attached, counts).items():
            if want and driver in limits and used + want > limits[driver]:
                return Status(Code.UNSCHEDULABLE, (ERR_REASON_MAX_VOLUME_COUNT,))
        return None

    def _attached(self, node: NodeInfo, storage: StorageIndex, csi_node: CSINode | None
                  ) -> tuple[VolumeMap, dict[str, int]]:
        """The volumes the node's pods use, and the count per driver of those plus the volumes
        VolumeAttachments attach to the node that no pod there uses; cached per node until its
        pods, the storage view or the CSINode variant change."""
        snapshot = self.handle.snapshot
        live = snapshot.by_name.get(node.name) is node
        key = (storage.generation, _variant(csi_node), node.generation)
        nodes: dict[str, tuple[tuple, VolumeMap, dict[str, int]]] = for_snapshot(self._holder, "nodes", snapshot, dict)
        if live:
            cached = nodes.get(node.name)
            if cached is not None and cached[0] == key:
                return cached[1], cached[2]
        attached: VolumeMap = {}
        for existing in node.pods:
            attached.update(self._existing_volumes(existing, storage, csi_node))
        counts: dict[str, int] = {}
        for driver in attached.values():
            counts[driver] = counts.get(driver, 0) + 1
        for unique, driver in attachment_volumes(storage, node.name).items():
            if unique not in attached:  # a volume both a pod and an attachment hold counts once
                counts[driver] = counts.get(driver, 0) + 1
        if live:
            nodes[node.name] = (key, attached, counts)
        return attached, counts

    def _existing_volumes(self, info: PodInfo, storage: StorageIndex, csi_node: CSINode | None) -> VolumeMap:
        """An existing pod's attachable volumes, cached on its PodInfo for the snapshot, per
        CSINode variant and storage generation (one entry: the last one asked for)."""
        if not pod_volumes(info).refs:
            return {}
        key = (storage.generation, _variant(csi_node))
        slot: dict[tuple, VolumeMap] = for_snapshot(info.derived, NAME, self.handle.snapshot, dict)
        cached = slot.get(key)
        if cached is not None:
            return cached
        result: VolumeMap = {}
        _Resolver(storage, csi_node).pod_volumes(info, False, result)
        slot.clear()
        slot[key] = result
        return result

    def explain_node(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> list[str]:
        """kwhatif's sentences: per driver, volumes attached, new and the limit — and, when the
        limit is reached, what holds the slots (the pods, the VolumeAttachments no pod there
        uses): what to delete, move or detach."""
        storage = storage_of(self.handle.snapshot)
        csi_node = storage.csi_nodes.get(node.name)
        new = self._new_volumes(state, pod, storage, csi_node)
        limits = volume_limits(csi_node)
        if isinstance(new, LimitsError) or not new or not limits:
            return []
        try:
            attached, counts = self._attached(node, storage, csi_node)
        except LimitsError:
            return []
        out = []
        for driver, (used, want) in sorted(_counts(new, attached, counts).items()):
            if driver not in limits:
                continue
            said = f"{driver}: {used} attached + {want} new, limit {limits[driver]}"
            if used + want > limits[driver]:
                said += f" (held by {listed(self._slot_holders(node, storage, csi_node, driver, attached))})"
            out.append(said)
        return out

    def _slot_holders(self, node: NodeInfo, storage: StorageIndex, csi_node: CSINode | None, driver: str,
                      attached: VolumeMap) -> list[str]:
        """The pods of the node using a volume of `driver`, then the VolumeAttachments attaching
        one no pod there uses."""
        pods = sorted(f"pod {p.key}" for p in node.pods
                      if driver in self._existing_volumes(p, storage, csi_node).values())
        attachments = sorted(f"VolumeAttachment {a.name}" for unique, a in node_attachments(storage, node.name)
                             if a.attacher == driver and unique not in attached)
        return pods + attachments


def _counts(new: VolumeMap, attached: VolumeMap, attached_counts: dict[str, int]) -> dict[str, tuple[int, int]]:
    """Per driver of the new volumes: (volumes attached, volumes new to the node) — a volume the
    node already uses is not counted again."""
    wanted: dict[str, int] = {}
    for unique, driver in new.items():
        if unique not in attached:
            wanted[driver] = wanted.get(driver, 0) + 1
    return {driver: (attached_counts.get(driver, 0), n) for driver, n in wanted.items()}
