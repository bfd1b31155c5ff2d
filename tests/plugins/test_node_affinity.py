"""NodeAffinity: PreFilter node-name sets, Filter (reference §5.4) and Score (§6.3, §6.1).

Filter/PreFilter cases are ported from kubernetes `nodeaffinity/node_affinity_test.go`
(TestNodeAffinity) and score cases from TestNodeAffinityPriority; the rest is worked from §5.4.

Terms are built as the manifest loader builds them: a term whose matchExpressions do not parse
as a label selector (invalid value, non-integer Gt/Lt) is marked invalid and never matches.
"""

from __future__ import annotations

import pytest

from kwhatif.api.affinity import (
    Affinity, NodeAffinity as NodeAffinitySpec, NodeSelector, NodeSelectorTerm, PreferredSchedulingTerm,
)
from kwhatif.api.selectors import Requirement
from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.status import Code
from kwhatif.plugins.node_affinity import NodeAffinity
from kwhatif.api.cluster import Cluster
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot
from tests.builders import Handle, make_node, make_pod
from tests.plugins.harness import filter_node, score_nodes, scores

REASON = "node(s) didn't match Pod's node affinity/selector"
CONFLICT = "pod affinity terms conflict"
UU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
REJECTED = (UU, (REASON,))
SKIP = "skip"


def req(key: str, op: str, *values: str) -> Requirement:
    return Requirement(key, op, tuple(values))


def name_in(*names: str) -> Requirement:
    return Requirement("metadata.name", "In", tuple(names))


def term(*exprs: Requirement, fields: tuple[Requirement, ...] = ()) -> NodeSelectorTerm:
    return NodeSelectorTerm(tuple(exprs), tuple(fields), valid=all(r.parses_as_label_selector for r in exprs))


def required(*terms: NodeSelectorTerm) -> Affinity:
    return Affinity(node_affinity=NodeAffinitySpec(required=NodeSelector(tuple(terms))))


def preferred(*weighted: tuple[int, NodeSelectorTerm]) -> Affinity:
    return Affinity(node_affinity=NodeAffinitySpec(
        preferred=tuple(PreferredSchedulingTerm(w, t) for w, t in weighted)))


FILTER_CASES = [
    # (pod kwargs, node labels, node name, expected prefilter, expected filter)
    # expected prefilter: SKIP, None (success, all nodes), frozenset (node set) or (code, message)
    pytest.param(dict(node_selector={"foo": "bar"}), {}, "node1", None, REJECTED,
                 id="a nodeSelector key missing from the node's labels rejects"),
    pytest.param(dict(node_selector={"foo": "bar"}), {"foo": "bar"}, "node1", None, None,
                 id="a node with the same labels as the nodeSelector fits"),
    pytest.param(dict(node_selector={"foo": "bar"}), {"foo": "bar", "baz": "blah"}, "node1", None, None,
                 id="node labels that are a superset of the nodeSelector fit"),
    pytest.param(dict(node_selector={"foo": "bar", "baz": "blah"}), {"foo": "bar"}, "node1", None, REJECTED,
                 id="node labels that are a subset of the nodeSelector don't fit"),
    pytest.param(dict(affinity=required(term(req("foo", "In", "bar", "value2")))), {"foo": "bar"}, "node1", None, None,
                 id="a required In expression matching the node's label fits"),
    pytest.param(dict(affinity=required(term(req("kernel-version", "Gt", "0204")))), {"kernel-version": "0206"},
                 "node1", None, None,
                 id="a Gt expression compares base-10 integers (0206 > 0204)"),
    pytest.param(dict(affinity=required(term(req("mem-type", "NotIn", "DDR", "DDR2")))), {"mem-type": "DDR3"},
                 "node1", None, None,
                 id="a NotIn expression matches a node whose value is not listed"),
    pytest.param(dict(affinity=required(term(req("GPU", "Exists")))), {"GPU": "NVIDIA-GRID-K1"}, "node1", None, None,
                 id="an Exists expression matches a node that has the label"),
    pytest.param(dict(affinity=required(term(req("foo", "In", "value1", "value2")))), {"foo": "bar"}, "node1",
                 None, REJECTED,
                 id="a required term that doesn't match the node's labels rejects"),
    pytest.param(dict(affinity=required(term())), {"foo": "bar"}, "node1", None, REJECTED,
                 id="a term with empty matchExpressions matches nothing"),
    pytest.param(dict(), {"foo": "bar"}, "node1", SKIP, None,
                 id="a pod without affinity or nodeSelector makes PreFilter skip"),
    pytest.param(dict(affinity=Affinity(node_affinity=NodeAffinitySpec(required=None))), {"foo": "bar"}, "node1",
                 SKIP, None,
                 id="a pod with node affinity but a nil required selector makes PreFilter skip"),
    pytest.param(dict(affinity=required(term(req("GPU", "Exists"), req("GPU", "NotIn", "AMD", "INTER")))),
                 {"GPU": "NVIDIA-GRID-K1"}, "node1", None, None,
                 id="the expressions of one term are ANDed and all match"),
    pytest.param(dict(affinity=required(term(req("GPU", "Exists"), req("GPU", "In", "AMD", "INTER")))),
                 {"GPU": "NVIDIA-GRID-K1"}, "node1", None, REJECTED,
                 id="the expressions of one term are ANDed and one fails"),
    pytest.param(dict(affinity=required(term(req("foo", "In", "bar", "value2")),
                                        term(req("diffkey", "In", "wrong", "value2")))),
                 {"foo": "bar"}, "node1", None, None,
                 id="several terms are ORed and one matching is enough"),
    pytest.param(dict(node_selector={"foo": "bar"}, affinity=required(term(req("foo", "Exists")))),
                 {"foo": "bar"}, "node1", None, None,
                 id="both nodeSelector and required affinity satisfied fits"),
    pytest.param(dict(node_selector={"foo": "bar"}, affinity=required(term(req("foo", "Exists")))),
                 {"foo": "barrrrrr"}, "node1", None, REJECTED,
                 id="affinity satisfied but nodeSelector not rejects"),
    pytest.param(dict(affinity=required(term(req("foo", "NotIn", "invalid value: ___@#$%^")))), {"foo": "bar"},
                 "node1", None, REJECTED,
                 id="a term with an invalid label value never matches"),
    pytest.param(dict(affinity=required(term(fields=(name_in("node1"),)))), {}, "node1", frozenset({"node1"}), None,
                 id="matchFields metadata.name In node1 restricts PreFilter to node1 and fits node1"),
    pytest.param(dict(affinity=required(term(fields=(name_in("node1"),)))), {}, "node2", frozenset({"node1"}),
                 REJECTED,
                 id="matchFields metadata.name In node1 rejects node2"),
    pytest.param(dict(affinity=required(term(fields=(name_in("node1"), name_in("node2"))),
                                        term(req("foo", "In", "bar")))),
                 {"foo": "bar"}, "node2", None, None,
                 id="a term without a name field lifts the PreFilter restriction and matches by labels"),
    pytest.param(dict(affinity=required(term(req("foo", "In", "bar"), fields=(name_in("node1"),)))),
                 {"foo": "bar"}, "node2", frozenset({"node1"}), REJECTED,
                 id="in one term both the name field and the expressions must match"),
    # --- reference §5.4 ---
    pytest.param(dict(affinity=required(term(fields=(name_in("node1"),)), term(fields=(name_in("node2"),)))),
                 {}, "node2", frozenset({"node1", "node2"}), None,
                 id="the PreFilter node set is the union of the terms' name sets"),
    pytest.param(dict(affinity=required(term(fields=(name_in("node2"), name_in("node2"))))),
                 {}, "node2", frozenset({"node2"}), None,
                 id="name requirements within one term are intersected"),
    pytest.param(dict(affinity=required(term(fields=(name_in("node1"), name_in("node2"))))), {}, "node1",
                 (UU, CONFLICT), REJECTED,
                 id="when every term's name set is empty PreFilter fails with pod affinity terms conflict"),
    pytest.param(dict(affinity=required(term(fields=(Requirement("metadata.name", "NotIn", ("node1",)),)))),
                 {}, "node2", None, None,
                 id="a metadata.name NotIn field does not restrict PreFilter and matches other nodes"),
    pytest.param(dict(affinity=required(term(fields=(Requirement("metadata.name", "NotIn", ("node1",)),)))),
                 {}, "node1", None, REJECTED,
                 id="a metadata.name NotIn field rejects the named node"),
    pytest.param(dict(affinity=required()), {"foo": "bar"}, "node1", None, REJECTED,
                 id="a required selector with no terms passes PreFilter but matches no node"),
    pytest.param(dict(node_selector={}), {"foo": "bar"}, "node1", None, None,
                 id="an empty but non-null nodeSelector does not skip and matches every node"),
    pytest.param(dict(affinity=required(term(req("n", "Gt", "abc")), term(req("foo", "In", "bar")))),
                 {"n": "5", "foo": "bar"}, "node1", None, None,
                 id="an invalid term never matches but the other terms are still evaluated"),
    pytest.param(dict(affinity=required(term(req("n", "Gt", "4")))), {"n": "five"}, "node1", None, REJECTED,
                 id="Gt doesn't match when the node label is not an integer"),
    pytest.param(dict(affinity=required(term(req("n", "Lt", "4")))), {"n": "3"}, "node1", None, None,
                 id="Lt matches a smaller integer label"),
    pytest.param(dict(affinity=required(term(req("n", "Lt", "4")))), {}, "node1", None, REJECTED,
                 id="Lt doesn't match a node without the label"),
    pytest.param(dict(affinity=required(term(req("n", "Gt", "1", "2")))), {"n": "3"}, "node1", None, REJECTED,
                 id="Gt with more than one value never matches"),
    pytest.param(dict(affinity=required(term(req("zone", "DoesNotExist")))), {"foo": "bar"}, "node1", None, None,
                 id="DoesNotExist matches a node without the label"),
    pytest.param(dict(affinity=required(term(req("foo", "NotIn", "bar")))), {}, "node1", None, None,
                 id="NotIn matches a node that lacks the label"),
]


@pytest.mark.parametrize("pod_kw, labels, node_name, want_pre, want_filter", FILTER_CASES)
def test_pre_filter_and_filter(pod_kw, labels, node_name, want_pre, want_filter):
    nodes = [make_node(node_name, labels=labels)]
    snap = Snapshot.build(Cluster(nodes=nodes), [])
    plugin = NodeAffinity(None, Handle(snap))
    pod = PodInfo.of(make_pod("p", **pod_kw))
    state = CycleState()
    result, status = plugin.pre_filter(state, pod, snap.node_infos)
    if want_pre == SKIP:
        assert status is not None and status.code == Code.SKIP
    elif isinstance(want_pre, tuple):
        assert (status.code, status.message) == want_pre
    else:
        assert status is None or status.code == Code.SUCCESS
        got_names = None if result is None else result.node_names
        assert got_names == want_pre
    status = filter_node(plugin, state, pod, snap.by_name[node_name])
    assert (None if status is None else (status.code, status.reasons)) == want_filter


LABEL1 = {"foo": "bar"}
LABEL2 = {"key": "value"}
LABEL3 = {"az": "az1"}
LABEL4 = {"abc": "az11", "def": "az22"}
LABEL5 = {"foo": "bar", "key": "value", "az": "az1"}

AFFINITY1 = preferred((2, term(req("foo", "In", "bar"))))
AFFINITY2 = preferred((2, term(req("foo", "In", "bar"))),
                      (4, term(req("key", "In", "value"))),
                      (5, term(req("foo", "In", "bar"), req("key", "In", "value"), req("az", "In", "az1"))))

SCORE_CASES = [
    # --- ported from TestNodeAffinityPriority ---
    pytest.param(dict(affinity=AFFINITY1), {"node1": LABEL1, "node2": LABEL4, "node3": LABEL2},
                 {"node1": 100, "node2": 0, "node3": 0},
                 id="only the node matching the preferred term gets 100"),
    pytest.param(dict(affinity=preferred((2, term(req("foo", "In", "bar"))))),
                 {"node1": LABEL4, "node2": LABEL3, "node3": LABEL2},
                 {"node1": 0, "node2": 0, "node3": 0},
                 id="no node matching any preferred term leaves every score at 0"),
    pytest.param(dict(affinity=AFFINITY2), {"node1": LABEL1, "node5": LABEL5, "node2": LABEL2},
                 # raw 2, 11, 4; max 11 → 200 div 11 = 18, 100, 400 div 11 = 36
                 {"node1": 18, "node5": 100, "node2": 36},
                 id="matching nodes are scored by the sum of the weights of the terms they match"),
    # --- reference §6.3 ---
    pytest.param(dict(affinity=preferred((0, term(req("foo", "In", "bar"))), (3, term(req("key", "In", "value"))))),
                 {"node1": LABEL1, "node2": LABEL2},
                 {"node1": 0, "node2": 100},
                 id="a preferred term with weight 0 is ignored"),
    pytest.param(dict(affinity=preferred((7, term()), (3, term(req("key", "In", "value"))))),
                 {"node1": LABEL1, "node2": LABEL2},
                 {"node1": 0, "node2": 100},
                 id="a preferred term with no expressions and no fields is ignored"),
    pytest.param(dict(affinity=preferred((10, term(fields=(name_in("node2"),))))),
                 {"node1": {}, "node2": {}},
                 {"node1": 0, "node2": 100},
                 id="a preferred term may select by metadata.name field"),
    pytest.param(dict(affinity=preferred((1, term(req("a", "Exists"))), (2, term(req("b", "Exists"))))),
                 {"n1": {"a": "1"}, "n2": {"b": "1"}, "n3": {"a": "1", "b": "1"}},
                 # raw 1, 2, 3; max 3 → 100 div 3 = 33, 200 div 3 = 66, 100
                 {"n1": 33, "n2": 66, "n3": 100},
                 id="normalization is 100 times raw divided by the maximum with integer division"),
    pytest.param(dict(affinity=preferred()), {"n1": LABEL1, "n2": {}}, {"n1": 0, "n2": 0},
                 id="an empty but non-null preferred list does not skip and scores 0 everywhere"),
]


@pytest.mark.parametrize("pod_kw, node_labels, expected", SCORE_CASES)
def test_score(pod_kw, node_labels, expected):
    nodes = [make_node(n, labels=lbl) for n, lbl in node_labels.items()]
    snap = Snapshot.build(Cluster(nodes=nodes), [])
    plugin = NodeAffinity(None, Handle(snap))
    pod = PodInfo.of(make_pod("p", **pod_kw))
    state = CycleState()
    infos = [snap.by_name[n] for n in node_labels]
    assert plugin.pre_score(state, pod, infos) is None
    assert scores(plugin, state, pod, infos) == expected


@pytest.mark.parametrize("pod_kw", [
    pytest.param(dict(), id="a pod without affinity skips NodeAffinity scoring"),
    pytest.param(dict(affinity=required(term(req("foo", "Exists")))),
                 id="a pod with only required node affinity skips NodeAffinity scoring"),
    pytest.param(dict(node_selector={"foo": "bar"}), id="a pod with only a nodeSelector skips NodeAffinity scoring"),
])
def test_pre_score_skips_without_preferred_terms(pod_kw):
    snap = Snapshot.build(Cluster(nodes=[make_node("n1")]), [])
    status = NodeAffinity(None, Handle(snap)).pre_score(CycleState(), PodInfo.of(make_pod("p", **pod_kw)),
                                                        snap.node_infos)
    assert status is not None and status.code == Code.SKIP


@pytest.mark.parametrize("pod_kw", [
    pytest.param(dict(affinity=preferred((5, term(req("foo", "NotIn", "invalid value: ___@#$%^"))))),
                 id="a preferred term with an invalid label value makes PreScore fail"),
    pytest.param(dict(affinity=preferred((5, term(req("foo", "In", "bar"))), (3, term(req("n", "Gt", "abc"))))),
                 id="a preferred Gt term with a non-integer value makes PreScore fail even next to valid terms"),
])
def test_pre_score_fails_when_a_preferred_term_does_not_parse(pod_kw):
    """§6.3: "If any preferred term fails to parse, PreScore fails and the attempt is a scheduling
    error" (kube-scheduler's NewPreferredSchedulingTerms returns the parse error)."""
    snap = Snapshot.build(Cluster(nodes=[make_node("n1", labels={"foo": "bar"})]), [])
    status = NodeAffinity(None, Handle(snap)).pre_score(CycleState(), PodInfo.of(make_pod("p", **pod_kw)),
                                                        snap.node_infos)
    assert status is not None and status.code == Code.ERROR


def test_an_invalid_preferred_term_with_weight_zero_is_ignored_rather_than_failing():
    """§6.3: terms with weight 0 are ignored, so their parse errors do not count."""
    snap = Snapshot.build(Cluster(nodes=[make_node("n1", labels={"foo": "bar"})]), [])
    pod = make_pod("p", affinity=preferred((0, term(req("foo", "NotIn", "invalid value: ___@#$%^"))),
                                           (4, term(req("foo", "In", "bar")))))
    plugin = NodeAffinity(None, Handle(snap))
    state = CycleState()
    info = PodInfo.of(pod)
    assert plugin.pre_score(state, info, snap.node_infos) is None
    assert score_nodes(plugin, state, info, [snap.by_name["n1"]]) == {"n1": 4}


@pytest.mark.parametrize("pod_kw, labels, said", [
    # kwhatif's insight: each requirement the node misses, in words every node missing it shares.
    (dict(node_selector={"disktype": "nvme", "pool": "highmem"}), {"pool": "highmem"},
     ["nodeSelector disktype=nvme not matched"]),
    (dict(node_selector={"disktype": "nvme", "pool": "highmem"}), {"disktype": "ssd"},
     ["nodeSelector disktype=nvme not matched", "nodeSelector pool=highmem not matched"]),
    # one term: the expression the node misses (the second, zone, matches)
    (dict(affinity=required(term(req("gpu", "Exists"), req("zone", "In", "a", "b")))), {"zone": "a"},
     ["required node affinity: gpu Exists not matched"]),
    # one term, two expressions missed: both named (fixing only the zone would leave the pod pending)
    (dict(affinity=required(term(req("zone", "In", "a"), req("disk", "In", "ssd")))), {"zone": "b"},
     ["required node affinity: zone In [a] not matched", "required node affinity: disk In [ssd] not matched"]),
    # two terms (ORed): each term's miss, numbered
    (dict(affinity=required(term(req("zone", "In", "a")), term(req("zone", "In", "b"), req("ssd", "Exists")))),
     {"zone": "b"},
     ["required node affinity term 0: zone In [a] not matched",
      "required node affinity term 1: ssd Exists not matched"]),
    (dict(affinity=required(term(req("foo", "In", "a b")))), {"foo": "a b"},
     ["required node affinity: a requirement is malformed, so the term matches no node"]),
    # a node that matches says nothing
    (dict(node_selector={"pool": "highmem"}), {"pool": "highmem"}, []),
])
def test_explain_node_names_each_missed_requirement(pod_kw, labels, said):
    snap = Snapshot.build(Cluster(nodes=[make_node("n1", labels=labels)]), [])
    plugin = NodeAffinity(None, Handle(snap))
    assert plugin.explain_node(CycleState(), PodInfo.of(make_pod("p", **pod_kw)), snap.by_name["n1"]) == said
