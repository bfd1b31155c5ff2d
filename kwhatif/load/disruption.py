"""The count the disruption controller writes into a PodDisruptionBudget's status, for a budget
given without one (a hand-written snapshot, a chart's manifest whose spec differs from the one
that runs). Taken as 0, such a budget would refuse every eviction and weigh on every preemption
as if broken; the controller counts it within seconds of its creation (disruption.go: trySync,
getExpectedPodCount, getExpectedScale, countHealthyPods, updatePdbStatus):

- its pods: the namespace's pods its selector matches (a null selector matches none, an empty
  one all);
- expected: with `maxUnavailable` or a percentage `minAvailable`, the sum of the scales of the
  pods' controllers (a Deployment's ReplicaSets count once, as their Deployment); with an integer
  `minAvailable`, the number of its pods. Pods without a controller add nothing. A pod whose
  controller has no scale (a Job, a DaemonSet) fails the count: the controller's fail-safe then
  allows no disruption;
- desired healthy: `minAvailable`, or expected − `maxUnavailable`, percentages rounded up;
- healthy: its pods not being deleted nor just disrupted, and Ready;
- allowed: healthy − desired, but 0 when negative or when nothing is expected.

Two readings where a snapshot is silent: a bound pod without a Ready condition (a manifest, not
a dump) is taken as Ready unless its phase says it no longer runs; a ReplicaSet, StatefulSet or
ReplicationController the snapshot lacks is taken at the number of its pods there."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import Controller, Pod, PodDisruptionBudget

SCALED_KINDS = frozenset({"ReplicaSet", "StatefulSet", "ReplicationController"})
UNSCALED_KINDS = frozenset({"Job", "DaemonSet", "CronJob"})
"""Controllers without a scale subresource: getScaleController fails on them."""


def count_budgets(cluster: Cluster) -> None:
    """Every budget of `cluster` without a count given the controller's (in place)."""
    if all(pdb.counted for pdb in cluster.pdbs):
        return
    by_namespace: dict[str, list[Pod]] = {}
    for pod in cluster.pods:
        by_namespace.setdefault(pod.namespace, []).append(pod)
    cluster.pdbs[:] = [pdb if pdb.counted else counted(pdb, by_namespace.get(pdb.namespace, []), cluster.controllers)
                       for pdb in cluster.pdbs]


def counted(pdb: PodDisruptionBudget, namespace_pods: Sequence[Pod],
            controllers: dict[tuple[str, str, str], Controller]) -> PodDisruptionBudget:
    """The budget with the status the disruption controller would write (module docstring)."""
    pods = [p for p in namespace_pods if pdb.selector is not None and pdb.selector.matches(p.labels)]
    expected, desired = _expected_and_desired(pdb, pods, controllers)
    healthy = sum(1 for p in pods if _healthy(p, pdb.disrupted_pods))
    locked = expected is None or expected <= 0
    surplus = healthy - desired
    return replace(pdb, disruptions_allowed=0 if locked else max(surplus, 0), counted=True, surplus=surplus,
                   locked=locked, desired_healthy=desired)


def count_namespace_again(cluster: Cluster, namespace: str) -> None:
    """The controller's full count of the namespace's budgets, for a change that moves what they
    expect (a controller scaled: its scale is what `maxUnavailable` and percentages count from)."""
    pods = [p for p in cluster.pods if p.namespace == namespace]
    cluster.pdbs[:] = [counted(pdb, pods, cluster.controllers) if pdb.namespace == namespace else pdb
                       for pdb in cluster.pdbs]


def health_changed(cluster: Cluster, pods: Sequence[Pod], delta: int) -> int:
    """The controller's recount once `pods` left (`delta` −1: those it counted healthy) or became
    healthy (+1: bound, taken as Ready at once): each budget selecting one moves its surplus by
    `delta` and allows max(surplus, 0) (none for a `locked` budget). A pod removed by any what-if
    — a node lost, a pod deleted, evicted by a taint or a drain — lowers its budgets, and its
    replacement, bound, raises them again. Returns how many budget counts moved."""
    if not cluster.pdbs:
        return 0
    index = _BudgetIndex(cluster.pdbs)
    moved = 0
    for pod in pods:
        if delta < 0 and not _healthy(pod, frozenset()):
            continue
        for i in index.selecting(pod):
            pdb = cluster.pdbs[i]
            surplus = (pdb.disruptions_allowed if pdb.surplus is None else pdb.surplus) + delta
            cluster.pdbs[i] = replace(pdb, surplus=surplus, disruptions_allowed=max(surplus, 0))
            moved += 1
    return moved


class _BudgetIndex:
    """The budgets (by position) that may move, indexed by one label each selector requires
    (`app=web`): a pod is matched against the budgets of its own labels and the few without such a
    label, not against every budget of its namespace — a zone lost at 150,000 pods takes tens of
    thousands of pods out of clusters with a budget per app."""

    def __init__(self, pdbs: Sequence[PodDisruptionBudget]) -> None:
        self.pdbs = pdbs
        self.by_label: dict[tuple[str, str, str], list[int]] = {}
        self.rest: dict[str, list[int]] = {}
        for i, pdb in enumerate(pdbs):
            if pdb.locked or pdb.selector is None:
                continue
            one = next((r for r in pdb.selector.requirements if r.operator == "In" and len(r.values) == 1), None)
            if one is None:
                self.rest.setdefault(pdb.namespace, []).append(i)
            else:
                self.by_label.setdefault((pdb.namespace, one.key, one.values[0]), []).append(i)

    def selecting(self, pod: Pod) -> list[int]:
        ns = pod.namespace
        candidates = [*self.rest.get(ns, ()),
                      *(i for key, value in pod.labels.items() for i in self.by_label.get((ns, key, value), ()))]
        return sorted(i for i in candidates if self._matches(i, pod))

    def _matches(self, i: int, pod: Pod) -> bool:
        selector = self.pdbs[i].selector
        return selector is not None and selector.matches(pod.labels)


def _expected_and_desired(pdb: PodDisruptionBudget, pods: list[Pod],
                          controllers: dict[tuple[str, str, str], Controller]) -> tuple[int | None, int]:
    """getExpectedPodCount: (expected pods, None when the count fails; desired healthy)."""
    if pdb.max_unavailable is not None:
        expected = _expected_scale(pods, controllers)
        if expected is None:
            return None, 0
        return expected, max(expected - _scaled(pdb.max_unavailable, expected), 0)
    if isinstance(pdb.min_available, int):
        return len(pods), pdb.min_available
    if isinstance(pdb.min_available, str):
        expected = _expected_scale(pods, controllers)
        return expected, _scaled(pdb.min_available, expected or 0)
    return 0, 0


def _scaled(value: int | str, total: int) -> int:
    """intstr.GetScaledValueFromIntOrPercent(value, total, roundUp=true)."""
    if isinstance(value, int):
        return value
    return math.ceil(int(value.rstrip("%")) * total / 100)


def _expected_scale(pods: list[Pod], controllers: dict[tuple[str, str, str], Controller]) -> int | None:
    """getExpectedScale: the sum of the scales of the pods' controllers, each once; None when a
    pod's controller has no scale."""
    scales: dict[tuple[str, str], int] = {}
    owned: dict[tuple[str, str], int] = {}
    for pod in pods:
        ref = pod.controller_ref
        if ref is None:
            continue  # unmanaged: the controller warns and counts it nowhere
        if ref.kind in UNSCALED_KINDS:
            return None
        key = (ref.kind, ref.name)
        owned[key] = owned.get(key, 0) + 1
        controller = controllers.get((ref.kind, pod.namespace, ref.name)) if ref.kind in SCALED_KINDS else None
        if controller is not None and controller.deployment_replicas is not None:
            # A Deployment's ReplicaSet (named DEPLOYMENT-HASH): the Deployment's scale, once for all its sets.
            scales[("Deployment", ref.name.rpartition("-")[0])] = controller.deployment_replicas
        elif controller is not None:
            scales[key] = 1 if controller.replicas is None else controller.replicas
    for key, count in owned.items():  # a controller the snapshot lacks: its pods there
        known = key in scales or (key[0] == "ReplicaSet" and ("Deployment", key[1].rpartition("-")[0]) in scales)
        if not known:
            scales[key] = count
    return sum(scales.values())


def _healthy(pod: Pod, disrupted: frozenset[str]) -> bool:
    """countHealthyPods: not being deleted, not just disrupted, Ready."""
    if pod.deletion_timestamp is not None or pod.name in disrupted or not pod.node_name:
        return False
    return is_ready(pod)


def is_ready(pod: Pod) -> bool:
    """podutil.IsPodReady, with a bound pod without a Ready condition (a manifest, not a dump)
    taken as Ready unless its phase says it no longer runs (module docstring)."""
    ready = next((c for c in pod.conditions if c.type == "Ready"), None)
    if ready is not None:
        return ready.status == "True"
    return pod.phase in ("", "Running")


def evicts_unready_freely(pdb: PodDisruptionBudget, pod: Pod) -> bool:
    """eviction.go: a pod that is not Ready is deleted without spending a disruption when its
    budget's unhealthyPodEvictionPolicy is AlwaysAllow, or (IfHealthyBudget, the default) when
    the application is not disrupted (currentHealthy ≥ desiredHealthy > 0); otherwise it needs a
    disruption like any pod. A budget known only by disruptionsAllowed tells nothing of its health."""
    if is_ready(pod):
        return False
    if pdb.unhealthy_pod_eviction_policy == "AlwaysAllow":
        return True
    return pdb.surplus is not None and pdb.surplus >= 0 and (pdb.desired_healthy or 0) > 0
