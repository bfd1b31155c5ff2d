"""End to end through `simulate`: PostFilter messages (§8.1-8.5), eligibility (§9.1), potential nodes
(§9.2), carrying out a preemption and the one immediate retry (§9.8-9.9), nominated pods (§2.1),
priority admission (§10.1) and queue sequencing (§12.1).

Pending pods get their priority from a PriorityClass (admission, §10.1); bound pods keep the
priority they are given. Every expected text is written out in full and worked out beside the case.
"""

from __future__ import annotations

import pytest

from kwhatif.api.affinity import Affinity, NodeAffinity, NodeSelector, NodeSelectorTerm
from kwhatif.api.objects import PriorityClass
from kwhatif.api.selectors import Requirement
from kwhatif.engine import simulate
from kwhatif.framework.diagnosis import NodeToStatus
from kwhatif.framework.status import Code, Status
from kwhatif.preemption.evaluator import potential_nodes
from kwhatif.render.results import simulation_data
from kwhatif.api.cluster import Cluster
from kwhatif.snapshot.pod_info import PodInfo
from tests.builders import make_node, make_pod, make_taint
from tests.preemption import NOW, Env

CLASSES = {pc.name: pc for pc in (
    PriorityClass("p5", 5), PriorityClass("p10", 10), PriorityClass("p15", 15), PriorityClass("p100", 100),
    PriorityClass("p1000", 1000), PriorityClass("never10", 10, preemption_policy="Never"),
    PriorityClass("never100", 100, preemption_policy="Never"),
)}

SUFFIX = " no new claims to deallocate, preemption: "


def run(nodes, pods):
    sim = simulate(Cluster(nodes=list(nodes), pods=list(pods), priority_classes=dict(CLASSES)), NOW)
    data = simulation_data(sim)
    return sim, {r["pod"]: r for r in data["results"]}, [r["pod"] for r in data["results"]]


def bound(node: str, name: str, cpu: str = "1", priority: int = 0, **kw):
    return make_pod(name, cpu=cpu, node_name=node, priority=priority, **kw)


def pending(name: str, cpu: str = "1", klass: str = "p100", **kw):
    return make_pod(name, cpu=cpu, priority_class_name=klass, **kw)


# One preemption, carried out, then the immediate retry -----------------------------------------------

def test_a_single_victim_is_evicted_and_the_pod_is_bound_on_the_retry():
    """n1 2 cpu holds low (prio 0, 2 cpu); n2 2 cpu holds mid (prio 50, 2 cpu); hi (100) needs 2.
    Both nodes Insufficient cpu (U). Candidates n1 [low] and n2 [mid]; step 2 (lowest top victim
    priority) picks n1. The first attempt ends Unschedulable with the FitError text and no
    PostFilter suffix (§9.9); low is removed; the retry lands on the nominated node (fast path)."""
    sim, res, _ = run([make_node("n1", cpu="2"), make_node("n2", cpu="2")],
                      [bound("n1", "low", cpu="2", priority=0), bound("n2", "mid", cpu="2", priority=50),
                       pending("hi", cpu="2")])
    hi = res["default/hi"]
    assert (hi["outcome"], hi["node"]) == ("bound", "n1")
    assert hi["preemption"] == {"nominated_node": "n1", "victims": ["default/low"]}
    assert len(hi["attempts"]) == 2
    first, second = hi["attempts"]
    assert first["outcome"] == "unschedulable"
    assert first["message"] == "0/2 nodes are available: 2 Insufficient cpu."
    assert first["preemption"] == {"nominated_node": "n1", "victims": ["default/low"]}
    assert first["filter"] == {
        "n1": {"plugin": "NodeResourcesFit", "code": "Unschedulable", "reasons": ["Insufficient cpu"]},
        "n2": {"plugin": "NodeResourcesFit", "code": "Unschedulable", "reasons": ["Insufficient cpu"]},
    }
    assert (second["outcome"], second["node"], second.get("nominated_node_fast_path")) == ("bound", "n1", True)
    assert second["preemption"] is None
    assert sim.snapshot.placed == {"default/mid": "n2", "default/hi": "n1"}


def test_several_victims_on_the_chosen_node_are_all_evicted():
    """n1 4 cpu: a (0, 1), b (0, 1), c (0, 2) all started the same day; hi needs 4 → all three go,
    listed in importance order (equal priority and start → name)."""
    day = "2025-01-01T00:00:00Z"
    sim, res, _ = run([make_node("n1", cpu="4")],
                      [bound("n1", "c", cpu="2", start_time=day), bound("n1", "b", start_time=day),
                       bound("n1", "a", start_time=day), pending("hi", cpu="4")])
    hi = res["default/hi"]
    assert (hi["outcome"], hi["node"], len(hi["attempts"])) == ("bound", "n1", 2)
    assert hi["preemption"]["victims"] == ["default/a", "default/b", "default/c"]
    assert sim.snapshot.placed == {"default/hi": "n1"}


# Messages when preemption cannot help (byte-exact) ------------------------------------------------

def _na_term():
    return Affinity(node_affinity=NodeAffinity(required=NodeSelector((NodeSelectorTerm(
        match_fields=(Requirement("metadata.name", "In", ("n1",)),)),))))


def _missing_node_term():
    return Affinity(node_affinity=NodeAffinity(required=NodeSelector((NodeSelectorTerm(
        match_fields=(Requirement("metadata.name", "In", ("nowhere",)),)),))))


def _conflicting_terms():
    """One term whose two metadata.name fields intersect to nothing (§5.4 PreFilter conflict)."""
    return Affinity(node_affinity=NodeAffinity(required=NodeSelector((NodeSelectorTerm(
        match_fields=(Requirement("metadata.name", "In", ("n1",)), Requirement("metadata.name", "In", ("n2",)))),))))


CP = make_taint("node-role.kubernetes.io/control-plane")

MESSAGE_CASES = [
    ("every node lacks cpu and holds only pods of equal priority",
     [make_node(n, cpu="2") for n in ("n1", "n2", "n3")],
     [bound(n, f"eq-{n}", cpu="2", priority=100) for n in ("n1", "n2", "n3")],
     pending("p", cpu="1"),
     "0/3 nodes are available: 3 Insufficient cpu." + SUFFIX +
     "0/3 nodes are available: 3 No preemption victims found for incoming pod."),
    # §8.3 first worked example
    ("two nodes lack cpu and the third has an untolerated control-plane taint",
     [make_node("n1", cpu="2"), make_node("n2", cpu="2"), make_node("n3", cpu="8", taints=[CP])],
     [bound("n1", "h1", cpu="2", priority=1000), bound("n2", "h2", cpu="2", priority=1000)],
     pending("p", cpu="1"),
     "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, "
     "2 Insufficient cpu." + SUFFIX + "0/3 nodes are available: 1 Preemption is not helpful for scheduling, "
     "2 No preemption victims found for incoming pod."),
    # §8.3 second worked example
    ("all three nodes lack cpu and memory",
     [make_node(n, cpu="2", memory="2Gi") for n in ("n1", "n2", "n3")],
     [make_pod(f"h-{n}", node_name=n, priority=100, cpu="2", memory="2Gi") for n in ("n1", "n2", "n3")],
     make_pod("p", cpu="1", memory="1Gi", priority_class_name="p100"),
     "0/3 nodes are available: 3 Insufficient cpu, 3 Insufficient memory." + SUFFIX +
     "0/3 nodes are available: 3 No preemption victims found for incoming pod."),
    # §8.3: with lower-priority pods that are not enough, the node entry is what still fails:
    # each node 4 cpu/8Gi: hi (1000, 3 cpu), lo (0, 1 cpu, 4Gi); p needs 2 cpu/6Gi. Without lo:
    # cpu 3+2 > 4 still short, memory 6 ≤ 8 fine → "Insufficient cpu" only.
    ("lower-priority pods exist but removing them all leaves cpu short",
     [make_node(n, cpu="4", memory="8Gi") for n in ("n1", "n2", "n3")],
     [p for n in ("n1", "n2", "n3") for p in (make_pod(f"hi-{n}", node_name=n, priority=1000, cpu="3"),
                                                 make_pod(f"lo-{n}", node_name=n, priority=0, cpu="1", memory="4Gi"))],
     make_pod("p", cpu="2", memory="6Gi", priority_class_name="p100"),
     "0/3 nodes are available: 3 Insufficient cpu, 3 Insufficient memory." + SUFFIX +
     "0/3 nodes are available: 3 Insufficient cpu."),
    # §8.3 third worked example: request above every allocatable → U&U → no potential node
    ("a request larger than any node's allocatable is unresolvable everywhere",
     [make_node(n, cpu="2") for n in ("n1", "n2", "n3")],
     [bound(n, f"lo-{n}", cpu="1", priority=0) for n in ("n1", "n2", "n3")],
     pending("p", cpu="3"),
     "0/3 nodes are available: 3 Insufficient cpu." + SUFFIX +
     "0/3 nodes are available: 3 Preemption is not helpful for scheduling."),
    # Go TestPostFilter "no candidate nodes found with mixed reasons ...": n1/n3 full of higher pods
    # (no victims); n2 hi2 (1000, 1) + lo (0, 1): without lo 1 + 2 > 2 → Insufficient cpu.
    ("mixed reasons: no lower-priority pod on two nodes, not enough cpu on the third",
     [make_node(n, cpu="2") for n in ("n1", "n2", "n3")],
     [bound("n1", "h1", cpu="2", priority=1000), bound("n2", "h2", cpu="1", priority=1000),
      bound("n2", "lo", cpu="1", priority=0), bound("n3", "h3", cpu="2", priority=1000)],
     pending("p", cpu="2"),
     "0/3 nodes are available: 3 Insufficient cpu." + SUFFIX +
     "0/3 nodes are available: 1 Insufficient cpu, 2 No preemption victims found for incoming pod."),
    # §8.3 NodeAffinity example: only n1 is in the PreFilter node set; it lacks memory.
    ("a PreFilter node subset restricts preemption to the named node",
     [make_node("n1", memory="1Gi"), make_node("n2"), make_node("n3")],
     [make_pod("h1", node_name="n1", priority=1000, memory="1Gi")],
     make_pod("p", memory="1Gi", priority_class_name="p100", affinity=_na_term()),
     "0/3 nodes are available: 1 Insufficient memory, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]." +
     SUFFIX + "0/3 nodes are available: 1 No preemption victims found for incoming pod, "
     "2 Preemption is not helpful for scheduling."),
    ("a PreFilter node set naming no existing node leaves nothing to preempt on",
     [make_node(n) for n in ("n1", "n2", "n3")],
     [bound("n1", "lo", priority=0)],
     make_pod("p", cpu="1", priority_class_name="p100", affinity=_missing_node_term()),
     "0/3 nodes are available: 3 node(s) didn't satisfy plugin(s) [NodeAffinity]." + SUFFIX +
     "0/3 nodes are available: 3 Preemption is not helpful for scheduling."),
    # §8.2: NodeAffinity's PreFilter rejects (U&U) before DynamicResources' PreFilter ran → its
    # PostFilter errors with `not found` and DefaultPreemption does not run.
    ("an unresolvable PreFilter rejection ends with not found and no preemption",
     [make_node(n) for n in ("n1", "n2", "n3")],
     [bound("n1", "lo", priority=0)],
     make_pod("p", cpu="1", priority_class_name="p100", affinity=_conflicting_terms()),
     "0/3 nodes are available: pod affinity terms conflict. not found"),
    ("a pod of tied priority cannot preempt (Go: pod with tied priority is still unschedulable)",
     [make_node("node1", pods="1")], [bound("node1", "p1", cpu=None, priority=100)],
     pending("p", cpu=None),
     "0/1 nodes are available: 1 Too many pods." + SUFFIX +
     "0/1 nodes are available: 1 No preemption victims found for incoming pod."),
]


@pytest.mark.parametrize("case,nodes,pods,pod,message", MESSAGE_CASES, ids=[c[0] for c in MESSAGE_CASES])
def test_no_candidate_message(case, nodes, pods, pod, message):
    sim, res, _ = run(nodes, list(pods) + [pod])
    got = res[f"default/{pod.name}"]
    assert got["outcome"] == "unschedulable"
    assert got["message"] == message
    assert got["preemption"] == {"nominated_node": None, "victims": []}
    assert "attempts" not in got
    assert sorted(sim.snapshot.placed) == sorted(p.key for p in pods)  # nobody evicted


# preemptionPolicy Never (with priority admission, §10.1) --------------------------------------------

NEVER_MESSAGE = "0/1 nodes are available: 1 Insufficient cpu." + SUFFIX + "not eligible due to preemptionPolicy=Never."

NEVER_CASES = [
    ("a PriorityClass with preemptionPolicy Never makes the pod not eligible",
     pending("p", cpu="2", klass="never100"), "unschedulable", NEVER_MESSAGE),
    ("a pod stating Never under a Never class is accepted and not eligible",
     pending("p", cpu="2", klass="never100", preemption_policy="Never"), "unschedulable", NEVER_MESSAGE),
    ("a pod stating Never under a PreemptLowerPriority class is refused by admission",
     pending("p", cpu="2", klass="p100", preemption_policy="Never"), "skipped",
     ('admission: pods "p" is forbidden: the string value of PreemptionPolicy (Never) must not be provided '
      "in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name")),
]


@pytest.mark.parametrize("case,pod,outcome,message", NEVER_CASES, ids=[c[0] for c in NEVER_CASES])
def test_preemption_policy_never(case, pod, outcome, message):
    """n1 2 cpu is full with low (prio 0): an eligible prio-100 pod would evict it."""
    sim, res, _ = run([make_node("n1", cpu="2")], [bound("n1", "low", cpu="2", priority=0), pod])
    got = res["default/p"]
    assert (got["outcome"], got["message"]) == (outcome, message)
    assert got["preemption"] in (None, {"nominated_node": None, "victims": []})
    assert "attempts" not in got
    assert sim.snapshot.placed == {"default/low": "n1"}


# Potential nodes: only Unschedulable ones ------------------------------------------------------------

POTENTIAL_CASES = [
    # n1 carries an untolerated taint (U&U) and the cheapest victim; n2 lacks cpu (U).
    ("a node rejected by an untolerated taint is never preempted on",
     [make_node("n1", cpu="2", taints=[make_taint("dedicated", "x")]), make_node("n2", cpu="2")],
     [bound("n1", "cheap", cpu="2", priority=-5), bound("n2", "b", cpu="2", priority=0)],
     "n2", ["default/b"], None),
    ("a cordoned node is never preempted on",
     [make_node("n1", cpu="2", unschedulable=True), make_node("n2", cpu="2")],
     [bound("n1", "cheap", cpu="2", priority=-5), bound("n2", "b", cpu="2", priority=0)],
     "n2", ["default/b"], None),
    ("when the only node with lower-priority pods is tainted, preemption is not helpful",
     [make_node("n1", cpu="2", taints=[make_taint("dedicated", "x")])],
     [bound("n1", "cheap", cpu="2", priority=-5)],
     None, [],
     "0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: x}." + SUFFIX +
     "0/1 nodes are available: 1 Preemption is not helpful for scheduling."),
    ("a node whose cpu is below the request is unresolvable, so the smaller victim elsewhere is not chosen",
     [make_node("n1", cpu="1"), make_node("n2", cpu="2")],
     [bound("n1", "cheap", cpu="1", priority=-5), bound("n2", "b", cpu="2", priority=0)],
     "n2", ["default/b"], None),
]


@pytest.mark.parametrize("case,nodes,pods,nominated,victims,message", POTENTIAL_CASES, ids=[c[0] for c in POTENTIAL_CASES])
def test_only_unschedulable_nodes_are_potential(case, nodes, pods, nominated, victims, message):
    sim, res, _ = run(nodes, list(pods) + [pending("p", cpu="2")])
    got = res["default/p"]
    assert got["preemption"] == {"nominated_node": nominated, "victims": victims}
    if nominated:
        assert (got["outcome"], got["node"]) == ("bound", nominated)
        assert "default/cheap" in sim.snapshot.placed
    else:
        assert (got["outcome"], got["message"]) == ("unschedulable", message)


# A queue of pending pods competing for the same space ------------------------------------------------

def test_a_queue_of_pods_of_different_priorities_competing_for_the_same_space():
    """n1 4 cpu: a (0, 2 cpu), b (10, 2 cpu); n2 4 cpu: c (20, 4 cpu). Pending (input order) z (5),
    y (15), x (100), 2 cpu each; queue order x, y, z.
    x: n1 candidate [a] (b is reprieved: 2+2 fits), n2 candidate [c]; step 2: top 0 < 20 → n1;
       a evicted, x bound on n1.
    y: n1 holds b (10) and x (100): victim [b]; n2: c (20) > 15 → no victim; b evicted, y bound on n1.
    z: n1 holds x, y; n2 holds c: nothing lower than 5 → unschedulable."""
    sim, res, order = run(
        [make_node("n1", cpu="4"), make_node("n2", cpu="4")],
        [bound("n1", "a", cpu="2", priority=0), bound("n1", "b", cpu="2", priority=10),
         bound("n2", "c", cpu="4", priority=20),
         pending("z", cpu="2", klass="p5"), pending("y", cpu="2", klass="p15"), pending("x", cpu="2", klass="p100")])
    assert order == ["default/x", "default/y", "default/z"]
    x, y, z = res["default/x"], res["default/y"], res["default/z"]
    assert (x["outcome"], x["node"], x["preemption"]) == ("bound", "n1", {"nominated_node": "n1", "victims": ["default/a"]})
    assert x["attempts"][0]["message"] == "0/2 nodes are available: 2 Insufficient cpu."
    assert (y["outcome"], y["node"], y["preemption"]) == ("bound", "n1", {"nominated_node": "n1", "victims": ["default/b"]})
    assert y["attempts"][0]["message"] == "0/2 nodes are available: 2 Insufficient cpu."
    assert z["outcome"] == "unschedulable"
    assert z["message"] == ("0/2 nodes are available: 2 Insufficient cpu." + SUFFIX +
                            "0/2 nodes are available: 2 No preemption victims found for incoming pod.")
    assert sim.snapshot.placed == {"default/c": "n2", "default/x": "n1", "default/y": "n1"}


def test_two_preemptors_of_equal_priority_take_the_victims_one_after_the_other():
    """n1 4 cpu: l1, l2 (prio 0, 2 cpu, same start day). h1 then h2 (p100, 2 cpu each).
    h1: importance l1, l2 (tie → name); l1 back fits (2+2) → spared, l2 → victim; h1 bound n1.
    h2: n1 holds l1 (0) and h1 (100): victim l1; h2 bound n1."""
    start = "2025-01-01T00:00:00Z"
    sim, res, order = run([make_node("n1", cpu="4")],
                          [bound("n1", "l1", cpu="2", start_time=start), bound("n1", "l2", cpu="2", start_time=start),
                           pending("h1", cpu="2"), pending("h2", cpu="2")])
    assert order == ["default/h1", "default/h2"]
    assert (res["default/h1"]["node"], res["default/h1"]["preemption"]) == \
        ("n1", {"nominated_node": "n1", "victims": ["default/l2"]})
    assert (res["default/h2"]["node"], res["default/h2"]["preemption"]) == \
        ("n1", {"nominated_node": "n1", "victims": ["default/l1"]})
    assert sim.snapshot.placed == {"default/h1": "n1", "default/h2": "n1"}


def test_pods_bound_earlier_in_the_run_are_not_victims_of_later_lower_priority_pods():
    """n1 2 cpu, empty. Pending (input order) lo (p5), hi (p1000), mid (p15), 2 cpu each; queue hi,
    mid, lo. hi binds n1 outright; mid and lo find only hi (1000) there → no victims."""
    sim, res, order = run([make_node("n1", cpu="2")],
                          [pending("lo", cpu="2", klass="p5"), pending("hi", cpu="2", klass="p1000"),
                           pending("mid", cpu="2", klass="p15")])
    assert order == ["default/hi", "default/mid", "default/lo"]
    assert (res["default/hi"]["outcome"], res["default/hi"]["node"]) == ("bound", "n1")
    assert "attempts" not in res["default/hi"]
    for name in ("default/mid", "default/lo"):
        assert res[name]["message"] == ("0/1 nodes are available: 1 Insufficient cpu." + SUFFIX +
                                        "0/1 nodes are available: 1 No preemption victims found for incoming pod.")
    assert sim.snapshot.placed == {"default/hi": "n1"}


# Pods carrying status.nominatedNodeName (§2.1) ----------------------------------------------------

NOM_FAIL = "0/1 nodes are available: 1 Insufficient cpu." + SUFFIX + "not eligible due to preemptionPolicy=Never."
RESERVED = ("0/1 nodes are available: 1 Insufficient cpu." + SUFFIX +
            "0/1 nodes are available: 1 No preemption victims found for incoming pod.")

# n1 4 cpu holds big (prio 1000, 2 cpu). nom (priority 10) needs 3 cpu and is nominated to n1: it
# fails itself (2+3 > 4). With class never10 it is not eligible and keeps its nomination (§8.5);
# with class p10 its preemption finds no candidate (big is higher) and the nomination is cleared
# (§9.6). The other pod needs 1 cpu: alone it fits (2+1), with nom added in pass 1 (2+3+1 > 4) not.
NOMINATION_CASES = [
    ("a nominated pod reserves its node against a lower-priority pod",
     "never10", pending("other", klass="p5"), "n1", ["default/nom", "default/other"], NOM_FAIL,
     "unschedulable", RESERVED),
    ("a nominated pod reserves its node against an equal-priority pod queued after it",
     "never10", pending("other", klass="p10"), "n1", ["default/nom", "default/other"], NOM_FAIL,
     "unschedulable", RESERVED),
    ("a nominated pod does not reserve its node against a higher-priority pod",
     "never10", pending("other", klass="p100"), "n1", ["default/other", "default/nom"], NOM_FAIL,
     "bound", None),
    ("without a nomination the lower-priority pod fits",
     "never10", pending("other", klass="p5"), "", ["default/nom", "default/other"], NOM_FAIL,
     "bound", None),
    ("a nominated pod whose preemption finds no candidate loses its nomination",
     "p10", pending("other", klass="p10"), "n1", ["default/nom", "default/other"], RESERVED,
     "bound", None),
]


@pytest.mark.parametrize("case,nom_class,other,nominated,order,nom_message,outcome,message", NOMINATION_CASES,
                         ids=[c[0] for c in NOMINATION_CASES])
def test_nominated_pods_reserve_room(case, nom_class, other, nominated, order, nom_message, outcome, message):
    nom = pending("nom", cpu="3", klass=nom_class, nominated_node_name=nominated)
    _, res, got_order = run([make_node("n1", cpu="4")], [bound("n1", "big", cpu="2", priority=1000), nom, other])
    assert got_order == order
    assert (res["default/nom"]["outcome"], res["default/nom"]["message"]) == ("unschedulable", nom_message)
    got = res["default/other"]
    assert (got["outcome"], got["message"]) == (outcome, message)
    if outcome == "bound":
        assert got["node"] == "n1"


def test_a_pod_of_another_scheduler_reserves_nothing():
    """Go feeds the nominator from its own queue, which only holds pods whose schedulerName is one of
    its profiles (eventhandlers.go responsibleForPod). ext (other-scheduler, prio 100, 3 cpu,
    nominated to n1) is therefore not a nominated pod for the default scheduler, and `other`
    (p5, 1 cpu) fits n1 (2+1 ≤ 4)."""
    ext = pending("ext", cpu="3", klass="p100", nominated_node_name="n1", scheduler_name="other-scheduler")
    _, res, _ = run([make_node("n1", cpu="4")],
                      [bound("n1", "big", cpu="2", priority=1000), ext, pending("other", klass="p5")])
    assert res["default/ext"]["outcome"] == "skipped"
    got = res["default/other"]
    assert (got["outcome"], got["node"], got["message"]) == ("bound", "n1", None)


def test_a_nominated_pod_is_tried_on_its_nominated_node_first():
    """§2 step 4: n1 and n2 both fit; the pod nominated to n2 lands there without scoring."""
    _, res, _ = run([make_node("n1", cpu="4"), make_node("n2", cpu="4")],
                      [pending("p", cpu="1", nominated_node_name="n2")])
    got = res["default/p"]
    assert (got["outcome"], got["node"], got.get("nominated_node_fast_path")) == ("bound", "n2", True)


def test_preemption_clears_lower_priority_nominations_on_the_chosen_node():
    """§9.8: pods nominated to the chosen node with lower priority lose their nomination, so their
    next attempt is an ordinary one (§2 step 4 needs a non-empty nominatedNodeName).
    n1 4 cpu with a PreferNoSchedule taint holds low (0, 3 cpu); n2 4 cpu holds h2 (1000, 3 cpu).
    nom (p10, 1 cpu) arrives nominated to n1; hi (p100, 2 cpu) is queued first.
    hi: both nodes Insufficient cpu; n1 victim [low], n2 none → n1; nom's nomination is cleared;
    hi bound on n1 (2 of 4 cpu).
    nom: fits n1 (2+1) and n2 (3+1); no nomination → scored: TaintToleration (weight 3) gives n1 0
    and n2 300; NodeResourcesFit and BalancedAllocation (weight 1, at most 100 each) and
    ImageLocality (0 for both, no images) cannot make up 300 → n2, without the fast path."""
    soft = make_taint("soft", effect="PreferNoSchedule")
    _, res, order = run([make_node("n1", cpu="4", taints=[soft]), make_node("n2", cpu="4")],
                          [bound("n1", "low", cpu="3", priority=0), bound("n2", "h2", cpu="3", priority=1000),
                           pending("nom", cpu="1", klass="p10", nominated_node_name="n1"),
                           pending("hi", cpu="2", klass="p100")])
    assert order == ["default/hi", "default/nom"]
    hi = res["default/hi"]
    assert (hi["outcome"], hi["node"], hi["preemption"]) == \
        ("bound", "n1", {"nominated_node": "n1", "victims": ["default/low"]})
    nom = res["default/nom"]
    assert (nom["outcome"], nom["node"], nom.get("nominated_node_fast_path", False)) == ("bound", "n2", False)


# potential_nodes itself (§9.2) ---------------------------------------------------------------------

def _statuses(absent=None, **by_node):
    m = NodeToStatus()
    if absent is not None:
        m.absent = absent
    for name, st in by_node.items():
        m.set(name, st)
    return m


def _u(*r):
    return Status(Code.UNSCHEDULABLE, r)


def _uu(*r):
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, r)


POTENTIAL_UNIT_CASES = [
    ("only nodes whose status is exactly Unschedulable are potential",
     _statuses(a=_u("Insufficient cpu"), b=_uu("node(s) were unschedulable"), c=_u("Too many pods")), ["a", "c"]),
    ("nodes absent from the statuses read the absent status, unresolvable by default",
     _statuses(b=_u("Insufficient cpu")), ["b"]),
    ("a plain Unschedulable PreFilter rejection makes every node potential, in node order",
     _statuses(absent=_u("custom")), ["a", "b", "c", "d"]),
    ("with an Unschedulable absent status explicit unresolvable nodes are still left out",
     _statuses(absent=_u("custom"), c=_uu("x")), ["a", "b", "d"]),
    ("a status for a node missing from the snapshot is ignored",
     _statuses(gone=_u("Insufficient cpu"), d=_u("Insufficient cpu")), ["d"]),
    ("no Unschedulable node at all gives no potential node", _statuses(a=_uu("x")), []),
]


@pytest.mark.parametrize("case,statuses,expected", POTENTIAL_UNIT_CASES, ids=[c[0] for c in POTENTIAL_UNIT_CASES])
def test_potential_nodes(case, statuses, expected):
    env = Env([make_node(n) for n in ("d", "b", "a", "c")])
    assert sorted(n.name for n in potential_nodes(statuses, env.snapshot)) == sorted(expected)
    if statuses.absent.code == Code.UNSCHEDULABLE:
        assert [n.name for n in potential_nodes(statuses, env.snapshot)] == expected


def test_a_lower_priority_pod_come_to_a_node_is_a_victim_at_the_next_dry_run():
    """A node's lowest pod priority is kept until its pods change (`NodeInfo.lowest_priority`),
    and a dry run reads it first. n1 (4 cpu) holds hi (priority 200, 2 cpu); p (priority 100,
    2 cpu) is said not to fit there (the statuses given), and hi (200 ≥ 100) is no victim: no
    candidate. Then lo (priority 0, 2 cpu) comes to n1: 4 cpu used, and without lo p fits
    (2 + 2 ≤ 4), so lo is the victim (§9.4)."""
    env = Env([make_node("n1", cpu="4")], [bound("n1", "hi", cpu="2", priority=200)])
    p = make_pod("p", cpu="2", priority=100)
    statuses = NodeToStatus()
    statuses.set("n1", Status(Code.UNSCHEDULABLE, ("Insufficient cpu",), "NodeResourcesFit"))
    node, status, report = env.preempt(p, statuses)
    assert (node, report.node_results["n1"]) == ("", Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                                              ("No preemption victims found for incoming pod",)))
    env.snapshot.by_name["n1"].add_pod(PodInfo.of(bound("n1", "lo", cpu="2", priority=0)))
    node, status, report = env.preempt(p, statuses)
    assert (node, status.code, [v.pod.name for v in report.chosen.victims]) == ("n1", Code.SUCCESS, ["lo"])
    assert [i.pod.name for i in env.snapshot.by_name["n1"].pods] == ["hi", "lo"]  # the dry runs worked on copies


@pytest.mark.parametrize("node_detail", [True, False], ids=["node detail", "no node detail"])
def test_without_node_detail_a_preemption_keeps_its_victims_not_its_report_on_every_node(node_detail):
    """The cluster of the single-victim example above: n1 [low, prio 0] and n2 [mid, prio 50]
    are both dry-run candidates for hi (100), n1 is chosen. Without node detail (`schedule
    --no-node-detail`, every scenario run) the attempt keeps its nomination and victims — all
    that its record and a check's summary read — but not the dry runs' report on each node."""
    cluster = Cluster(nodes=[make_node("n1", cpu="2"), make_node("n2", cpu="2")],
                      pods=[bound("n1", "low", cpu="2", priority=0), bound("n2", "mid", cpu="2", priority=50),
                            pending("hi", cpu="2")], priority_classes=dict(CLASSES))
    sim = simulate(cluster, NOW, node_detail=node_detail)
    first = next(r for r in sim.results if r.pod.name == "hi").attempts[0]
    assert (first.preemption.nominated_node, [v.key for v in first.preemption.victims]) == ("n1", ["default/low"])
    report = first.preemption.explanation
    if node_detail:
        assert (report.potential, [c.node for c in report.candidates]) == (["n1", "n2"], ["n1", "n2"])
    else:
        assert report is None
