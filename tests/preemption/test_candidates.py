"""§9.7 Choosing among candidates (Go: pickOneNodeForPreemption; TestSelectBestCandidate ported).

Criteria in order, each keeping the best nodes, stopping when one remains:
1. fewest numPDBViolations; 2. lowest priority of the first (most important) victim;
3. smallest Σ(priority + 2147483648); 4. fewest victims; 5. latest "earliest start among the
victims of the highest victim priority" (no startTime → now); 6. still tied → Go map order, for
which kwhatif takes the smallest node name and reports the tie.
"""

from __future__ import annotations

import pytest

from kwhatif.framework.status import Code
from kwhatif.preemption.candidates import Candidate, pick_candidate
from kwhatif.snapshot.pod_info import PodInfo
from tests.builders import make_node, make_pod
from tests.preemption import NOW_DT, Env, all_unschedulable, day, names, pdb, sel

MIN_INT32 = -2147483648

PDB = "fewest PDB violations"
TOP = "lowest priority of the most important victim"
SUM = "smallest sum of victim priorities"
COUNT = "fewest victims"
START = "latest start of the highest-priority victims"
ONLY = "only candidate"
TIE = "tie (smallest node name)"


def cand(node: str, *victims: tuple, violations: int = 0) -> Candidate:
    """victims: (priority,) or (priority, startTime), most important first."""
    infos = []
    for i, v in enumerate(victims):
        start = v[1] if len(v) > 1 else day(1)
        infos.append(PodInfo.of(make_pod(f"{node}-v{i}", priority=v[0], start_time=start)))
    return Candidate(node, infos, violations)


# (case, candidates, winner, deciding criterion, tied nodes)
CRITERIA_CASES = [
    ("a single candidate wins without any criterion",
     [cand("b", (100,))], "b", ONLY, []),
    # 1 alone
    ("fewest PDB violations decides first",
     [cand("a", (0,), violations=1), cand("b", (1000,), (1000,), violations=0)], "b", PDB, []),
    ("fewer PDB violations beats a lower victim priority, a smaller sum and fewer victims",
     [cand("a", (-5,), violations=2), cand("b", (100,), (100,), (100,), violations=1)], "b", PDB, []),
    # 2 alone
    ("the lowest priority of the most important victim decides second",
     [cand("a", (10,)), cand("b", (5,))], "b", TOP, []),
    ("a lower top victim priority beats a smaller sum and fewer victims",
     [cand("a", (10,)), cand("b", (5,), (5,), (5,))], "b", TOP, []),
    ("only the first victim's priority is compared at step 2",
     [cand("a", (5,), (4,)), cand("b", (5,), (-100,))], "b", SUM, []),
    # 3 alone
    ("the smallest sum of priorities decides third",
     [cand("a", (5,), (3,)), cand("b", (5,), (1,))], "b", SUM, []),
    ("priorities are shifted by 2^31 so that more negative victims do not look cheaper",
     # raw sums a −200 < b −100, but shifted a = −200 + 2·2^31 > b = −100 + 2^31
     [cand("a", (-100,), (-100,)), cand("b", (-100,))], "b", SUM, []),
    ("a smaller shifted sum beats fewer victims",
     # a: 5 + 2^31 + 0 + 0 < b: 5 + 2^31 + 0 + 2^31
     [cand("a", (5,), (MIN_INT32,), (MIN_INT32,)), cand("b", (5,), (0,))], "a", SUM, []),
    # 4 alone (equal shifted sums need a victim at the int32 minimum, which adds 0)
    ("fewest victims decides fourth",
     [cand("a", (5,)), cand("b", (5,), (MIN_INT32,))], "a", COUNT, []),
    ("fewer victims beats a later start time",
     [cand("a", (5, day(1))), cand("b", (5, day(9)), (MIN_INT32, day(9)))], "a", COUNT, []),
    # 5 alone
    ("the latest start of the highest-priority victims decides fifth",
     [cand("a", (5, day(1))), cand("b", (5, day(2)))], "b", START, []),
    ("only victims of the highest victim priority count for the start time",
     # highest-priority (5) starts: a Jan 3, b Jan 2 → a; over all victims it would be a Jan 1 < b Jan 2
     [cand("a", (5, day(3)), (3, day(1))), cand("b", (5, day(2)), (3, day(5)))], "a", START, []),
    ("the earliest of several highest-priority victims is the one compared",
     [cand("a", (5, day(4)), (5, day(1))), cand("b", (5, day(2)), (5, day(3)))], "b", START, []),
    ("a victim without startTime counts as starting now, the latest possible",
     [cand("a", (5, day(1))), cand("b", (5, None))], "b", START, []),
    # 6
    ("a complete tie goes to the smallest node name and is reported",
     [cand("node3", (5,)), cand("node1", (5,)), cand("node2", (5,))], "node1", TIE, ["node1", "node2", "node3"]),
    ("only the nodes still tied after every criterion are reported",
     [cand("node-a", (5,), violations=1), cand("node-c", (5,)), cand("node-b", (5,))], "node-b", TIE,
     ["node-b", "node-c"]),
]


@pytest.mark.parametrize("case,candidates,winner,decided_by,tied", CRITERIA_CASES, ids=[c[0] for c in CRITERIA_CASES])
def test_pick_candidate(case, candidates, winner, decided_by, tied):
    chosen, label, got_tied = pick_candidate(candidates, NOW_DT)
    assert (chosen.node, label, got_tied) == (winner, decided_by, tied)


@pytest.mark.parametrize("order", [("a", "b"), ("b", "a")], ids=["given a first", "given b first"])
def test_the_choice_does_not_depend_on_the_candidate_order(order):
    by_name = {"a": cand("a", (5, day(1))), "b": cand("b", (5, day(2)))}
    chosen, _, _ = pick_candidate([by_name[n] for n in order], NOW_DT)
    assert chosen.node == "b"


# Go TestSelectBestCandidate (nodes veryLargeRes 500m/500; every node handed over as Unschedulable) ---

NEG, LOW, MID, HIGH, VERY_HIGH = -100, 0, 100, 1000, 10000
SMALL, MEDIUM, LARGE, VERY_LARGE = (dict(cpu=c, memory=m) for c, m in
                                    (("100m", "100"), ("200m", "200"), ("300m", "300"), ("500m", "500")))
EPOCH = "1970-01-01T00:00:00Z"


def epoch(n: int) -> str:
    return f"1970-01-01T00:00:{n:02d}Z"  # epochTimeN is N ns in Go; seconds here (startTime precision)


def v(name: str, priority: int, res: dict, start: str = EPOCH):
    node = "node" + name[1]
    return make_pod(name, node_name=node, priority=priority, start_time=start, **res)


GO_CASES = [
    ("a pod that fits on both nodes when lower priority pods are preempted", 2, HIGH, LARGE,
     [v("p1", MID, LARGE), v("p2", MID, LARGE)],
     # Go accepts node1 or node2; kwhatif: smallest name, tie reported
     "node1", TIE, ["node1", "node2"]),
    ("node with min highest priority pod is picked", 3, HIGH, VERY_LARGE,
     [v("p1.1", MID, MEDIUM), v("p1.2", MID, LARGE), v("p2.1", MID, MEDIUM), v("p2.2", LOW, MEDIUM),
      v("p3.1", LOW, MEDIUM), v("p3.2", LOW, MEDIUM)],
     "node3", TOP, []),
    ("when highest priorities are the same, minimum sum of priorities is picked", 3, HIGH, VERY_LARGE,
     [v("p1.1", MID, MEDIUM), v("p1.2", MID, LARGE), v("p2.1", MID, LARGE), v("p2.2", LOW, MEDIUM),
      v("p3.1", MID, MEDIUM), v("p3.2", MID, MEDIUM)],
     "node2", SUM, []),
    # shifted sums: node1 0 + 4·2^31, node2 0 + 2·2^31, node3 0 + 3·2^31 → node2 already at step 3
    ("when highest priority and sum are the same, minimum number of pods is picked", 3, HIGH, VERY_LARGE,
     [v("p1.1", MID, SMALL), v("p1.2", NEG, SMALL), v("p1.3", MID, SMALL), v("p1.4", NEG, SMALL),
      v("p2.1", MID, LARGE), v("p2.2", NEG, MEDIUM),
      v("p3.1", MID, MEDIUM), v("p3.2", NEG, SMALL), v("p3.3", LOW, SMALL)],
     "node2", SUM, []),
    # raw sums node1 −100, node2 0, node3 0; shifted node1 −100 + 3·2^31, node2 0 + 2·2^31 → node2
    ("sum of adjusted priorities is considered", 3, HIGH, VERY_LARGE,
     [v("p1.1", MID, SMALL), v("p1.2", NEG, SMALL), v("p1.3", NEG, SMALL),
      v("p2.1", MID, LARGE), v("p2.2", NEG, MEDIUM),
      v("p3.1", MID, MEDIUM), v("p3.2", NEG, SMALL), v("p3.3", LOW, SMALL)],
     "node2", SUM, []),
    # top: node2 high, others mid → node2 out; shifted sums node1 100 + 3·2^31 smallest
    ("non-overlapping lowest high priority, sum priorities, and number of pods", 4, VERY_HIGH, VERY_LARGE,
     [v("p1.1", MID, SMALL), v("p1.2", LOW, SMALL), v("p1.3", LOW, SMALL),
      v("p2.1", HIGH, LARGE),
      v("p3.1", MID, MEDIUM), v("p3.2", LOW, SMALL), v("p3.3", LOW, SMALL), v("p3.4", LOW, MEDIUM),
      v("p4.1", MID, MEDIUM), v("p4.2", MID, SMALL), v("p4.3", MID, SMALL), v("p4.4", NEG, SMALL)],
     "node1", SUM, []),
    ("same priority, same number of victims, different start time for each node's pod", 3, HIGH, VERY_LARGE,
     [v("p1.1", MID, MEDIUM, epoch(2)), v("p1.2", MID, MEDIUM, epoch(2)),
      v("p2.1", MID, MEDIUM, epoch(3)), v("p2.2", MID, MEDIUM, epoch(3)),
      v("p3.1", MID, MEDIUM, epoch(1)), v("p3.2", MID, MEDIUM, epoch(1))],
     "node2", START, []),
    # earliest per node: node1 t2, node2 t1, node3 t3 → node3
    ("same priority, same number of victims, different start time for all pods", 3, HIGH, VERY_LARGE,
     [v("p1.1", MID, MEDIUM, epoch(4)), v("p1.2", MID, MEDIUM, epoch(2)),
      v("p2.1", MID, MEDIUM, epoch(5)), v("p2.2", MID, MEDIUM, epoch(1)),
      v("p3.1", MID, MEDIUM, epoch(3)), v("p3.2", MID, MEDIUM, epoch(6))],
     "node3", START, []),
    # mid victims only: node1 t2, node2 t6, node3 t5 → node2
    ("different priority, same number of victims, different start time for all pods", 3, HIGH, VERY_LARGE,
     [v("p1.1", LOW, MEDIUM, epoch(4)), v("p1.2", MID, MEDIUM, epoch(2)),
      v("p2.1", MID, MEDIUM, epoch(6)), v("p2.2", LOW, MEDIUM, epoch(1)),
      v("p3.1", LOW, MEDIUM, epoch(3)), v("p3.2", MID, MEDIUM, epoch(5))],
     "node2", START, []),
]


@pytest.mark.parametrize("case,num_nodes,priority,res,bound,winner,decided_by,tied", GO_CASES,
                         ids=[c[0] for c in GO_CASES])
def test_select_best_candidate(case, num_nodes, priority, res, bound, winner, decided_by, tied):
    nodes = [make_node(f"node{i}", cpu="500m", memory="500", pods="32") for i in range(1, num_nodes + 1)]
    env = Env(nodes, bound)
    nominated, status, report = env.preempt(make_pod("p", priority=priority, **res), all_unschedulable(env))
    assert (nominated, status.code) == (winner, Code.SUCCESS)
    assert (report.decided_by, report.tied) == (decided_by, tied)


def test_a_pdb_violating_candidate_loses_to_a_non_violating_one():
    """node1 holds a (app=x, PDB allows 0 → 1 violation), node2 holds b (no PDB); otherwise equal.
    Both are candidates; step 1 picks node2."""
    bound = [make_pod("a", node_name="node1", priority=0, cpu="2", labels={"app": "x"}),
             make_pod("b", node_name="node2", priority=0, cpu="2")]
    env = Env([make_node("node1", cpu="2"), make_node("node2", cpu="2")], bound, [pdb("x", sel(app="x"))])
    nominated, _, report = env.preempt(make_pod("p", priority=10, cpu="2"))
    assert nominated == "node2"
    assert report.decided_by == PDB
    assert sorted((c.node, c.num_pdb_violations, names(c.victims)) for c in report.candidates) == \
        [("node1", 1, ["a"]), ("node2", 0, ["b"])]
