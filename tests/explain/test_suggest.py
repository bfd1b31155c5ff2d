"""Suggestions are shown only when a re-run binds the pod; the re-run is the judge."""

from __future__ import annotations

from pathlib import Path

from kwhatif.engine import input_pod, rerun_with, simulate
from kwhatif.explain.pod import explain
from kwhatif.explain.suggest import suggestions
from kwhatif.framework.scheduler import Outcome, PodResult
from kwhatif.load.cluster import load_cluster

CLUSTER = Path(__file__).parents[1] / "cli" / "data" / "cluster"
NOW = "2026-01-01T00:00:00Z"


def _big() -> tuple:
    cluster = load_cluster([str(CLUSTER)])
    sim = simulate(cluster, NOW, explain=frozenset({"default/big"}))
    result = next(r for r in sim.results if r.pod.key == "default/big")
    exp = explain(result, [n.name for n in sim.snapshot.node_infos])
    original = input_pod(cluster, [], "default/big")
    assert original is not None
    return cluster, exp, original


def test_a_change_the_re_run_does_not_bind_is_dropped() -> None:
    _, exp, original = _big()
    still_pending = PodResult(original, Outcome.UNSCHEDULABLE)
    assert suggestions(original, exp, lambda variant: still_pending) == []


def test_the_re_run_sees_the_changed_pod_in_the_same_queue() -> None:
    """1800m -> 1200m: node-b's 1200m free after urgent (placed before big in the queue)."""
    cluster, exp, original = _big()
    [suggestion] = suggestions(original, exp, lambda v: rerun_with(cluster, NOW, [], v, None))
    assert suggestion.summary == "lower container app's cpu request to 1200m (by 600m): it then fits on node-b"
