"""The preemption part of `explain`: when no potential node is a candidate, why, the nodes
grouped by the dry run's answer (default_preemption.go:SelectVictimsOnNode)."""

from __future__ import annotations

import pytest

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


@pytest.mark.parametrize("decided_by, tied, note", [
    ("fewest victims", [], False),  # a criterion decided: kube-scheduler chooses the same node
    ("tie (smallest node name)", ["a", "b"], True),  # reference 9.7 step 6: Go map order, at random
])
def test_a_preemption_tie_is_said_as_a_random_pick_among_the_tied(decided_by: str, tied: list[str], note: bool) -> None:
    pre = {"potential_nodes": ["a", "b"], "chosen": "a", "decided_by": decided_by, "tied": tied,
           "candidates": [{"node": n, "victims": []} for n in ("a", "b")], "node_results": {}}
    text = " ".join(" ".join(_preemption_lines(pre, 200)).split())
    assert ("2 candidates tie on every criterion (a, b); kube-scheduler picks one at random" in text) is note
