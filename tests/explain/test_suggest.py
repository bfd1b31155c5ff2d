"""Suggestions are shown only when a re-run binds the pod; the re-run is the judge."""

from __future__ import annotations

from pathlib import Path

from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import ContainerPort, DaemonSet, Pod
from kwhatif.engine import input_pod, rerun_with, simulate
from kwhatif.explain.run import explain_pod
from kwhatif.explain.pod import AttemptExplanation, Explanation, NodeVerdict, explain
from kwhatif.explain.suggest import Size, Variant, suggestions
from kwhatif.explain.suggest.nodes import CORDON_TAINT
from kwhatif.framework.scheduler import Outcome, PodResult
from kwhatif.load.cluster import load_cluster
from kwhatif.plugins.node_affinity import ERR_REASON_POD
from kwhatif.snapshot.snapshot import Snapshot
from tests.builders import make_container, make_node, make_pod, make_taint

CLUSTER = Path(__file__).parents[1] / "cli" / "data" / "cluster"
NOW = "2026-01-01T00:00:00Z"


def _big() -> tuple[Cluster, Explanation, Pod, Snapshot]:
    cluster = load_cluster([str(CLUSTER)])
    sim = simulate(cluster, NOW, explain=frozenset({"default/big"}))
    result = next(r for r in sim.results if r.pod.key == "default/big")
    exp = explain(result, [n.name for n in sim.snapshot.node_infos])
    original = input_pod(cluster, [], "default/big")
    assert original is not None
    return cluster, exp, original, sim.snapshot


def test_a_change_the_re_run_does_not_bind_is_dropped() -> None:
    _, exp, original, snapshot = _big()
    still_pending = PodResult(original, Outcome.UNSCHEDULABLE)
    assert suggestions(original, exp, lambda variant: still_pending, snapshot) == []


def test_the_re_run_sees_the_changed_pod_in_the_same_queue() -> None:
    """1800m -> 1200m: node-b's 1200m free after urgent (placed before big in the queue); node-c
    is big enough but tainted dedicated=gpu:NoSchedule."""
    cluster, exp, original, snapshot = _big()
    made = suggestions(original, exp, lambda v: rerun_with(cluster, NOW, [], v.pod, None, v.nodes, v.removed), snapshot,
                       list(cluster.priority_classes.values()))
    assert [s.summary for s in made] == [
        "lower container app's cpu request to 1200m (by 600m): it then fits on node-b",
        "tolerate the taint dedicated=gpu:NoSchedule: it then may land on node-c",
        "add 2 node(s) like node-a: the pod then fits",
        "give the pod priorityClassName high (1000): preemption then makes room on node-a, evicting default/bound-a",
    ]


def test_suggestions_are_ranked_by_the_size_of_the_change_and_cut_at_five() -> None:
    """One node per family, every re-run binding. Pod fields first (lower the request, tolerate the
    taint, drop the nodeSelector entry: one operation each, in family order), then one node
    (labelling nearest: one operation; uncordon: two, its flag and its taint), which makes five:
    deleting the host-port holder and adding nodes are left out, and the add-node search never
    re-runs (the five verifications are all the re-runs)."""
    port = (ContainerPort(80, host_port=8080),)
    pod = make_pod("p", node_selector={"tier": "gold"}, containers=[make_container("c", cpu="1", ports=port)])
    holder = make_pod("agent", node_name="n-port", containers=[make_container("a", ports=port)])
    nodes = [make_node("n-fit"), make_node("n-taint", taints=(make_taint("dedicated", "gpu"),)), make_node("n-aff"),
             make_node("n-cordon", unschedulable=True, taints=(make_taint(CORDON_TAINT),)), make_node("n-port")]
    snapshot = Snapshot.build(Cluster(nodes=nodes), [holder])
    verdicts = [NodeVerdict("n-fit", False, "NodeResourcesFit", "Unschedulable", ["Insufficient cpu"],
                            measures={"cpu": 500}),
                NodeVerdict("n-taint", False, "TaintToleration", "UnschedulableAndUnresolvable", ["taint"]),
                NodeVerdict("n-aff", False, "NodeAffinity", "UnschedulableAndUnresolvable", [ERR_REASON_POD]),
                NodeVerdict("n-cordon", False, "NodeUnschedulable", "UnschedulableAndUnresolvable", ["cordon"],
                            also_fails={"TaintToleration": ["taint"]}),
                NodeVerdict("n-port", False, "NodePorts", "Unschedulable", ["ports"])]
    exp = Explanation("default/p", Outcome.UNSCHEDULABLE, None, "0/5 nodes are available", [],
                      [AttemptExplanation(Outcome.UNSCHEDULABLE, None, None, [], verdicts, False)], None)
    reruns: list[Variant] = []

    def binds(variant: Variant) -> PodResult:
        reruns.append(variant)
        return PodResult(variant.pod, Outcome.BOUND)

    made = suggestions(pod, exp, binds, snapshot)
    assert [s.summary.split(" ")[0] for s in made] == ["lower", "tolerate", "change", "label", "uncordon"]
    assert [s.size for s in made] == [Size.POD_FIELD] * 3 + [Size.ONE_NODE] * 2
    assert len(reruns) == 5


def test_added_nodes_are_tried_with_the_pods_of_the_daemonsets() -> None:
    """A system-node-critical DaemonSet taking 500m on each node: a node like node-a (2 cpu) joins
    with 1500m left, short of big's 1800m, whatever the number added — no add-node suggestion.
    Without the DaemonSet, two such nodes fit big (test above). The other fixes stand."""
    cluster = load_cluster([str(CLUSTER)])
    template = {"metadata": {"labels": {"app": "agent"}},
                "spec": {"priorityClassName": "system-node-critical",
                         "containers": [{"name": "agent", "image": "agent:1", "resources": {"requests": {"cpu": "500m"}}}]}}
    manifest = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "kube-system"},
                "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": template}}
    cluster.daemonsets[("kube-system", "agent")] = DaemonSet("kube-system", "agent", manifest)
    explained = explain_pod(cluster, NOW, "default/big", [], None)
    assert explained is not None
    summaries = [s.summary for s in explained.explanation.suggestions]
    assert "lower container app's cpu request to 1200m (by 600m): it then fits on node-b" in summaries
    assert not any(s.startswith("add ") for s in summaries)
