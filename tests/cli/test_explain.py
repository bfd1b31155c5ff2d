"""`kwhatif explain`: why a pod lands where it does, or stays pending.

Expected values are worked out by hand from ../shared/design/SCHEDULER_REFERENCE.md (see
conftest.py and test_schedule.py for the arithmetic).
"""

from __future__ import annotations

import json
import re
import subprocess

import pytest
import yaml

from tests.cli.conftest import WEB_2_CPU, CLUSTER, DATA, MSG_BIG_3, NOW, REPO, executable, single_error_line, totals

CLUSTER_ARGS = ["-c", str(CLUSTER), "--now", NOW]
TAINT_REASON = "node(s) had untolerated taint {dedicated: gpu}"


def _rows(table: str) -> dict[str, str]:
    """Verdict rows of an explanation table, keyed by node name."""
    return {line.split()[0]: line for line in table.splitlines()
            if line.split() and line.split()[0] in ("node-a", "node-b", "node-c")}


def test_table_names_the_chosen_node_and_rejections(cli):
    # small -> node-b (419 against 404 for node-a); node-c rejected by TaintToleration.
    result = cli(["explain", "default/small", *CLUSTER_ARGS, "--all-nodes"])
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "default/small" in out
    rows = _rows(out)
    assert set(rows) == {"node-a", "node-b", "node-c"}
    assert "chosen" in rows["node-b"].split()
    assert rows["node-b"].split()[-1] == "419"
    assert "chosen" not in rows["node-a"] and rows["node-a"].split()[-1] == "404"
    assert "rejected" in rows["node-c"].split()
    assert "TaintToleration" in rows["node-c"].split()
    assert TAINT_REASON in rows["node-c"]


def test_table_for_an_unschedulable_pod(cli):
    # A bare name means the default namespace.
    result = cli(["explain", "big", *CLUSTER_ARGS, "--all-nodes"])
    assert result.exit_code == 1
    out = result.stdout
    assert MSG_BIG_3 in out
    rows = _rows(out)
    for node in ("node-a", "node-b"):
        words = rows[node].split()
        assert "rejected" in words and "NodeResourcesFit" in words
        assert rows[node].rstrip().endswith("Insufficient cpu")
    assert "TaintToleration" in rows["node-c"] and TAINT_REASON in rows["node-c"]
    assert not any("chosen" in r for r in rows.values())


def test_summary_groups_the_rejected_nodes_and_measures_how_far_they_are(cli, monkeypatch):
    """big (1800m cpu) runs after urgent (300m) went to node-b: node-a has 2000m - 1500m = 500m
    free, short by 1300m; node-b 4000m - 2500m - 300m = 1200m free, short by 600m (two nodes: the
    text gives no median, the lower of the two, which -o json keeps). node-c is stopped by its taint."""
    monkeypatch.setenv("COLUMNS", "1000")  # one line per sentence: the message must appear whole
    result = cli(["explain", "big", *CLUSTER_ARGS])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0] == "Pod default/big: unschedulable"
    assert "  " + MSG_BIG_3 in lines
    assert "     2  NodeResourcesFit (Unschedulable): Insufficient cpu" in lines
    assert "        e.g. node-a, node-b; cpu short by 600m–1300m" in lines
    assert f"     1  TaintToleration (UnschedulableAndUnresolvable): {TAINT_REASON}" in lines
    assert "        e.g. node-c" in lines
    assert any(line.startswith("  kwhatif: 'no new claims to deallocate'") for line in lines)
    assert "  potential nodes (status Unschedulable): 2 (node-a, node-b)" in lines
    assert not any(line.startswith(("node-a ", "node-b ")) for line in lines)  # no per-node table


def test_summary_of_a_placed_pod_puts_the_winner_beside_the_runner_up(cli, monkeypatch):
    """small: node-b 419, node-a 404 (test_schedule.py has the arithmetic): 15 behind. No
    preemption ran, so there is no preemption heading."""
    monkeypatch.setenv("COLUMNS", "1000")
    out = cli(["explain", "default/small", *CLUSTER_ARGS]).stdout
    assert out.splitlines()[0] == "Pod default/small: bound on node-b"
    assert "  best score: node-b, total 419 (" in out
    assert "  runner-up: node-a, total 404, 15 behind (" in out
    assert "preemption" not in out.lower()


def test_the_summary_wraps_to_the_terminal(cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    out = cli(["explain", "big", *CLUSTER_ARGS]).stdout
    assert max(len(line) for line in out.splitlines()) <= 60
    wrapped = out.split("message, verbatim:\n", 1)[1].split("\n  kwhatif:", 1)[0]
    assert " ".join(part.strip() for part in wrapped.splitlines()) == MSG_BIG_3  # verbatim once unwrapped


def test_node_adds_those_nodes_rows_after_the_summary(cli):
    out = cli(["explain", "big", *CLUSTER_ARGS, "--node", "node-c"]).stdout
    rows = _rows(out)
    assert set(rows) == {"node-c"} and "rejected" in rows["node-c"].split()
    # the hint to ask for nodes is for a page without them
    assert "--all-nodes, --node NAME" not in out
    assert "--all-nodes, --node NAME" in cli(["explain", "big", *CLUSTER_ARGS]).stdout


def test_json_carries_the_groups(cli):
    """The same groups as the summary (see the test above for the arithmetic)."""
    data = json.loads(cli(["explain", "big", *CLUSTER_ARGS, "-o", "json"]).stdout)
    groups = data["explanation"]["attempts"][0]["groups"]
    assert groups == [
        {"plugin": "NodeResourcesFit", "code": "Unschedulable", "reasons": ["Insufficient cpu"], "count": 2,
         "examples": ["node-a", "node-b"], "spreads": [{"quantity": "cpu", "low": 600, "median": 600, "high": 1300,
                                                              "nodes": 2}],
         "insight": [], "also_fails": []},
        {"plugin": "TaintToleration", "code": "UnschedulableAndUnresolvable", "reasons": [TAINT_REASON], "count": 1,
         "examples": ["node-c"], "spreads": [], "insight": [], "also_fails": []},
    ]


def test_a_bound_pod_is_explained_by_re_running_its_placement(cli, monkeypatch):
    """bound-a (1500m, 1Gi) placed again with bound-b where it is and no other pod pending.
    node-a empty (2000m, 4Gi): LeastAllocated ((500/2000 + 3/4) * 100) / 2 = 50, weight 1;
    BalancedAllocation 1 - |0.75 - 0.25| / 2 = 0.75 -> 75; TaintToleration 100 * 3 = 300: 425.
    node-b (4000m, 8Gi, bound-b 2500m, 2Gi): cpu full -> 0, memory 5/8 -> 62, (0 + 62) / 2 = 31;
    Balanced 1 - |1 - 0.375| / 2 = 0.6875 -> 68; 300: 399, 26 behind. node-c: its taint."""
    monkeypatch.setenv("COLUMNS", "1000")
    result = cli(["explain", "default/bound-a", *CLUSTER_ARGS])
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    # bound-a runs on node-a (tests/cli/data/cluster/bound.yaml): the headline says so first, then the re-run's node.
    assert lines[0] == "Pod default/bound-a: running on node-a; placed again now, it would be bound on node-a (the same node)"
    assert lines[1].startswith("kwhatif: the pod is bound in the snapshot; this re-runs its placement")
    assert ("  best score: node-a, total 425 (ImageLocality 0, NodeResourcesBalancedAllocation 75, "
            "NodeResourcesFit 50, TaintToleration 300)") in lines
    assert "  runner-up: node-b, total 399, 26 behind (ImageLocality 0, NodeResourcesBalancedAllocation 68, " \
           "NodeResourcesFit 31, TaintToleration 300)" in lines


def test_a_bound_pods_json_says_the_node_it_runs_on_beside_the_re_runs(cli):
    result = cli(["explain", "default/bound-a", *CLUSTER_ARGS, "-o", "json"])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["explanation"]["running_on"] == "node-a"  # its spec.nodeName in bound.yaml


def test_a_pod_that_does_not_exist_is_an_input_error(cli):
    result = cli(["explain", "default/nope", *CLUSTER_ARGS])
    assert result.exit_code == 2
    assert single_error_line(result.stderr) == \
        "kwhatif: error: default/nope: no such pod in the snapshot (nor among the pods to place)"


CORDONED = """
apiVersion: v1
kind: Node
metadata: {name: old, labels: {kubernetes.io/hostname: old}}
spec:
  unschedulable: true
  taints: [{key: dedicated, value: gpu, effect: NoSchedule}]
status:
  allocatable: {cpu: "1", memory: 4Gi, pods: "110"}
---
""" + WEB_2_CPU


def test_every_filter_that_rejects_a_node_is_named_not_only_the_first(cli, tmp_path):
    """kube-scheduler stops at NodeUnschedulable (first in the filter order); TaintToleration and
    NodeResourcesFit (2 cpu asked, 1 allocatable) reject the node too: kwhatif says so, beside the
    upstream verdict, which stays NodeUnschedulable's alone."""
    (tmp_path / "c.yaml").write_text(CORDONED)
    data = json.loads(cli(["explain", "web", "-c", str(tmp_path / "c.yaml"), "--now", NOW, "-o", "json"]).stdout)
    assert data["filter"] == {"old": {"plugin": "NodeUnschedulable", "code": "UnschedulableAndUnresolvable",
                                      "reasons": ["node(s) were unschedulable"]}}
    [group] = data["explanation"]["attempts"][0]["groups"]
    assert (group["plugin"], group["count"]) == ("NodeUnschedulable", 1)
    assert group["also_fails"] == [
        {"filter": "NodeResourcesFit: Insufficient cpu", "count": 1},
        {"filter": f"TaintToleration: {TAINT_REASON}", "count": 1},
    ]


def test_a_pending_pod_lists_the_events_that_retry_it(cli):
    """big is rejected by NodeResourcesFit (2 nodes) and TaintToleration (1): kube-scheduler keeps
    both as its unschedulable plugins and retries it on their registered events (noderesources/
    fit.go and tainttoleration/taint_toleration.go EventsToRegister, v1.34 defaults)."""
    data = json.loads(cli(["explain", "big", *CLUSTER_ARGS, "-o", "json"]).stdout)
    events = [(e["plugin"], e["resource"], e["actions"]) for e in data["explanation"]["requeue_on"]]
    assert events == [
        ("NodeResourcesFit", "Pod", ["Delete", "UpdatePodScaleDown"]),
        ("NodeResourcesFit", "Node", ["Add", "UpdateNodeAllocatable"]),
        ("TaintToleration", "Node", ["Add", "UpdateNodeTaint"]),
        ("TaintToleration", "Pod", ["UpdatePodToleration"]),
    ]
    assert all(e["why"] for e in data["explanation"]["requeue_on"])


def test_a_placed_pod_has_no_requeue_events(cli):
    data = json.loads(cli(["explain", "default/small", *CLUSTER_ARGS, "-o", "json"]).stdout)
    assert data["explanation"]["requeue_on"] == []


NAMED_NODES = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "1", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}
status: {allocatable: {cpu: "4", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, creationTimestamp: "2025-06-01T00:00:00Z"}
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [NAMED]}]}]
  containers: [{name: app, image: nginx, resources: {requests: {cpu: "2"}}}]
"""


@pytest.mark.parametrize("named, groups, retried_by, said", [
    # n9 is no node: NodeAffinity's PreFilter set {n9} leaves both nodes out, with the absent-node
    # status, which names no plugin (schedule_one.go:findNodesThatFitPod); RunPreFilterPlugins
    # returns NodeAffinity among the unschedulable plugins, so its events retry the pod.
    ("n9", [("", 2)], ["NodeAffinity"],
     "NodeAffinity's PreFilter left out every node: none is among the node names it returned"),
    # {n1}: n2 is left out; n1 is filtered and has 1 cpu for 2 asked (more than its allocatable: U&U).
    # One node each: requeue plugins by node count, then name.
    ("n1", [("", 1), ("NodeResourcesFit", 1)], ["NodeAffinity", "NodeResourcesFit"],
     "NodeAffinity's PreFilter left out these nodes: they are not among the node names it returned"),
])
def test_nodes_a_prefilter_node_set_leaves_out_are_said_to_be_that_plugins(
        cli, tmp_path, monkeypatch, named, groups, retried_by, said):
    """-o json keeps kube-scheduler's empty plugin; the page and the --node table name the
    PreFilter plugin whose node-name set left the nodes out, and its events retry the pod."""
    (tmp_path / "c.yaml").write_text(NAMED_NODES.replace("NAMED", named))
    args = ["explain", "web", "-c", str(tmp_path / "c.yaml"), "--now", NOW]
    data = json.loads(cli([*args, "-o", "json"]).stdout)
    attempt = data["explanation"]["attempts"][0]
    assert [(g["plugin"], g["count"]) for g in attempt["groups"]] == groups
    assert next(v for v in attempt["verdicts"] if v["node"] == "n2")["plugin"] == ""
    assert list(dict.fromkeys(e["plugin"] for e in data["explanation"]["requeue_on"])) == retried_by
    monkeypatch.setenv("COLUMNS", "1000")
    out = cli([*args, "--node", "n2"]).stdout
    assert "  NodeAffinity at PreFilter (UnschedulableAndUnresolvable): node(s) didn't satisfy plugin(s) " \
           "[NodeAffinity]" in out
    assert said in out
    assert "kube-scheduler retries it on" in out
    assert _node_row(out, "n2").split()[2:5] == ["NodeAffinity", "at", "PreFilter"]


def _node_row(table: str, node: str) -> str:
    return next(line for line in table.splitlines() if line.split()[:1] == [node])


def test_an_unknown_node_is_an_input_error(cli):
    result = cli(["explain", "big", *CLUSTER_ARGS, "--node", "node-z"])
    assert result.exit_code == 2
    assert single_error_line(result.stderr) == "kwhatif: error: --node node-z: no such node in the cluster"


def test_json_contains_the_result_and_an_explanation(cli, validate_pod_result):
    result = cli(["explain", "default/small", *CLUSTER_ARGS, "-o", "json"])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    validate_pod_result(data)
    assert (data["pod"], data["outcome"], data["node"], data["tied_nodes"]) == (
        "default/small", "bound", "node-b", ["node-b"])
    assert totals(data) == {"node-a": 404, "node-b": 419}
    assert isinstance(data["explanation"], dict) and data["explanation"]
    assert data["explanation"].get("attempts")


def test_json_for_the_pending_pod(cli, validate_pod_result):
    result = cli(["explain", "default/big", *CLUSTER_ARGS, "-o", "json"])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    validate_pod_result(data)
    assert (data["outcome"], data["node"], data["message"]) == ("unschedulable", None, MSG_BIG_3)
    assert data["preemption"] == {"nominated_node": None, "victims": []}
    assert "explanation" in data


def test_yaml_is_the_same_data_as_json(cli):
    as_json = cli(["explain", "default/big", *CLUSTER_ARGS, "-o", "json"])
    as_yaml = cli(["explain", "default/big", *CLUSTER_ARGS, "-o", "yaml"])
    assert yaml.safe_load(as_yaml.stdout) == json.loads(as_json.stdout)


def test_explain_a_pod_to_place(cli):
    # web from a manifest, placed after the cluster's pending pods -> node-a (419 vs 416, test_place.py).
    result = cli(["explain", "default/web", *CLUSTER_ARGS, "-f", str(DATA / "place" / "web.yaml"), "-o", "json"])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["pod"], data["node"]) == ("default/web", "node-a")


def test_unknown_pod_is_bad_input(cli):
    result = cli(["explain", "default/nope", *CLUSTER_ARGS])
    assert result.exit_code == 2
    line = single_error_line(result.stderr)
    assert "default/nope" in line
    assert result.stdout == ""
    assert "Traceback" not in result.stderr


def test_invalid_now_is_bad_input(cli):
    result = cli(["explain", "default/small", "-c", str(CLUSTER), "--now", "yesterday"])
    assert result.exit_code == 2
    line = single_error_line(result.stderr)
    assert "--now" in line and "yesterday" in line
    assert "Traceback" not in result.stdout + result.stderr


def test_real_executable_explain():
    proc = subprocess.run([executable("kwhatif"), "explain", "shop/nope", "-c", "cluster", "--now", NOW],
                          capture_output=True, text=True, cwd=DATA, timeout=120)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stdout + proc.stderr
    assert single_error_line(proc.stderr)
    proc = subprocess.run([executable("kwhatif"), "explain", "default/small", "-c", "cluster", "--now", NOW],
                          capture_output=True, text=True, cwd=DATA, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "1  TaintToleration (UnschedulableAndUnresolvable)" in proc.stdout


def test_a_group_that_shares_the_plugins_sentence_says_it(cli, tmp_path, monkeypatch):
    """trainer asks for 2 nvidia.com/gpu (its limit, defaulted as the request) and tolerates every
    taint: no node of the cluster has any. Every node of the one group has the same shortfall, so
    the summary says it in NodeResourcesFit's words — none at all — rather than "short by 2"."""
    monkeypatch.setenv("COLUMNS", "1000")
    pod = tmp_path / "trainer.yaml"
    pod.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: trainer, namespace: default}\nspec:\n"
                   "  tolerations: [{operator: Exists}]\n"
                   "  containers: [{name: t, image: t, resources: {limits: {nvidia.com/gpu: 2}}}]\n")
    out = cli(["explain", "default/trainer", "-f", str(pod), *CLUSTER_ARGS]).stdout
    assert ("        e.g. node-a, node-b, node-c; nvidia.com/gpu: pod requests 2, node has 0 free of 0 allocatable "
            "(more than the whole node: no eviction can help)") in out.splitlines()


def test_a_pod_naming_a_missing_node_is_not_given_kube_schedulers_words(cli, tmp_path):
    """kube-scheduler never sees a pod with spec.nodeName (its kubelet takes it), so no
    FailedScheduling event exists to quote: the text is kwhatif's, and the page says so."""
    manifest = tmp_path / "a14.yaml"
    manifest.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a14", "namespace": "default"},
                                        "spec": {"nodeName": "ghost", "containers": [{"name": "c", "image": "x"}]}}))
    for output in ("table", "html"):
        result = cli(["explain", "default/a14", *CLUSTER_ARGS, "-f", str(manifest), "-o", output])
        assert result.exit_code == 1, result.stderr  # the pod does not get a node
        assert "FailedScheduling" not in result.stdout
        assert "account: kube-scheduler never tried it" in result.stdout  # (the page escapes the quote)


def test_a_pod_a_whatif_removed_is_named_with_the_operation_and_its_replacement(cli, tmp_path):
    """--delete-pod of a ReplicaSet's pod: its controller makes one named `<rs>-<5 chars>`; asked
    for the old name, explain says what took it and which pod took its place."""
    docs = [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1"}},
         "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}},
        {"apiVersion": "v1", "kind": "Pod",
         "metadata": {"name": "web-abc-aaaaa", "namespace": "default", "ownerReferences": [
             {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-abc", "uid": "u", "controller": True}]},
         "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "x"}]}, "status": {"phase": "Running"}},
    ]
    (tmp_path / "c.yaml").write_text(yaml.safe_dump_all(docs))
    result = cli(["explain", "default/web-abc-aaaaa", "-c", str(tmp_path / "c.yaml"), "--now", NOW,
                  "--delete-pod", "default/web-abc-aaaaa"])
    assert result.exit_code == 2
    line = single_error_line(result.stderr)
    assert re.search(r"; --delete-pod default/web-abc-aaaaa removed it; its controller recreated it as "
                     r"default/web-abc-[a-z0-9]{5}: explain that$", line), line


def test_a_gated_pod_is_explained_with_its_gates(cli, tmp_path):
    # The condition message ("Scheduling is blocked due to non-empty scheduling gates") names no
    # gate: kwhatif's line does, and -o json's explanation.gates lists them.
    pod = tmp_path / "gated.yaml"
    pod.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: held, namespace: default}\nspec:\n"
                   "  schedulingGates: [{name: example.com/quota}, {name: example.com/review}]\n"
                   "  containers: [{name: c, image: nginx}]\n")
    out = cli(["explain", "default/held", "-f", str(pod), *CLUSTER_ARGS]).stdout
    assert "kwhatif: its scheduling gates: example.com/quota, example.com/review" in " ".join(out.split())
    data = json.loads(cli(["explain", "default/held", "-f", str(pod), *CLUSTER_ARGS, "-o", "json"]).stdout)
    assert data["explanation"]["gates"] == ["example.com/quota", "example.com/review"]


def test_a_preemptors_first_attempt_shows_its_failedscheduling_message(cli, monkeypatch):
    """vip (tests/cli/test_place.py::test_placed_pod_preempts has the arithmetic): attempt 1 fails
    on all three nodes and preemption succeeds, so the event users see is the FitError without a
    PostFilter part (reference 9.9); attempt 2 binds on node-a. The page shows that event under
    attempt 1, where users look for it, not as the pod's message (it is bound)."""
    monkeypatch.setenv("COLUMNS", "1000")
    result = cli(["explain", "default/vip", "-f", str(DATA / "place" / "vip.yaml"), *CLUSTER_ARGS])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "Pod default/vip: bound on node-a"
    at = lines.index("Attempt 1 (before preemption):")
    assert lines[at + 1:at + 3] == [
        "kube-scheduler v1.34.1's FailedScheduling message, verbatim:",
        "  0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 2 Insufficient cpu."]


def test_a_rejection_names_the_pods_this_run_placed_on_the_node(cli, monkeypatch):
    """big (1800m) comes after urgent (300m), which the run bound on node-b (the arithmetic above:
    1200m free, short by 600m): the user's `kubectl describe node node-b` does not show urgent
    there, so the node's insight names it. node-a got no pod in the run: nothing said."""
    monkeypatch.setenv("COLUMNS", "1000")
    lines = cli(["explain", "big", *CLUSTER_ARGS, "--node", "node-b", "--node", "node-a"]).stdout.splitlines()
    assert ("  node-b: NodeResourcesFit: kwhatif placed default/urgent here earlier in this run (the snapshot has "
            "them elsewhere or pending)") in lines
    assert not any(line.startswith("  node-a:") and "placed" in line for line in lines)


def test_json_says_whether_suggestions_were_searched(cli):
    """big stays pending (unschedulable): suggestions searched; small is bound: none searched, so
    its empty list says nothing about what would fit."""
    big = json.loads(cli(["explain", "big", *CLUSTER_ARGS, "-o", "json"]).stdout)
    small = json.loads(cli(["explain", "small", *CLUSTER_ARGS, "-o", "json"]).stdout)
    assert (big["explanation"]["suggestions_searched"], small["explanation"]["suggestions_searched"]) == (True, False)


def test_a_nominated_node_taken_unscored_is_said_so(cli, monkeypatch):
    """vip's second attempt (test_place.py::test_placed_pod_preempts): nominated to node-a after
    its preemption, node-a passes the filters and kube-scheduler takes it without the others
    (evaluateNominatedNode): "1 node evaluated" and a best score would read as a choice made."""
    monkeypatch.setenv("COLUMNS", "1000")
    lines = cli(["explain", "default/vip", "-f", str(DATA / "place" / "vip.yaml"), *CLUSTER_ARGS]).stdout.splitlines()
    at = lines.index("Attempt 2 (after the victims are gone) (nominated node, filters only): bound on node-a")
    assert lines[at + 1].startswith("kwhatif: the pod was nominated to node-a (status.nominatedNodeName: ")


def test_a_pod_whose_claim_template_is_missing_is_told_what_to_change(cli):
    # data/dra/notmpl.yaml: Deployment nt's pods take claim `g` from template missing-tmpl, which
    # no file holds. The scheduler only says `ResourceClaim not created yet` (PreEnqueue), as for
    # the moment the resourceclaim controller takes; here it never makes the claim.
    dra = DATA / "dra"
    args = ["-f", str(dra / "notmpl.yaml"), "-c", str(dra / "nodes.yaml"), "--now", NOW]
    data = json.loads(cli(["explain", "deploy/default/nt", *args, "-o", "json"]).stdout)
    assert data["outcome"] == "gated" and data["message"].endswith(": ResourceClaim not created yet")
    assert data["explanation"]["held"] == [
        'the resourceclaim controller can never create the claim of spec.resourceClaims[0] (g): resourceclaimtemplate '
        '"missing-tmpl" does not exist in namespace default (its FailedResourceClaimCreation event on the pod: '
        '"PodResourceClaim g: resource claim template "missing-tmpl": resourceclaimtemplate.resource.k8s.io '
        '"missing-tmpl" not found"). Create the template, or fix resourceClaimTemplateName: the pod waits until then']
    text = " ".join(cli(["explain", "deploy/default/nt", *args]).stdout.split())  # wrapped to the terminal
    assert "kwhatif: the resourceclaim controller can never create the claim of spec.resourceClaims[0] (g):" in text


TIE = DATA / "preemption-tie"
"""Nodes a, b, c (2 cpu each), each full with one priority-0 victim of 2 cpu; vc started
2025-01-01, va and vb 2025-01-02; pre (priority 10, 2 cpu). Reference 9.7: criteria 1-4 are equal
(no PDB, first victim priority 0, sum 0 + 2^31, one victim); 5 keeps the latest start, a and b;
6: map order, at random — kwhatif takes a."""


@pytest.mark.parametrize("output", ["table", "wide"])
def test_a_preemption_tie_names_the_tied_nodes_and_kube_schedulers_random_pick(cli, monkeypatch, output):
    monkeypatch.setenv("COLUMNS", "1000")
    out = cli(["explain", "default/pre", "-f", str(TIE / "pod.yaml"), "-c", str(TIE / "cluster.json"), "--now", NOW,
               "-o", output]).stdout
    assert "  chosen: a (decided by: tie (smallest node name))" in out.splitlines()
    assert ("  kwhatif: 2 candidates tie on every criterion (a, b); kube-scheduler picks one at random "
            "(preemption.go pickOneNodeForPreemption: Go map order), kwhatif the smallest name") in out


def _team_node(i: int) -> str:
    return f"""---
apiVersion: v1
kind: Node
metadata: {{name: n{i}, labels: {{kubernetes.io/hostname: n{i}}}}}
spec:
  taints: [{{key: team, value: t{i}, effect: NoSchedule}}]
status:
  allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}
"""


def test_nodes_tainted_per_team_are_one_group_and_the_message_stays_upstreams(cli, tmp_path, monkeypatch):
    """Four nodes, each tainted team=t<i>: the FailedScheduling message keeps one reason per value
    (reference 8.1: each distinct reason counted, sorted; 8.2: the PostFilter part, every node
    UnschedulableAndUnresolvable, so `Preemption is not helpful`); the summary gathers them by key."""
    monkeypatch.setenv("COLUMNS", "1000")
    (tmp_path / "c.yaml").write_text("".join(_team_node(i) for i in range(4)) + "---\n" + WEB_2_CPU)
    args = ["explain", "web", "-c", str(tmp_path / "c.yaml"), "--now", NOW]
    lines = cli(args).stdout.splitlines()
    taints = ", ".join(f"1 node(s) had untolerated taint {{team: t{i}}}" for i in range(4))
    assert (f"  0/4 nodes are available: {taints}. no new claims to deallocate, preemption: 0/4 nodes are available: "
            "4 Preemption is not helpful for scheduling.") in lines
    assert ("     4  TaintToleration (UnschedulableAndUnresolvable): an untolerated taint with key team (4 different "
            "values: t0, t1, t2 and 1 more; kwhatif's grouping)") in lines
    [group] = json.loads(cli([*args, "-o", "json"]).stdout)["explanation"]["attempts"][0]["groups"]
    assert (group["taint_key"], group["count"], group["reasons"]) == (
        "team", 4, [f"node(s) had untolerated taint {{team: t{i}}}" for i in range(4)])


def test_an_unbound_immediate_claim_is_named_with_why_it_is_unbound(cli, tmp_path, monkeypatch):
    """VolumeBinding's PreFilter says `pod has unbound immediate PersistentVolumeClaims` and no
    more (reference §5.1); the explanation names the claim and the missing step of the PV
    controller (a no-provisioner Immediate class, and no PersistentVolume at all: one must be made)."""
    monkeypatch.setenv("COLUMNS", "1000")
    (tmp_path / "c.yaml").write_text(
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {kubernetes.io/hostname: n1}}\n"
        "status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}\n---\n"
        "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: local}\n"
        "provisioner: kubernetes.io/no-provisioner\nvolumeBindingMode: Immediate\n---\n"
        "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data, namespace: default}\n"
        "spec: {storageClassName: local, accessModes: [ReadWriteOnce], resources: {requests: {storage: 5Gi}}}\n"
        "status: {phase: Pending}\n---\n"
        "apiVersion: v1\nkind: Pod\nmetadata: {name: db, namespace: default}\n"
        "spec: {containers: [{name: c, image: pg}], volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]}\n")
    out = cli(["explain", "default/db", "-c", str(tmp_path / "c.yaml"), "--now", NOW]).stdout
    assert "  0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. not found" in out.splitlines()
    assert ("PersistentVolumeClaim default/data: StorageClass local binds at once (Immediate) but does not provision, "
            "and no Available PersistentVolume of it matches the claim (at least 5Gi, ReadWriteOnce): create one") in out


def test_one_replica_too_many_for_a_one_per_node_set_is_offered_a_node_not_a_sibling_deleted(cli, tmp_path):
    """StatefulSet db: 4 replicas, required anti-affinity per hostname, 3 nodes each holding one:
    db-3 stays pending. Deleting db-0 frees nothing (its controller makes db-0 again, repelled
    the same way); one more node like n1 — a new hostname — fits it (the re-run proves it)."""
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    docs = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": n, "labels": {"kubernetes.io/hostname": n}},
             "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}} for n in ("n1", "n2", "n3")]
    for i, node in enumerate(["n1", "n2", "n3", None]):
        spec: dict = {"affinity": anti, "containers": [{"name": "c", "image": "pg"}]}
        if node:
            spec["nodeName"] = node
        docs.append({"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": f"db-{i}", "namespace": "default", "labels": {"app": "db"}, "ownerReferences": [
                {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db", "uid": "u-db", "controller": True}]},
            "spec": spec, "status": {"phase": "Running" if node else "Pending"}})
    (tmp_path / "c.yaml").write_text(yaml.safe_dump_all(docs))
    data = json.loads(cli(["explain", "default/db-3", "-c", str(tmp_path / "c.yaml"), "--now", NOW, "-o", "json"]).stdout)
    summaries = [s["summary"] for s in data["explanation"]["suggestions"]]
    assert "add 1 node(s) like n1: the pod then fits" in summaries
    assert not any(s.startswith("delete") for s in summaries)


def test_a_fix_that_takes_the_room_of_a_pod_queued_after_says_so(cli):
    """Conformance case t11: shop/web-wrong-value (500m) stays pending and shop/plain-small, queued
    after it, is bound on general-1 (the reference). Lowering web's request to what general-1 has
    free binds web there — and leaves plain-small (50m) no room: the suggestion says so (its own
    re-run, the queue up to web, could not see it)."""
    case = REPO / "tests" / "conformance" / "cases" / "targeted" / "t11-taint-noschedule-equal.yaml"
    data = json.loads(cli(["explain", "shop/web-wrong-value", "-c", str(case), "--now", NOW, "-o", "json"]).stdout)
    summaries = [s["summary"] for s in data["explanation"]["suggestions"]]
    lowered = next(s for s in summaries if s.startswith("lower container web's cpu request"))
    assert "it then takes the room of shop/plain-small, queued after it and bound without the change" in lowered
    toleration = next(s for s in summaries if s.startswith("tolerate the taint"))
    assert "takes the room" not in toleration
