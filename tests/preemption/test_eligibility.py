"""§9.1 Eligibility of the preemptor (Go: PodEligibleToPreemptOthers, TestPodEligibleToPreemptOthers).

1. preemptionPolicy Never → `not eligible due to preemptionPolicy=Never.`
2. nominated node whose status is U&U (an unknown name reads the absent status) → eligible;
   else a lower-priority pod on that node with a deletionTimestamp whose *first* DisruptionTarget
   condition is True/PreemptionByScheduler → `not eligible due to a terminating pod on the
   nominated node.`
3. otherwise eligible.
Not eligible → Unschedulable `preemption: <text>` and the nomination is left unchanged (§8.5).
"""

from __future__ import annotations

import pytest

from kwhatif.api.objects import PodCondition, PriorityClass
from kwhatif.engine import simulate
from kwhatif.framework.diagnosis import NodeToStatus
from kwhatif.framework.status import Code, Status, unresolvable
from kwhatif.preemption.evaluator import eligibility
from kwhatif.render.results import simulation_data
from kwhatif.api.cluster import Cluster
from kwhatif.snapshot.pod_info import PodInfo
from tests.builders import make_node, make_pod
from tests.preemption import (
    DELETING,
    NEVER,
    NO_CLAIMS,
    NOW,
    TERMINATING,
    Env,
    incoming,
    on,
    preempted_condition,
)

HIGH, LOW = 1000, 0
TAINT_REASON = "node(s) had untolerated taint {dedicated: x}"


def U(*reasons: str) -> Status:
    return Status(Code.UNSCHEDULABLE, reasons)


def statuses_for(node_status: Status | None, absent: Status | None = None) -> NodeToStatus:
    m = NodeToStatus()
    if absent is not None:
        m.absent = absent
    if node_status is not None:
        m.set("node1", node_status)
    return m


def victim_pod(**kw):
    """p1 on node1 (Go: st.MakePod().Name("p1").Priority(lowPriority).Node("node1"))."""
    base = dict(priority=LOW)
    base.update(kw)
    return on("node1", "p1", **base)


PREEMPTED = (preempted_condition(),)

# (case, preemptor kwargs, pods on the nodes, nominated-node status, absent status, expected text)
CASES = [
    # Go: "Pod with nominated node" — the nominated node is U&U, so even a terminating lower pod
    # does not block.
    ("a nominated node rejected as unschedulable and unresolvable makes the pod eligible again",
     dict(nominated_node_name="node1"),
     [victim_pod(deletion_timestamp=DELETING, conditions=PREEMPTED)],
     unresolvable(TAINT_REASON), None, ""),
    # Go: "Pod without nominated node"
    ("a pod without a nominated node is eligible", {}, [], None, None, ""),
    # Go: "Pod with 'PreemptNever' preemption policy"
    ("a pod with preemptionPolicy Never is not eligible", dict(preemption_policy="Never"),
     [], None, None, NEVER),
    ("preemptionPolicy Never wins even over a nominated node that is unresolvable",
     dict(preemption_policy="Never", nominated_node_name="node1"),
     [], unresolvable(TAINT_REASON), None, NEVER),
    ("an explicit PreemptLowerPriority policy is eligible", dict(preemption_policy="PreemptLowerPriority"),
     [], None, None, ""),
    # Go: "preemption victim pod terminating, as indicated by the dedicated DisruptionTarget condition"
    ("a lower-priority pod being deleted by scheduler preemption on the nominated node blocks preemption",
     dict(nominated_node_name="node1"),
     [victim_pod(deletion_timestamp=DELETING, conditions=PREEMPTED)],
     U("Insufficient cpu"), None, TERMINATING),
    # Go: "non-victim Pods terminating"
    ("a terminating pod without a DisruptionTarget condition does not block",
     dict(nominated_node_name="node1"),
     [victim_pod(deletion_timestamp=DELETING)], U("Insufficient cpu"), None, ""),
    ("a DisruptionTarget condition with status False does not block",
     dict(nominated_node_name="node1"),
     [victim_pod(deletion_timestamp=DELETING, conditions=(preempted_condition(status="False"),))],
     U("Insufficient cpu"), None, ""),
    ("a DisruptionTarget condition with another reason does not block",
     dict(nominated_node_name="node1"),
     [victim_pod(deletion_timestamp=DELETING,
                 conditions=(preempted_condition(reason="EvictionByEvictionAPI"),))],
     U("Insufficient cpu"), None, ""),
    ("only the first DisruptionTarget condition is read",
     dict(nominated_node_name="node1"),
     [victim_pod(deletion_timestamp=DELETING,
                 conditions=(preempted_condition(status="False"), preempted_condition()))],
     U("Insufficient cpu"), None, ""),
    ("the first DisruptionTarget condition decides even after unrelated conditions",
     dict(nominated_node_name="node1"),
     [victim_pod(deletion_timestamp=DELETING,
                 conditions=(PodCondition(type="Ready", status="False"), preempted_condition(),
                             preempted_condition(status="False")))],
     U("Insufficient cpu"), None, TERMINATING),
    ("a preempted pod without a deletionTimestamp does not block",
     dict(nominated_node_name="node1"),
     [victim_pod(conditions=PREEMPTED)], U("Insufficient cpu"), None, ""),
    ("a terminating preempted pod of equal priority does not block",
     dict(nominated_node_name="node1"),
     [victim_pod(priority=HIGH, deletion_timestamp=DELETING, conditions=PREEMPTED)],
     U("Insufficient cpu"), None, ""),
    ("a terminating preempted pod of higher priority does not block",
     dict(nominated_node_name="node1"),
     [victim_pod(priority=HIGH + 1, deletion_timestamp=DELETING, conditions=PREEMPTED)],
     U("Insufficient cpu"), None, ""),
    ("a terminating preempted pod on another node does not block",
     dict(nominated_node_name="node1"),
     [on("node2", "p1", priority=LOW, deletion_timestamp=DELETING, conditions=PREEMPTED)],
     U("Insufficient cpu"), None, ""),
    ("a terminating preempted pod blocks a pod nominated to its node when the node status is only unschedulable",
     dict(nominated_node_name="node1"),
     [on("node2", "other", priority=LOW),
      victim_pod(deletion_timestamp=DELETING, conditions=PREEMPTED)],
     U("node(s) didn't match pod topology spread constraints"), None, TERMINATING),
    ("a nominated node missing from the snapshot reads the absent status, unresolvable by default",
     dict(nominated_node_name="gone"),
     [victim_pod(deletion_timestamp=DELETING, conditions=PREEMPTED)],
     U("Insufficient cpu"), None, ""),
    ("a nominated node missing from the snapshot is eligible even when the absent status is unschedulable",
     dict(nominated_node_name="gone"),
     [victim_pod(deletion_timestamp=DELETING, conditions=PREEMPTED)],
     None, U("custom"), ""),
    ("a nominated node that is absent from the statuses reads the absent status",
     dict(nominated_node_name="node1"),
     [victim_pod(deletion_timestamp=DELETING, conditions=PREEMPTED)],
     None, None, ""),
]


@pytest.mark.parametrize("case,pod_kw,pods,node_status,absent,expected", CASES, ids=[c[0] for c in CASES])
def test_eligibility(case, pod_kw, pods, node_status, absent, expected):
    env = Env([make_node("node1"), make_node("node2")], pods)
    pod = PodInfo.of(incoming("p_preemptor", priority=HIGH, **pod_kw))
    nominated = pod.pod.nominated_node_name  # as the scheduler registers it from status.nominatedNodeName
    assert eligibility(pod, nominated, statuses_for(node_status, absent), env.snapshot) == expected


# Through the plugin: prefix, code, and the result leaving the nomination unchanged --------------

PLUGIN_CASES = [
    ("preemptionPolicy Never is reported with the preemption prefix and leaves the nomination",
     dict(preemption_policy="Never"), [on("node1", "low", cpu="4", priority=LOW)], "preemption: " + NEVER),
    ("a terminating victim on the nominated node is reported with the preemption prefix",
     dict(nominated_node_name="node1"),
     [on("node1", "low", cpu="4", priority=LOW, deletion_timestamp=DELETING, conditions=PREEMPTED)],
     "preemption: " + TERMINATING),
]


@pytest.mark.parametrize("case,pod_kw,pods,expected", PLUGIN_CASES, ids=[c[0] for c in PLUGIN_CASES])
def test_not_eligible_through_the_post_filter_runner(case, pod_kw, pods, expected):
    env = Env([make_node("node1")], pods)
    pod = incoming("p", cpu="2", priority=HIGH, **pod_kw)
    result, status = env.post_filter(pod)
    # §8.2: DynamicResources' Unschedulable reason first, then DefaultPreemption's.
    assert status.code == Code.UNSCHEDULABLE
    assert status.reasons == (NO_CLAIMS, expected)
    # §9.1: no result → nomination unchanged; nothing evicted.
    assert result is None or (result.nominated_node is None and result.victims == [])


def test_eligible_pod_preempts_through_the_evaluator():
    """Control for the cases above: same node, no blocker → node1 nominated."""
    env = Env([make_node("node1")], [on("node1", "low", cpu="4", priority=LOW)])
    nominated, status, _ = env.preempt(incoming("p", cpu="2", priority=HIGH))
    assert (nominated, status.code) == ("node1", Code.SUCCESS)


# End to end ----------------------------------------------------------------------------------------

E2E_CASES = [
    ("a pending pod nominated to a node where its earlier victim is still terminating does not preempt again",
     [on("n1", "victim", cpu="2", priority=0, deletion_timestamp=DELETING, conditions=PREEMPTED),
      on("n1", "other", cpu="2", priority=0)],
     # n1: 4 cpu, 4 requested (terminating pods count, §4.4) → Insufficient cpu (U); the pod is not
     # eligible, so `other` is not evicted and the nomination stays.
     "unschedulable",
     ("0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: "
      "not eligible due to a terminating pod on the nominated node."),
     {"nominated_node": None, "victims": []}),
    ("a pending pod nominated to a node with only a non-preemption terminating pod preempts normally",
     [on("n1", "victim", cpu="2", priority=0, deletion_timestamp=DELETING),
      on("n1", "other", cpu="2", priority=0)],
     # eligible; potential victims victim, other (prio 0, no times → now; tie → name: other first).
     # other back: 2+2 fits → spared; victim (terminating) → the victim. Retry binds on n1.
     "bound", None, {"nominated_node": "n1", "victims": ["default/victim"]}),
]


@pytest.mark.parametrize("case,pods,outcome,message,preemption", E2E_CASES, ids=[c[0] for c in E2E_CASES])
def test_eligibility_end_to_end(case, pods, outcome, message, preemption):
    pending = make_pod("p", cpu="2", priority_class_name="high", nominated_node_name="n1")
    cluster = Cluster(nodes=[make_node("n1", cpu="4")], pods=list(pods) + [pending],
                      priority_classes={"high": PriorityClass("high", 100)})
    sim = simulate(cluster, NOW)
    data = simulation_data(sim)["results"][0]
    assert (data["outcome"], data["message"], data["preemption"]) == (outcome, message, preemption)
    if outcome == "unschedulable":
        assert "attempts" not in data
        assert sorted(sim.snapshot.placed) == ["default/other", "default/victim"]
    else:
        assert data["node"] == "n1"
