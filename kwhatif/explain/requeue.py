"""Requeue hints: for a pending pod, the cluster events that could move it back to the active
queue, per plugin that rejected it, as kube-scheduler v1.34.1 registers them.

A pod that a plugin rejects waits in the unschedulable pool until a cluster event that the plugin
registered arrives and the plugin's queueing hint says the event may help (or until the 5-minute
unschedulable timeout). Knowing the registered events tells an operator which change to the
cluster is worth making, and which ones the scheduler will not even look at for this pod.

Upstream sources (each plugin's `EventsToRegister`, which returns `[]fwk.ClusterEventWithHint`):

- schedulinggates/scheduling_gates.go:EventsToRegister
- nodeunschedulable/node_unschedulable.go:EventsToRegister
- nodename/node_name.go:EventsToRegister
- tainttoleration/taint_toleration.go:EventsToRegister
- nodeaffinity/node_affinity.go:EventsToRegister
- nodeports/node_ports.go:EventsToRegister
- noderesources/fit.go:EventsToRegister
- volumerestrictions/volume_restrictions.go:EventsToRegister
- nodevolumelimits/csi.go:EventsToRegister
- volumebinding/volume_binding.go:EventsToRegister
- volumezone/volume_zone.go:EventsToRegister
- podtopologyspread/plugin.go:EventsToRegister
- interpodaffinity/plugin.go:EventsToRegister
- dynamicresources/dynamicresources.go:EventsToRegister

(all under pkg/scheduler/framework/plugins/). Resource and action names are kube-scheduler's own
(staging/src/k8s.io/kube-scheduler/framework: `EventResource`, `ActionType`); plugins only ever
register `Pod`, never the internal `AssignedPod`/`UnschedulablePod` split that the queue uses for
incoming events (pkg/scheduler/framework/types.go:matchEventResources), so `Pod` here matches
both an assigned and an unscheduled pod's event.

Feature gates are modelled at their v1.34 defaults, because most registrations branch on them:

- SchedulerQueueingHints: on (beta, on by default since 1.32). With it on, plugins drop the
  `UpdateNodeTaint|UpdateNodeLabel` padding they register only to survive the old preCheck
  (issue 109437), and TaintToleration/NodeUnschedulable/PodTopologySpread/SchedulingGates add
  their Pod update events (with it off, an update to an unschedulable pod always retries it).
- InPlacePodVerticalScaling: on (beta since 1.33), so NodeResourcesFit registers
  `UpdatePodScaleDown`.
- DynamicResourceAllocation: on (GA in 1.34), so DynamicResources registers events at all.
- DRAExtendedResource: off (alpha in 1.34), so NodeResourcesFit registers no DeviceClass event.

Plugins that never reject a pod (NodeResourcesBalancedAllocation, ImageLocality, PrioritySort,
DefaultBinder) register nothing; DefaultPreemption is a PostFilter plugin and has no entry either.

The index of upstream source available when this was written held no commit tagged v1.34.1, so
each table entry comes from the version nearest to 1.34 that could be found; where a later or
earlier version could differ, the entry's comment says so.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class RequeueEvent:
    """One registered cluster event: a resource and the action types on it that the plugin
    listens to. `why` says, for people, what cluster change this stands for and what the
    plugin's queueing hint checks before it lets the pod retry."""

    resource: str
    actions: tuple[str, ...]
    why: str


EVENTS: dict[str, tuple[RequeueEvent, ...]] = {
    # scheduling_gates.go: nothing without QHint; with it, Pod/UpdatePodSchedulingGatesEliminated.
    "SchedulingGates": (
        RequeueEvent("Pod", ("UpdatePodSchedulingGatesEliminated",),
               "the pod's last scheduling gate is removed: only an update to this pod itself counts"),
    ),
    # node_unschedulable.go (QHint branch).
    "NodeUnschedulable": (
        RequeueEvent("Node", ("Add", "UpdateNodeTaint"),
               "a schedulable node is added, or a node is uncordoned (spec.unschedulable goes from "
               "true to false)"),
        RequeueEvent("Pod", ("UpdatePodToleration",),
               "this pod gets a toleration for the node.kubernetes.io/unschedulable:NoSchedule taint"),
    ),
    # node_name.go (QHint branch): Node/Add only, no hint (always retries).
    "NodeName": (
        RequeueEvent("Node", ("Add",),
               "a node is added: it may be the node named in the pod's spec.nodeName"),
    ),
    # taint_toleration.go (QHint branch). No Pod/Delete: deleting another pod never removes a taint.
    "TaintToleration": (
        RequeueEvent("Node", ("Add", "UpdateNodeTaint"),
               "a node is added or its taints change: it helps only if the node ends up with no "
               "NoSchedule/NoExecute taint the pod does not tolerate (and had one before, for an update)"),
        RequeueEvent("Pod", ("UpdatePodToleration",),
               "this pod's tolerations change: an update to this pod itself always retries it"),
    ),
    # node_affinity.go (QHint branch: Add|UpdateNodeLabel; without QHint also UpdateNodeTaint).
    "NodeAffinity": (
        RequeueEvent("Node", ("Add", "UpdateNodeLabel"),
               "a node is added or its labels change: it helps if the node now matches the pod's "
               "nodeSelector/required node affinity (and the scheduler-enforced added affinity)"),
    ),
    # node_ports.go (QHint branch).
    "NodePorts": (
        RequeueEvent("Pod", ("Delete",),
               "an assigned pod is deleted: it helps if that pod held a host port this pod asks for"),
        RequeueEvent("Node", ("Add",),
               "a node is added: a new node has all its host ports free"),
    ),
    # fit.go: Pod Delete|UpdatePodScaleDown (InPlacePodVerticalScaling on); Node
    # Add|UpdateNodeAllocatable (QHint on). DeviceClass Add|Update only with DRAExtendedResource
    # (alpha, off in 1.34), so left out.
    "NodeResourcesFit": (
        RequeueEvent("Pod", ("Delete", "UpdatePodScaleDown"),
               "an assigned (or nominated) pod is deleted, or a pod's resource requests are scaled "
               "down in place: frees cpu/memory/etc. this pod requests (a scale-down of this pod "
               "itself always counts)"),
        RequeueEvent("Node", ("Add", "UpdateNodeAllocatable"),
               "a node is added that could fit the pod's requests, or a node's allocatable grows in "
               "a resource the pod requests (or in its pod count)"),
    ),
    # volume_restrictions.go (QHint branch).
    "VolumeRestrictions": (
        RequeueEvent("Pod", ("Delete",),
               "a pod in the same namespace is deleted that used a conflicting volume or the same "
               "PVC (ReadWriteOncePod)"),
        RequeueEvent("Node", ("Add",),
               "a node is added: no pod on it can conflict yet"),
        RequeueEvent("PersistentVolumeClaim", ("Add",),
               "a PVC this pod references is created"),
    ),
    # csi.go. The CSINode/Update registration (raised CSI driver allocatable count) is
    # unconditional in the version read; it came with MutableCSINodeAllocatableCount and is
    # believed, not verified, to be in v1.34.1.
    "NodeVolumeLimits": (
        RequeueEvent("CSINode", ("Add",),
               "a CSINode object is created (any new CSINode may carry volume limits that fit)"),
        RequeueEvent("CSINode", ("Update",),
               "a CSI driver's allocatable volume count on a node goes up"),
        RequeueEvent("Pod", ("Delete",),
               "an assigned (or nominated) pod with a PVC, generic ephemeral or CSI-migratable "
               "volume is deleted, freeing an attachment slot"),
        RequeueEvent("PersistentVolumeClaim", ("Add",),
               "a PVC this pod references (directly or as a generic ephemeral volume) is created"),
        RequeueEvent("VolumeAttachment", ("Delete",),
               "a VolumeAttachment is deleted, freeing an attachment slot (when the pod uses a PVC, "
               "or an inline volume of the same CSI driver)"),
    ),
    # volume_binding.go (QHint branch for the Node event).
    "VolumeBinding": (
        RequeueEvent("StorageClass", ("Add", "Update"),
               "a StorageClass is created, or its allowedTopologies change"),
        RequeueEvent("PersistentVolumeClaim", ("Add", "Update"),
               "a PVC this pod uses (directly or as a generic ephemeral volume) is created or updated"),
        RequeueEvent("PersistentVolume", ("Add", "Update"),
               "a PV is created or updated (no hint: any such change retries the pod): it may be one "
               "the pod's PVCs can bind to"),
        RequeueEvent("Node", ("Add", "UpdateNodeLabel"),
               "a node is added or its labels change (no hint): it may match the StorageClass "
               "topologies or the PV node affinity"),
        RequeueEvent("CSINode", ("Add", "Update"),
               "a CSINode is created, or its migrated-plugins annotation changes (in-tree to CSI "
               "translation)"),
        RequeueEvent("CSIDriver", ("Update",),
               "a CSI driver the pod uses turns storage capacity tracking off"),
        RequeueEvent("CSIStorageCapacity", ("Add", "Update"),
               "storage capacity is published, or the usable capacity (volume limit) grows"),
    ),
    # volume_zone.go (QHint branch for the Node event).
    "VolumeZone": (
        RequeueEvent("StorageClass", ("Add",),
               "a StorageClass with volumeBindingMode WaitForFirstConsumer is created"),
        RequeueEvent("Node", ("Add", "UpdateNodeLabel"),
               "a node is added or its labels change (no hint): it may now carry the zone/region "
               "labels the pod's PVs require"),
        RequeueEvent("PersistentVolumeClaim", ("Add", "Update"),
               "a PVC this pod references is created or updated (e.g. bound to a PV)"),
        RequeueEvent("PersistentVolume", ("Add", "Update"),
               "a PV is created, or a PV's zone/region topology labels change"),
    ),
    # podtopologyspread/plugin.go (QHint branch adds UpdatePodToleration).
    "PodTopologySpread": (
        RequeueEvent("Pod", ("Add", "UpdatePodLabel", "UpdatePodToleration", "Delete"),
               "an assigned pod in the same namespace that matches a spread constraint's selector "
               "is added or deleted, or its labels change whether it matches; or this pod's "
               "tolerations change while a constraint has nodeTaintsPolicy: Honor"),
        RequeueEvent("Node", ("Add", "Delete", "UpdateNodeLabel", "UpdateNodeTaint"),
               "a node carrying all the constraints' topology keys is added or deleted, a node "
               "gains/loses or changes a topology key label, or a matching node's taints change"),
    ),
    # interpodaffinity/plugin.go (QHint branch: Node Add|UpdateNodeLabel; without it also
    # UpdateNodeTaint).
    "InterPodAffinity": (
        RequeueEvent("Pod", ("Add", "UpdatePodLabel", "Delete"),
               "an assigned pod is added that matches the pod's affinity, is deleted while matching "
               "its anti-affinity, or has its labels changed to match the affinity or stop matching "
               "the anti-affinity"),
        RequeueEvent("Node", ("Add", "UpdateNodeLabel"),
               "a node is added (with an affinity topology key, or any node for anti-affinity), or "
               "a node's topology key label appears, disappears or changes domain"),
    ),
    # dynamicresources.go (QHint branch). UpdateNodeAllocatable is in the versions read that carry
    # the 1.34 DRA extended-resource code; it is believed, not verified, to be in v1.34.1.
    "DynamicResources": (
        RequeueEvent("Node", ("Add", "UpdateNodeLabel", "UpdateNodeAllocatable"),
               "a node is added, or its labels or allocatable change (no hint): devices may be "
               "reachable from it now"),
        RequeueEvent("ResourceClaim", ("Add", "Update"),
               "a ResourceClaim this pod uses is created or its status changes, or any claim is "
               "deallocated (freeing devices)"),
        RequeueEvent("Pod", ("UpdatePodGeneratedResourceClaim",),
               "this pod's status gets the name of its generated ResourceClaim, and all its claims "
               "now exist"),
        RequeueEvent("DeviceClass", ("Add", "Update"),
               "a DeviceClass is created or changed (no hint): a missing class may now exist"),
        RequeueEvent("ResourceSlice", ("Add", "Update"),
               "a ResourceSlice is published or changed (no hint): new devices may be available"),
    ),
}


def requeue_events(plugins: Iterable[str]) -> list[tuple[str, RequeueEvent]]:
    """(plugin, event) for each rejecting plugin, in the order given, plugins without registrations
    skipped.

    A plugin that is not in EVENTS (a scorer, or a name this table does not know) contributes
    nothing rather than raising: the caller passes whatever plugins rejected the pod, and a missing
    hint is better than a failed explanation. A plugin named twice is listed twice, as given."""
    return [(plugin, event) for plugin in plugins for event in EVENTS.get(plugin, ())]
