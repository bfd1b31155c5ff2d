"""TaintToleration: Filter (reference §5.2, §5.3) and Score/NormalizeScore (§6.2, §6.1).

Filter and score cases are ported from kubernetes `tainttoleration/taint_toleration_test.go`.
That file's filter message is the newer generic `node(s) had untolerated taint(s)`; v1.34.1 names
the first untolerated taint as `node(s) had untolerated taint {<key>: <value>}` (§5.3), so the
expected texts below are rewritten for 1.34. Its Gt/Lt toleration cases are for a later feature
gate: in 1.34 any operator other than ""/Equal/Exists never matches (§5.2).
"""

from __future__ import annotations

import pytest

from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.status import Code
from kwhatif.plugins.taint_toleration import TaintToleration
from kwhatif.api.cluster import Cluster
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot
from tests.builders import Handle, make_node, make_pod, make_taint as taint, make_toleration as tol
from tests.plugins.harness import filter_node, scores

UU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def untolerated(key: str, value: str):
    return (UU, (f"node(s) had untolerated taint {{{key}: {value}}}",))


FILTER_CASES = [
    # --- ported from TestTaintTolerationFilter ---
    pytest.param((), (taint("dedicated", "user1", "NoSchedule"),), untolerated("dedicated", "user1"),
                 id="a pod with no tolerations can't land on a node with a NoSchedule taint"),
    pytest.param((tol("dedicated", "", "user1", "NoSchedule"),), (taint("dedicated", "user1", "NoSchedule"),), None,
                 id="a pod tolerating dedicated=user1:NoSchedule lands on the node dedicated to user1"),
    pytest.param((tol("dedicated", "Equal", "user2", "NoSchedule"),), (taint("dedicated", "user1", "NoSchedule"),),
                 untolerated("dedicated", "user1"),
                 id="a pod tolerating dedicated=user2 can't land on the node dedicated to user1"),
    pytest.param((tol("foo", "Exists", effect="NoSchedule"),), (taint("foo", "bar", "NoSchedule"),), None,
                 id="an Exists toleration tolerates the taint whatever its value"),
    pytest.param((tol("dedicated", "Equal", "user2", "NoSchedule"), tol("foo", "Exists", effect="NoSchedule")),
                 (taint("dedicated", "user2", "NoSchedule"), taint("foo", "bar", "NoSchedule")), None,
                 id="a pod whose tolerations cover all of the node's taints lands on it"),
    pytest.param((tol("foo", "Equal", "bar", "PreferNoSchedule"),), (taint("foo", "bar", "NoSchedule"),),
                 untolerated("foo", "bar"),
                 id="a toleration with matching key and value but a different non-empty effect doesn't tolerate"),
    pytest.param((tol("foo", "Equal", "bar"),), (taint("foo", "bar", "NoSchedule"),), None,
                 id="a toleration with an empty effect tolerates a NoSchedule taint with the same key and value"),
    pytest.param((tol("dedicated", "Equal", "user2", "NoSchedule"),), (taint("dedicated", "user1", "PreferNoSchedule"),),
                 None, id="an untolerated PreferNoSchedule taint does not reject"),
    pytest.param((), (taint("dedicated", "user1", "PreferNoSchedule"),), None,
                 id="a pod without tolerations lands on a node whose only taint is PreferNoSchedule"),
    # --- reference §5.2 / §5.3 ---
    pytest.param((), (taint("evict", "now", "NoExecute"),), untolerated("evict", "now"),
                 id="an untolerated NoExecute taint rejects"),
    pytest.param((), (taint("a", "1", "NoSchedule"), taint("b", "2", "NoSchedule")), untolerated("a", "1"),
                 id="with several untolerated taints the first one in spec order is reported"),
    pytest.param((tol("a", "Equal", "1", "NoSchedule"),), (taint("a", "1", "NoSchedule"), taint("b", "2", "NoSchedule")),
                 untolerated("b", "2"),
                 id="the reported taint is the first one not tolerated, skipping tolerated ones"),
    pytest.param((), (taint("soft", "x", "PreferNoSchedule"), taint("hard", "y", "NoExecute")), untolerated("hard", "y"),
                 id="PreferNoSchedule taints are passed over when looking for the first rejecting taint"),
    pytest.param((), (taint("node-role.kubernetes.io/control-plane", "", "NoSchedule"),),
                 untolerated("node-role.kubernetes.io/control-plane", ""),
                 id="an empty taint value is rendered as {key: } with nothing after the colon and space"),
    pytest.param((tol(operator="Exists"),),
                 (taint("a", "1", "NoSchedule"), taint("b", "2", "NoExecute")), None,
                 id="an Exists toleration with empty key and effect tolerates every taint"),
    pytest.param((tol("a", "Gt", "0", "NoSchedule"),), (taint("a", "1", "NoSchedule"),), untolerated("a", "1"),
                 id="an unknown toleration operator like Gt never matches in 1.34"),
    pytest.param((tol("a", "", "", "NoSchedule"),), (taint("a", "1", "NoSchedule"),), untolerated("a", "1"),
                 id="an empty operator means Equal so an empty toleration value doesn't match a valued taint"),
    pytest.param((tol("evict", "Exists", effect="NoExecute", seconds=0),), (taint("evict", "now", "NoExecute"),), None,
                 id="tolerationSeconds plays no part in scheduling"),
    pytest.param((tol("dedicated", "Exists", effect="NoSchedule"),), (taint("dedicated", "x", "NoExecute"),),
                 untolerated("dedicated", "x"),
                 id="a NoSchedule toleration doesn't tolerate a NoExecute taint"),
]


@pytest.mark.parametrize("tolerations, taints, expected", FILTER_CASES)
def test_filter(tolerations, taints, expected):
    node = make_node("nodeA", taints=taints)
    snap = Snapshot.build(Cluster(nodes=[node]), [])
    pod = make_pod("pod1", tolerations=tuple(tolerations))
    status = filter_node(TaintToleration(None, Handle(snap)), CycleState(), PodInfo.of(pod), snap.by_name["nodeA"])
    assert (None if status is None else (status.code, status.reasons)) == expected


def _scores(tolerations, node_taints: dict[str, tuple]) -> dict[str, int]:
    nodes = [make_node(name, taints=t) for name, t in node_taints.items()]
    snap = Snapshot.build(Cluster(nodes=nodes), [])
    plugin = TaintToleration(None, Handle(snap))
    pod = PodInfo.of(make_pod("pod1", tolerations=tuple(tolerations)))
    state = CycleState()
    infos = [snap.by_name[n] for n in node_taints]
    assert plugin.pre_score(state, pod, infos) is None
    return scores(plugin, state, pod, infos)


PNS = "PreferNoSchedule"

SCORE_CASES = [
    # --- ported from TestTaintTolerationScore ---
    pytest.param((tol("foo", "Equal", "bar", PNS),),
                 {"nodeA": (taint("foo", "bar", PNS),), "nodeB": (taint("foo", "blah", PNS),)},
                 {"nodeA": 100, "nodeB": 0},
                 id="a node whose PreferNoSchedule taints are tolerated scores higher than one with intolerable taints"),
    pytest.param((tol("cpu-type", "Equal", "arm64", PNS), tol("disk-type", "Equal", "ssd", PNS)),
                 {"nodeA": (), "nodeB": (taint("cpu-type", "arm64", PNS),),
                  "nodeC": (taint("cpu-type", "arm64", PNS), taint("disk-type", "ssd", PNS))},
                 {"nodeA": 100, "nodeB": 100, "nodeC": 100},
                 id="the number of tolerated taints doesn't matter: all fully tolerated nodes score 100"),
    pytest.param((tol("foo", "Equal", "bar", PNS),),
                 {"nodeA": (), "nodeB": (taint("cpu-type", "arm64", PNS),),
                  "nodeC": (taint("cpu-type", "arm64", PNS), taint("disk-type", "ssd", PNS))},
                 # raw 0, 1, 2; reversed normalize with max 2: 100 - 100*k div 2
                 {"nodeA": 100, "nodeB": 50, "nodeC": 0},
                 id="the more intolerable PreferNoSchedule taints a node has the lower it scores"),
    pytest.param((tol("cpu-type", "Equal", "arm64", "NoSchedule"), tol("disk-type", "Equal", "ssd", "NoSchedule")),
                 {"nodeA": (), "nodeB": (taint("cpu-type", "arm64", "NoSchedule"),),
                  "nodeC": (taint("cpu-type", "arm64", PNS), taint("disk-type", "ssd", PNS))},
                 {"nodeA": 100, "nodeB": 100, "nodeC": 0},
                 id="only PreferNoSchedule taints and empty-or-PreferNoSchedule tolerations count for scoring"),
    pytest.param((), {"nodeA": (), "nodeB": (taint("cpu-type", "arm64", PNS),)},
                 {"nodeA": 100, "nodeB": 0},
                 id="with no tolerations the untainted node scores 100 and the PreferNoSchedule one 0"),
    # --- reference §6.2 / §6.1 ---
    pytest.param((), {"nodeA": (), "nodeB": ()}, {"nodeA": 100, "nodeB": 100},
                 id="when no node has an intolerable taint every node gets 100 (reversed normalize of max 0)"),
    pytest.param((tol("foo", "Exists"),), {"nodeA": (taint("foo", "x", PNS),), "nodeB": (taint("bar", "x", PNS),)},
                 {"nodeA": 100, "nodeB": 0},
                 id="a toleration with an empty effect counts for PreferNoSchedule scoring"),
    pytest.param((tol("a", "Exists", effect="NoSchedule"),),
                 {"nodeA": (taint("a", "1", PNS),), "nodeB": ()},
                 {"nodeA": 0, "nodeB": 100},
                 id="a NoSchedule toleration doesn't count toward tolerating a PreferNoSchedule taint"),
    pytest.param((), {"n1": (taint("a", "", PNS),),
                      "n2": (taint("a", "", PNS), taint("b", "", PNS), taint("c", "", PNS)),
                      "n3": (taint("x", "", "NoSchedule"),)},
                 # raw 1, 3, 0; max 3: 100 - 100 div 3 = 67, 100 - 100 = 0, 100 - 0 = 100
                 {"n1": 67, "n2": 0, "n3": 100},
                 id="reversed normalization uses integer division: one of three gives 100 - 33 = 67"),
]


@pytest.mark.parametrize("tolerations, node_taints, expected", SCORE_CASES)
def test_score(tolerations, node_taints, expected):
    assert _scores(tolerations, node_taints) == expected


@pytest.mark.parametrize("tolerations, taints, said", [
    # The reason names the first untolerated NoSchedule/NoExecute taint only: the others are said.
    ((), (taint("a", "1", "NoSchedule"), taint("b", "2", "NoExecute")), ["also untolerated: taint {b: 2}:NoExecute"]),
    ((tol("a", "Exists"),), (taint("a", "1", "NoSchedule"), taint("b", "2", "NoSchedule")), []),
    # PreferNoSchedule never rejects; untolerated, it lowers the node's score
    ((), (taint("spot", "true", "PreferNoSchedule"),), ["untolerated PreferNoSchedule taint {spot: true}:PreferNoSchedule "
                                                        "lowers its score"]),
])
def test_explain_node_says_the_taints_beyond_the_reason(tolerations, taints, said):
    snap = Snapshot.build(Cluster(nodes=[make_node("nodeA", taints=taints)]), [])
    plugin = TaintToleration(None, Handle(snap))
    pod = PodInfo.of(make_pod("p", tolerations=tolerations))
    assert plugin.explain_node(CycleState(), pod, snap.by_name["nodeA"]) == said
