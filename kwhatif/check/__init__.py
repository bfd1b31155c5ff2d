"""`kwhatif check`: do these workloads fit? Expand them, schedule their pods with the cluster's
own pending pods in queue order — a workload that already runs is rolled out as its controller
would update it (`kwhatif.check.rollout`), unless `as_new` — summarise per workload, and apply the
CI policies (`--no-evictions`, `--headroom`, `--tolerate-node-loss`, `--tolerate-zone-loss`)."""

from __future__ import annotations

import itertools
import math
import re
import shlex
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple

from kwhatif.api.objects import Node, Pod
from kwhatif.api.quantity import format_amount
from kwhatif.config.profile import ProfileConfig
from kwhatif.check.rollout import Rollout
from kwhatif.check.updates import Scheduled, plan_updates, refused_creations, run_with_updates
from kwhatif.check.workers import default_jobs, each
from kwhatif.engine import Scenarios, Simulation
from kwhatif.errors import InputError
from kwhatif.text import counted, listed
from kwhatif.framework.scheduler import Outcome, PodResult
from kwhatif.snapshot.snapshot import REGION_LABELS, ZONE_LABELS, label_read, region_and_zone
from kwhatif.api.cluster import Cluster
from kwhatif.whatif.ops import lose_nodes
from kwhatif.whatif.targets import parse_selector
from kwhatif.whatif.pods import Names, pod_names
from kwhatif.workloads import Expanded, apply_to_cluster, autoscaled_targets, cronjob, expand_objects, namesake_warnings
from kwhatif.workloads.apply import as_applied
from kwhatif.workloads.existing import PodIndex, kept_replicas

HEADROOM_RESOURCES = ("cpu", "memory")
NO_NODE = ("matches no node: its nodeSelector, node affinity or tolerations exclude every node, so no pod "
           "would run")
@dataclass
class WorkloadSummary:
    kind: str
    namespace: str
    name: str
    pods: int
    bound: int
    pending: int
    evictions: int
    ok: bool
    message: str | None
    source: object = None
    victims: list[str] = field(default_factory=list)
    rollout: Rollout | None = None
    """The update of a workload that already runs; None for a new one."""
    keys: list[str] = field(default_factory=list)
    """Its pods (`namespace/name`), in queue order: the rows of the check's table."""
    suggestion: dict[str, Any] | None = None
    """For a new workload left pending: what would make its first pending pod fit, verified by a
    re-run (`explain`'s first suggestion, with `pod`), when the caller asked for it."""
    first_pending: str | None = None
    """Its first pod, in queue order, that the run left pending (one bound, then evicted, is not:
    explained, it reads as bound): the pod a fix or an explanation is about."""

    @property
    def change(self) -> str:
        return self.rollout.label if self.rollout is not None else "new"

    def data(self) -> dict:
        return {"kind": self.kind, "namespace": self.namespace, "name": self.name, "change": self.change,
                "pods": self.pods, "bound": self.bound, "pending": self.pending, "evictions": self.evictions,
                "ok": self.ok, "message": self.message, "victims": self.victims,
                "rollout": self.rollout.data() if self.rollout is not None else None, "pod_keys": self.keys,
                "first_pending": self.first_pending, "suggestion": self.suggestion}

    @property
    def ref(self) -> str:
        return f"{self.kind}/{self.namespace}/{self.name}"


@dataclass
class PolicyResult:
    policy: str
    ok: bool
    messages: list[str] = field(default_factory=list)

    def data(self) -> dict:
        return {"policy": self.policy, "ok": self.ok, "messages": self.messages}


@dataclass
class CheckResult:
    simulation: Simulation
    workloads: list[WorkloadSummary]
    policies: list[PolicyResult]
    warnings: list[str]
    run: Scheduled | None = None
    """The check's own run (its cluster and new pods), to explain a workload left pending."""
    manifests: tuple[str, ...] = ()
    """Every file the check's objects came from, in input order (`manifest_files`)."""

    @property
    def ok(self) -> bool:
        return all(w.ok for w in self.workloads) and all(p.ok for p in self.policies)


def manifest_files(objects: Sequence[object]) -> tuple[str, ...]:
    """The files the objects were read from, in input order: what an `explain` of one of the
    check's pods must read to see the same queue — a file holding only a ResourceClaimTemplate,
    a PriorityClass or a Service changes where the workloads' pods go as much as theirs do."""
    files = (getattr(getattr(o, "source", None), "file", None) for o in objects)
    return tuple(dict.fromkeys(f for f in files if f))


def parse_headroom(text: str) -> dict[str, Fraction]:
    """`cpu=10%,memory=15%` (or fractions: `cpu=0.1`) → {resource: fraction}."""
    out: dict[str, Fraction] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, value = part.partition("=")
        match = re.fullmatch(r"(\d+(?:\.\d+)?)(%?)", value.strip())
        if not sep or name.strip() not in HEADROOM_RESOURCES or not match:
            raise InputError(f"--headroom: {part!r} is not RESOURCE=PERCENT% (resources: cpu, memory), "
                             "e.g. cpu=10%,memory=15%")
        amount = Fraction(match.group(1)) / (100 if match.group(2) else 1)
        if amount > 1:
            hint = f" (a fraction without %: {value.strip()}% was meant?)" if not match.group(2) else ""
            raise InputError(f"--headroom: {part!r}: the fraction to keep free cannot exceed 100%{hint}")
        if name.strip() in out:
            raise InputError(f"--headroom: {name.strip()} is given twice ({text!r}): give each resource once")
        out[name.strip()] = amount
    if not out:
        raise InputError("--headroom: empty; e.g. cpu=10%,memory=15%")
    return out


def _victims(result: PodResult) -> list[str]:
    return [v.key for a in result.attempts if a.preemption for v in a.preemption.victims]


def schedule_workloads(cluster: Cluster, objects: Sequence[object], now: str,
                       profiles: Sequence[ProfileConfig] | None, replicas_mode: str = "spec",
                       as_new: bool = False, scenarios: Scenarios | None = None,
                       workloads_only: bool = False, node_detail: bool = True) -> Scheduled:
    """Expand the workloads on `cluster`'s nodes and schedule their pods, rolling out those that
    already run unless `as_new` (cluster not changed). With `scenarios`, `cluster` is one of that
    engine's scenarios (its snapshot derived, outcomes only); `workloads_only`, `node_detail`: see
    `run_with_updates`."""
    cluster = cluster.copy()
    index = None if as_new else PodIndex.of(cluster)  # one pass over the pods, for both
    objects, autoscaled = (objects, []) if as_new else autoscaled_targets(cluster, objects)
    objects = objects if as_new else as_applied(cluster, objects)
    kept = {} if index is None else kept_replicas(objects, cluster, index)
    expansion = expand_objects(objects, cluster.nodes, now, replicas_mode, kept, cluster.autoscalers.values())
    updates = {} if index is None else plan_updates(cluster, expansion, index)
    updates.update(refused_creations(cluster, expansion, updates))
    copies = namesake_warnings(cluster, expansion.pods) if as_new else []
    refused = [i for i, u in updates.items() if u.refused]
    warnings = autoscaled + expansion.warnings + copies + apply_to_cluster(cluster, expansion, refused)
    if index is not None:
        warnings += _end_superseded_jobs(cluster, expansion.groups)
    sim, rollouts, replacements = run_with_updates(cluster, now, expansion, updates, profiles, scenarios,
                                                   workloads_only, node_detail)
    return Scheduled(sim, expansion, warnings, rollouts, replacements, cluster)


def _end_superseded_jobs(cluster: Cluster, groups: Sequence[Expanded]) -> list[str]:
    """A CronJob whose next run does not run beside its active Jobs (concurrencyPolicy Replace or
    Forbid: `cronjob.superseded_pods`): their pods are taken out before its new Job's are judged,
    and the warning says so (under Forbid the new Job starts only once they end)."""
    out = []
    for group in groups:
        w = group.workload
        if w.kind != cronjob.KIND or not group.pods:
            continue
        jobs, pods = cronjob.superseded_pods(w, cluster)
        if not jobs:
            continue
        gone = {p.key for p in pods}
        cluster.pods = [p for p in cluster.pods if p.key not in gone]
        policy = cronjob.concurrency_policy(w)
        one = len(jobs) == 1
        when = (f"deletes {'it' if one else 'them'} first" if policy == "Replace"
                else f"starts the next one only once {'it ends' if one else 'they end'}")
        out.append(f"{w.ref}: concurrencyPolicy {policy}: {listed(jobs)} still active; its next Job is judged "
                   f"without the {counted(len(pods), 'pod')} {'it runs' if one else 'they run'} (the controller {when})")
    return out


def summarise(run: Scheduled, no_evictions: bool) -> list[WorkloadSummary]:
    """Per workload: its pods (those an update created), how many stay bound (a pod bound, then
    evicted by a later preemption, by its replacement: `Scheduled.replacements`), how many
    existing pods its preemptions evict."""
    sim = run.simulation
    new_keys = {p.key for p in run.new_pods} | set(run.replacements.values())
    results = {r.pod.key: r for r in sim.results}
    evicted = {v for r in sim.results for v in _victims(r)}

    def holds(key: str) -> bool:
        """Bound at the end of the run: the pod, or the replacement of the pod evicted."""
        if key in run.replacements:
            key = run.replacements[key]
        elif key in evicted:
            return False
        return key in results and results[key].outcome == Outcome.BOUND

    out = []
    for index, group in enumerate(run.expansion.groups):
        keys = [p.key for p in run.judged(index)]
        brought = {p.key for p in run.pods_of(index)}
        placed = [k for k in keys if holds(k)]
        rollout = run.rollouts.get(index)
        transient = [p.key for p in rollout.transient] if rollout is not None else []
        makers = [k for k in keys if k in brought] + transient + [run.replacements[k] for k in keys
                                                                   if k in run.replacements]
        victims = sorted({v for k in makers if k in results for v in _victims(results[k]) if v not in new_keys})
        unplaced = [k for k in keys if k not in placed]
        message = None
        if unplaced:
            first = results.get(unplaced[0])
            replacement = run.replacements.get(unplaced[0])
            if replacement is not None and replacement in results:
                again = results[replacement]
                message = (f"{unplaced[0]} was evicted by a later preemption; its controller's replacement "
                           f"{replacement} stays {again.outcome.value}: {again.message or again.outcome.value}")
            elif first is None:
                message = "not scheduled"
            elif unplaced[0] in evicted and first.outcome == Outcome.BOUND:
                message = f"{unplaced[0]} was bound to {first.final.node if first.final else '?'} and then evicted by a later preemption"
            else:
                message = first.message or first.outcome.value
        stuck = rollout.stuck if rollout is not None else None
        refused = rollout.refused if rollout is not None else None
        ok = not unplaced and stuck is None and not refused and not (no_evictions and victims)
        if refused:
            message = refused
        elif not unplaced and stuck is not None:
            message = f"the rollout stops at step {stuck.number}: {stuck.action}"
        elif not unplaced and not ok:
            message = f"preemption evicts {len(victims)} existing pod(s): {', '.join(victims)}"
        w = group.workload
        if not group.pods and w.kind == "DaemonSet":  # new, or an update that takes it off every node
            message = NO_NODE
        out.append(WorkloadSummary(w.kind, w.namespace, w.name, len(keys), len(placed), len(unplaced),
                                   len(victims), ok, message, w.source, victims, rollout, keys,
                                   first_pending=next((k for k in unplaced if k in results and results[k].outcome
                                                       not in (Outcome.BOUND, Outcome.SKIPPED)), None)))
    return out


def headroom_violations(sim: Simulation, new_pods: Sequence[Pod], headroom: dict[str, Fraction]) -> list[str]:
    """Nodes that received a new pod and keep less than the required fraction free."""
    placed = {r.pod.key: r.final.node for r in sim.results if r.outcome == Outcome.BOUND and r.final and r.final.node}
    nodes = sorted({placed[p.key] for p in new_pods if p.key in placed})
    messages = []
    for name in nodes:
        info = sim.snapshot.by_name[name]
        for resource in HEADROOM_RESOURCES:
            if resource not in headroom:
                continue
            allocatable = info.allocatable.get(resource)
            requested = info.requested.get(resource)
            free = Fraction(allocatable - requested, allocatable) if allocatable else Fraction(0)
            if free < headroom[resource]:
                messages.append(
                    f"node {name}: {resource} {format_amount(resource, requested)} of "
                    f"{format_amount(resource, allocatable)} requested, {_percent(free)} free < "
                    f"{_percent(headroom[resource])} headroom")
    return messages


def _percent(value: Fraction) -> str:
    text = f"{float(value * 100):.1f}".rstrip("0").rstrip(".")
    return f"{text}%"


def without_nodes(cluster: Cluster, lost: set[str], now: str, names: Names | None = None) -> Cluster:
    """The cluster after losing nodes, as `kwhatif.whatif` removes them (`lose_nodes`): their
    DaemonSet pods and static mirrors go with them, bare pods are gone, and the other pods a
    controller owns come back as the new pending pods it creates `now` — queued after the pods
    already pending, before the workloads'. `names`: `pod_names(cluster.pods)`, worked out once
    for the many scenarios of a policy."""
    out = cluster.copy()
    lose_nodes(out, [n for n in cluster.nodes if n.name in lost], now, existing=names)
    return out


class LossScenario(NamedTuple):
    """Nodes lost at once: how the report names them, the nodes, and the what-if flags that give
    the same cluster to any command (`--remove-node`), to look at the scenario on its own."""

    label: str
    lost: set[str]
    flags: str


def loss_policy(name: str, cluster: Cluster, scenarios: list[LossScenario], objects: Sequence[object],
                now: str, profiles: Sequence[ProfileConfig] | None, replicas_mode: str,
                as_new: bool = False, progress: Callable[[int, int], None] | None = None,
                jobs: int | None = 1) -> PolicyResult:
    """Try each scenario, each derived from the loaded cluster by one scenario engine (on `jobs`
    cores: `kwhatif.check.workers`; None: as many as pay, `default_jobs`); report the worst (most
    new pods left pending, the first on ties). `progress` hears (scenarios done, scenarios): a
    node-loss policy over 500 nodes runs minutes."""
    engine = Scenarios(cluster)
    names = pod_names(cluster.pods)

    def outcome(index: int) -> tuple[int, int, str | None]:
        """(new pods left pending, new pods, the first pending workload's message)."""
        with engine.one():
            lost = without_nodes(cluster, scenarios[index].lost, now, names)
            summaries = summarise(schedule_workloads(lost, objects, now, profiles,
                                                     replicas_mode, as_new, engine, workloads_only=True), False)
        first = next((w for w in summaries if w.pending), None)
        return (sum(w.pending for w in summaries), sum(w.pods for w in summaries),
                f"{first.ref}: {first.message}" if first is not None else None)

    if jobs is None:
        jobs = default_jobs(len(cluster.pods), len(scenarios))
    if jobs > 1 and len(scenarios) > 1:
        engine.build_now()
    worst: tuple[int, LossScenario, int, str | None] | None = None
    failing = 0
    for scenario, (pending, total, detail) in zip(scenarios, each(outcome, len(scenarios), jobs, progress)):
        if pending:
            failing += 1
            if worst is None or pending > worst[0]:
                worst = (pending, scenario, total, detail)
    if not scenarios:
        return PolicyResult(name, True, ["no scenario to try (no node)"])
    if worst is None:
        return PolicyResult(name, True, [f"every workload still fits in each of {len(scenarios)} scenarios"])
    pending, scenario, total, detail = worst
    return PolicyResult(name, False, [
        f"{failing} of {len(scenarios)} scenarios fail; worst: {scenario.label}: {pending} of {total} new pods stay "
        "pending", detail or "", f"the same check with {scenario.flags} shows that scenario: {AFTER_THE_LOSS}"])


AFTER_THE_LOSS = "the workloads are deployed after the loss, behind the pods it displaced"
"""How a loss scenario is tried (docs/ci.md): a workload that already ran where the nodes
survive would keep those pods; the scenario asks whether it can be (re)deployed meanwhile."""

MAX_LOSS_SCENARIOS = 1000


def node_loss_scenarios(nodes: Sequence[Node], count: int) -> list[LossScenario]:
    """Every set of `count` nodes, in name order (C(n, count) scenarios, at most
    MAX_LOSS_SCENARIOS)."""
    names = sorted(n.name for n in nodes)
    if count > len(names):
        raise InputError(f"--tolerate-node-loss {count}: the cluster has only {counted(len(names), 'node')}")
    total = math.comb(len(names), count)
    if total > MAX_LOSS_SCENARIOS:
        raise InputError(f"--tolerate-node-loss {count}: {total} combinations of {len(names)} nodes to try; "
                         f"kwhatif tries at most {MAX_LOSS_SCENARIOS}")
    return [LossScenario(f"without node{'s' if count > 1 else ''} {', '.join(lost)}", set(lost), _removing(lost))
            for lost in itertools.combinations(names, count)]


def zone_loss_scenarios(nodes: Sequence[Node]) -> list[LossScenario]:
    """A scenario a zone, as the node lifecycle controller groups nodes (component-helpers'
    GetZoneKey): a zone label's value within its region — two regions' zones "b" are two zones —
    and the nodes with no zone label one zone of their region, or "" without one: a cluster
    without zone labels does not survive losing its one zone. The flags select the zone by
    its labels where a selector takes its nodes and no other, else name its nodes."""
    zones: dict[tuple[str, str], set[str]] = {}
    for node in nodes:
        zones.setdefault(region_and_zone(node), set()).add(node.name)
    regions: dict[str, set[str]] = {}
    for region, zone in zones:
        regions.setdefault(zone, set()).add(region)
    by_name = {n.name: n for n in nodes}
    out = []
    for (region, zone), names in sorted(zones.items(), key=lambda item: (item[0][1], item[0][0])):
        group = [by_name[name] for name in sorted(names)]
        selector = next((s for s in _zone_selectors(group, region, zone) if _takes_exactly(s, names, nodes)), None)
        flags = f"--remove-node {shlex.quote(selector)}" if selector else _removing(sorted(names))
        out.append(LossScenario(_zone_label(region, zone, len(names), len(regions[zone]) > 1), names, flags))
    return out


def _zone_label(region: str, zone: str, count: int, shared_name: bool) -> str:
    nodes = counted(count, "node")
    where = f" of region {region}" if region and (shared_name or not zone) else ""
    if zone:
        return f"without zone {zone}{where} ({nodes})"
    return f"without the {nodes}{where} with no zone label"


def _zone_selectors(group: Sequence[Node], region: str, zone: str) -> Iterator[str]:
    """Label selectors for a zone's nodes, shortest first: its zone label (with its region's
    when the name is not enough), or for several nodes with no zone label the absence of one
    (`!topology.kubernetes.io/zone,...`) — not hundreds of `--remove-node NAME`. Only the labels
    its nodes all carry under the same key are of use."""
    zone_keys = {label_read(n, ZONE_LABELS) for n in group}
    region_keys = {label_read(n, REGION_LABELS) for n in group}
    region_label = f"{next(iter(region_keys))}={region}" if region and len(region_keys) == 1 else None
    if zone and len(zone_keys) == 1:
        yield f"{next(iter(zone_keys))}={zone}"
        if region_label:
            yield f"{next(iter(zone_keys))}={zone},{region_label}"
    elif not zone and len(group) > 1:
        absent = [f"!{k}" for k in reversed(ZONE_LABELS)]
        if not region:
            yield ",".join(absent + [f"!{k}" for k in reversed(REGION_LABELS)])
        elif region_label:
            yield ",".join(absent + [region_label])


def _takes_exactly(selector: str, names: set[str], nodes: Sequence[Node]) -> bool:
    parsed = parse_selector(selector)
    return {n.name for n in nodes if parsed.matches(n.labels)} == names


def _removing(names: Sequence[str]) -> str:
    return " ".join(f"--remove-node {n}" for n in names)


NO_WORKLOAD = ("no workload to check in the files (no Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob "
               "or Pod): nothing would be scheduled, so nothing is proven")


def run_check(cluster: Cluster, objects: Sequence[object], now: str, profiles: Sequence[ProfileConfig] | None = None,
              *, replicas_mode: str = "spec", as_new: bool = False, no_evictions: bool = False,
              headroom: dict[str, Fraction] | None = None, node_loss: int = 0, zone_loss: bool = False,
              warnings: Sequence[str] = (), progress: Callable[[int, int], None] | None = None,
              scenarios: Scenarios | None = None, jobs: int | None = 1, node_detail: bool = True) -> CheckResult:
    """The check; `warnings` (found reading the workloads) lead the run's, so that every output
    format carries them all. With `scenarios`, `cluster` is one of that engine's scenarios (a
    sweep's row). `jobs`: the loss policies' scenarios on that many cores (None: as many as pay).
    `node_detail=False`: the run keeps no per-node detail (the output will not show it: at 5,000
    nodes, 300 KB a pod)."""
    run = schedule_workloads(cluster, objects, now, profiles, replicas_mode, as_new, scenarios,
                             node_detail=node_detail)
    sim = run.simulation
    workloads = summarise(run, no_evictions)
    if not workloads:
        raise InputError(NO_WORKLOAD)
    policies = []
    if no_evictions:
        victims = sorted({v for w in workloads for v in w.victims})
        policies.append(PolicyResult("no-evictions", not victims,
                                     [f"preemption would evict {', '.join(victims)}"] if victims else []))
    if headroom:
        violations = headroom_violations(sim, run.new_pods, headroom)
        policies.append(PolicyResult("headroom", not violations, violations))
    if node_loss:
        policies.append(loss_policy(f"tolerate-node-loss={node_loss}", cluster,
                                    node_loss_scenarios(cluster.nodes, node_loss), objects, now, profiles,
                                    replicas_mode, as_new, progress, jobs))
    if zone_loss:
        policies.append(loss_policy("tolerate-zone-loss", cluster, zone_loss_scenarios(cluster.nodes), objects,
                                    now, profiles, replicas_mode, as_new, progress, jobs))
    idle = [f"{w.ref}: {NO_NODE}" for w in workloads if w.message == NO_NODE]
    return CheckResult(sim, workloads, policies, list(warnings) + sim.warnings + run.warnings + idle, run,
                       manifest_files(objects))
