"""The composition root: assembles profiles from the plugin registry and runs a simulation.

Data flows one way: Cluster → admission → Snapshot → Scheduler(Framework + plugins) → results.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from kwhatif.api.objects import Pod
from kwhatif.config.profile import ProfileConfig, default_profile
from kwhatif.framework.interfaces import Plugin
from kwhatif.framework.runtime import Framework, PluginSet
from kwhatif.framework.scheduler import Nominator, PodResult, Scheduler
from kwhatif.load.admission import AdmissionRejected, admit_pod
from kwhatif.plugins.registry import REGISTRY
from kwhatif.snapshot.cluster import Cluster
from kwhatif.snapshot.snapshot import Snapshot

_POINT_FIELDS = {
    "preEnqueue": "pre_enqueue", "queueSort": "queue_sort", "preFilter": "pre_filter", "filter": "filter",
    "postFilter": "post_filter", "preScore": "pre_score", "score": "score", "reserve": "reserve",
}
_VOLUME_PLUGINS = ("VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone")


class ProfileHandle:
    """What plugins of one profile may reach: the live snapshot and their own framework."""

    def __init__(self, snapshot: Snapshot, now: str) -> None:
        self.snapshot = snapshot
        self.now = now
        self.framework: Framework | None = None


def build_framework(profile: ProfileConfig, snapshot: Snapshot, nominator: Nominator, now: str) -> Framework:
    """Instantiate each plugin of the profile once and place it at its extension points."""
    handle = ProfileHandle(snapshot, now)
    instances: dict[str, Plugin] = {}
    plugin_set = PluginSet(weights=dict(profile.weights))
    for point, names in profile.points.items():
        if point not in _POINT_FIELDS:
            continue
        for name in names:
            if name not in instances:
                instances[name] = REGISTRY[name](profile.args.get(name), handle)
            getattr(plugin_set, _POINT_FIELDS[point]).append(instances[name])
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
    missing_plugins: list[str]
    warnings: list[str]
    initial_bound: int = 0


def _admit(pods: Sequence[Pod], cluster: Cluster, created: bool) -> list[tuple[Pod, str | None]]:
    out = []
    for pod in pods:
        try:
            out.append((admit_pod(pod, cluster.priority_classes, cluster.runtime_classes,
                                  cluster.limit_ranges, created=created), None))
        except AdmissionRejected as rejected:
            out.append((pod, f"admission: {rejected}"))
    return out


def _as_created(pod: Pod, now: str) -> Pod:
    """A manifest pod as the API server stores it: created now (its queue timestamp)."""
    return pod if pod.creation_timestamp else pod.evolve(creation_timestamp=now)


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

    def run(self) -> Simulation:
        results = self.scheduler.run(self.queue)
        for result in results:
            result.incomplete = needs_missing_plugin(result, self.missing)
        return Simulation(results, self.scheduler.snapshot, self.missing, self.warnings, self.bound)


def prepare(
    cluster: Cluster,
    now: str,
    new_pods: Sequence[Pod] = (),
    profiles: Sequence[ProfileConfig] | None = None,
    explain: frozenset[str] = frozenset(),
    fast: bool = True,
    sample: bool = False,
) -> Prepared:
    """Build the snapshot and the profiles, and admit the queue: every pending pod of the cluster
    plus `new_pods` (pods read from manifests, which go through admission as at creation)."""
    warnings = list(cluster.warnings)
    bound = [p for p in cluster.pods if is_bound(p)]
    unknown_nodes = {p.node_name for p in bound} - {n.name for n in cluster.nodes}
    if unknown_nodes:
        warnings.append(f"pods bound to nodes missing from the snapshot are set aside: {', '.join(sorted(unknown_nodes))}")
        bound = [p for p in bound if p.node_name not in unknown_nodes]
    snapshot = Snapshot.build(cluster, bound)
    nominator = Nominator()
    frameworks: dict[str, Framework] = {}
    missing: list[str] = []
    for profile in profiles or (default_profile(),):
        frameworks[profile.scheduler_name] = build_framework(profile, snapshot, nominator, now)
        missing.extend(n for n in profile.missing if n not in missing)
    scheduler = Scheduler(snapshot, frameworks, nominator, now, explain, fast, sample)
    queue = _admit([p for p in cluster.pods if is_pending(p)], cluster, created=False)
    queue += _admit([_as_created(p, now) for p in new_pods], cluster, created=True)
    return Prepared(scheduler, queue, missing, warnings, len(bound))


def simulate(cluster: Cluster, now: str, *args: Any, **options: Any) -> Simulation:
    """Schedule the queue one pod at a time in queue order: `prepare(...)` with the same
    arguments, then run. With `explain`, scheduling stops once those pods have been decided;
    `fast=False` is the plain per-node path (same results); `sample` examines only as many nodes
    as kube-scheduler would (§7) instead of all of them."""
    return prepare(cluster, now, *args, **options).run()


def needs_missing_plugin(result: PodResult, missing: Sequence[str]) -> list[str]:
    """The unimplemented plugins whose absence may change this pod's result (reported, never hidden)."""
    pod = result.pod
    needed = []
    uses_volumes = any("persistentVolumeClaim" in v or "ephemeral" in v for v in pod.volumes)
    for name in missing:
        if name in _VOLUME_PLUGINS and uses_volumes:
            needed.append(name)
        elif name == "DynamicResources" and pod.resource_claims:
            needed.append(name)
    return needed
