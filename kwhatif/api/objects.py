"""Typed, frozen Kubernetes objects: only the fields that scheduling (and explaining it) needs.

Here: pods (with their containers), nodes and the other core kinds. The pieces of a pod spec that
say where it may run are in `kwhatif.api.tolerations` and `kwhatif.api.affinity`, the storage kinds
in `kwhatif.api.storage`. Decoding from manifests lives in `kwhatif.load`; these types know no files. Each
object keeps its `Source` so explanations and errors can point back at the manifest.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Mapping

from kwhatif.api.affinity import Affinity, TopologySpreadConstraint
from kwhatif.api.meta import ClusterScoped, Evolving, Namespaced
from kwhatif.api.quota import Amount
from kwhatif.api.selectors import LabelSelector, Labels
from kwhatif.api.tolerations import Taint, Toleration
from kwhatif.errors import Source

ResourceList = Mapping[str, Fraction]


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
    settings: tuple[tuple[str, str], ...] | None = None
    """env, envFrom, command and args as digests by key (`kwhatif.api.settings`; None: unknown):
    read only to tell a changed template."""

    @property
    def is_sidecar(self) -> bool:
        """An init container with restartPolicy Always runs for the pod's lifetime (resource helpers.go:PodRequests)."""
        return self.restart_policy == "Always"


@dataclass(frozen=True, slots=True)
class ContainerStatusResources:
    """What the kubelet reports for a container's resources (in-place resize, resource helpers.go:PodRequests
    (UseStatusResources))."""

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
class Pod(Namespaced, Evolving):
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
    active_deadline_seconds: int | None = None  # only ResourceQuota's Terminating scopes read it
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
    resource_claim_statuses: tuple[tuple[str, str | None], ...] = ()
    """status.resourceClaimStatuses: per `spec.resourceClaims` entry made from a template, the
    claim the resourceclaim controller created for it (None: none is needed)."""
    ready_since: str = ""
    """The lastTransitionTime of its Ready=True condition ("" when not Ready or not said): the
    ReplicaSet controller deletes the replica Ready the shortest first (controller_utils.go
    podReadyTime)."""
    restarts: int = 0
    """The most restarts of one of its containers (maxContainerRestarts): the replica that restarts
    most is deleted first."""

    @property
    def effective_priority(self) -> int:
        """The scheduler reads spec.priority; null counts as 0 (helpers.go:PodPriority)."""
        return self.priority if self.priority is not None else 0

    @property
    def controller_ref(self) -> OwnerReference | None:
        for ref in self.owner_references:
            if ref.controller:
                return ref
        return None


@dataclass(frozen=True, slots=True)
class ImageState:
    names: tuple[str, ...]
    size_bytes: int


@dataclass(frozen=True, slots=True)
class Node(ClusterScoped):
    name: str
    labels: Labels = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    unschedulable: bool = False
    allocatable: ResourceList = field(default_factory=dict)
    images: tuple[ImageState, ...] = ()
    source: Source | None = None
    written: frozenset[str] = frozenset()
    """Which of `spec.taints` and `spec.unschedulable` the manifest names ("taints",
    "unschedulable"): applied over a node that runs, one it leaves out stays as it is
    (`kwhatif.load.applied`), one it names — even empty or false — is its own."""


HOSTNAME_LABEL = "kubernetes.io/hostname"


NODE_STATE_TAINT_PREFIX = "node.kubernetes.io/"
"""Taints the node lifecycle controller and the kubelet set for one node's state (cordoned,
not ready, unreachable, under pressure, out of service)."""
NODE_STATE_TAINTS = frozenset({
    "node.cloudprovider.kubernetes.io/uninitialized",  # the cloud controller, until it initialises the node
    "ToBeDeletedByClusterAutoscaler", "DeletionCandidateOfClusterAutoscaler",  # a node being scaled down
    "karpenter.sh/disrupted", "karpenter.sh/disruption",
})


def is_node_state_taint(taint: Taint) -> bool:
    """A taint about one node's state or lifecycle, not its pool's."""
    return taint.key.startswith(NODE_STATE_TAINT_PREFIX) or taint.key in NODE_STATE_TAINTS


CORDON_TAINT = Taint("node.kubernetes.io/unschedulable", "", "NoSchedule")
"""The taint the node lifecycle controller adds to a cordoned node (spec.unschedulable) and
removes with the cordon: a dump of a cordoned node shows both."""


def cordoned(node: Node) -> Node:
    taints = node.taints if CORDON_TAINT in node.taints else node.taints + (CORDON_TAINT,)
    return replace(node, unschedulable=True, taints=taints)


def uncordoned(node: Node) -> Node:
    """`kubectl uncordon`: spec.unschedulable cleared, and the cordon's taint gone with it."""
    return replace(node, unschedulable=False, taints=tuple(t for t in node.taints if t.key != CORDON_TAINT.key))


def node_copies(template: Node, count: int, taken: set[str]) -> list[Node]:
    """`count` nodes like `template`, named `<template>-1`, `-2`... (skipping taken names), each
    with its own kubernetes.io/hostname label and no images pulled yet: what adding nodes of a
    pool looks like. A new node joins schedulable and healthy: the template's cordon and its
    state taints (`is_node_state_taint`) are its own, not the pool's (`--drain X --add-node
    like:X` replaces X with a node that takes pods); the pool's taints stay."""
    out: list[Node] = []
    taints = tuple(t for t in template.taints if not is_node_state_taint(t))
    i = 0
    while len(out) < count:
        i += 1
        name = f"{template.name}-{i}"
        if name in taken:
            continue
        labels = {**template.labels, HOSTNAME_LABEL: name}
        out.append(replace(template, name=name, labels=labels, images=(), unschedulable=False, taints=taints))
    return out


@dataclass(frozen=True, slots=True)
class Namespace:
    name: str
    labels: Labels = field(default_factory=dict)
    source: Source | None = None
    terminating: bool = False
    """Being deleted (a deletionTimestamp, or status.phase Terminating): NamespaceLifecycle
    refuses anything new in it."""


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
class PodDisruptionBudget(Namespaced):
    """A PDB as preemption and drains read it: the disruption controller's count
    (`status.disruptionsAllowed`, 0 until counted: `counted`) and the spec it counted for.
    `surplus` is its currentHealthy − desiredHealthy, unclamped, which pods leaving or becoming
    healthy move (`kwhatif.load.disruption.health_changed`; None: taken at disruptions_allowed);
    `locked` a budget the controller allows nothing whatever the pods do (no pod expected, or a
    count that failed). `desired_healthy` and `unhealthy_pod_eviction_policy` decide whether the
    Eviction API lets a pod that is not Ready go without spending a disruption."""

    namespace: str
    name: str
    selector: LabelSelector | None
    disruptions_allowed: int = 0
    disrupted_pods: frozenset[str] = frozenset()
    source: Source | None = None
    min_available: int | str | None = None
    max_unavailable: int | str | None = None
    counted: bool = False
    surplus: int | None = None
    locked: bool = False
    desired_healthy: int | None = None
    unhealthy_pod_eviction_policy: str = "IfHealthyBudget"


@dataclass(frozen=True, slots=True)
class RejectedPod:
    """A Pod manifest the API server would refuse (`error`: its one line, naming the file, the
    object and the field): reported as such and never scheduled, while the rest of the run goes on
    (`kwhatif.engine.admit_queue` gives it a skipped result)."""

    namespace: str
    name: str
    error: str
    reason: str
    """The error without its file and object: what the pod's result says."""
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
class ApplyBase:
    """What `kubectl apply` of a manifest over a running workload merges with (strategicpatch
    CreateThreeWayMergePatch, `workloads.apply`): the object's spec as it runs and the spec its
    last client-side apply wrote (its `kubectl.kubernetes.io/last-applied-configuration`), as
    written — which fields each sets, not only their values, decides what the merge keeps."""

    live: Mapping[str, Any]
    applied: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Controller:
    """A ReplicaSet, StatefulSet or ReplicationController: what default spreading reads, and the
    replica counts a manifest applied without spec.replicas keeps (`workloads.existing`).

    ReplicationControllers carry a plain map selector (`map_selector`), the apps/v1 kinds a
    LabelSelector (`selector`)."""

    kind: str
    namespace: str
    name: str
    selector: LabelSelector | None = None
    map_selector: Labels | None = None
    source: Source | None = None
    replicas: int | None = None
    """spec.replicas, as the object that runs says (None: unset, or a manifest's)."""
    deployment_replicas: int | None = None
    """A Deployment's ReplicaSet: its `deployment.kubernetes.io/desired-replicas` annotation, the
    Deployment's spec.replicas when it last sized the set."""
    written_selector: Mapping[str, Any] | None = None
    """The selector as the object writes it (`selectors.written_form`): its immutability is
    judged on the form."""
    fixed: tuple[tuple[str, str], ...] = ()
    """A StatefulSet's other immutable spec fields scheduling's outcome can hang on, defaulted
    (`STATEFULSET_FIXED`): an update that changes one is refused."""
    template: Pod | None = None
    """Its pod template, as a pod of it (None: none to read, or one the pod decoder refuses): what
    its pods run that it lacks a webhook injected (and injects into new pods too); what it sets
    that a manifest's template does not, the manifest removes (`templates.drops_from`)."""
    owner: OwnerReference | None = None
    """Its controller (metadata.ownerReferences, controller: true): a Deployment's ReplicaSet's
    Deployment, whose pod template is the one a fix for the set's pods changes."""
    apply_base: ApplyBase | None = None
    """Its spec and its last client-side apply's, as written (None: no such apply said): what
    `kubectl apply` of a manifest makes of it (`workloads.apply`)."""
    spec: Mapping[str, Any] | None = None
    """A StatefulSet's spec as it runs (`TemplateOwner.spec`; None for the other kinds)."""


@dataclass(frozen=True, slots=True)
class RunningJob:
    """A Job of the snapshot, as its controller sees it: what `check` needs to update it — the
    spec fields an update may not change, and its progress (job_controller.go syncJob reads
    status.succeeded, completedIndexes and failedIndexes, not the pods, which may be gone)."""

    namespace: str
    name: str
    completions: int | None
    parallelism: int
    indexed: bool
    succeeded: int = 0
    completed_indexes: frozenset[int] = frozenset()
    failed_indexes: frozenset[int] = frozenset()
    terminating: int = 0
    finished: bool = False
    """The Job controller manages its pods no more (syncJob): a Complete, Failed, FailureTarget
    or SuccessCriteriaMet condition, a deletion under way, or another controller's (managedBy)."""
    replace_failed_only: bool = False
    """Terminating pods are waited for before they are replaced (onlyReplaceFailedPods:
    podReplacementPolicy Failed, or a podFailurePolicy)."""
    immutable: tuple[tuple[str, str], ...] = ()
    """Other spec fields an update may not change (ValidateJobSpecUpdate), as (field, canonical
    JSON) for those set: podFailurePolicy, backoffLimitPerIndex."""
    source: Source | None = None
    owner: OwnerReference | None = None
    """Its controller (a CronJob's Job: the CronJob), as a ReplicaSet's (`Controller.owner`)."""
    failures_left: int | None = None
    """The pod failures it takes before it fails (spec.backoffLimit, 6 by default, less
    status.failed): a pod deleted counts as one (job_controller.go isPodFailed), and once they are
    more the Job fails (BackoffLimitExceeded) and makes no pod. None when a podFailurePolicy or
    backoffLimitPerIndex decides instead."""


DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas"


@dataclass(frozen=True, slots=True)
class TemplateOwner(Namespaced):
    """A Deployment or CronJob of the snapshot. Its scheduling is all in what it made (the
    ReplicaSets or Jobs, and their pods, are read); kwhatif keeps only that it exists, for a fix
    to its pods goes to its pod template — the object users edit, whose controller makes the
    pods again from it."""

    kind: str
    namespace: str
    name: str
    source: Source | None = None
    template: Pod | None = None
    """A Deployment's pod template as a pod (`Controller.template`): the one its ReplicaSets'
    are compared with, there when they are not."""
    apply_base: ApplyBase | None = None
    """Its spec and its last apply's, as written (`Controller.apply_base`)."""
    spec: Mapping[str, Any] | None = None
    """A Deployment's spec as it runs: the workload a HorizontalPodAutoscaler of a check's files
    rescales when the files do not bring it (`workloads.autoscaled_targets`)."""


@dataclass(frozen=True, slots=True)
class DaemonSet(Namespaced):
    """A DaemonSet of the snapshot, kept as its manifest (`manifest`): its pods are in the snapshot
    already; what it is kept for is the pod it would create on each node a what-if adds
    (`kwhatif.whatif.daemons`, through the workload expansion), as its controller would — the
    per-node overhead (CNI, kube-proxy, log and metrics agents) that a capacity question must
    not forget."""

    namespace: str
    name: str
    manifest: Mapping[str, object]
    source: Source | None = None
    template: Pod | None = None
    """Its pod template as a pod (`Controller.template`)."""
    apply_base: ApplyBase | None = None
    """Its spec and its last apply's, as written (`Controller.apply_base`)."""


@dataclass(frozen=True, slots=True)
class Autoscaler(Namespaced):
    """A HorizontalPodAutoscaler of the snapshot, kept as its manifest: the replicas it imposes on
    its target decide over a workload manifest's own when `check` or `capacity` is given the
    target (an HPA usually lives apart from the Deployment a pull request changes); one of the
    files for the same target decides over it."""

    namespace: str
    name: str
    manifest: Mapping[str, object]
    source: Source | None = None


@dataclass(frozen=True, slots=True)
class LimitRangeItem:
    """One `spec.limits` entry, defaulted as the API server defaults it (a Container item's
    default limit from its max, its default request from its default limit, then its min).
    `min`, `max`, `max_limit_request_ratio`: each quantity with the format it was written in,
    as the LimitRanger's refusals print it."""

    type: str
    default: ResourceList = field(default_factory=dict)
    default_request: ResourceList = field(default_factory=dict)
    min: Mapping[str, Amount] = field(default_factory=dict)
    max: Mapping[str, Amount] = field(default_factory=dict)
    max_limit_request_ratio: Mapping[str, Amount] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class LimitRange:
    namespace: str
    name: str
    items: tuple[LimitRangeItem, ...] = ()
    source: Source | None = None
