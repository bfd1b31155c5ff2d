"""`kwhatif capacity`'s table: the nodes the copies land on, cut to the busiest past NODES_LISTED."""

from __future__ import annotations

from typing import Any

import pytest

from kwhatif.render.capacity import NODES_LISTED, capacity_table


def _workload(distribution: dict[str, int]) -> dict[str, Any]:
    total = sum(distribution.values())
    return {"workload": "Deployment/default/web", "replicas": 1, "copies": total, "more": total - 1,
            "reached_max": False, "max": 1000, "distribution": distribution, "evictions": [], "stop_reason": None,
            "stopped_by": None}


def test_a_few_nodes_are_all_listed_by_name() -> None:
    lines = capacity_table({"workloads": [_workload({"n-b": 1, "n-a": 2})]}).splitlines()
    assert lines == ["Deployment/default/web: 2 more fit (3 in total)", "", "NODE      PODS",
                     "n-a          2", "n-b          1"]


def test_past_the_limit_the_busiest_are_listed_and_the_rest_summed() -> None:
    # 25 nodes: n-00..n-04 hold 3 copies, n-05..n-14 hold 2, n-15..n-24 hold 1 (15 + 20 + 10 = 45).
    distribution = {f"n-{i:02d}": 3 if i < 5 else 2 if i < 15 else 1 for i in range(25)}
    assert NODES_LISTED == 20
    lines = capacity_table({"workloads": [_workload(distribution)]}).splitlines()
    listed = [line.split() for line in lines[3:3 + NODES_LISTED]]
    # the busiest first, by name within a count: all of 3 and 2, then n-15..n-19 of the 1s
    assert listed == [[f"n-{i:02d}", "3" if i < 5 else "2" if i < 15 else "1"] for i in range(20)]
    assert lines[3 + NODES_LISTED:] == [
        "... and 5 more node(s) with 5 pods (-o json lists every node)",
        "the 45 placed here on 25 nodes: 5 node(s) with 3, 10 node(s) with 2, 10 node(s) with 1"]


@pytest.mark.parametrize("nodes, preemption, stopped_by, head", [
    (3, False, "unschedulable", "Deployment/default/web: only 0 of its 2 replicas fit (with preemption off; "
                                "--allow-preemption lets them preempt, as kube-scheduler would)"),
    (3, True, "unschedulable", "Deployment/default/web: only 0 of its 2 replicas fit"),
    (3, False, "admission", "Deployment/default/web: only 0 of its 2 replicas fit"),
    (3, False, "gated", "Deployment/default/web: only 0 of its 2 replicas fit"),
    (0, False, "unschedulable", "Deployment/default/web: only 0 of its 2 replicas fit (the cluster has no node)"),
    (0, True, "unschedulable", "Deployment/default/web: only 0 of its 2 replicas fit (the cluster has no node)"),
], ids=["preemption off: the hint", "preemption on: the scheduler's verdict",
        "refused by admission (a quota): preempting cannot help, no hint", "gated: no hint",
        "no node: nothing to preempt, no hint", "no node, preemption on"])
def test_replicas_that_do_not_fit_say_why_they_might(nodes: int, preemption: bool, stopped_by: str, head: str) -> None:
    short = {**_workload({}), "replicas": 2, "nodes": nodes, "preemption": preemption, "stopped_by": stopped_by}
    assert capacity_table({"workloads": [short]}).splitlines()[0] == head
