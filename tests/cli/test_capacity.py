"""`kwhatif capacity`: how many more copies fit (one at a time until one does not), their
distribution and the stop reason; `--add-node`: the smallest number of template nodes to add.

Cluster: conftest.py. After its pending pods, free cpu is node-a 500m, node-b 800m; node-c is
tainted dedicated=gpu:NoSchedule."""

from __future__ import annotations

import json
import re

import pytest

from tests.cli.conftest import CLUSTER, DATA, MSG_BIG_3, NOW, single_error_line

CHECK = DATA / "check"
ARGS = ["-c", str(CLUSTER), "--now", NOW, "-q"]
POOL = str(CHECK / "pool-node.yaml")


def _capacity(cli, *args: str):
    result = cli(["capacity", *args, *ARGS, "-o", "json"])
    return result, (json.loads(result.stdout) if result.stdout else None)


def test_copies_of_a_pod_fill_the_free_cpu_and_the_next_one_gets_the_scheduler_message(cli):
    # 200m copies: node-a 500m -> 2, node-b 800m -> 4; the 7th finds 100m and 0m free.
    result, data = _capacity(cli, str(CHECK / "copy.yaml"))
    assert result.exit_code == 0
    assert data == {"pod": "default/copy", "workload": "Pod/default/copy", "copies": 6, "max": 1000,
                    "reached_max": False, "distribution": {"node-a": 2, "node-b": 4}, "stop_reason": MSG_BIG_3,
                    "evictions": [], "warnings": []}


def test_max_bounds_the_count(cli):
    result, data = _capacity(cli, str(CHECK / "copy.yaml"), "--max", "3")
    assert result.exit_code == 0
    assert (data["copies"], data["reached_max"], data["stop_reason"]) == (3, True, None)
    assert sum(data["distribution"].values()) == 3


def test_copies_of_a_deployment_are_more_replicas_of_its_replica_set(cli):
    result, data = _capacity(cli, str(CHECK / "api.yaml"))
    # 600m: node-b takes one (800m free), nothing else has 600m.
    assert result.exit_code == 0
    assert re.fullmatch(r"default/api-[bcdfghjklmnpqrstvwxz2456789]{1,10}-[bcdfghjklmnpqrstvwxz2456789]{5}", data["pod"])
    assert (data["workload"], data["copies"], data["distribution"]) == ("Deployment/default/api", 1, {"node-b": 1})
    assert data["stop_reason"] == MSG_BIG_3


def test_table_names_the_count_the_nodes_and_the_stop_reason(cli):
    result = cli(["capacity", str(CHECK / "copy.yaml"), *ARGS])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "6 more copies of default/copy (Pod/default/copy) fit"
    assert re.fullmatch(r"node-a\s+2", lines[3]) and re.fullmatch(r"node-b\s+4", lines[4])
    assert lines[-1] == f"the next copy does not fit: {MSG_BIG_3}"


@pytest.mark.parametrize("workload, maximum, exit_code, nodes_to_add, tried", [
    # api (2 x 600m): one replica stays pending without a new node. With one 2-cpu pool node, the
    # cluster's pending pods move first: urgent (300m) and small (400m) go to the empty pool-1
    # (LeastAllocated), big (1800m) still fits nowhere; node-b keeps 1500m free and pool-1 1300m:
    # both replicas fit.
    ("api.yaml", 1000, 0, 1, [{"nodes": 0, "pending": 1}, {"nodes": 1, "pending": 0}]),
    ("web.yaml", 1000, 0, 0, [{"nodes": 0, "pending": 0}]),
    # batch (5 x 1 cpu) with at most 2 pool nodes: never fits (pending 5, 3, 3), exit 1.
    ("batch.yaml", 2, 1, None, [{"nodes": 0, "pending": 5}, {"nodes": 1, "pending": 3}, {"nodes": 2, "pending": 3}]),
])
def test_add_node_finds_the_smallest_count_by_search(cli, workload, maximum, exit_code, nodes_to_add, tried):
    result, data = _capacity(cli, str(CHECK / workload), "--add-node", POOL, "--max", str(maximum))
    assert result.exit_code == exit_code
    assert data == {"template": "pool", "nodes_to_add": nodes_to_add, "max_nodes": maximum,
                    "fits": nodes_to_add is not None, "tried": tried}


def test_add_node_gallops_then_bisects(cli):
    # batch needs 4 pool nodes: 0, 1, 2, 4 are tried (galloping), then 3 (bisecting 2..4) fails.
    result, data = _capacity(cli, str(CHECK / "batch.yaml"), "--add-node", POOL)
    assert result.exit_code == 0
    assert data["nodes_to_add"] == 4
    assert [t["nodes"] for t in data["tried"]] == [0, 1, 2, 3, 4]
    assert [t["pending"] == 0 for t in data["tried"]] == [False, False, False, False, True]


@pytest.mark.parametrize("args, error", [
    ([str(CHECK / "copy.yaml"), "--add-node", str(CHECK / "copy.yaml")], "must hold exactly one Node (found 0)"),
    ([str(CHECK / "pool-node.yaml")], "capacity: no pod to copy"),
])
def test_bad_input_exits_2(cli, args, error):
    result = cli(["capacity", *args, *ARGS])
    assert result.exit_code == 2
    assert error in single_error_line(result.stderr)
