"""Existing workloads are updates: the change the controller would make, step by step, on one
snapshot.

A workload of the manifests that already runs (its object is in the snapshot, or pods it owns
are) is not added beside itself: its controller replaces the running pods. The run:

1. the cluster's own pending pods and the pods of the *new* workloads are scheduled first, in
   queue order, as `kwhatif.engine.prepare(...).run()` does;
2. then each existing workload, in input order, rolls out on the same snapshot. Each step is one
   action of its controller — delete old pods (`Snapshot.forget`), create new ones — followed by
   scheduling the created pods together with the pods of this workload still pending (a deletion
   frees room, which kube-scheduler's queue would notice too). A new pod counts as available once
   bound (Running and Ready, minReadySeconds, are taken as immediate). The rollout ends when the
   controller has nothing left to do, or is stuck: it waits for a pod that does not fit.

Old pods of an updated workload that are still pending are deleted before anything else (each
controller deletes unavailable old pods first). `kwhatif.check.strategies` holds what each
controller does per step."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import Pod, RunningJob
from kwhatif.engine import Prepared, admit, as_created, needs_missing_plugin
from kwhatif.framework.scheduler import Outcome, PodResult
from kwhatif.text import listed
from kwhatif.workloads.deletion import deletion_order
from kwhatif.workloads.common import Workload
from kwhatif.workloads.strategy import Strategy


@dataclass
class Update:
    """An existing workload and what its manifest asks for: `new` the pods its controller would
    create from the manifest (all replicas), `old` its pods in the snapshot, `changed` whether
    the template differs from theirs."""

    workload: Workload
    new: list[Pod]
    old: list[Pod]
    changed: bool
    strategy: Strategy
    pinned: dict[str, str] = field(default_factory=dict)
    """DaemonSet: new pod key → its node."""
    keeps: frozenset[str] = frozenset()
    """DaemonSet: the nodes where a pod of it keeps running though none would start (`Expanded.keeps`)."""
    refused: str | None = None
    """The API server's answer when it refuses the update (`existing.refused_update`): nothing changes."""
    replicas_before: int = 0
    """The replica count it runs with (`existing.live_replicas`; its pods when unknown)."""
    current: frozenset[str] = frozenset()
    """The keys of its pods that already carry the manifest's template (`templates.carrying_template`):
    a rollout to it is in progress, and the controller keeps them instead of replacing them."""
    finished: tuple[Pod, ...] = ()
    """A Job's pods that succeeded or failed: its progress (`existing.PodIndex.finished_of`)."""
    job: RunningJob | None = None
    """A Job's object in the snapshot: its progress as its controller counts it, when there."""


@dataclass(frozen=True)
class Step:
    """One controller action: what it deleted and created, the workload's pods still pending once
    the step's pods were scheduled, and its pods available at the step's lowest point (after its
    deletions, before its new pods are bound)."""

    number: int
    action: str
    deleted: int
    created: int
    pending: int
    available: int

    def data(self) -> dict[str, Any]:
        return {"step": self.number, "action": self.action, "deleted": self.deleted, "created": self.created,
                "pending": self.pending, "available": self.available}


@dataclass
class Rollout:
    """What happened to one workload: `change` is new, update, scale or unchanged; `pods` the pods
    the rollout created (those the check summarises); `done` false when it got stuck."""

    change: str
    strategy: str = ""
    desired: int = 0
    running: int = 0
    steps: list[Step] = field(default_factory=list)
    pods: list[Pod] = field(default_factory=list)
    done: bool = True
    note: str = ""
    adopted: list[Pod] = field(default_factory=list)
    """Its pods the snapshot had pending (a Job's, a bare Pod's), judged with `pods` but not new:
    what they evict or where they land would happen without the manifests, so no policy of the
    check counts it."""
    refused: str | None = None
    """Why the API server refuses the update (the workload is left as it runs): the check fails."""
    transient: list[Pod] = field(default_factory=list)
    """Pods the rollout created and then deleted or counted as old ones (a scaling event's copies
    of the running template): not judged, but what their scheduling evicted counts."""

    @property
    def label(self) -> str:
        return f"{self.change} ({self.strategy})" if self.change == "update" and self.strategy else self.change

    @property
    def worst(self) -> Step | None:
        """The step with the most pending pods, then the fewest available; the first on ties."""
        if not self.steps:
            return None
        return min(self.steps, key=lambda s: (-s.pending, s.available, s.number))

    @property
    def stuck(self) -> Step | None:
        return None if self.done or not self.steps else self.steps[-1]

    def data(self) -> dict[str, Any]:
        worst, stuck = self.worst, self.stuck
        return {"change": self.change, "strategy": self.strategy, "desired": self.desired,
                "running": self.running, "done": self.done, "note": self.note,
                "worst": worst.data() if worst else None, "stuck_at": stuck.number if stuck else None,
                "refused": self.refused, "steps": [s.data() for s in self.steps]}


class Waiting:
    """The run's pods left waiting by the first pass — the cluster's pending pods, the new
    workloads' pods that found no room or were refused by a quota — tried again, in queue order,
    whenever a rollout deletes pods: the scheduler moves its unschedulable pods back to the active
    queue when a pod goes, and a controller retries a create a quota refused. They are older than
    what the rollout creates next, so they come first: a pending pod takes the room an update
    frees before the update's own new pod does, and a workload scaled down makes room for a new
    one in the same check."""

    def __init__(self, prepared: Prepared, cluster: Cluster, now: str, results: dict[str, PodResult],
                 fresh: Sequence[Pod]) -> None:
        self.scheduler, self.missing, self.quotas = prepared.scheduler, prepared.missing, prepared.quotas
        self.cluster, self.now, self.results = cluster, now, results
        created = {p.key for p in fresh}
        self.entries = [(pod, refused, pod.key in created) for pod, refused in prepared.queue
                        if self._waits(pod.key, refused)]

    def _waits(self, key: str, refused: str | None) -> bool:
        result = self.results.get(key)
        if refused is not None:
            return QUOTA_REFUSAL in refused
        return key not in self.scheduler.snapshot.placed and result is not None \
            and result.outcome == Outcome.UNSCHEDULABLE

    def retry(self) -> None:
        """Schedule the waiting pods again (a quota's refusal admitted anew, `_admitted`)."""
        if not self.entries:
            return
        queue = [self._admitted(pod, refused, created) for pod, refused, created in self.entries]
        for result in self.scheduler.run([(pod, refused) for pod, refused, _ in queue]):
            result.incomplete = needs_missing_plugin(result, self.missing)
            self.results[result.pod.key] = result
        self.entries = [entry for entry in queue if self._waits(entry[0].key, entry[1])]

    def _admitted(self, pod: Pod, refused: str | None, created: bool) -> tuple[Pod, str | None, bool]:
        if refused is None:
            return pod, None, created
        [(admitted, again)] = admit([pod], self.cluster, created=created, quotas=self.quotas)
        return admitted, again, created


QUOTA_REFUSAL = "exceeded quota"
"""What a ResourceQuota's refusal says (quota.go); the controller retries such a create."""


class Stepper:
    """One workload's rollout on the shared scheduler and snapshot. `results` is the run's
    results by pod key (a pod tried again keeps its place and gets its latest result);
    `waiting`: the run's other pods tried again when a step deletes pods."""

    def __init__(self, prepared: Prepared, cluster: Cluster, now: str, update: Update,
                 results: dict[str, PodResult], waiting: Waiting | None = None) -> None:
        self.waiting = waiting
        self.prepared = prepared
        self.scheduler = prepared.scheduler
        self.missing = prepared.missing
        self.quotas = prepared.quotas
        self.admitted: dict[str, Pod] = {}
        self.cluster = cluster
        self.now = now
        self.results = results
        placed = self.scheduler.snapshot.placed
        self.old: dict[str, Pod] = {p.key: p for p in update.old if p.key in placed}
        self.running = len(self.old)
        self.created: list[Pod] = []
        self.kept: dict[str, Pod] = {}
        """Running pods set aside from `old` (`keep_current`): already at the new template."""
        self.transient: list[Pod] = []
        self.adopted: list[Pod] = []
        self.pending: list[Pod] = []
        self.steps: list[Step] = []

    def bound(self, pod: Pod) -> bool:
        return pod.key in self.scheduler.snapshot.placed

    def deletion_order(self, pods: Sequence[Pod]) -> list[Pod]:
        """`pods` as the ReplicaSet controller deletes them (`workloads.deletion`), ranked by
        the workload's pods on their nodes — old and new ReplicaSets alike (getIndirectlyRelatedPods),
        those this run bound where it bound them."""
        placed = self.scheduler.snapshot.placed
        related = [p for p in [*self.old.values(), *self.kept.values(), *self.created, *self.adopted]
                   if p.key in placed]
        return deletion_order(pods, self.now, related, lambda p: placed.get(p.key, p.node_name))

    def total(self) -> int:
        """The workload's pods, old and new, bound or not."""
        return len(self.old) + len(self.kept) + len(self.created)

    def available(self) -> int:
        """The workload's bound pods, old and new: counted, not walked, so that a DaemonSet's
        5,000 one-node steps stay linear (its own pods cannot preempt each other: same priority)."""
        return self.total() - len(self.pending)

    def keep_current(self, update: Update) -> None:
        """Set the running pods already at the manifest's template aside from the old ones: a
        Deployment's new ReplicaSet keeps them, and they count towards its replicas."""
        for key in update.current & self.old.keys():
            self.kept[key] = self.old.pop(key)

    def step(self, action: str, delete: Sequence[Pod], create: Sequence[Pod]) -> None:
        """Delete `delete` from the snapshot — their devices freed as the resourceclaim controller
        frees them, or a rollout of pods with claims would never find room its old pods leave —,
        then schedule `create` with the pods still pending."""
        for pod in delete:
            self.scheduler.snapshot.forget(pod.key)
            self.scheduler.nominator.forget(pod.key)
            self.old.pop(pod.key, None)
            self.kept.pop(pod.key, None)
            self.quotas.release(pod)
        self.prepared.release_claims(self.cluster, delete)
        gone = {p.key for p in delete}
        if gone:  # pods of its own the snapshot had pending may go too (a Job's)
            self.adopted = [p for p in self.adopted if p.key not in gone]
            self.pending = [p for p in self.pending if p.key not in gone]
            if self.waiting is not None:
                self.waiting.retry()
        available = self.available()
        queue = [*self.pending, *create]
        for result in self.scheduler.run(self._admitted(queue)):
            result.incomplete = needs_missing_plugin(result, self.missing)
            self.results[result.pod.key] = result
        self.created.extend(create)
        self.pending = [p for p in queue if not self.bound(p)]
        self.steps.append(Step(len(self.steps) + 1, action, len(delete), len(create), len(self.pending), available))

    def _admitted(self, pods: Sequence[Pod]) -> list[tuple[Pod, str | None]]:
        """Each pod through admission once, charged against the ResourceQuotas; one refused (an
        exceeded quota) is tried again at each step, as its controller retries creating it —
        deleted pods may have made room."""
        out: list[tuple[Pod, str | None]] = []
        for pod in pods:
            done = self.admitted.get(pod.key)
            if done is None:
                [(done, refused)] = admit([as_created(pod, self.now)], self.cluster, created=True, quotas=self.quotas)
                if refused is not None:
                    out.append((done, refused))
                    continue
                self.admitted[pod.key] = done
            out.append((done, None))
        return out

    def demote(self, pods: Sequence[Pod]) -> None:
        """Pods this rollout created for the old ReplicaSet (a scaling event's, `strategies`): the
        bound ones join the old pods, the pending ones are deleted — the unavailable old pods the
        controller deletes first (cleanupUnhealthyReplicas) —, and none is judged as the
        rollout's; what their scheduling evicted still counts (`transient`)."""
        gone = {p.key for p in pods}
        self.created = [p for p in self.created if p.key not in gone]
        self.pending = [p for p in self.pending if p.key not in gone]
        self.transient.extend(pods)
        for pod in pods:
            if self.bound(pod):
                self.old[pod.key] = pod
            else:
                self.scheduler.nominator.forget(pod.key)
                self.quotas.release(self.admitted.get(pod.key, pod))

    def adopt(self, pods: Sequence[Pod]) -> None:
        """Pods of the workload the snapshot had pending, scheduled by the run where they were
        in the queue: its own, bound or still pending; not running before, not created now."""
        for pod in pods:
            self.old.pop(pod.key, None)
        self.running = len(self.old)
        self.adopted.extend(pods)
        self.pending = [p for p in pods if not self.bound(p)]

    def rollout(self, change: str, update: Update, done: bool, note: str = "") -> Rollout:
        return Rollout(change, update.strategy.kind, len(update.new), self.running, self.steps, self.created,
                       done and not self.pending, note, self.adopted, transient=self.transient)


def names(pods: Sequence[Pod]) -> str:
    return listed([p.name for p in pods])


