"""`kwhatif capacity`: how many more copies of a pod (or of a workload's pod) fit, where they go
and why the next one does not; and, with a node template, how many such nodes must be added for
workloads to fit (smallest count, by galloping then binary search)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from kwhatif.api.objects import Node, Pod, node_copies
from kwhatif.check import schedule_workloads, summarise
from kwhatif.config.profile import ProfileConfig
from kwhatif.engine import admit, as_created, prepare
from kwhatif.framework.scheduler import Outcome
from kwhatif.errors import InputError
from kwhatif.api.cluster import Cluster
from kwhatif.snapshot.pod_info import PodInfo, claim_names
from kwhatif.workloads import Expanded, apply_to_cluster, expand_objects
from kwhatif.workloads.common import RANDOM_LENGTH, NameSet

_GENERATED = ("ReplicaSet", "Deployment", "ReplicationController", "Job", "CronJob", "DaemonSet")


@dataclass
class CapacityResult:
    pod: str
    workload: str
    copies: int
    max: int
    distribution: dict[str, int]
    stop_reason: str | None
    evictions: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def data(self) -> dict:
        return {"pod": self.pod, "workload": self.workload, "copies": self.copies, "max": self.max,
                "reached_max": self.copies >= self.max, "distribution": self.distribution,
                "stop_reason": self.stop_reason, "evictions": self.evictions, "warnings": self.warnings}


def _copy_maker(group: Expanded) -> Callable[[int], Pod]:
    """Copy i of the group's pods: its own pods first, then more named as its controller would
    name one more replica."""
    proto = group.pods[0]
    own = list(group.pods)
    w = group.workload
    names = NameSet()
    names.taken.update(p.name for p in group.pods)
    if w.kind == "StatefulSet":
        ordinals = [int(p.labels["apps.kubernetes.io/pod-index"]) for p in group.pods]
        if claim_names(proto):
            raise InputError("capacity of a StatefulSet with volumeClaimTemplates is not supported yet",
                             w.source, w.ref, "spec.volumeClaimTemplates")

        def stateful(i: int) -> Pod:
            if i < len(own):
                return own[i]
            ordinal = max(ordinals) + 1 + i - len(own)
            name = f"{w.name}-{ordinal}"
            labels = {**proto.labels, "statefulset.kubernetes.io/pod-name": name,
                      "apps.kubernetes.io/pod-index": str(ordinal)}
            return proto.evolve(name=name, labels=labels)
        return stateful
    base = proto.name[:-RANDOM_LENGTH] if w.kind in _GENERATED else f"{proto.name}-"

    def generated(i: int) -> Pod:
        if i < len(own):
            return own[i]
        return proto.evolve(name=names.generate(base, f"capacity/{w.uid}/{i}"))
    return generated


def capacity(cluster: Cluster, objects: Sequence[object], now: str, profiles: Sequence[ProfileConfig] | None,
             maximum: int = 1000, replicas_mode: str = "spec") -> CapacityResult:
    """Place the pods of the other workloads of `objects`, then copies of the first workload's
    pod (its own replicas first) one at a time until one does not fit or `maximum` are placed."""
    cluster = cluster.copy()
    expansion = expand_objects(objects, cluster.nodes, now, replicas_mode)
    groups = [g for g in expansion.groups if g.pods]
    if not groups:
        raise InputError("capacity: no pod to copy (the manifests expand to no pod)")
    group = groups[0]
    if group.workload.kind == "DaemonSet":
        raise InputError("capacity: a DaemonSet runs one pod per node; give a Pod or another workload",
                         group.workload.source, group.workload.ref)
    warnings = expansion.warnings + apply_to_cluster(cluster, expansion)
    others = [p for g in groups[1:] for p in g.pods]
    prepared = prepare(cluster, now, new_pods=others, profiles=profiles)
    sched = prepared.scheduler
    sched.run(prepared.queue)
    make = _copy_maker(group)
    distribution: dict[str, int] = {}
    evictions: list[str] = []
    stop = None
    copies = 0
    while copies < maximum:
        pod = as_created(make(copies), now)
        [(admitted, rejected)] = admit([pod], cluster, created=True)
        if rejected:
            stop = rejected
            break
        result = sched.schedule_pod(PodInfo.of(admitted))
        if result.outcome != Outcome.BOUND:
            stop = result.message or result.outcome.value
            break
        node = result.final.node if result.final else None
        distribution[node or "?"] = distribution.get(node or "?", 0) + 1
        evictions += [v.key for a in result.attempts if a.preemption for v in a.preemption.victims]
        copies += 1
    return CapacityResult(group.pods[0].key, group.workload.ref, copies, maximum, dict(sorted(distribution.items())),
                          stop, evictions, prepared.warnings + warnings)


@dataclass
class AddNodeResult:
    template: str
    nodes_to_add: int | None
    max_nodes: int
    tried: list[tuple[int, int]]  # (nodes added, new pods left pending)
    warnings: list[str] = field(default_factory=list)  # of every run tried, each once

    def data(self) -> dict:
        return {"template": self.template, "nodes_to_add": self.nodes_to_add, "max_nodes": self.max_nodes,
                "fits": self.nodes_to_add is not None,
                "tried": [{"nodes": n, "pending": p} for n, p in self.tried]}


def nodes_to_add(cluster: Cluster, objects: Sequence[object], template: Node, now: str,
                 profiles: Sequence[ProfileConfig] | None, max_nodes: int = 1000,
                 replicas_mode: str = "spec") -> AddNodeResult:
    """The smallest k (0..max_nodes) such that every pod of the workloads is bound with k nodes of
    `template` added: try 0, 1, 2, 4, ... until it fits, then binary search below (adding nodes
    is assumed not to make a fitting set stop fitting)."""
    taken = {n.name for n in cluster.nodes}
    tried: dict[int, int] = {}
    warnings: dict[str, None] = {}  # insertion-ordered set: the runs repeat most of them

    def pending(k: int) -> int:
        if k not in tried:
            grown = cluster.copy()
            grown.nodes = list(cluster.nodes) + node_copies(template, k, taken)
            run = schedule_workloads(grown, objects, now, profiles, replicas_mode)
            warnings.update(dict.fromkeys(run.simulation.warnings + run.warnings))
            tried[k] = sum(w.pending for w in summarise(run, False))
        return tried[k]

    low, high = -1, None  # pending(low) > 0 (or low = -1), pending(high) == 0
    k = 0
    while k <= max_nodes:
        if pending(k) == 0:
            high = k
            break
        low = k
        k = 1 if k == 0 else k * 2
    if high is None and low < max_nodes:
        if pending(max_nodes) == 0:
            high = max_nodes
        else:
            low = max_nodes
    if high is not None:
        while high - low > 1:
            mid = (low + high) // 2
            if pending(mid) == 0:
                high = mid
            else:
                low = mid
    return AddNodeResult(template.name, high, max_nodes, sorted(tried.items()), list(warnings))
