"""Required node affinity: which node is nearest, how each failing expression is met by a label,
and how the pod's own term is widened instead (kwhatif/explain/suggest/nodes.py)."""

from __future__ import annotations

from typing import Any

import pytest

from kwhatif.api.affinity import Affinity, NodeAffinity, NodeSelector, NodeSelectorTerm
from kwhatif.api.objects import Node, Pod
from kwhatif.api.selectors import Requirement
from kwhatif.explain.pod import NodeVerdict
from kwhatif.explain.suggest.nodes import REQUIRED, affinity_fixes
from kwhatif.plugins.node_affinity import ERR_REASON_ENFORCED, ERR_REASON_POD
from kwhatif.snapshot.node_info import NodeInfo
from tests.builders import make_node, make_pod

TERMS = f"{REQUIRED}/nodeSelectorTerms"


def _pod(*terms: tuple[Requirement, ...], selector: dict[str, str] | None = None) -> Pod:
    required = NodeSelector(tuple(NodeSelectorTerm(t) for t in terms))
    return make_pod("p", cpu="1", node_selector=selector,
                    affinity=Affinity(node_affinity=NodeAffinity(required=required)) if terms else None)


def _rejected(node: str, reason: str = ERR_REASON_POD) -> NodeVerdict:
    return NodeVerdict(node, False, "NodeAffinity", "UnschedulableAndUnresolvable", [reason])


def _fixes(pod: Pod, nodes: list[Node], verdicts: list[NodeVerdict]) -> list[tuple[str, list[dict[str, Any]], Any]]:
    infos = {n.name: NodeInfo.of(n) for n in nodes}
    return [(s.summary, s.changes, variant) for s, variant in affinity_fixes(pod, verdicts, lambda name: infos[name])]


def test_exists_takes_the_smallest_value_seen_and_dropping_the_only_expression_drops_the_rule() -> None:
    """x lacks gpu; y (t4) and z (a100) carry it but are rejected for other reasons: the smallest
    value seen, a100, is given. Dropping `gpu Exists` would leave the only term empty (an empty
    term matches nothing), so the whole required node affinity goes."""
    pod = _pod((Requirement("gpu", "Exists"),))
    nodes = [make_node("x"), make_node("y", labels={"gpu": "t4"}), make_node("z", labels={"gpu": "a100"})]
    verdicts = [_rejected("x"), NodeVerdict("y", False, "TaintToleration"), NodeVerdict("z", False, "NodePorts")]
    (_, widen, pod_variant), (label_summary, label, node_variant) = _fixes(pod, nodes, verdicts)
    assert widen == [{"op": "patch", "target": {"kind": "Pod", "namespace": "default", "name": "p"},
                      "patch": [{"op": "remove", "path": REQUIRED}]}]
    assert pod_variant.pod.affinity.node_affinity.required is None
    assert label == [{"op": "patch", "target": {"kind": "Node", "namespace": None, "name": "x"},
                      "patch": [{"op": "add", "path": "/metadata/labels/gpu", "value": "a100"}]}]
    assert node_variant.nodes[0].labels == {"gpu": "a100"}
    assert label_summary == "label x gpu=a100 (kubectl label node x gpu=a100)"


def test_gt_and_lt_get_the_nearest_integer_that_passes() -> None:
    """cores Gt 8 -> 9; memory-gb Lt 64 -> 63 (strictly greater / smaller, as Requirement.matches),
    on a node that has neither label."""
    pod = _pod((Requirement("cores", "Gt", ("8",)), Requirement("memory-gb", "Lt", ("64",))))
    nodes = [make_node("n")]
    label = _fixes(pod, nodes, [_rejected("n")])[-1][1]
    assert label[0]["patch"] == [{"op": "add", "path": "/metadata/labels/cores", "value": "9"},
                                 {"op": "add", "path": "/metadata/labels/memory-gb", "value": "63"}]
    # Neither is an In the node's value could widen: both are dropped, the term is then empty and
    # the only one, so the requirement goes.
    assert _fixes(pod, nodes, [_rejected("n")])[0][1][0]["patch"] == [{"op": "remove", "path": REQUIRED}]


def test_the_term_missing_fewest_expressions_on_the_nearest_node_is_widened() -> None:
    """Term 0 fails twice on n (zone, disk); term 1 once (tier silver not In [gold]): term 1's In
    list takes silver, term 0 is left alone."""
    pod = _pod((Requirement("zone", "In", ("a",)), Requirement("disk", "In", ("ssd",))),
               (Requirement("tier", "In", ("gold",)),))
    nodes = [make_node("n", labels={"zone": "b", "tier": "silver"})]
    [(summary, widen, variant)] = _fixes(pod, nodes, [_rejected("n")])
    assert widen[0]["patch"] == [{"op": "add", "path": f"{TERMS}/1/matchExpressions/0/values/-", "value": "silver"}]
    assert summary == "change the pod's node rule so n matches: silver added to tier In"
    assert variant.pod.affinity.node_affinity.required.matches({"zone": "b", "tier": "silver"}, "n")
    # No label: each term needs a label n has changed (tier silver -> gold, zone b -> a).


def test_an_empty_term_beside_others_gets_no_pod_change_only_a_label() -> None:
    """The nearest term (1: one DoesNotExist) would be left empty while term 0 exists: dropping
    its expression makes it match nothing, so no pod change; n lacks zone and disk, so term 0 is
    met by adding both (removing its spot label is never suggested)."""
    pod = _pod((Requirement("zone", "In", ("a",)), Requirement("disk", "In", ("ssd",))),
               (Requirement("spot", "DoesNotExist"),))
    fixes = _fixes(pod, [make_node("n", labels={"spot": "true"})], [_rejected("n")])
    assert [changes[0]["patch"] for _, changes, _ in fixes] == [[
        {"op": "add", "path": "/metadata/labels/disk", "value": "ssd"},
        {"op": "add", "path": "/metadata/labels/zone", "value": "a"}]]


@pytest.mark.parametrize("verdicts, expected", [
    pytest.param([_rejected("b"), _rejected("a")], "a", id="equal misses go to the smaller name"),
    pytest.param([_rejected("a"), _rejected("c")], "c", id="the node missing fewer labels wins"),
    pytest.param([_rejected("a", ERR_REASON_ENFORCED), _rejected("b")], "b",
                 id="a node only the scheduler-enforced affinity rejects is not the pod's to fix"),
    pytest.param([NodeVerdict("c", False, "NodeAffinity", "", [ERR_REASON_POD], also_fails={"NodePorts": ["x"]}),
                  _rejected("b")], "b", id="a node another filter rejects too is not nearest"),
])
def test_the_nearest_node_is_labelled(verdicts: list[NodeVerdict], expected: str) -> None:
    """nodeSelector tier=gold, zone=a: a and b have neither (two misses), c has zone=a."""
    pod = _pod(selector={"tier": "gold", "zone": "a"})
    nodes = [make_node("a"), make_node("b"), make_node("c", labels={"zone": "a"})]
    label = _fixes(pod, nodes, verdicts)[-1][1][0]
    assert label["target"]["name"] == expected


def test_a_selector_entry_takes_the_nodes_value_when_it_has_the_key() -> None:
    pod = _pod(selector={"tier": "gold"})
    summary, widen, variant = _fixes(pod, [make_node("n", labels={"tier": "silver"})], [_rejected("n")])[0]
    assert widen[0]["patch"] == [{"op": "replace", "path": "/spec/nodeSelector/tier", "value": "silver"}]
    assert variant.pod.node_selector == {"tier": "silver"}
    assert summary == "change the pod's node rule so n matches: nodeSelector tier=silver"


@pytest.mark.parametrize("key", ["topology.kubernetes.io/zone", "kubernetes.io/hostname",
                                 "node.kubernetes.io/instance-type", "node-role.kubernetes.io/control-plane",
                                 "karpenter.sh/capacity-type", "sandbox.gke.io/runtime", "nvidia.com/gpu.product",
                                 "eks.amazonaws.com/nodegroup", "cloud.google.com/gke-nodepool",
                                 "kubernetes.azure.com/agentpool", "feature.node.kubernetes.io/cpu-model.family",
                                 "topology.ebs.csi.aws.com/zone"])
def test_what_the_machine_is_is_never_relabelled(key: str) -> None:
    """The kubelet, the cloud, node provisioners and hardware discovery set these: labelling a
    node of zone c as zone a, a spot node as on-demand, a T4 as an A100 or a worker as the control
    plane would only make the scheduler believe a lie. The pod's rule may change; the node's label
    is not suggested."""
    pod = _pod(selector={key: "wanted"})
    fixes = _fixes(pod, [make_node("n", labels={key: "actual"})], [_rejected("n")])
    assert [summary for summary, _, _ in fixes] == [f"change the pod's node rule so n matches: nodeSelector {key}=actual"]


@pytest.mark.parametrize("key", ["kubernetes.io/os", "kubernetes.io/arch", "beta.kubernetes.io/arch"])
def test_a_pods_os_or_architecture_is_never_changed(key: str) -> None:
    """A Windows pod's images do not start on Linux, an arm64 build not on amd64: neither the
    pod's rule nor the node's label is suggested."""
    pod = _pod(selector={key: "wanted"})
    assert _fixes(pod, [make_node("n", labels={key: "actual"})], [_rejected("n")]) == []


def test_a_label_of_its_own_is_suggested_for_a_node_that_lacks_it() -> None:
    pod = _pod(selector={"example.com/disk": "ssd"})
    fixes = _fixes(pod, [make_node("n")], [_rejected("n")])
    assert [summary.split(":")[0] for summary, _, _ in fixes][-1] == \
        "label n example.com/disk=ssd (kubectl label node n example.com/disk=ssd)"


def test_a_label_the_node_has_is_never_overwritten() -> None:
    """n's example.com/disk is hdd: rewriting it to ssd would strand the pods whose rules need
    hdd there and lie about the disk; only the pod's rule may change."""
    pod = _pod(selector={"example.com/disk": "ssd"})
    fixes = _fixes(pod, [make_node("n", labels={"example.com/disk": "hdd"})], [_rejected("n")])
    assert [summary.split(":")[0] for summary, _, _ in fixes] == ["change the pod's node rule so n matches"]


def test_a_term_the_selectors_label_satisfies_needs_no_other_label() -> None:
    """nodeSelector disk=ssd; terms (ORed) zone NotIn [x] and disk In [ssd]; n has zone=x and no
    disk. Labelling n disk=ssd meets the selector and term 1 at once: nothing else changes (term
    0 would need zone removed, which is never suggested)."""
    pod = _pod((Requirement("zone", "NotIn", ("x",)),), (Requirement("disk", "In", ("ssd",)),),
               selector={"disk": "ssd"})
    (summary, label, variant) = _fixes(pod, [make_node("n", labels={"zone": "x"})], [_rejected("n")])[-1]
    assert summary == "label n disk=ssd (kubectl label node n disk=ssd)"
    assert label[0]["patch"] == [{"op": "add", "path": "/metadata/labels/disk", "value": "ssd"}]
    assert variant.nodes[0].labels == {"disk": "ssd", "zone": "x"}
