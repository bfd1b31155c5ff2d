"""§9.4 Selecting victims on one node (Go: SelectVictimsOnNode; TestDryRunPreemption cases ported).

Steps: potential victims = pods of strictly lower priority (terminating ones included) → none:
U&U `No preemption victims found for incoming pod`; remove them all and run the filters with
nominated pods → failure: that status; sort by importance; split by PDB; reprieve violating then
non-violating, each in importance order; re-sort the victims when both lists were non-empty;
no victims left → Error `expected at least one victim pod on node "<node>"`.

Go node capacity in the ported cases is veryLargeRes (500m cpu, 500 memory, 32 pods); pod sizes are
small 100m/100, medium 200m/200, large 300m/300, veryLarge 500m/500; priorities neg −100, low 0,
mid 100, high 1000, veryHigh 10000.
"""

from __future__ import annotations

import pytest

from kwhatif.api.affinity import Affinity, PodAffinityRules, PodAffinityTerm, TopologySpreadConstraint
from kwhatif.api.objects import ContainerPort
from kwhatif.api.selectors import LabelSelector, Requirement
from kwhatif.framework.status import Code
from kwhatif.preemption.ordering import importance_key
from tests.builders import make_container, make_node, make_pod
from tests.preemption import (
    DELETING,
    NO_VICTIMS,
    NOW_DT,
    Env,
    all_unschedulable,
    day,
    names,
    on,
    pdb,
    preempted_condition,
    sel,
)

NEG, LOW, MID, HIGH, VERY_HIGH = -100, 0, 100, 1000, 10000
SMALL = dict(cpu="100m", memory="100")
MEDIUM = dict(cpu="200m", memory="200")
LARGE = dict(cpu="300m", memory="300")
VERY_LARGE = dict(cpu="500m", memory="500")


def epoch(seconds: int) -> str:
    """Go's epochTimeN is N ns after the epoch; startTime has second precision, so N seconds here."""
    return f"1970-01-01T00:00:{seconds:02d}Z"


def go_node(name: str = "node1", **labels: str):
    return make_node(name, cpu="500m", memory="500", pods="32", labels=labels)


def go_pod(name: str, priority: int, res: dict, node: str = "node1", start: str | None = None, **kw):
    return make_pod(name, node_name=node, priority=priority, start_time=start, **res, **kw)


def preemptor(priority: int = HIGH, res: dict = LARGE, **kw):
    return make_pod("p", priority=priority, **res, **kw)


# Potential victims: strictly lower priority --------------------------------------------------------

LOWER_ONLY_CASES = [
    # node 4 cpu: 3 used by low/eq/high (1 each); preemptor needs 2 → only `low` may go.
    ("only pods of strictly lower priority are potential victims",
     [on("node1", "low", priority=50), on("node1", "eq", priority=100), on("node1", "high", priority=200)],
     dict(cpu="2", priority=100), ["low"]),
    ("a pod with null priority counts as priority 0",
     [on("node1", "none", cpu="2", priority=None), on("node1", "eq", cpu="2", priority=1)],
     dict(cpu="2", priority=1), ["none"]),
    ("negative priorities are lower than zero",
     [on("node1", "neg", cpu="2", priority=-5), on("node1", "zero", cpu="2", priority=0)],
     dict(cpu="2", priority=0), ["neg"]),
    ("a pod of null priority preempts negative-priority pods only",
     [on("node1", "neg", cpu="2", priority=-1), on("node1", "zero", cpu="2", priority=None)],
     dict(cpu="2", priority=None), ["neg"]),
]


@pytest.mark.parametrize("case,bound,pod_kw,victims", LOWER_ONLY_CASES, ids=[c[0] for c in LOWER_ONLY_CASES])
def test_only_lower_priority_pods_are_victims(case, bound, pod_kw, victims):
    env = Env([make_node("node1", cpu="4")], bound)
    candidate, status = env.select_victims(make_pod("p", **pod_kw), "node1")
    assert status is None
    assert names(candidate.victims) == victims


NO_VICTIM_CASES = [
    ("a node whose pods all have equal or higher priority yields no victims",
     [on("node1", "eq", cpu="2", priority=100), on("node1", "hi", cpu="2", priority=101)]),
    ("an empty node yields no victims", []),
    # Go TestPostFilter: "pod with tied priority is still unschedulable"
    ("a pod of tied priority yields no victims", [on("node1", "tied", cpu="4", priority=100)]),
]


@pytest.mark.parametrize("case,bound", NO_VICTIM_CASES, ids=[c[0] for c in NO_VICTIM_CASES])
def test_no_potential_victims_is_unresolvable(case, bound):
    env = Env([make_node("node1", cpu="4")], bound)
    candidate, status = env.select_victims(make_pod("p", cpu="2", priority=100), "node1")
    assert candidate is None
    assert (status.code, status.reasons) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (NO_VICTIMS,))


# Still no fit after removing every potential victim ------------------------------------------------

def _ports(port: int):
    return (make_container("c", cpu="100m", ports=(ContainerPort(container_port=port, host_port=port),)),)


STILL_NO_FIT_CASES = [
    # node 2 cpu; hi (prio 1000) keeps 1 cpu; removing low frees 1 → preemptor (2) still short.
    ("the filter status is returned when the pod still lacks cpu",
     [on("node1", "hi", priority=1000), on("node1", "low", priority=0)], dict(cpu="2"),
     ("NodeResourcesFit", Code.UNSCHEDULABLE, ("Insufficient cpu",))),
    ("every reason of the failing filter is kept",
     [make_pod("hi", node_name="node1", priority=1000, cpu="1", memory="3Gi"),
      make_pod("low", node_name="node1", priority=0, cpu="1", memory="1Gi")],
     dict(cpu="2", memory="2Gi"),
     ("NodeResourcesFit", Code.UNSCHEDULABLE, ("Insufficient cpu", "Insufficient memory"))),
    ("a host port held by a higher-priority pod keeps failing NodePorts",
     [make_pod("hi", node_name="node1", priority=1000, containers=_ports(8080)),
      on("node1", "low", priority=0, cpu="100m")],
     dict(containers=_ports(8080)),
     ("NodePorts", Code.UNSCHEDULABLE, ("node(s) didn't have free ports for the requested pod ports",))),
]


@pytest.mark.parametrize("case,bound,pod_kw,expected", STILL_NO_FIT_CASES, ids=[c[0] for c in STILL_NO_FIT_CASES])
def test_pod_that_still_does_not_fit_returns_that_filter_status(case, bound, pod_kw, expected):
    env = Env([make_node("node1", cpu="2", memory="4Gi")], bound)
    candidate, status = env.select_victims(make_pod("p", priority=100, **pod_kw), "node1")
    assert candidate is None
    assert (status.plugin, status.code, status.reasons) == expected


def test_a_higher_priority_nominated_pod_is_counted_when_checking_the_reduced_node():
    """§9.4 step 3 runs the filters *with nominated pods*: node 4 cpu, low (2 cpu) bound; N
    (prio 500, 2 cpu) is nominated to node1; the preemptor (prio 100) needs 3. Without low the
    node is empty, but pass 1 adds N: 2 + 3 > 4 → Insufficient cpu."""
    bound = [on("node1", "low", cpu="2", priority=0)]
    nominee = make_pod("n", cpu="2", priority=500, nominated_node_name="node1")
    env = Env([make_node("node1", cpu="4")], bound, nominated=[nominee])
    candidate, status = env.select_victims(make_pod("p", cpu="3", priority=100), "node1")
    assert candidate is None and status.reasons == ("Insufficient cpu",)


def test_a_lower_priority_nominated_pod_is_ignored_in_the_dry_run():
    bound = [on("node1", "low", cpu="2", priority=0)]
    nominee = make_pod("n", cpu="2", priority=50, nominated_node_name="node1")
    env = Env([make_node("node1", cpu="4")], bound, nominated=[nominee])
    candidate, status = env.select_victims(make_pod("p", cpu="3", priority=100), "node1")
    assert status is None and names(candidate.victims) == ["low"]


# Reprieve order -------------------------------------------------------------------------------------

REPRIEVE_CASES = [
    # Go: "a pod that fits on both nodes when lower priority pods are preempted" (node1 part).
    ("a single lower-priority pod that blocks the preemptor is the victim",
     [go_pod("p1", MID, LARGE)], [], preemptor(), ["p1"], 0),
    # Go: importance p1.2 (mid), p1.1 (low). p1.2 back: 300+300 > 500 → victim; p1.1 back: 100+300 fits.
    ("medium priority pod is preempted, but lower priority one stays as it is small",
     [go_pod("p1.1", LOW, SMALL), go_pod("p1.2", MID, LARGE)], [], preemptor(), ["p1.2"], 0),
    # Go: p1.4 (high) stays; importance p1.1, p1.3 (mid; no start → name), p1.2 (low).
    # p1.1 back: 100+100+300 = 500 fits; p1.3: +200 > 500 victim; p1.2: +100 > 500 victim.
    ("mixed priority pods are preempted",
     [go_pod("p1.1", MID, SMALL), go_pod("p1.2", LOW, SMALL), go_pod("p1.3", MID, MEDIUM),
      go_pod("p1.4", HIGH, SMALL)], [], preemptor(), ["p1.3", "p1.2"], 0),
    # Go: importance p1.3 (mid), p1.2 (low, t4), p1.1 (low, t5). p1.3 back: 100+200+300 > 500 victim;
    # p1.2 back: 100+100+300 = 500 fits; p1.1 back: > 500 victim.
    ("mixed priority pods are preempted, pick later StartTime one when priorities are equal",
     [go_pod("p1.1", LOW, SMALL, start=epoch(5)), go_pod("p1.2", LOW, SMALL, start=epoch(4)),
      go_pod("p1.3", MID, MEDIUM, start=epoch(3)), go_pod("p1.4", HIGH, SMALL, start=epoch(2))],
     [], preemptor(), ["p1.3", "p1.1"], 0),
    ("equal priority and no startTime: the earlier creationTimestamp is more important",
     [go_pod("late", LOW, MEDIUM, creation_timestamp=day(2)), go_pod("early", LOW, MEDIUM, creation_timestamp=day(1))],
     [], preemptor(res=LARGE), ["late"], 0),
    ("a startTime wins over the creationTimestamp",
     [go_pod("a", LOW, MEDIUM, start=day(3), creation_timestamp=day(1)),
      go_pod("b", LOW, MEDIUM, creation_timestamp=day(2))],
     # a starts Jan 3, b has no start → its creation Jan 2 → b more important → a is the victim
     [], preemptor(res=LARGE), ["a"], 0),
    ("a pod with neither startTime nor creationTimestamp counts as starting now, so it goes first",
     [go_pod("unknown", LOW, MEDIUM), go_pod("old", LOW, MEDIUM, start=day(1))],
     [], preemptor(res=LARGE), ["unknown"], 0),
    ("full ties are broken by namespace/name ascending (the first is more important)",
     [go_pod("b", LOW, MEDIUM, start=day(1)), go_pod("a", LOW, MEDIUM, start=day(1))],
     [], preemptor(res=LARGE), ["b"], 0),
    ("the namespace is part of the tie-break",
     [go_pod("a", LOW, MEDIUM, start=day(1), ns="zeta"), go_pod("z", LOW, MEDIUM, start=day(1), ns="alpha")],
     [], preemptor(res=LARGE), ["a"], 0),
    # foo 200 + bar 200 + baz 100 fill the node; the preemptor needs all 500 → all three go, listed
    # in importance order: baz (mid), then bar, foo (low, same start → name).
    ("every potential victim is evicted when the node must be emptied, most important first",
     [go_pod("foo", LOW, MEDIUM, start=epoch(0)), go_pod("bar", LOW, MEDIUM, start=epoch(0)),
      go_pod("baz", MID, SMALL, start=epoch(0))],
     [], preemptor(res=VERY_LARGE), ["baz", "bar", "foo"], 0),
]


@pytest.mark.parametrize("case,bound,pdbs,pod,victims,violations", REPRIEVE_CASES, ids=[c[0] for c in REPRIEVE_CASES])
def test_reprieve_order(case, bound, pdbs, pod, victims, violations):
    env = Env([go_node()], bound, pdbs)
    candidate, status = env.select_victims(pod, "node1")
    assert status is None
    assert (names(candidate.victims), candidate.num_pdb_violations) == (victims, violations)


def test_worked_example_of_the_reference():
    """§9.4: node a 4 cpu full with v1 (prio 1, Jan 1, app=x), v2 (prio 1, Jan 2, app=x), v3
    (prio 2), v4 (prio 0), 1 cpu each; PDB app=x allows 1; preemptor prio 10 needs 2 cpu.
    Importance v3, v1, v2, v4; v1 takes the last disruption, v2 violates → violating [v2],
    non-violating [v3, v1, v4]. Reprieve v2 (fits), v3 (fits), v1 (no → victim), v4 (victim).
    Victims [v1, v4], 0 violations."""
    bound = [on("a", "v1", priority=1, start=day(1), labels={"app": "x"}),
             on("a", "v2", priority=1, start=day(2), labels={"app": "x"}),
             on("a", "v3", priority=2),
             on("a", "v4", priority=0)]
    env = Env([make_node("a", cpu="4")], bound, [pdb("x", sel(app="x"), allowed=1)])
    candidate, status = env.select_victims(make_pod("p", cpu="2", priority=10), "a")
    assert status is None
    assert names(candidate.victims) == ["v1", "v4"]
    assert candidate.num_pdb_violations == 0
    assert names(candidate.reprieved) == ["v2", "v3"]


def test_victims_are_re_sorted_by_importance_when_both_lists_are_non_empty():
    """node 3 cpu: hi (prio 5, 1 cpu, unlabeled), lo (prio 1, 2 cpu, app=x); PDB app=x allows 0;
    preemptor (prio 100) needs 3 → both go. Violating [lo] is reprieved first and fails → appended
    first; then hi. Appended order [lo, hi]; re-sorted by importance → [hi, lo]; 1 violation."""
    bound = [on("node1", "hi", cpu="1", priority=5), on("node1", "lo", cpu="2", priority=1, labels={"app": "x"})]
    env = Env([make_node("node1", cpu="3")], bound, [pdb("x", sel(app="x"), allowed=0)])
    candidate, _ = env.select_victims(make_pod("p", cpu="3", priority=100), "node1")
    assert names(candidate.victims) == ["hi", "lo"]
    assert candidate.num_pdb_violations == 1


def test_all_violating_victims_keep_importance_order_and_count_every_violation():
    """Only the violating list is non-empty: no re-sort needed, order is importance order."""
    bound = [on("node1", "b", cpu="1", priority=1, labels={"app": "x"}),
             on("node1", "a", cpu="1", priority=2, labels={"app": "x"})]
    env = Env([make_node("node1", cpu="2")], bound, [pdb("x", sel(app="x"), allowed=0)])
    candidate, _ = env.select_victims(make_pod("p", cpu="2", priority=100), "node1")
    assert (names(candidate.victims), candidate.num_pdb_violations) == (["a", "b"], 2)


# Terminating pods -----------------------------------------------------------------------------------

def test_terminating_lower_priority_pods_are_potential_victims():
    """node 2 cpu: old (prio 0, started Jan 1) and going (prio 0, started Jan 2, being deleted).
    Preemptor 1 cpu prio 100. Importance old, going; old back fits (1+1) → spared; going → victim."""
    bound = [on("node1", "going", priority=0, start=day(2), deletion_timestamp=DELETING,
                conditions=(preempted_condition(),)),
             on("node1", "old", priority=0, start=day(1))]
    env = Env([make_node("node1", cpu="2")], bound)
    candidate, status = env.select_victims(make_pod("p", cpu="1", priority=100), "node1")
    assert status is None and names(candidate.victims) == ["going"]


def test_a_node_with_only_terminating_lower_pods_still_has_victims():
    bound = [on("node1", "going", cpu="2", priority=0, deletion_timestamp=DELETING)]
    env = Env([make_node("node1", cpu="2")], bound)
    candidate, status = env.select_victims(make_pod("p", cpu="2", priority=100), "node1")
    assert status is None and names(candidate.victims) == ["going"]


def test_terminating_pods_of_higher_priority_are_not_victims():
    bound = [on("node1", "going", cpu="2", priority=1000, deletion_timestamp=DELETING)]
    env = Env([make_node("node1", cpu="2")], bound)
    candidate, status = env.select_victims(make_pod("p", cpu="2", priority=100), "node1")
    assert candidate is None and status.reasons == (NO_VICTIMS,)


# Filters other than resources (Go cases) ------------------------------------------------------------

def test_pod_with_anti_affinity_is_preempted():
    """Go: "pod with anti-affinity is preempted". p1.1 (low, foo) has required anti-affinity to foo on
    hostname; the preemptor carries foo. Potential p1.1 (low), p1.2 (mid). Importance p1.2, p1.1:
    p1.2 back fits; p1.1 back breaks its anti-affinity → victim."""
    anti = Affinity(pod_anti_affinity=PodAffinityRules(required=(
        PodAffinityTerm(label_selector=LabelSelector((Requirement("foo", "Exists"),)), topology_key="hostname"),)))
    bound = [go_pod("p1.1", LOW, SMALL, labels={"foo": ""}, affinity=anti),
             go_pod("p1.2", MID, SMALL), go_pod("p1.3", HIGH, SMALL),
             go_pod("p2", HIGH, SMALL, node="node2")]
    env = Env([go_node("node1", hostname="node1"), go_node("node2", hostname="node2")], bound)
    pod = preemptor(res=SMALL, labels={"foo": ""})
    candidate, status = env.select_victims(pod, "node1")
    assert status is None and names(candidate.victims) == ["p1.1"]
    candidate, status = env.select_victims(pod, "node2")
    assert candidate is None and status.reasons == (NO_VICTIMS,)


SPREAD_NODES = [("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2")]
FOO_EXISTS = LabelSelector((Requirement("foo", "Exists"),))


def _spread_env(bound):
    nodes = [go_node(n, hostname=n, zone=z) for n, z in SPREAD_NODES]
    return Env(nodes, bound)


def _spread_preemptor():
    return make_pod("p", priority=HIGH, labels={"foo": ""}, topology_spread_constraints=(
        TopologySpreadConstraint(1, "zone", "DoNotSchedule", FOO_EXISTS),
        TopologySpreadConstraint(1, "hostname", "DoNotSchedule", FOO_EXISTS)))


@pytest.mark.parametrize("node,expected", [("node-a", ["pod-a2"]), ("node-b", ["pod-b1"]), ("node-x", None)],
                         ids=["node-a gives up its low-priority pod", "node-b gives up its only pod",
                              "node-x has no lower-priority pods"])
def test_preemption_to_resolve_pod_topology_spread_filter_failure(node, expected):
    """Go: zone1 = {a1 mid, a2 low on node-a; b1 low on node-b}, zone2 = {x1, x2 high on node-x}.
    node-a: remove a1, a2 → zone1 1, zone2 2; a1 back → zone1 2: skew 2+1−2 = 1 ok, host a=1 b=1 x=2:
    1+1−1 = 1 ok → spared; a2 back → zone1 3: 3+1−2 = 2 > 1 → victim. node-b: remove b1 → zone 2/2,
    host a=2 b=0: 0+1−0 = 1 ok; b1 back breaks zone → victim."""
    foo = {"foo": ""}
    bound = [go_pod("pod-a1", MID, {}, node="node-a", labels=foo), go_pod("pod-a2", LOW, {}, node="node-a", labels=foo),
             go_pod("pod-b1", LOW, {}, node="node-b", labels=foo),
             go_pod("pod-x1", HIGH, {}, node="node-x", labels=foo), go_pod("pod-x2", HIGH, {}, node="node-x", labels=foo)]
    candidate, status = _spread_env(bound).select_victims(_spread_preemptor(), node)
    if expected is None:
        assert candidate is None and status.reasons == (NO_VICTIMS,)
    else:
        assert status is None and names(candidate.victims) == expected


# No victim left after reprieve → Error ---------------------------------------------------------------

def test_a_pod_that_fits_without_evicting_anything_yields_an_error():
    """Go: "a pod that fits with no preemption". Nodes handed to preemption as Unschedulable although
    the pod fits: every potential victim is reprieved → Error for that node; no candidate and an
    error → preemption returns Error with the error text (nomination left unchanged)."""
    env = Env([go_node("node1")], [go_pod("p1", MID, SMALL)])
    candidate, status = env.select_victims(preemptor(res=SMALL), "node1")
    assert candidate is None
    assert (status.code, status.reasons) == (Code.ERROR, ('expected at least one victim pod on node "node1"',))
    nominated, status, _ = env.preempt(preemptor(res=SMALL), all_unschedulable(env))
    assert nominated is None
    assert (status.code, status.message) == (Code.ERROR, 'expected at least one victim pod on node "node1"')


def test_several_node_errors_are_joined_in_brackets():
    env = Env([go_node("node1"), go_node("node2")], [go_pod("p1", MID, SMALL), go_pod("p2", MID, SMALL, node="node2")])
    nominated, status, _ = env.preempt(preemptor(res=SMALL), all_unschedulable(env))
    assert nominated is None
    assert status.code == Code.ERROR
    assert status.message == ('[expected at least one victim pod on node "node1", '
                              'expected at least one victim pod on node "node2"]')


def test_an_error_on_one_node_does_not_hide_a_candidate_on_another():
    """Go TestPostFilter "one failed with TestPlugin and the other pass": a node-level error does not
    stop preemption when another node is a candidate."""
    env = Env([go_node("node1"), go_node("node2")],
              [go_pod("p1", MID, SMALL), go_pod("p2", MID, LARGE, node="node2")])
    nominated, status, report = env.preempt(preemptor(res=LARGE), all_unschedulable(env))
    # node1: 100 + 300 fits with p1 → error; node2: 300 + 300 > 500 → victim p2.
    assert (nominated, status.code) == ("node2", Code.SUCCESS)
    assert names(report.chosen.victims) == ["p2"]


def test_the_dry_run_does_not_change_the_snapshot():
    bound = [go_pod("p1", MID, LARGE), go_pod("p2", LOW, SMALL)]
    env = Env([go_node()], bound)
    before = names(env.snapshot.by_name["node1"].pods)
    requested = env.snapshot.by_name["node1"].requested.copy()
    env.preempt(preemptor())
    assert names(env.snapshot.by_name["node1"].pods) == before
    assert env.snapshot.by_name["node1"].requested == requested


# The importance comparator itself (util.MoreImportantPod + the reference's stand-ins) ---------------

def _key(**kw):
    return importance_key(make_pod(kw.pop("name", "x"), **kw), NOW_DT)


IMPORTANCE_CASES = [
    ("higher priority is more important whatever the start time",
     dict(priority=2, start_time=day(9)), dict(priority=1, start_time=day(1))),
    ("equal priority: the earlier start is more important", dict(start_time=day(1)), dict(start_time=day(2))),
    ("null priority equals zero and loses to one", dict(priority=1), dict(priority=None)),
    ("no startTime falls back to the creationTimestamp",
     dict(creation_timestamp=day(1)), dict(start_time=day(2))),
    ("a pod without any time is compared as starting now",
     dict(start_time="2025-12-31T23:59:59Z"), dict()),
    ("full tie: namespace/name ascending is more important",
     dict(name="a", start_time=day(1)), dict(name="b", start_time=day(1))),
]


@pytest.mark.parametrize("case,more,less", IMPORTANCE_CASES, ids=[c[0] for c in IMPORTANCE_CASES])
def test_importance_order(case, more, less):
    assert _key(**more) < _key(**less)
