"""`kwhatif capacity`: for each workload of the files (or bare pod), how many more copies of its
pod fit beyond its own replicas, where they go and why the next one does not; and, with a node
template, how many such nodes must be added for workloads to fit (smallest count, by galloping
then binary search). As cluster-capacity users expect, copies do not preempt unless the caller's
profiles keep DefaultPreemption (`--allow-preemption`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from kwhatif.api.objects import Node, Pod
from kwhatif.check import schedule_workloads, summarise
from kwhatif.config.profile import ProfileConfig, default_profile, runs_plugin
from kwhatif.engine import Prepared, Scenarios, admit, as_created, prepare
from kwhatif.framework.scheduler import Outcome
from kwhatif.plugins.default_preemption import NAME as PREEMPTION
from kwhatif.errors import InputError
from kwhatif.text import listed
from kwhatif.api.cluster import Cluster
from kwhatif.snapshot.pod_info import PodInfo, claim_names
from kwhatif.workloads import Expanded, apply_to_cluster, expand_objects
from kwhatif.workloads.common import RANDOM_LENGTH, NameSet
from kwhatif.workloads.existing import PodIndex, exists
from kwhatif.workloads.templates import carrying_template
from kwhatif.whatif.pods import recreated, taken_names
from kwhatif.whatif.nodes import add_nodes

_GENERATED = ("ReplicaSet", "Deployment", "ReplicationController", "Job", "CronJob", "DaemonSet")


@dataclass
class WorkloadCapacity:
    """One workload's answer: `copies` of its pod fit in total (its own `replicas` first), so
    `more` beyond them."""

    pod: str
    workload: str
    replicas: int
    copies: int
    max: int
    distribution: dict[str, int]
    stop_reason: str | None
    evictions: list[str] = field(default_factory=list)
    running: int = 0
    """Its pods already in the snapshot (a workload that runs) that are bound, or bind when the
    queue is scheduled: counted among the copies."""
    preemption: bool = True
    """Whether its pods could preempt (the profiles keep DefaultPreemption): without it, "its own
    replicas do not fit" may be kwhatif's default and not the scheduler's verdict."""
    nodes: int = 0
    """The nodes of the cluster its copies were placed on: none (every node removed by a what-if)
    is why nothing fits, whatever preemption could do."""
    stopped_by: str | None = None
    """What stopped the copies: `admission` (the API server refused the next one: a quota, a
    LimitRange), `unschedulable`, `gated` (a scheduling gate); None when `max` stopped them.
    Only an unschedulable copy might have fit by preempting."""

    @property
    def more(self) -> int:
        return max(0, self.copies - self.replicas)

    @property
    def fits(self) -> bool:
        """Whether its own replicas all fit (else some of them stay pending)."""
        return self.copies >= self.replicas

    def data(self) -> dict:
        return {"pod": self.pod, "workload": self.workload, "replicas": self.replicas, "copies": self.copies,
                "more": self.more, "fits": self.fits, "running": self.running, "max": self.max,
                "reached_max": self.more >= self.max, "distribution": self.distribution,
                "stop_reason": self.stop_reason, "stopped_by": self.stopped_by, "evictions": self.evictions,
                "preemption": self.preemption, "nodes": self.nodes}


@dataclass
class CapacityResult:
    workloads: list[WorkloadCapacity]
    warnings: list[str] = field(default_factory=list)

    def data(self) -> dict:
        return {"workloads": [w.data() for w in self.workloads], "warnings": self.warnings}


def _copy_maker(group: Expanded, now: str, running: Pod | None = None,
                taken: NameSet | None = None) -> Callable[[int], Pod]:
    """Copy i of the group's pods: its own pods first, then more named as its controller would
    name one more replica, each with claims of its own (no status naming the prototype's).
    `running`: a pod of the workload that runs with the manifest's template — its ReplicaSet
    makes every further replica, under its name and pod-template-hash (a spread with
    `matchLabelKeys: [pod-template-hash]` counts them with the running ones), their names
    avoiding `taken` (the namespace's)."""
    if running is not None:
        names = taken if taken is not None else NameSet()
        return lambda i: recreated(running, now, names, f"capacity/{i}")
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
            return proto.evolve(name=name, labels=labels, resource_claim_statuses=())
        return stateful
    base = proto.name[:-RANDOM_LENGTH] if w.kind in _GENERATED else f"{proto.name}-"

    def generated(i: int) -> Pod:
        if i < len(own):
            return own[i]
        return proto.evolve(name=names.generate(base, f"capacity/{w.uid}/{i}"), resource_claim_statuses=())
    return generated


def capacity(cluster: Cluster, objects: Sequence[object], now: str, profiles: Sequence[ProfileConfig] | None,
             maximum: int = 1000, replicas_mode: str = "spec") -> CapacityResult:
    """For each workload of `objects` (in input order): place the pods of the others, then copies
    of its pod (its own replicas first) one at a time until one does not fit or `maximum` are
    placed. A workload that already runs counts its pods that carry the manifest's template as
    its first copies: those bound, and those pending that the queue's run binds (they are not
    placed again); its pods of another template are what a rollout replaces, so they are gone
    and the manifest's pods stand in their place. A DaemonSet runs one pod per node: it is placed
    with the others, never copied."""
    cluster = cluster.copy()
    expansion = expand_objects(objects, cluster.nodes, now, replicas_mode, autoscalers=cluster.autoscalers.values())
    groups = [g for g in expansion.groups if g.pods]
    copied = [g for g in groups if g.workload.kind != "DaemonSet"]
    if not copied:
        empty = [g.workload.ref for g in expansion.groups if not g.pods and g.workload.kind != "DaemonSet"]
        why = (f": {listed(empty)} {'has' if len(empty) == 1 else 'have'} 0 replicas (give spec.replicas of 1 or "
               "more)") if empty else " (the manifests expand to no pod but a DaemonSet's)"
        raise InputError(f"capacity: no pod to copy{why}")
    index = PodIndex.of(cluster)
    current = {id(g): _carrying(g, exists(cluster, index, g.workload)[1], cluster) for g in groups}
    replaced = {p.key for g in groups for p in current[id(g)].stale}
    prototypes = {id(g): _running_prototype(g, current[id(g)].pods) for g in groups}
    warnings = expansion.warnings + apply_to_cluster(cluster, expansion)
    warnings += [f"{g.workload.ref}: a DaemonSet runs one pod per node: not copied"
                 for g in groups if g.workload.kind == "DaemonSet"]
    if replaced:
        cluster.pods = [p for p in cluster.pods if p.key not in replaced]
    preemption = any(runs_plugin(p, PREEMPTION) for p in profiles or [default_profile()])
    results = []
    engine = Scenarios(cluster)  # one snapshot built; each workload's run derives its own from it
    for group in copied:
        others = [p for g in groups if g is not group for p in current[id(g)].still_to_create(g.pods)]
        with engine.one():
            prepared = prepare(cluster, now, new_pods=others, profiles=profiles, scenarios=engine)
            prepared.scheduler.run(prepared.queue)
            placed = prepared.scheduler.snapshot.placed  # its pending pods are scheduled with the queue
            own = sum(1 for p in current[id(group)].pods if p.key in placed)
            results.append(_copies(prepared, cluster, now, group, maximum, own, prototypes[id(group)], preemption))
            warnings += [w for w in prepared.warnings if w not in warnings]
            del prepared  # the released scenario's snapshot goes now, not at the next workload
    return CapacityResult(results, warnings)


_ROLLED = ("Deployment", "ReplicaSet", "ReplicationController", "StatefulSet")
"""The workloads whose controller replaces pods of another template (a rollout, or for a bare
ReplicaSet a scale that keeps them: kwhatif answers for the end of the rollout either way)."""


@dataclass(frozen=True)
class Carrying:
    """A running workload's pods in the snapshot: `pods` carry the manifest's template, `stale`
    do not (its controller replaces them)."""

    pods: list[Pod]
    stale: list[Pod]

    def still_to_create(self, wanted: list[Pod]) -> list[Pod]:
        """The manifest's pods its controller has yet to create: all of them for a new workload;
        for one that runs, those standing in for its stale pods (none when it runs the template:
        its replica count is its own business until it is the one copied)."""
        if not self.pods and not self.stale:
            return wanted
        if not self.stale:
            return []
        have = {p.key for p in self.pods}
        return [p for p in wanted if p.key not in have][:max(0, len(wanted) - len(self.pods))]


def _carrying(group: Expanded, pods: list[Pod], cluster: Cluster) -> Carrying:
    """Which of the workload's pods carry the manifest's template (`carrying_template`, on the
    template's pod as admission stores it)."""
    if group.workload.kind not in _ROLLED or not pods:
        return Carrying(pods, [])
    [(admitted, refused)] = admit([group.pods[0]], cluster, created=True)
    keep = {p.key for p in carrying_template(pods, [group.pods[0] if refused else admitted], group.workload.kind)}
    return Carrying([p for p in pods if p.key in keep], [p for p in pods if p.key not in keep])


def _running_prototype(group: Expanded, current: list[Pod]) -> Pod | None:
    """A bound pod of a ReplicaSet-made workload (Deployment, ReplicaSet, ReplicationController)
    that carries the manifest's template, if any: its controller makes the further replicas."""
    if group.workload.kind not in ("Deployment", "ReplicaSet", "ReplicationController"):
        return None
    return next((p for p in current if p.node_name), None)


def _copies(prepared: Prepared, cluster: Cluster, now: str, group: Expanded, maximum: int,
            running: int, prototype: Pod | None = None, preemption: bool = True) -> WorkloadCapacity:
    """Copies of the group's pod scheduled one at a time on the prepared snapshot, after the
    `running` ones: its own replicas, then up to `maximum` more (`prototype`: `_copy_maker`;
    `preemption`: whether the profiles let them preempt)."""
    make = _copy_maker(group, now, prototype, taken_names(cluster, group.workload.namespace))
    distribution: dict[str, int] = {}
    evictions: list[str] = []
    stop = stopped_by = None
    copies = running
    while copies < len(group.pods) + maximum:
        [(admitted, rejected)] = admit([as_created(make(copies), now)], cluster, created=True, quotas=prepared.quotas)
        if rejected:
            stop, stopped_by = rejected, "admission"
            break
        result = prepared.scheduler.schedule_pod(PodInfo.of(admitted))
        if result.outcome != Outcome.BOUND:
            stop, stopped_by = result.message or result.outcome.value, result.outcome.value
            break
        node = result.final.node if result.final else None
        distribution[node or "?"] = distribution.get(node or "?", 0) + 1
        evictions += [v.key for a in result.attempts if a.preemption for v in a.preemption.victims]
        copies += 1
    return WorkloadCapacity(group.pods[0].key, group.workload.ref, len(group.pods), copies, maximum,
                            dict(sorted(distribution.items())), stop, evictions, running, preemption,
                            prepared.scheduler.snapshot.num_nodes, stopped_by)


@dataclass
class AddNodeResult:
    template: str
    nodes_to_add: int | None
    max_nodes: int
    tried: list[tuple[int, int]]  # (nodes added, new pods left pending)
    warnings: list[str] = field(default_factory=list)  # of every run tried, each once
    still_pending: list[dict[str, str | None]] = field(default_factory=list)
    """When no count tried is enough: each workload left pending with the most nodes tried, its
    first pending pod and that pod's message — whether nodes like the template can help at all
    (a pod pinned to a full node, a selector no template node matches) is said there."""

    def data(self) -> dict:
        return {"template": self.template, "nodes_to_add": self.nodes_to_add, "max_nodes": self.max_nodes,
                "fits": self.nodes_to_add is not None,
                "tried": [{"nodes": n, "pending": p} for n, p in self.tried], "warnings": self.warnings,
                "still_pending": self.still_pending}


def nodes_to_add(cluster: Cluster, objects: Sequence[object], template: Node, now: str,
                 profiles: Sequence[ProfileConfig] | None, max_nodes: int = 1000,
                 replicas_mode: str = "spec") -> AddNodeResult:
    """The smallest k (0..max_nodes) such that every pod of the workloads is bound with k nodes of
    `template` added: try 0, 1, 2, 4, ... until it fits, then binary search below (adding nodes
    is assumed not to make a fitting set stop fitting)."""
    tried: dict[int, int] = {}
    left: dict[int, list[dict[str, str | None]]] = {}
    warnings: dict[str, None] = {}  # insertion-ordered set: the runs repeat most of them
    engine = Scenarios(cluster)

    def pending(k: int) -> int:
        if k not in tried:
            with engine.one():
                grown = cluster.copy()
                add_nodes(grown, template, k, now)
                run = schedule_workloads(grown, objects, now, profiles, replicas_mode, scenarios=engine)
                warnings.update(dict.fromkeys(run.simulation.warnings + run.warnings))
                summaries = summarise(run, False)
                tried[k] = sum(w.pending for w in summaries)
                left[k] = [{"workload": w.ref, "pod": w.first_pending, "message": w.message}
                           for w in summaries if w.pending]
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
    most = max(tried)
    return AddNodeResult(template.name, high, max_nodes, sorted(tried.items()), list(warnings),
                         left[most] if high is None else [])
