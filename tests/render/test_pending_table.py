"""`kwhatif pending`'s table: a group's fix says which pod it was verified for, and that it was
for that pod alone when the group holds more (the others may not all fit after it)."""

from __future__ import annotations

from typing import Any

import pytest

from kwhatif.render.pending import pending_table


def _data(pods: list[str]) -> dict[str, Any]:
    return {"scheduled": 4, "pending": len(pods), "groups": [{
        "count": len(pods), "rejected_by": [{"plugin": "NodeResourcesFit", "reasons": ["Insufficient cpu"]}],
        "namespaces": ["app"], "owners": [], "pods": pods, "message": "0/1 nodes are available: 1 Insufficient cpu.",
        "suggestion": {"summary": "lower container c's cpu request to 1000m (by 1000m): it then fits on n1"}}]}


@pytest.mark.parametrize("pods, said", [
    (["app/big-1", "app/big-2", "app/big-3"], "fix (verified for app/big-1 alone, not for the other 2): lower"),
    (["app/big-1"], "fix (verified for app/big-1): lower"),
])
def test_a_groups_fix_says_whom_it_was_verified_for(pods: list[str], said: str) -> None:
    assert said in pending_table(_data(pods), width=200)


def _group(pod: str, *causes: tuple[str, str]) -> dict[str, Any]:
    return {"count": 1, "rejected_by": [{"plugin": p, "reasons": [r]} for p, r in causes], "namespaces": ["app"],
            "owners": [], "pods": [pod], "message": "", "suggestion": None}


CORDON = ("NodeUnschedulable", "node(s) were unschedulable")
CPU = ("NodeResourcesFit", "Insufficient cpu")
GPU = ("NodeResourcesFit", "Insufficient nvidia.com/gpu")


def test_what_every_group_shares_is_said_once_above_them() -> None:
    """A cordoned node rejects every pod: repeated on each group's line it hides what tells the
    groups apart. Said once; a group with nothing of its own says so."""
    data = {"scheduled": 5, "pending": 3,
            "groups": [_group("app/a", CPU, CORDON), _group("app/b", GPU, CORDON), _group("app/c", CORDON)]}
    lines = pending_table(data, width=200).splitlines()
    assert lines[1] == "kwhatif: every group's pods are also rejected, on other nodes, by NodeUnschedulable: " \
                       "node(s) were unschedulable"
    assert [line for line in lines if line.startswith("    1")] == [
        "    1  NodeResourcesFit: Insufficient cpu", "    1  NodeResourcesFit: Insufficient nvidia.com/gpu",
        "    1  only what every group shares (above)"]


def test_one_group_keeps_all_its_causes_on_its_line() -> None:
    lines = pending_table({"scheduled": 1, "pending": 1, "groups": [_group("app/a", CPU, CORDON)]},
                          width=200).splitlines()
    assert lines[1] == "    1  NodeResourcesFit: Insufficient cpu; NodeUnschedulable: node(s) were unschedulable"
