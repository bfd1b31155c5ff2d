"""`kwhatif capacity`: how many more copies fit (one at a time until one does not), their
distribution and the stop reason; `--add-node`: the smallest number of template nodes to add.

Cluster: conftest.py. After its pending pods, free cpu is node-a 500m, node-b 800m; node-c is
tainted dedicated=gpu:NoSchedule."""

from __future__ import annotations

import json
import re

import pytest
import yaml

from tests.check.conftest import node, running, workload
from tests.cli.conftest import CLUSTER, DATA, NOW, single_error_line

CHECK = DATA / "check"
ARGS = ["-c", str(CLUSTER), "--now", NOW, "-q"]
POOL = str(CHECK / "pool-node.yaml")
# A copy that fits nowhere, without DefaultPreemption: node-c's taint (UnschedulableAndUnresolvable)
# and Insufficient cpu on node-a and node-b, byte-wise sorted; no preemption part; the
# DynamicResources PostFilter still runs (reference §8: "no new claims to deallocate").
MSG_NO_CPU = ("0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 2 Insufficient cpu. "
              "no new claims to deallocate")


def _capacity(cli, *args: str):
    result = cli(["capacity", *args, *ARGS, "-o", "json"])
    return result, (json.loads(result.stdout) if result.stdout else None)


def test_copies_of_a_pod_fill_the_free_cpu_and_the_next_one_gets_the_scheduler_message(cli):
    # 200m copies: node-a 500m -> 2, node-b 800m -> 4; the 7th finds 100m and 0m free. The pod
    # itself is the first copy: 5 more. No preemption by default (DefaultPreemption off: no
    # "preemption: ..." part in the message).
    result, data = _capacity(cli, str(CHECK / "copy.yaml"))
    assert result.exit_code == 0
    assert data == {"workloads": [{"pod": "default/copy", "workload": "Pod/default/copy", "replicas": 1, "copies": 6,
                                   "more": 5, "fits": True, "running": 0, "max": 1000, "reached_max": False,
                                   "distribution": {"node-a": 2, "node-b": 4}, "stop_reason": MSG_NO_CPU,
                                   "stopped_by": "unschedulable",
                                   "evictions": [], "preemption": False, "nodes": 3}],
                    "warnings": []}


def test_max_bounds_the_copies_beyond_its_own_replicas(cli):
    # The pod itself first, then at most 3 more (room for 6): 4 copies, 3 more, stopped at --max.
    result, data = _capacity(cli, str(CHECK / "copy.yaml"), "--max", "3")
    assert result.exit_code == 0
    (w,) = data["workloads"]
    assert (w["copies"], w["more"], w["reached_max"], w["stop_reason"]) == (4, 3, True, None)
    assert sum(w["distribution"].values()) == 4


def test_copies_of_a_deployment_are_more_replicas_of_its_replica_set(cli):
    result, data = _capacity(cli, str(CHECK / "api.yaml"))
    # 600m: node-b takes one (800m free), nothing else has 600m: not even its 2 replicas fit,
    # so one would stay pending: exit 1, as check would.
    assert result.exit_code == 1
    (w,) = data["workloads"]
    assert w["fits"] is False
    assert re.fullmatch(r"default/api-[bcdfghjklmnpqrstvwxz2456789]{1,10}-[bcdfghjklmnpqrstvwxz2456789]{5}", w["pod"])
    assert (w["workload"], w["replicas"], w["copies"], w["more"]) == ("Deployment/default/api", 2, 1, 0)
    assert w["distribution"] == {"node-b": 1}
    assert w["stop_reason"] == MSG_NO_CPU


def test_every_workload_of_the_files_is_counted_with_the_others_placed_first(cli):
    # copy's count: api is placed first (one 600m replica on node-b: 200m left; the other pending),
    # so 200m copies: node-a 2, node-b 1 = 3. api's count: copy (200m) is placed first, on node-b
    # (LeastAllocated: node-b 800m free of 4000m scores above node-a's 500m of 2000m): 600m left,
    # one 600m replica there, none on node-a (500m).
    result, data = _capacity(cli, str(CHECK / "copy.yaml"), str(CHECK / "api.yaml"))
    assert result.exit_code == 1  # api's second replica fits nowhere
    assert [(w["workload"], w["copies"], w["distribution"]) for w in data["workloads"]] == [
        ("Pod/default/copy", 3, {"node-a": 2, "node-b": 1}), ("Deployment/default/api", 1, {"node-b": 1})]


def test_preemption_only_when_allowed(cli):
    # vip (priority 1000, 1500m): no node has 1500m free (node-a 500m, node-b 800m); with
    # --allow-preemption the first copy evicts a priority-0 bound pod (bound-a 1500m on node-a or
    # bound-b 2500m on node-b both make room).
    _, data = _capacity(cli, str(CHECK / "vip.yaml"))
    assert (data["workloads"][0]["copies"], data["workloads"][0]["evictions"]) == (0, [])
    _, allowed = _capacity(cli, str(CHECK / "vip.yaml"), "--allow-preemption")
    assert allowed["workloads"][0]["copies"] >= 1
    assert allowed["workloads"][0]["evictions"][0] in ("default/bound-a", "default/bound-b")


@pytest.mark.parametrize("cpu, running_, copies, line", [
    # n1 (1000m) runs api's 2 replicas of 400m: 200m free. The same template (400m): they are its
    # first 2 copies, not placed again, and no more fit. A new template (100m): the rollout
    # replaces both, so the node is free for the new pods: 1000m / 100m = 10 copies, 8 more.
    ("400m", 2, 2, "Deployment/default/api: 0 more fit (2 in total, with its 2 replicas)"),
    ("100m", 0, 10, "Deployment/default/api: 8 more fit (10 in total, with its 2 replicas)"),
])
def test_a_running_workload_counts_its_running_pods_of_the_template_as_its_first_copies(cli, tmp_path, cpu, running_,
                                                                                       copies, line):
    labels = {"app": "api", "pod-template-hash": "h1"}
    state = {"apiVersion": "v1", "kind": "List", "items": [
        node("n1", "1"), *(running(f"api-h1-{i}", ("ReplicaSet", "api-h1"), "n1", "400m", labels=labels) for i in "ab")]}
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(yaml.safe_dump(state))
    manifest = tmp_path / "api.yaml"
    w = workload("Deployment", "api", cpu, "app:v1", {"replicas": 2})
    manifest.write_text(yaml.safe_dump({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "api"},
                                        "spec": w.spec}))
    args = [str(manifest), "-c", str(cluster), "--now", NOW, "-q"]
    data = json.loads(cli(["capacity", *args, "-o", "json"]).stdout)
    assert [(w["running"], w["copies"]) for w in data["workloads"]] == [(running_, copies)]
    assert cli(["capacity", *args]).stdout.splitlines()[0] == line


def test_table_says_how_many_more_fit_and_how_many_in_total(cli):
    result = cli(["capacity", str(CHECK / "copy.yaml"), *ARGS])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "Pod/default/copy: 5 more fit (6 in total)"
    assert re.fullmatch(r"node-a\s+2", lines[3]) and re.fullmatch(r"node-b\s+4", lines[4])
    assert lines[-1] == f"the next copy does not fit: {MSG_NO_CPU}"


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
    data.pop("warnings")  # the namespace note of some of the workloads
    left = data.pop("still_pending")  # named only when no count tried is enough: batch, with 2 nodes
    assert [w["workload"] for w in left] == (["Deployment/default/batch"] if nodes_to_add is None else [])
    assert all(w["message"].startswith(f"0/{3 + maximum} nodes are available: ") for w in left)
    assert data == {"template": "pool", "nodes_to_add": nodes_to_add, "max_nodes": maximum,
                    "fits": nodes_to_add is not None, "tried": tried}


def test_add_node_gallops_then_bisects(cli):
    # batch needs 4 pool nodes: 0, 1, 2, 4 are tried (galloping), then 3 (bisecting 2..4) fails.
    result, data = _capacity(cli, str(CHECK / "batch.yaml"), "--add-node", POOL)
    assert result.exit_code == 0
    assert data["nodes_to_add"] == 4
    assert [t["nodes"] for t in data["tried"]] == [0, 1, 2, 3, 4]
    assert [t["pending"] == 0 for t in data["tried"]] == [False, False, False, False, True]


def test_add_node_like_a_node_of_the_cluster(cli):
    """like:node-b: empty 4-cpu nodes. The pending pods go first — urgent (300m) and big (1800m:
    only a new node has room) and small (400m) — then batch's five 1-cpu pods. One new node:
    node-b and the new one keep 3000m between them, split so that only 2 pods fit (node-a's 500m
    none): 3 pending. Two: 7500m free, the new nodes' 5500m alone hold 4 whatever the split, node-b
    one more: all 5 fit."""
    result, data = _capacity(cli, str(CHECK / "batch.yaml"), "--add-node", "like:node-b")
    assert result.exit_code == 0
    assert (data["template"], data["nodes_to_add"]) == ("node-b", 2)
    assert data["tried"] == [{"nodes": 0, "pending": 5}, {"nodes": 1, "pending": 3}, {"nodes": 2, "pending": 0}]


def test_add_node_like_a_node_a_what_if_removed(cli):
    """"node-b is lost: how many like it?": --remove-node node-b takes node-b and its bare pod
    bound-b (2500m) away; like:node-b is node-b as the snapshot had it, an empty 4-cpu node. The
    pending pods go first: big (1800m) only fits a new node, urgent (300m) and small (400m) fit
    one of node-a (500m free) or a new node. One new node keeps at most 1900m after them (4000 −
    1800 − 300), one 1-cpu batch pod: 4 pending; two: 8000m − 2500m, at least 1500m and 4000m
    on either new node whatever the split, and 3 + 2 or 1 + 4 batch pods: all 5 fit."""
    result, data = _capacity(cli, str(CHECK / "batch.yaml"), "--add-node", "like:node-b", "--remove-node", "node-b")
    assert result.exit_code == 0, result.stderr
    assert (data["template"], data["nodes_to_add"]) == ("node-b", 2)
    assert data["tried"] == [{"nodes": 0, "pending": 5}, {"nodes": 1, "pending": 4}, {"nodes": 2, "pending": 0}]


@pytest.mark.parametrize("args, error", [
    ([str(CHECK / "batch.yaml"), "--add-node", "like:node-z"], "--add-node like:node-z: no such node in the cluster"),
    ([str(CHECK / "batch.yaml"), "--add-node", f"{POOL}:2"], "capacity finds how many nodes to add itself"),
    ([str(CHECK / "batch.yaml"), "--add-node", "like:node-b:2"], "capacity finds how many nodes to add itself"),
    ([str(CHECK / "copy.yaml"), "--add-node", str(CHECK / "copy.yaml")], "must hold exactly one Node (found 0)"),
    ([str(CHECK / "pool-node.yaml")], "capacity: no pod to copy"),
])
def test_bad_input_exits_2(cli, args, error):
    result = cli(["capacity", *args, *ARGS])
    assert result.exit_code == 2
    assert error in single_error_line(result.stderr)


def test_a_misspelt_template_field_is_refused_as_kubectl_apply_refuses_it(cli, tmp_path):
    """`taint:` for `taints:` would add untainted nodes and count them: refused (exit 2) unless
    --validate says otherwise, and then warned about."""
    template = yaml.safe_load((CHECK / "pool-node.yaml").read_text())
    template["spec"] = {**template.get("spec", {}), "taint": [{"key": "pool", "effect": "NoSchedule"}]}
    (tmp_path / "node.yaml").write_text(yaml.safe_dump(template))
    args = ["capacity", str(CHECK / "batch.yaml"), "--add-node", str(tmp_path / "node.yaml"), *ARGS]
    refused = cli(args)
    assert refused.exit_code == 2
    line = single_error_line(refused.stderr)
    assert "spec.taint" in line and "unknown field" in line
    warned = cli([*(a for a in args if a != "-q"), "--validate", "warn"])
    assert warned.exit_code == 0 and 'unknown field "spec.taint"' in warned.stderr


def test_a_template_without_allocatable_is_warned_about(cli, tmp_path):
    """A Node manifest without status.allocatable: its nodes take no pod (no `pods`), so the
    search would run to --max in silence; the warning names what it lacks."""
    (tmp_path / "node.yaml").write_text("apiVersion: v1\nkind: Node\nmetadata: {name: bare}\n"
                                        "status: {allocatable: {cpu: '2'}}\n")
    args = ["capacity", str(CHECK / "batch.yaml"), "--add-node", str(tmp_path / "node.yaml"), "--max", "2"]
    result = cli([*args, *(a for a in ARGS if a != "-q")])
    assert "Node/bare: status.allocatable has no memory, pods: the nodes added like it offer none" in result.stderr


def test_a_pod_the_snapshot_has_pending_is_no_copy_that_fits(cli, tmp_path):
    # big's own manifest (1800m; pending in the cluster, which schedules it with the queue): it is
    # not running, so it is not counted as a first copy; its copy fits nowhere either (MSG_NO_CPU:
    # node-a 500m free, node-b 800m after urgent and small).
    [big] = [d for d in yaml.safe_load_all((CLUSTER / "pending.yaml").read_text()) if d and d["metadata"]["name"] == "big"]
    (tmp_path / "big.yaml").write_text(yaml.safe_dump(big))
    _, data = _capacity(cli, str(tmp_path / "big.yaml"))
    [w] = data["workloads"]
    assert (w["running"], w["copies"], w["more"], w["stop_reason"]) == (0, 0, 0, MSG_NO_CPU)


AGENT_CLUSTER = """\
apiVersion: v1
kind: Node
metadata: {name: full, labels: {kubernetes.io/hostname: full}}
status: {allocatable: {cpu: "1", memory: 4Gi, pods: "110"}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system, uid: uid-agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      priorityClassName: system-node-critical
      containers: [{name: agent, image: agent:1, resources: {requests: {cpu: 200m}}}]
---
apiVersion: v1
kind: Pod
metadata:
  name: agent-full
  namespace: kube-system
  labels: {app: agent}
  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: uid-agent, controller: true}]
spec:
  nodeName: full
  priorityClassName: system-node-critical
  containers: [{name: agent, image: agent:1, resources: {requests: {cpu: 200m}}}]
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: busy, namespace: default}
spec:
  nodeName: full
  containers: [{name: c, image: c, resources: {requests: {cpu: 800m}}}]
status: {phase: Running}
"""
TWO_OF_ONE_CPU = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: pair, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: pair}}
  template:
    metadata: {labels: {app: pair}}
    spec:
      containers: [{name: c, image: c, resources: {requests: {cpu: "1"}}}]
"""


def test_added_nodes_come_with_the_daemonsets_pods(cli, tmp_path):
    """node `full` has no cpu left (agent 200m + busy 800m of 1 cpu). A pool node (2 cpu) joins
    with the agent DaemonSet's pod (200m, system-node-critical: first in the queue), leaving
    1800m: one replica of 1 cpu per node, so the pair needs 2 nodes (on empty nodes, 1 would do)."""
    (tmp_path / "cluster.yaml").write_text(AGENT_CLUSTER)
    (tmp_path / "pair.yaml").write_text(TWO_OF_ONE_CPU)
    result = cli(["capacity", str(tmp_path / "pair.yaml"), "-c", str(tmp_path / "cluster.yaml"), "--add-node", POOL,
                  "--now", NOW, "-q", "-o", "json"])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["nodes_to_add"], data["tried"]) == (2, [{"nodes": 0, "pending": 2}, {"nodes": 1, "pending": 1},
                                                         {"nodes": 2, "pending": 0}])


def test_a_workload_of_zero_replicas_is_named_as_the_reason_nothing_is_copied(cli, tmp_path):
    manifest = tmp_path / "web.yaml"
    manifest.write_text(yaml.safe_dump({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "c", "image": "x"}]}}}}))
    result = cli(["capacity", str(manifest), *ARGS])
    assert result.exit_code == 2
    assert single_error_line(result.stderr).endswith(
        "capacity: no pod to copy: Deployment/default/web has 0 replicas (give spec.replicas of 1 or more)")


def test_copies_of_a_pod_whose_status_names_its_claim_need_claims_of_their_own(cli):
    """One GPU on n1; trainer's status names its generated claim (trainer-gpu-abcde, owned by its
    uid). The pod itself takes the GPU; a copy must get a claim of its own from the template — not
    the one the prototype's status names — and finds no GPU left: 0 more fit."""
    data = DATA / "dra-capacity"
    result = cli(["capacity", str(data / "trainer.yaml"), "-c", str(data / "cluster.yaml"), "--now", NOW, "-q",
                  "--max", "5", "-o", "json"])
    (w,) = json.loads(result.stdout)["workloads"]
    assert (w["copies"], w["more"]) == (1, 0)
    assert w["stop_reason"].startswith("0/1 nodes are available: 1 cannot allocate all claims.")


def test_own_replicas_that_only_preemption_places_say_so(cli, tmp_path):
    # n1 (2 cpu) runs a low (-10) pod of 1500m; hi (priority 1000, 1 cpu) fits only by evicting it.
    # Copies do not preempt by default (cluster-capacity's habit), so the verdict names that choice.
    (tmp_path / "c.yaml").write_text(
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: low}\nvalue: -10\n---\n"
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n---\n"
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {kubernetes.io/hostname: n1}}\n"
        "status: {allocatable: {cpu: '2', memory: 4Gi, pods: '10'}}\n---\n"
        "apiVersion: v1\nkind: Pod\nmetadata: {name: filler, namespace: default}\nspec:\n  nodeName: n1\n"
        "  priorityClassName: low\n  priority: -10\n  containers: [{name: c, image: x, resources: {requests: {cpu: 1500m}}}]\n")
    (tmp_path / "hi.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: hi, namespace: default}\nspec:\n  priorityClassName: high\n"
        "  containers: [{name: c, image: x, resources: {requests: {cpu: '1'}}}]\n")
    args = ["capacity", str(tmp_path / "hi.yaml"), "-c", str(tmp_path / "c.yaml"), "--now", NOW, "-q", "--max", "1"]
    refused = cli(args)
    assert refused.exit_code == 1
    assert refused.stdout.splitlines()[0] == ("Pod/default/hi: only 0 of its 1 replicas fit (with preemption off; "
                                              "--allow-preemption lets them preempt, as kube-scheduler would)")
    allowed = json.loads(cli([*args, "--allow-preemption", "-o", "json"]).stdout)
    assert [(w["fits"], w["preemption"], w["evictions"]) for w in allowed["workloads"]] == [
        (True, True, ["default/filler"])]


def test_own_replicas_with_every_node_removed_say_there_is_no_node(cli, tmp_path):
    # The case above with n1 removed by the what-if: no node at all, so no preemption could place
    # hi; the scheduler's own word for it is schedule_one.go's ErrNoNodesAvailable.
    (tmp_path / "c.yaml").write_text(
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {kubernetes.io/hostname: n1}}\n"
        "status: {allocatable: {cpu: '2', memory: 4Gi, pods: '10'}}\n")
    (tmp_path / "hi.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: hi, namespace: default}\nspec:\n"
        "  containers: [{name: c, image: x, resources: {requests: {cpu: '1'}}}]\n")
    result = cli(["capacity", str(tmp_path / "hi.yaml"), "-c", str(tmp_path / "c.yaml"), "--now", NOW, "-q",
                  "--remove-node", "n1"])
    assert result.exit_code == 1
    assert result.stdout.splitlines()[2:] == ["Pod/default/hi: only 0 of its 1 replicas fit (the cluster has no node)",
                                              "", "the next copy does not fit: no nodes available to schedule pods"]


def test_copies_of_a_running_deployment_come_from_its_running_replicaset(cli, tmp_path):
    """web runs 2 pods (500m, ReplicaSet web-abc12) on n1 (8 cpu); n2 has 700m. Its template spreads
    over hostnames with matchLabelKeys [pod-template-hash] (merged into the running pods' selector as
    pod-template-hash In [abc12]). Further replicas are web-abc12's, so they count with the running
    two: the 3rd goes to n2 (skew 2-1), a 4th on n1 would make the skew 3-1 = 2 > 1 and n2 is full:
    1 more fits (3 in total) — with a new hash the copies spread apart from the running pods."""
    spread = {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "DoNotSchedule",
              "labelSelector": {"matchLabels": {"app": "web"}}, "matchLabelKeys": ["pod-template-hash"]}
    container = {"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "500m"}}}
    merged = {**spread, "labelSelector": {"matchLabels": {"app": "web"}, "matchExpressions": [
        {"key": "pod-template-hash", "operator": "In", "values": ["abc12"]}]}}
    labels = {"app": "web", "pod-template-hash": "abc12"}
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
          "metadata": {"name": "web-abc12", "namespace": "default", "labels": labels,
                       "annotations": {"deployment.kubernetes.io/desired-replicas": "2"},
                       "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "u",
                                            "controller": True}]},
          "spec": {"replicas": 2, "selector": {"matchLabels": labels},
                   "template": {"metadata": {"labels": labels},
                                "spec": {"containers": [container], "topologySpreadConstraints": [spread]}}}}
    pods = [{"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": f"web-abc12-x{i}", "namespace": "default", "labels": labels,
                          "creationTimestamp": "2025-01-01T00:00:00Z",
                          "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-abc12",
                                               "uid": "rs", "controller": True}]},
             "spec": {"nodeName": "n1", "containers": [container], "topologySpreadConstraints": [merged]},
             "status": {"phase": "Running"}} for i in range(2)]
    nodes = [node("n1", "8"), node("n2", "700m")]
    (tmp_path / "c.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [*nodes, rs, *pods]}))
    web = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
           "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                    "template": {"metadata": {"labels": {"app": "web"}},
                                 "spec": {"containers": [container], "topologySpreadConstraints": [spread]}}}}
    (tmp_path / "web.json").write_text(json.dumps(web))
    result = cli(["capacity", str(tmp_path / "web.json"), "-c", str(tmp_path / "c.json"), "--now", NOW, "-q",
                  "-o", "json"])
    [found] = json.loads(result.stdout)["workloads"]
    assert (found["copies"], found["more"], found["distribution"]) == (3, 1, {"n2": 1})


@pytest.mark.parametrize("cpu, copies, more", [
    # n1 3 cpu, n2 2 cpu; api's pods ask 1500m: a runs on n1, b on n2, c is pending and binds on n1
    # with the queue — 3 of 3 fit, n1 is full and n2 has 500m: nothing more (it said "only 2 of 3"
    # when c was left out of the count and a stand-in for it took its room).
    (("3", "2"), 3, 0),
    # both 6 cpu: 12 cpu hold 8 pods of 1500m: 5 more than the 3 replicas (it said 7 in total).
    (("6", "6"), 8, 5),
])
def test_a_running_deployments_pending_pod_counts_when_the_queue_binds_it(cli, tmp_path, cpu, copies, more):
    labels = {"app": "api", "pod-template-hash": "abc12"}
    container = {"name": "c", "image": "api", "resources": {"requests": {"cpu": "1500m"}}}
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
          "metadata": {"name": "api-abc12", "namespace": "default", "uid": "rs-uid", "labels": labels,
                       "annotations": {"deployment.kubernetes.io/desired-replicas": "3"},
                       "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "api",
                                            "uid": "dep-uid", "controller": True}]},
          "spec": {"replicas": 3, "selector": {"matchLabels": labels},
                   "template": {"metadata": {"labels": labels}, "spec": {"containers": [container]}}}}
    owner = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "api-abc12", "uid": "rs-uid", "controller": True}]
    pods = [{"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": f"api-abc12-{s * 5}", "namespace": "default", "uid": f"p{s}", "labels": labels,
                          "ownerReferences": owner},
             "spec": {**({"nodeName": at} if at else {}), "containers": [container]},
             "status": {"phase": "Running" if at else "Pending"}} for s, at in (("a", "n1"), ("b", "n2"), ("c", ""))]
    nodes = [node("n1", cpu[0]), node("n2", cpu[1])]
    (tmp_path / "c.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [*nodes, rs, *pods]}))
    (tmp_path / "api.yaml").write_text(yaml.safe_dump({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "api", "namespace": "default"},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "api"}},
                 "template": {"metadata": {"labels": {"app": "api"}}, "spec": {"containers": [container]}}}}))
    result = cli(["capacity", str(tmp_path / "api.yaml"), "-c", str(tmp_path / "c.json"), "--now", NOW, "-q",
                  "-o", "json"])
    [workload] = json.loads(result.stdout)["workloads"]
    assert result.exit_code == 0
    assert (workload["copies"], workload["more"], workload["running"], workload["fits"]) == (copies, more, 3, True)


def test_add_node_says_which_pod_no_count_of_nodes_helps(cli, tmp_path):
    """n1 (4 cpu) runs a 3-cpu pod; the DaemonSet's pod for n1 asks 2 cpu and may go nowhere else
    (its node affinity names n1): no number of template nodes helps, and the answer says so with
    that pod's FailedScheduling text — "even 4 nodes are not enough" alone reads as "buy more"."""
    cluster = tmp_path / "c.yaml"
    cluster.write_text(yaml.safe_dump_all([
        node("n1", "4"),
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "busy", "namespace": "default"},
         "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "3"}}}]},
         "status": {"phase": "Running"}}]))
    (tmp_path / "t.yaml").write_text(yaml.safe_dump(node("t", "4")))
    (tmp_path / "ds.yaml").write_text(yaml.safe_dump({
        "apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": {
            "metadata": {"labels": {"app": "agent"}},
            "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "2"}}}]}}}}))
    result = cli(["capacity", str(tmp_path / "ds.yaml"), "-c", str(cluster), "--add-node", str(tmp_path / "t.yaml"),
                  "--max", "4", "--now", NOW, "-q", "-o", "json"])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["nodes_to_add"] is None and [t["pending"] for t in data["tried"]] == [1, 1, 1, 1]
    [left] = data["still_pending"]
    assert left["workload"] == "DaemonSet/default/agent" and left["pod"].startswith("default/agent-")
    assert left["message"] == ("0/5 nodes are available: 1 Insufficient cpu, 4 node(s) didn't satisfy plugin(s) "
                               "[NodeAffinity]. no new claims to deallocate")


def test_copies_go_through_resource_quota_and_a_refusal_ends_them_without_a_preemption_hint(cli, tmp_path):
    # One 16-cpu node; ResourceQuota `pods: 3` in default, nothing running: the API server admits
    # 3 pods (the 2 replicas and 1 more); the 4th is refused (`exceeded quota`), and preempting
    # would not help (stopped_by admission). With `pods: 1`, only 1 of the 2 replicas is admitted.
    quota = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q", "namespace": "default"},
             "spec": {"hard": {"pods": "3"}}}
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List",
                                                           "items": [node("n1", "16"), quota]}))
    w = workload("Deployment", "api", "100m", "app:v1", {"replicas": 2})
    (tmp_path / "api.yaml").write_text(yaml.safe_dump({"apiVersion": "apps/v1", "kind": "Deployment",
                                                       "metadata": {"name": "api"}, "spec": w.spec}))
    args = ["capacity", str(tmp_path / "api.yaml"), "-c", str(tmp_path / "cluster.yaml"), "--now", NOW, "-q"]
    [got] = json.loads(cli([*args, "-o", "json"]).stdout)["workloads"]
    assert (got["copies"], got["more"], got["stopped_by"]) == (3, 1, "admission")
    assert "exceeded quota: q, requested: pods=1, used: pods=3, limited: pods=3" in got["stop_reason"]
    quota["spec"]["hard"]["pods"] = "1"
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List",
                                                           "items": [node("n1", "16"), quota]}))
    result = cli(args)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == "Deployment/default/api: only 1 of its 2 replicas fit"
