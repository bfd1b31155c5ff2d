"""`kwhatif diff` on hand-made pairs, through the command line.

Before (`--against`): n1 and n2 (4 cpu, 8Gi each); default/filler (2 cpu, no owner) bound on n2;
default/web (3 cpu) pending. Only n1 has 3 cpu free, so web lands there (one feasible node: not
scored). After (`-c`): the same with filler bound on n1 instead, so web can only go to n2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from click.testing import CliRunner

from kwhatif.cli.main import main
from tests.cli.conftest import NOW, REPO, invoke
from tests.cli.test_whatif import node, pod


def write(tmp_path: Path, name: str, filler_on: str) -> str:
    docs = [node("n1", "a"), node("n2", "a"), pod("filler", "default", "2", filler_on), pod("web", "default", "3")]
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(docs))
    return str(path)


def run(tmp_path: Path, *args: str) -> Any:
    before, after = write(tmp_path, "before.yaml", "n2"), write(tmp_path, "after.yaml", "n1")
    return invoke(["diff", "-c", after, "--against", before, "--now", NOW, *args]), before, after


def test_two_snapshots_moved_pods_and_node_use(tmp_path: Path) -> None:
    result, before, after = run(tmp_path, "-o", "json")
    assert result.exit_code == 0, result.stderr  # nothing evicted, nothing pending
    data = json.loads(result.stdout)
    assert data["pods"] == [
        {"pod": "default/filler", "change": "moved", "before": "n2", "after": "n1", "reason": "n2 -> n1"},
        {"pod": "default/web", "change": "moved", "before": "n1", "after": "n2", "reason": "n1 -> n2"},
    ]
    gib8 = 8 * 2**30
    assert data["nodes"] == {
        "n1": {"before": {"cpu": 3000, "cpu_allocatable": 4000, "memory": 0, "memory_allocatable": gib8, "pods": 1},
               "after": {"cpu": 2000, "cpu_allocatable": 4000, "memory": 0, "memory_allocatable": gib8, "pods": 1}},
        "n2": {"before": {"cpu": 2000, "cpu_allocatable": 4000, "memory": 0, "memory_allocatable": gib8, "pods": 1},
               "after": {"cpu": 3000, "cpu_allocatable": 4000, "memory": 0, "memory_allocatable": gib8, "pods": 1}},
    }
    assert data["counts"] == {"moved": 2} and data["unchanged_nodes"] == 0
    assert data["before"] == f"{before} (default profile)" and data["after"] == f"{after} (default profile)"


def test_markdown_for_a_pull_request(tmp_path: Path) -> None:
    result, before, after = run(tmp_path, "-o", "markdown")
    # 3000m of 4000m is 75 %, 2000m is 50 %; memory 0 of 8Gi (format_amount rounds to Mi below 1Gi).
    assert result.stdout == f"""### kwhatif diff

- before: {before} (default profile)
- after:  {after} (default profile)
- 2 moved

#### Pods

| POD | CHANGE | BEFORE | AFTER | REASON |
|---|---|---|---|---|
| default/filler | moved | n2 | n1 | n2 -> n1 |
| default/web | moved | n1 | n2 | n1 -> n2 |

#### Nodes

| NODE | CPU BEFORE | CPU AFTER | MEMORY BEFORE | MEMORY AFTER | PODS |
|---|---|---|---|---|---|
| n1 | 3000m/4000m (75%) | 2000m/4000m (50%) | 0Mi/8.00Gi (0%) | 0Mi/8.00Gi (0%) | 1 -> 1 |
| n2 | 2000m/4000m (50%) | 3000m/4000m (75%) | 0Mi/8.00Gi (0%) | 0Mi/8.00Gi (0%) | 1 -> 1 |

0 node(s) unchanged.
"""


def test_one_snapshot_with_and_without_a_cordon(tmp_path: Path) -> None:
    # After: n2 cordoned, n1 has 2 cpu free < 3: web stays pending. NodeResourcesFit rejects n1
    # (Unschedulable), NodeUnschedulable n2 (UnschedulableAndUnresolvable); preemption: filler's
    # priority 0 is not lower than web's 0 on n1, n2 is not a candidate. Histograms byte-sorted.
    cluster = write(tmp_path, "x.yaml", "n1")
    result = invoke(["diff", "-c", cluster, "--now", NOW, "--cordon", "n2", "-o", "json"])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["pods"] == [{
        "pod": "default/web", "change": "becomes pending", "before": "n2", "after": "pending",
        "reason": "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) were unschedulable. no new claims to "
                  "deallocate, preemption: 0/2 nodes are available: 1 No preemption victims found for incoming "
                  "pod, 1 Preemption is not helpful for scheduling."}]
    assert [w["operation"] for w in data["whatif"]] == ["--cordon n2"]
    assert data["after"] == f"{cluster} (default profile) with the what-if operations"


def test_a_drained_pod_is_evicted_by_the_operation(tmp_path: Path) -> None:
    # filler has no owner: with --force the drain deletes it; web still goes to n2 (n1 cordoned, and
    # before it had only 2 cpu free on n1 anyway), so only filler changes.
    cluster = write(tmp_path, "x.yaml", "n1")
    result = invoke(["diff", "-c", cluster, "--now", NOW, "--drain", "n1", "--force"])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0] == "what-if: drain n1: evicted 1 pod(s), 0 recreated pending, 0 left on the node"
    assert "1 evicted" in lines
    assert ["default/filler", "evicted", "n1", "-", "removed", "by", "--drain", "n1", "--force"] in \
        [line.split() for line in lines]


def test_a_drained_statefulset_pod_is_evicted_though_it_comes_back_under_its_name(tmp_path: Path) -> None:
    # db-0 (StatefulSet db) on n1; the drain evicts it and the controller recreates db-0, which
    # lands on n2 (n1 cordoned): the same key on both sides, yet an eviction, as a ReplicaSet's
    # pod's would be — exit 1, not "moved" and exit 0.
    docs = [node("n1", "a"), node("n2", "a"), pod("db-0", "default", "1", "n1", owner=("StatefulSet", "db"))]
    (tmp_path / "c.yaml").write_text(yaml.safe_dump_all(docs))
    result = invoke(["diff", "-c", str(tmp_path / "c.yaml"), "--now", NOW, "--drain", "n1", "-o", "json"])
    assert result.exit_code == 1
    [change] = json.loads(result.stdout)["pods"]
    assert change == {"pod": "default/db-0", "change": "evicted", "before": "n1", "after": "n2",
                      "reason": "removed and recreated under its name by --drain n1: n2"}


def test_a_preempted_pod_is_evicted_by_its_preemptor() -> None:
    """samples/pods/critical.yaml's ledger-reconcile (priority 100000) preempts checkout-gx4sn on
    worker-c1, then binds there on its retry: the victim is named with the pod that preempted it
    (the first attempt's), not as merely absent from the after run."""
    samples = REPO / "samples"
    result = invoke(["diff", "-c", str(samples / "cluster.yaml"), "-c", str(samples / "pods" / "critical.yaml"),
                     "--against", str(samples / "cluster.yaml"), "--now", NOW, "-o", "json"])
    evicted = [c for c in json.loads(result.stdout)["pods"] if c["change"] == "evicted"]
    assert evicted == [{"pod": "shop/checkout-7d9f8-gx4sn", "change": "evicted", "before": "worker-c1",
                        "after": "evicted", "reason": "preempted by payments/ledger-reconcile (priority 100000)"}]


def test_the_same_configuration_twice_changes_nothing(tmp_path: Path) -> None:
    config = tmp_path / "sched.yaml"
    config.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n")
    cluster = write(tmp_path, "x.yaml", "n1")
    result = invoke(["diff", "-c", cluster, "--now", NOW, "--config", str(config), "-o", "json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert (data["pods"], data["nodes"], data["unchanged_nodes"]) == ([], {}, 2)
    assert data["after"] == f"{cluster} ({config})"


def test_a_drain_of_the_samples_names_each_pod_and_wraps_reasons_to_the_terminal() -> None:
    """samples/cluster.yaml, worker-a1 drained: its 6 controller-owned pods are removed and
    recreated under new names (the drain's own line names them), so the diff names 6 evicted
    pods and their 6 replacements (placed or pending); at 120 columns the reasons wrap (a line
    only overflows on a word longer than the column), with -o wide each is one line."""
    samples = str(REPO / "samples" / "cluster.yaml")
    args = ["diff", "-c", samples, "--now", NOW, "--drain", "worker-a1"]
    data = json.loads(invoke([*args, "-o", "json"]).stdout)
    [drain] = data["whatif"]
    changes = {p["pod"]: p["change"] for p in data["pods"]}
    assert {k for k, c in changes.items() if c == "evicted"} == set(drain["removed_pods"])
    assert all(changes[k] in ("placed", "becomes pending") for k in drain["created_pods"])
    table = CliRunner().invoke(main, args, env={"COLUMNS": "120"}).stdout.splitlines()
    assert all(len(line) <= 120 or " " not in line.strip() for line in table if not line.startswith("what-if"))
    wide = invoke([*args, "-o", "wide"]).stdout.splitlines()
    assert sum(1 for line in wide if "removed by --drain worker-a1" in line) == len(drain["removed_pods"])
    # the table lists the worst changes first (JSON keeps the pods by name)
    order = ["becomes pending", "evicted", "still pending", "placed", "moved"]
    start = next(i for i, line in enumerate(wide) if line.startswith("POD ")) + 1
    rows = wide[start:wide.index("", start)]
    kinds = [next(k for k in order if f"  {k}  " in line) for line in rows]
    assert kinds == sorted(kinds, key=order.index) and len(kinds) == len(changes)
    assert [p["pod"] for p in data["pods"]] == sorted(p["pod"] for p in data["pods"])


def test_of_two_configurations_the_refused_one_is_named(tmp_path: Path) -> None:
    """One --config gets kube-scheduler's text alone (as it would fail at start-up); with two, the
    text does not say which file it is about, so the file is named."""
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                                   "profiles": [{"schedulerName": "default-scheduler", "pluginConfig": [
                                       {"name": "NodeResourcesFit", "args": {"scoringStrategy": {"resourcs": []}}}]}]}))
    good = tmp_path / "good.yaml"
    good.write_text(yaml.safe_dump({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}))
    cluster = str(REPO / "samples" / "cluster.yaml")
    result = invoke(["diff", "-c", cluster, "--now", NOW, "--config", str(good), "--against-config", str(bad)])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"kwhatif: error: {bad}: strict decoding error: ")
    alone = invoke(["schedule", "-c", cluster, "--now", NOW, "--config", str(bad)])
    assert alone.exit_code == 2 and alone.stderr.startswith("strict decoding error: ")


def test_a_pod_file_the_api_server_refuses_is_named_skipped_not_left_out(tmp_path: Path) -> None:
    """A pod of the files refused on both sides is no difference, yet it is never scheduled: the
    diff names it (`skipped`, with the API server's words) and exits 1, where it said 'no pod
    changes' and exited 0; a valid pod beside it is placed as before."""
    cluster = write(tmp_path, "x.yaml", "n1")
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: bp, namespace: default}\nspec:\n"
                   "  containers: [{name: c, image: x, resources: {requests: {cpu: abc}}}]\n")
    result = invoke(["diff", str(bad), "-c", cluster, "--now", NOW, "--cordon", "n1", "-o", "json", "-q"])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert [c for c in data["pods"] if c["pod"] == "default/bp"] == [{
        "pod": "default/bp", "change": "skipped", "before": None, "after": None,
        "reason": "rejected by the API server: spec.containers[0].resources.requests.cpu: invalid quantity 'abc': "
                  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"}]
    assert data["counts"]["skipped"] == 1
