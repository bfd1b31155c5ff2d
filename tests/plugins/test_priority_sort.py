"""PrioritySort (reference §3.1, §3.2, §12.2).

Ordering cases ported from kubernetes `queuesort/priority_sort_test.go` (TestLess): higher
priority first, equal priority ordered by queue timestamp. §3.2 says a batch simulator should
order pending pods by (priority descending, arrival order ascending), and §12.2 keeps input order
for equal priority and timestamp.
"""

from __future__ import annotations

import pytest

from kwhatif.plugins.priority_sort import PrioritySort
from kwhatif.snapshot.pod_info import PodInfo
from tests.builders import Handle, make_pod


def order(*pods) -> list[str]:
    """Names in queue order; the position in `pods` is the arrival order."""
    sorter = PrioritySort(None, Handle())
    infos = [PodInfo.of(p) for p in pods]
    keyed = sorted(((sorter.sort_key(info, i), info) for i, info in enumerate(infos)), key=lambda t: t[0])
    return [info.pod.name for _, info in keyed]


T1 = "2025-01-01T00:00:00Z"
T2 = "2025-01-01T00:00:01Z"

CASES = [
    # --- ported from TestLess ---
    pytest.param([make_pod("p1", priority=100), make_pod("p2", priority=200)], ["p2", "p1"],
                 id="a pod with lower priority goes after one with higher priority"),
    pytest.param([make_pod("p1", priority=200), make_pod("p2", priority=100)], ["p1", "p2"],
                 id="a pod with higher priority goes first"),
    pytest.param([make_pod("p1", priority=100), make_pod("p2", priority=100)], ["p1", "p2"],
                 id="with equal priority the pod that arrived first goes first"),
    # --- reference §3.1 / §3.2 / §12.2 ---
    pytest.param([make_pod("p1", priority=None), make_pod("p2", priority=-5)], ["p1", "p2"],
                 id="a null priority counts as 0 and goes before a negative priority"),
    pytest.param([make_pod("p1", priority=None), make_pod("p2", priority=1)], ["p2", "p1"],
                 id="a null priority counts as 0 and goes after priority 1"),
    pytest.param([make_pod("p1", priority=0), make_pod("p2", priority=None), make_pod("p3", priority=0)],
                 ["p1", "p2", "p3"],
                 id="null and explicit zero priorities are equal and keep arrival order"),
    pytest.param([make_pod("b", priority=5, creation_timestamp=T1), make_pod("a", priority=5, creation_timestamp=T1)],
                 ["b", "a"],
                 id="equal priority and equal timestamp keep input order, not name order"),
    # A pod's queue timestamp is when it entered the queue (§3.2); for a snapshot that is its
    # creation: the conformance references order equal priorities by creationTimestamp, then input
    # order (../shared/conformance/README.md; t44 "ties broken by creation time").
    pytest.param([make_pod("late", priority=5, creation_timestamp=T2),
                  make_pod("early", priority=5, creation_timestamp=T1)],
                 ["early", "late"],
                 id="with equal priority the older pod goes first, as in the conformance references"),
    pytest.param([make_pod("second", priority=5, creation_timestamp=T1),
                  make_pod("first", priority=5, creation_timestamp=T1)],
                 ["second", "first"],
                 id="with equal priority and equal timestamps the order is arrival order"),
    pytest.param([make_pod("low", priority=1, creation_timestamp=T1),
                  make_pod("high", priority=2, creation_timestamp=T2)],
                 ["high", "low"],
                 id="priority wins over an earlier timestamp"),
    pytest.param([make_pod(f"p{i}", priority=p) for i, p in enumerate([3, 1, 3, 2, 1])],
                 ["p0", "p2", "p3", "p1", "p4"],
                 id="a mixed queue is priority descending then arrival ascending"),
]


@pytest.mark.parametrize("pods, expected", CASES)
def test_queue_order(pods, expected):
    assert order(*pods) == expected
