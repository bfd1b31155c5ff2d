"""The objects of a loaded cluster, as plain typed collections (before any scheduling)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Mapping

from kwhatif.api.dra import DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice
from kwhatif.api.objects import (
    ApplyBase, Autoscaler, Controller, DaemonSet, LimitRange, Namespace, Node, Pod, PodDisruptionBudget, PriorityClass, RejectedPod,
    RunningJob, RuntimeClass, Service, TemplateOwner,
)
from kwhatif.api.quota import ResourceQuota
from kwhatif.api.storage import (
    CSIDriver, CSINode, CSIStorageCapacity, PersistentVolume, PersistentVolumeClaim, StorageClass, VolumeAttachment,
)


@dataclass
class Cluster:
    """Everything read from the input. Pods keep input order (it breaks queue-order ties)."""

    nodes: list[Node] = field(default_factory=list)
    pods: list[Pod] = field(default_factory=list)
    namespaces: dict[str, Namespace] = field(default_factory=dict)
    priority_classes: dict[str, PriorityClass] = field(default_factory=dict)
    runtime_classes: dict[str, RuntimeClass] = field(default_factory=dict)
    pdbs: list[PodDisruptionBudget] = field(default_factory=list)
    services: list[Service] = field(default_factory=list)
    controllers: dict[tuple[str, str, str], Controller] = field(default_factory=dict)
    jobs: dict[tuple[str, str], RunningJob] = field(default_factory=dict)  # (namespace, name)
    daemonsets: dict[tuple[str, str], DaemonSet] = field(default_factory=dict)  # (namespace, name)
    template_owners: dict[tuple[str, str, str], TemplateOwner] = field(default_factory=dict)  # (kind, ns, name)
    autoscalers: dict[tuple[str, str], Autoscaler] = field(default_factory=dict)  # (namespace, name)
    limit_ranges: list[LimitRange] = field(default_factory=list)
    resource_quotas: list[ResourceQuota] = field(default_factory=list)
    pvcs: dict[tuple[str, str], PersistentVolumeClaim] = field(default_factory=dict)  # (namespace, name)
    pvs: dict[str, PersistentVolume] = field(default_factory=dict)
    storage_classes: dict[str, StorageClass] = field(default_factory=dict)
    csi_nodes: dict[str, CSINode] = field(default_factory=dict)
    csi_drivers: dict[str, CSIDriver] = field(default_factory=dict)
    csi_storage_capacities: list[CSIStorageCapacity] = field(default_factory=list)
    volume_attachments: dict[str, VolumeAttachment] = field(default_factory=dict)
    device_classes: dict[str, DeviceClass] = field(default_factory=dict)
    resource_slices: dict[str, ResourceSlice] = field(default_factory=dict)
    resource_claims: dict[tuple[str, str], ResourceClaim] = field(default_factory=dict)  # (namespace, name)
    claim_templates: dict[tuple[str, str], ResourceClaimTemplate] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    rejected_pods: list[RejectedPod] = field(default_factory=list)
    drain_bound: dict[str, str] = field(default_factory=dict)
    """Pods a drain's wait bound, when no operation follows it (pod key → node, in the order they
    were bound): pending, nominated there, and scheduled before the rest of the queue whatever
    their priority — they ran before the drain evicted and recreated the pods after them
    (`whatif.ops.DrainLedger.nominate`)."""
    removed_nodes: list[Node] = field(default_factory=list)
    """Nodes a what-if removed (`--remove-node`): `--add-node like:NODE` may still name one —
    "this node is lost: how many like it must be added?"."""

    def template_of(self, pod: Pod) -> Pod | None:
        """The pod template of the pod's controller in the snapshot (its ReplicaSet's,
        StatefulSet's, ReplicationController's or DaemonSet's), None when it has none there."""
        ref = pod.controller_ref
        if ref is not None and ref.kind == "DaemonSet":
            daemonset = self.daemonsets.get((pod.namespace, ref.name))
            return daemonset.template if daemonset is not None else None
        owner = self.controller_of(pod)
        return owner.template if owner is not None else None

    def workload_template(self, kind: str, namespace: str, name: str) -> Pod | None:
        """A workload object's pod template, as the snapshot has the object (None when it lacks it)."""
        found = self._workload_object(kind, namespace, name)
        return found.template if found is not None else None

    def _workload_object(self, kind: str, namespace: str, name: str) -> TemplateOwner | Controller | DaemonSet | None:
        if kind == "Deployment":
            return self.template_owners.get((kind, namespace, name))
        if kind == "DaemonSet":
            return self.daemonsets.get((namespace, name))
        return self.controllers.get((kind, namespace, name))

    def running_spec(self, kind: str, namespace: str, name: str) -> Mapping[str, Any] | None:
        """A Deployment's or StatefulSet's spec as it runs (None: the snapshot lacks it)."""
        found = self._workload_object(kind, namespace, name)
        return found.spec if isinstance(found, (TemplateOwner, Controller)) else None

    def apply_base(self, kind: str, namespace: str, name: str) -> ApplyBase | None:
        """A workload object's spec and its last client-side apply's, as written (None when the
        snapshot lacks the object or no apply said)."""
        found = self._workload_object(kind, namespace, name)
        return found.apply_base if found is not None else None

    def controller_of(self, pod: Pod) -> Controller | None:
        """The snapshot's ReplicaSet, StatefulSet or ReplicationController that controls `pod`,
        when the snapshot has it (DaemonSets are in `daemonsets`, Jobs in `jobs`)."""
        ref = pod.controller_ref
        return self.controllers.get((ref.kind, pod.namespace, ref.name)) if ref is not None else None

    def copy(self) -> Cluster:
        """A copy whose collections can change (objects are frozen and shared), so what-ifs
        never alter the loaded cluster."""
        return Cluster(**{f.name: getattr(self, f.name).copy() for f in fields(self)})
