"""Which workloads of the manifests already run, and the one run that schedules the new ones and
rolls out the existing ones on the same snapshot (see `kwhatif.check.rollout`)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace

from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import Pod
from kwhatif.check.rollout import Rollout, Stepper, Update, Waiting
from kwhatif.check.strategies import ROLLERS, keeps_pending, refuse
from kwhatif.config.profile import ProfileConfig
from kwhatif.engine import Prepared, Scenarios, Simulation, admit, is_pending, needs_missing_plugin, prepare
from kwhatif.framework.scheduler import PodResult
from kwhatif.whatif.pods import is_replaced, pod_names, recreated
from kwhatif.workloads import Expansion
from kwhatif.workloads.common import NameSet
from kwhatif.load.admission import AdmissionRejected, admit_pod
from kwhatif.load.quota import OBJECT_RESOURCES, QuotaLedger, object_count_keys
from kwhatif.workloads.existing import (
    POD_SPEC_REFUSED, PodIndex, as_pod_update_leaves, exists, job_refusal, live_replicas, recreated_by_helm,
    refused_update,
)
from kwhatif.workloads.strategy import Strategy, strategy_of
from kwhatif.workloads.templates import (
    LIMIT_RANGER_ANNOTATION, carrying_template, drops_from, with_injected, without_limit_ranger_defaults,
)


@dataclass
class Scheduled:
    """A check's run: the simulation, the expansion, and per workload group (by index) the
    rollout of an existing workload."""

    simulation: Simulation
    expansion: Expansion
    warnings: list[str]
    rollouts: dict[int, Rollout] = field(default_factory=dict)
    replacements: dict[str, str] = field(default_factory=dict)
    """A new pod bound, then evicted by a later preemption of the run → the pod its controller
    made in its place (`replace_evicted`)."""
    cluster: Cluster | None = None
    """The cluster the first run scheduled (the manifests' objects added): with `fresh`, the run
    an explanation of a new workload's pod replays."""

    def pods_of(self, index: int) -> list[Pod]:
        """The pods a workload brought: all of a new one's, those an update created."""
        rollout = self.rollouts.get(index)
        return rollout.pods if rollout is not None else self.expansion.groups[index].pods

    def judged(self, index: int) -> list[Pod]:
        """The pods a workload is judged by: those it brought, and its pending ones it kept."""
        rollout = self.rollouts.get(index)
        return self.pods_of(index) + (rollout.adopted if rollout is not None else [])

    @property
    def fresh(self) -> list[Pod]:
        """The new workloads' pods: those the first run scheduled beside the cluster's queue."""
        return fresh_pods(self.expansion, self.rollouts.keys())

    @property
    def new_pods(self) -> list[Pod]:
        return [p for i in range(len(self.expansion.groups)) for p in self.pods_of(i)]


def fresh_pods(expansion: Expansion, updated: Collection[int]) -> list[Pod]:
    """The pods of the groups that are not updates of running workloads, in input order."""
    return [p for i, g in enumerate(expansion.groups) if i not in updated for p in g.pods]


def plan_updates(cluster: Cluster, expansion: Expansion, index: PodIndex) -> dict[int, Update]:
    """The groups whose workload already runs (read before the manifests' objects are added;
    `index`: the cluster's pods, `PodIndex.of(cluster)`)."""
    out = {}
    for i, group in enumerate(expansion.groups):
        w = group.workload
        found, old = exists(cluster, index, w)
        if not found or recreated_by_helm(w):
            continue
        strategy = strategy_of(w, len(group.pods))
        live = cluster.workload_template(w.kind, w.namespace, w.name)
        current = _carrying(old, group.pods[:1], cluster, w.kind, live)
        job = w.kind == "Job"
        changed = len(current) < len(old) or job and _finished_pods_tell_a_change(index.finished_of(w), group.pods,
                                                                                    cluster)
        before = live_replicas(cluster, index, w)
        refused = refused_update(cluster, w) or (job_refusal(cluster, w, changed) if job else None) or \
            (_pod_refusal(old[0], group.pods[0], cluster) if w.kind == "Pod" and changed and old else None)
        new = _injected_as_before(group.pods, old, current, cluster) if changed else group.pods
        out[i] = Update(w, new, old, changed, strategy, group.pinned, group.keeps, refused,
                        len(old) if before is None else before, frozenset(p.key for p in current),
                        tuple(index.finished_of(w)) if job else (), cluster.jobs.get((w.namespace, w.name)))
    return out


def _injected_as_before(new: list[Pod], old: Sequence[Pod], current: Sequence[Pod], cluster: Cluster) -> list[Pod]:
    """The new template's pods with what a webhook injected into the newest pod of the old
    template (`templates.with_injected`, against its controller's template when the snapshot has
    it): the same webhook admits the new ones."""
    carrying = {id(p) for p in current}
    before = [p for p in old if id(p) not in carrying]
    if not before:
        return new
    newest = max(before, key=lambda p: (p.creation_timestamp, p.name))
    return [with_injected(p, newest, cluster.template_of(newest)) for p in new]


def refused_creations(cluster: Cluster, expansion: Expansion, updates: dict[int, Update]) -> dict[int, Update]:
    """The workloads whose creation the namespace's object-count quotas refuse (`count/deployments.apps`...),
    in input order, each one created counting against the next: a new workload's object, or its
    Deployment's first ReplicaSet — not one of its pods is ever made —, and the ReplicaSet a
    Deployment's new template needs — the object is updated, its rollout never starts (the
    controller's ReplicaSetCreateError). Both in the API server's words. The snapshot's quotas
    only: one the files bring (or change) has no status yet when the apply creates the objects
    beside it, and CheckRequest limits only what `status.hard` names."""
    counted = {key for kind in OBJECT_RESOURCES for key in object_count_keys(kind)}
    if not any(counted & set(q.hard) for q in cluster.resource_quotas):
        return {}
    ledger = QuotaLedger(cluster.resource_quotas, cluster.pods, list(cluster.pvcs.values()),
                         list(cluster.resource_claims.values()))
    out = {}
    for i, group in enumerate(expansion.groups):
        w, update = group.workload, updates.get(i)
        manifest = group.pods[0] if group.pods else None
        if w.kind not in OBJECT_RESOURCES or update is not None and not _needs_a_replica_set(cluster, update, manifest):
            continue
        new_set = manifest.controller_ref if w.kind == "Deployment" and manifest is not None else None
        try:
            if update is None:
                ledger.charge_object(w.kind, w.namespace, w.name, _objects_in(cluster, w.kind, w.namespace))
            if new_set is not None:
                ledger.charge_object("ReplicaSet", w.namespace, new_set.name,
                                     _objects_in(cluster, "ReplicaSet", w.namespace))
        except AdmissionRejected as refused:
            out[i] = (Update(w, group.pods, [], True, Strategy(""), group.pinned, group.keeps, str(refused)) if update is None
                      else replace(update, refused=f"the Deployment is updated, but the ReplicaSet of its new "
                                                   f"template is refused: {refused}"))
    return out


def _needs_a_replica_set(cluster: Cluster, update: Update, manifest: Pod | None) -> bool:
    """Whether a running Deployment's manifest makes its controller create a ReplicaSet: a new
    template (not refused) that no ReplicaSet of its has (FindNewReplicaSet: EqualIgnoreHash; one
    kept by revisionHistoryLimit at 0 replicas is scaled up again)."""
    if update.workload.kind != "Deployment" or not update.changed or update.refused or update.current:
        return False
    owned = [c.template for c in cluster.controllers.values()
             if c.kind == "ReplicaSet" and c.namespace == update.workload.namespace and c.owner is not None
             and c.owner.kind == "Deployment" and c.owner.name == update.workload.name and c.template is not None]
    return manifest is None or not any(carrying_template([t], [manifest], "Deployment") and not drops_from(t, manifest)
                                       for t in owned)


def _objects_in(cluster: Cluster, kind: str, namespace: str) -> int:
    """How many objects of a workload kind the snapshot has in the namespace (an object-count
    quota without a status counts them so)."""
    if kind == "DaemonSet":
        return sum(1 for ns, _ in cluster.daemonsets if ns == namespace)
    if kind == "Job":
        return sum(1 for ns, _ in cluster.jobs if ns == namespace)
    held = cluster.template_owners if kind in ("Deployment", "CronJob") else cluster.controllers
    return sum(1 for k, ns, _ in held if k == kind and ns == namespace)


def _pod_refusal(running: Pod, manifest: Pod, cluster: Cluster) -> str | None:
    """A running bare Pod's manifest that changes more of its spec than an update may: refused."""
    if _carrying([running], [as_pod_update_leaves(running, manifest)], cluster, "Pod"):
        return None
    return POD_SPEC_REFUSED.format(name=manifest.name)


def _finished_pods_tell_a_change(finished: Sequence[Pod], new: Sequence[Pod], cluster: Cluster) -> bool:
    """Whether a Job's finished pods were made from another template: a finished Job's template
    is as immutable as a running one's (ValidateJobSpecUpdate relaxes it only for a suspended Job
    that never started), so `kubectl apply` refuses the change — the Helm upgrade that fails on
    an old completed Job."""
    return len(_carrying(finished, new[:1], cluster, "Job")) < len(finished)


def _carrying(old: Sequence[Pod], new: Sequence[Pod], cluster: Cluster, kind: str,
              live: Pod | None = None) -> list[Pod]:
    """The running pods that carry the manifest's template, in `old`'s order. The controllers
    compare templates, which LimitRanger never touches (its defaults are the pods'): a pod whose
    annotation says what LimitRanger set is compared without those, with the template through
    admission but LimitRanger — whatever the namespace's LimitRange says today; a pod without the
    annotation got nothing from LimitRanger, or is a hand-written snapshot's that does not say:
    it carries the template as admission stores it today, or without LimitRanger (a LimitRange
    added since its pods were made). Then what the manifest removes from the template the pod was
    made from (`_dropping`; `live`: the workload object's own template,
    `Cluster.workload_template`) tells it does not carry the manifest's."""
    if not new:
        return carrying_template(old, new, kind)
    written = {id(p): without_limit_ranger_defaults(p) for p in old if LIMIT_RANGER_ANNOTATION in p.annotations}
    silent = [p for p in old if id(p) not in written]
    without = _admitted(new[0], cluster, limit_ranges=False)
    found = {id(p) for p in carrying_template(silent, [_admitted(new[0], cluster)], kind)}
    found |= {id(p) for p in carrying_template([*silent, *written.values()], [without], kind)}
    dropping = _dropping(cluster, old, new[0], live)
    return [p for p in old if id(written.get(id(p), p)) in found and id(p) not in dropping]


def _dropping(cluster: Cluster, old: Sequence[Pod], manifest: Pod, live: Pod | None) -> set[int]:
    """The ids of the pods made from a template the manifest leaves something out of (their
    controller's in the snapshot, else the workload object's, `live`): a new template, whatever
    the pods carry (`templates.drops_from`). A manifest of a workload whose last client-side
    apply the snapshot knows comes merged as `kubectl apply` merges it (`apply.as_applied`): what
    it leaves out there is what the apply removes. Judged once a template: a ReplicaSet's hundred
    pods share one."""
    verdicts: dict[int, bool] = {}
    out = set()
    for pod in old:
        template = cluster.template_of(pod) or live
        if template is None:
            continue
        if id(template) not in verdicts:
            verdicts[id(template)] = drops_from(template, manifest)
        if verdicts[id(template)]:
            out.add(id(pod))
    return out


def _admitted(pod: Pod, cluster: Cluster, limit_ranges: bool = True) -> Pod:
    """The template's pod as admission stores it — priority class defaulted, LimitRange defaults
    filled in (unless not `limit_ranges`), label keys merged — which is how the running pods
    carry it: compared raw, a manifest re-applied unchanged would read as a new template (and roll
    out, surge and all). Refused (a class only the files add): as written."""
    try:
        return admit_pod(pod, cluster.priority_classes, cluster.runtime_classes,
                         cluster.limit_ranges if limit_ranges else [], created=True)
    except AdmissionRejected:
        return pod


def run_with_updates(cluster: Cluster, now: str, expansion: Expansion, updates: dict[int, Update],
                     profiles: Sequence[ProfileConfig] | None, scenarios: Scenarios | None = None,
                     workloads_only: bool = False, node_detail: bool = True
                     ) -> tuple[Simulation, dict[int, Rollout], dict[str, str]]:
    """Schedule the cluster's pending pods and the new workloads' pods, then roll out each update
    in input order on the same snapshot, the pods still waiting tried again whenever a rollout
    deletes pods (`Waiting`). `cluster` already holds the manifests' objects; with
    `scenarios`, it is one of that engine's scenarios. `workloads_only`: only the workloads'
    outcomes are wanted, so with nothing to roll out the queue stops at their last pod (what
    comes later has no higher priority, so it can neither take their place nor evict them).
    `node_detail=False`: the attempts keep their outcomes only (nothing will show per-node detail).
    Last, the workloads' pods the run's preemptions evicted are recreated and scheduled
    (`replace_evicted`)."""
    stale = {id(p) for u in updates.values() for p in u.old if is_pending(p) and not keeps_pending(u, p)}
    if stale:
        cluster.pods = [p for p in cluster.pods if id(p) not in stale]
    fresh = fresh_pods(expansion, updates.keys())
    prepared = prepare(cluster, now, new_pods=fresh, profiles=profiles, scenarios=scenarios, node_detail=node_detail)
    first = prepared.run(until=frozenset(p.key for p in fresh) if workloads_only and not updates else None)
    results: dict[str, PodResult] = {r.pod.key: r for r in first.results}
    rollouts = {}
    waiting = Waiting(prepared, cluster, now, results, fresh) if updates else None
    for i, update in updates.items():
        stepper = Stepper(prepared, cluster, now, update, results, waiting)
        rollouts[i] = (refuse if update.refused else ROLLERS[update.workload.kind])(stepper, update)
    brought = [*fresh, *(p for r in rollouts.values() for p in r.pods)]
    replacements = replace_evicted(prepared, cluster, now, brought, results)
    sim = Simulation(list(results.values()), first.snapshot, first.warnings, first.initial_bound)
    return sim, rollouts, replacements


def replace_evicted(prepared: Prepared, cluster: Cluster, now: str, pods: Sequence[Pod],
                    results: dict[str, PodResult]) -> dict[str, str]:
    """The workloads' pods a later preemption of the run evicted (a rollout's surge pod, a
    higher-priority workload's) come back as their controllers recreate them at once — a
    ReplicaSet's or a Job's under a new name, a StatefulSet's under its own — and are scheduled
    after the run: the check judges a workload by the pods it ends with, not by one that was
    deleted. One round: what the replacements' own preemptions evict counts as evicted.
    Evicted key → its replacement's key."""
    evicted = {v.key for r in results.values() for a in r.attempts if a.preemption for v in a.preemption.victims}
    gone = [p for p in pods if p.key in evicted and is_replaced(p)]
    if not gone:
        return {}
    taken = pod_names([*cluster.pods, *pods])
    pools = {ns: NameSet(names) for ns, names in taken.items()}
    made = [recreated(p, now, pools.setdefault(p.namespace, NameSet(set())), "preempted") for p in gone]
    for pod in gone:
        prepared.quotas.release(pod)
    queue = admit(made, cluster, created=True, quotas=prepared.quotas)
    for result in prepared.scheduler.run(queue):
        result.incomplete = needs_missing_plugin(result, prepared.missing)
        results[result.pod.key] = result
    return {old.key: new.key for old, new in zip(gone, made)}
