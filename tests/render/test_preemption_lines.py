"""The preemption part of `explain`: when no potential node is a candidate, why, the nodes
grouped by the dry run's answer (default_preemption.go:SelectVictimsOnNode)."""

from __future__ import annotations

from kwhatif.preemption.evaluator import NO_VICTIMS
from kwhatif.render.explain import _preemption_lines


def test_no_candidate_says_why_per_group_of_nodes() -> None:
    pre = {"potential_nodes": ["a", "b", "c"], "candidates": [],
           "node_results": {"a": [NO_VICTIMS], "b": ["Insufficient cpu"], "c": [NO_VICTIMS]}}
    assert _preemption_lines(pre, 120) == [
        "kwhatif: preemption (DefaultPreemption):",
        "  potential nodes (status Unschedulable): 3 (a, b, c)",
        "  candidates (nodes where evictions make room): 0",
        "  why none:",
        "    2 node(s): no pod of lower priority runs there (a, c)",
        "    1 node(s): Insufficient cpu, even with every pod of lower priority evicted (b)",
    ]


def test_a_candidate_needs_no_why() -> None:
    pre = {"potential_nodes": ["a"], "chosen": "a", "decided_by": "only candidate",
           "candidates": [{"node": "a", "victims": []}], "node_results": {}}
    assert "  why none:" not in _preemption_lines(pre, 120)
