"""`kubectl drain NODE --ignore-daemonsets --delete-emptydir-data [--force]`, offline.

kubectl (staging/src/k8s.io/kubectl/pkg/drain/filters.go) first sorts the node's pods through
its filters, in order, the first one that says "not deleted" deciding:
- daemonSetFilter: a DaemonSet's pod stays (its controller would put it back at once); a finished
  one may go; one whose DaemonSet is gone (when the snapshot lists DaemonSets: else it cannot
  tell) is an error, `daemonsets.apps "x" not found`, or with `--force` deleted for good;
- mirrorPodFilter: a static pod's mirror stays (the kubelet owns it);
- unreplicatedFilter: a pod no controller owns is an error unless `--force` ("cannot delete Pods
  that declare no controller (use --force to override)"), and any error stops the drain before
  a single eviction.
(localStorageFilter is taken as passed with --delete-emptydir-data: kwhatif does not keep
emptyDir volumes.)

Then each pod is evicted through the Eviction subresource (pkg/registry/core/pod/storage/
eviction.go): a pending, finished or terminating pod goes without a PDB check (canIgnorePDB);
otherwise the PodDisruptionBudgets of its namespace whose selector matches it (an empty selector
matches nothing) decide: more than one is a 500, one with no disruption allowed a 429 "Cannot
evict pod as it would violate the pod's disruption budget.", else the budget's allowed
disruptions go down by one and the pod is deleted. kubectl evicts concurrently; kwhatif evicts in
input order, so with a budget short of the node's pods the first ones go.

A budget's refusal (429) is not the end: kubectl retries every 5 s (until its --timeout, none by
default), and the disruption controller allows one more disruption for each pod the budget
selects that becomes healthy again — typically the replacement of a pod already evicted, once
it is scheduled, or any pending pod it selects. `kwhatif.whatif.ops.drain` schedules the pending
pods (`kwhatif.load.disruption.health_changed` counts those bound) and evicts the refused pods
again (`retry_refused`) until every pod is gone or a round frees nothing: a drain stops only
where the budget never recovers (the pods it counts stay pending)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field, replace

from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import Pod, PodDisruptionBudget
from kwhatif.load.disruption import evicts_unready_freely, health_changed
from kwhatif.whatif.pods import DAEMONSET, daemonset_gone, is_finished, is_mirror, owner_kind

UNMANAGED_FATAL = "cannot delete Pods that declare no controller (use --force to override)"
TOO_MANY_REQUESTS = "Cannot evict pod as it would violate the pod's disruption budget."
MORE_THAN_ONE_PDB = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."


@dataclass
class DrainPlan:
    """What kubectl's filters make of a node's pods (`errors`: each with kubectl's message). A
    DaemonSet pod whose DaemonSet is gone, deleted with --force, is among `evict`: nothing
    recreates it (`pods.comes_back`)."""

    evict: list[Pod] = field(default_factory=list)
    kept: list[Pod] = field(default_factory=list)
    errors: list[tuple[Pod, str]] = field(default_factory=list)


def plan_drain(pods: list[Pod], force: bool, daemonsets: Collection[tuple[str, str]] = ()) -> DrainPlan:
    """kubectl's filters (module docstring), pod by pod; `daemonsets`: the (namespace, name) of
    the snapshot's DaemonSets, none when it lists none (then a DaemonSet's pod is taken as its)."""
    plan = DrainPlan()
    for pod in pods:
        gone = daemonset_gone(pod, daemonsets)
        if gone and not force:
            plan.errors.append((pod, _daemonset_not_found(pod)))
        elif gone:
            plan.evict.append(pod)
        elif is_mirror(pod) or (owner_kind(pod) == DAEMONSET and not is_finished(pod)):
            plan.kept.append(pod)
        elif is_finished(pod):
            plan.evict.append(pod)
        elif pod.controller_ref is None and not force:
            plan.errors.append((pod, UNMANAGED_FATAL))
        else:
            plan.evict.append(pod)
    return plan


def _daemonset_not_found(pod: Pod) -> str:
    """daemonSetFilter's error for a pod whose DaemonSet the API server does not have (the Get's
    NotFound text)."""
    ref = pod.controller_ref
    assert ref is not None, "a pod of a DaemonSet"
    return f'cannot delete daemonsets.apps "{ref.name}" not found'


def refused_error(errors: list[tuple[Pod, str]]) -> str:
    """kubectl's error for the pods its filters refused (PodDeleteList.errors: the pods of each
    message together)."""
    by_message: dict[str, list[str]] = {}
    for pod, message in errors:
        by_message.setdefault(message, []).append(pod.key)
    return "; ".join(f"{message}: {', '.join(keys)}" for message, keys in by_message.items())


def can_ignore_pdb(pod: Pod) -> bool:
    """eviction.go:canIgnorePDB."""
    return pod.phase in ("Succeeded", "Failed", "Pending") or pod.deletion_timestamp is not None


def matching_pdbs(pdbs: list[PodDisruptionBudget], pod: Pod) -> list[int]:
    """eviction.go:getPodDisruptionBudgets: same namespace, a non-empty selector that matches."""
    return [i for i, pdb in enumerate(pdbs) if pdb.namespace == pod.namespace and pdb.selector is not None
            and not pdb.selector.is_empty and pdb.selector.matches(pod.labels)]


def evict(cluster: Cluster, pod: Pod) -> str | None:
    """The Eviction API on one pod: None when it may be deleted (the matching budget, if any,
    spent by one in `cluster.pdbs`), else the API's refusal."""
    if can_ignore_pdb(pod):
        return None
    found = matching_pdbs(cluster.pdbs, pod)
    if len(found) > 1:
        return MORE_THAN_ONE_PDB
    if not found:
        return None
    pdb = cluster.pdbs[found[0]]
    if evicts_unready_freely(pdb, pod):
        return None  # deleted directly; the controller never counted it healthy
    if pdb.disruptions_allowed <= 0:
        return TOO_MANY_REQUESTS
    # The API spends one disruption, the pod is deleted, and the controller's count of the pods
    # left says the same (a pod it did not count healthy spends none).
    cluster.pdbs[found[0]] = replace(pdb, disrupted_pods=pdb.disrupted_pods | {pod.name})
    health_changed(cluster, [pod], -1)
    return None


def refusal_text(pod: Pod, message: str) -> str:
    """How kubectl drain reports a refused eviction (drain.go evictPods): a budget's 429 is
    retried every 5 s until its timeout, any other error ends the drain."""
    retry = " (will retry after 5s)" if message == TOO_MANY_REQUESTS else ""
    return f'error when evicting pods/"{pod.name}" -n "{pod.namespace}"{retry}: {message}'


@dataclass
class Drained:
    """A node's drain so far: the pods evicted, those left in place (kept by the filters, or
    refused), and why the drain stops short, if it does (`refusals`: the latest refusal of each
    pod not evicted; those a budget refused, 429, kubectl goes on retrying)."""

    evicted: list[Pod] = field(default_factory=list)
    kept_by_filters: list[Pod] = field(default_factory=list)
    candidates: list[Pod] = field(default_factory=list)
    refusals: dict[str, str] = field(default_factory=dict)
    fatal: list[str] = field(default_factory=list)

    @property
    def kept(self) -> list[Pod]:
        gone = {id(p) for p in self.evicted}
        return self.kept_by_filters + [p for p in self.candidates if id(p) not in gone]

    @property
    def blocked(self) -> list[str]:
        return self.fatal + [refusal_text(p, self.refusals[p.key]) for p in self.candidates if p.key in self.refusals]

    @property
    def refused(self) -> list[Pod]:
        """The pods a budget refused: evicted on a retry once the budget allows it."""
        return [p for p in self.candidates if self.refusals.get(p.key) == TOO_MANY_REQUESTS]

    @property
    def waits_on_budget(self) -> bool:
        """Whether the first refusal it stops at (`blocked[0]`) is a budget's, which kubectl goes
        on retrying (any other error ends the drain)."""
        first = next((self.refusals[p.key] for p in self.candidates if p.key in self.refusals), None)
        return not self.fatal and first == TOO_MANY_REQUESTS


def drain_pods(cluster: Cluster, pods: list[Pod], force: bool) -> Drained:
    """Evict what kubectl would of a cordoned node's `pods` (the budgets in `cluster` spent)."""
    plan = plan_drain(pods, force, cluster.daemonsets)
    if plan.errors:
        return Drained(kept_by_filters=plan.kept + plan.evict + [p for p, _ in plan.errors],
                       fatal=[refused_error(plan.errors)])
    done = Drained(kept_by_filters=list(plan.kept), candidates=list(plan.evict))
    _evict_each(cluster, plan.evict, done)
    return done


def retry_refused(cluster: Cluster, done: Drained) -> list[Pod]:
    """kubectl's retry of the evictions a budget refused, now that budgets may allow more: the
    pods evicted this time (`done` updated)."""
    before = len(done.evicted)
    _evict_each(cluster, done.refused, done)
    return done.evicted[before:]


def _evict_each(cluster: Cluster, pods: list[Pod], done: Drained) -> None:
    for pod in pods:
        refusal = evict(cluster, pod)
        if refusal is None:
            done.evicted.append(pod)
            done.refusals.pop(pod.key, None)
        else:
            done.refusals[pod.key] = refusal


