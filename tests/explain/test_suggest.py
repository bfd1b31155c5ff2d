"""Suggestions are shown only when a re-run binds the pod; the re-run is the judge."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import Pod
from kwhatif.engine import input_pod, rerun_with, simulate
from kwhatif.explain.pod import Explanation, explain
from kwhatif.explain.suggest import suggestions
from kwhatif.framework.scheduler import Outcome, PodResult
from kwhatif.load.cluster import load_cluster
from kwhatif.snapshot.node_info import NodeInfo

CLUSTER = Path(__file__).parents[1] / "cli" / "data" / "cluster"
NOW = "2026-01-01T00:00:00Z"


def _big() -> tuple[Cluster, Explanation, Pod, Callable[[str], NodeInfo]]:
    cluster = load_cluster([str(CLUSTER)])
    sim = simulate(cluster, NOW, explain=frozenset({"default/big"}))
    result = next(r for r in sim.results if r.pod.key == "default/big")
    exp = explain(result, [n.name for n in sim.snapshot.node_infos])
    original = input_pod(cluster, [], "default/big")
    assert original is not None
    return cluster, exp, original, lambda name: sim.snapshot.by_name[name]


def test_a_change_the_re_run_does_not_bind_is_dropped() -> None:
    _, exp, original, node_of = _big()
    still_pending = PodResult(original, Outcome.UNSCHEDULABLE)
    assert suggestions(original, exp, lambda variant: still_pending, node_of) == []


def test_the_re_run_sees_the_changed_pod_in_the_same_queue() -> None:
    """1800m -> 1200m: node-b's 1200m free after urgent (placed before big in the queue); node-c
    is big enough but tainted dedicated=gpu:NoSchedule."""
    cluster, exp, original, node_of = _big()
    made = suggestions(original, exp, lambda v: rerun_with(cluster, NOW, [], v.pod, None, v.nodes, v.removed), node_of,
                       list(cluster.priority_classes.values()))
    assert [s.summary for s in made] == [
        "lower container app's cpu request to 1200m (by 600m): it then fits on node-b",
        "tolerate the taint dedicated=gpu:NoSchedule: it then may land on node-c",
        "add 2 node(s) like node-a: the pod then fits",
        "give the pod priorityClassName high (1000): preemption then makes room on node-a, evicting default/bound-a",
    ]
