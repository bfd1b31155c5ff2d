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
