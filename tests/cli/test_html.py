"""`-o html` through the real command line: `schedule`, `explain` and `check` write one
self-contained page; other commands refuse the format. The cluster is conftest.py's; the
arithmetic is beside each test (render-level cases: tests/render/test_html.py)."""

from __future__ import annotations

import json

import pytest

from tests.cli.conftest import CLUSTER, DATA, MSG_BIG_2, NOW, TWO_NODE_ARGS
from tests.cli.test_samples import SAMPLES
from tests.render.html_page import parse

ARGS = [*TWO_NODE_ARGS, "--now", NOW, "-q", "-o", "html"]


def test_schedule_draws_the_heat_map_before_and_after_and_lists_the_pending_pod(cli):
    """Queue: urgent (300m/256Mi) -> node-b, big (1800m) stays pending, small (400m/512Mi) -> node-b
    (test_schedule.py). node-a holds bound-a (1500m/1Gi) throughout: cpu 1500/2000 = 75%, memory
    1/4 = 25%, pods 1/110 = 0.9 -> 1%. node-b before (bound-b 2500m/2Gi): 2500/4000 = 62.5 -> 63%,
    2/8 = 25%, 1/110 -> 1%; after: 3200/4000 = 80%, 2816Mi/8192Mi = 34.4 -> 34%, 3/110 = 2.7 -> 3%."""
    result = cli(["schedule", *ARGS])
    assert result.exit_code == 1, result.stderr
    page = parse(result.stdout)
    assert page.heat("node-a") == {(r, p): v for r, v in (("cpu", "75"), ("memory", "25"), ("pods", "1"))
                                   for p in ("before", "after")}
    assert page.heat("node-b") == {("cpu", "before"): "63", ("cpu", "after"): "80", ("memory", "before"): "25",
                                   ("memory", "after"): "34", ("pods", "before"): "1", ("pods", "after"): "3"}
    assert [e.text for e in page.elements if e.tag == "pre"] == [MSG_BIG_2]
    assert "1 unschedulable: default/big" in "".join(page.texts)
    assert page.external_references() == []


def test_explain_of_a_placed_pod_puts_the_winner_beside_the_runner_up(cli):
    """small: node-b 419 (Fit 42, Balanced 77), node-a 404 (Fit 33, Balanced 71), both
    TaintToleration 300 and ImageLocality 0 (test_schedule.py SMALL_SCORES): 15 behind."""
    result = cli(["explain", "default/small", *ARGS])
    assert result.exit_code == 0, result.stderr
    page = parse(result.stdout)
    scores = {(e.attrs["data-node"], e.attrs["data-plugin"]): e.attrs["data-score"] for e in page.cells()
              if "data-score" in e.attrs}
    assert {k: v for k, v in scores.items() if k[1].startswith("NodeResources")} == {
        ("node-b", "NodeResourcesBalancedAllocation"): "77", ("node-b", "NodeResourcesFit"): "42",
        ("node-a", "NodeResourcesBalancedAllocation"): "71", ("node-a", "NodeResourcesFit"): "33"}
    assert "winner: node-b" in page.texts and "runner-up: node-a" in page.texts
    assert "The winner leads by 15." in page.texts


def test_explain_of_a_pending_pod_shows_its_message_verbatim_and_its_groups(cli):
    """big with node-a and node-b: 2 Insufficient cpu (MSG_BIG_2), free 500m and 1200m after
    urgent: short by 1300m and 600m (two nodes: no median)."""
    result = cli(["explain", "big", *ARGS])
    assert result.exit_code == 1
    page = parse(result.stdout)
    assert [e.text for e in page.elements if e.attrs.get("class") == "message"] == [MSG_BIG_2]
    assert "cpu short by 600m–1300m" in page.texts
    assert "NodeResourcesFit" in page.texts and "Insufficient cpu" in page.texts


@pytest.mark.parametrize("workload, exit_code, verdict, row", [
    # web: one replica of 200m fits (node-a 500m free, node-b 800m): PASS.
    ("web", 0, "PASS: 1/1 workloads fit", ["Deployment/shop/web", "1", "1", "0", "0", "ok", ""]),
    # api: two replicas of 600m; the second fits nowhere (test_check.py MSG_API = MSG_BIG_3).
    ("api", 1, "FAIL: 0/1 workloads fit", ["Deployment/default/api", "2", "1", "1", "0", "FAIL"]),
])
def test_check_gives_the_verdict_per_workload_and_the_heat_map(cli, workload, exit_code, verdict, row):
    """node-c (16 cpu, tainted dedicated=gpu) holds nothing and receives nothing: 0% before and after."""
    result = cli(["check", str(DATA / "check" / f"{workload}.yaml"), "-c", str(CLUSTER), "--now", NOW, "-q",
                  "-o", "html"])
    assert result.exit_code == exit_code, result.stderr
    page = parse(result.stdout)
    assert verdict in page.texts
    cells = [e.text for e in page.elements if e.tag == "td"]
    start = cells.index(row[0])
    assert cells[start:start + len(row)] == row
    assert page.heat("node-c")[("cpu", "before")] == page.heat("node-c")[("cpu", "after")] == "0"


def test_the_samples_make_a_page_with_a_row_a_node(cli):
    """samples/cluster.yaml has 12 nodes (test_samples.py), under MAX_ROWS: one row each; the
    extended resources its nodes offer (nvidia.com/gpu on the gpu nodes) get their own columns."""
    cluster = ["-c", str(SAMPLES / "cluster.yaml"), "--now", NOW, "-q"]
    result = cli(["schedule", *cluster, "-o", "html"])
    assert result.exit_code == 1, result.stderr
    page = parse(result.stdout)
    assert page.heat_rows() == ["cp-1", "gpu-a1", "gpu-b1", "gpu-c1", "worker-a1", "worker-a2", "worker-a3",
                                "worker-b1", "worker-b2", "worker-b3", "worker-c1", "worker-c2"]  # sorted by name
    # samples/README.md: gpu-a1 has 3 of its 4 GPUs used (75%), gpu-b1 all 4 (100%), gpu-c1 1 (25%);
    # nothing pending binds a GPU (llm-eval stays pending); cp-1 has no GPU column figure at all.
    gpus = {node: page.heat(node)[("nvidia.com/gpu", "after")] for node in ("gpu-a1", "gpu-b1", "gpu-c1", "cp-1")}
    assert gpus == {"gpu-a1": "75", "gpu-b1": "100", "gpu-c1": "25", "cp-1": "–"}
    explained = cli(["explain", "shop/checkout-7d9f8-pending", *cluster, "-o", "html"])
    message = json.loads(cli(["explain", "shop/checkout-7d9f8-pending", *cluster, "-o", "json"]).stdout)["message"]
    assert [e.text for e in parse(explained.stdout).elements if e.attrs.get("class") == "message"] == [message]


@pytest.mark.parametrize("command", [["pending"], ["place", str(DATA / "place" / "web.yaml")]])
def test_other_commands_refuse_html(cli, command):
    result = cli([*command, *ARGS])
    assert result.exit_code == 2
    assert "'html' is not one of" in result.stderr


def test_explain_page_says_why_preemption_found_no_candidate_and_what_each_group_misses(cli):
    """samples/: shop/checkout-7d9f8-pending (3 cpu) — the 7 general workers are short of cpu even
    with every pod of lower priority evicted; the table says so under "why none", and the page
    now too (it showed no preemption section without a chosen node), with the groups' own detail
    (cpu short by ...) in its column."""
    result = cli(["explain", "shop/checkout-7d9f8-pending", "-c", str(SAMPLES / "cluster.yaml"), "--now", NOW, "-q",
                  "-o", "html"])
    page = parse(result.stdout)
    assert "Potential nodes (status Unschedulable): 7; candidates (nodes where evictions make room): 0." in page.texts
    assert "Insufficient cpu, even with every pod of lower priority evicted" in page.texts
    assert any(t.startswith("cpu short by ") for t in page.texts)
    assert "what the nodes miss" in page.texts
