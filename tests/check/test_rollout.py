"""Existing workloads are updates: each strategy's steps, worked out by hand from the controllers
(deployment/rolling.go, recreate.go; daemon/update.go; stateful_set_control.go) and scheduled on
one snapshot. Cluster arithmetic is written beside each test (builders in conftest.py)."""

from __future__ import annotations

import re

import pytest

from kwhatif.check import WorkloadSummary
from tests.workloads.conftest import SUFFIX
from kwhatif.workloads.common import decode_workload
from tests.check.conftest import check, cluster, container, node, only, running, workload

# One 1-cpu node; every pod 400m and priority 0, so a pending pod has no victims.
MSG_NO_CPU = ("0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: "
              "0/1 nodes are available: 1 No preemption victims found for incoming pod.")
API_LABELS = {"app": "api", "pod-template-hash": "h1"}


def _api_cluster():
    """n1 (1000m) runs api's two pods of ReplicaSet api-h1: 800m used, 200m free. api-h1-b is the newer."""
    return cluster(node("n1", "1"),
                   running("api-h1-a", ("ReplicaSet", "api-h1"), "n1", "400m", labels=API_LABELS),
                   running("api-h1-b", ("ReplicaSet", "api-h1"), "n1", "400m", labels=API_LABELS,
                           created="2025-12-30T00:00:00Z"))


def _steps(summary: WorkloadSummary) -> list[tuple[str, int, int, int, int]]:
    assert summary.rollout is not None
    return [(s.action, s.deleted, s.created, s.pending, s.available) for s in summary.rollout.steps]


def test_a_deployment_whose_default_surge_pod_has_nowhere_to_go_is_stuck_and_says_why():
    # replicas 2, defaults 25%: maxSurge ceil(0.5) = 1, maxUnavailable floor(0.5) = 0.
    # Step 1 scales the new ReplicaSet up to 1 (2 + 1 - 2 = 1); its 400m pod does not fit in 200m.
    # Scale-down: all 3 - minAvailable 2 - new unavailable 1 = 0, so nothing is deleted: stuck.
    summary = only(check(_api_cluster(), workload("Deployment", "api", "400m", "app:v2", {"replicas": 2})))
    assert (summary.change, summary.ok, summary.pods, summary.pending) == ("update (RollingUpdate)", False, 1, 1)
    assert _steps(summary) == [("scale the new ReplicaSet up to 1", 0, 1, 1, 2)]
    assert summary.rollout is not None and summary.rollout.stuck is summary.rollout.steps[0]
    assert summary.message == MSG_NO_CPU


def test_a_deployment_with_max_surge_0_and_max_unavailable_1_rolls_one_pod_at_a_time():
    # minAvailable 2 - 1 = 1. Step 1: no surge room (2 + 0 - 2 = 0); scale down 2 - 1 = 1 old pod,
    # the newer one first (both on n1). Step 2: 400m new pod in 600m free. Step 3: delete the other
    # old pod. Step 4: the second new pod. Available at each step's lowest point: 1.
    strategy = {"replicas": 2, "strategy": {"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}}}
    summary = only(check(_api_cluster(), workload("Deployment", "api", "400m", "app:v2", strategy)))
    assert (summary.ok, summary.pods, summary.bound) == (True, 2, 2)
    assert _steps(summary) == [
        ("scale the old pods down to 1: delete api-h1-b", 1, 0, 0, 1),
        ("scale the new ReplicaSet up to 1", 0, 1, 0, 1),
        ("scale the old pods down to 0: delete api-h1-a", 1, 0, 0, 1),
        ("scale the new ReplicaSet up to 2", 0, 1, 0, 1),
    ]
    assert summary.rollout is not None and summary.rollout.worst is summary.rollout.steps[0]


def test_a_recreate_deployment_deletes_every_old_pod_then_creates_the_new_ones():
    # 2 x 450m new pods: 900m fit in 1000m once both old pods are gone (not beside them: 200m free).
    summary = only(check(_api_cluster(), workload("Deployment", "api", "450m", "app:v2",
                                                  {"replicas": 2, "strategy": {"type": "Recreate"}})))
    assert (summary.change, summary.ok, summary.bound) == ("update (Recreate)", True, 2)
    assert _steps(summary) == [("delete the 2 old pods", 2, 0, 0, 0), ("create the 2 new pods", 0, 2, 0, 0)]


def test_the_same_deployment_as_new_does_not_fit_beside_its_running_pods():
    # --as-new: 2 x 450m beside 800m used: neither fits in 200m.
    summary = only(check(_api_cluster(), workload("Deployment", "api", "450m", "app:v2",
                                                  {"replicas": 2, "strategy": {"type": "Recreate"}}), as_new=True))
    assert (summary.change, summary.ok, summary.pending, summary.rollout) == ("new", False, 2, None)


def test_an_unchanged_template_creates_no_pod_and_a_replica_change_scales():
    # Same image and requests as the running pods: nothing to do. replicas 3: one more 400m pod,
    # which fits in the 200m free? No: so a scale to 3 is pending; a scale to 1 deletes the newer pod.
    state = _api_cluster()
    same = only(check(state, workload("Deployment", "api", "400m", "app:v1", {"replicas": 2})))
    assert (same.change, same.pods, same.ok, _steps(same)) == ("unchanged", 0, True, [])
    up = only(check(state, workload("Deployment", "api", "400m", "app:v1", {"replicas": 3})))
    assert (up.change, up.pods, up.pending, _steps(up)) == ("scale", 1, 1, [("scale up from 2 to 3 pods", 0, 1, 1, 2)])
    down = only(check(state, workload("Deployment", "api", "400m", "app:v1", {"replicas": 1})))
    assert (down.change, down.ok, _steps(down)) == ("scale", True, [("scale down from 2 to 1 pods", 1, 0, 0, 1)])


AGENT_LABELS = {"app": "agent"}


def _agent_cluster():
    """n1 and n2 (1000m each) each run agent's pod with hostPort 9100."""
    return cluster(node("n1", "1"), node("n2", "1"),
                   *(running(f"agent-{n}", ("DaemonSet", "agent"), n, "100m", labels=AGENT_LABELS, host_port=9100)
                     for n in ("n1", "n2")))


def test_a_daemonset_with_a_host_port_rolls_in_place_one_node_at_a_time():
    # Default maxUnavailable 1, maxSurge 0: per node (name order) the old pod is deleted, then the
    # new one (same port) created; it is bound before the next node's turn. Lowest point: 1 of 2.
    summary = only(check(_agent_cluster(), workload("DaemonSet", "agent", "100m", "agent:v2", host_port=9100)))
    assert (summary.change, summary.ok, summary.pods, summary.bound) == ("update (RollingUpdate)", True, 2, 2)
    assert _steps(summary) == [("replace agent-n1 (on n1)", 1, 1, 0, 1), ("replace agent-n2 (on n2)", 1, 1, 0, 1)]


def test_a_daemonset_with_a_host_port_as_new_has_no_free_port():
    summary = only(check(_agent_cluster(), workload("DaemonSet", "agent", "100m", "agent:v2", host_port=9100),
                         as_new=True))
    assert (summary.pending, summary.ok) == (2, False)
    assert "didn't have free ports for the requested pod ports" in (summary.message or "")


def test_a_daemonset_with_max_surge_puts_the_new_pod_beside_the_old_one_and_a_host_port_blocks_it():
    # maxSurge 1 (maxUnavailable must then be 0): step 1 creates n1's new pod beside the old one,
    # which holds port 9100: pending, and the surge budget (1 - 1 pending) is spent: stuck.
    spec = {"updateStrategy": {"rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}}
    summary = only(check(_agent_cluster(), workload("DaemonSet", "agent", "100m", "agent:v2", spec, host_port=9100)))
    assert (summary.ok, summary.pending) == (False, 1)
    ((action, deleted, created, pending, available),) = _steps(summary)
    assert re.fullmatch(f"create agent-{SUFFIX} beside the old pods", action)
    assert (deleted, created, pending, available) == (0, 1, 1, 2)
    assert "didn't have free ports" in (summary.message or "")


def test_a_daemonset_with_max_surge_and_no_port_replaces_each_old_pod_once_the_new_one_is_bound():
    # maxSurge 1: step 1 new pod on n1 (bound); step 2 deletes n1's old pod and surges onto n2;
    # step 3 deletes n2's old pod. Never fewer than 2 available.
    state = cluster(node("n1", "1"), node("n2", "1"),
                    *(running(f"agent-{n}", ("DaemonSet", "agent"), n, "100m", labels=AGENT_LABELS) for n in ("n1", "n2")))
    spec = {"updateStrategy": {"rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}}
    summary = only(check(state, workload("DaemonSet", "agent", "100m", "agent:v2", spec)))
    assert summary.ok and summary.bound == 2
    assert [(d, c, p, a) for _, d, c, p, a in _steps(summary)] == [(0, 1, 0, 2), (1, 1, 0, 2), (1, 0, 0, 2)]


def test_on_delete_changes_nothing_and_says_so():
    spec = {"updateStrategy": {"type": "OnDelete"}}
    summary = only(check(_agent_cluster(), workload("DaemonSet", "agent", "100m", "agent:v2", spec, host_port=9100)))
    assert (summary.change, summary.ok, summary.pods, _steps(summary)) == ("update (OnDelete)", True, 0, [])
    assert summary.rollout is not None
    assert summary.rollout.note == "OnDelete: the running pods keep the old template until they are deleted"


def _db_cluster():
    """n1 (4 cpu) runs db-0, db-1, db-2 at 500m each: 2500m free."""
    return cluster(node("n1", "4"), *(running(f"db-{i}", ("StatefulSet", "db"), "n1", "500m",
                                              labels={"app": "db"}) for i in range(3)))


def test_a_statefulset_rolls_from_the_highest_ordinal_down_to_its_partition():
    # partition 1: db-2 then db-1 are replaced, one at a time; db-0 keeps the old template.
    spec = {"replicas": 3, "updateStrategy": {"rollingUpdate": {"partition": 1}}}
    summary = only(check(_db_cluster(), workload("StatefulSet", "db", "500m", "app:v2", spec)))
    assert (summary.ok, [p.name for p in summary.rollout.pods]) == (True, ["db-2", "db-1"])  # type: ignore[union-attr]
    assert _steps(summary) == [("replace db-2", 1, 1, 0, 2), ("replace db-1", 1, 1, 0, 2)]
    assert summary.rollout is not None and summary.rollout.note == "partition 1: lower ordinals keep the old template"


def test_a_statefulset_waits_for_a_replaced_pod_that_does_not_fit():
    # db-2 replaced by a 3100m pod: 2500m + 500m freed = 3000m free < 3100m. The controller waits:
    # db-1 and db-0 are not touched.
    summary = only(check(_db_cluster(), workload("StatefulSet", "db", "3100m", "app:v2", {"replicas": 3})))
    assert (summary.ok, summary.pending) == (False, 1)
    assert _steps(summary) == [("replace db-2", 1, 1, 1, 2)]
    assert summary.message == MSG_NO_CPU


def test_a_statefulset_replica_change_adds_or_removes_the_highest_ordinals():
    grown = only(check(_db_cluster(), workload("StatefulSet", "db", "500m", "app:v1", {"replicas": 4})))
    assert (grown.change, [p.name for p in grown.rollout.pods]) == ("scale", ["db-3"])  # type: ignore[union-attr]
    shrunk = only(check(_db_cluster(), workload("StatefulSet", "db", "500m", "app:v1", {"replicas": 1})))
    assert (shrunk.change, _steps(shrunk)) == ("scale", [("delete db-2, db-1", 2, 0, 0, 1)])


def _pending(doc: dict) -> dict:
    """A pod of a dump that was never scheduled."""
    del doc["spec"]["nodeName"]
    doc["status"]["phase"] = "Pending"
    return doc


def _api_with_a_pending_replica():
    """api at 3 replicas: api-h1-a and -b run on n1 (800m of 1 cpu), api-h1-c (400m) never found
    room: pending."""
    return cluster(node("n1", "1"),
                   running("api-h1-a", ("ReplicaSet", "api-h1"), "n1", "400m", labels=API_LABELS),
                   running("api-h1-b", ("ReplicaSet", "api-h1"), "n1", "400m", labels=API_LABELS,
                           created="2025-12-30T00:00:00Z"),
                   _pending(running("api-h1-c", ("ReplicaSet", "api-h1"), "n1", "400m", labels=API_LABELS,
                                    created="2025-12-31T12:00:00Z")))


@pytest.mark.parametrize("replicas, change, ok, steps", [
    (3, "unchanged", False, []),
    (2, "scale", True, [("scale down from 3 to 2 pods", 1, 0, 0, 2)]),
], ids=["re-applied: its pending replica stays pending", "one replica less: the pending one goes"])
def test_a_replica_the_snapshot_has_pending_is_one_of_the_workloads(replicas, change, ok, steps):
    """An unchanged template only scales, and the pod pending in the snapshot is one of its 3
    replicas: re-applied at 3 nothing changes and that pod still finds no room (200m free: the
    check fails, as the workload does not run whole); at 2 the ReplicaSet deletes it first
    (ActivePodsWithRanks: unassigned pods first)."""
    summary = only(check(_api_with_a_pending_replica(), workload("Deployment", "api", "400m", "app:v1",
                                                                 {"replicas": replicas})))
    assert (summary.change, summary.ok, _steps(summary)) == (change, ok, steps)


def _db_with_a_pending_pod():
    """n1 (4 cpu) runs db-0 and db-1 at 500m; db-2 asks for 5 cpu, more than n1 has: pending."""
    return cluster(node("n1", "4"), *(running(f"db-{i}", ("StatefulSet", "db"), "n1", "500m", labels={"app": "db"})
                                      for i in range(2)),
                   _pending(running("db-2", ("StatefulSet", "db"), "n1", "5", labels={"app": "db"})))


def test_an_ordered_ready_statefulset_waits_for_its_pending_pod_whatever_the_new_template():
    # stateful_set_control.go processReplica: db-2 is not Running and Ready, so the controller
    # stops there (OrderedReady) and never replaces it with the 500m template
    # (kubernetes/kubernetes#67250). db-2 stays pending: 5 cpu > n1's 4.
    summary = only(check(_db_with_a_pending_pod(), workload("StatefulSet", "db", "500m", "app:v2", {"replicas": 3})))
    assert (summary.ok, summary.pods, summary.pending, summary.keys) == (False, 1, 1, ["default/db-2"])
    # The reference (NodeResourcesFit): a request alone beyond the node's allocatable is unresolvable.
    assert summary.message == ("0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: "
                               "0/1 nodes are available: 1 Preemption is not helpful for scheduling.")
    assert summary.rollout is not None and (summary.rollout.done, summary.rollout.steps) == (False, [])
    assert summary.rollout.note.startswith("OrderedReady: the controller waits for db-2 to be Running and Ready")
    assert "kubectl delete pod db-2" in summary.rollout.note


def test_an_ordered_ready_statefulset_scaled_below_its_pending_pod_deletes_it():
    # n1 (1 cpu) runs db-0 and db-1 at 500m; db-2 (500m too) has no room: pending. 2 replicas:
    # db-2 is condemned (processCondemned deletes the first unhealthy pod), so it is not kept
    # pending; the change is a scale.
    state = cluster(node("n1", "1"), *(running(f"db-{i}", ("StatefulSet", "db"), "n1", "500m", labels={"app": "db"})
                                       for i in range(2)),
                    _pending(running("db-2", ("StatefulSet", "db"), "n1", "500m", labels={"app": "db"})))
    summary = only(check(state, workload("StatefulSet", "db", "500m", "app:v1", {"replicas": 2})))
    assert (summary.change, summary.ok, summary.pods, summary.pending) == ("scale", True, 0, 0)


def test_a_parallel_statefulset_replaces_its_pending_pod():
    # Parallel: nothing waits; db-2 (old, pending) is deleted and the new db-2 (500m) fits beside
    # db-0 and db-1 (1000m of 4000m); then db-1 and db-0 are replaced one at a time.
    spec = {"replicas": 3, "podManagementPolicy": "Parallel"}
    summary = only(check(_db_with_a_pending_pod(), workload("StatefulSet", "db", "500m", "app:v2", spec)))
    assert (summary.ok, [p.name for p in summary.rollout.pods]) == (True, ["db-2", "db-1", "db-0"])  # type: ignore[union-attr]


def test_a_daemonset_first_creates_the_pod_of_a_node_without_one():
    # n1 runs agent-n1; n2 has none. Manage step: create n2's pod; then replace n1's (maxUnavailable 1).
    state = cluster(node("n1", "1"), node("n2", "1"),
                    running("agent-n1", ("DaemonSet", "agent"), "n1", "100m", labels=AGENT_LABELS))
    summary = only(check(state, workload("DaemonSet", "agent", "100m", "agent:v2")))
    assert summary.ok and summary.bound == 2
    assert [(d, c) for _, d, c, _, _ in _steps(summary)] == [(0, 1), (1, 1)]
    assert _steps(summary)[0][0].endswith("on nodes without a pod")


def _tainted_after_start() -> dict:
    """n1 (1 cpu) carries foo=bar:NoSchedule, put there after agent-n1 started; n2 has no taint.
    Both pods run agent:v2 with the controller's tolerations."""
    tainted = node("n1", "1")
    tainted["spec"] = {"taints": [{"key": "foo", "value": "bar", "effect": "NoSchedule"}]}
    return cluster(tainted, node("n2", "1"), *(_updated_agent(f"agent-{n}", n, "100m") for n in ("n1", "n2")))


def test_a_daemon_pod_on_a_node_tainted_noschedule_since_keeps_running_when_nothing_changes():
    # daemon_controller.go NodeShouldRunDaemonPod: an untolerated NoSchedule taint makes shouldRun
    # false but leaves shouldContinueRunning true (only NoExecute ends it); podsShouldBeOnNode
    # deletes only when !shouldContinueRunning. Re-applying the same DaemonSet deletes nothing.
    summary = only(check(_tainted_after_start(), workload("DaemonSet", "agent", "100m", "agent:v2")))
    assert (summary.change, summary.ok, summary.rollout.steps if summary.rollout else []) == ("unchanged", True, [])


def test_a_daemon_pod_on_a_node_tainted_noschedule_since_goes_in_an_update_with_no_successor():
    # update.go rollingUpdate: agent-n1 runs the old template, so it is an update candidate and is
    # deleted; the manage step starts none on n1 (shouldRun false). n2's pod is replaced.
    summary = only(check(_tainted_after_start(), workload("DaemonSet", "agent", "100m", "agent:v3")))
    assert summary.ok and summary.bound == 1
    assert [(d, c) for _, d, c, _, _ in _steps(summary)] == [(1, 0), (1, 1)]


def test_a_replicaset_only_scales_a_changed_template_reaches_new_pods_alone():
    # ReplicaSet rs (2 running at app:v1) given app:v2 and 3 replicas: one new pod, none replaced.
    state = cluster(node("n1", "4"), *(running(f"rs-{i}", ("ReplicaSet", "rs"), "n1", "100m", labels={"app": "rs"})
                                       for i in range(2)))
    summary = only(check(state, workload("ReplicaSet", "rs", "100m", "app:v2", {"replicas": 3})))
    assert (summary.change, summary.pods, _steps(summary)) == ("scale", 1, [("scale up from 2 to 3 pods", 0, 1, 0, 2)])
    assert summary.rollout is not None
    assert summary.rollout.note == "a ReplicaSet does not replace its running pods when its template changes; only new pods use it"


def test_a_parallel_statefulset_creates_its_missing_ordinals_at_once():
    # podManagementPolicy Parallel: db-3 and db-4 in one step (OrderedReady would take two).
    spec = {"replicas": 5, "podManagementPolicy": "Parallel"}
    summary = only(check(_db_cluster(), workload("StatefulSet", "db", "500m", "app:v1", spec)))
    assert (summary.change, _steps(summary)) == ("scale", [("create db-3, db-4", 0, 2, 0, 3)])


def _admitted(doc: dict, **spec: object) -> dict:
    """A running pod as admission stored it: `spec` fields set (a defaulted priority class,
    LimitRange limits, merged label keys)."""
    doc["spec"].update(spec)
    return doc


def test_a_template_reapplied_unchanged_stays_unchanged_whatever_admission_added():
    """The running pods carry what admission set when they were created — the globalDefault
    class and its priority, the namespace's LimitRange default limit, a matchLabelKeys merge of
    their own pod-template-hash — and the manifest does not: compared as admission stores the
    template (the Deployment controller's hash is that of the template, unchanged), nothing rolls."""
    default_class = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "standard"},
                     "value": 0, "globalDefault": True}
    limits = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "limits", "namespace": "default"},
              "spec": {"limits": [{"type": "Container", "default": {"cpu": "1"}}]}}
    spread = [{"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway",
               "labelSelector": {"matchLabels": API_LABELS}, "matchLabelKeys": ["pod-template-hash"]}]
    merged = [{**spread[0], "labelSelector": {"matchLabels": API_LABELS, "matchExpressions": [
        {"key": "pod-template-hash", "operator": "In", "values": ["h1"]}]}}]
    pods = []
    for name, created in (("api-h1-a", "2025-01-01T00:00:00Z"), ("api-h1-b", "2025-12-30T00:00:00Z")):
        doc = running(name, ("ReplicaSet", "api-h1"), "n1", "400m", labels={**API_LABELS, "pod-template-hash": "h1"},
                      created=created)
        doc["spec"]["containers"][0]["resources"]["limits"] = {"cpu": "1"}
        pods.append(_admitted(doc, priorityClassName="standard", priority=0, topologySpreadConstraints=merged))
    state = cluster(node("n1", "1"), default_class, limits, *pods)
    manifest = workload("Deployment", "api", "400m", "app:v1", {"replicas": 2})
    manifest.obj["spec"]["template"]["spec"]["topologySpreadConstraints"] = spread
    summary = only(check(state, manifest))
    assert (summary.change, summary.pods, summary.ok, _steps(summary)) == ("unchanged", 0, True, [])


def _limit_ranged(name: str, created: str) -> dict:
    """A running api pod that got its cpu request and limit (500m) from the namespace's
    LimitRange of the time, as LimitRanger annotates it (admission.go mergeContainerResources)."""
    doc = running(name, ("ReplicaSet", "api-h1"), "n1", "500m", labels=API_LABELS, created=created)
    doc["spec"]["containers"][0]["resources"]["limits"] = {"cpu": "500m"}
    doc["metadata"]["annotations"] = {
        "kubernetes.io/limit-ranger": "LimitRanger plugin set: cpu request for container app; cpu limit for container app"}
    return doc


@pytest.mark.parametrize("template_cpu, change", [
    (None, "unchanged"),
    ("500m", "update (RollingUpdate)"),
], ids=["the template sets no cpu, as when the pods were made: unchanged",
        "the template now sets the cpu LimitRanger had set: a new template, rolled"])
def test_a_limit_range_changed_since_the_pods_were_made_changes_no_template(template_cpu, change):
    """The namespace's LimitRange now defaults 2 cpu; the running pods got 500m from the one of
    their time. The Deployment controller compares templates, which LimitRanger never touches: a
    template re-applied as it was is unchanged (admitted today it would ask 2 cpu, which n1's
    1 cpu could not take: a false fail). One that now writes the cpu is a new template."""
    limits = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "limits", "namespace": "default"},
              "spec": {"limits": [{"type": "Container", "default": {"cpu": "2"}, "defaultRequest": {"cpu": "2"}}]}}
    state = cluster(node("n1", "2"), limits, _limit_ranged("api-h1-a", "2025-01-01T00:00:00Z"),
                    _limit_ranged("api-h1-b", "2025-12-30T00:00:00Z"))
    manifest = workload("Deployment", "api", "500m", "app:v1", {"replicas": 2})
    resources = manifest.obj["spec"]["template"]["spec"]["containers"][0]["resources"]
    resources.clear()
    if template_cpu is not None:
        resources.update({"requests": {"cpu": template_cpu}, "limits": {"cpu": template_cpu}})
    assert only(check(state, manifest)).change == change


def test_a_limit_range_added_since_the_pods_were_made_changes_no_template():
    """The pods were made before the namespace had a LimitRange: LimitRanger set nothing, so they
    carry no annotation and no cpu limit. Re-applied as it was, the template is unchanged — not a
    rollout to the LimitRange's defaults (which n1's 1 cpu could not take)."""
    limits = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "limits", "namespace": "default"},
              "spec": {"limits": [{"type": "Container", "default": {"cpu": "2"}, "defaultRequest": {"cpu": "2"}}]}}
    state = cluster(node("n1", "1"), limits, running("api-h1-a", ("ReplicaSet", "api-h1"), "n1", "400m",
                                                     labels=API_LABELS))
    assert only(check(state, workload("Deployment", "api", "400m", "app:v1", {"replicas": 1}))).change == "unchanged"


QUOTA = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "compute", "namespace": "default"},
         "spec": {"hard": {"requests.cpu": "1"}},
         "status": {"hard": {"requests.cpu": "1"}, "used": {"requests.cpu": "800m"}}}


def test_a_rollouts_pods_are_charged_against_the_quota_and_deleted_ones_make_room():
    """api's two 400m pods use 800m of the namespace's 1 cpu quota (n1 is roomy here: 2 cpu).
    A third replica would make 1200m: refused at creation (exceeded quota), the scale-up stuck.
    A new image with maxSurge 0 / maxUnavailable 1 deletes an old pod first (400m back), then
    its new pod fits the quota (800m again): the rollout goes through, pod by pod."""
    state = cluster(node("n1", "2"), QUOTA,
                    running("api-h1-a", ("ReplicaSet", "api-h1"), "n1", "400m", labels=API_LABELS),
                    running("api-h1-b", ("ReplicaSet", "api-h1"), "n1", "400m", labels=API_LABELS,
                            created="2025-12-30T00:00:00Z"))
    up = only(check(state, workload("Deployment", "api", "400m", "app:v1", {"replicas": 3})))
    assert (up.change, up.ok, up.pending) == ("scale", False, 1)
    assert "exceeded quota: compute" in (up.message or "")
    rolled = only(check(state, workload("Deployment", "api", "400m", "app:v2", {
        "replicas": 2, "strategy": {"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}}})))
    assert (rolled.change, rolled.ok, rolled.pods, rolled.pending) == ("update (RollingUpdate)", True, 2, 0)


def test_a_paused_deployment_only_scales_with_its_running_template():
    """spec.paused: syncDeployment only scales; the new image (app:v2) makes no ReplicaSet. Same
    replicas: nothing happens. 3 replicas: one more pod like the running ones (400m, app:v1),
    which does not fit n1's 200m free."""
    state = _api_cluster()
    same = only(check(state, workload("Deployment", "api", "400m", "app:v2", {"replicas": 2, "paused": True})))
    assert (same.change, same.pods, same.ok, _steps(same)) == ("unchanged", 0, True, [])
    assert same.rollout is not None and same.rollout.note.startswith("paused")
    up = only(check(state, workload("Deployment", "api", "400m", "app:v2", {"replicas": 3, "paused": True})))
    assert (up.change, up.ok, _steps(up)) == ("scale", False, [("scale up from 2 to 3 pods (the old template)", 0, 1, 1, 2)])
    assert up.rollout is not None and [c.containers[0].image for c in up.rollout.pods] == ["app:v1"]


def _replica_set(name: str, match_labels: dict[str, str]) -> dict:
    """A ReplicaSet object of the dump (a Deployment's: its selector holds the pod-template-hash)."""
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": 2, "selector": {"matchLabels": match_labels},
                     "template": {"metadata": {"labels": match_labels}, "spec": {"containers": [container("400m", "app:v1")]}}}}


def _relabelled(kind: str, name: str, labels: dict[str, str], spec: dict) -> object:
    """A manifest whose selector and template labels are `labels` (not its usual app=<name>)."""
    w = workload(kind, name, "400m", "app:v1", spec)
    w.obj["spec"]["selector"] = {"matchLabels": labels}
    w.obj["spec"]["template"]["metadata"]["labels"] = labels
    return decode_workload(w.obj, w.source)


def test_a_selector_change_is_refused_by_the_api_server_and_nothing_rolls():
    """apps/v1 selectors are immutable (the strategies' ValidateUpdate: ValidateImmutableField):
    `kubectl apply` of api with app=api-v2 fails, api keeps its two pods, and the check fails
    with the server's answer instead of judging pods that will never be made."""
    state = cluster(node("n1", "1"), _replica_set("api-h1", API_LABELS),
                    running("api-h1-a", ("ReplicaSet", "api-h1"), "n1", "400m", labels=API_LABELS),
                    running("api-h1-b", ("ReplicaSet", "api-h1"), "n1", "400m", labels=API_LABELS))
    summary = only(check(state, _relabelled("Deployment", "api", {"app": "api-v2"}, {"replicas": 2})))
    assert (summary.change, summary.ok, summary.pods, _steps(summary)) == ("refused", False, 0, [])
    assert summary.message == ('The Deployment "api" is invalid: spec.selector: Invalid value: '
                               '{"matchLabels":{"app":"api-v2"}}: field is immutable (the running Deployment selects '
                               'app=api; to change its selector, delete it and create it again)')


def test_a_statefulset_selector_change_is_a_forbidden_spec_update():
    # ValidateStatefulSetUpdate: only replicas, ordinals, template, updateStrategy,
    # revisionHistoryLimit, persistentVolumeClaimRetentionPolicy and minReadySeconds may change.
    sts = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": "default"},
           "spec": {"selector": {"matchLabels": {"app": "db"}}, "serviceName": "db",
                    "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [container("500m", "app:v1")]}}}}
    summary = only(check(cluster(node("n1", "4"), sts), _relabelled("StatefulSet", "db", {"app": "db", "tier": "data"},
                                                                     {"replicas": 1})))
    assert (summary.change, summary.ok) == ("refused", False)
    assert summary.message is not None and summary.message.startswith(
        'The StatefulSet "db" is invalid: spec: Forbidden: updates to statefulset spec for fields other than ')


def claim_templates(storage: str, mode: str | None = None, labels: dict[str, str] | None = None) -> list[dict]:
    """One claim template `data`, as a dump writes it when `mode` is given (defaulted fields)."""
    spec: dict = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": storage}}}
    if mode is not None:
        spec["volumeMode"] = mode
    return [{"metadata": {"name": "data", **({"labels": labels} if labels else {})}, "spec": spec}]


@pytest.mark.parametrize("change, wanted, field, was, now", [
    # `change`: what the running set has beside serviceName db
    ({}, {"replicas": 1, "serviceName": "db2"}, "serviceName", "db", "db2"),
    # unset on the running set is its default, OrderedReady (apps v1 SetDefaults_StatefulSet)
    ({}, {"replicas": 1, "serviceName": "db", "podManagementPolicy": "Parallel"}, "podManagementPolicy",
     "OrderedReady", "Parallel"),
    # a claim template's storage resized: ValidateStatefulSetUpdate compares the whole template
    ({"volumeClaimTemplates": claim_templates("1Gi", "Filesystem")},
     {"replicas": 1, "serviceName": "db", "volumeClaimTemplates": claim_templates("2Gi")},
     "volumeClaimTemplates[data].spec.resources.requests.storage", "1Gi", "2Gi"),
    # a label both sides state, changed (a chart's version bumped): the template differs
    ({"volumeClaimTemplates": claim_templates("1Gi", "Filesystem", {"helm.sh/chart": "db-1.0.0"})},
     {"replicas": 1, "serviceName": "db", "volumeClaimTemplates": claim_templates("1Gi", None, {"helm.sh/chart": "db-1.1.0"})},
     "volumeClaimTemplates[data].metadata.labels[helm.sh/chart]", "db-1.0.0", "db-1.1.0"),
])
def test_a_statefulsets_service_name_policy_or_claim_template_change_is_forbidden(change, wanted, field, was, now):
    sts = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": "default"},
           "spec": {"selector": {"matchLabels": {"app": "db"}}, "serviceName": "db", **change,
                    "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [container("500m", "app:v1")]}}}}
    summary = only(check(cluster(node("n1", "4"), sts), _relabelled("StatefulSet", "db", {"app": "db"}, wanted)))
    assert (summary.change, summary.ok) == ("refused", False)
    assert summary.message is not None and summary.message.startswith(
        'The StatefulSet "db" is invalid: spec: Forbidden: updates to statefulset spec for fields other than ')
    assert f"the running StatefulSet has {field} {was!r}, the manifest {now!r}" in summary.message


@pytest.mark.parametrize("running, manifest, said", [
    ([], claim_templates("1Gi"), "has no volumeClaimTemplates[data], which the manifest adds"),
    (claim_templates("1Gi", "Filesystem"), [], "has volumeClaimTemplates[data], which the manifest drops"),
], ids=["a claim template added", "a claim template dropped"])
def test_a_claim_template_added_or_dropped_is_forbidden_and_said_so(running, manifest, said):
    """ValidateStatefulSetUpdate compares the whole list of claim templates: one more or one less
    is refused like a changed one; the words say which template, not one of its fields."""
    sts = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": "default"},
           "spec": {"selector": {"matchLabels": {"app": "db"}}, "serviceName": "db", "volumeClaimTemplates": running,
                    "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [container("500m", "app:v1")]}}}}
    wanted = {"replicas": 1, "serviceName": "db", "volumeClaimTemplates": manifest}
    summary = only(check(cluster(node("n1", "4"), sts), _relabelled("StatefulSet", "db", {"app": "db"}, wanted)))
    assert (summary.change, summary.ok) == ("refused", False)
    assert summary.message is not None and f"(the running StatefulSet {said}; to change it, delete" in summary.message


def test_a_claim_template_written_as_the_api_server_stores_it_is_no_change():
    # The dump's template carries the defaulted volumeMode and 1Gi; the manifest leaves volumeMode out
    # and writes 1024Mi, which the API server stores as 1Gi: the same template, the update is accepted.
    sts = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": "default"},
           "spec": {"selector": {"matchLabels": {"app": "db"}}, "serviceName": "db",
                    "volumeClaimTemplates": claim_templates("1Gi", "Filesystem"),
                    "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [container("500m", "app:v1")]}}}}
    wanted = {"replicas": 1, "serviceName": "db", "volumeClaimTemplates": claim_templates("1024Mi")}
    summary = only(check(cluster(node("n1", "4"), sts), _relabelled("StatefulSet", "db", {"app": "db"}, wanted)))
    assert summary.change != "refused"


@pytest.mark.parametrize("running, manifest", [
    # one quantity written three ways (apiequality.Semantic compares quantities by value)
    (claim_templates("1073741824", "Filesystem"), claim_templates("1Gi")),
    (claim_templates("1e9", "Filesystem"), claim_templates("1G")),
    # a label only the running template carries (added by a tool): not the manifest's change
    (claim_templates("1Gi", "Filesystem", {"added-by": "a-tool"}), claim_templates("1Gi")),
])
def test_a_claim_template_the_same_by_value_or_by_the_keys_both_state_is_no_change(running, manifest):
    sts = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": "default"},
           "spec": {"selector": {"matchLabels": {"app": "db"}}, "serviceName": "db", "volumeClaimTemplates": running,
                    "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [container("500m", "app:v1")]}}}}
    wanted = {"replicas": 1, "serviceName": "db", "volumeClaimTemplates": manifest}
    summary = only(check(cluster(node("n1", "4"), sts), _relabelled("StatefulSet", "db", {"app": "db"}, wanted)))
    assert summary.change != "refused"


def test_the_same_selector_written_in_another_order_is_no_change():
    # matchLabels is a map: {tier, app} and {app, tier} are the same selector.
    labels = {"app": "api", "tier": "web"}
    state = cluster(node("n1", "1"), _replica_set("api-h1", {**labels, "pod-template-hash": "h1"}),
                    running("api-h1-a", ("ReplicaSet", "api-h1"), "n1", "400m", labels={**labels, "pod-template-hash": "h1"}))
    summary = only(check(state, _relabelled("Deployment", "api", {"tier": "web", "app": "api"}, {"replicas": 1})))
    assert (summary.change, summary.ok) == ("unchanged", True)


SCALING_EVENT = "a scaling event first (the new template rolls at the next sync)"


def test_a_replica_change_with_a_new_template_scales_the_old_replicaset_first():
    """deployment_controller.go syncDeployment: isScalingEvent (3 wanted, the ReplicaSet sized for
    2) → sync: api-h1 scaled to 3 with its own template, a 400m copy that does not fit n1's 200m
    free (pending, so the first old pod the rollout deletes). Then the rollout of 3 × 100m:
    maxSurge 25% of 3 → 1, maxUnavailable → 0: the new ReplicaSet up to 2 (4 pods ≤ 3 + 1),
    api-h1-b (newest) deleted, the new one up to 3, api-h1-a deleted."""
    summary = only(check(_api_cluster(), workload("Deployment", "api", "100m", "app:v2", {"replicas": 3})))
    assert (summary.change, summary.ok, summary.pods, summary.bound) == ("update (RollingUpdate)", True, 3, 3)
    assert _steps(summary) == [
        (f"{SCALING_EVENT}: the old ReplicaSet scaled up from 2 to 3 pods (the old template)", 0, 1, 1, 2),
        ("scale the new ReplicaSet up to 2", 0, 2, 0, 2),
        ("scale the old pods down to 1: delete api-h1-b", 1, 0, 0, 3),
        ("scale the new ReplicaSet up to 3", 0, 1, 0, 3),
        ("scale the old pods down to 0: delete api-h1-a", 1, 0, 0, 3),
    ]
    assert summary.rollout is not None and [p.labels.get("app") for p in summary.rollout.transient] == ["api"]


def test_fewer_replicas_with_a_new_template_delete_old_pods_first():
    # 1 wanted: api-h1-b (newest) deleted by the scaling event (600m free), then the rollout of
    # one 400m pod: surge 1 (25% of 1, rounded up), unavailable 0: the new pod, then api-h1-a goes.
    summary = only(check(_api_cluster(), workload("Deployment", "api", "400m", "app:v2", {"replicas": 1})))
    assert (summary.ok, _steps(summary)) == (True, [
        (f"{SCALING_EVENT}: the old pods scaled down from 2 to 1: delete api-h1-b", 1, 0, 0, 1),
        ("scale the new ReplicaSet up to 1", 0, 1, 0, 1),
        ("scale the old pods down to 0: delete api-h1-a", 1, 0, 0, 1),
    ])


def test_what_the_scaling_events_copies_evict_counts_as_the_updates():
    """api runs at priority 1000 (class high) on n1 (1200m) beside batch (priority 0, 400m): 0
    free. The scaling event's copy of api (400m, priority 1000) preempts batch (DefaultPreemption:
    the lower-priority pod frees just enough) — an eviction the update causes, though the copy is
    an old pod, not one the summary judges. The rollout then sticks: its first new pod (surge 1,
    unavailable 0) finds n1 full and no pod of lower priority to evict."""
    high = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000}
    pods = [_admitted(running(name, ("ReplicaSet", "api-h1"), "n1", "400m", labels=API_LABELS, created=created),
                      priorityClassName="high", priority=1000)
            for name, created in (("api-h1-a", "2025-01-01T00:00:00Z"), ("api-h1-b", "2025-12-30T00:00:00Z"))]
    batch = running("batch", ("ReplicaSet", "batch-h1"), "n1", "400m", labels={"app": "batch"})
    manifest = workload("Deployment", "api", "100m", "app:v2", {"replicas": 3})
    manifest.obj["spec"]["template"]["spec"]["priorityClassName"] = "high"
    summary = only(check(cluster(node("n1", "1200m"), high, *pods, batch), manifest))
    assert (summary.victims, summary.evictions) == (["default/batch"], 1)
    assert [step[:4] for step in _steps(summary)] == [
        (f"{SCALING_EVENT}: the old ReplicaSet scaled up from 2 to 3 pods (the old template)", 0, 1, 0),
        ("scale the new ReplicaSet up to 1", 0, 1, 1),
    ]
    assert summary.rollout is not None and summary.rollout.transient[0].key not in summary.keys


def test_no_scaling_event_when_the_count_is_the_one_the_replicaset_was_sized_for():
    """api-h1 says it was sized for 3 (desired-replicas annotation) though 2 pods run: a manifest
    of 3 at a new image is a plain rollout (isScalingEvent reads the annotation, not the pods).
    surge 1 (25% of 3, up), unavailable 0: the new set up to 2 (4 ≤ 3 + 1), api-h1-b deleted,
    the new set up to 3, api-h1-a deleted."""
    rs = _replica_set("api-h1", API_LABELS)
    rs["metadata"]["annotations"] = {"deployment.kubernetes.io/desired-replicas": "3"}
    rs["spec"]["replicas"] = 3
    state = cluster(node("n1", "1"), rs,
                    running("api-h1-a", ("ReplicaSet", "api-h1"), "n1", "400m", labels=API_LABELS),
                    running("api-h1-b", ("ReplicaSet", "api-h1"), "n1", "400m", labels=API_LABELS,
                            created="2025-12-30T00:00:00Z"))
    summary = only(check(state, workload("Deployment", "api", "100m", "app:v2", {"replicas": 3})))
    assert (summary.ok, _steps(summary)) == (True, [
        ("scale the new ReplicaSet up to 2", 0, 2, 0, 2),
        ("scale the old pods down to 1: delete api-h1-b", 1, 0, 0, 3),
        ("scale the new ReplicaSet up to 3", 0, 1, 0, 3),
        ("scale the old pods down to 0: delete api-h1-a", 1, 0, 0, 3),
    ])


def test_the_same_selector_in_another_form_is_refused_too():
    """ValidateImmutableField compares with Semantic.DeepEqual: matchLabels {app: api} rewritten
    as matchExpressions [app In (api)] selects the same pods but is another value — refused.
    (The running form: api-h1's selector less the pod-template-hash its Deployment added.)"""
    state = cluster(node("n1", "1"), _replica_set("api-h1", API_LABELS),
                    running("api-h1-a", ("ReplicaSet", "api-h1"), "n1", "400m", labels=API_LABELS))
    w = workload("Deployment", "api", "400m", "app:v1", {"replicas": 1})
    w.obj["spec"]["selector"] = {"matchExpressions": [{"key": "app", "operator": "In", "values": ["api"]}]}
    summary = only(check(state, decode_workload(w.obj, w.source)))
    assert (summary.change, summary.ok) == ("refused", False)
    assert summary.message is not None and summary.message.startswith(
        'The Deployment "api" is invalid: spec.selector: Invalid value: '
        '{"matchExpressions":[{"key":"app","operator":"In","values":["api"]}]}: field is immutable')


def test_a_partitioned_statefulset_grows_below_its_partition_with_the_running_template():
    """newVersionedStatefulSetPod: db scaled to 5 with partition 4 and a new template (app:v2,
    1000m): db-3, below the partition, is created at the current revision (app:v1, 500m, as db-0
    runs); db-4 at the new one. Nothing is replaced (only ordinals ≥ 4 are, and db-4 is new).
    n1: 1500m + 500m + 1000m of 4 cpu."""
    spec = {"replicas": 5, "updateStrategy": {"rollingUpdate": {"partition": 4}}}
    summary = only(check(_db_cluster(), workload("StatefulSet", "db", "1000m", "app:v2", spec)))
    assert summary.rollout is not None and summary.ok
    made = {p.name: (p.containers[0].image, p.labels["apps.kubernetes.io/pod-index"]) for p in summary.rollout.pods}
    assert made == {"db-3": ("app:v1", "3"), "db-4": ("app:v2", "4")}
    assert _steps(summary) == [("create db-3", 0, 1, 0, 3), ("create db-4", 0, 1, 0, 4)]


IN_PROGRESS = "a rollout to this template is in progress: the 1 pod(s) already at it are kept"


def _cordoned(name: str, cpu: str) -> dict:
    doc = node(name, cpu)
    doc["spec"] = {"unschedulable": True}
    return doc


def test_a_deployment_rollout_in_progress_goes_on_from_where_it_is():
    """api is half-way to app:v2: api-h1-a (v1) on n1 (700m: 300m free), api-h2-a (v2, newer) on
    n2, cordoned since. The manifest is app:v2 (CI ran again before the rollout finished):
    the new ReplicaSet api-h2 keeps api-h2-a. replicas 2, maxSurge 0, maxUnavailable 1 →
    minAvailable 1. Surge room 2 + 0 − 2 = 0; scale-down: 2 − 1 − 0 pending = 1, so api-h1-a
    goes (available 1), then the new ReplicaSet up to 2: 400m on n1 (700m free; n2 cordoned).
    (Replacing api-h2-a as an old pod — the newest, deleted first — would leave its new pod
    pending in n1's 300m: a false FAIL.)"""
    v2 = {"app": "api", "pod-template-hash": "h2"}
    state = cluster(node("n1", "700m"), _cordoned("n2", "1"),
                    running("api-h1-a", ("ReplicaSet", "api-h1"), "n1", "400m", labels=API_LABELS),
                    running("api-h2-a", ("ReplicaSet", "api-h2"), "n2", "400m", image="app:v2", labels=v2,
                            created="2025-12-30T00:00:00Z"))
    strategy = {"replicas": 2, "strategy": {"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}}}
    summary = only(check(state, workload("Deployment", "api", "400m", "app:v2", strategy)))
    assert (summary.change, summary.ok, summary.pods, summary.bound) == ("update (RollingUpdate)", True, 1, 1)
    assert _steps(summary) == [("scale the old pods down to 0: delete api-h1-a", 1, 0, 0, 1),
                               ("scale the new ReplicaSet up to 2", 0, 1, 0, 1)]
    assert summary.rollout is not None and summary.rollout.note == IN_PROGRESS


def test_a_new_replicaset_with_more_pods_than_the_replicas_is_scaled_down_first():
    """Two v2 pods run (api-h2-a, api-h2-b on n1) and one v1 pod; the manifest asks for 1 replica
    of v2: reconcileNewReplicaSet scales api-h2 down to 1 — the newer pod, api-h2-b, goes — and
    then the old pod: surge 1 (25% of 1, up), unavailable 0 → minAvailable 1: 1 + 1 − 1 = 1 > 0,
    so api-h1-a is deleted (available 2 − 1 = 1 allowed)."""
    v2 = {"app": "api", "pod-template-hash": "h2"}
    state = cluster(node("n1", "4"),
                    running("api-h1-a", ("ReplicaSet", "api-h1"), "n1", "400m", labels=API_LABELS),
                    running("api-h2-a", ("ReplicaSet", "api-h2"), "n1", "400m", image="app:v2", labels=v2,
                            created="2025-12-30T00:00:00Z"),
                    running("api-h2-b", ("ReplicaSet", "api-h2"), "n1", "400m", image="app:v2", labels=v2,
                            created="2025-12-31T12:00:00Z"))
    summary = only(check(state, workload("Deployment", "api", "400m", "app:v2", {"replicas": 1})))
    assert (summary.ok, summary.pods) == (True, 0)
    assert _steps(summary) == [("scale the new ReplicaSet down to 1: delete api-h2-b", 1, 0, 0, 2),
                               ("scale the old pods down to 0: delete api-h1-a", 1, 0, 0, 1)]
    assert summary.rollout is not None and summary.rollout.note == IN_PROGRESS  # api-h2-a: 1 kept


def test_a_daemonset_rollout_in_progress_replaces_only_the_nodes_still_on_the_old_template():
    """agent-n1 already runs agent:v2, with the tolerations the DaemonSet controller gives its
    pods (daemon util AddOrUpdateDaemonPodTolerations): only n2's pod is replaced
    (maxUnavailable 1, maxSurge 0)."""
    updated = _updated_agent("agent-n1", "n1", "100m")
    updated["spec"]["containers"][0]["ports"] = [{"containerPort": 9100, "hostPort": 9100, "protocol": "TCP"}]
    state = cluster(node("n1", "1"), node("n2", "1"), updated,
                    running("agent-n2", ("DaemonSet", "agent"), "n2", "100m", labels=AGENT_LABELS, host_port=9100))
    summary = only(check(state, workload("DaemonSet", "agent", "100m", "agent:v2", host_port=9100)))
    assert (summary.ok, summary.pods, _steps(summary)) == (True, 1, [("replace agent-n2 (on n2)", 1, 1, 0, 1)])
    assert summary.rollout is not None and summary.rollout.note == IN_PROGRESS


def _updated_agent(name: str, node_name: str, cpu: str) -> dict:
    """A DaemonSet pod at agent:v2, with the tolerations the controller gives its pods (daemon
    util AddOrUpdateDaemonPodTolerations)."""
    pod = running(name, ("DaemonSet", "agent"), node_name, cpu, image="agent:v2", labels=AGENT_LABELS,
                  created="2025-12-30T00:00:00Z")
    pod["spec"]["tolerations"] += [{"key": f"node.kubernetes.io/{k}", "operator": "Exists", "effect": "NoSchedule"}
                                   for k in ("disk-pressure", "memory-pressure", "pid-pressure", "unschedulable")]
    return pod


def test_a_daemonset_caught_mid_surge_deletes_the_old_pod_beside_the_updated_one():
    """n1 (800m) runs agent-n1-old (v1) and agent-n1-new (v2, bound), 300m each; n2 (800m) runs
    agent-n2 (v1). maxSurge 1, maxUnavailable 0 (update.go rollingUpdate: a node already surged
    onto, its new pod available, gets its old pod deleted). Step 1: agent-n1-old deleted and n2
    surged onto (500m free), available 2 after the deletion (agent-n1-new, agent-n2). Step 2: n2's
    new pod is bound, agent-n2 deleted. (Surging onto n1 again would find 200m free: stuck.)"""
    state = cluster(node("n1", "800m"), node("n2", "800m"),
                    running("agent-n1-old", ("DaemonSet", "agent"), "n1", "300m", labels=AGENT_LABELS),
                    _updated_agent("agent-n1-new", "n1", "300m"),
                    running("agent-n2", ("DaemonSet", "agent"), "n2", "300m", labels=AGENT_LABELS))
    spec = {"updateStrategy": {"rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}}
    summary = only(check(state, workload("DaemonSet", "agent", "300m", "agent:v2", spec)))
    assert (summary.ok, summary.pods) == (True, 1)
    (first, *rest) = _steps(summary)
    assert re.fullmatch(f"create agent-{SUFFIX} beside the old pods, delete agent-n1-old", first[0])
    assert (first[1:], rest) == ((1, 1, 0, 2), [("delete agent-n2", 1, 0, 0, 2)])


def test_a_statefulset_rollout_in_progress_skips_the_ordinals_already_updated():
    # db-2 already runs app:v2: the rolling update goes on with db-1, then db-0, one at a time.
    state = cluster(node("n1", "4"), *(running(f"db-{i}", ("StatefulSet", "db"), "n1", "500m", labels={"app": "db"},
                                               image="app:v2" if i == 2 else "app:v1") for i in range(3)))
    summary = only(check(state, workload("StatefulSet", "db", "500m", "app:v2", {"replicas": 3})))
    assert (summary.ok, [p.name for p in summary.rollout.pods]) == (True, ["db-1", "db-0"])  # type: ignore[union-attr]
    assert _steps(summary) == [("replace db-1", 1, 1, 0, 2), ("replace db-0", 1, 1, 0, 2)]


def test_a_statefulset_rollout_in_progress_says_how_many_pods_it_keeps():
    state = cluster(node("n1", "4"), *(running(f"db-{i}", ("StatefulSet", "db"), "n1", "500m", labels={"app": "db"},
                                               image="app:v2" if i == 2 else "app:v1") for i in range(3)))
    summary = only(check(state, workload("StatefulSet", "db", "500m", "app:v2", {"replicas": 3})))
    assert summary.rollout is not None and summary.rollout.note == IN_PROGRESS


def test_a_partitioned_rollout_that_is_done_is_unchanged():
    """partition 2 of 4: db-2 and db-3 run app:v2, db-0 and db-1 app:v1 (kept by the partition).
    The manifest already applied again: updateStatefulSet finds every ordinal from 2 up at the
    update revision and does nothing."""
    state = cluster(node("n1", "4"), *(running(f"db-{i}", ("StatefulSet", "db"), "n1", "500m", labels={"app": "db"},
                                               image="app:v2" if i >= 2 else "app:v1") for i in range(4)))
    spec = {"replicas": 4, "updateStrategy": {"rollingUpdate": {"partition": 2}}}
    summary = only(check(state, workload("StatefulSet", "db", "500m", "app:v2", spec)))
    assert (summary.change, summary.ok, summary.pods, _steps(summary)) == ("unchanged", True, 0, [])
    assert summary.rollout is not None and summary.rollout.note == (
        "partition 2: lower ordinals keep the old template; a rollout to this template is in progress: "
        "the 2 pod(s) already at it are kept")


def test_a_scale_up_makes_the_running_replicasets_pods_which_their_spread_counts():
    """web's ReplicaSet web-7d4b9c8f6d runs 2 pods in zone a (n1), each spread by zone with
    matchLabelKeys [pod-template-hash] (maxSkew 1, DoNotSchedule); n2 (zone b) is full. The same
    template at 3 replicas: the Deployment controller scales web-7d4b9c8f6d (same template, same
    ReplicaSet), so the third pod carries hash 7d4b9c8f6d and counts its siblings: zone a would
    hold 3 against zone b's 0 (skew 3 > 1), and n2 has no cpu left — pending, the check fails.
    (A pod under a hash of its own would count none of them and go to n1.)"""
    labels = {"app": "web", "pod-template-hash": "7d4b9c8f6d"}
    spread = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
               "labelSelector": {"matchLabels": {"app": "web"}}, "matchLabelKeys": ["pod-template-hash"]}]

    def zoned(name: str, zone: str) -> dict:
        doc = node(name, "2")
        doc["metadata"]["labels"]["topology.kubernetes.io/zone"] = zone
        return doc

    def web(name: str) -> dict:
        pod = running(name, ("ReplicaSet", "web-7d4b9c8f6d"), "n1", "100m", labels=labels)
        # As the API server stored it: the matchLabelKeys value merged into the selector.
        merged = {**spread[0], "labelSelector": {"matchLabels": {"app": "web"}, "matchExpressions": [
            {"key": "pod-template-hash", "operator": "In", "values": ["7d4b9c8f6d"]}]}}
        pod["spec"]["topologySpreadConstraints"] = [merged]
        return pod

    state = cluster(zoned("n1", "a"), zoned("n2", "b"), web("web-7d4b9c8f6d-aaaaa"), web("web-7d4b9c8f6d-bbbbb"),
                    running("hog", ("ReplicaSet", "hog-h1"), "n2", "1950m", labels={"app": "hog"}))
    manifest = workload("Deployment", "web", "100m", "app:v1", {"replicas": 3})
    manifest.obj["spec"]["template"]["spec"]["topologySpreadConstraints"] = spread
    summary = only(check(state, manifest))
    assert (summary.change, summary.ok, summary.pending) == ("scale", False, 1)
    assert summary.rollout is not None and summary.rollout.pods[0].labels["pod-template-hash"] == "7d4b9c8f6d"
    assert "1 node(s) didn't match pod topology spread constraints" in (summary.message or "")


def _job(parallelism: int, completions: int, image: str = "app:v1", indexed: bool = False) -> object:
    spec = {"parallelism": parallelism, "completions": completions, **({"completionMode": "Indexed"} if indexed else {})}
    w = workload("Job", "etl", "400m", image, spec)
    w.obj["spec"]["template"]["spec"]["restartPolicy"] = "Never"  # type: ignore[attr-defined]
    return w


def _job_pod(name: str, phase: str = "Running", node_name: str = "n1", index: int | None = None,
             created: str = "2025-01-01T00:00:00Z") -> dict:
    labels = {"app": "etl", **({"batch.kubernetes.io/job-completion-index": str(index)} if index is not None else {})}
    pod = running(name, ("Job", "etl"), node_name, "400m", labels=labels, created=created)
    pod["status"]["phase"] = phase
    return pod


def test_a_running_jobs_new_template_is_refused():
    """ValidateJobSpecUpdate: a running Job's spec.template is immutable: kubectl apply fails,
    so the check does."""
    state = cluster(node("n1", "4"), _job_pod("etl-a"))
    summary = only(check(state, _job(1, 1, image="app:v2")))
    assert (summary.change, summary.ok) == ("refused", False)
    assert summary.message is not None and summary.message.startswith(
        'The Job "etl" is invalid: spec.template: Invalid value: the new pod template: field is immutable')


def test_more_parallelism_starts_the_completions_left():
    """completions 10, 3 done (Succeeded), 2 running (800m of n1's 2 cpu): parallelism 2 → 4
    wants min(10 − 3, 4) = 4 active (manageJob): 2 more 400m pods, which fit in the 1200m left."""
    done = [_job_pod(f"etl-done{i}", phase="Succeeded") for i in range(3)]
    state = cluster(node("n1", "2"), *done, _job_pod("etl-a"), _job_pod("etl-b"))
    summary = only(check(state, _job(4, 10)))
    assert (summary.change, summary.ok, summary.pods, summary.bound) == ("scale", True, 2, 2)
    assert _steps(summary) == [("create 2 pods: 4 wanted active, 3 completions done", 0, 2, 0, 2)]


def test_an_indexed_job_grown_in_tandem_runs_its_pending_indexes():
    """Indexed, completions = parallelism 3 → 5 (elastic Indexed Job), indexes 0 and 1 done and
    2 running: min(5 − 2, 5) = 3 wanted, 1 active → indexes 3 and 4 (the lowest neither active
    nor done)."""
    state = cluster(node("n1", "4"), _job_pod("etl-0-aaaaa", phase="Succeeded", index=0),
                    _job_pod("etl-1-bbbbb", phase="Succeeded", index=1), _job_pod("etl-2-ccccc", index=2))
    summary = only(check(state, _job(5, 5, indexed=True)))
    assert summary.rollout is not None and summary.ok
    assert sorted(p.labels["batch.kubernetes.io/job-completion-index"] for p in summary.rollout.pods) == ["3", "4"]


def test_less_parallelism_deletes_the_newest_pods():
    """completions 10, none done, 3 running (etl-c newest): parallelism 3 → 1 wants 1 active;
    activePodsForRemoval deletes the unbound first (none), then the newest: etl-c, etl-b."""
    state = cluster(node("n1", "4"), _job_pod("etl-a"), _job_pod("etl-b", created="2025-12-30T00:00:00Z"),
                    _job_pod("etl-c", created="2025-12-31T12:00:00Z"))
    summary = only(check(state, _job(1, 10)))
    assert (summary.change, summary.ok, _steps(summary)) == (
        "scale", True, [("delete etl-c, etl-b: 1 wanted active", 2, 0, 0, 1)])


def test_a_job_that_ran_its_course_is_unchanged_not_new():
    """etl's two pods Succeeded, none active: re-applied, the Job is the one that finished —
    the controller creates nothing (not a new Job's two pods, which 600m of cpu would not fit)."""
    state = cluster(node("n1", "600m"), _job_pod("etl-a", phase="Succeeded"), _job_pod("etl-b", phase="Succeeded"))
    summary = only(check(state, _job(2, 2)))
    assert (summary.change, summary.ok, summary.pods) == ("unchanged", True, 0)


def test_a_finished_jobs_new_template_is_refused_too():
    """ValidateJobSpecUpdate relaxes the template's immutability only for a suspended Job that
    never started: a Job whose pods all Succeeded refuses a new image as a running one does (the
    Helm upgrade that fails on an old completed Job) — not "unchanged", a false pass."""
    state = cluster(node("n1", "4"), _job_pod("etl-a", phase="Succeeded"), _job_pod("etl-b", phase="Succeeded"))
    summary = only(check(state, _job(2, 2, image="app:v2")))
    assert (summary.change, summary.ok) == ("refused", False)
    assert summary.message is not None and summary.message.startswith(
        'The Job "etl" is invalid: spec.template: Invalid value: the new pod template: field is immutable')


@pytest.mark.parametrize("policy, change", [
    (None, "new"),
    ("before-hook-creation", "new"),
    ("hook-succeeded,before-hook-creation", "new"),
    ("hook-failed", "refused"),
], ids=["no delete policy: Helm's default, before-hook-creation", "before-hook-creation",
        "among others", "another policy alone: the old Job stays, its template immutable"])
def test_a_helm_hook_job_is_created_anew_not_updated(policy, change):
    """A chart's migration Job with helm.sh/hook: Helm deletes the one that ran and creates it
    again (before-hook-creation, its default), never updates it — a new image is a new Job, not an
    immutable-template refusal."""
    manifest = _job(2, 2, image="app:v2")
    annotations = {"helm.sh/hook": "pre-upgrade", **({"helm.sh/hook-delete-policy": policy} if policy else {})}
    manifest.obj["metadata"]["annotations"] = annotations  # type: ignore[attr-defined]
    state = cluster(node("n1", "4"), _job_pod("etl-a", phase="Succeeded"), _job_pod("etl-b", phase="Succeeded"))
    assert only(check(state, manifest)).change == change


def test_an_index_given_up_is_not_run_again():
    """Indexed, completions = parallelism 3, backoffLimitPerIndex 0: index 0 failed (given up:
    0 earlier failures + 1 > 0), index 1 running; parallelism and completions 3 → 4 want
    min(4 − 0 done, 4) = 4 active: 3 more pods, but index 0 is not run again — 2 and 3 are the
    only pending indexes (firstPendingIndexes)."""
    w = _job(4, 4, indexed=True)
    w.obj["spec"]["backoffLimitPerIndex"] = 0  # type: ignore[attr-defined]
    state = cluster(node("n1", "4"), _job_pod("etl-0-aaaaa", phase="Failed", index=0), _job_pod("etl-1-bbbbb", index=1))
    summary = only(check(state, w))
    assert summary.rollout is not None
    assert sorted(p.labels["batch.kubernetes.io/job-completion-index"] for p in summary.rollout.pods) == ["2", "3"]


def test_a_jobs_pods_with_a_sidecar_a_webhook_added_are_its_template_unchanged():
    """An injected istio-proxy container is no template change: a re-applied Job is not refused."""
    pod = _job_pod("etl-a")
    pod["spec"]["containers"].append({"name": "istio-proxy", "image": "istio/proxyv2:1.23",
                                      "resources": {"requests": {"cpu": "100m"}}})
    summary = only(check(cluster(node("n1", "4"), pod), _job(1, 1)))
    assert (summary.change, summary.ok) == ("unchanged", True)


@pytest.mark.parametrize("free, ok", [("2900m", False), ("3", True)], ids=["1.4 cpu left: stuck", "1.5 left: fits"])
def test_an_updated_templates_new_pods_get_the_sidecar_a_webhook_injects(free, ok):
    """api runs one pod: app 1 cpu and an injected istio-proxy 500m (the template has no proxy),
    1.5 cpu used. A new image with maxSurge 1, maxUnavailable 0 creates the new pod beside it;
    the webhook injects the proxy into it too: it asks 1.5 cpu, which n1 has free only at 3 cpu
    (at 2.9: 1.4 free, stuck). Made from the template alone it would ask 1 cpu: a false pass."""
    pod = running("api-h1-a", ("ReplicaSet", "api-h1"), "n1", "1", labels=API_LABELS)
    pod["spec"]["containers"].append({"name": "istio-proxy", "image": "istio/proxyv2:1.23",
                                      "resources": {"requests": {"cpu": "500m"}}})
    manifest = workload("Deployment", "api", "1", "app:v2", {
        "replicas": 1, "strategy": {"rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}})
    summary = only(check(cluster(node("n1", free), pod), manifest))
    assert (summary.change, summary.ok) == ("update (RollingUpdate)", ok)
    assert summary.rollout is not None
    assert [c.name for c in summary.rollout.pods[0].containers] == ["app", "istio-proxy"]


def _running_with(extra: str, cpu: str) -> dict:
    """api's one running pod: app (1 cpu) and `extra` (`cpu`), on n1."""
    pod = running("api-h1-a", ("ReplicaSet", "api-h1"), "n1", "1", labels=API_LABELS)
    pod["spec"]["containers"].append({"name": extra, "image": "x", "resources": {"requests": {"cpu": cpu}}})
    return pod


def _api_replica_set(*containers: dict) -> dict:
    """api's ReplicaSet object, whose template runs `containers`."""
    rs = _replica_set("api-h1", API_LABELS)
    rs["spec"]["replicas"] = 1
    rs["spec"]["template"]["spec"]["containers"] = list(containers)
    return rs


@pytest.mark.parametrize("template, new_names", [
    ([container("1", "app:v1")], ["app", "istio-proxy"]),
    ([container("1", "app:v1"), {"name": "istio-proxy", "image": "x", "resources": {"requests": {"cpu": "500m"}}}],
     ["app"]),
], ids=["the ReplicaSet's template lacks it: injected, carried into the new pods",
        "the ReplicaSet's template had it and the new one drops it: gone"])
def test_a_container_is_carried_into_new_pods_only_when_the_old_template_lacked_it(template, new_names):
    """The running pod runs app and istio-proxy; the new template (app:v2) runs app alone. With its
    ReplicaSet in the snapshot, the old template tells an injected container from one the new
    template drops on purpose: only the injected one comes back."""
    state = cluster(node("n1", "4"), _api_replica_set(*template), _running_with("istio-proxy", "500m"))
    manifest = workload("Deployment", "api", "1", "app:v2", {"replicas": 1})
    summary = only(check(state, manifest))
    assert summary.rollout is not None
    assert [c.name for c in summary.rollout.pods[0].containers] == new_names


def test_a_renamed_container_is_not_counted_twice():
    """The ReplicaSet's template runs `app`; the new one renames it `web`: the running pod's `app`
    is the template's own, not an injection — the new pod runs `web` alone."""
    state = cluster(node("n1", "4"), _api_replica_set(container("1", "app:v1")),
                    running("api-h1-a", ("ReplicaSet", "api-h1"), "n1", "1", labels=API_LABELS))
    manifest = workload("Deployment", "api", "1", "app:v2", {"replicas": 1})
    manifest.obj["spec"]["template"]["spec"]["containers"][0]["name"] = "web"  # type: ignore[attr-defined]
    summary = only(check(state, manifest))
    assert summary.rollout is not None
    assert [c.name for c in summary.rollout.pods[0].containers] == ["web"]


def _job_object(completions: int, parallelism: int, status: dict, indexed: bool = False) -> dict:
    """etl's Job object as a dump holds it (its spec and status; the template is not read)."""
    spec = {"completions": completions, "parallelism": parallelism, **({"completionMode": "Indexed"} if indexed else {})}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "etl", "namespace": "default"},
            "spec": spec, "status": status}


def test_a_jobs_progress_is_its_objects_status_when_the_snapshot_has_it():
    """status.succeeded 3 (those pods were garbage-collected), completions 4, parallelism 2, one
    pod running: syncJob wants min(4 − 3, 2) = 1 active, which runs — nothing is created (the
    pods alone would count 0 done and want 2: a pod that does not fit in n1's 200m)."""
    state = cluster(node("n1", "600m"), _job_object(4, 2, {"succeeded": 3, "active": 1}), _job_pod("etl-a"))
    summary = only(check(state, _job(2, 4)))
    assert (summary.change, summary.ok, summary.pods) == ("unchanged", True, 0)


def test_a_finished_job_object_is_left_alone():
    state = cluster(node("n1", "1"), _job_object(2, 2, {"succeeded": 2, "conditions": [
        {"type": "Complete", "status": "True"}]}))
    summary = only(check(state, _job(2, 2)))
    assert (summary.change, summary.ok, summary.pods) == ("unchanged", True, 0)


def test_the_indexes_the_job_object_gave_up_are_not_run_again():
    """Indexed 3 → 4 (in tandem with parallelism): completedIndexes "1", failedIndexes "0", index
    2 running: min(4 − 1, 4) = 3 wanted, 1 active → 2 more: indexes 3 only (0 given up, 1 done,
    2 active) — firstPendingIndexes finds just one."""
    state = cluster(node("n1", "4"), _job_object(3, 3, {"completedIndexes": "1", "failedIndexes": "0"}, indexed=True),
                    _job_pod("etl-2-ccccc", index=2))
    summary = only(check(state, _job(4, 4, indexed=True)))
    assert summary.rollout is not None
    assert [p.labels["batch.kubernetes.io/job-completion-index"] for p in summary.rollout.pods] == ["3"]


def test_completions_a_job_may_not_change_are_refused():
    """validateCompletions: immutable for a NonIndexed Job; an Indexed Job's only in tandem with
    parallelism."""
    plain = cluster(node("n1", "4"), _job_object(4, 2, {"active": 1}), _job_pod("etl-a"))
    summary = only(check(plain, _job(2, 10)))
    assert (summary.change, summary.message) == (
        "refused", 'The Job "etl" is invalid: spec.completions: Invalid value: 10: field is immutable')
    indexed = cluster(node("n1", "4"), _job_object(5, 5, {"active": 1}, indexed=True), _job_pod("etl-0-aaaaa", index=0))
    summary = only(check(indexed, _job(5, 6, indexed=True)))
    assert summary.message == ('The Job "etl" is invalid: spec.completions: Invalid value: 6: can only be modified '
                               "in tandem with spec.parallelism")
    assert only(check(indexed, _job(6, 6, indexed=True))).change == "scale"


def test_a_job_objects_index_intervals_are_read_as_the_controller_writes_them():
    state = cluster(_job_object(8, 2, {"completedIndexes": "0-2,5", "failedIndexes": "7"}, indexed=True))
    job = state.jobs[("default", "etl")]
    assert (job.completed_indexes, job.failed_indexes, job.indexed) == (frozenset({0, 1, 2, 5}), frozenset({7}), True)


def test_a_job_manifest_leaving_its_counts_unset_keeps_those_that_run():
    """Created without completions or parallelism (stored 1 and 1: SetDefaults_Job), re-applied
    as written: apply leaves the fields the manifest never set — unchanged, not refused."""
    w = _job(1, 1)
    del w.obj["spec"]["completions"], w.obj["spec"]["parallelism"]  # type: ignore[attr-defined]
    state = cluster(node("n1", "4"), _job_object(1, 1, {"active": 1}), _job_pod("etl-a"))
    assert (only(check(state, w)).change, only(check(state, w)).ok) == ("unchanged", True)


def test_a_jobs_completion_mode_may_not_change():
    state = cluster(node("n1", "4"), _job_object(4, 4, {"active": 1}), _job_pod("etl-a"))
    summary = only(check(state, _job(4, 4, indexed=True)))
    assert summary.message == "The Job \"etl\" is invalid: spec.completionMode: Invalid value: 'Indexed': field is immutable"


@pytest.mark.parametrize("status, spec", [
    ({"conditions": [{"type": "FailureTarget", "status": "True"}], "terminating": 2}, {}),  # syncJob: finished
    ({"conditions": [{"type": "SuccessCriteriaMet", "status": "True"}]}, {}),
    ({"active": 0}, {"managedBy": "kueue.x-k8s.io/multikueue"}),  # another controller's
])
def test_a_job_the_job_controller_no_longer_manages_gets_no_pod(status, spec):
    job = _job_object(2, 2, status)
    job["spec"].update(spec)
    summary = only(check(cluster(node("n1", "1"), job), _job(2, 2)))
    assert (summary.change, summary.ok, summary.pods) == ("unchanged", True, 0)


def test_terminating_pods_are_waited_for_under_a_pod_failure_policy():
    """onlyReplaceFailedPods holds with a podFailurePolicy (the live Job's; the manifest need not
    restate podReplacementPolicy): parallelism 2 − 1 terminating − 1 active = 0 to create."""
    job = _job_object(10, 2, {"active": 1, "terminating": 1})
    job["spec"]["podFailurePolicy"] = {"rules": []}
    summary = only(check(cluster(node("n1", "600m"), job, _job_pod("etl-a")), _job(2, 10)))
    assert (summary.change, summary.ok, summary.pods) == ("unchanged", True, 0)


@pytest.mark.parametrize("text, indexes", [
    ("0-99999999", set(range(8))),  # clipped to completions (parseIndexesFromString)
    ("²,1", {1}),  # a corrupt interval is skipped
    (" 1,2", {2}),
    ("1-,3", {3}),
])
def test_completed_indexes_are_read_as_the_controller_reads_them(text, indexes):
    state = cluster(_job_object(8, 2, {"completedIndexes": text}, indexed=True))
    assert state.jobs[("default", "etl")].completed_indexes == frozenset(indexes)


@pytest.mark.parametrize("field, running, written", [
    ("backoffLimitPerIndex", 1, 2),
    ("podFailurePolicy", {"rules": []}, {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}),
])
def test_other_job_fields_the_server_keeps_are_refused_when_changed(field, running, written):
    """ValidateJobSpecUpdate: podFailurePolicy and backoffLimitPerIndex are immutable; a manifest
    that restates them as they run, or leaves them unset, is no change."""
    job = _job_object(4, 2, {"active": 1}, indexed=True)
    job["spec"][field] = running
    state = cluster(node("n1", "4"), job, _job_pod("etl-0-aaaaa", index=0))
    changed, same, unset = _job(2, 4, indexed=True), _job(2, 4, indexed=True), _job(2, 4, indexed=True)
    changed.obj["spec"][field] = written  # type: ignore[attr-defined]
    same.obj["spec"][field] = running  # type: ignore[attr-defined]
    summary = only(check(state, changed))
    assert summary.change == "refused" and (summary.message or "").startswith(
        f'The Job "etl" is invalid: spec.{field}: Invalid value: ')
    assert only(check(state, same)).change != "refused" and only(check(state, unset)).change != "refused"
