"""The catalogue of every reason kube-scheduler v1.34.1 (and so kwhatif) can give for a node or a
pod: its exact text (a pattern where part of it varies), the plugin that gives it, what it means
and how to fix it — `kwhatif reasons [TEXT]`, in the spirit of `ruff rule`.

The texts are the plugins' own constants (tests/explain/test_reasons.py fails when a plugin has a
reason the catalogue does not match), so the catalogue cannot drift from what kwhatif prints."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Reason:
    plugin: str
    pattern: str  # a regular expression the whole reason text matches
    example: str
    meaning: str
    fix: str

    def matches(self, text: str) -> bool:
        return re.fullmatch(self.pattern, text) is not None

    @classmethod
    def exact(cls, plugin: str, text: str, meaning: str, fix: str) -> Reason:
        """A reason that is always the same text: its pattern is that text, its example the text itself."""
        return cls(plugin, re.escape(text), text, meaning, fix)


CATALOGUE: tuple[Reason, ...] = (
    Reason("NodeResourcesFit", r"Insufficient \S+", "Insufficient cpu",
           "The pod's requests (containers, the largest init container, overhead) exceed what the node has "
           "left: allocatable minus the requests of the pods already on it. Requests count, not usage.",
           "Lower the pod's requests, free room (delete or shrink pods on the node), or add nodes; "
           "`kwhatif explain` gives the shortfall per node and verified changes."),
    Reason.exact("NodeResourcesFit", "Too many pods",
                 "The node already runs as many pods as its allocatable `pods` allows.",
                 "Raise the kubelet's maxPods, spread the pods, or add nodes."),
    Reason("TaintToleration", r"node\(s\) had untolerated taint \{node\.kubernetes\.io/[^}]*\}",
           "node(s) had untolerated taint {node.kubernetes.io/not-ready: }",
           "The node lifecycle controller or the kubelet tainted the node for one of its conditions: not-ready, "
           "unreachable, memory-pressure, disk-pressure, pid-pressure, network-unavailable, out-of-service. "
           "The node is unwell, not reserved.",
           "Fix the node (`kubectl describe node NODE`: its Conditions and the kubelet's events) or replace it; "
           "do not tolerate the taint — pods would land on a node that cannot run them."),
    Reason("TaintToleration", r"node\(s\) had untolerated taint \{node-role\.kubernetes\.io/control-plane[^}]*\}",
           "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }",
           "The node is a control-plane node, kept for the cluster's own components.",
           "Nothing for a workload: it runs on the worker nodes — read the other reasons of the message."),
    Reason("TaintToleration",
           r"node\(s\) had untolerated taint \{(?!node\.kubernetes\.io/|node-role\.kubernetes\.io/control-plane)[^}]*\}",
           "node(s) had untolerated taint {dedicated: gpu}",
           "The node has a NoSchedule or NoExecute taint that none of the pod's tolerations tolerates.",
           "Add a toleration for that taint to the pod, or remove the taint from the node (if the node "
           "is meant for such pods)."),
    Reason.exact("NodeUnschedulable", "node(s) were unschedulable",
                 "The node is cordoned (spec.unschedulable: true).",
                 "`kubectl uncordon NODE` when its maintenance is over."),
    Reason.exact("NodeName", "node(s) didn't match the requested node name",
                 "The pod sets spec.nodeName and this is another node.",
                 "Set spec.nodeName to an existing node, or remove it and let the scheduler choose."),
    Reason.exact("NodeAffinity", "node(s) didn't match Pod's node affinity/selector",
                 "The node's labels do not satisfy the pod's nodeSelector or required node affinity.",
                 "Label the node, or relax the pod's nodeSelector / requiredDuringScheduling terms."),
    Reason.exact("NodeAffinity", "node(s) didn't match scheduler-enforced node affinity",
                 "The profile's NodeAffinityArgs.addedAffinity excludes the node for every pod of the profile.",
                 "Change the KubeSchedulerConfiguration, or use a profile (schedulerName) without it."),
    Reason.exact("NodeAffinity", "pod affinity terms conflict",
                 "NodeAffinity's PreFilter: every required node-affinity term names nodes with matchFields "
                 "metadata.name In, and no term leaves any name (the In lists of one term share no node): the pod "
                 "can run on no node at all, so no node is filtered and preemption cannot help.",
                 "Fix the pod's required node-affinity terms: within a term the metadata.name In lists must share "
                 "the node wanted (or keep one list a term)."),
    Reason.exact("NodePorts", "node(s) didn't have free ports for the requested pod ports",
                 "A pod on the node already uses a hostPort (protocol, port, IP) the pod wants.",
                 "Drop the hostPort if a Service can do, move the pod holding the port, or add nodes."),
    Reason.exact("PodTopologySpread", "node(s) didn't match pod topology spread constraints",
                 "Placing the pod here would make a DoNotSchedule constraint's skew exceed maxSkew.",
                 "Add nodes in the emptier domains, raise maxSkew, or use whenUnsatisfiable: ScheduleAnyway."),
    Reason.exact("PodTopologySpread", "node(s) didn't match pod topology spread constraints (missing required label)",
                 "The node lacks the topologyKey label of a DoNotSchedule constraint.",
                 "Label the node with the topology key (e.g. topology.kubernetes.io/zone)."),
    Reason.exact("InterPodAffinity", "node(s) didn't match pod affinity rules",
                 "No pod matching the pod's required podAffinity runs in the node's topology domain.",
                 "Run the pods it must be near first, or relax the required term to preferred."),
    Reason.exact("InterPodAffinity", "node(s) didn't match pod anti-affinity rules",
                 "A pod matching the pod's required podAntiAffinity runs in the node's topology domain.",
                 "Add domains (nodes/zones), reduce replicas, or make the anti-affinity preferred."),
    Reason.exact("InterPodAffinity", "node(s) didn't satisfy existing pods anti-affinity rules",
                 "A pod already in the node's domain has a required anti-affinity that matches this pod.",
                 "Change the labels of the new pod or the other pod's anti-affinity, or use other nodes."),
    Reason.exact("VolumeRestrictions", "node(s) had no available disk",
                 "A volume the pod uses (e.g. a GCE PD or EBS volume) is already mounted by a pod on the node.",
                 "Use another volume, or let the pod run where the other one does not."),
    Reason.exact("VolumeRestrictions",
                 "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use "
                 "by another pod",
                 "A ReadWriteOncePod claim of the pod is used by another pod.",
                 "Stop the other pod or use another claim."),
    Reason("VolumeRestrictions / VolumeBinding", r'persistentvolumeclaim ".*" not found',
           'persistentvolumeclaim "data" not found',
           "The pod mounts a PersistentVolumeClaim that does not exist.",
           "Create the claim (or fix its name in the pod)."),
    Reason.exact("VolumeBinding", "pod has unbound immediate PersistentVolumeClaims",
                 "A claim with volumeBindingMode Immediate is not bound yet: the PV controller binds it, not the "
                 "scheduler.",
                 "Wait for (or fix) provisioning of the claim, or use a WaitForFirstConsumer StorageClass."),
    Reason("VolumeBinding", r'waiting for ephemeral volume controller to create the persistentvolumeclaim ".*"',
           'waiting for ephemeral volume controller to create the persistentvolumeclaim "web-0-data"',
           "The pod's generic ephemeral volume has no claim yet.",
           "Wait for the ephemeral volume controller; check it runs."),
    Reason.exact("VolumeBinding", "node(s) didn't match PersistentVolume's node affinity",
                 "A bound PersistentVolume can only be used on nodes matching its nodeAffinity (e.g. a zone).",
                 "Run the pod in the volume's zone/nodes, or move the data."),
    Reason.exact("VolumeBinding", "node(s) didn't find available persistent volumes to bind",
                 "No unbound PV that fits a WaitForFirstConsumer claim is usable from the node, and the class cannot "
                 "provision.",
                 "Create matching PVs or use a provisioning StorageClass."),
    Reason.exact("VolumeBinding", "node(s) did not have enough free storage",
                 "Storage capacity tracking says the node's topology has too little capacity for the claim.",
                 "Free capacity or request less storage."),
    Reason.exact("VolumeBinding", "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)",
                 "A claim is bound to a PersistentVolume that does not exist.",
                 "Recreate the volume or the claim."),
    Reason.exact("VolumeZone", "node(s) had no available volume zone",
                 "A volume's zone/region labels do not match the node's.",
                 "Run the pod in the volume's zone."),
    Reason.exact("NodeVolumeLimits", "node(s) exceed max volume count",
                 "The node's CSI driver would attach more volumes than its CSINode allocatable count allows.",
                 "Spread volume-heavy pods, use nodes with higher limits, or fewer volumes per pod."),
    Reason.exact("DynamicResources", "cannot allocate all claims",
                 "The pod's unallocated ResourceClaims cannot all get devices from the ResourceSlices this node "
                 "can use: too few free devices pass the DeviceClass and request CEL selectors, or no choice "
                 "keeps a matchAttribute constraint.",
                 "`kwhatif explain --node NODE` lists why each device was refused; free devices (delete the pods "
                 "holding them), relax the selectors or constraints, or publish more devices."),
    Reason.exact("DynamicResources", "resourceclaim not available on the node",
                 "A ResourceClaim of the pod is allocated already, to devices this node cannot use "
                 "(status.allocation.nodeSelector).",
                 "Run the pod where the claim is allocated, or let the claim be deallocated (no pod reserves it)."),
    Reason.exact("DynamicResources", "resourceclaim in use",
                 "The claim is allocated and reserved by as many consumers as allowed (256).",
                 "Wait for consumers to finish, or give the pod its own claim."),
    Reason("DynamicResources", r"request \S+: device class \S+ does not exist",
           "request gpu: device class gpu.example.com does not exist",
           "A request of the pod's ResourceClaim names a DeviceClass the cluster does not have.",
           "Create the DeviceClass (the driver's installation usually does), or fix the name."),
    Reason("DynamicResources", r'could not find ResourceClaim ".*"',
           'could not find ResourceClaim "default/gpu-claim"',
           "The pod names a ResourceClaim (resourceClaimName, or its status's generated one) that does not exist: "
           "kube-scheduler holds the pod before any attempt and only logs this (no event).",
           "Create the claim, or use resourceClaimTemplateName to have one made per pod."),
    Reason("DynamicResources", r'pod ".*": ResourceClaim not created yet',
           'pod "default/train": ResourceClaim not created yet',
           "The pod's claim comes from a ResourceClaimTemplate and the resourceclaim controller has not "
           "made it (or the template is missing): the pod is held before any attempt (no event).",
           "Check the ResourceClaimTemplate exists in the pod's namespace and kube-controller-manager runs."),
    Reason.exact("SchedulingGates", "Scheduling is blocked due to non-empty scheduling gates",
                 "The pod has spec.schedulingGates; the scheduler does not try it until they are all removed.",
                 "Remove the gates (whoever added them — a quota or batch controller — should)."),
    Reason.exact("DefaultPreemption", "No preemption victims found for incoming pod",
                 "No pod of lower priority than the pod runs on this node, so preemption has nothing to evict "
                 "there. (When evicting them all would still not make room, the node's entry is the filter's "
                 "reason instead, e.g. Insufficient cpu; PodDisruptionBudgets only rank victims, they never "
                 "stop preemption.)",
                 "Give the pod a higher PriorityClass than the pods on the node (`kwhatif explain` names the "
                 "lowest existing one that makes room), or free room another way: delete or shrink pods, add "
                 "nodes."),
    Reason.exact("DefaultPreemption", "Preemption is not helpful for scheduling",
                 "The node was rejected for a reason no eviction can change (UnschedulableAndUnresolvable).",
                 "Fix the node's filter reason (taint, affinity, size...)."),
    Reason.exact("DefaultPreemption", "not eligible due to preemptionPolicy=Never",
                 "The pod may not preempt (preemptionPolicy: Never, often from its PriorityClass): no pod is "
                 "evicted for it, it waits for room.",
                 "Free room another way, or give it a PriorityClass whose preemptionPolicy is PreemptLowerPriority."),
    Reason.exact("DefaultPreemption", "not eligible due to a terminating pod on the nominated node",
                 "An earlier preemption for this pod is still evicting its victims: the scheduler waits for them to "
                 "go.",
                 "Nothing: the pod is retried once the victims are gone (check their terminationGracePeriodSeconds)."),
    Reason.exact("DynamicResources", "no new claims to deallocate",
                 "DynamicResources' PostFilter, which v1.34 runs for every pod that does not fit (DRA is GA): it "
                 "found no claim of the pod whose deallocation would help. It is in every FailedScheduling "
                 "message, DRA or not.",
                 "Nothing: read the reasons before it."),
    Reason.exact("DynamicResources", "not found",
                 "The trailing word after a PreFilter rejection (a missing PVC, an unbound immediate claim...): "
                 "DynamicResources' PostFilter reads the state its PreFilter never wrote (an earlier PreFilter "
                 "rejected the pod first) and fails; preemption does not run.",
                 "Fix the reason before it; this word goes with it."),
    Reason.exact("Framework", "no nodes available to schedule pods",
                 "The cluster has no nodes (or the snapshot none).",
                 "Add nodes, or check the input holds them."),
)

_HEAD = re.compile(r"\d+/\d+ nodes are available: ")
"""Where a FailedScheduling message starts: a pasted `kubectl describe` Events line or
`kubectl get events` row carries the event's type, reason, age and source before it."""
_COUNT = re.compile(r"^(?:(?:preemption: )?\d+/\d+ nodes are available: )?\d+ ")
"""What a message prints before a reason: its head (`0/5 nodes are available: `, after
`preemption: ` too) and the reason's node count."""
_MESSAGE_PARTS = re.compile(r"\. |, ")


def lookup(text: str) -> list[Reason]:
    """The reasons a text is (a full match, with or without the count and the period the message
    prints around it: `2 Insufficient cpu.`), each shown with the text as given; else, for a whole
    pasted FailedScheduling message (an Events line's prefix left out), the reasons of each of
    its parts, each shown as that part says it (`Insufficient memory`, not the entry's example);
    else those whose example or plugin mentions it."""
    reason = _COUNT.sub("", text.strip()).rstrip(".")
    exact = [replace(r, example=reason) for r in CATALOGUE if r.matches(reason)]
    if exact:
        return exact
    head = _HEAD.search(text)
    message = text[head.start():] if head is not None else text
    parts = [_COUNT.sub("", p.strip()).rstrip(".") for p in _MESSAGE_PARTS.split(message.strip())]
    found = {replace(r, example=p): None for p in parts for r in CATALOGUE if r.matches(p)}
    if (len(parts) > 1 or head is not None) and found:
        return list(found)
    if " " in reason:  # a single word is a search (`Insufficient \S+` would complete any word)
        completed = [(len(full), replace(r, example=full)) for r in CATALOGUE for full in [_completed(r, reason)] if full]
        least = min((n for n, _ in completed), default=0)
        if completed:  # the fewest words added: `node(s) had ` rather than a whole taint's beginning
            return [r for n, r in completed if n == least]
    needle = text.lower()
    return [r for r in CATALOGUE if needle in r.example.lower() or needle in r.plugin.lower()]


def _completed(r: Reason, part: str) -> str | None:
    """The reason's text that `part` is the end or the beginning of, completed from the entry's
    example (`untolerated taint {node.kubernetes.io/disk-pressure: }` is a taint reason without
    its `node(s) had `); None when it is neither."""
    for k in range(1, len(r.example)):
        for whole, cut in ((r.example[:k] + part, r.example[k - 1]), (part + r.example[-k:], r.example[-k])):
            if cut == " " and r.matches(whole):  # completed by whole words
                return whole
    return None
