"""The storage objects as the volume plugins' listers see them, and each pod's volumes parsed once.

`storage_of(snapshot)` is the per-simulation view of PVCs, PVs, StorageClasses, CSINodes and
CSIDrivers (kube-scheduler's informer caches plus VolumeBinding's assume cache). It is built from
`snapshot.cluster` on first use and belongs to that snapshot: VolumeBinding's Reserve records in it
that a claim is now bound to a PV, or that its volume will be provisioned on a node, so later pods
of the same run see it; the loaded `Cluster` itself is never changed.

API defaulting applied here (core v1 defaults.go:SetDefaults_Pod): an unbound PVC whose `storageClassName` is
unset gets the default StorageClass (annotation `storageclass.kubernetes.io/is-default-class: "true"`; with
several, the newest, then the smallest name), as the DefaultStorageClass admission plugin and the PV
controller's retroactive assignment do.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kwhatif.api.objects import INLINE_DISK_IDS
from kwhatif.api.storage import (
    ClaimRef, CSIDriver, CSINode, CSIStorageCapacity, PersistentVolume, PersistentVolumeClaim, StorageClass,
    VolumeAttachment,
)
from kwhatif.snapshot.cache import for_snapshot
from kwhatif.snapshot.pod_info import PodInfo

if TYPE_CHECKING:
    from kwhatif.api.cluster import Cluster
    from kwhatif.snapshot.snapshot import Snapshot

ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
ANN_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"
READ_WRITE_ONCE_POD = "ReadWriteOncePod"

# In-tree volume sources that VolumeRestrictions checks for disk conflicts (volume_restrictions.go:Filter).
CONFLICT_SOURCES = ("gcePersistentDisk", "awsElasticBlockStore", "rbd", "iscsi")
# In-tree inline volume sources csi-translation-lib can migrate (IsInlineMigratable).
MIGRATABLE_SOURCES = ("gcePersistentDisk", "awsElasticBlockStore", "cinder", "azureDisk", "azureFile",
                      "vsphereVolume", "portworxVolume")


# Messages of the listers' NotFound errors (apierrors.NewNotFound(...).Error()).
def pvc_not_found(name: str) -> str:
    return f'persistentvolumeclaim "{name}" not found'


def pv_not_found(name: str) -> str:
    return f'persistentvolume "{name}" not found'


def class_not_found(name: str) -> str:
    return f'storageclass.storage.k8s.io "{name}" not found'


def claim_class(pvc: PersistentVolumeClaim) -> str:
    """GetPersistentVolumeClaimClass: the beta annotation wins over `spec.storageClassName`."""
    if ANN_BETA_STORAGE_CLASS in pvc.annotations:
        return pvc.annotations[ANN_BETA_STORAGE_CLASS]
    return pvc.storage_class_name or ""


def volume_class(pv: PersistentVolume) -> str:
    """GetPersistentVolumeClass: the beta annotation wins over `spec.storageClassName`."""
    if ANN_BETA_STORAGE_CLASS in pv.annotations:
        return pv.annotations[ANN_BETA_STORAGE_CLASS]
    return pv.storage_class_name


def is_fully_bound(pvc: PersistentVolumeClaim) -> bool:
    """A claim is bound when `spec.volumeName` is set and the PV controller finished (volume_binding.go:Filter)."""
    return bool(pvc.volume_name) and ANN_BIND_COMPLETED in pvc.annotations


# Each pod's volumes, parsed once ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InlineDisk:
    """An in-tree volume source written in the pod: its kind (the source field), the identifier
    that names the disk (pdName, volumeID, iqn, RBD image, diskURI...), and what conflict checks
    read (readOnly, RBD pool and monitors)."""

    kind: str
    ident: str
    read_only: bool = False
    pool: str = ""
    monitors: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class VolumeRef:
    """One pod volume that some volume plugin looks at. `kind` is `pvc`, `ephemeral` or the
    in-tree source field; `claim` the PVC name (`<pod>-<volume>` for a generic ephemeral volume)."""

    name: str
    kind: str
    claim: str = ""
    disk: InlineDisk | None = None


@dataclass(frozen=True, slots=True)
class PodVolumes:
    refs: tuple[VolumeRef, ...] = ()
    uses_claims: bool = False
    conflict_disks: tuple[InlineDisk, ...] = ()
    migratable: bool = False
    has_volumes: bool = False


NO_VOLUMES = PodVolumes()
_DERIVED_KEY = "volumes"


def _str(raw: Mapping, key: str) -> str:
    value = raw.get(key)
    return value if isinstance(value, str) else ""


def _inline_disk(kind: str, raw: Any) -> InlineDisk:
    raw = raw if isinstance(raw, dict) else {}
    monitors = raw.get("monitors") if kind == "rbd" else None
    return InlineDisk(
        kind=kind, ident=_str(raw, INLINE_DISK_IDS[kind]), read_only=raw.get("readOnly") is True,
        pool=(_str(raw, "pool") or "rbd") if kind == "rbd" else "",  # API default pool "rbd"
        monitors=frozenset(m for m in monitors if isinstance(m, str)) if isinstance(monitors, list) else frozenset(),
    )


def _parse(info: PodInfo) -> PodVolumes:
    pod = info.pod
    if not pod.volumes:
        return NO_VOLUMES
    refs: list[VolumeRef] = []
    claims = iter(info.pvc_names)  # one per persistentVolumeClaim volume, in order
    for volume in pod.volumes:
        if not isinstance(volume, dict):
            continue
        name = _str(volume, "name")
        if volume.get("persistentVolumeClaim") is not None:
            refs.append(VolumeRef(name, "pvc", next(claims)))
        elif volume.get("ephemeral") is not None:
            refs.append(VolumeRef(name, "ephemeral", f"{pod.name}-{name}"))  # ephemeral.VolumeClaimName
        else:
            kind = next((k for k in INLINE_DISK_IDS if volume.get(k) is not None), None)
            if kind is not None:
                refs.append(VolumeRef(name, kind, disk=_inline_disk(kind, volume[kind])))
    return PodVolumes(
        refs=tuple(refs), uses_claims=any(r.kind in ("pvc", "ephemeral") for r in refs),
        conflict_disks=tuple(r.disk for r in refs if r.disk is not None and r.kind in CONFLICT_SOURCES),
        migratable=any(r.kind in MIGRATABLE_SOURCES for r in refs), has_volumes=True,
    )


def pod_volumes(info: PodInfo) -> PodVolumes:
    """The pod's volumes as the volume plugins read them, cached in `PodInfo.derived`."""
    cached = info.derived.get(_DERIVED_KEY)
    if cached is not None and cached[0] is info.pod:
        return cached[1]
    parsed = _parse(info)
    info.derived[_DERIVED_KEY] = (info.pod, parsed)
    return parsed


def is_pvc_used_by_pods(snapshot: Snapshot, key: str) -> bool:
    """StorageInfos().IsPVCUsedByPods: some pod on a node of the snapshot uses `namespace/claim`."""
    for node in snapshot.node_infos:
        if key in node.pvc_ref_counts:
            return True
    return False


# The storage view -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Reservation:
    """What VolumeBinding's Reserve decided for one claim of a placed pod."""

    claim: str                # namespace/name
    node: str
    volume: str = ""          # the PV the claim is bound to (static binding)
    provisioner: str = ""     # dynamic provisioning: the StorageClass provisioner
    storage_class: str = ""

    def describe(self) -> str:
        if self.volume:
            return f"PersistentVolumeClaim {self.claim} would be bound to PersistentVolume {self.volume}"
        return (f"PersistentVolumeClaim {self.claim} would get a new volume provisioned by {self.provisioner} "
                f"(StorageClass {self.storage_class}) for node {self.node}")


def default_class(classes: Mapping[str, StorageClass]) -> StorageClass | None:
    """GetDefaultClass: among default classes, the newest; equal timestamps by name."""
    defaults = [c for c in classes.values() if c.is_default]
    if not defaults:
        return None
    newest = max(c.creation_timestamp for c in defaults)
    return min((c for c in defaults if c.creation_timestamp == newest), key=lambda c: c.name)


def with_default_class(pvc: PersistentVolumeClaim, default: StorageClass | None) -> PersistentVolumeClaim:
    """The claim with the default StorageClass when it names none (spec unset, no beta
    annotation) and is not bound: what DefaultStorageClass admission and the PV controller's
    retroactive assignment give it."""
    if (default is not None and pvc.storage_class_name is None and not pvc.volume_name
            and ANN_BETA_STORAGE_CLASS not in pvc.annotations):
        return pvc.evolve(storage_class_name=default.name)
    return pvc


def _by_class(capacities: list[CSIStorageCapacity]) -> dict[str, list[CSIStorageCapacity]]:
    out: dict[str, list[CSIStorageCapacity]] = {}
    for capacity in capacities:
        out.setdefault(capacity.storage_class_name, []).append(capacity)
    return out


def _by_node(attachments: Mapping[str, VolumeAttachment]) -> dict[str, list[VolumeAttachment]]:
    """The `va.spec.nodename` index NodeVolumeLimits looks attachments up by."""
    out: dict[str, list[VolumeAttachment]] = {}
    for name in sorted(attachments):
        out.setdefault(attachments[name].node_name, []).append(attachments[name])
    return out


class StorageIndex:
    """Lookups by name, PVs by class, and the bindings assumed by Reserve (`generation` counts
    changes, so caches derived from claims and volumes can tell they are stale). CSIStorageCapacity
    objects are indexed by StorageClass and VolumeAttachments by node: neither changes during a run
    (the scheduler does not write them)."""

    def __init__(self, cluster: Cluster) -> None:
        self.classes: Mapping[str, StorageClass] = cluster.storage_classes
        self.csi_nodes: Mapping[str, CSINode] = cluster.csi_nodes
        self.csi_drivers: Mapping[str, CSIDriver] = cluster.csi_drivers
        self.capacities_by_class = _by_class(cluster.csi_storage_capacities)
        self.attachments_by_node = _by_node(cluster.volume_attachments)
        self.pvs: dict[str, PersistentVolume] = dict(cluster.pvs)
        default = default_class(cluster.storage_classes)
        self.pvcs: dict[tuple[str, str], PersistentVolumeClaim] = {
            key: with_default_class(pvc, default) for key, pvc in cluster.pvcs.items()}
        self._by_class: dict[str, list[PersistentVolume]] | None = None
        self._claimable: dict[str, tuple[list[PersistentVolume], dict[tuple[str, str], list[PersistentVolume]]]] = {}
        self.reservations: dict[str, list[Reservation]] = {}
        self.generation = 0

    def pvc(self, namespace: str, name: str) -> PersistentVolumeClaim | None:
        return self.pvcs.get((namespace, name))

    def pv(self, name: str) -> PersistentVolume | None:
        return self.pvs.get(name)

    def pvs_of_class(self, class_name: str) -> list[PersistentVolume]:
        """pvCache.ListPVs(class): in name order (the informer's order is not defined)."""
        if self._by_class is None:
            by_class: dict[str, list[PersistentVolume]] = {}
            for pv in sorted(self.pvs.values(), key=lambda v: v.name):
                by_class.setdefault(volume_class(pv), []).append(pv)
            self._by_class = by_class
        return self._by_class.get(class_name, [])

    def claimable_pvs(self, class_name: str, namespace: str, name: str) -> list[PersistentVolume]:
        """The PVs of `pvs_of_class` a claim can possibly match, in the same order: Available ones
        without claimRef and those whose claimRef names this claim (FindMatchingVolume skips any
        other), so that matching need not walk every bound PV of the class."""
        entry = self._claimable.get(class_name)
        if entry is None:
            unclaimed: list[PersistentVolume] = []
            by_ref: dict[tuple[str, str], list[PersistentVolume]] = {}
            for pv in self.pvs_of_class(class_name):
                if pv.claim_ref is None:
                    if pv.phase == "Available":
                        unclaimed.append(pv)
                else:
                    by_ref.setdefault((pv.claim_ref.namespace, pv.claim_ref.name), []).append(pv)
            entry = self._claimable[class_name] = (unclaimed, by_ref)
        unclaimed, by_ref = entry
        prebound = by_ref.get((namespace, name))
        if not prebound:
            return unclaimed
        return sorted(unclaimed + prebound, key=lambda v: v.name)

    # Reserve --------------------------------------------------------------------------------
    def bind(self, pod_key: str, node: str, pvc: PersistentVolumeClaim, pv: PersistentVolume) -> None:
        """Static binding: the PV now points at the claim and the claim is bound to the PV, as
        the PV controller completes it after PreBind."""
        annotations = dict(pv.annotations)
        annotations[ANN_BOUND_BY_CONTROLLER] = "yes"
        self.pvs[pv.name] = pv.evolve(claim_ref=ClaimRef(pvc.namespace, pvc.name, pvc.uid),
                                      annotations=annotations, phase="Bound")
        claim_annotations = dict(pvc.annotations)
        claim_annotations[ANN_BIND_COMPLETED] = "yes"
        self.pvcs[(pvc.namespace, pvc.name)] = pvc.evolve(volume_name=pv.name, annotations=claim_annotations,
                                                           phase="Bound")
        self._by_class = None
        self._claimable.clear()
        self._record(pod_key, Reservation(pvc.key, node, volume=pv.name))

    def select_node(self, pod_key: str, node: str, pvc: PersistentVolumeClaim, provisioner: str) -> None:
        """Dynamic provisioning: the claim gets the selected-node annotation (the provisioner
        will create its volume for that node)."""
        annotations = dict(pvc.annotations)
        annotations[ANN_SELECTED_NODE] = node
        self.pvcs[(pvc.namespace, pvc.name)] = pvc.evolve(annotations=annotations)
        self._record(pod_key, Reservation(pvc.key, node, provisioner=provisioner,
                                          storage_class=claim_class(pvc)))

    def _record(self, pod_key: str, reservation: Reservation) -> None:
        self.reservations.setdefault(pod_key, []).append(reservation)
        self.generation += 1

    # Snapshot marks (Snapshot.attach): what Reserve bound is taken back with the pods ----------
    def save(self) -> object:
        return StorageState(self.generation, dict(self.pvs), dict(self.pvcs),
                            {key: tuple(found) for key, found in self.reservations.items()})

    def restore(self, state: object) -> None:
        """Back to a saved state; the generation only grows, so no cache keyed by it is served
        a state it was not built for."""
        assert isinstance(state, StorageState)
        if state.generation == self.generation:
            return  # nothing reserved since
        self.pvs, self.pvcs = dict(state.pvs), dict(state.pvcs)
        self.reservations = {key: list(found) for key, found in state.reservations.items()}
        self._by_class = None
        self._claimable.clear()
        self.generation += 1


@dataclass(frozen=True)
class StorageState:
    generation: int
    pvs: dict[str, PersistentVolume]
    pvcs: dict[tuple[str, str], PersistentVolumeClaim]
    reservations: dict[str, tuple[Reservation, ...]]


_INDEXES: dict[int, Any] = {}


def storage_of(snapshot: Snapshot) -> StorageIndex:
    """The storage view of this snapshot (built on first use, dropped with the snapshot); one per
    snapshot, shared by every volume plugin (Reserve's bindings are seen by the others)."""
    return for_snapshot(_INDEXES, id(snapshot), snapshot, lambda: _attached(snapshot), drop_with_snapshot=True)


def _attached(snapshot: Snapshot) -> StorageIndex:
    index = StorageIndex(snapshot.cluster)
    snapshot.attach(index)
    return index
