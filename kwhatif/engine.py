"""The composition root: assembles profiles from the plugin registry and runs a simulation.

Data flows one way: Cluster → admission → Snapshot → Scheduler(Framework + plugins) → results.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Callable, Collection, Iterator, Sequence

from kwhatif.api.dra import ResourceClaim, ResourceSlice, reserved_claims
from kwhatif.api.objects import Node, Pod
from kwhatif.api.quantity import format_amount
from kwhatif.config.profile import ProfileConfig, default_profile
from kwhatif.framework.interfaces import POINTS_BY_NAME, Plugin
from kwhatif.framework.runtime import Framework, PluginSet
from kwhatif.framework.scheduler import NominatedPods, Outcome, PodResult, Scheduler
from kwhatif.load.admission import AdmissionRejected, admit_existing, admit_pod, missing_classes
from kwhatif.load.quota import QuotaLedger, claim_exists
from kwhatif.memory import collector_paused
from kwhatif.plugins.dynamic_resources.claims import generated_name
from kwhatif.plugins.dynamic_resources.index import dra_of
from kwhatif.plugins.registry import REGISTRY
from kwhatif.plugins.volume_binding.storage import claim_class, default_class, with_default_class
from kwhatif.api.cluster import Cluster
from kwhatif.errors import located
from kwhatif.snapshot.pod_info import PodInfo, claim_names
from kwhatif.snapshot.snapshot import Snapshot
from kwhatif.text import listed

_VOLUME_PLUGINS = ("VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone")


class ProfileHandle:
    """What plugins of one profile may reach: the live snapshot and their own framework."""

    def __init__(self, snapshot: Snapshot, now: str) -> None:
        self.snapshot = snapshot
        self.now = now
        self.framework: Framework | None = None


def build_framework(profile: ProfileConfig, snapshot: Snapshot, nominator: NominatedPods, now: str) -> Framework:
    """Instantiate each plugin of the profile once, with its typed arguments, and place it at the
    extension points the runner calls."""
    handle = ProfileHandle(snapshot, now)
    instances: dict[str, Plugin] = {}
    plugin_set = PluginSet(weights=dict(profile.weights))
    for point_name, names in profile.points.items():
        point = POINTS_BY_NAME[point_name]
        if point.runner_field is None:
            continue
        for name in names:
            if name not in instances:
                instances[name] = REGISTRY[name](profile.plugin_args.get(name), handle)
            plugin_set.add(point, instances[name])
    percentage = profile.percentage_of_nodes_to_score
    if percentage is None:
        percentage = profile.global_percentage_of_nodes_to_score
    fwk = Framework(profile.scheduler_name, plugin_set, nominator, percentage)
    handle.framework = fwk
    return fwk


@dataclass
class Simulation:
    """The outcome of scheduling a queue: per-pod results in scheduling order."""

    results: list[PodResult]
    snapshot: Snapshot
    warnings: list[str]
    initial_bound: int = 0


ADMISSION = "admission: "
"""How a pod the API server's admission refuses is told (its error follows): skipped, never
scheduled."""


def admit(pods: Sequence[Pod], cluster: Cluster, created: bool,
          quotas: QuotaLedger | None = None) -> list[tuple[Pod, str | None]]:
    """Each pod after the API server's admission, or with the text of its refusal. A pod created
    from a manifest into a namespace the snapshot lacks, or one being deleted, is refused as
    NamespaceLifecycle refuses it (a missing one judged only when the input has Namespace objects
    at all: a bare pod list says nothing). `quotas` charges the pods being created (and pending
    ones never created: no creationTimestamp)."""
    out: list[tuple[Pod, str | None]] = []
    for pod in pods:
        if created and cluster.namespaces and pod.namespace not in cluster.namespaces:
            out.append((pod, f'admission: namespaces "{pod.namespace}" not found'))
            continue
        namespace = cluster.namespaces.get(pod.namespace)
        if created and namespace is not None and namespace.terminating:
            out.append((pod, f'{ADMISSION}pods "{pod.name}" is forbidden: unable to create new content in namespace '
                             f"{pod.namespace} because it is being terminated"))
            continue
        try:
            admitted = admit_pod(pod, cluster.priority_classes, cluster.runtime_classes,
                                 cluster.limit_ranges, created=created)
        except AdmissionRejected as rejected:
            out.append((pod, f"{ADMISSION}{rejected}"))
            continue
        try:  # ResourceQuota comes last in the chain: the pod it refuses has its priority already
            if quotas is not None and (created or not pod.creation_timestamp):
                charge_new_claims(pod, cluster, quotas)
                quotas.charge(admitted)
                charge_template_claims(admitted, cluster, quotas)
            out.append((admitted, None))
        except AdmissionRejected as rejected:
            out.append((admitted, f"{ADMISSION}{rejected}"))
    return out


def charge_new_claims(pod: Pod, cluster: Cluster, quotas: QuotaLedger) -> None:
    """The claims a workload brings that `pod`, being created, is the first to use, charged to
    the quotas as their creation is (a StatefulSet creates its pod's claims just before the pod);
    a refusal refuses the pod: the controller does not create it (a StatefulSet), or it would wait
    for a claim that never comes."""
    for name in claim_names(pod):
        claim = cluster.pvcs.get((pod.namespace, name))
        if claim is None or claim_exists(claim):
            continue
        try:
            quotas.charge_claim(claim, claim_class(with_default_class(claim, default_class(cluster.storage_classes))))
        except AdmissionRejected as refused:
            owner = pod.controller_ref
            if owner is not None and owner.kind == "StatefulSet":  # stateful_set_control.go's event
                raise AdmissionRejected(f"create Claim {name} for Pod {pod.name} in StatefulSet {owner.name} failed "
                                        f"error: {refused}") from None
            raise AdmissionRejected(f"its claim {name} is refused: {refused}; the pod would wait for it") from None


def charge_template_claims(pod: Pod, cluster: Cluster, quotas: QuotaLedger) -> None:
    """The ResourceClaims the resourceclaim controller makes from the templates of `pod`, just
    created (and charged): each charged as its creation is; one refused leaves the pod created
    and waiting for a claim that never comes (reported skipped, with the quota's words)."""
    for entry in pod.resource_claims:
        template_name = entry.get("resourceClaimTemplateName")
        template = cluster.claim_templates.get((pod.namespace, str(template_name))) if template_name else None
        if template is None:
            continue
        name = generated_name(pod, str(entry.get("name", "")))
        try:
            quotas.charge_device_claim(pod.namespace, name, template.requests)
        except AdmissionRejected as refused:
            raise AdmissionRejected(f"its claim {name} is refused: {refused}; the pod would wait for it") from None


CAPTURE_STORAGE = ("capture them too: kubectl get storageclasses,pv,pvc,csinodes,csidrivers,csistoragecapacities "
                   "-A -o json (or kwhatif snapshot)")


def storage_missing(cluster: Cluster, new_pods: Sequence[Pod]) -> list[str]:
    """What a snapshot taken without its storage objects would make pods read as: claims of pods
    to schedule that the snapshot lacks while it has no PersistentVolumeClaim at all, and claims
    that wait for a volume while it has no StorageClass nor PersistentVolume — each pod would read
    as unschedulable for a reason the cluster lacks. (A claim missing from a snapshot that has
    claims is missing: the scheduler's `persistentvolumeclaim "x" not found` says so.)"""
    pending = [p for p in cluster.pods if is_pending(p)] + list(new_pods)
    claims = sorted({(p.namespace, name) for p in pending for name in claim_names(p)})
    absent = [f"{ns}/{name}" for ns, name in claims if (ns, name) not in cluster.pvcs] if not cluster.pvcs else []
    unbound = [f"{ns}/{name}" for ns, name in claims
               if (ns, name) in cluster.pvcs and not cluster.pvcs[(ns, name)].volume_name]
    out = []
    if absent:
        out.append(f"{len(absent)} PersistentVolumeClaim(s) the pods use are not in the snapshot ({listed(absent)}), "
                   "which has no claim at all: it was probably taken without them (else create them); "
                   + CAPTURE_STORAGE)
    if unbound and not (cluster.storage_classes or cluster.pvs):
        out.append(f"{len(unbound)} PersistentVolumeClaim(s) wait for a volume ({listed(unbound)}) and the snapshot "
                   "has no StorageClass nor PersistentVolume: it was probably taken without them, so these claims "
                   "cannot bind here; " + CAPTURE_STORAGE)
    return out


def admit_bound(pods: Sequence[Pod], cluster: Cluster) -> tuple[list[Pod], list[str]]:
    """The bound pods as the API server would hold them (see `admit_existing`); one it would
    refuse runs all the same (the snapshot says so) at priority 0, with a warning."""
    out: list[Pod] = []
    warnings: list[str] = []
    for pod in pods:
        try:
            out.append(admit_existing(pod, cluster.priority_classes, cluster.runtime_classes))
        except AdmissionRejected as rejected:
            warnings.append(f"{located(pod.source)}Pod/{pod.namespace}/{pod.name}: bound, but the API server would refuse it: "
                            f"{rejected}; kept on {pod.node_name} at priority 0")
            out.append(pod)
    return out, warnings


def _amount(resource: str, value: int) -> str:
    """Millicores as cores when whole; bytes with the largest exact binary suffix."""
    return format_amount(resource, value, whole_cores=True)


def overcommitted_nodes(snapshot: Snapshot) -> list[str]:
    """Nodes whose bound pods request more than they have: kept (the dump says they run there),
    with a warning, since every later placement there will fail."""
    warnings = []
    for info in sorted(snapshot.node_infos, key=lambda n: n.name):
        used, alloc = info.requested, info.allocatable
        pairs = [("cpu", used.milli_cpu, alloc.milli_cpu), ("memory", used.memory, alloc.memory),
                 ("ephemeral-storage", used.ephemeral_storage, alloc.ephemeral_storage),
                 ("pods", len(info.pods), info.allowed_pods)]
        pairs += [(name, n, alloc.scalars.get(name, 0)) for name, n in sorted(used.scalars.items())]
        over = [f"{name} {_amount(name, want)} requested, {_amount(name, have)} allocatable"
                for name, want, have in pairs if want > have and want > 0]
        if over:
            warnings.append(f"{located(info.node.source)}Node/{info.name}: its bound pods request more than it has ({'; '.join(over)}); "
                            "kept, since the dump says they run there")
    return warnings


def as_created(pod: Pod, now: str) -> Pod:
    """A manifest pod as the API server stores it: created now (its queue timestamp)."""
    return pod if pod.creation_timestamp else pod.evolve(creation_timestamp=now)


def placed_again(cluster: Cluster, key: str) -> Cluster | None:
    """The cluster with the bound pod `key` back in the queue, alone, everything else where it is:
    `explain` of a bound pod re-runs its own placement. kwhatif cannot know the cluster as it was
    when the pod was scheduled, so the answer is where kube-scheduler would place it now. None
    when no bound pod has that key."""
    pod = next((p for p in cluster.pods if is_bound(p) and p.key == key), None)
    if pod is None:
        return None
    again = cluster.copy()
    again.pods = [p for p in cluster.pods if is_bound(p) and p is not pod]
    again.pods.append(pod.evolve(node_name="", nominated_node_name="", phase="Pending"))
    return again


def input_pod(cluster: Cluster, new_pods: Sequence[Pod], key: str) -> Pod | None:
    """The pending pod `key` as read from the input (before admission): what a what-if changes."""
    return next((p for p in [*new_pods, *cluster.pods] if p.key == key and is_pending(p)), None)


def rerun_with(cluster: Cluster, now: str, new_pods: Sequence[Pod], variant: Pod,
               profiles: Sequence[ProfileConfig] | None, nodes: Sequence[Node] = (),
               removed: Collection[str] = (), scenarios: Scenarios | None = None,
               added_pods: Sequence[Pod] = (), added_slices: Sequence[ResourceSlice] = ()) -> PodResult | None:
    """The same scenario — the queue up to and including this pod — with `variant` in place of
    the input pod of the same key, each of `nodes` in place of the node of its name (or added),
    the pods of the `removed` keys deleted and `added_pods` (the DaemonSet pods of added nodes)
    pending at the end of the cluster's queue: how a suggestion is proven before it is shown."""
    key = variant.key
    base, pods = cluster.copy(), list(new_pods)
    if any(p.key == key for p in new_pods):
        pods = [variant if p.key == key else p for p in new_pods]
    else:
        base.pods = [variant if is_pending(p) and p.key == key else p for p in cluster.pods]
    if removed:
        base.pods = [p for p in base.pods if p.key not in removed]
    base.pods += added_pods
    base.resource_slices.update((s.name, s) for s in added_slices)
    changed = {n.name: n for n in nodes}
    base.nodes = [changed.pop(n.name, n) for n in cluster.nodes] + list(changed.values())
    # Only the pod's outcome is asked for: scheduled up to it, without the explanation's analysis.
    sim = prepare(base, now, new_pods=pods, profiles=profiles, scenarios=scenarios).run(
        until=frozenset({key}))
    return next((r for r in sim.results if r.pod.key == key), None)


class PodTrials:
    """One pod of a scenario decided once — the queue up to and including it — and then tried
    again with a change, from checkpoints of that same run instead of a new one:

    - only the pod changed, and it keeps its place in the queue: nothing before it can differ,
      so only its own cycle runs again, from the checkpoint just before it;
    - pods deleted, or the pod moved in the queue (a new priority): the queue runs again from
      the start, on the same snapshot (its indexes stay warm);
    - nodes changed or added: earlier pods may land elsewhere and every index over the nodes
      changes, so the whole scenario is simulated again (`rerun_with`), on a snapshot derived
      from the cluster's (`Scenarios`) rather than built from nothing.
    After each try the snapshot is back where the first run left it, so whatever reads it
    (the explanation, the suggestions' node lookups) sees that run only."""

    def __init__(self, cluster: Cluster, now: str, new_pods: Sequence[Pod], key: str,
                 profiles: Sequence[ProfileConfig] | None) -> None:
        self.cluster, self.now, self.new_pods, self.key, self.profiles = cluster, now, new_pods, key, profiles
        self.prepared = prepare(cluster, now, new_pods, profiles, explain=frozenset({key}))
        scheduler = self.prepared.scheduler
        self.start = scheduler.checkpoint()
        # A checkpoint before every pod up to this one: a try that moves the pod ahead in the
        # queue replays from its new place (`_queue_again`).
        self.sim = self.prepared.run(checkpoint_before=frozenset(p.key for p, _ in self.prepared.queue))
        self.before = scheduler.checkpoints.get(key)
        self.after = scheduler.checkpoint()
        self.result = next((r for r in self.sim.results if r.pod.key == key), None)
        self.scenarios = Scenarios(cluster, scheduler.snapshot)
        self._rest_bound: set[str] | None = None  # the first run's rest of the queue (`displaced`)

    def rerun(self, variant: Pod, nodes: Sequence[Node] = (), removed: Collection[str] = (),
              added_pods: Sequence[Pod] = (), added_slices: Sequence[ResourceSlice] = ()) -> PodResult | None:
        """The pod's result with `variant` in place of the input pod, `nodes` in place of (or
        beside) the nodes of their names (added ones with `added_pods`: `rerun_with`), the bound
        pods of `removed` deleted."""
        scheduler = self.prepared.scheduler
        if nodes:  # derived from this run's snapshot as it started
            scheduler.restore(self.start)
            try:
                return rerun_with(self.cluster, self.now, self.new_pods, variant, self.profiles, nodes, removed,
                                  scenarios=self.scenarios, added_pods=added_pods, added_slices=added_slices)
            finally:
                self.scenarios.release()
                scheduler.restore(self.after)
        queue = self._admitted_with(variant)
        try:
            with scheduler.deciding_only():
                if not removed and self._only_the_pod_differs(queue, variant.key):
                    assert self.before is not None
                    scheduler.restore(self.before)
                    return scheduler.schedule_pod(PodInfo.of(self._entry(queue, variant.key)[0]))
                return self._queue_again(queue, variant.key, removed)
        finally:
            scheduler.restore(self.after)

    def displaced(self, variant: Pod) -> list[str] | None:
        """The pods queued after this one that the first run binds and that no longer bind once
        `variant` is decided in its place: the room a fix takes from the rest of the queue, which
        the pod's own re-run cannot see. None when the change moves the pod in the queue or
        changes who is admitted (not worked out)."""
        queue = self._admitted_with(variant)
        if not self._only_the_pod_differs(queue, variant.key):
            return None
        order = self._first_order
        rest = order[next(i for i, (p, _) in enumerate(order) if p.key == variant.key) + 1:]
        if not rest:
            return []
        scheduler = self.prepared.scheduler
        assert self.before is not None
        try:
            with scheduler.deciding_only():
                if self._rest_bound is None:
                    scheduler.restore(self.after)
                    self._rest_bound = _bound_keys(scheduler.run(rest, resumed=True))
                scheduler.restore(self.before)
                scheduler.schedule_pod(PodInfo.of(self._entry(queue, variant.key)[0]))
                now_bound = _bound_keys(scheduler.run(rest, resumed=True))
        finally:
            scheduler.restore(self.after)
        return sorted(self._rest_bound - now_bound)

    def _admitted_with(self, variant: Pod) -> list[tuple[Pod, str | None]]:
        """The whole queue admitted again with the variant: through ResourceQuotas, what it asks
        for can change whether the pods created after it are admitted."""
        if not self.cluster.resource_quotas:  # then admitting a pod depends on nothing else
            is_new = any(p.key == variant.key for p in self.new_pods)
            [entry] = admit([as_created(variant, self.now) if is_new else variant], self.cluster, is_new)
            return [entry if p.key == variant.key else (p, refused) for p, refused in self.prepared.queue]
        swap = [variant if p.key == variant.key and is_pending(p) else p for p in self.cluster.pods]
        created = [variant if p.key == variant.key else p for p in self.new_pods]
        return admit_queue(self.cluster, self.now, swap, created)

    @staticmethod
    def _entry(queue: list[tuple[Pod, str | None]], key: str) -> tuple[Pod, str | None]:
        return next(entry for entry in queue if entry[0].key == key)

    def _only_the_pod_differs(self, queue: list[tuple[Pod, str | None]], key: str) -> bool:
        """Whether replaying the pod's own cycle is enough: every other pod admitted as before,
        and the pod admitted, at its old place in the queue (same priority and timestamp)."""
        old = self.prepared.queue
        if self.before is None or len(queue) != len(old):
            return False
        if any(new[1] != was[1] for new, was in zip(queue, old) if new[0].key != key):
            return False
        pod, refused = self._entry(queue, key)
        original, was_refused = self._entry(old, key)
        return refused is None and was_refused is None and self.prepared.scheduler.same_place_in_queue(
            PodInfo.of(pod), PodInfo.of(original))

    @cached_property
    def _first_order(self) -> list[tuple[Pod, str | None]]:
        """The first run's queue in queue order (worked out once, for every try that moves the pod)."""
        return self.prepared.scheduler.in_queue_order(self.prepared.queue)

    def _queue_again(self, queue: list[tuple[Pod, str | None]], key: str, removed: Collection[str]) -> PodResult | None:
        """The queue again, up to the pod: from the start when bound pods are deleted (every
        decision may change), else from the checkpoint before the first pod whose place in the
        queue changed — the pods ahead of it are the same, on the same state, so they decide as
        the first time. Not when the pod carries a nomination: the nomination made at the start
        reserves room for it with its first priority, which pods ahead of it may have seen."""
        scheduler = self.prepared.scheduler
        order = scheduler.in_queue_order(queue)
        checkpoint, head = None, 0
        if not removed and not self._entry(queue, key)[0].nominated_node_name:
            first = self._first_order
            head = _common_head(first, order)
            # The first run's state just before its first entry past the common head.
            checkpoint = scheduler.checkpoints.get(first[head][0].key) if head < len(first) else None
        if checkpoint is not None:
            scheduler.restore(checkpoint)
            results = scheduler.run(order[head:], until=frozenset({key}), resumed=True)
        else:
            scheduler.restore(self.start)
            for gone in sorted(removed):
                scheduler.snapshot.forget(gone)
            results = scheduler.run(queue, until=frozenset({key}))
        return next((r for r in results if r.pod.key == key), None)


def _bound_keys(results: Sequence[PodResult]) -> set[str]:
    return {r.pod.key for r in results if r.outcome == Outcome.BOUND}


def _common_head(first: list[tuple[Pod, str | None]], again: list[tuple[Pod, str | None]]) -> int:
    """How many entries lead both queue orders (the same pod, admitted alike)."""
    same = 0
    while same < min(len(first), len(again)) and first[same][0] is again[same][0] and first[same][1] == again[same][1]:
        same += 1
    return same


def is_pending(pod: Pod) -> bool:
    return not pod.node_name and pod.phase not in ("Succeeded", "Failed")


def is_bound(pod: Pod) -> bool:
    return bool(pod.node_name) and pod.phase not in ("Succeeded", "Failed")


@dataclass
class Prepared:
    """A snapshot with its profiles and admitted queue, ready to schedule (`run`)."""

    scheduler: Scheduler
    queue: list[tuple[Pod, str | None]]
    missing: list[str]
    warnings: list[str]
    bound: int
    quotas: QuotaLedger
    """The ResourceQuotas as the queue's admission left them: pods created later in the run (a
    rollout's) are charged on, pods deleted released."""

    def release_claims(self, cluster: Cluster, gone: Sequence[Pod]) -> None:
        """Pods deleted in the run: the resourceclaim controller drops their reservations and
        deallocates the claims nobody reserves any more (controller.go syncClaim), so the pods
        scheduled next find those devices free. Clusters without DRA objects never build the
        DRA view for it."""
        if gone and (cluster.resource_claims or cluster.claim_templates):
            dra_of(self.scheduler.snapshot).release(gone)

    def run(self, progress: Callable[[int, int], None] | None = None,
            checkpoint_before: frozenset[str] = frozenset(), until: frozenset[str] | None = None) -> Simulation:
        results = self.scheduler.run(self.queue, progress, until, checkpoint_before)
        for result in results:
            result.incomplete = needs_missing_plugin(result, self.missing)
        return Simulation(results, self.scheduler.snapshot, self.warnings, self.bound)


class Scenarios:
    """One scenario engine for the many what-ifs of one loaded cluster (a node- or zone-loss
    policy, an add-node search, a sweep, a suggestion that changes nodes): the cluster's snapshot
    is built once, untouched by any run, and each scenario's snapshot is derived from it
    (`Snapshot.derive`: the nodes both have keep their NodeInfos, pods and aggregates) instead
    of being built from 150,000 pods again; it is released when the next scenario starts, so
    memory stays that of one scenario. Scenario runs keep no per-node detail
    (`Scheduler.keep_detail`): only outcomes are read from them. One scenario at a time: threads
    sharing an engine take turns (as a Dask worker's do, `sweep.executors.run_remote`)."""

    def __init__(self, cluster: Cluster, base: Snapshot | None = None) -> None:
        """`base`: the cluster's snapshot, when one was built already (a run's, to be back at its
        start — every bound pod of the cluster where it was — whenever a scenario derives from it)."""
        self.cluster = cluster
        self._base = base
        self._loaded_warnings: list[str] | None = None

    def _built(self) -> Snapshot:
        """The loaded cluster's snapshot, built on first use (a check without policies never
        pays for it), with the warnings a run of the cluster as it is would give."""
        if self._base is None:
            self._base, self._loaded_warnings = built_snapshot(self.cluster)
        return self._base

    def build_now(self) -> None:
        """Build the loaded cluster's snapshot now, before scenarios run in forked workers: they
        inherit it instead of building one each (~1 s of CPU a worker at 5,000 nodes). Memory
        barely changes (1.47 → 1.43 GB with two): reference counts are writes, so a worker soon
        has its own copy of the pages it reads."""
        self._built()

    def snapshot(self, cluster: Cluster, bound: list[Pod]) -> Snapshot:
        """The snapshot of a scenario `cluster` (sharing the loaded cluster's objects)."""
        return self._built().derive(cluster, bound)

    def own_warnings(self, warnings: Sequence[str]) -> list[str]:
        """A scenario's warnings less those of the loaded cluster as it is (said once, when it was
        read): what the scenario's changes brought, each once."""
        self._built()
        loaded = set(self.cluster.warnings if self._loaded_warnings is None else self._loaded_warnings)
        return list(dict.fromkeys(w for w in warnings if w not in loaded))

    def release(self) -> None:
        """The last scenario's snapshot given back (its memory freed once its results are)."""
        if self._base is not None and self._base.lent_to is not None:
            self._base.lent_to.release()

    @contextmanager
    def one(self) -> Iterator[None]:
        """One scenario, from its start to giving its snapshot back, with the cyclic collector
        paused: a scenario allocates hundreds of thousands of objects that live until its end
        (36,000 recreated pods and their results when a zone is lost), so each full pass over
        them was pure cost — 3.4 s of a 40 s zone loss, a tenth of a sweep's scenario. Its few
        cycles (its snapshot's, its plugins' handle on their framework) hold its snapshot: they
        are collected once, after it — at once when it ran inside another scenario (a sweep
        row's loss policy), whose pause would otherwise keep every inner snapshot alive."""
        nested = not gc.isenabled()
        with collector_paused():
            try:
                yield
            finally:
                self.release()
                if nested:
                    gc.collect()


def built_snapshot(cluster: Cluster) -> tuple[Snapshot, list[str]]:
    """The cluster's snapshot as it is (its bound pods admitted, on its nodes), and the warnings a
    run of it gives: the loaded cluster's, the bound pods admission refuses, the nodes their pods
    overcommit — which `snapshot prepare` says once, as a run would."""
    names = {n.name for n in cluster.nodes}
    pods, refused = admit_bound([p for p in cluster.pods if is_bound(p) and p.node_name in names], cluster)
    snapshot = Snapshot.build(cluster, pods)
    return snapshot, run_warnings(cluster, refused, snapshot)


def run_warnings(cluster: Cluster, refused: list[str], snapshot: Snapshot) -> list[str]:
    """What every run of the cluster says: the loaded cluster's warnings, the bound pods admission
    refuses (`refused`), the nodes their pods overcommit, the classes its pending pods name and
    it lacks."""
    pending = [p for p in cluster.pods if is_pending(p)]
    return (cluster.warnings + refused + overcommitted_nodes(snapshot)
            + missing_classes(pending, cluster.priority_classes, cluster.runtime_classes))


def prepare(
    cluster: Cluster,
    now: str,
    new_pods: Sequence[Pod] = (),
    profiles: Sequence[ProfileConfig] | None = None,
    explain: frozenset[str] = frozenset(),
    fast: bool = True,
    sample: bool = False,
    scenarios: Scenarios | None = None,
    for_the_run: bool = False,
    node_detail: bool = True,
) -> Prepared:
    """Build the snapshot and the profiles, and admit the queue: every pending pod of the cluster
    plus `new_pods` (pods read from manifests, which go through admission as at creation).
    `scenarios`: `cluster` is a scenario of that engine's cluster, whose snapshot it derives.
    `for_the_run`: the snapshot lives as long as the process (a command that schedules once), so
    it is kept out of the collector's passes as the loaded cluster is (`kwhatif.memory`): a full
    collection in the middle of scheduling would walk its millions of objects. `node_detail=False`:
    each attempt keeps its outcome only (`Scheduler.keep_detail`), as a scenario's do."""
    names = {n.name for n in cluster.nodes}
    bound, refused = admit_bound([p for p in cluster.pods if is_bound(p) and p.node_name in names], cluster)
    if scenarios is None:
        snapshot = Snapshot.build(cluster, bound, for_the_run)  # bound pods on unknown nodes: warned at load
    else:
        snapshot = scenarios.snapshot(cluster, bound)
    warnings = run_warnings(cluster, refused, snapshot) + storage_missing(cluster, new_pods)
    nominator = NominatedPods()
    frameworks: dict[str, Framework] = {}
    missing: list[str] = []
    for profile in profiles or (default_profile(),):
        frameworks[profile.scheduler_name] = build_framework(profile, snapshot, nominator, now)
        missing.extend(n for n in profile.missing if n not in missing)
    scheduler = Scheduler(snapshot, frameworks, nominator, now, explain, fast, sample)
    scheduler.ahead = {key: rank for rank, key in enumerate(cluster.drain_bound)}
    scheduler.keep_detail = node_detail and scenarios is None
    quotas = QuotaLedger(cluster.resource_quotas, cluster.pods, list(cluster.pvcs.values()),
                         list(cluster.resource_claims.values()))
    queue = admit_queue(cluster, now, cluster.pods, new_pods, quotas)
    return Prepared(scheduler, queue, missing, warnings, len(bound), quotas)


class Settling:
    """The scheduler a drain keeps while kubectl waits on a budget (`kwhatif.whatif.ops.drain`),
    called with the cluster, the pods evicted and the pods recreated since its last call: built
    from the cluster at the first wait, which schedules its whole queue; each later wait only
    takes out the pods evicted since and schedules those recreated since with the ones still
    pending — a zone's drain at 5,000 nodes waits at hundreds of nodes, and a run from nothing at
    each would take hours. Returns the pods bound at this wait, with their nodes and the claims
    allocated for them there: a pod a budget counts, bound, is healthy again (taken as Ready at
    once, as rollouts take it), and an operation after the drain finds it running with its
    devices taken. The pods gone since free their claims' devices for the next pods. Also the
    pods its preemptions evicted meanwhile: the scheduler deleted them, and the drain must take
    them out (their controllers make them again) — left in, they would run beside their
    preemptor on a node too small for both."""

    def __init__(self, now: str, profiles: Sequence[ProfileConfig] | None = None) -> None:
        self.now, self.profiles = now, profiles
        self.prepared: Prepared | None = None
        self.pending: list[tuple[Pod, str | None]] = []

    def __call__(self, cluster: Cluster, gone: Sequence[Pod], new: Sequence[Pod]
                 ) -> tuple[list[tuple[Pod, str, tuple[ResourceClaim, ...]]], list[Pod]]:
        if self.prepared is None:
            self.prepared = prepare(cluster, self.now, profiles=self.profiles, node_detail=False)
            queue = self.prepared.queue
        else:
            for pod in gone:
                if self.prepared.scheduler.snapshot.forget(pod.key) is not None:
                    self.prepared.quotas.release(pod)
            self.prepared.release_claims(cluster, gone)
            queue = self.pending + admit(new, cluster, created=False, quotas=self.prepared.quotas)
        results = self.prepared.scheduler.run(queue)
        bound = [(r.pod, r.final.node) for r in results
                 if r.outcome == Outcome.BOUND and r.final is not None and r.final.node]
        preempted = [v.pod for r in results for a in r.attempts if a.preemption for v in a.preemption.victims]
        placed = self.prepared.scheduler.snapshot.placed
        self.pending = [(pod, refused) for pod, refused in queue if refused is None and pod.key not in placed]
        return [(pod, node, self._claims_of(pod)) for pod, node in bound if pod.key in placed], preempted

    def _claims_of(self, pod: Pod) -> tuple[ResourceClaim, ...]:
        assert self.prepared is not None
        if not pod.resource_claims:
            return ()
        return reserved_claims(dra_of(self.prepared.scheduler.snapshot).claims, pod)


def admit_queue(cluster: Cluster, now: str, pods: Sequence[Pod], new_pods: Sequence[Pod],
                quotas: QuotaLedger | None = None) -> list[tuple[Pod, str | None]]:
    """The queue as admission leaves it: the pending ones of `pods` (the cluster's), then
    `new_pods` created now, charged against the ResourceQuotas in that order (on `quotas`, when
    the run goes on charging); last, the pods the API server would reject, each with its error
    (reported as skipped, never scheduled)."""
    if quotas is None:
        quotas = QuotaLedger(cluster.resource_quotas, cluster.pods, list(cluster.pvcs.values()),
                         list(cluster.resource_claims.values()))
    queue = admit([p for p in pods if is_pending(p)], cluster, created=False, quotas=quotas)
    queue += admit([as_created(p, now) for p in new_pods], cluster, created=True, quotas=quotas)
    return queue + [(Pod(r.namespace, r.name, creation_timestamp=now), f"{REJECTED}: {r.reason}")
                    for r in cluster.rejected_pods]


REJECTED = "rejected by the API server"
"""How a pod the API server would refuse reads among the results (`Cluster.rejected_pods`)."""


def simulate(cluster: Cluster, now: str, *args: Any, **options: Any) -> Simulation:
    """Schedule the queue one pod at a time in queue order: `prepare(...)` with the same
    arguments, then run. With `explain`, scheduling stops once those pods have been decided;
    `fast=False` is the plain per-node path (same results); `sample` examines only as many nodes
    as kube-scheduler would (schedule_one.go:numFeasibleNodesToFind) instead of all of them."""
    progress = options.pop("progress", None)
    return prepare(cluster, now, *args, **options).run(progress)


def needs_missing_plugin(result: PodResult, missing: Sequence[str]) -> list[str]:
    """The unimplemented plugins whose absence may change this pod's result (reported, never hidden)."""
    pod = result.pod
    needed = []
    uses_volumes = bool(claim_names(pod)) or any(v.get("ephemeral") is not None for v in pod.volumes)
    for name in missing:
        if name in _VOLUME_PLUGINS and uses_volumes:
            needed.append(name)
    return needed
