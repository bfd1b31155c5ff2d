"""FitError text and the reason histogram (reference §8.1-§8.3).

`fit_error_message` cases are ported from kubernetes `framework/types_test.go`
(TestFitError_Error); the §8.3 worked examples are built from node statuses, with the PostFilter
part composed by the real runner from DynamicResources and a stand-in for DefaultPreemption whose
own "0/N nodes are available" text is built by the same FitError formatting (as the real
preemption does, with absent nodes reported as `Preemption is not helpful for scheduling`).
"""

from __future__ import annotations


import pytest

from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.diagnosis import Diagnosis, NodeToStatus, fit_error_message, histogram
from kwhatif.framework.interfaces import PostFilterPlugin
from kwhatif.framework.runtime import Framework, PluginSet
from kwhatif.framework.status import Code, Status, unresolvable, unschedulable
from kwhatif.plugins.dynamic_resources import DynamicResources
from kwhatif.framework.scheduler import NominatedPods
from kwhatif.snapshot.pod_info import PodInfo
from tests.builders import Handle, make_pod

U = Code.UNSCHEDULABLE
UU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def nts(explicit: dict[str, Status], absent: Status | None = None) -> NodeToStatus:
    return NodeToStatus(dict(explicit), absent if absent is not None else Status(UU))


def same(n: int, status: Status, prefix: str = "node") -> dict[str, Status]:
    return {f"{prefix}{i}": status for i in range(1, n + 1)}


# Histogram ------------------------------------------------------------------------------------

HISTOGRAM_CASES = [
    pytest.param(12, nts({**same(10, unschedulable("Insufficient cpu"), "a"),
                          **same(2, unschedulable("Insufficient memory"), "b")}),
                 "10 Insufficient cpu, 2 Insufficient memory",
                 id="entries sort byte-wise as strings so 10 Insufficient cpu comes before 2 Insufficient memory"),
    pytest.param(11, nts({**same(2, unschedulable("Insufficient cpu"), "a"),
                          **same(9, unschedulable("Insufficient memory"), "b")}),
                 "2 Insufficient cpu, 9 Insufficient memory",
                 id="with one-digit counts the smaller count happens to come first"),
    pytest.param(20, nts({**same(9, unschedulable("Insufficient memory"), "a"),
                          **same(11, unschedulable("Insufficient cpu"), "b")}),
                 "11 Insufficient cpu, 9 Insufficient memory",
                 id="a two-digit count sorts before a one-digit count"),
    pytest.param(2, nts({"n1": unschedulable("Node(s) failed"), "n2": unschedulable("node(s) failed")}),
                 "1 Node(s) failed, 1 node(s) failed",
                 id="with equal counts uppercase sorts before lowercase"),
    pytest.param(3, nts({"n1": unschedulable("Insufficient cpu", "Insufficient memory"),
                         "n2": unschedulable("Insufficient cpu")}),
                 # cpu counted twice, memory once; "1 ..." sorts before "2 ..."
                 "1 Insufficient memory, 2 Insufficient cpu",
                 id="a node with several reasons contributes to each entry"),
    pytest.param(3, nts({"n1": unschedulable("Insufficient memory")},
                        unresolvable("node(s) didn't satisfy plugin(s) [NodeAffinity]")),
                 "1 Insufficient memory, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]",
                 id="nodes absent from the map are counted with the reasons of the absent-node status"),
    pytest.param(3, nts({"n1": unschedulable("Insufficient memory")}),
                 "1 Insufficient memory",
                 id="the default absent-node status has no reasons and adds nothing"),
    pytest.param(2, nts({"n1": unschedulable("Insufficient cpu"), "n2": unschedulable("Insufficient cpu")},
                        unresolvable("Preemption is not helpful for scheduling")),
                 "2 Insufficient cpu",
                 id="when every node has an explicit status the absent-node status is not counted"),
    pytest.param(3, nts({}, unresolvable("Preemption is not helpful for scheduling")),
                 "3 Preemption is not helpful for scheduling",
                 id="with no explicit status all nodes get the absent-node reasons"),
    pytest.param(3, nts({}), "",
                 id="no statuses and no absent reasons give an empty histogram"),
]


@pytest.mark.parametrize("num_nodes, statuses, expected", HISTOGRAM_CASES)
def test_histogram(num_nodes, statuses, expected):
    assert histogram(num_nodes, statuses) == expected


# FitError text --------------------------------------------------------------------------------

PRE = "Node(s) failed PreFilter plugin FalsePreFilter"
F1 = "Node(s) failed Filter plugin FalseFilter-1"
F2 = "Node(s) failed Filter plugin FalseFilter-2"
POST = "Error running PostFilter plugin FailedPostFilter"

FIT_ERROR_CASES = [
    # --- ported from TestFitError_Error ---
    pytest.param(3, Diagnosis(nts(same(3, unschedulable(PRE))), pre_filter_msg=PRE),
                 "0/3 nodes are available: Node(s) failed PreFilter plugin FalsePreFilter.",
                 id="a PreFilter failure prints the PreFilter message once and no histogram"),
    pytest.param(3, Diagnosis(nts(same(3, unschedulable(PRE))), pre_filter_msg=PRE, post_filter_msg=POST),
                 "0/3 nodes are available: Node(s) failed PreFilter plugin FalsePreFilter. "
                 "Error running PostFilter plugin FailedPostFilter",
                 id="a PreFilter failure followed by a PostFilter message"),
    pytest.param(3, Diagnosis(nts(same(3, unschedulable(F1)))),
                 "0/3 nodes are available: 3 Node(s) failed Filter plugin FalseFilter-1.",
                 id="one Filter plugin failing everywhere with an empty PostFilter message"),
    pytest.param(3, Diagnosis(nts(same(3, unschedulable(F1))), post_filter_msg=POST),
                 "0/3 nodes are available: 3 Node(s) failed Filter plugin FalseFilter-1. "
                 "Error running PostFilter plugin FailedPostFilter",
                 id="the PostFilter message is appended after a space without a final period"),
    pytest.param(3, Diagnosis(nts({"node1": unschedulable(F1), "node2": unschedulable(F1),
                                   "node3": unschedulable(F2)})),
                 "0/3 nodes are available: 1 Node(s) failed Filter plugin FalseFilter-2, "
                 "2 Node(s) failed Filter plugin FalseFilter-1.",
                 id="two Filter plugins failing are listed in sorted order"),
    pytest.param(3, Diagnosis(nts({"node1": unschedulable(F1), "node2": unschedulable(F1),
                                   "node3": unschedulable(F2)}), post_filter_msg=POST),
                 "0/3 nodes are available: 1 Node(s) failed Filter plugin FalseFilter-2, "
                 "2 Node(s) failed Filter plugin FalseFilter-1. Error running PostFilter plugin FailedPostFilter",
                 id="two Filter plugins failing and a PostFilter message"),
    pytest.param(1, Diagnosis(nts({"node1": unschedulable("Node failed Permit plugin Permit-1")})),
                 "0/1 nodes are available: 1 Node failed Permit plugin Permit-1.",
                 id="a single node failing"),
    # --- reference §8.1 ---
    pytest.param(3, Diagnosis(nts({})), "0/3 nodes are available:",
                 id="an empty histogram adds nothing after the colon"),
    pytest.param(3, Diagnosis(nts({}), post_filter_msg="not found"), "0/3 nodes are available: not found",
                 id="an empty histogram followed by a PostFilter message"),
    pytest.param(3, Diagnosis(nts({}, unresolvable("pod has unbound immediate PersistentVolumeClaims")),
                              pre_filter_msg="pod has unbound immediate PersistentVolumeClaims"),
                 "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims.",
                 id="a PreFilter rejection recorded as the absent-node status is not repeated as a histogram"),
]


@pytest.mark.parametrize("num_nodes, diagnosis, expected", FIT_ERROR_CASES)
def test_fit_error_message(num_nodes, diagnosis, expected):
    assert fit_error_message(num_nodes, diagnosis) == expected


# §8.3 worked examples -------------------------------------------------------------------------

NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"
TAINT = "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"
AFFINITY_SUBSET = "node(s) didn't satisfy plugin(s) [NodeAffinity]"


class PreemptionStandIn(PostFilterPlugin):
    """DefaultPreemption's no-candidate answer: a FitError text over the dry-run statuses, absent
    nodes counted as not helpful, prefixed with `preemption: `."""

    name = "DefaultPreemption"

    def __init__(self, num_nodes: int, dry_run: dict[str, Status]) -> None:
        super().__init__(None, Handle())
        self.num_nodes = num_nodes
        self.dry_run = dry_run

    def post_filter(self, state, pod, statuses):
        text = fit_error_message(self.num_nodes, Diagnosis(nts(self.dry_run, unresolvable(NOT_HELPFUL))))
        return None, unschedulable("preemption: " + text)


def failed_scheduling(filter_statuses: NodeToStatus, dry_run: dict[str, Status], pre_filter_msg: str = "",
                      dra_pre_filter_ran: bool = True) -> str:
    pod = PodInfo.of(make_pod("p", cpu="1"))
    state = CycleState()
    dra = DynamicResources(None, Handle())
    if dra_pre_filter_ran:
        dra.pre_filter(state, pod, [])
    fwk = Framework("default-scheduler", PluginSet(post_filter=[dra, PreemptionStandIn(3, dry_run)]),
                    NominatedPods())
    _, status = fwk.run_post_filter(state, pod, filter_statuses)
    post = status.message if status.code != Code.SUCCESS else ""
    return fit_error_message(3, Diagnosis(filter_statuses, pre_filter_msg=pre_filter_msg, post_filter_msg=post))


EXAMPLES = [
    pytest.param(nts({"n1": unresolvable(TAINT), "n2": unschedulable("Insufficient cpu"),
                      "n3": unschedulable("Insufficient cpu")}),
                 {"n2": unresolvable(NO_VICTIMS), "n3": unresolvable(NO_VICTIMS)}, "", True,
                 "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, "
                 "2 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes are available: "
                 "1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.",
                 id="two nodes lack cpu and the third has an untolerated control-plane taint"),
    pytest.param(nts(same(3, unschedulable("Insufficient cpu", "Insufficient memory"), "n")),
                 same(3, unresolvable(NO_VICTIMS), "n"), "", True,
                 "0/3 nodes are available: 3 Insufficient cpu, 3 Insufficient memory. no new claims to deallocate, "
                 "preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.",
                 id="all three nodes lack cpu and memory"),
    pytest.param(nts(same(3, unresolvable("Insufficient cpu"), "n")), {}, "", True,
                 "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, preemption: "
                 "0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
                 id="the pod requests more cpu than any node's allocatable"),
    pytest.param(nts({}, unresolvable("pod has unbound immediate PersistentVolumeClaims")), {},
                 "pod has unbound immediate PersistentVolumeClaims", False,
                 "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. not found",
                 id="an unbound immediate PVC ends with not found"),
    pytest.param(nts({}, unresolvable('persistentvolumeclaim "data" not found')), {},
                 'persistentvolumeclaim "data" not found', False,
                 '0/3 nodes are available: persistentvolumeclaim "data" not found. not found',
                 id="a missing PVC ends with not found"),
    pytest.param(nts({"n1": unschedulable("Insufficient memory")}, unresolvable(AFFINITY_SUBSET)),
                 {"n1": unresolvable(NO_VICTIMS)}, "", True,
                 # the reference elides the preemption part; with no victims on n1 it is built as below
                 "0/3 nodes are available: 1 Insufficient memory, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. "
                 "no new claims to deallocate, preemption: 0/3 nodes are available: "
                 "1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.",
                 id="NodeAffinity on metadata.name In n1 where n1 lacks memory"),
]


@pytest.mark.parametrize("statuses, dry_run, pre_filter_msg, dra_ran, expected", EXAMPLES)
def test_worked_examples(statuses, dry_run, pre_filter_msg, dra_ran, expected):
    assert failed_scheduling(statuses, dry_run, pre_filter_msg, dra_ran) == expected


def test_a_successful_preemption_leaves_only_the_filter_part():
    """§8.2 table: preemption succeeded → the message ends with the filter histogram and its period."""

    class Succeeds(PostFilterPlugin):
        name = "DefaultPreemption"

        def post_filter(self, state, pod, statuses):
            return None, None

    pod = PodInfo.of(make_pod("p", cpu="1"))
    state = CycleState()
    dra = DynamicResources(None, Handle())
    dra.pre_filter(state, pod, [])
    statuses = nts(same(3, unschedulable("Insufficient cpu"), "n"))
    fwk = Framework("default-scheduler", PluginSet(post_filter=[dra, Succeeds(None, Handle())]), NominatedPods())
    _, status = fwk.run_post_filter(state, pod, statuses)
    post = status.message if status.code != Code.SUCCESS else ""
    assert fit_error_message(3, Diagnosis(statuses, post_filter_msg=post)) == \
        "0/3 nodes are available: 3 Insufficient cpu."
