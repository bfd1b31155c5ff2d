"""NodeInfo's aggregates that kwhatif adds to kube-scheduler's (types.go:NodeInfo)."""

from __future__ import annotations

import pytest

from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo
from tests.builders import make_node, make_pod

LOWEST_CASES = [
    # (case, priorities of the pods added (None: spec.priority unset), keys removed after, expected)
    ("no pod", [], [], None),
    ("an unset priority counts as 0 (helpers.go:PodPriority)", [5, None, 10], [], 0),
    ("negative priorities are lowest", [0, -10, 3], [], -10),
    ("the lowest pod removed: the next lowest", [7, 1, 4], ["default/p1"], 4),
    ("every pod removed", [7], ["default/p0"], None),
]


@pytest.mark.parametrize("case,priorities,removed,expected", LOWEST_CASES, ids=[c[0] for c in LOWEST_CASES])
def test_lowest_priority(case, priorities, removed, expected):
    info = NodeInfo.of(make_node("n1"))
    for i, priority in enumerate(priorities):
        info.add_pod(PodInfo.of(make_pod(f"p{i}", node_name="n1", priority=priority)))
    assert info.lowest_priority() == (min((p or 0 for p in priorities), default=None) if removed else expected)
    for key in removed:
        info.remove_pod(key)
    assert info.lowest_priority() == expected


def test_lowest_priority_follows_a_pod_added_after_it_was_asked():
    info = NodeInfo.of(make_node("n1"))
    info.add_pod(PodInfo.of(make_pod("a", node_name="n1", priority=50)))
    assert info.lowest_priority() == 50
    info.add_pod(PodInfo.of(make_pod("b", node_name="n1", priority=20)))
    assert info.lowest_priority() == 20
    clone = info.clone()
    clone.remove_pod("default/b")
    assert (clone.lowest_priority(), info.lowest_priority()) == (50, 20)
