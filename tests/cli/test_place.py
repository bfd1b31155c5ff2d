"""`kwhatif place`: pods from manifests (a file, a folder) added as pending and scheduled.

Expected values are worked out by hand from ../shared/design/SCHEDULER_REFERENCE.md; the cluster
is described in conftest.py. The cluster's own pending pods are scheduled first as in
test_schedule.py: urgent -> node-b, big stays pending, small -> node-b. Before the placed pods the
nodes therefore hold: node-a 1500m / 1Gi of 2000m / 4Gi, node-b 3200m / 2.75Gi of 4000m / 8Gi.
"""

from __future__ import annotations

import json
import subprocess

import pytest
import yaml

from tests.cli.conftest import CLUSTER, DATA, MSG_BIG_3, NOW, by_pod, executable, totals

PLACE = DATA / "place"
WEB = str(PLACE / "web.yaml")
BATCH = str(PLACE / "batch")
HUGE = str(PLACE / "huge.yaml")
CLUSTER_ARGS = ["-c", str(CLUSTER), "--now", NOW]
ROGUE_MESSAGE = 'admission: pods "rogue" is forbidden: no PriorityClass with name does-not-exist was found'


def _place(cli, *pod_files: str, cluster=CLUSTER_ARGS, fmt: str = "json"):
    result = cli(["place", *pod_files, *cluster, "-o", fmt])
    return result, (json.loads(result.stdout) if fmt == "json" and result.stdout else None)


def test_manifest_pod_is_queued_after_older_pending_pods(cli, validate):
    # web has no creationTimestamp: it is created "now" (2026-01-01), after big (2025-06-01) and small
    # (2025-06-02) of the same priority 0, so it is scheduled last.
    # web 100m / 128Mi after small:
    #   Fit: node-a cpu 400*100 div 2000 = 20, mem (4-1.125)/4 -> 71 -> 45
    #        node-b cpu 700*100 div 4000 = 17, mem (8-2.875)/8 -> 64 -> 40
    #   Balanced: node-a |0.8-0.28125|/2 -> trunc(74.06) = 74; node-b |0.825-0.359375|/2 -> trunc(76.72) = 76
    #   totals node-a 300+45+74 = 419, node-b 300+40+76 = 416 -> node-a.
    # (Had web been scheduled before small, node-b would have won: 426 against 419.)
    result, data = _place(cli, WEB)
    validate(data)
    assert [r["pod"] for r in data["results"]] == ["default/urgent", "default/big", "default/small", "default/web"]
    web = by_pod(data)["default/web"]
    assert (web["priority"], web["outcome"], web["node"], web["tied_nodes"]) == (0, "bound", "node-a", ["node-a"])
    assert totals(web) == {"node-a": 419, "node-b": 416}
    assert by_pod(data)["default/big"]["message"] == MSG_BIG_3
    # big stays pending, but the exit code is about the placed pods only: web is bound.
    assert result.exit_code == 0, result.stderr


def test_placed_pod_that_stays_pending_exits_1_even_if_the_cluster_is_fine(cli, validate):
    # Cluster: node-a, node-b and their bound pods, nothing pending. huge asks 5 cpu: more than either
    # node's allocatable -> Insufficient cpu with code UnschedulableAndUnresolvable on both (§5.6), so
    # no node is potential for preemption (§9.2).
    cluster = ["-c", str(CLUSTER / "nodes.yaml"), "-c", str(CLUSTER / "bound.yaml"), "--now", NOW]
    result, data = _place(cli, HUGE, cluster=cluster)
    validate(data)
    [huge] = data["results"]
    assert (huge["pod"], huge["outcome"], huge["node"]) == ("default/huge", "unschedulable", None)
    assert huge["message"] == (
        "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: "
        "0/2 nodes are available: 2 Preemption is not helpful for scheduling.")
    assert huge["filter"] == {
        n: {"plugin": "NodeResourcesFit", "code": "UnschedulableAndUnresolvable", "reasons": ["Insufficient cpu"]}
        for n in ("node-a", "node-b")}
    assert result.exit_code == 1


def test_huge_pod_in_the_three_node_cluster(cli):
    # node-c has the cpu but an untolerated taint; node-a/node-b U&U -> nothing is potential.
    result, data = _place(cli, HUGE)
    assert result.exit_code == 1
    assert by_pod(data)["default/huge"]["message"] == (
        "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 2 Insufficient cpu. "
        "no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful "
        "for scheduling.")


def test_pods_from_a_folder_unknown_priority_class_is_skipped_and_the_run_goes_on(cli, validate):
    # rogue names a PriorityClass that does not exist: Priority admission refuses it (§10.1).
    # worker 200m / 256Mi after small:
    #   Fit: node-a cpu 300*100 div 2000 = 15, mem (4-1.25)/4 -> 68 -> 41
    #        node-b cpu 600*100 div 4000 = 15, mem (8-3)/8 -> 62 -> 38
    #   Balanced: node-a |0.85-0.3125|/2 = 0.26875 -> 73; node-b |0.85-0.375|/2 = 0.2375 -> 76
    #   totals node-a 300+41+73 = 414, node-b 300+38+76 = 414: a tie -> node-a, both listed (§12.2).
    result, data = _place(cli, BATCH)
    validate(data)
    pods = by_pod(data)
    rogue = pods["default/rogue"]
    assert (rogue["outcome"], rogue["node"], rogue["tied_nodes"]) == ("skipped", None, [])
    assert rogue["message"] == ROGUE_MESSAGE
    worker = pods["default/worker"]
    assert (worker["outcome"], worker["node"], worker["tied_nodes"]) == ("bound", "node-a", ["node-a", "node-b"])
    assert totals(worker) == {"node-a": 414, "node-b": 414}
    assert set(pods) == {"default/urgent", "default/big", "default/small", "default/rogue", "default/worker"}
    assert data["counts"] == {"bound": 3, "skipped": 1, "unschedulable": 1}
    # A placed pod was rejected: exit 1 (README: "some pod stays pending or was rejected").
    assert result.exit_code == 1


def test_file_and_folder_together_in_input_order(cli, validate):
    # web and worker are both created "now" with priority 0: input order decides (§3.2, §12.2).
    # web -> node-a (419 vs 416, see above); then worker:
    #   node-a 1600m / 1.125Gi: Fit cpu 200*100 div 2000 = 10, mem (4-1.375)/4 -> 65 -> 37;
    #                          Balanced |0.9-0.34375|/2 = 0.278125 -> 72; total 409
    #   node-b unchanged: 414 (see the folder test) -> node-b.
    result, data = _place(cli, WEB, BATCH)
    validate(data)
    order = [r["pod"] for r in data["results"] if r["outcome"] == "bound"]
    assert order == ["default/urgent", "default/small", "default/web", "default/worker"]
    pods = by_pod(data)
    assert pods["default/web"]["node"] == "node-a"
    assert pods["default/worker"]["node"] == "node-b"
    assert totals(pods["default/worker"]) == {"node-a": 409, "node-b": 414}
    assert pods["default/rogue"]["message"] == ROGUE_MESSAGE
    assert result.exit_code == 1  # rogue


def test_place_table_and_yaml(cli):
    table = cli(["place", WEB, *CLUSTER_ARGS])
    assert table.exit_code == 0
    [row] = [line.split() for line in table.stdout.splitlines() if line.startswith("default/web")]
    assert row[1:4] == ["0", "bound", "node-a"]
    as_yaml = cli(["place", WEB, *CLUSTER_ARGS, "-o", "yaml"])
    as_json = cli(["place", WEB, *CLUSTER_ARGS, "-o", "json"])
    assert yaml.safe_load(as_yaml.stdout) == json.loads(as_json.stdout)


def test_the_table_lists_the_placed_pods_and_counts_the_rest_of_the_queue(cli):
    """Queue: urgent (bound), big (pending), small (bound), then web: the table answers for web
    and counts the other three; `-o wide` and `--no-headers` keep to their own rules (every pod;
    the placed pod's row alone)."""
    table = cli(["place", WEB, *CLUSTER_ARGS]).stdout.splitlines()
    assert [line.split()[0] for line in table[1:] if line and line[0] != " "][:1] == ["default/web"]
    assert table[-1] == "not listed: the 3 other pod(s) of the queue (2 bound, 1 unschedulable); -o wide lists every pod"
    wide = cli(["place", WEB, *CLUSTER_ARGS, "-o", "wide"]).stdout.splitlines()
    assert [line.split()[0] for line in wide[1:5]] == ["default/urgent", "default/big", "default/small", "default/web"]
    assert not any(line.startswith("not listed") for line in wide)
    bare = cli(["place", WEB, *CLUSTER_ARGS, "--no-headers"]).stdout.splitlines()
    assert [line.split()[:4] for line in bare] == [["default/web", "0", "bound", "node-a"]]


def test_wide_shows_the_admission_message(cli):
    result = cli(["place", BATCH, *CLUSTER_ARGS, "-o", "wide"])
    assert result.exit_code == 1
    [line] = [line for line in result.stdout.splitlines() if line.startswith("default/rogue")]
    assert "skipped" in line
    assert line.rstrip().endswith(ROGUE_MESSAGE)


def test_real_executable_place():
    proc = subprocess.run([executable("kwhatif"), "place", "place/web.yaml", "place/batch/", "-c", "cluster", "--now", NOW,
                           "-o", "json"], capture_output=True, text=True, cwd=DATA, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    pods = by_pod(json.loads(proc.stdout))
    assert (pods["default/web"]["node"], pods["default/worker"]["node"]) == ("node-a", "node-b")


def test_placed_pod_preempts(cli, validate):
    # vip: class `high` (1000), 1800m / 1Gi, created now -> after urgent (same priority, older), before
    # big and small (priority 0). Nodes then: node-a 1500m used (bound-a, priority 0), node-b 2800m used
    # (bound-b priority 0, urgent priority 1000).
    # Attempt 1: node-a 1800 > 500 free, node-b 1800 > 1200 free -> Insufficient cpu (Unschedulable);
    #   node-c taint (U&U). Preemption succeeds, so the message has no PostFilter part (§9.9).
    # Preemption (§9.4, §9.7): node-a: evict bound-a -> fits, victims [bound-a]; node-b: evict bound-b
    #   (urgent is not lower) -> fits, victims [bound-b]. Every criterion ties (0 PDB violations,
    #   top victim priority 0, same sum, 1 victim, same start time) -> smallest name: node-a.
    # Attempt 2: nominated node-a passes the filters -> bound on node-a.
    # big then: node-a 200m free, node-b 1200m free -> same message as without vip.
    # small then: only node-b fits (node-a 200m free < 400m) -> node-b.
    result, data = _place(cli, str(PLACE / "vip.yaml"))
    validate(data)
    assert [r["pod"] for r in data["results"]] == ["default/urgent", "default/vip", "default/big", "default/small"]
    pods = by_pod(data)
    vip = pods["default/vip"]
    assert (vip["priority"], vip["outcome"], vip["node"]) == (1000, "bound", "node-a")
    assert vip["preemption"] == {"nominated_node": "node-a", "victims": ["default/bound-a"]}
    first, second = vip["attempts"]
    assert first["outcome"] == "unschedulable"
    assert first["message"] == "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, " \
                               "2 Insufficient cpu."
    assert (second["outcome"], second["node"]) == ("bound", "node-a")
    assert pods["default/big"]["message"] == MSG_BIG_3
    assert (pods["default/small"]["outcome"], pods["default/small"]["node"]) == ("bound", "node-b")
    assert pods["default/small"]["num_feasible"] == 1
    assert result.exit_code == 0  # vip is placed

    wide = cli(["place", str(PLACE / "vip.yaml"), *CLUSTER_ARGS, "-o", "wide"])
    [line] = [line for line in wide.stdout.splitlines() if line.startswith("default/vip")]
    assert "node-a" in line and "default/bound-a" in line  # wide names the victims


def test_pod_manifest_from_stdin(cli):
    result = cli(["place", "-", *CLUSTER_ARGS, "-o", "json"], input=(PLACE / "web.yaml").read_text())
    assert result.exit_code == 0, result.stderr
    web = by_pod(json.loads(result.stdout))["default/web"]
    assert (web["outcome"], web["node"]) == ("bound", "node-a")


def test_no_preemption_answers_whether_it_fits_without_evicting(cli, validate):
    # The same vip as above with DefaultPreemption off: attempt 1's filter failures stand (node-a and
    # node-b Insufficient cpu, node-c tainted) and the PostFilter part is DynamicResources' alone
    # (§8.2: its Unschedulable reason, no "preemption: " part), nobody is evicted, no retry.
    result, data = _place(cli, str(PLACE / "vip.yaml"), "--no-preemption")
    validate(data)
    vip = by_pod(data)["default/vip"]
    assert (vip["outcome"], vip["node"]) == ("unschedulable", None)
    assert vip["message"] == ("0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, "
                              "2 Insufficient cpu. no new claims to deallocate")
    assert vip["preemption"] == {"nominated_node": None, "victims": []}
    assert "attempts" not in vip
    assert result.exit_code == 1  # the placed pod does not fit


def test_a_pod_for_a_namespace_the_cluster_lacks_is_refused(cli, tmp_path):
    # NamespaceLifecycle admission: creating a pod in a namespace that does not exist fails with
    # `namespaces "<ns>" not found`; the run goes on (the cluster's own pods are still scheduled).
    pod = tmp_path / "stray.yaml"
    pod.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: stray, namespace: nowhere}\n"
                   "spec:\n  containers: [{name: c, image: nginx}]\n")
    namespace = tmp_path / "ns.yaml"
    namespace.write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: default}\n")
    result, data = _place(cli, str(pod), cluster=(*CLUSTER_ARGS, "-c", str(namespace)))
    stray = by_pod(data)["nowhere/stray"]
    assert (stray["outcome"], stray["message"]) == ("skipped", 'admission: namespaces "nowhere" not found')
    assert result.exit_code == 1


@pytest.mark.parametrize("being_deleted", ["metadata: {name: gone, deletionTimestamp: '2025-01-01T00:00:00Z'}\n",
                                           "metadata: {name: gone}\nstatus: {phase: Terminating}\n"])
def test_a_pod_for_a_namespace_being_deleted_is_refused(cli, tmp_path, being_deleted):
    # NamespaceLifecycle: "unable to create new content in namespace gone because it is being terminated"
    # (admission.NewForbidden: `pods "stray" is forbidden: ...`), even when the manifests apply the Namespace again.
    pod = tmp_path / "stray.yaml"
    pod.write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: gone}\n---\n"
                   "apiVersion: v1\nkind: Pod\nmetadata: {name: stray, namespace: gone}\n"
                   "spec:\n  containers: [{name: c, image: nginx}]\n")
    namespace = tmp_path / "ns.yaml"
    namespace.write_text("apiVersion: v1\nkind: Namespace\n" + being_deleted)
    result, data = _place(cli, str(pod), cluster=(*CLUSTER_ARGS, "-c", str(namespace)))
    stray = by_pod(data)["gone/stray"]
    assert (stray["outcome"], stray["message"]) == (
        "skipped", 'admission: pods "stray" is forbidden: unable to create new content in namespace gone because it '
                   "is being terminated")
    assert result.exit_code == 1



def test_a_pod_named_as_one_the_snapshot_has_is_rejected_as_already_existing(cli, tmp_path):
    # bound-a's name: creating it, the API server answers AlreadyExists (`pods "bound-a" already
    # exists`): reported as rejected, the rest of the run goes on (exit 1: a pod not placed).
    pod = tmp_path / "bound-a.yaml"
    pod.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: bound-a, namespace: default}\n"
                   "spec:\n  containers: [{name: c, image: nginx}]\n")
    result = cli(["place", str(pod), *CLUSTER_ARGS, "-o", "json"])
    assert result.exit_code == 1
    [placed] = [r for r in json.loads(result.stdout)["results"] if r["pod"] == "default/bound-a"]
    assert (placed["outcome"], placed["message"]) == (
        "skipped", 'rejected by the API server: AlreadyExists: pods "bound-a" already exists')
    assert any(line.startswith(f'kwhatif: warning: {pod}#0:1: Pod/default/bound-a: AlreadyExists: pods "bound-a" '
                               "already exists") for line in result.stderr.splitlines())


def _named(tmp_path, node: str, cpu: str) -> str:
    path = tmp_path / "named.yaml"
    path.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: named, namespace: default}\n"
                    f"spec:\n  nodeName: {node}\n  containers: [{{name: c, image: c, resources: {{requests: {{cpu: {cpu}}}}}}}]\n")
    return str(path)


def test_a_pod_that_names_its_node_is_never_scheduled_but_admitted_by_that_kubelet(cli, tmp_path):
    """kube-scheduler never sees a pod created with spec.nodeName; the node's kubelet admits it
    with the general predicates and NoExecute taints only. node-c's dedicated=gpu taint is
    NoSchedule: the pod runs there without a toleration. 20 cpu is more than node-c's 16: refused
    (Insufficient cpu). A node the snapshot lacks: the pod waits for it."""
    result, data = _place(cli, _named(tmp_path, "node-c", "100m"))
    [named] = [r for r in data["results"] if r["pod"] == "default/named"]
    assert (named["outcome"], named["node"], named["named_node"]) == ("bound", "node-c", True)
    result, data = _place(cli, _named(tmp_path, "node-c", "20"))
    [named] = [r for r in data["results"] if r["pod"] == "default/named"]
    assert named["outcome"] == "skipped"
    assert named["message"] == ("spec.nodeName is node-c, whose kubelet refuses the pod: Insufficient cpu "
                                "(kube-scheduler never schedules a pod that names its node)")
    result, data = _place(cli, _named(tmp_path, "node-z", "100m"))
    [named] = [r for r in data["results"] if r["pod"] == "default/named"]
    assert named["outcome"] == "unschedulable"
    assert named["message"].startswith('spec.nodeName is "node-z", a node the snapshot lacks')


@pytest.mark.parametrize("mode, pods", [("spec", 7), ("min", 7), ("max", 10)])
def test_place_takes_the_replicas_of_an_autoscaled_workload_as_check_does(cli, mode, pods):
    """hpa/cluster.yaml's HPA (min 7, max 10) targets Deployment web, whose manifest asks 3: spec
    keeps 3 within [7, 10] (7), min 7, max 10 — the pods place then creates."""
    hpa = DATA / "hpa"
    result = cli(["place", str(hpa / "web.yaml"), "-c", str(hpa / "cluster.yaml"), "--now", NOW, "-q",
                  "--replicas", mode, "-o", "json", "--no-node-detail"])
    placed = [r for r in json.loads(result.stdout)["results"] if r["pod"].startswith("default/web-")]
    assert len(placed) == pods
