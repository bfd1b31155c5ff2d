"""What a difference between a pod's two records is called (kwhatif.diff.classify)."""

from __future__ import annotations

from typing import Any

import pytest

from kwhatif.diff import EVICTED, RUNNING, PodChange, changed_pods, classify


def rec(outcome: str, node: str | None = None, message: str | None = None, score: int | None = None) -> dict[str, Any]:
    return {"outcome": outcome, "node": node, "message": message, "score": score}


MSG = "0/2 nodes are available: 2 Insufficient cpu."


@pytest.mark.parametrize("old, new, expected", [
    (rec(RUNNING, "n1"), None, PodChange("p", "evicted", "n1", None, "removed by --drain n1")),
    (None, rec("bound", "n2", score=180), PodChange("p", "placed", None, "n2", "not in the before scenario: n2 (score 180)")),
    (None, rec("unschedulable", message=MSG), PodChange("p", "becomes pending", None, "pending",
                                                         f"not in the before scenario: {MSG}")),
    (rec(RUNNING, "n1"), rec(EVICTED, message="preempted by default/vip (priority 1000)"),
     PodChange("p", "evicted", "n1", "evicted", "preempted by default/vip (priority 1000)")),
    (rec("bound", "n1", score=150), rec("bound", "n2", score=120),
     PodChange("p", "moved", "n1", "n2", "n1 (score 150) -> n2 (score 120)")),
    (rec("bound", "n1"), rec("unschedulable", message=MSG), PodChange("p", "becomes pending", "n1", "pending", MSG)),
    (rec("unschedulable", message=MSG), rec("bound", "n2"), PodChange("p", "placed", "pending", "n2", "n2")),
    (rec("unschedulable", message="old"), rec("unschedulable", message=MSG),
     PodChange("p", "still pending", "pending", "pending", MSG)),
    (rec("bound", "n1", score=150), rec("bound", "n1", score=140), None),
], ids=["gone after: evicted, with the operation's note", "new and bound: placed", "new and pending",
        "a preemption victim", "bound elsewhere: moved, with both scores", "bound, then pending",
        "pending, then bound", "pending for another reason", "same node, another score: no change"])
def test_classify(old: dict[str, Any] | None, new: dict[str, Any] | None, expected: PodChange | None) -> None:
    notes = {"p": "removed by --drain n1"} if new is None else {}
    assert classify("p", old, new, notes) == expected


def test_a_pod_the_later_snapshot_lacks_is_gone_not_evicted() -> None:
    """`diff --against`: no what-if took it (no note): deleted, or a finished Job's pod — "gone",
    not "evicted" (which fails a diff)."""
    gone = classify("p", rec(RUNNING, "n2"), None, {})
    assert gone == PodChange("p", "gone", "n2", None, "not in the after scenario")


def test_changed_pods_sees_added_removed_and_changed_records() -> None:
    old = {"a": rec(RUNNING, "n1"), "b": rec(RUNNING, "n1"), "c": rec(RUNNING, "n2")}
    new = {"a": rec(RUNNING, "n1"), "b": rec(RUNNING, "n2"), "d": rec("bound", "n1")}
    assert changed_pods(old, new) == {"b", "c", "d"}


def test_changed_pods_names_each_pod_when_most_records_are_new() -> None:
    """A drain: the drained pods go, their replacements (other names) come; of the five keys one
    is on both sides (a, moved), so the two sides share under a third of their keys."""
    old = {"a": rec(RUNNING, "n1"), "b": rec(RUNNING, "n1"), "c": rec(RUNNING, "n1")}
    new = {"a": rec(RUNNING, "n2"), "b2": rec("bound", "n2"), "c2": rec("bound", "n2")}
    assert changed_pods(old, new) == {"a", "b", "c", "b2", "c2"}


@pytest.mark.parametrize("new, expected", [
    (rec("bound", "n2", score=90), PodChange("p", "evicted", "n1", "n2",
                                             "removed and recreated under its name by --drain n1: n2 (score 90)")),
    (rec("bound", "n1"), PodChange("p", "evicted", "n1", "n1", "removed and recreated under its name by --drain n1: n1")),
    (rec("unschedulable", message=MSG), PodChange("p", "evicted", "n1", "pending",
                                                  f"removed and recreated under its name by --drain n1: pending: {MSG}")),
], ids=["back on another node", "back on the same node: still an eviction", "back pending"])
def test_a_pod_taken_and_recreated_under_its_name_is_evicted_not_moved(new: dict[str, Any], expected: PodChange) -> None:
    """A StatefulSet's pod keeps its name when its controller recreates it: it is on both sides,
    yet the operation evicted it, as it evicts a ReplicaSet's pod (whose replacement has another
    name) — the diff must fail the same way (Diff.worse)."""
    assert classify("p", rec(RUNNING, "n1"), new, {"p": "removed and recreated under its name by --drain n1"}) == expected
