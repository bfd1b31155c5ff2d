"""`kwhatif evict` through the command line, on a hand-worked node.

n1 (4Gi) holds, with `kubectl top` usage (priorities on the pods):
    shop/f   ReplicaSet f-rs, 100Mi requested, no stats         -> no stats: first
    shop/b   ReplicaSet b-rs, 200Mi requested, 600Mi used, p0   -> exceeds, over by 400Mi
    shop/a   bare, BestEffort, 300Mi used, p0                   -> exceeds, over by 300Mi
    kube-system/mirror  mirror pod, 50Mi used, p0               -> exceeds, over by 50Mi; critical
    shop/e   bare, BestEffort, 100Mi used, p1000                -> exceeds, higher priority
    shop/c   bare, 1Gi requested, 200Mi used, p0                -> within its request
    shop/d   bare, Guaranteed 500Mi, 400Mi used, p1000          -> within its request
n2 (8Gi) is empty. Order: f, b, a, mirror, e, c, d."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from tests.cli.conftest import NOW, invoke
from tests.cli.test_whatif import node, pod


def memory_pod(name: str, ns: str, memory: str | None, priority: int = 0, limit: bool = False,
               **kw: Any) -> dict[str, Any]:
    doc = pod(name, ns, "100m", "n1", **kw)
    resources = doc["spec"]["containers"][0]["resources"]
    if memory:
        resources["requests"]["memory"] = memory
    else:
        del resources["requests"]
    if limit:
        resources["limits"] = dict(resources["requests"])
    doc["spec"]["priority"] = priority
    return doc


def cluster(tmp_path: Path) -> str:
    n1, n2 = node("n1", "a"), node("n2", "a")
    n1["status"]["allocatable"]["memory"] = "4Gi"
    docs = [n1, n2,
            memory_pod("f", "shop", "100Mi", owner=("ReplicaSet", "f-rs")),
            memory_pod("b", "shop", "200Mi", owner=("ReplicaSet", "b-rs")),
            memory_pod("a", "shop", None),
            memory_pod("mirror", "kube-system", None, annotations={"kubernetes.io/config.mirror": "x"}),
            memory_pod("e", "shop", None, priority=1000),
            memory_pod("c", "shop", "1Gi"),
            memory_pod("d", "shop", "500Mi", priority=1000, limit=True)]
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    return str(path)


TOP = """shop b 10m 600Mi
shop a 1m 300Mi
kube-system mirror 1m 50Mi
shop e 1m 100Mi
shop c 1m 200Mi
shop d 1m 400Mi
"""


def run(tmp_path: Path, *args: str) -> Any:
    usage = tmp_path / "top.txt"
    usage.write_text(TOP)
    return invoke(["evict", "n1", "-c", cluster(tmp_path), "--usage", str(usage), "--now", NOW, *args])


def test_the_kubelet_order_and_the_pods_that_go(tmp_path: Path) -> None:
    # available 50Mi < 100Mi (the default): f goes (no stats: frees nothing known), then b frees
    # 600Mi: 650Mi >= 100Mi. Both have a ReplicaSet: recreated, and n1 now has the memory-pressure
    # taint, so they land on n2.
    result = run(tmp_path, "--available", "50Mi", "-o", "json")
    assert result.exit_code == 1, result.stderr
    data = json.loads(result.stdout)
    assert [r["pod"] for r in data["ranking"]] == [
        "shop/f", "shop/b", "shop/a", "kube-system/mirror", "shop/e", "shop/c", "shop/d"]
    assert [r["qos"] for r in data["ranking"]] == [
        "Burstable", "Burstable", "BestEffort", "BestEffort", "BestEffort", "Burstable", "Guaranteed"]
    assert [r["pod"] for r in data["ranking"] if r["evicted"]] == ["shop/f", "shop/b"]
    assert (data["evicted"], data["threshold"], data["available_after"]) == (2, 100 * 2**20, 650 * 2**20)
    placed = [r["rescheduled"] for r in data["ranking"] if r["evicted"]]
    assert all(p.startswith("shop/") and p.endswith(" on n2") for p in placed), placed
    assert placed[0].startswith("shop/f-rs-") and placed[1].startswith("shop/b-rs-")


def test_a_pod_the_usage_file_misses_is_warned_about(tmp_path: Path) -> None:
    # TOP has no line for f: ranked first as the kubelet ranks a pod it has no stats for, and said
    # so (a file taken before f started looks the same); --strict makes it the error.
    result = run(tmp_path, "--available", "50Mi")
    assert ("1 pod(s) on n1 have no memory reading in the usage file (shop/f): ranked as pods the kubelet has "
            "no stats for, first") in result.stderr
    assert run(tmp_path, "--available", "50Mi", "--strict").exit_code == 2


def test_a_critical_pod_is_passed_over(tmp_path: Path) -> None:
    # 50Mi available, threshold 1000Mi: f (+0), b (+600Mi) = 650Mi, a (+300Mi) = 950Mi, the mirror pod
    # is skipped, e (+100Mi) = 1050Mi >= 1000Mi, shown rounded: 1050 / 1024 = 1.025 -> 1.03Gi.
    result = run(tmp_path, "--available", "50Mi", "--threshold", "1000Mi")
    lines = result.stdout.splitlines()
    assert lines[0] == "n1: memory.available 50Mi, threshold 1000Mi: under pressure"
    assert lines[1] == "4 pod(s) evicted to bring memory.available back above its threshold (at 1.03Gi then)"
    mirror = next(line for line in lines if "kube-system/mirror" in line)
    assert "critical: skipped" in mirror


def test_a_threshold_the_evictions_cannot_reach_is_said_in_the_headline(tmp_path: Path) -> None:
    # 50Mi available, threshold 3000Mi: every evictable pod goes — f (+0), b (+600), a (+300), e
    # (+100), c (+200), d (+400): 1650Mi (the mirror is skipped) — and 1650Mi < 3000Mi: the
    # headline says the signal stays under, not that it was brought back above.
    result = run(tmp_path, "--available", "50Mi", "--threshold", "3000Mi")
    assert result.stdout.splitlines()[1] == (
        "6 pod(s) evicted, and memory.available stays under its threshold (at 1.61Gi then: the pods' usage the file "
        "gives does not free enough)")


def test_estimated_from_allocatable_when_nothing_says_the_node_figure(tmp_path: Path) -> None:
    # 4096Mi - (600 + 300 + 50 + 100 + 200 + 400)Mi = 2446Mi >= 100Mi: no pressure, nobody goes.
    # Shown rounded from 1Gi up: 2446 / 1024 = 2.389 -> 2.39Gi.
    result = run(tmp_path)
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == ("n1: memory.available 2.39Gi (estimated: capacity minus the pods' "
                                             "usage), threshold 100Mi: not under pressure")
    assert result.stdout.splitlines()[1] == ("no eviction: the kubelet evicts only under pressure; the ranking is the "
                                             "order it would evict in")


def test_pid_pressure_needs_a_threshold(tmp_path: Path) -> None:
    result = run(tmp_path, "--signal", "pid.available", "--available", "10")
    assert result.exit_code == 2
    assert result.stderr == ("kwhatif: error: pid.available: the kubelet has no default threshold for it; "
                             "give --threshold\n")


def test_a_mistyped_threshold_or_a_capacity_not_above_zero_is_bad_input(tmp_path: Path) -> None:
    # "500MB" is no Kubernetes quantity (MB is not a suffix): exit 2 naming the option, never an internal error.
    result = run(tmp_path, "--threshold", "500MB")
    assert result.exit_code == 2
    assert result.stderr == ("kwhatif: error: --threshold 500MB: not a quantity (e.g. 100Mi) nor a percentage "
                             "(e.g. 10%)\n")
    result = run(tmp_path, "--capacity", "-5")
    assert (result.exit_code, result.stderr) == (2, "kwhatif: error: --capacity -5: must be positive\n")
    # the kubelet's available bytes are unsigned: 0 is there (nothing left), -5Mi is not
    result = run(tmp_path, "--available", "-5Mi")
    assert (result.exit_code, result.stderr) == (2, "kwhatif: error: --available -5Mi: must not be negative\n")
    assert run(tmp_path, "--available", "0").exit_code in (0, 1)


def test_the_usage_can_come_from_stdin(tmp_path: Path) -> None:
    # `kubectl top pods -A --no-headers | kwhatif evict ... --usage -`: the same plan as from the file.
    from_file = run(tmp_path)
    text = (tmp_path / "top.txt").read_text()
    from_stdin = invoke(["evict", "n1", "-c", cluster(tmp_path), "--usage", "-", "--now", NOW], input=text)
    assert (from_stdin.exit_code, from_stdin.stdout) == (from_file.exit_code, from_file.stdout)


def test_each_evicted_pod_is_named_with_its_own_replacement(tmp_path: Path) -> None:
    # n1: ghost-n1 (DaemonSet ghost, absent from the snapshot: nothing recreates it; priority -5,
    # 500Mi used over 100Mi requested) then web-a (ReplicaSet web-rs, 400Mi over 100Mi). Both go
    # (10Mi available, threshold 800Mi: 10 + 500 + 400 = 910Mi); only web-a comes back, as
    # web-rs-<random>, on n2 — not beside ghost-n1's line.
    agent = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "kube-system"},
             "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": {
                 "metadata": {"labels": {"app": "agent"}}, "spec": {"containers": [{"name": "c", "image": "a"}]}}}}
    docs = [node("n1", "a"), node("n2", "a"), agent,  # the snapshot lists its DaemonSets: ghost is not one
            memory_pod("ghost-n1", "kube-system", "100Mi", priority=-5, owner=("DaemonSet", "ghost")),
            memory_pod("web-a", "default", "100Mi", owner=("ReplicaSet", "web-rs"))]
    (tmp_path / "c.yaml").write_text(yaml.safe_dump_all(docs))
    (tmp_path / "top.txt").write_text("kube-system ghost-n1 1m 500Mi\ndefault web-a 1m 400Mi\n")
    result = invoke(["evict", "n1", "-c", str(tmp_path / "c.yaml"), "--usage", str(tmp_path / "top.txt"), "--now", NOW,
                     "--available", "10Mi", "--threshold", "800Mi", "-o", "json"])
    rows = {r["pod"]: r["rescheduled"] for r in json.loads(result.stdout)["ranking"] if r["evicted"]}
    assert rows["kube-system/ghost-n1"] == "not recreated (its controller makes no new pod)"
    assert rows["default/web-a"].startswith("default/web-rs-") and rows["default/web-a"].endswith(" on n2")
