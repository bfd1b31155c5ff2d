"""The runner's extension-point rules (reference §2.1, §5.0, §6.0, §8.2), exercised with tiny fake
plugins defined here.

Some cases are ported from kubernetes `framework/runtime/framework_test.go` and
`schedule_one_test.go` (TestSchedulerSchedulePod: "test prefilter plugin returning
non-intersecting nodes" and "... returning empty node set"); the texts follow §5.0 and §6.0.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import pytest

from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.diagnosis import NodeToStatus
from kwhatif.framework.interfaces import (
    FilterPlugin, PostFilterPlugin, PostFilterResult, PreFilterExtensions, PreFilterPlugin, PreFilterResult,
    PreScorePlugin, ScorePlugin,
)
from kwhatif.framework.runtime import Framework, PluginSet
from kwhatif.framework.status import SKIP, Code, SchedulingError, Status, error, unresolvable, unschedulable
from kwhatif.api.cluster import Cluster
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot
from tests.builders import Handle, make_node, make_pod

U = Code.UNSCHEDULABLE
UU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE


HANDLE = Handle()


@dataclass
class Nominator:
    by_node: dict[str, list[PodInfo]] = field(default_factory=dict)

    def nominated_for(self, node_name: str, pod: PodInfo | None = None) -> list[PodInfo]:
        found = self.by_node.get(node_name, [])
        if pod is None:
            return found
        return [p for p in found if p.key != pod.key and p.pod.effective_priority >= pod.pod.effective_priority]

    def nominated_nodes(self) -> list[str]:
        return [name for name, pods in self.by_node.items() if pods]

    def node_of(self, key: str) -> str:
        return next((name for name, pods in self.by_node.items() if any(p.key == key for p in pods)), "")


# Fake plugins ---------------------------------------------------------------------------------

class FakePreFilter(PreFilterPlugin, PreFilterExtensions):
    def __init__(self, name: str, nodes: set[str] | None = None, status: Status | None = None,
                 log: list | None = None, extensions: bool = False) -> None:
        super().__init__(None, HANDLE)
        self.name = name
        self.nodes = nodes
        self.status = status
        self.log = log if log is not None else []
        self.extensions = extensions

    def pre_filter(self, state, pod, nodes):
        self.log.append(("PreFilter", self.name))
        result = None if self.nodes is None else PreFilterResult(frozenset(self.nodes))
        return result, self.status

    def pre_filter_extensions(self):
        return self if self.extensions else None

    def add_pod(self, state, pod, to_add, node):
        self.log.append(("AddPod", self.name, to_add.key, node.name))
        state.write("added-by-" + self.name, to_add.key)
        return None

    def remove_pod(self, state, pod, to_remove, node):
        self.log.append(("RemovePod", self.name, to_remove.key, node.name))
        return None


class FakeFilter(FilterPlugin):
    def __init__(self, name: str, decide: Callable[[NodeInfo], Status | None] = lambda n: None,
                 log: list | None = None) -> None:
        super().__init__(None, HANDLE)
        self.name = name
        self.decide = decide
        self.log = log if log is not None else []

    def filter(self, state, pod, node):
        self.log.append(("Filter", self.name, node.name, len(node.pods)))
        return self.decide(node)


class FakeScore(PreScorePlugin, ScorePlugin):
    def __init__(self, name: str, raw: dict[str, int], pre_score: Status | None = None,
                 normalize: Callable[[dict[str, int]], None] | None = None) -> None:
        super().__init__(None, HANDLE)
        self.name = name
        self.raw = raw
        self.pre_status = pre_score
        self.normalize = normalize

    def pre_score(self, state, pod, nodes):
        return self.pre_status

    def score(self, state, pod, node):
        return self.raw[node.name]

    def normalize_score(self, state, pod, scores):
        if self.normalize is not None:
            self.normalize(scores)
        return None


class FakePostFilter(PostFilterPlugin):
    def __init__(self, name: str, status: Status | None, result: PostFilterResult | None = None,
                 log: list | None = None) -> None:
        super().__init__(None, HANDLE)
        self.name = name
        self.status = status
        self.result = result
        self.log = log if log is not None else []

    def post_filter(self, state, pod, statuses):
        self.log.append(self.name)
        return self.result, self.status


def framework(nominator: Nominator | None = None, weights: dict[str, int] | None = None, **points) -> Framework:
    return Framework("default-scheduler", PluginSet(weights=weights or {}, **points), nominator or Nominator())


def snapshot(*names: str, bound=()) -> Snapshot:
    return Snapshot.build(Cluster(nodes=[make_node(n) for n in names]), list(bound))


POD = PodInfo.of(make_pod("p", cpu="100m"))


# PreFilter ------------------------------------------------------------------------------------

PRE_FILTER_CASES = [
    # (plugins as (name, node set, status), expected node set, expected (code, message, plugin) or None,
    #  plugins that ran, expected skip set)
    pytest.param([("A", None, None), ("B", None, None)], None, None, ["A", "B"], set(),
                 id="all PreFilter plugins succeeding without node sets give success and all nodes"),
    pytest.param([("A", None, SKIP), ("B", None, None)], None, None, ["A", "B"], {"A"},
                 id="a Skip puts the plugin in the skip set and the loop continues"),
    pytest.param([("A", None, unresolvable("a says no")), ("B", None, None)], None, (UU, "a says no", "A"),
                 ["A"], set(),
                 id="UnschedulableAndUnresolvable stops the PreFilter loop at once and is stamped with the plugin"),
    pytest.param([("A", None, unschedulable("first")), ("B", None, None)], None, (U, "first", "A"), ["A", "B"], set(),
                 id="Unschedulable is remembered and the later plugins still run"),
    pytest.param([("A", None, unschedulable("first")), ("B", None, unschedulable("second")), ("C", None, None)],
                 None, (U, "second", "B"), ["A", "B", "C"], set(),
                 id="a later Unschedulable replaces an earlier one"),
    pytest.param([("A", None, unschedulable("first")), ("B", None, unresolvable("fatal")), ("C", None, SKIP)],
                 None, (UU, "fatal", "B"), ["A", "B"], set(),
                 id="an unresolvable status after an Unschedulable one wins and stops the loop"),
    pytest.param([("A", {"n1", "n2"}, None), ("B", None, None), ("C", {"n2", "n3"}, None)], {"n2"}, None,
                 ["A", "B", "C"], set(),
                 id="node-name sets of several plugins are intersected and an all-nodes result doesn't widen them"),
    pytest.param([("FakePreFilter1", None, None), ("FakePreFilter2", {"node2"}, None),
                  ("FakePreFilter3", {"node1"}, None), ("FakePreFilter4", None, None)],
                 set(), (UU, "node(s) didn't satisfy plugin(s) [FakePreFilter2 FakePreFilter3] simultaneously", None),
                 ["FakePreFilter1", "FakePreFilter2", "FakePreFilter3"], set(),
                 id="non-intersecting node sets of two plugins fail as unresolvable naming both plugins"),
    pytest.param([("FakePreFilter1", None, None), ("FakePreFilter2", set(), None)],
                 set(), (UU, "node(s) didn't satisfy plugin FakePreFilter2", None),
                 ["FakePreFilter1", "FakePreFilter2"], set(),
                 id="an empty node set of one plugin fails as unresolvable naming that plugin"),
    pytest.param([("Zeta", {"n1"}, None), ("Alpha", {"n2"}, None)],
                 set(), (UU, "node(s) didn't satisfy plugin(s) [Alpha Zeta] simultaneously", None),
                 ["Zeta", "Alpha"], set(),
                 id="the plugin names in the simultaneous message are sorted"),
    pytest.param([("A", {"n1"}, None), ("B", None, unschedulable("later"))], {"n1"}, (U, "later", "B"),
                 ["A", "B"], set(),
                 id="a node set and a remembered Unschedulable are both returned"),
]


@pytest.mark.parametrize("specs, want_nodes, want_status, want_ran, want_skip", PRE_FILTER_CASES)
def test_pre_filter_runner(specs, want_nodes, want_status, want_ran, want_skip):
    log: list = []
    plugins = [FakePreFilter(name, nodes, status, log) for name, nodes, status in specs]
    fwk = framework(pre_filter=plugins)
    state = CycleState()
    result, status = fwk.run_pre_filter(state, POD, snapshot("n1", "n2", "n3").node_infos)
    assert (None if result is None else result.node_names) == (None if want_nodes is None else frozenset(want_nodes))
    if want_status is None:
        assert status is None or status.code == Code.SUCCESS
    else:
        code, message, plugin = want_status
        assert (status.code, status.message) == (code, message)
        if plugin is not None:
            assert status.plugin == plugin
    assert [entry[1] for entry in log] == want_ran
    assert state.skip_filter == want_skip


def test_a_pre_filter_error_is_a_scheduling_error():
    fwk = framework(pre_filter=[FakePreFilter("A"), FakePreFilter("Broken", status=error("boom"))])
    with pytest.raises(SchedulingError) as err:
        fwk.run_pre_filter(CycleState(), POD, snapshot("n1").node_infos)
    assert str(err.value) == 'running PreFilter plugin "Broken": boom'


def test_a_pre_filter_skip_disables_that_plugins_filter():
    log: list = []
    both = FakeFilter("Both", lambda n: unschedulable("would reject"), log)
    other = FakeFilter("Other", log=log)
    pre = FakePreFilter("Both", status=SKIP)
    fwk = framework(pre_filter=[pre], filter=[both, other])
    state = CycleState()
    snap = snapshot("n1")
    fwk.run_pre_filter(state, POD, snap.node_infos)
    assert fwk.run_filter(state, POD, snap.by_name["n1"]) is None
    assert [e[1] for e in log] == ["Other"]


# Filter ---------------------------------------------------------------------------------------

FILTER_CASES = [
    pytest.param([None, None], None, ["A", "B"],
                 id="a node passing every filter has no status"),
    pytest.param([None, unschedulable("b1", "b2"), unresolvable("c")], (U, ("b1", "b2"), "B"), ["A", "B"],
                 id="Filter stops at the first failure and that status with all its reasons is stamped with the plugin"),
    pytest.param([unresolvable("a"), unschedulable("b")], (UU, ("a",), "A"), ["A"],
                 id="the first plugin's rejection wins even when a later one would also reject"),
    pytest.param([None, Status(Code.PENDING, ("waiting",))], (Code.PENDING, ("waiting",), "B"), ["A", "B"],
                 id="a Pending status is a rejection and becomes the node's status"),
]


@pytest.mark.parametrize("statuses, expected, ran", FILTER_CASES)
def test_filter_runner(statuses, expected, ran):
    log: list = []
    names = "ABC"
    plugins = [FakeFilter(names[i], (lambda s: lambda n: s)(s), log) for i, s in enumerate(statuses)]
    snap = snapshot("n1")
    status = framework(filter=plugins).run_filter(CycleState(), POD, snap.by_name["n1"])
    assert (None if status is None else (status.code, status.reasons, status.plugin)) == expected
    assert [e[1] for e in log] == ran


def test_a_filter_error_is_a_scheduling_error():
    plugins = [FakeFilter("A"), FakeFilter("TestPlugin", lambda n: error("injected filter status"))]
    snap = snapshot("n1")
    with pytest.raises(SchedulingError) as err:
        framework(filter=plugins).run_filter(CycleState(), POD, snap.by_name["n1"])
    assert str(err.value) == 'running "TestPlugin" filter plugin: injected filter status'


# Filter with nominated pods (§2.1) ------------------------------------------------------------

def crowded(limit: int):
    """Rejects a node that already holds `limit` pods."""
    return lambda node: unschedulable("crowded") if len(node.pods) >= limit else None


def lonely(node):
    """Rejects a node that holds no pod (only passes when a nominated pod was added)."""
    return None if node.pods else unschedulable("needs company")


def nominated(name: str, priority: int | None) -> PodInfo:
    return PodInfo.of(make_pod(name, cpu="100m", priority=priority, nominated_node_name="n1"))


NOMINATED_CASES = [
    # (incoming priority, nominated pods, filter, expected status, number of filter passes)
    pytest.param(5, [nominated("other", 10)], crowded(1), (U, ("crowded",)), 1,
                 id="a nominated pod of higher priority is added in a first pass and can make the node fail"),
    pytest.param(10, [nominated("other", 10)], crowded(1), (U, ("crowded",)), 1,
                 id="a nominated pod of equal priority is also taken into account"),
    pytest.param(20, [nominated("other", 10)], crowded(1), None, 1,
                 id="a nominated pod of lower priority is ignored and the filters run once"),
    pytest.param(None, [nominated("other", None)], crowded(1), (U, ("crowded",)), 1,
                 id="null priorities count as 0 on both sides and are equal"),
    pytest.param(5, [nominated("p", 10)], crowded(1), None, 1,
                 id="the pod's own nomination is excluded"),
    pytest.param(5, [nominated("other", 10)], crowded(2), None, 2,
                 id="when the first pass succeeds the filters run again on the real node"),
    pytest.param(5, [nominated("other", 10)], lonely, (U, ("needs company",)), 2,
                 id="the node is feasible only if both passes succeed and the last pass's status is reported"),
    pytest.param(20, [nominated("other", 10)], lonely, (U, ("needs company",)), 1,
                 id="without eligible nominated pods a single pass decides"),
]


@pytest.mark.parametrize("priority, noms, decide, expected, passes", NOMINATED_CASES)
def test_filter_with_nominated_pods(priority, noms, decide, expected, passes):
    log: list = []
    snap = snapshot("n1")
    fwk = framework(Nominator({"n1": noms}), filter=[FakeFilter("F", decide, log)])
    pod = PodInfo.of(make_pod("p", cpu="100m", priority=priority))
    node = snap.by_name["n1"]
    status = fwk.run_filter_with_nominated(CycleState(), pod, node)
    assert (None if status is None else (status.code, status.reasons)) == expected
    assert len(log) == passes
    assert node.pods == []  # the real node is never modified


def test_nominated_pods_go_through_add_pod_of_non_skipped_pre_filter_plugins_on_a_copy():
    log: list = []
    ext = FakePreFilter("Ext", log=log, extensions=True)
    skipped = FakePreFilter("Skipped", status=SKIP, log=log, extensions=True)
    plain = FakePreFilter("Plain", log=log)
    snap = snapshot("n1")
    other = nominated("other", 10)
    fwk = framework(Nominator({"n1": [other]}), pre_filter=[ext, skipped, plain],
                    filter=[FakeFilter("F", log=log)])
    state = CycleState()
    fwk.run_pre_filter(state, POD, snap.node_infos)
    log.clear()
    assert fwk.run_filter_with_nominated(state, POD, snap.by_name["n1"]) is None
    assert log == [("AddPod", "Ext", "default/other", "n1"), ("Filter", "F", "n1", 1), ("Filter", "F", "n1", 0)]
    assert state.get("added-by-Ext") is None  # AddPod changed a clone of the cycle state


def test_remove_pod_skips_plugins_in_the_skip_set():
    log: list = []
    snap = snapshot("n1")
    fwk = framework(pre_filter=[FakePreFilter("Ext", log=log, extensions=True),
                                FakePreFilter("Skipped", status=SKIP, log=log, extensions=True)])
    state = CycleState()
    fwk.run_pre_filter(state, POD, snap.node_infos)
    log.clear()
    fwk.run_remove_pod(state, POD, nominated("victim", 0), snap.by_name["n1"])
    assert log == [("RemovePod", "Ext", "default/victim", "n1")]


# Score (§6.0) ---------------------------------------------------------------------------------

def scale_to_max(scores: dict[str, int]) -> None:
    top = max(scores.values())
    for k, v in scores.items():
        scores[k] = 100 * v // top


SCORE_CASES = [
    pytest.param([FakeScore("S1", {"n1": 10, "n2": 20}), FakeScore("S2", {"n1": 100, "n2": 0})], {"S1": 3, "S2": 1},
                 # n1: 3×10 + 1×100 = 130; n2: 3×20 + 0 = 60
                 {"n1": {"S1": 30, "S2": 100}, "n2": {"S1": 60, "S2": 0}}, {"n1": 130, "n2": 60},
                 id="the total is the weighted sum of the plugins' scores"),
    pytest.param([FakeScore("S1", {"n1": 5, "n2": 10}, normalize=scale_to_max)], {"S1": 2},
                 # normalized 50 and 100, then weighted ×2
                 {"n1": {"S1": 100}, "n2": {"S1": 200}}, {"n1": 100, "n2": 200},
                 id="NormalizeScore runs before weighting"),
    pytest.param([FakeScore("S1", {"n1": 7, "n2": 8}, pre_score=SKIP), FakeScore("S2", {"n1": 1, "n2": 2})], {},
                 {"n1": {"S2": 1}, "n2": {"S2": 2}}, {"n1": 1, "n2": 2},
                 id="a PreScore Skip removes that plugin's Score and a missing weight counts as 1"),
]


@pytest.mark.parametrize("plugins, weights, by_node, totals", SCORE_CASES)
def test_score_runner(plugins, weights, by_node, totals):
    snap = snapshot("n1", "n2")
    fwk = framework(weights=weights, pre_score=list(plugins), score=list(plugins))
    state = CycleState()
    fwk.run_pre_score(state, POD, snap.node_infos)
    scores = fwk.run_score(state, POD, snap.node_infos)
    assert scores.by_node == by_node
    assert scores.totals == totals


@pytest.mark.parametrize("raw, bad", [
    pytest.param({"n1": 101}, 101, id="a score above 100 after normalizing is an error"),
    pytest.param({"n1": -1}, -1, id="a negative score after normalizing is an error"),
])
def test_an_out_of_range_score_is_an_error(raw, bad):
    snap = snapshot("n1")
    plugin = FakeScore("Wild", raw)
    fwk = framework(score=[plugin])
    with pytest.raises(SchedulingError) as err:
        fwk.run_score(CycleState(), POD, snap.node_infos)
    assert str(err.value) == (f'plugin "Wild" returns an invalid score {bad}, it should in the range of '
                              f'[0, 100] after normalizing')


def test_a_pre_score_error_is_a_scheduling_error():
    snap = snapshot("n1")
    plugin = FakeScore("Broken", {"n1": 1}, pre_score=error("cannot parse"))
    with pytest.raises(SchedulingError) as err:
        framework(pre_score=[plugin], score=[plugin]).run_pre_score(CycleState(), POD, snap.node_infos)
    assert str(err.value) == 'running PreScore plugin "Broken": cannot parse'


# PostFilter (§8.2) ----------------------------------------------------------------------------

RESULT_A = PostFilterResult(nominated_node="n1")

POST_FILTER_CASES = [
    # (plugins as (name, status, result), expected code, expected message, expected result, plugins run)
    pytest.param([("DRA", unschedulable("no new claims to deallocate"), None),
                  ("Preempt", unschedulable("preemption: 0/3 nodes are available: 3 No preemption victims found "
                                            "for incoming pod."), None)],
                 U, "no new claims to deallocate, preemption: 0/3 nodes are available: 3 No preemption victims "
                    "found for incoming pod.", None, ["DRA", "Preempt"],
                 id="Unschedulable reasons of all PostFilter plugins are joined with comma and space"),
    pytest.param([("DRA", unschedulable("no new claims to deallocate"), None), ("Preempt", None, RESULT_A),
                  ("Third", unschedulable("never"), None)],
                 Code.SUCCESS, "", RESULT_A, ["DRA", "Preempt"],
                 id="a Success ends the PostFilter runner with an empty message dropping earlier reasons"),
    pytest.param([("DRA", unschedulable("no new claims to deallocate"), None),
                  ("Preempt", unresolvable("hopeless"), None), ("Third", unschedulable("never"), None)],
                 UU, "hopeless", None, ["DRA", "Preempt"],
                 id="UnschedulableAndUnresolvable ends the runner with its own message only"),
    pytest.param([("DRA", unschedulable("no new claims to deallocate"), None), ("Preempt", error("boom"), None),
                  ("Third", unschedulable("never"), None)],
                 Code.ERROR, "boom", None, ["DRA", "Preempt"],
                 id="an Error ends the runner with that plugin's message and later plugins don't run"),
    pytest.param([("DRA", error("not found"), None), ("Preempt", unschedulable("never"), None)],
                 Code.ERROR, "not found", None, ["DRA"],
                 id="an Error from the first plugin keeps the second from running"),
    pytest.param([("DRA", unschedulable("a"), None), ("Preempt", unschedulable("b"), RESULT_A)],
                 U, "a, b", RESULT_A, ["DRA", "Preempt"],
                 id="the result of an Unschedulable plugin is kept"),
    pytest.param([("DRA", Status(Code.PENDING, ("later",)), None), ("Preempt", unschedulable("b"), None)],
                 U, "later, b", None, ["DRA", "Preempt"],
                 id="a Pending PostFilter status counts as a rejection and its reasons are collected"),
]


@pytest.mark.parametrize("specs, code, message, result, ran", POST_FILTER_CASES)
def test_post_filter_runner(specs, code, message, result, ran):
    log: list = []
    plugins = [FakePostFilter(name, status, res, log) for name, status, res in specs]
    got_result, status = framework(post_filter=plugins).run_post_filter(CycleState(), POD, NodeToStatus())
    assert (status.code, status.message) == (code, message)
    assert got_result is result
    assert log == ran


def test_the_node_set_result_names_the_plugins_that_restricted_it():
    """§2 step 5: nodes left out are reported as `node(s) didn't satisfy plugin(s) [<names>]`, so
    the result carries the contributing plugins (not those that returned all nodes)."""
    plugins = [FakePreFilter("A", {"n1", "n2"}), FakePreFilter("B"), FakePreFilter("C", {"n2", "n3"})]
    result, status = framework(pre_filter=plugins).run_pre_filter(CycleState(), POD,
                                                                  snapshot("n1", "n2", "n3").node_infos)
    assert status is None
    assert (result.node_names, tuple(sorted(result.plugins))) == (frozenset({"n2"}), ("A", "C"))
