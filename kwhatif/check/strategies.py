"""What each controller does, step by step, to bring running pods to a new manifest (the step
model is in `kwhatif.check.rollout`). Each function drives a `Stepper` and returns the `Rollout`.

- Deployment RollingUpdate (deployment/rolling.go rolloutRolling): each step is one sync of the
  controller, which either scales the new ReplicaSet up — NewRSNewReplicas: up to
  replicas + maxSurge pods in all, at most replicas new ones — or, when it cannot, scales the
  old pods down — reconcileOldReplicaSets: allowed while all − (replicas − maxUnavailable) −
  (new pods not available) > 0, by what keeps replicas − maxUnavailable pods available. Old pods
  go in the ReplicaSet controller's order (`Stepper.deletion_order`).
- Deployment Recreate (recreate.go): every old pod deleted, then every new pod created.
- Before either, a replica change with a new template is a scaling event (syncDeployment): the
  running ReplicaSet is resized first, with its own template (`_scaling_event`).
- A paused Deployment (spec.paused) is only scaled, with its running template: no new ReplicaSet.
- DaemonSet RollingUpdate (daemon/update.go rollingUpdate), nodes in name order: with maxSurge 0,
  the old pods of up to maxUnavailable − (new pods not yet available) nodes are deleted and their
  new pods created; with maxSurge > 0, new pods are created beside the old ones on up to
  maxSurge − (new pods not yet available) nodes, and an old pod is deleted once its node's new
  pod is bound. Nodes that should run the set but have no pod get one first, pods on nodes that
  should not run it are deleted (manage); OnDelete does only that.
- StatefulSet (stateful_set_control.go updateStatefulSet): missing ordinals created in order (one
  at a time, each bound before the next, unless podManagementPolicy is Parallel), ordinals beyond
  replicas deleted highest first, then RollingUpdate replaces the pods from the highest ordinal
  down to `partition`, one at a time, each new pod bound before the next. With OrderedReady, a pod
  of the set that is not Running (pending in the snapshot and still pending once the queue ran)
  stops everything at its ordinal (processReplica): it is never replaced, whatever the new
  template, until someone deletes it (kubernetes/kubernetes#67250) — it stays in the queue and the
  workload is judged by it. Missing ordinals below `partition` are created from the running
  pods' template (the current revision), the others from the manifest's.
- ReplicaSet and ReplicationController never replace running pods: only the replica count
  changes (new pods from the manifest's template). A running Job's template cannot change (the
  update is refused); its parallelism moves the pods it wants active (`roll_job`).
- A rollout to the manifest's template already in progress (some running pods carry it: the
  controllers tell them by their revision hash, kwhatif by comparing each pod with the template)
  goes on from where it is: those pods are kept — a Deployment's count towards its new
  ReplicaSet, a DaemonSet's nodes and a StatefulSet's ordinals that run one are not replaced."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields

from kwhatif.check.rollout import Rollout, Stepper, Update, names
from kwhatif.api.objects import Pod
from kwhatif.engine import is_pending
from kwhatif.text import listed
from kwhatif.whatif.pods import recreated, taken_names
from kwhatif.workloads.job import (
    completion_index, index_failed, is_indexed, job_pods, pending_indexes, wanted_active,
)
from kwhatif.workloads.statefulset import POD_INDEX_LABEL, POD_NAME_LABEL

PAUSED_NOTE = "paused: the new template waits for `kubectl rollout resume`; the running pods are kept"
ON_DELETE_NOTE = "OnDelete: the running pods keep the old template until they are deleted"
REPLICA_SET_NOTE = "a {kind} does not replace its running pods when its template changes; only new pods use it"
POD_NOTE = ("updated in place (its images, labels, annotations or added tolerations: the kubelet restarts a "
            "container whose image changed); the pod keeps its node")
ORDERED_READY_NOTE = ("OrderedReady: the controller waits for {pod} to be Running and Ready before it creates, deletes "
                      "or replaces any other pod; a pod that never starts is not replaced by the new template until "
                      "it is deleted by hand (kubectl delete pod {pod}; kubernetes/kubernetes#67250)")


def scale(s: Stepper, u: Update, note: str = "", grown: Sequence[Pod] | None = None, how: str = "") -> Rollout:
    """A ReplicaSet-like scale: missing replicas created (from the manifest's pods, or `grown`
    said `how`), extra ones deleted in ranked order — its pods the snapshot had pending among
    its replicas (`NEVER_REPLACING`), and the first deleted (ActivePodsWithRanks: unassigned first)."""
    s.adopt([p for p in u.old if is_pending(p) and keeps_pending(u, p)])
    have, want = len(s.old) + len(s.adopted), len(u.new)
    if want > have:
        s.step(f"scale up from {have} to {want} pods{how}", [], list(u.new if grown is None else grown)[:want - have])
    elif want < have:
        s.step(f"scale down from {have} to {want} pods", s.deletion_order([*s.adopted, *s.old.values()])[:have - want], [])
    return s.rollout("scale" if want != have else "unchanged", u, True, note)


def roll_deployment(s: Stepper, u: Update) -> Rollout:
    """An unchanged template scales; a paused Deployment only scales, with its old template;
    a replica change comes first (`_scaling_event`); then Recreate empties and fills, and
    RollingUpdate alternates the controller's scale-up and scale-down until neither can move.
    A rollout to the manifest's template in progress (some pods carry it already) goes on from
    where it is: its new ReplicaSet keeps those pods (reconcileNewReplicaSet scales it down
    first if it has more than the replicas). Its replica change is not simulated as the
    controller's proportional scaling of both ReplicaSets: the rollout goes to the new count."""
    if not u.changed:  # more pods: the running ReplicaSet's (its pod-template-hash, which matchLabelKeys may read)
        grown = _copies(s, len(u.new) - len(s.old), "scale") if s.old and len(u.new) > len(s.old) else None
        return scale(s, u, grown=grown)
    if u.workload.spec.get("paused") is True:
        return _paused(s, u)
    s.keep_current(u)
    if s.kept:
        _trim_new_replica_set(s, u)
    else:
        _scaling_event(s, u)
    note = IN_PROGRESS_NOTE.format(count=len(s.kept)) if s.kept else ""
    unused = list(u.new)[:max(0, len(u.new) - len(s.kept))]
    if u.strategy.kind == "Recreate":
        if s.old:
            s.step(f"delete the {len(s.old)} old pods", list(s.old.values()), [])
        if unused:
            s.step(f"create the {len(unused)} new pods", [], unused)
        return s.rollout("update", u, True, note)
    while True:
        up = _surge_room(s, u, len(unused))
        if up > 0:
            created, unused = unused[:up], unused[up:]
            s.step(f"scale the new ReplicaSet up to {len(s.kept) + len(s.created) + up}", [], created)
            continue
        down = _scale_down_room(s, u)
        if down > 0:
            victims = s.deletion_order(list(s.old.values()))[:down]
            s.step(f"scale the old pods down to {len(s.old) - down}: delete {names(victims)}", victims, [])
            continue
        return s.rollout("update", u, not unused and not s.old, note)


IN_PROGRESS_NOTE = "a rollout to this template is in progress: the {count} pod(s) already at it are kept"


def _trim_new_replica_set(s: Stepper, u: Update) -> None:
    """A new ReplicaSet with more pods than the replicas is scaled down to them first, its extra
    pods in ranked order (rolling.go reconcileNewReplicaSet). The controller gets there by its
    scaling event (sync.go scale), which shrinks the old ReplicaSets too, in proportion: not
    simulated, as the module docstring says."""
    extra = len(s.kept) - len(u.new)
    if extra > 0:
        victims = s.deletion_order(list(s.kept.values()))[:extra]
        s.step(f"scale the new ReplicaSet down to {len(u.new)}: delete {names(victims)}", victims, [])


def _scaling_event(s: Stepper, u: Update) -> None:
    """deployment_controller.go syncDeployment: a replica count other than the one the running
    ReplicaSet was sized for (isScalingEvent: its desired-replicas annotation) is synced
    before any rollout — sync/scale resize the active old ReplicaSet, with its own template, to
    the new count — and the new template rolls at the next sync. More replicas: copies of the
    running pods, scheduled now (what they evict counts); those that stay pending are the first
    old pods the rollout deletes. Fewer: old pods deleted in ranked order."""
    have, want = len(s.old), len(u.new)
    if want == u.replicas_before or want == have or not s.old:
        return
    how = "a scaling event first (the new template rolls at the next sync)"
    if want < have:
        victims = s.deletion_order(list(s.old.values()))[:have - want]
        s.step(f"{how}: the old pods scaled down from {have} to {want}: delete {names(victims)}", victims, [])
        return
    copies = _copies(s, want - have, "scaling-event")
    s.step(f"{how}: the old ReplicaSet scaled up from {have} to {want} pods (the old template)", [], copies)
    s.demote(copies)


def _paused(s: Stepper, u: Update) -> Rollout:
    """deployment_controller.go syncDeployment: a paused Deployment is only synced (scaled); its
    new template makes no ReplicaSet until `kubectl rollout resume`, so more replicas are copies
    of the running pods and none is replaced."""
    have, want = len(s.old), len(u.new)
    if not s.old:
        return s.rollout("scale" if want != have else "unchanged", u, True, PAUSED_NOTE)
    return scale(s, u, PAUSED_NOTE, _copies(s, want - have, "paused") if want > have else [], " (the old template)")


def _copies(s: Stepper, count: int, why: str) -> list[Pod]:
    """`count` new pods like the running ones (their controller's own template), named as their
    ReplicaSet names its pods."""
    model = next(iter(s.old.values()))
    taken = taken_names(s.cluster, model.namespace)
    return [recreated(model, s.now, taken, f"{why}/{i}") for i in range(count)]


def _surge_room(s: Stepper, u: Update, unused: int) -> int:
    """deployment_util.go NewRSNewReplicas: new pods to create now."""
    return min(max(0, len(u.new) + u.strategy.max_surge - s.total()), unused)


def _scale_down_room(s: Stepper, u: Update) -> int:
    """rolling.go reconcileOldReplicaSets + scaleDownOldReplicaSetsForRollingUpdate: old pods to
    delete now."""
    replicas = len(u.new)
    min_available = replicas - min(u.strategy.max_unavailable, replicas)
    if s.total() - min_available - len(s.pending) <= 0:
        return 0
    return min(len(s.old), max(0, s.available() - min_available))


def roll_daemonset(s: Stepper, u: Update) -> Rollout:
    """The manage step first (pods for nodes without one, none on nodes that should not run it),
    then the rolling update within maxUnavailable, or beside the old pods with maxSurge. A node
    that runs an updated pod already (a rollout in progress) is done; with maxSurge, one caught
    mid-surge (its updated pod bound beside the old one) has its old pod deleted first
    (update.go rollingUpdate: "we have already surged onto this node"). Without surge the
    controller keeps a node's oldest pod of two and replaces it: the node is replaced as a whole."""
    new_on = {u.pinned[p.key]: p for p in u.new}
    old_on: dict[str, list[Pod]] = {}
    for pod in s.old.values():
        old_on.setdefault(pod.node_name, []).append(pod)
    replaced = u.changed and u.strategy.kind != "OnDelete"  # an old pod is an update candidate, with no successor
    gone = [p for node, pods in sorted(old_on.items()) if node not in new_on and (replaced or node not in u.keeps)
            for p in pods]
    fresh = [pod for node, pod in sorted(new_on.items()) if node not in old_on]
    if gone or fresh:
        parts = [f"create {names(fresh)} on nodes without a pod"] if fresh else []
        parts += [f"delete {names(gone)} on nodes that should not run it"] if gone else []
        s.step(", ".join(parts), gone, fresh)
    surge = u.strategy.max_surge > 0
    updated = {n: p for n, pods in old_on.items() if n in new_on for p in pods if p.key in u.current
               and (surge or all(q.key in u.current for q in pods))}
    todo = sorted(n for n in old_on if n in new_on and n not in updated)
    if not u.changed:
        return s.rollout("scale" if gone or fresh else "unchanged", u, True)
    if u.strategy.kind == "OnDelete":
        return s.rollout("update", u, True, ON_DELETE_NOTE)
    note = IN_PROGRESS_NOTE.format(count=len(updated)) if updated else ""
    if surge:
        surged = {n: [p for p in old_on[n] if p.key not in u.current] for n in updated}
        return _surge_daemonset(s, u, todo, {**new_on, **updated}, {**old_on, **surged},
                                [n for n in sorted(surged) if surged[n]], note)
    while todo:
        budget = u.strategy.max_unavailable - len(s.pending)
        if budget <= 0:
            break
        batch, todo = todo[:budget], todo[budget:]
        olds = [p for n in batch for p in old_on[n]]
        s.step(f"replace {names(olds)} (on {listed(batch)})", olds, [new_on[n] for n in batch])
    return s.rollout("update", u, not todo, note)


def _surge_daemonset(s: Stepper, u: Update, todo: list[str], new_on: dict[str, Pod],
                     old_on: dict[str, list[Pod]], surging: list[str], note: str) -> Rollout:
    """maxSurge > 0: the new pod beside the old one; the old one goes once the new one is bound.
    `surging`: the nodes with both pods (at most maxSurge of them are waiting at once), at first
    those a rollout in progress left so."""
    while True:
        ready = [n for n in surging if s.bound(new_on[n])]
        surging = [n for n in surging if n not in ready]
        olds = [p for n in ready for p in old_on[n]]
        room = max(0, u.strategy.max_surge - len(surging))
        batch, todo = todo[:room], todo[room:]
        if not olds and not batch:
            return s.rollout("update", u, not todo and not surging, note)
        created = [new_on[n] for n in batch]
        parts = [f"create {names(created)} beside the old pods"] if created else []
        parts += [f"delete {names(olds)}"] if olds else []
        s.step(", ".join(parts), olds, created)
        surging.extend(batch)


def _ordinal(pod: Pod) -> int:
    """The pod's ordinal: its `apps.kubernetes.io/pod-index` label, else its name's suffix."""
    label = pod.labels.get(POD_INDEX_LABEL, "")
    suffix = pod.name.rsplit("-", 1)[-1]
    return int(label) if label.isdigit() else int(suffix) if suffix.isdigit() else -1


def roll_statefulset(s: Stepper, u: Update) -> Rollout:
    """Scale up, then down, then replace from the highest ordinal to the partition; the
    controller waits wherever a pod it created is not bound, and (OrderedReady) wherever one of
    its pods in range is still pending."""
    new_by = _at_revisions({_ordinal(p): p for p in u.new}, s, u)
    old_by = {_ordinal(p): p for p in s.old.values()}
    waiting = {} if u.strategy.parallel else {o: p for p in u.old if (o := _ordinal(p)) in new_by and not s.bound(p)}
    missing = [new_by[o] for o in sorted(new_by) if o not in old_by and o not in waiting]
    if missing and u.strategy.parallel:
        s.step(f"create {names(missing)}", [], missing)
    for ordinal in [] if u.strategy.parallel else sorted(new_by):
        if ordinal in waiting:  # processReplica: not Running and Ready, so nothing moves
            s.adopt([waiting[ordinal]])
            note = ORDERED_READY_NOTE.format(pod=waiting[ordinal].name)
            return s.rollout("update" if u.changed else "scale" if missing else "unchanged", u, False, note)
        if ordinal in old_by:
            continue
        pod = new_by[ordinal]
        s.step(f"create {pod.name}", [], [pod])
        if not s.bound(pod):  # OrderedReady: the controller waits for this pod
            return s.rollout("update" if u.changed else "scale", u, False)
    condemned = [old_by[o] for o in sorted(old_by, reverse=True) if o not in new_by]
    if condemned:
        s.step(f"delete {names(condemned)}", condemned, [])
    # or a pending pod beyond the new count, deleted before the rollout (keeps_pending)
    scaled = bool(missing or condemned or u.replicas_before != len(u.new))
    if not u.changed:
        return s.rollout("scale" if scaled else "unchanged", u, True)
    if u.strategy.kind == "OnDelete":
        return s.rollout("update", u, True, ON_DELETE_NOTE)
    start = min(new_by) if new_by else 0
    in_range = [o for o in sorted(new_by, reverse=True) if o >= start + u.strategy.partition]
    updated = sum(1 for o in in_range if o in old_by and old_by[o].key in u.current)
    notes = [f"partition {u.strategy.partition}: lower ordinals keep the old template"] if u.strategy.partition else []
    note = "; ".join(notes + ([IN_PROGRESS_NOTE.format(count=updated)] if updated else []))
    replaced = False
    for ordinal in in_range:
        if ordinal in old_by and old_by[ordinal].key not in u.current:
            s.step(f"replace {old_by[ordinal].name}", [old_by[ordinal]], [new_by[ordinal]])
            replaced = True
            if not s.bound(new_by[ordinal]):
                return s.rollout("update", u, False, note)
    # Nothing replaced: every ordinal from the partition up runs the template already.
    return s.rollout("update" if replaced or missing else "scale" if scaled else "unchanged", u, True, note)


_POD_FIELDS = [f.name for f in fields(Pod)]
_TEMPLATE_FIELDS = tuple(_POD_FIELDS[_POD_FIELDS.index("scheduler_name"):_POD_FIELDS.index("volumes")])
"""The Pod fields its template decides, but for its volumes (a StatefulSet's claims are the
ordinal's, whatever the revision)."""


def _at_revisions(new_by: dict[int, Pod], s: Stepper, u: Update) -> dict[int, Pod]:
    """stateful_set_control.go newVersionedStatefulSetPod: a missing ordinal below `partition` is
    created at the current revision — the running pods' template (that of the lowest ordinal,
    which a partitioned update never reaches) — with its own name, identity labels and claims."""
    if not (u.changed and u.strategy.partition and s.old):
        return new_by
    model = min(s.old.values(), key=_ordinal)
    below = min(new_by, default=0) + u.strategy.partition
    return {o: _at_revision(pod, model) if o < below else pod for o, pod in new_by.items()}


def _at_revision(new: Pod, model: Pod) -> Pod:
    identity = {k: new.labels[k] for k in (POD_NAME_LABEL, POD_INDEX_LABEL) if k in new.labels}
    return new.evolve(labels={**model.labels, **identity}, annotations=model.annotations,
                      **{name: getattr(model, name) for name in _TEMPLATE_FIELDS})


def roll_replicaset(s: Stepper, u: Update) -> Rollout:
    """Only the replica count moves: a changed template reaches new pods alone."""
    return scale(s, u, REPLICA_SET_NOTE.format(kind=u.workload.kind) if u.changed else "")


def keep_running(s: Stepper, u: Update) -> Rollout:
    """A running bare Pod is left alone (most of its spec cannot change); the snapshot's pod if
    pending stayed in the queue (KEPT) and counts as its own: if it does not fit, the check
    fails, as it would stay pending."""
    s.adopt([p for p in u.old if is_pending(p)])
    return s.rollout("unchanged", u, True, POD_NOTE if u.changed else "")


def roll_job(s: Stepper, u: Update) -> Rollout:
    """A running Job keeps its pods (its template cannot change: `plan_updates` refuses a new
    one); those the snapshot had pending stayed in the queue (KEPT) and count as its own. A new
    parallelism — or an Indexed Job's completions with it — changes how many it wants active
    (job_controller.go manageJob, its progress from `_job_progress`): the missing ones are
    created (an Indexed Job's for its lowest indexes neither active, done nor given up), extra
    ones deleted, the unbound first, then the newest (activePodsForRemoval). A finished Job —
    its object says so, or, without it, it has finished pods and none active — is left alone."""
    s.adopt([p for p in u.old if is_pending(p)])
    w = u.workload
    active = [*s.old.values(), *s.adopted]
    if u.job.finished if u.job is not None else not active and u.finished:
        return s.rollout("unchanged", u, True, JOB_FINISHED_NOTE)
    succeeded, done, given_up, terminating = _job_progress(u)
    want = wanted_active(w, succeeded, len(active), u.job)
    more = want - terminating - len(active)  # manageJob: terminating pods count under onlyReplaceFailedPods
    if more > 0:
        taken = done | given_up | {i for p in active if (i := completion_index(p)) is not None}
        pods = job_pods(w, pending_indexes(w, taken, more, u.job) if is_indexed(w) else range(more))
        s.step(f"create {len(pods)} pods: {want} wanted active, {succeeded} completions done", [], pods)
        return s.rollout("scale", u, True)
    if want < len(active):
        newest_first = sorted(active, key=lambda p: p.creation_timestamp, reverse=True)
        victims = sorted(newest_first, key=s.bound)[:len(active) - want]
        s.step(f"delete {names(victims)}: {want} wanted active", victims, [])
        return s.rollout("scale", u, True)
    return s.rollout("unchanged", u, True)


def _job_progress(u: Update) -> tuple[int, set[int], set[int], int]:
    """(completions done, indexes done, indexes given up, terminating pods to wait for), as the
    Job controller counts them: from the Job object's status when the snapshot has it (its
    Succeeded pods may be gone), else from its finished pods."""
    w, job = u.workload, u.job
    if job is not None:
        done = set(job.completed_indexes)
        return (len(done) if job.indexed else job.succeeded), done, set(job.failed_indexes), \
            job.terminating if job.replace_failed_only else 0
    succeeded = [p for p in u.finished if p.phase == "Succeeded"]
    done = {i for p in succeeded if (i := completion_index(p)) is not None}
    given_up = {i for p in u.finished if index_failed(w, p) and (i := completion_index(p)) is not None}
    return (len(done) if is_indexed(w) else len(succeeded)), done, given_up, 0


JOB_FINISHED_NOTE = ("the Job controller manages this Job no more (finished, being deleted, or another controller's): "
                     "nothing is created again")


def refuse(s: Stepper, u: Update) -> Rollout:
    """An update the API server refuses: the running workload is left as it is."""
    rollout = s.rollout("refused", u, False)
    rollout.refused = u.refused
    return rollout


ROLLERS = {"Deployment": roll_deployment, "DaemonSet": roll_daemonset, "StatefulSet": roll_statefulset,
           "ReplicaSet": roll_replicaset, "ReplicationController": roll_replicaset, "Job": roll_job,
           "Pod": keep_running}
NEVER_REPLACING = ("ReplicaSet", "ReplicationController")
"""Kinds that only scale, whatever their template (a Deployment: when its template is unchanged):
a pod of theirs the snapshot has pending is one of the replicas — kept where it is in the queue,
counted, and the first deleted by a scale-down."""
KEPT = ("Job", "Pod")
"""Kinds whose pending pods stay in the queue where they are: nothing replaces them."""


def keeps_pending(u: Update, pod: Pod) -> bool:
    """Whether a pod of the workload that the snapshot has pending stays in the queue, where it
    is — a `KEPT` or `NEVER_REPLACING` kind's, an unchanged Deployment's, a refused update's, and
    an OrderedReady StatefulSet's within its new replica count, which its controller waits for
    (one beyond it is condemned: deleted) —
    instead of being deleted before the rollout, as controllers delete unavailable old pods first."""
    kind = u.workload.kind
    if kind in KEPT or kind in NEVER_REPLACING or u.refused is not None or (kind == "Deployment" and not u.changed):
        return True
    return (u.workload.kind == "StatefulSet" and not u.strategy.parallel
            and _ordinal(pod) in {_ordinal(p) for p in u.new})
