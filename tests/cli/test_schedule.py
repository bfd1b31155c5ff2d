"""`kwhatif schedule`: decisions, messages, exit codes and output formats on a hand-made cluster.

Every expected value is worked out by hand from ../shared/design/SCHEDULER_REFERENCE.md (the
arithmetic is written next to it); the cluster is described in conftest.py.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest
import yaml

from tests.cli.conftest import (
    CLUSTER, DATA, MSG_BIG_2, MSG_BIG_3, NOW, TWO_NODE_ARGS, as_list_json, by_pod, cluster_documents, executable,
    totals,
)

S = "schedule"
FOLDER = [S, "-c", str(CLUSTER), "--now", NOW]

# ---------------------------------------------------------------- hand-computed scores ----
# Queue (§3.2): urgent (priority 1000) first, then big (created 2025-06-01), then small (2025-06-02),
# although pending.yaml lists them small, big, urgent.
#
# urgent 300m / 256Mi, nodes before it: node-a 1500m/1Gi of 2000m/4Gi, node-b 2500m/2Gi of 4000m/8Gi.
#   NodeResourcesFit (LeastAllocated, §6.4):
#     node-a cpu (2000-1800)*100 div 2000 = 10, mem (4-1.25)/4 -> 68 (68.75) -> (10+68) div 2 = 39
#     node-b cpu (4000-2800)*100 div 4000 = 30, mem (8-2.25)/8 -> 71 (71.875) -> (30+71) div 2 = 50
#   BalancedAllocation (§6.9): node-a |0.9-0.3125|/2 = 0.29375 -> trunc(70.625) = 70
#                              node-b |0.7-0.28125|/2 = 0.209375 -> trunc(79.0625) = 79
#   TaintToleration: no PreferNoSchedule taints -> 100 x 3 = 300; ImageLocality: no images -> 0.
#   totals node-a 409, node-b 429 -> node-b.
URGENT_SCORES = {
    "node-a": {"ImageLocality": 0, "NodeResourcesBalancedAllocation": 70, "NodeResourcesFit": 39,
               "TaintToleration": 300, "total": 409},
    "node-b": {"ImageLocality": 0, "NodeResourcesBalancedAllocation": 79, "NodeResourcesFit": 50,
               "TaintToleration": 300, "total": 429},
}
# small 400m / 512Mi, after urgent on node-b (node-b 2800m / 2.25Gi):
#   Fit: node-a cpu 100*100 div 2000 = 5, mem (4-1.5)/4 -> 62 -> 33
#        node-b cpu 800*100 div 4000 = 20, mem (8-2.75)/8 -> 65 (65.625) -> 42
#   Balanced: node-a |0.95-0.375|/2 = 0.2875 -> 71; node-b |0.8-0.34375|/2 = 0.228125 -> 77
#   totals node-a 404, node-b 419 -> node-b.
SMALL_SCORES = {
    "node-a": {"ImageLocality": 0, "NodeResourcesBalancedAllocation": 71, "NodeResourcesFit": 33,
               "TaintToleration": 300, "total": 404},
    "node-b": {"ImageLocality": 0, "NodeResourcesBalancedAllocation": 77, "NodeResourcesFit": 42,
               "TaintToleration": 300, "total": 419},
}
# big's filter statuses (§5.3, §5.6): see MSG_BIG_3 in conftest.py.
BIG_FILTER_3 = {
    "node-a": {"plugin": "NodeResourcesFit", "code": "Unschedulable", "reasons": ["Insufficient cpu"]},
    "node-b": {"plugin": "NodeResourcesFit", "code": "Unschedulable", "reasons": ["Insufficient cpu"]},
    "node-c": {"plugin": "TaintToleration", "code": "UnschedulableAndUnresolvable",
               "reasons": ["node(s) had untolerated taint {dedicated: gpu}"]},
}


def _json(cli, args, input=None):
    result = cli([*args, "-o", "json"], input=input)
    return result, (json.loads(result.stdout) if result.stdout else None)


def _check_folder_results(data: dict) -> None:
    """What the 3-node cluster must give, whichever way it was read."""
    assert [r["pod"] for r in data["results"]] == ["default/urgent", "default/big", "default/small"]
    pods = by_pod(data)

    urgent = pods["default/urgent"]
    assert (urgent["priority"], urgent["outcome"], urgent["node"], urgent["tied_nodes"]) == (
        1000, "bound", "node-b", ["node-b"])
    assert urgent["message"] is None
    assert urgent["preemption"] is None
    assert urgent["scores"] == URGENT_SCORES
    assert urgent["filter"] == {"node-c": BIG_FILTER_3["node-c"]}

    big = pods["default/big"]
    assert (big["priority"], big["outcome"], big["node"], big["tied_nodes"]) == (0, "unschedulable", None, [])
    assert big["message"] == MSG_BIG_3
    # PostFilter ran, no candidate: no nominated node, no victims.
    assert big["preemption"] == {"nominated_node": None, "victims": []}
    assert big["filter"] == BIG_FILTER_3
    assert big.get("num_nodes") == 3 and big.get("num_feasible") == 0

    small = pods["default/small"]
    assert (small["priority"], small["outcome"], small["node"], small["tied_nodes"]) == (
        0, "bound", "node-b", ["node-b"])
    assert small["scores"] == SMALL_SCORES

    assert data["counts"] == {"bound": 2, "unschedulable": 1}
    assert data["cluster"] == {"nodes": 3, "bound_pods": 2, "pending_pods": 3}
    assert data["version"] == "kube-scheduler v1.34.1"


# ------------------------------------------------------------------------- decisions ----

def test_folder_decisions_messages_and_exit_1(cli, validate):
    result, data = _json(cli, FOLDER)
    assert result.exit_code == 1, result.stderr  # big stays pending
    validate(data)
    _check_folder_results(data)


def test_several_cluster_options_two_nodes_exact_message(cli, validate):
    # Without node-c: the reference's own example (§8.3, second case, cpu only).
    result, data = _json(cli, [S, *TWO_NODE_ARGS, "--now", NOW])
    assert result.exit_code == 1
    validate(data)
    pods = by_pod(data)
    assert pods["default/big"]["message"] == MSG_BIG_2
    assert pods["default/big"]["filter"] == {n: BIG_FILTER_3[n] for n in ("node-a", "node-b")}
    assert pods["default/urgent"]["node"] == "node-b"
    assert pods["default/small"]["node"] == "node-b"
    assert data["cluster"] == {"nodes": 2, "bound_pods": 2, "pending_pods": 3}


def test_all_placed_exit_0(cli, validate):
    # fits 100m / 128Mi (no priority class, no globalDefault class -> priority 0), alone:
    #   Fit: node-a cpu 400*100 div 2000 = 20, mem (4-1.125)/4 -> 71 -> 45
    #        node-b cpu 1400*100 div 4000 = 35, mem (8-2.125)/8 -> 73 -> 54
    #   Balanced: node-a |0.8-0.28125|/2 -> trunc(74.06) = 74; node-b |0.65-0.265625|/2 -> trunc(80.78) = 80
    #   totals node-a 300+45+74 = 419, node-b 300+54+80 = 434 -> node-b.
    args = [S, "-c", str(CLUSTER / "nodes.yaml"), "-c", str(CLUSTER / "bound.yaml"), "-c", str(DATA / "fits.yaml"),
            "--now", NOW]
    result, data = _json(cli, args)
    assert result.exit_code == 0, result.stderr
    validate(data)
    [fits] = data["results"]
    assert (fits["pod"], fits["priority"], fits["outcome"], fits["node"]) == ("default/fits", 0, "bound", "node-b")
    assert totals(fits) == {"node-a": 419, "node-b": 434}
    assert data["counts"] == {"bound": 1}


def test_nothing_pending_exit_0(cli, validate):
    args = [S, "-c", str(CLUSTER / "nodes.yaml"), "-c", str(CLUSTER / "bound.yaml"), "--now", NOW]
    result, data = _json(cli, args)
    assert result.exit_code == 0, result.stderr
    validate(data)
    assert data["results"] == []
    assert data["cluster"] == {"nodes": 2, "bound_pods": 2, "pending_pods": 0}


def test_table_exit_code_matches_json(cli):
    assert cli(FOLDER).exit_code == 1
    assert cli([*FOLDER, "-o", "wide"]).exit_code == 1
    assert cli([*FOLDER, "-o", "yaml"]).exit_code == 1


# ---------------------------------------------------------------------------- inputs ----

def test_stdin_kind_list_json(cli, list_json_all, validate):
    result, data = _json(cli, [S, "-c", "-", "--now", NOW], input=list_json_all)
    assert result.exit_code == 1, result.stderr
    validate(data)
    _check_folder_results(data)


def test_kind_list_json_file(cli, tmp_path, list_json_all, validate):
    dump = tmp_path / "dump.json"
    dump.write_text(list_json_all)
    result, data = _json(cli, [S, "-c", str(dump), "--now", NOW])
    assert result.exit_code == 1, result.stderr
    validate(data)
    _check_folder_results(data)


def test_stdin_combined_with_a_file(cli, validate):
    # Two nodes and the pods on stdin as a List, node-c from a file: the 3-node result again.
    docs = cluster_documents("nodes.yaml", "bound.yaml", "priorityclasses.yaml", "pending.yaml")
    result, data = _json(cli, [S, "-c", "-", "-c", str(CLUSTER / "node-c.yaml"), "--now", NOW],
                         input=as_list_json(docs))
    assert result.exit_code == 1, result.stderr
    validate(data)
    _check_folder_results(data)


def test_stdin_multi_document_yaml(cli, validate):
    text = "\n".join((CLUSTER / n).read_text() + "\n---" for n in
                     ("nodes.yaml", "bound.yaml", "priorityclasses.yaml", "pending.yaml"))
    result, data = _json(cli, [S, "-c", "-", "--now", NOW], input=text)
    assert result.exit_code == 1, result.stderr
    validate(data)
    assert by_pod(data)["default/big"]["message"] == MSG_BIG_2


def test_folder_is_read_recursively_yaml_yml_json_only(cli, tmp_path, validate):
    # README: folders are read recursively for *.yaml, *.yml and *.json; other files are ignored.
    (tmp_path / "nodes" / "tainted").mkdir(parents=True)
    (tmp_path / "pods").mkdir()
    (tmp_path / "nodes" / "plain.yml").write_text((CLUSTER / "nodes.yaml").read_text())
    (tmp_path / "nodes" / "tainted" / "c.json").write_text(as_list_json(cluster_documents("node-c.yaml")))
    (tmp_path / "pods" / "bound.yaml").write_text((CLUSTER / "bound.yaml").read_text())
    (tmp_path / "pods" / "pending.yaml").write_text((CLUSTER / "pending.yaml").read_text())
    (tmp_path / "classes.yaml").write_text((CLUSTER / "priorityclasses.yaml").read_text())
    (tmp_path / "README.md").write_text("# not a manifest: {{{\n")
    (tmp_path / "pods" / "notes.txt").write_text("kind: Pod\n: : :\n")
    result, data = _json(cli, [S, "-c", str(tmp_path), "--now", NOW])
    assert result.exit_code == 1, result.stderr
    validate(data)
    _check_folder_results(data)


GATED_AND_LONELY = """
apiVersion: v1
kind: Pod
metadata: {name: gated, namespace: default, creationTimestamp: "2025-01-01T00:00:00Z"}
spec:
  schedulingGates: [{name: example.com/wait}]
  containers: [{name: c, image: registry.example/c:1}]
---
apiVersion: v1
kind: Pod
metadata: {name: lonely, namespace: default, creationTimestamp: "2025-01-01T00:00:01Z"}
spec:
  containers: [{name: c, image: registry.example/c:1, resources: {requests: {cpu: 100m}}}]
"""


def test_gated_pod_and_no_nodes(cli, validate):
    # §8.4: a gated pod is never attempted; with no node at all the text is
    # `no nodes available to schedule pods` (no PostFilter part).
    result, data = _json(cli, [S, "-c", "-", "--now", NOW], input=GATED_AND_LONELY)
    assert result.exit_code == 1
    validate(data)
    pods = by_pod(data)
    assert (pods["default/gated"]["outcome"], pods["default/gated"]["message"]) == (
        "gated", "Scheduling is blocked due to non-empty scheduling gates")
    assert (pods["default/lonely"]["outcome"], pods["default/lonely"]["message"]) == (
        "unschedulable", "no nodes available to schedule pods")


def test_gated_pod_keeps_the_exit_code_at_1(cli):
    # lonely 100m (no memory request) on the two empty nodes a and b:
    #   Fit uses the 200Mi memory default (§4.3): node-a cpu 1900*100 div 2000 = 95, mem -> 95 -> 95;
    #     node-b cpu 3900*100 div 4000 = 97, mem -> 97 -> 97
    #   Balanced (real requests, memory 0): node-a |0.05-0|/2 -> trunc(97.5) = 97; node-b -> trunc(98.75) = 98
    #   totals node-a 492, node-b 495 -> node-b.
    result, data = _json(cli, [S, "-c", "-", "-c", str(CLUSTER / "nodes.yaml"), "--now", NOW],
                         input=GATED_AND_LONELY)
    lonely = by_pod(data)["default/lonely"]
    assert (lonely["outcome"], lonely["node"]) == ("bound", "node-b")
    assert totals(lonely) == {"node-a": 492, "node-b": 495}
    assert by_pod(data)["default/gated"]["outcome"] == "gated"
    assert result.exit_code == 1  # the gated pod stays pending


# --------------------------------------------------------------------------- formats ----

def test_yaml_parses_to_the_same_data_as_json(cli):
    as_json = cli([*FOLDER, "-o", "json"])
    as_yaml = cli([*FOLDER, "-o", "yaml"])
    assert as_yaml.exit_code == as_json.exit_code == 1
    assert yaml.safe_load(as_yaml.stdout) == json.loads(as_json.stdout)


def test_table_names_pods_and_outcomes(cli):
    result = cli(FOLDER)
    assert result.exit_code == 1
    out = result.stdout
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.startswith("default/")}
    assert set(rows) == {"default/urgent", "default/big", "default/small"}
    assert rows["default/urgent"][1:4] == ["1000", "bound", "node-b"]
    assert rows["default/small"][1:4] == ["0", "bound", "node-b"]
    assert rows["default/big"][1:3] == ["0", "unschedulable"]
    # the message may be wrapped into a column, but all of it is there, word for word
    assert MSG_BIG_3 in " ".join(out.split())
    # rows in scheduling order
    order = [line.split()[0] for line in out.splitlines() if line.startswith("default/")]
    assert order == ["default/urgent", "default/big", "default/small"]


def test_wide_has_the_full_message_on_one_line(cli):
    result = cli([*FOLDER, "-o", "wide"])
    assert result.exit_code == 1
    [line] = [line for line in result.stdout.splitlines() if line.startswith("default/big")]
    assert "unschedulable" in line
    assert line.rstrip().endswith(MSG_BIG_3)
    for pod in ("default/urgent", "default/small"):
        assert any(line.startswith(pod) and "bound" in line and "node-b" in line
                   for line in result.stdout.splitlines())


def test_results_go_to_stdout_nothing_to_stderr(cli):
    result = cli([*FOLDER, "-o", "json", "-q"])
    assert result.stderr == ""
    json.loads(result.stdout)


# ------------------------------------------------------------------ real executables ----

def _run(cmd: list[str], input: str | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, input=input, capture_output=True, text=True, timeout=120, cwd=DATA,
                          env={**os.environ, **(env or {})})


def test_real_kwhatif_executable(validate):
    proc = _run([executable("kwhatif"), "schedule", "-c", "cluster", "--now", NOW, "-o", "json"])
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    data = json.loads(proc.stdout)
    validate(data)
    _check_folder_results(data)


def test_real_kwhatif_stdin(list_json_all):
    proc = _run([executable("kwhatif"), "schedule", "-c", "-", "--now", NOW, "-o", "json"], input=list_json_all)
    assert proc.returncode == 1, proc.stderr
    _check_folder_results(json.loads(proc.stdout))


def test_kubectl_plugin_executable_gives_the_same_output():
    args = ["schedule", "-c", "cluster", "--now", NOW, "-o", "wide"]
    direct = _run([executable("kwhatif"), *args])
    plugin = _run([executable("kubectl-whatif"), *args])
    assert plugin.returncode == direct.returncode == 1
    assert plugin.stdout == direct.stdout
    assert MSG_BIG_3 in plugin.stdout


@pytest.mark.parametrize("fmt", ["json", "table", "wide", "yaml"])
def test_two_runs_are_byte_identical(fmt):
    args = [executable("kwhatif"), "schedule", "-c", "cluster", "--now", NOW, "-o", fmt]
    # different hash seeds: no set/dict-order accident may show in the output
    first, second = _run(args, env={"PYTHONHASHSEED": "1"}), _run(args, env={"PYTHONHASHSEED": "2"})
    assert first.returncode == second.returncode == 1
    assert first.stdout.encode() == second.stdout.encode()
    assert first.stdout


def test_output_does_not_depend_on_input_order(cli):
    # The same objects, files given in reverse order: same decisions (queue order is by priority
    # and creationTimestamp, not by where a pod appears).
    forward = cli([S, *TWO_NODE_ARGS, "--now", NOW, "-o", "json"])
    pairs = [TWO_NODE_ARGS[i:i + 2] for i in range(0, len(TWO_NODE_ARGS), 2)]
    reverse_args = [a for pair in reversed(pairs) for a in pair]
    backward = cli([S, *reverse_args, "--now", NOW, "-o", "json"])
    assert json.loads(forward.stdout)["results"] == json.loads(backward.stdout)["results"]


def test_warnings_go_to_stderr_and_quiet_silences_them(cli):
    # node-c given twice (in the folder and on its own): a duplicate, the last one wins, with a warning.
    args = [S, "-c", str(CLUSTER), "-c", str(CLUSTER / "node-c.yaml"), "--now", NOW, "-o", "json"]
    loud = cli(args)
    assert loud.exit_code == 1
    warnings = loud.stderr.splitlines()
    assert warnings and all(w.startswith("kwhatif: warning: ") for w in warnings)
    assert any("node-c" in w for w in warnings)
    _check_folder_results(json.loads(loud.stdout))
    quiet = cli([*args, "-q"])
    assert quiet.stderr == ""
    assert quiet.stdout == loud.stdout


@pytest.mark.parametrize("args", [[], ["--no-node-detail"]], ids=["node detail", "no node detail"])
def test_json_is_written_pod_by_pod_as_one_document(cli, args):
    # The CLI streams JSON one pod at a time; the bytes are those of the whole document at once.
    from kwhatif.engine import simulate
    from kwhatif.load.cluster import load_cluster
    from kwhatif.render.results import simulation_data
    from kwhatif.render.json import to_json

    result = cli(["schedule", "-c", str(CLUSTER), "-o", "json", "--now", NOW, *args])
    whole = to_json(simulation_data(simulate(load_cluster([str(CLUSTER)]), NOW), node_detail=not args))
    assert result.stdout == whole
    if args:
        assert all("scores" not in r and "filter" not in r for r in json.loads(whole)["results"])


@pytest.mark.parametrize("args,kept", [
    ([], False),                                    # the table shows one line a pod
    (["-o", "wide"], False),
    (["-o", "json", "--no-node-detail"], False),
    (["-o", "yaml", "--no-node-detail"], False),
    (["-o", "json"], True),                         # only these print each pod's per-node detail
    (["-o", "yaml"], True),
], ids=["table", "wide", "json without detail", "yaml without detail", "json", "yaml"])
def test_the_run_keeps_per_node_detail_only_for_an_output_that_shows_it(cli, monkeypatch, args, kept):
    """Per-node detail is ~300 KB a pod at 5,000 nodes: a run keeps it only when the output
    prints it (`cli.common.detail_kept`), for `schedule` and `place` alike."""
    import kwhatif.engine as engine

    asked: list[bool] = []
    prepare = engine.prepare

    def spy(*a, **kw):
        asked.append(kw.get("node_detail", True))
        return prepare(*a, **kw)

    monkeypatch.setattr(engine, "prepare", spy)
    for command in (["schedule"], ["place", str(DATA / "place" / "web.yaml")]):
        result = cli([*command, "-c", str(CLUSTER), "--now", NOW, "-q", *args])
        assert result.exit_code in (0, 1), result.output
    assert asked == [kept, kept]
