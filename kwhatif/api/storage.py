"""Storage objects, read by the volume plugins (the volume plugins' Filters): claims, volumes, classes and
the CSI objects."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from kwhatif.api.affinity import NodeSelector
from kwhatif.api.meta import ClusterScoped, Evolving, Namespaced
from kwhatif.api.selectors import LabelSelector, Labels
from kwhatif.errors import Source


@dataclass(frozen=True, slots=True)
class ClaimRef:
    """A PersistentVolume's `spec.claimRef`: the claim it is bound (or pre-bound) to."""

    namespace: str
    name: str
    uid: str = ""


@dataclass(frozen=True, slots=True)
class PersistentVolumeClaim(Namespaced, Evolving):
    """A PVC. `storage_class_name` None means the field is unset (the DefaultStorageClass
    admission may fill it, core v1 defaults.go:SetDefaults_Pod); "" means "no class". `requested_storage` is
    `spec.resources.requests.storage` (None when absent). `controller_uid` is the uid of the
    controller ownerReference (generic ephemeral claims are controlled by their pod)."""

    namespace: str
    name: str
    uid: str = ""
    labels: Labels = field(default_factory=dict)
    annotations: Labels = field(default_factory=dict)
    creation_timestamp: str = ""
    deletion_timestamp: str | None = None
    controller_uid: str | None = None
    access_modes: tuple[str, ...] = ()
    storage_class_name: str | None = None
    volume_name: str = ""
    volume_mode: str | None = None
    requested_storage: Fraction | None = None
    selector: LabelSelector | None = None
    volume_attributes_class_name: str | None = None
    phase: str = ""
    source: Source | None = None


@dataclass(frozen=True, slots=True)
class PersistentVolume(ClusterScoped, Evolving):
    """A PV. `node_affinity` is `spec.nodeAffinity.required` (None when either is unset).
    `volume_source` names the populated source field (`csi`, `awsElasticBlockStore`, `local`...);
    `csi_driver`/`volume_id` are the CSI driver and handle, or for in-tree sources the disk
    identifier (EBS/Cinder/Portworx volumeID, GCE pdName, Azure diskURI)."""

    name: str
    labels: Labels = field(default_factory=dict)
    annotations: Labels = field(default_factory=dict)
    creation_timestamp: str = ""
    deletion_timestamp: str | None = None
    storage_class_name: str = ""
    capacity: Fraction | None = None
    access_modes: tuple[str, ...] = ()
    volume_mode: str | None = None
    claim_ref: ClaimRef | None = None
    node_affinity: NodeSelector | None = None
    volume_attributes_class_name: str | None = None
    volume_source: str = ""
    csi_driver: str = ""
    volume_id: str = ""
    phase: str = ""
    source: Source | None = None


@dataclass(frozen=True, slots=True)
class TopologySelectorRequirement:
    key: str
    values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class StorageClass(ClusterScoped):
    """A StorageClass. `volume_binding_mode` is defaulted to `Immediate` by the API server;
    `allowed_topologies` is a list of terms, each a list of `key In values` requirements."""

    name: str
    provisioner: str = ""
    volume_binding_mode: str = "Immediate"
    allowed_topologies: tuple[tuple[TopologySelectorRequirement, ...], ...] = ()
    is_default: bool = False
    creation_timestamp: str = ""
    source: Source | None = None


@dataclass(frozen=True, slots=True)
class CSINodeDriver:
    name: str
    allocatable_count: int | None = None


@dataclass(frozen=True, slots=True)
class CSINode(ClusterScoped):
    """A CSINode (same name as its node): per-driver attach limits and the in-tree plugins
    migrated on the node (`storage.alpha.kubernetes.io/migrated-plugins`)."""

    name: str
    drivers: tuple[CSINodeDriver, ...] = ()
    migrated_plugins: frozenset[str] = frozenset()
    source: Source | None = None


@dataclass(frozen=True, slots=True)
class CSIDriver(ClusterScoped):
    """A CSIDriver: `storageCapacity` says whether VolumeBinding checks CSIStorageCapacity
    objects before provisioning a claim of this driver."""

    name: str
    storage_capacity: bool = False
    attach_required: bool = True
    source: Source | None = None


@dataclass(frozen=True, slots=True)
class CSIStorageCapacity(Namespaced):
    """A CSIStorageCapacity (storage.k8s.io/v1): what a driver can still provision for one
    StorageClass to the nodes `node_topology` selects (None: no node). `capacity` and
    `maximum_volume_size` are None when unset."""

    namespace: str
    name: str
    storage_class_name: str
    node_topology: LabelSelector | None = None
    capacity: Fraction | None = None
    maximum_volume_size: Fraction | None = None
    source: Source | None = None


@dataclass(frozen=True, slots=True)
class VolumeAttachment(ClusterScoped):
    """A VolumeAttachment: the attach/detach controller attaching a volume to a node.
    `pv_name` is `spec.source.persistentVolumeName` (None for an inline volume spec)."""

    name: str
    attacher: str
    node_name: str
    pv_name: str | None = None
    source: Source | None = None
