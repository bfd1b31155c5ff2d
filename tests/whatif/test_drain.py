"""kubectl drain's filters and the Eviction API's PDB check, as tables (expected values from
staging/src/k8s.io/kubectl/pkg/drain/filters.go and pkg/registry/core/pod/storage/eviction.go)."""

from __future__ import annotations

import pytest

from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import OwnerReference, Pod, PodCondition, PodDisruptionBudget
from kwhatif.api.selectors import LabelSelector, selector_from_map
from kwhatif.load.disruption import health_changed
from kwhatif.whatif import apply_operations, parse_operation
from kwhatif.whatif.drain import (
    MORE_THAN_ONE_PDB, TOO_MANY_REQUESTS, drain_pods, evict, plan_drain, retry_refused,
)
from tests.builders import make_node, make_pod

NOW = "2026-01-01T00:00:00Z"


def owned(name: str, kind: str, **kw: object) -> Pod:
    """A Running pod on n1 owned by a controller of `kind`."""
    return make_pod(name, owner_references=(OwnerReference("apps/v1", kind, "owner", controller=True),),
                    **{"node_name": "n1", "phase": "Running", **kw})


MIRROR = {"kubernetes.io/config.mirror": "hash"}


@pytest.mark.parametrize("pod, force, verdict", [
    (owned("rs-pod", "ReplicaSet"), False, "evict"),
    (owned("ds-pod", "DaemonSet"), True, "kept"),
    (owned("finished-ds-pod", "DaemonSet", phase="Succeeded"), False, "evict"),
    (make_pod("mirror", node_name="n1", annotations=MIRROR), True, "kept"),
    (make_pod("finished-mirror", node_name="n1", annotations=MIRROR, phase="Succeeded"), True, "kept"),
    (make_pod("bare", node_name="n1", phase="Running"), False, "errors"),
    (make_pod("bare", node_name="n1", phase="Running"), True, "evict"),
    (make_pod("finished-bare", node_name="n1", phase="Failed"), False, "evict"),
], ids=[
    "a ReplicaSet's pod is evicted",
    "a DaemonSet's pod stays even with --force",
    "a finished DaemonSet pod may go",
    "a mirror pod stays",
    "the mirror filter comes before the finished check",
    "a bare pod is an error without --force",
    "a bare pod is deleted with --force",
    "a finished bare pod may go without --force",
])
def test_kubectl_filters(pod: Pod, force: bool, verdict: str) -> None:
    plan = plan_drain([pod], force)
    found = [p for p, _ in plan.errors] if verdict == "errors" else getattr(plan, verdict)
    assert found == [pod]


@pytest.mark.parametrize("daemonsets, force, kept, error, deleted", [
    (set(), False, True, None, False),                       # the snapshot lists no DaemonSet: taken as its
    ({("default", "owner")}, False, True, None, False),      # its DaemonSet is there: it stays
    ({("default", "other")}, False, False, 'cannot delete daemonsets.apps "owner" not found', False),
    ({("default", "other")}, True, False, None, True),       # --force: deleted (never recreated: test_pods)
], ids=["no DaemonSet listed", "its DaemonSet listed", "its DaemonSet gone", "its DaemonSet gone, --force"])
def test_a_daemonset_pod_whose_daemonset_is_gone(daemonsets: set[tuple[str, str]], force: bool, kept: bool,
                                                 error: str | None, deleted: bool) -> None:
    """filters.go daemonSetFilter: the Get of the pod's DaemonSet fails NotFound — an error that
    stops the drain, or with --force a warning and the pod deleted."""
    pod = owned("agent-1", "DaemonSet")
    plan = plan_drain([pod], force, daemonsets)
    assert plan.kept == ([pod] if kept else [])
    assert [message for _, message in plan.errors] == ([error] if error else [])
    assert plan.evict == ([pod] if deleted else [])


def pdb(name: str, allowed: int, selector: LabelSelector | None = selector_from_map({"app": "web"}),
        namespace: str = "default") -> PodDisruptionBudget:
    return PodDisruptionBudget(namespace, name, selector, disruptions_allowed=allowed)


WEB = {"app": "web"}


@pytest.mark.parametrize("pdbs, pod, refusal, left", [
    ([], owned("a", "ReplicaSet", labels=WEB), None, []),
    ([pdb("p", 1)], owned("a", "ReplicaSet", labels=WEB), None, [0]),
    ([pdb("p", 0)], owned("a", "ReplicaSet", labels=WEB), TOO_MANY_REQUESTS, [0]),
    ([pdb("p", 0)], owned("a", "ReplicaSet", labels=WEB, phase="Pending"), None, [0]),
    ([pdb("p", 0)], owned("a", "ReplicaSet", labels=WEB, deletion_timestamp="2026-01-01T00:00:00Z"), None, [0]),
    ([pdb("p", 1), pdb("q", 5)], owned("a", "ReplicaSet", labels=WEB), MORE_THAN_ONE_PDB, [1, 5]),
    ([pdb("p", 0, LabelSelector())], owned("a", "ReplicaSet", labels=WEB), None, [0]),
    ([pdb("p", 0, namespace="other")], owned("a", "ReplicaSet", labels=WEB), None, [0]),
    ([pdb("p", 0)], owned("a", "ReplicaSet", labels={"app": "db"}), None, [0]),
], ids=[
    "no budget: deleted",
    "one allowed: deleted, the budget spent",
    "none allowed: the 429",
    "a pending pod ignores the budget (canIgnorePDB)",
    "a terminating pod ignores the budget",
    "two budgets: the 500",
    "an empty selector matches nothing",
    "a budget of another namespace does not count",
    "a budget that selects other pods does not count",
])
def test_eviction_api(pdbs: list[PodDisruptionBudget], pod: Pod, refusal: str | None, left: list[int]) -> None:
    cluster = Cluster(pdbs=list(pdbs))
    assert evict(cluster, pod) == refusal
    assert [p.disruptions_allowed for p in cluster.pdbs] == left


def test_allowed_disruptions_go_down_as_pods_go() -> None:
    # 2 allowed, 3 matching pods on the node: the first two (input order) go, the third is refused.
    pods = [owned(f"web-{i}", "ReplicaSet", labels=WEB) for i in range(3)]
    cluster = Cluster(nodes=[make_node("n1")], pods=pods, pdbs=[pdb("p", 2)])
    done = drain_pods(cluster, pods, force=False)
    assert [p.name for p in done.evicted] == ["web-0", "web-1"]
    assert [p.name for p in done.kept] == ["web-2"]
    assert done.blocked == ['error when evicting pods/"web-2" -n "default" (will retry after 5s): ' + TOO_MANY_REQUESTS]
    assert cluster.pdbs[0].disrupted_pods == {"web-0", "web-1"}


def test_a_bare_pod_stops_the_drain_before_any_eviction() -> None:
    pods = [owned("web-0", "ReplicaSet"), make_pod("bare", node_name="n1", phase="Running")]
    cluster = Cluster(nodes=[make_node("n1")], pods=pods)
    done = drain_pods(cluster, pods, force=False)
    assert done.evicted == []
    assert done.blocked == ["cannot delete Pods that declare no controller (use --force to override): default/bare"]


def test_a_refused_eviction_goes_on_a_retry_once_a_pod_the_budget_counts_is_healthy_again() -> None:
    # 1 allowed, 3 matching pods: web-0 goes, web-1 and web-2 get the 429 (kubectl retries them).
    # One pod of the budget bound again (web-0's replacement) gives one disruption back
    # (disruption.go: currentHealthy − desiredHealthy): web-1 goes on the retry, web-2 still waits.
    pods = [owned(f"web-{i}", "ReplicaSet", labels=WEB) for i in range(3)]
    cluster = Cluster(nodes=[make_node("n1")], pods=pods, pdbs=[pdb("p", 1)])
    done = drain_pods(cluster, pods, force=False)
    assert ([p.name for p in done.evicted], [p.name for p in done.refused]) == (["web-0"], ["web-1", "web-2"])
    assert health_changed(cluster, [make_pod("web-new", labels=WEB), make_pod("other", labels={"app": "db"})], +1) == 1
    assert [p.name for p in retry_refused(cluster, done)] == ["web-1"]
    assert ([p.name for p in done.kept], [p.name for p in done.refused]) == (["web-2"], ["web-2"])
    assert done.blocked == ['error when evicting pods/"web-2" -n "default" (will retry after 5s): ' + TOO_MANY_REQUESTS]
    assert (cluster.pdbs[0].disruptions_allowed, cluster.pdbs[0].disrupted_pods) == (0, {"web-0", "web-1"})


def test_an_error_other_than_a_budgets_is_not_retried() -> None:
    # Two budgets select web-0: a 500 (eviction.go), which kubectl reports without "will retry"
    # and does not retry (drain.go evictPods): it is not among the refused pods either.
    pods = [owned("web-0", "ReplicaSet", labels=WEB)]
    cluster = Cluster(nodes=[make_node("n1")], pods=pods, pdbs=[pdb("p", 1), pdb("q", 1)])
    done = drain_pods(cluster, pods, force=False)
    assert (done.blocked, done.refused) == (['error when evicting pods/"web-0" -n "default": ' + MORE_THAN_ONE_PDB], [])


UNREADY = (PodCondition(type="Ready", status="False"),)


def health(name: str, allowed: int, current: int, desired: int, policy: str = "IfHealthyBudget") -> PodDisruptionBudget:
    """A counted budget: disruptionsAllowed = max(current − desired, 0) as the controller writes it."""
    return PodDisruptionBudget("default", name, selector_from_map(WEB), disruptions_allowed=allowed, counted=True,
                               surplus=current - desired, desired_healthy=desired, unhealthy_pod_eviction_policy=policy)


@pytest.mark.parametrize("budget, ready, refusal, left", [
    (health("p", 0, 2, 2), False, None, 0),
    (health("p", 0, 2, 2), True, TOO_MANY_REQUESTS, 0),
    (health("p", 0, 1, 2), False, TOO_MANY_REQUESTS, 0),
    (health("p", 0, 0, 0), False, TOO_MANY_REQUESTS, 0),
    (health("p", 0, 1, 2, "AlwaysAllow"), False, None, 0),
    (health("p", 0, 2, 2, "AlwaysAllow"), True, TOO_MANY_REQUESTS, 0),
    (health("p", 1, 3, 2), False, None, 1),
    (PodDisruptionBudget("default", "p", selector_from_map(WEB), disruptions_allowed=0), False, TOO_MANY_REQUESTS, 0),
], ids=[
    "IfHealthyBudget: an unready pod of a healthy budget goes, nothing spent",
    "IfHealthyBudget: a Ready pod of a budget with no surplus: the 429",
    "IfHealthyBudget: an unready pod of a disrupted budget needs a disruption: the 429",
    "IfHealthyBudget: desiredHealthy 0 is not healthy (the 429 when none is allowed)",
    "AlwaysAllow: an unready pod goes even while the application is disrupted",
    "AlwaysAllow: a Ready pod still needs a disruption",
    "an unready pod of a healthy budget spends none of its disruptions",
    "a budget given only disruptionsAllowed tells nothing of health: the 429",
])
def test_unhealthy_pod_eviction_policy(budget: PodDisruptionBudget, ready: bool, refusal: str | None,
                                       left: int) -> None:
    """eviction.go: a pod not Ready is deleted directly (no disruption spent, not listed among
    the budget's disrupted pods) under AlwaysAllow, or under IfHealthyBudget while
    currentHealthy ≥ desiredHealthy > 0; otherwise checkAndDecrement decides as for any pod."""
    pod = owned("a", "ReplicaSet", labels=WEB, conditions=() if ready else UNREADY)
    cluster = Cluster(pdbs=[budget])
    assert evict(cluster, pod) == refusal
    assert cluster.pdbs[0].disruptions_allowed == left
    assert cluster.pdbs[0].disrupted_pods == frozenset()


MAINT = {"maint": "yes"}
BARE_ON_N1 = "cannot delete Pods that declare no controller (use --force to override): default/bare"
PENDING_N1 = "There are pending nodes to be drained: n1"
BUDGET_AT_N1 = 'error when evicting pods/"web-1" -n "default" (will retry after 5s): ' + TOO_MANY_REQUESTS


@pytest.mark.parametrize("on_n1, budget, force, drained, blocked", [
    ([make_pod("bare", node_name="n1", phase="Running")], 1, False, ["web-2"], [BARE_ON_N1, PENDING_N1]),
    ([make_pod("bare", node_name="n1", phase="Running")], 1, True, ["bare", "web-2"], []),
    ([owned("web-1", "ReplicaSet", labels=WEB)], 0, False, [], [BUDGET_AT_N1]),
    ([], 0, False, [], ['error when evicting pods/"web-2" -n "default" (will retry after 5s): ' + TOO_MANY_REQUESTS]),
], ids=[
    "a bare pod on the first node: kubectl goes on with the second, then names the first",
    "with --force the first node drains, and so does the second",
    "a budget that never allows the first node's pod: kubectl waits there for ever, the second is not drained",
    "the last node's budget: nothing left behind it",
])
def test_a_drain_of_several_nodes_goes_on_past_a_node_it_cannot_drain(
        on_n1: list[Pod], budget: int, force: bool, drained: list[str], blocked: list[str]) -> None:
    """drain.go RunDrain (v1.34): every node cordoned first, then drained in turn; a node's error
    is said (`unable to drain node "n1" due to error: ..., continuing command...`) and the next
    node drained; at the end, `There are pending nodes to be drained:` and the nodes that failed.
    A budget's 429 is retried every 5 s until --timeout, none by default: kubectl never leaves n1.
    n1 (maint=yes) holds `on_n1`, n2 (maint=yes) web-2 of ReplicaSet web under a budget allowing
    `budget`."""
    pods = [*on_n1, owned("web-2", "ReplicaSet", labels=WEB, node_name="n2")]
    nodes = [make_node("n1", labels=MAINT), make_node("n2", labels=MAINT)]
    cluster = Cluster(nodes=nodes, pods=pods, pdbs=[pdb("web", budget)])
    done = apply_operations(cluster, [parse_operation("drain", ["maint=yes"], force)], NOW)
    (applied,) = done.applied
    assert [n.unschedulable for n in done.cluster.nodes] == [True, True]
    assert sorted(key.removeprefix("default/") for key in applied.removed) == drained
    assert list(applied.blocked) == blocked
