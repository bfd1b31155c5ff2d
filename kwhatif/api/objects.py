"""Typed, frozen Kubernetes objects: only the fields that scheduling (and explaining it) needs.

Decoding from manifests lives in `kwhatif.load`; these types know no files. Each object keeps its
`Source` so explanations and errors can point back at the manifest.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Mapping

from kwhatif.api.selectors import LabelSelector, Labels, Requirement, map_matches
from kwhatif.errors import Source

ResourceList = Mapping[str, Fraction]



@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    value: str
    effect: str


@dataclass(frozen=True, slots=True)
class Toleration:
    key: str = ""
    operator: str = ""
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None

    def tolerates(self, taint: Taint) -> bool:
        """Reference §5.2: effect, key and (for Equal) value must agree; Exists ignores value."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator == "Exists":
            return True
        if self.operator in ("", "Equal"):
            return self.value == taint.value
        return False


def tolerates(tolerations: tuple[Toleration, ...], taint: Taint) -> bool:
    """Whether any toleration tolerates the taint."""
    for tol in tolerations:
        if tol.tolerates(taint):
            return True
    return False


def first_untolerated_taint(taints: tuple[Taint, ...], tolerations: tuple[Toleration, ...]) -> Taint | None:
    """The first NoSchedule/NoExecute taint no toleration tolerates (upstream's
    FindMatchingUntoleratedTaint with those two effects), or None."""
    for taint in taints:
        if taint.effect in ("NoSchedule", "NoExecute") and not tolerates(tolerations, taint):
            return taint
    return None


@dataclass(frozen=True, slots=True)
class NodeSelectorTerm:
    """One nodeSelectorTerm. `valid` is False when a requirement is malformed: such a term never
    matches (kube-scheduler drops it) while other terms are still evaluated."""

    match_expressions: tuple[Requirement, ...] = ()
    match_fields: tuple[Requirement, ...] = ()
    valid: bool = True

    @property
    def is_empty(self) -> bool:
        return not self.match_expressions and not self.match_fields

    def matches(self, labels: Labels, node_name: str) -> bool:
        """All expressions against the node labels and all fields against `metadata.name`."""
        if not self.valid or self.is_empty:
            return False
        for req in self.match_expressions:
            if not req.matches(labels):
                return False
        if self.match_fields:
            fields = {"metadata.name": node_name}
            for req in self.match_fields:
                if not req.matches(fields):
                    return False
        return True


@dataclass(frozen=True, slots=True)
class NodeSelector:
    """Required node affinity: the OR of its non-empty terms."""

    terms: tuple[NodeSelectorTerm, ...] = ()

    def matches(self, labels: Labels, node_name: str) -> bool:
        for term in self.terms:
            if term.matches(labels, node_name):
                return True
        return False


@dataclass(frozen=True, slots=True)
class RequiredNodeAffinity:
    """What a pod requires of a node (upstream `GetRequiredNodeAffinity`): its nodeSelector (only
    when non-empty) AND its required node affinity (when set). Used by NodeAffinity and by
    PodTopologySpread's nodeAffinityPolicy."""

    node_selector: Mapping[str, str] | None
    required: NodeSelector | None

    @classmethod
    def of(cls, pod: Pod) -> RequiredNodeAffinity:
        aff = pod.affinity.node_affinity if pod.affinity else None
        return cls(dict(pod.node_selector) if pod.node_selector else None, aff.required if aff else None)

    @property
    def is_empty(self) -> bool:
        return self.node_selector is None and self.required is None

    def matches(self, labels: Labels, node_name: str) -> bool:
        if self.node_selector is not None and not map_matches(self.node_selector, labels):
            return False
        return self.required is None or self.required.matches(labels, node_name)


@dataclass(frozen=True, slots=True)
class PreferredSchedulingTerm:
    weight: int
    term: NodeSelectorTerm


@dataclass(frozen=True, slots=True)
class NodeAffinity:
    required: NodeSelector | None = None
    preferred: tuple[PreferredSchedulingTerm, ...] | None = None


@dataclass(frozen=True, slots=True)
class PodAffinityTerm:
    label_selector: LabelSelector | None
    topology_key: str
    namespaces: tuple[str, ...] = ()
    namespace_selector: LabelSelector | None = None
    match_label_keys: tuple[str, ...] = ()
    mismatch_label_keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class WeightedPodAffinityTerm:
    weight: int
    term: PodAffinityTerm


@dataclass(frozen=True, slots=True)
class PodAffinityRules:
    """podAffinity or podAntiAffinity: required and preferred terms."""

    required: tuple[PodAffinityTerm, ...] = ()
    preferred: tuple[WeightedPodAffinityTerm, ...] = ()


@dataclass(frozen=True, slots=True)
class Affinity:
    node_affinity: NodeAffinity | None = None
    pod_affinity: PodAffinityRules | None = None
    pod_anti_affinity: PodAffinityRules | None = None


@dataclass(frozen=True, slots=True)
class TopologySpreadConstraint:
    max_skew: int
    topology_key: str
    when_unsatisfiable: str
    label_selector: LabelSelector | None = None
    min_domains: int | None = None
    node_affinity_policy: str | None = None
    node_taints_policy: str | None = None
    match_label_keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ContainerPort:
    container_port: int
    host_port: int = 0
    protocol: str = "TCP"
    host_ip: str = ""


@dataclass(frozen=True, slots=True)
class Container:
    name: str
    image: str = ""
    requests: ResourceList = field(default_factory=dict)
    limits: ResourceList = field(default_factory=dict)
    ports: tuple[ContainerPort, ...] = ()
    restart_policy: str | None = None

    @property
    def is_sidecar(self) -> bool:
        """An init container with restartPolicy Always runs for the pod's lifetime (§4.2)."""
        return self.restart_policy == "Always"


@dataclass(frozen=True, slots=True)
class ContainerStatusResources:
    """What the kubelet reports for a container's resources (in-place resize, §4.7)."""

    name: str
    requests: ResourceList | None = None
    allocated: ResourceList | None = None


@dataclass(frozen=True, slots=True)
class PodCondition:
    type: str
    status: str
    reason: str = ""


@dataclass(frozen=True, slots=True)
class OwnerReference:
    api_version: str
    kind: str
    name: str
    controller: bool = False


INLINE_DISK_IDS: dict[str, str] = {
    "gcePersistentDisk": "pdName", "awsElasticBlockStore": "volumeID", "iscsi": "iqn", "rbd": "image",
    "cinder": "volumeID", "azureDisk": "diskURI", "azureFile": "shareName", "vsphereVolume": "volumePath",
    "portworxVolume": "volumeID",
}
"""In-tree volume sources the volume plugins read (disk conflicts, attach limits), with the field
that identifies the disk."""

SCHEDULING_VOLUME_SOURCES = ("persistentVolumeClaim", "ephemeral", *INLINE_DISK_IDS)
"""The volume sources scheduling reads. A pod keeps only its volumes with one of them: the others
(projected service-account tokens, config maps, emptyDirs) differ from pod to pod by name and
change nothing."""


@dataclass(slots=True)
class Pod:
    """Treated as immutable (changed only through `evolve`), but not frozen: a frozen dataclass
    sets each of its 36 fields through object.__setattr__, 6 µs a pod instead of 1.5, a second
    on a dump of 150,000 pods."""

    namespace: str
    name: str
    uid: str = ""
    labels: Labels = field(default_factory=dict)
    annotations: Labels = field(default_factory=dict)
    creation_timestamp: str = ""
    deletion_timestamp: str | None = None
    owner_references: tuple[OwnerReference, ...] = ()
    node_name: str = ""
    scheduler_name: str = "default-scheduler"
    priority: int | None = None
    priority_class_name: str = ""
    preemption_policy: str | None = None
    runtime_class_name: str | None = None
    containers: tuple[Container, ...] = ()
    init_containers: tuple[Container, ...] = ()
    overhead: ResourceList | None = None
    pod_requests: ResourceList | None = None
    pod_limits: ResourceList | None = None
    node_selector: Labels | None = None
    affinity: Affinity | None = None
    tolerations: tuple[Toleration, ...] = ()
    topology_spread_constraints: tuple[TopologySpreadConstraint, ...] = ()
    scheduling_gates: tuple[str, ...] = ()
    host_network: bool = False
    volumes: tuple[Mapping, ...] = ()
    resource_claims: tuple[Mapping, ...] = ()
    phase: str = ""
    start_time: str | None = None
    nominated_node_name: str = ""
    conditions: tuple[PodCondition, ...] = ()
    container_statuses: tuple[ContainerStatusResources, ...] = ()
    init_container_statuses: tuple[ContainerStatusResources, ...] = ()
    source: Source | None = None

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def ref(self) -> str:
        """`Pod/namespace/name`, as errors and explanations name objects."""
        return f"Pod/{self.namespace}/{self.name}"

    @property
    def effective_priority(self) -> int:
        """The scheduler reads spec.priority; null counts as 0 (§3.1)."""
        return self.priority if self.priority is not None else 0

    @property
    def controller_ref(self) -> OwnerReference | None:
        for ref in self.owner_references:
            if ref.controller:
                return ref
        return None

    def evolve(self, **changes: object) -> Pod:
        """A copy with some fields changed (admission, binding, nomination)."""
        return replace(self, **changes)


@dataclass(frozen=True, slots=True)
class ImageState:
    names: tuple[str, ...]
    size_bytes: int


@dataclass(frozen=True, slots=True)
class Node:
    name: str
    labels: Labels = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    unschedulable: bool = False
    allocatable: ResourceList = field(default_factory=dict)
    images: tuple[ImageState, ...] = ()
    source: Source | None = None

    @property
    def ref(self) -> str:
        return f"Node/{self.name}"


@dataclass(frozen=True, slots=True)
class Namespace:
    name: str
    labels: Labels = field(default_factory=dict)
    source: Source | None = None


@dataclass(frozen=True, slots=True)
class PriorityClass:
    name: str
    value: int
    global_default: bool = False
    preemption_policy: str = "PreemptLowerPriority"
    source: Source | None = None


@dataclass(frozen=True, slots=True)
class RuntimeClass:
    name: str
    handler: str = ""
    overhead: ResourceList | None = None
    node_selector: Labels | None = None
    tolerations: tuple[Toleration, ...] = ()
    source: Source | None = None


@dataclass(frozen=True, slots=True)
class PodDisruptionBudget:
    namespace: str
    name: str
    selector: LabelSelector | None
    disruptions_allowed: int = 0
    disrupted_pods: frozenset[str] = frozenset()
    source: Source | None = None

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(frozen=True, slots=True)
class Service:
    namespace: str
    name: str
    selector: Labels | None = None
    source: Source | None = None


@dataclass(frozen=True, slots=True)
class Controller:
    """A ReplicaSet, StatefulSet or ReplicationController: only what default spreading reads.

    ReplicationControllers carry a plain map selector (`map_selector`), the apps/v1 kinds a
    LabelSelector (`selector`)."""

    kind: str
    namespace: str
    name: str
    selector: LabelSelector | None = None
    map_selector: Labels | None = None
    source: Source | None = None


@dataclass(frozen=True, slots=True)
class LimitRangeItem:
    type: str
    default: ResourceList = field(default_factory=dict)
    default_request: ResourceList = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class LimitRange:
    namespace: str
    name: str
    items: tuple[LimitRangeItem, ...] = ()
    source: Source | None = None


# Storage objects (read by the volume plugins, reference §5.7-5.10) -------------------------------


@dataclass(frozen=True, slots=True)
class ClaimRef:
    """A PersistentVolume's `spec.claimRef`: the claim it is bound (or pre-bound) to."""

    namespace: str
    name: str
    uid: str = ""


@dataclass(frozen=True, slots=True)
class PersistentVolumeClaim:
    """A PVC. `storage_class_name` None means the field is unset (the DefaultStorageClass
    admission may fill it, §10.5); "" means "no class". `requested_storage` is
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

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def ref(self) -> str:
        return f"PersistentVolumeClaim/{self.namespace}/{self.name}"

    def evolve(self, **changes: object) -> PersistentVolumeClaim:
        return replace(self, **changes)


@dataclass(frozen=True, slots=True)
class PersistentVolume:
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

    @property
    def ref(self) -> str:
        return f"PersistentVolume/{self.name}"

    def evolve(self, **changes: object) -> PersistentVolume:
        return replace(self, **changes)


@dataclass(frozen=True, slots=True)
class TopologySelectorRequirement:
    key: str
    values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class StorageClass:
    """A StorageClass. `volume_binding_mode` is defaulted to `Immediate` by the API server;
    `allowed_topologies` is a list of terms, each a list of `key In values` requirements."""

    name: str
    provisioner: str = ""
    volume_binding_mode: str = "Immediate"
    allowed_topologies: tuple[tuple[TopologySelectorRequirement, ...], ...] = ()
    is_default: bool = False
    creation_timestamp: str = ""
    source: Source | None = None

    @property
    def ref(self) -> str:
        return f"StorageClass/{self.name}"


@dataclass(frozen=True, slots=True)
class CSINodeDriver:
    name: str
    allocatable_count: int | None = None


@dataclass(frozen=True, slots=True)
class CSINode:
    """A CSINode (same name as its node): per-driver attach limits and the in-tree plugins
    migrated on the node (`storage.alpha.kubernetes.io/migrated-plugins`)."""

    name: str
    drivers: tuple[CSINodeDriver, ...] = ()
    migrated_plugins: frozenset[str] = frozenset()
    source: Source | None = None

    @property
    def ref(self) -> str:
        return f"CSINode/{self.name}"


@dataclass(frozen=True, slots=True)
class CSIDriver:
    """A CSIDriver: only `storageCapacity` matters to scheduling (CSIStorageCapacity objects are
    not modelled)."""

    name: str
    storage_capacity: bool = False
    attach_required: bool = True
    source: Source | None = None

    @property
    def ref(self) -> str:
        return f"CSIDriver/{self.name}"
