"""What-if operations through the real command line, metamorphic: `schedule -c X --OP` must
print exactly what `schedule -c X'` prints, where X' is X edited by hand the way the operation
would change the cluster (kubectl's and the controllers' behaviour, written beside each edit).

The cluster X (built below, 4 cpu nodes; every pod requests cpu only):
    n1 zone a: shop/web-abc12-aaaaa (RS web-abc12, 1 cpu), shop/web-abc12-ccccc (RS, 1 cpu),
               shop/db-0 (StatefulSet db, 500m), kube-system/agent-n1 (DaemonSet, 100m),
               kube-system/kube-proxy-n1 (mirror, 100m), shop/bare (no owner, 500m)
    n2 zone a: shop/web-abc12-bbbbb (RS, 1 cpu)
    n3 zone b: nothing
    pending:   shop/big (3500m, priority 0)
Pods recreated by a controller get generated names, so results are compared with the names of
pods that are not in X replaced by their generateName base (`web-abc12-`)."""

from __future__ import annotations

import copy
import json
import re
import subprocess
from pathlib import Path
from typing import Any, Callable

import pytest
import yaml

from tests.cli.conftest import DATA, NOW, REPO, executable, invoke

Doc = dict[str, Any]


def node(name: str, zone: str, cpu: str = "4", **spec: Any) -> Doc:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                                  "topology.kubernetes.io/zone": zone}},
            "spec": dict(spec), "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}}


def pod(name: str, ns: str, cpu: str, node_name: str | None = None, owner: tuple[str, str] | None = None,
        labels: dict[str, str] | None = None, **meta: Any) -> Doc:
    metadata: Doc = {"name": name, "namespace": ns, "labels": labels or {},
                     "creationTimestamp": "2025-06-01T00:00:00Z", **meta}
    if owner:
        metadata["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": owner[0], "name": owner[1],
                                        "uid": f"uid-{owner[1]}", "controller": True}]
    spec: Doc = {"containers": [{"name": "c", "image": "app", "resources": {"requests": {"cpu": cpu}}}]}
    status: Doc = {"phase": "Pending"}
    if node_name:
        spec["nodeName"] = node_name
        status = {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec, "status": status}


def pdb(allowed: int, app: str = "web") -> Doc:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": app, "namespace": "shop"},
            "spec": {"selector": {"matchLabels": {"app": app}}, "minAvailable": 1},
            "status": {"disruptionsAllowed": allowed}}


def rs() -> Doc:
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web-abc12", "namespace": "shop"},
            "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": [{"name": "c", "image": "app"}]}}}}


WEB = {"app": "web"}


def cluster_x() -> list[Doc]:
    return [
        node("n1", "a"), node("n2", "a"), node("n3", "b"), rs(),
        pod("web-abc12-aaaaa", "shop", "1", "n1", ("ReplicaSet", "web-abc12"), WEB),
        pod("web-abc12-ccccc", "shop", "1", "n1", ("ReplicaSet", "web-abc12"), WEB),
        pod("db-0", "shop", "500m", "n1", ("StatefulSet", "db"), {"app": "db"}),
        pod("agent-n1", "kube-system", "100m", "n1", ("DaemonSet", "agent")),
        pod("kube-proxy-n1", "kube-system", "100m", "n1", annotations={"kubernetes.io/config.mirror": "x"}),
        pod("bare", "shop", "500m", "n1"),
        pod("web-abc12-bbbbb", "shop", "1", "n2", ("ReplicaSet", "web-abc12"), WEB),
        pod("big", "shop", "3500m"),
    ]


def named(docs: list[Doc], name: str) -> Doc:
    return next(d for d in docs if d["metadata"]["name"] == name)


def without(docs: list[Doc], *names: str) -> list[Doc]:
    """A copy of `docs` (the edits never touch X) without the objects named."""
    return [copy.deepcopy(d) for d in docs if d["metadata"]["name"] not in names]


def recreated(docs: list[Doc], name: str, new_name: str) -> Doc:
    """The pending pod a controller creates for `name`: same spec without nodeName, no status,
    created at the simulation clock."""
    old = copy.deepcopy(named(docs, name))
    old["metadata"]["name"] = new_name
    old["metadata"]["creationTimestamp"] = NOW
    del old["spec"]["nodeName"]
    old["status"] = {"phase": "Pending"}
    return old


def nominated(doc: Doc, node_name: str) -> Doc:
    """A pod a drain's wait bound on `node_name`, as the run finds it when no operation follows
    the drain: pending, nominated there (status.nominatedNodeName, which the scheduler tries
    first and takes unscored), so that it goes where the wait put it."""
    doc["status"]["nominatedNodeName"] = node_name
    return doc


def cordon(doc: Doc) -> None:
    """kubectl cordon sets spec.unschedulable; the node lifecycle controller adds the taint."""
    doc["spec"]["unschedulable"] = True
    doc["spec"].setdefault("taints", []).append({"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"})


def write(tmp_path: Path, name: str, docs: list[Doc]) -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(docs))
    return str(path)


def normalised(output: str, original: list[Doc]) -> Any:
    """The JSON output with every pod name that X does not have cut to its generateName base."""
    known = {f"{d['metadata']['namespace']}/{d['metadata']['name']}" for d in original if d["kind"] == "Pod"}
    data = json.loads(output)
    data.pop("whatif", None)
    # A drain that stops short says so as a warning of its own, which X' has no reason to give.
    data["warnings"] = [w for w in data.get("warnings", []) if not w.startswith("--drain")]

    def fix(value: Any) -> Any:
        if isinstance(value, str) and value not in known and re.fullmatch(r"[a-z-]+/[a-z0-9-]+-[a-z0-9]{5}", value):
            return value[:-5]
        if isinstance(value, dict):
            return {k: fix(v) for k, v in value.items()}
        if isinstance(value, list):
            return [fix(v) for v in value]
        return value
    fixed = fix(data)
    # The pods a drain's wait bound are scheduled first (Cluster.drain_bound), which X' cannot
    # say: each pod's outcome is compared, not the queue's order.
    fixed["results"] = sorted(fixed.get("results", []), key=lambda r: json.dumps(r, sort_keys=True))
    return fixed


Run = Callable[..., Any]


@pytest.fixture
def same(tmp_path: Path) -> Callable[..., None]:
    """`same(ops, edited)`: `schedule -c X OPS` and `schedule -c X'` print the same JSON."""
    def check(ops: list[str], edited: list[Doc], x: list[Doc] | None = None, command: str = "schedule",
              extra: list[str] | None = None) -> None:
        x = x if x is not None else cluster_x()
        args = [command, *(extra or []), "-o", "json", "--now", NOW]
        with_ops = invoke([*args, "-c", write(tmp_path, "x.yaml", x), *ops])
        by_hand = invoke([*args, "-c", write(tmp_path, "x-edited.yaml", edited)])
        assert with_ops.exit_code in (0, 1), with_ops.stderr
        assert by_hand.exit_code == with_ops.exit_code, by_hand.stderr
        assert normalised(with_ops.stdout, x) == normalised(by_hand.stdout, x)
    return check


def test_cordon_is_spec_unschedulable_and_its_taint(same: Callable[..., None]) -> None:
    edited = cluster_x()
    cordon(named(edited, "n3"))
    same(["--cordon", "n3"], edited)


def test_uncordon_clears_both(same: Callable[..., None]) -> None:
    x = cluster_x()
    cordon(named(x, "n3"))
    same(["--uncordon", "n3"], cluster_x(), x=x)


def test_taint_and_untaint_are_the_manifest_taint(same: Callable[..., None]) -> None:
    edited = cluster_x()
    named(edited, "n3")["spec"]["taints"] = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
    same(["--taint", "n3", "dedicated=gpu:NoSchedule"], edited)
    same(["--taint", "n3", "dedicated=gpu:NoSchedule", "--untaint", "n3", "dedicated"], cluster_x())


def test_label_set_and_removed(same: Callable[..., None]) -> None:
    x = cluster_x()
    named(x, "big")["spec"]["nodeSelector"] = {"disk": "ssd"}  # the label decides where big may go
    edited = copy.deepcopy(x)
    named(edited, "n2")["metadata"]["labels"]["disk"] = "ssd"
    same(["--label", "n2", "disk=ssd"], edited, x=x)
    same(["--label", "n2", "disk=ssd", "--label", "n2", "disk-"], x, x=x)


def test_a_label_over_another_value_says_what_it_replaced(tmp_path: Path) -> None:
    # kubectl label refuses a new value without --overwrite ("already has a value (a)"); the
    # what-if means it, and its line names the value replaced.
    result = invoke(["schedule", "-c", write(tmp_path, "x.yaml", cluster_x()), "--now", NOW,
                     "--label", "n1", "topology.kubernetes.io/zone=b"])
    assert result.stdout.splitlines()[0] == "what-if: label n1 topology.kubernetes.io/zone=b (was a)"


def test_a_selector_targets_every_matching_node(same: Callable[..., None]) -> None:
    edited = cluster_x()
    cordon(named(edited, "n1"))
    cordon(named(edited, "n2"))
    same(["--cordon", "topology.kubernetes.io/zone=a"], edited)


def test_operations_apply_in_the_order_given(same: Callable[..., None]) -> None:
    edited = cluster_x()
    cordon(named(edited, "n3"))
    same(["--uncordon", "n3", "--cordon", "n3"], edited)
    same(["--cordon", "n3", "--uncordon", "n3"], cluster_x())


def test_remove_node_recreates_only_controller_pods(same: Callable[..., None]) -> None:
    # n1 goes with its pods: the bare pod, the DaemonSet pod and the mirror pod are not recreated;
    # the ReplicaSet pods come back pending with new names, the StatefulSet pod with its own.
    x = cluster_x()
    edited = without(x, "n1", "web-abc12-aaaaa", "web-abc12-ccccc", "db-0", "agent-n1", "kube-proxy-n1", "bare")
    edited += [recreated(x, "web-abc12-aaaaa", "web-abc12-xxxx1"), recreated(x, "web-abc12-ccccc", "web-abc12-xxxx2"),
               recreated(x, "db-0", "db-0")]
    same(["--remove-node", "n1"], edited)


def test_a_noexecute_taint_evicts_the_pods_that_do_not_tolerate_it(same: Callable[..., None]) -> None:
    # None of n1's pods tolerates maint=true:NoExecute: the taint-eviction controller deletes them
    # all but the static pod's mirror (its kubelet runs it on); the ReplicaSet and StatefulSet pods
    # come back pending (and cannot return to n1), the DaemonSet pod does not (its controller no
    # longer runs it there), the bare pod is gone. Evicted in input order, recreated in that order.
    x = cluster_x()
    edited = without(x, "web-abc12-aaaaa", "web-abc12-ccccc", "db-0", "agent-n1", "bare")
    named(edited, "n1")["spec"]["taints"] = [{"key": "maint", "value": "true", "effect": "NoExecute"}]
    edited += [recreated(x, "web-abc12-aaaaa", "web-abc12-xxxx1"), recreated(x, "web-abc12-ccccc", "web-abc12-xxxx2"),
               recreated(x, "db-0", "db-0")]
    same(["--taint", "n1", "maint=true:NoExecute"], edited)


def test_pods_tolerating_a_noexecute_taint_for_a_while_are_said_to_go_after_it() -> None:
    """samples/cluster.yaml's worker-a1: three DaemonSet pods tolerate not-ready for good (no
    tolerationSeconds); six pods (a Job's, five ReplicaSets') carry the 300 s toleration the
    DefaultTolerationSeconds plugin added: evicted once it runs out — said so, not as pods that
    do not tolerate the taint."""
    samples = REPO / "samples"
    result = invoke(["schedule", "-c", str(samples / "cluster.yaml"), "--now", NOW,
                     "--taint", "worker-a1", "node.kubernetes.io/not-ready:NoExecute"])
    assert ("what-if: taint worker-a1 node.kubernetes.io/not-ready:NoExecute: 6 pod(s) not tolerating it for "
            "good evicted (6 after their tolerationSeconds), 6 recreated pending") in result.stdout + result.stderr


def test_a_noschedule_taint_evicts_nothing(same: Callable[..., None]) -> None:
    edited = cluster_x()
    named(edited, "n1")["spec"]["taints"] = [{"key": "maint", "value": "true", "effect": "NoSchedule"}]
    same(["--taint", "n1", "maint=true:NoSchedule"], edited)


def agent_daemonset() -> Doc:
    """agent-n1's DaemonSet: its template as agent-n1 runs it."""
    return {"apiVersion": "apps/v1", "kind": "DaemonSet",
            "metadata": {"name": "agent", "namespace": "kube-system", "uid": "uid-agent"},
            "spec": {"selector": {"matchLabels": {"app": "agent"}},
                     "template": {"metadata": {"labels": {"app": "agent"}},
                                  "spec": {"containers": [{"name": "c", "image": "app",
                                                           "resources": {"requests": {"cpu": "100m"}}}]}}}}


def daemon_pod(name: str, node_name: str) -> Doc:
    """The pending pod the agent DaemonSet creates for a new node, pinned to it
    (ReplaceDaemonSetPodNodeNameNodeAffinity), created at the simulation clock. (Its default
    tolerations are left out: the copies of n3 have no taint, so they decide nothing here.)"""
    doc = pod(name, "kube-system", "100m", owner=("DaemonSet", "agent"), labels={"app": "agent"})
    doc["metadata"]["creationTimestamp"] = NOW
    doc["spec"]["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}}}
    return doc


def test_add_node_like_an_existing_one(same: Callable[..., None], tmp_path: Path) -> None:
    # Copies of n3 named n3-1, n3-2, each its own hostname label; the agent DaemonSet's pod comes
    # along on each, pending at the end of the queue (100m: bound there).
    x = cluster_x() + [agent_daemonset()]
    edited = copy.deepcopy(x)
    for name in ("n3-1", "n3-2"):
        edited.insert(3, node(name, "b"))
    edited.sort(key=lambda d: d["kind"] != "Node")
    edited += [daemon_pod("agent-aaaa1", "n3-1"), daemon_pod("agent-aaaa2", "n3-2")]
    same(["--add-node", "like:n3:2"], edited, x)
    template = write(tmp_path, "template.yaml", [node("big-node", "c")])
    same(["--add-node", template], x + [node("big-node-1", "c"), daemon_pod("agent-aaaa1", "big-node-1")], x)


def test_an_added_node_removed_again_takes_its_daemonset_pods_along(same: Callable[..., None]) -> None:
    """The agent pod created pending for n3-1 is pinned to it: its DaemonSet controller deletes it
    with the node (getUnscheduledPodsWithoutNode), so nothing of the added node is left."""
    x = cluster_x() + [agent_daemonset()]
    same(["--add-node", "like:n3", "--remove-node", "n3-1"], x, x)


def _agents_on_role_nodes() -> list[Doc]:
    """X with the agent DaemonSet selecting nodes labelled role=agent: n1 (where agent-n1 runs)."""
    x = cluster_x()
    named(x, "n1")["metadata"]["labels"]["role"] = "agent"
    ds = agent_daemonset()
    ds["spec"]["template"]["spec"]["nodeSelector"] = {"role": "agent"}
    return x + [ds]


def test_a_label_a_daemonset_selects_starts_or_stops_its_pod(same: Callable[..., None]) -> None:
    # n3 gets role=agent: the DaemonSet controller creates its pod there (pending, pinned to n3).
    # n1 loses it: agent-n1 is deleted (shouldContinueRunning: the node no longer matches).
    x = _agents_on_role_nodes()
    gains = copy.deepcopy(x)
    named(gains, "n3")["metadata"]["labels"]["role"] = "agent"
    same(["--label", "n3", "role=agent"], gains + [daemon_pod("agent-aaaa1", "n3")], x)
    loses = without(x, "agent-n1")
    del named(loses, "n1")["metadata"]["labels"]["role"]
    same(["--label", "n1", "role-"], loses, x)


def test_add_node_without_the_daemonsets_objects_says_their_pods_are_missing(tmp_path: Path) -> None:
    """X has agent-n1, a DaemonSet's pod, but not the DaemonSet: the added node gets no agent pod,
    and the run says so."""
    result = invoke(["schedule", "-c", write(tmp_path, "x.yaml", cluster_x()), "--add-node", "like:n3",
                     "-o", "json", "--now", NOW])
    data = json.loads(result.stdout)
    assert "DaemonSet pods of kube-system/agent run in the snapshot, but not their DaemonSet objects: the added " \
           "nodes get none of their pods (kwhatif snapshot captures them)" in data["warnings"]
    assert not any(r["pod"].startswith("kube-system/agent-") for r in data["results"])


@pytest.mark.parametrize("spec, said", [
    ("like:n3:0", "COUNT must be at least 1"),
    ("like:n3:-1", "COUNT must be at least 1"),
    ("like:n3:abc", "COUNT must be a whole number"),  # a node name holds no ':': not "no such node"
    ("like:n3:10001", "COUNT must be at most 10,000 (a sweep's counts too: Kubernetes supports clusters of "
                      "5,000 nodes)"),  # 99,999,999 exhausted the memory before
])
def test_add_node_with_a_count_that_is_no_count_says_so(tmp_path: Path, spec: str, said: str) -> None:
    result = invoke(["schedule", "-c", write(tmp_path, "x.yaml", cluster_x()), "--add-node", spec, "--now", NOW])
    assert (result.exit_code, result.stderr) == (2, f"kwhatif: error: --add-node {spec}: {said}\n")


def test_a_template_file_with_a_count_that_is_no_count_says_so(tmp_path: Path) -> None:
    # TEMPLATE:abc where TEMPLATE is a file (and TEMPLATE:abc is none): the count is wrong, not
    # the file missing.
    template = write(tmp_path, "node.yaml", [node("t1", "a")])
    result = invoke(["schedule", "-c", write(tmp_path, "x.yaml", cluster_x()), "--add-node", f"{template}:abc",
                     "--now", NOW])
    assert (result.exit_code, result.stderr) == (2, f"kwhatif: error: --add-node {template}:abc: COUNT must be a "
                                                    "whole number\n")


@pytest.mark.parametrize("command", [["schedule"], ["check", "--validate", "strict"]])
def test_an_add_node_template_with_a_misspelt_field_is_refused(tmp_path: Path, command: list[str]) -> None:
    """`taint:` for `taints:` would add untainted nodes: refused as `kubectl apply` refuses an
    unknown field (its default, --validate=strict), by commands with no --validate too."""
    template = tmp_path / "node.yaml"
    template.write_text("apiVersion: v1\nkind: Node\nmetadata: {name: t}\nspec:\n  taint: [{key: a, effect: NoSchedule}]\n"
                        "status: {allocatable: {cpu: '2', memory: 1Gi, pods: '110'}}\n")
    workloads = [write(tmp_path, "pod.yaml", [pod("p", "default", "100m")])] if command[0] == "check" else []
    result = invoke([*command, *workloads, "-c", write(tmp_path, "x.yaml", cluster_x()), "--add-node", str(template),
                     "--now", NOW])
    assert result.exit_code == 2
    assert "Node/t: spec.taint: unknown field" in result.stderr and len(result.stderr.splitlines()) == 1


def test_delete_pod_of_a_static_pods_mirror_changes_nothing(same: Callable[..., None]) -> None:
    # kube-proxy-n1 is a mirror (kubernetes.io/config.mirror): its kubelet runs the static pod on
    # and creates the mirror again, bound to n1; the scheduler never sees it.
    same(["--delete-pod", "kube-system/kube-proxy-n1"], cluster_x())


def test_delete_pod_of_a_controller_is_recreated(same: Callable[..., None]) -> None:
    x = cluster_x()
    edited = without(x, "web-abc12-bbbbb") + [recreated(x, "web-abc12-bbbbb", "web-abc12-xxxx1")]
    same(["--delete-pod", "shop/web-abc12-bbbbb"], edited)
    same(["--delete-pod", "shop/bare"], without(x, "bare"))


def test_delete_pod_of_a_daemonset_pod_comes_back_only_while_its_daemonset_is_there(
        same: Callable[..., None]) -> None:
    # With the agent DaemonSet in the snapshot, its controller creates agent-n1 again (pending,
    # a generated name); in a snapshot that lists DaemonSets but not agent's, nothing does — as
    # `--drain --force` and `--remove-node` take it for good.
    with_it = cluster_x() + [agent_daemonset()]
    same(["--delete-pod", "kube-system/agent-n1"],
         without(with_it, "agent-n1") + [recreated(with_it, "agent-n1", "agent-xxxx1")], with_it)
    logger = agent_daemonset()
    logger["metadata"].update(name="logger", uid="uid-logger")
    without_it = cluster_x() + [logger]
    same(["--delete-pod", "kube-system/agent-n1"], without(without_it, "agent-n1"), without_it)


def test_scale_a_replicaset(same: Callable[..., None]) -> None:
    x = cluster_x()
    # Down to 1: assigned pods alike, Running alike; n1 holds two of them, so both of n1's go
    # first (ActivePodsWithRanks: more siblings on the node first), the newer first.
    same(["--scale", "ReplicaSet/shop/web-abc12=1"], without(x, "web-abc12-aaaaa", "web-abc12-ccccc"))
    # Up to 4: one copy of the first pod, pending.
    same(["--scale", "ReplicaSet/shop/web-abc12=4"], x + [recreated(x, "web-abc12-aaaaa", "web-abc12-xxxx1")])


def drained_n1(x: list[Doc], pdb_left: int | None = None) -> list[Doc]:
    """X after `kubectl drain n1 --ignore-daemonsets --force`: n1 cordoned; the DaemonSet and the
    mirror pods stay; the others are evicted and the controllers recreate theirs pending."""
    edited = without(x, "web-abc12-aaaaa", "web-abc12-ccccc", "db-0", "bare")
    cordon(named(edited, "n1"))
    if pdb_left is not None:  # each eviction spends one and is recorded (eviction.go:checkAndDecrement)
        named(edited, "web")["status"]["disruptionsAllowed"] = pdb_left
        named(edited, "web")["status"]["disruptedPods"] = {"web-abc12-aaaaa": NOW, "web-abc12-ccccc": NOW}
    return edited + [recreated(x, "web-abc12-aaaaa", "web-abc12-xxxx1"),
                     recreated(x, "web-abc12-ccccc", "web-abc12-xxxx2"), recreated(x, "db-0", "db-0")]


def test_drain_evicts_all_but_daemonset_and_mirror_pods(same: Callable[..., None]) -> None:
    x = cluster_x()
    same(["--drain", "n1", "--force"], drained_n1(x))


def test_drain_with_a_pdb_that_allows_enough(same: Callable[..., None]) -> None:
    # 3 allowed, 2 web pods on n1: both go, the budget is left with 1 (eviction.go:checkAndDecrement).
    x = cluster_x() + [pdb(3)]
    same(["--drain", "n1", "--force"], drained_n1(x, pdb_left=1), x=x)


def test_drain_with_a_pdb_that_allows_one_waits_for_the_replacement_then_evicts_the_next(
        same: Callable[..., None]) -> None:
    # 1 allowed: web-abc12-aaaaa (first in input order) goes, web-abc12-ccccc gets the 429. kubectl
    # retries; the scheduler binds aaaaa's replacement (1 cpu: n2 has 3 free, n3 4 — big's 3500m
    # goes first, to n3), the budget counts it healthy again (1 allowed), and ccccc goes too.
    # The same wait bound db-0's replacement (500m) on n2, the least allocated (2 cpu free, n3
    # 500m). X' is n1 emptied but for its DaemonSet pod and mirror, with the three replacements
    # pending in eviction order (aaaaa's, db-0's, then ccccc's), those the wait bound nominated
    # where it bound them (big too), and the budget spent twice, healed once.
    x = cluster_x() + [pdb(1)]
    edited = without(x, "web-abc12-aaaaa", "web-abc12-ccccc", "db-0", "bare")
    cordon(named(edited, "n1"))
    nominated(named(edited, "big"), "n3")
    named(edited, "web")["status"].update(disruptionsAllowed=0,
                                          disruptedPods={"web-abc12-aaaaa": NOW, "web-abc12-ccccc": NOW})
    edited += [nominated(recreated(x, "web-abc12-aaaaa", "web-abc12-xxxx1"), "n2"),
               nominated(recreated(x, "db-0", "db-0"), "n2"), recreated(x, "web-abc12-ccccc", "web-abc12-xxxx2")]
    same(["--drain", "n1", "--force"], edited, x=x)


def test_a_drain_that_waited_for_its_budget_says_so(tmp_path: Path) -> None:
    # The case above: aaaaa, db-0 and bare go at once, ccccc on the retry; the DaemonSet pod and
    # the mirror stay; three controller-owned pods recreated (bare has no controller).
    result = invoke(["schedule", "-c", write(tmp_path, "x.yaml", cluster_x() + [pdb(1)]), "--now", NOW,
                     "--drain", "n1", "--force"])
    assert result.stdout.startswith(
        "what-if: drain n1: evicted 4 pod(s) (1 once pods their budget counts were bound again: kubectl retries a "
        "budget's refusal every 5s), 3 recreated pending, 2 left on the node\n")
    assert "--drain" not in result.stderr  # not stopped: no warning


def test_a_drain_of_several_nodes_cordons_them_all_before_it_waits(tmp_path: Path) -> None:
    # kubectl drain cordons every node it is given first (drain.go RunDrain). Draining zone a (n1,
    # n2) with a budget of 1: aaaaa goes; its replacement cannot go to n2 (cordoned already) nor
    # to n3 (big, first in the queue, takes 3500m of its 4 cpu): it stays pending, the budget
    # never recovers, ccccc stays. n1: aaaaa, db-0 and bare evicted (2 recreated: bare has no
    # controller), ccccc, the DaemonSet pod and the mirror left. kubectl goes on retrying ccccc
    # until its --timeout, none by default: it never gets to n2, cordoned and not drained.
    result = invoke(["schedule", "-c", write(tmp_path, "x.yaml", cluster_x() + [pdb(1)]), "--now", NOW,
                     "--drain", "topology.kubernetes.io/zone=a", "--force"])
    assert result.stdout.startswith(
        "what-if: drain n1: evicted 3 pod(s), 2 recreated pending, 3 left on the node; stopped: error when evicting "
        'pods/"web-abc12-ccccc" -n "shop" (will retry after 5s): Cannot evict pod as it would violate the pod\'s '
        "disruption budget. (kubectl retries it until its --timeout, but the budget never allows it here: no pending "
        "pod it counts gets bound); not drained: n2 (cordoned only: without --timeout kubectl waits on n1 for "
        "ever)\n")





def _budgeted(tmp_path: Path) -> str:
    """app a (ReplicaSet a-x1, 1500m a pod, a budget allowing 1): a-x1-aaaa0 on n0, a-x1-aaaa2 and
    a-x1-aaaa3 on n2; n1 (4 cpu) is 2500m full: room for one more pod of a."""
    a = {"app": "a"}
    docs = [node("n0", "a"), node("n1", "b"), node("n2", "a"), pdb(1, "a"),
            pod("a-x1-aaaa0", "shop", "1500m", "n0", ("ReplicaSet", "a-x1"), a),
            pod("fill-x1-aaaaa", "shop", "2500m", "n1", ("ReplicaSet", "fill-x1"), {"app": "fill"}),
            pod("a-x1-aaaa2", "shop", "1500m", "n2", ("ReplicaSet", "a-x1"), a),
            pod("a-x1-aaaa3", "shop", "1500m", "n2", ("ReplicaSet", "a-x1"), a)]
    return write(tmp_path, "budgeted.yaml", docs)


def test_a_pod_gone_without_eviction_lowers_its_budget_until_its_replacement_runs(tmp_path: Path) -> None:
    # --remove-node n0 takes aaaa0: the disruption controller counts 2 healthy pods, the budget
    # allows 0 (1 − 1). The drain of n2 is refused at once; while it waits, aaaa0's replacement is
    # bound on n1 (room for one), healthy again: 1 allowed, aaaa2 goes on the retry; aaaa3 is
    # refused for good (aaaa2's replacement finds no room: n0 gone, n2 cordoned, n1 full).
    result = invoke(["schedule", "-c", _budgeted(tmp_path), "--now", NOW, "--remove-node", "n0", "--drain", "n2"])
    assert result.stdout.splitlines()[1].startswith(
        "what-if: drain n2: evicted 1 pod(s) (1 once pods their budget counts were bound again: kubectl retries a "
        "budget's refusal every 5s), 1 recreated pending, 1 left on the node; stopped: error when evicting "
        'pods/"a-x1-aaaa3"')


def test_a_budget_lowered_by_a_lost_node_refuses_the_drain_that_follows(tmp_path: Path) -> None:
    # The helper's case: web-a on n1, web-b on n2, web-c on n3 (1500m each, 2-cpu nodes), a budget
    # minAvailable 2 without status: counted 3 healthy − 2 = 1 allowed. --remove-node n3 takes
    # web-c: 2 healthy, 0 allowed; its replacement finds no room (n1 cordoned, n2 full), so the
    # drain of n1 never evicts web-a (disruption.go: currentHealthy − desiredHealthy).
    web = {"app": "web"}
    docs = [node(f"n{i}", "a", cpu="2") for i in (1, 2, 3)] + [
        {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "shop"},
         "spec": {"minAvailable": 2, "selector": {"matchLabels": web}}},
        *(pod(f"web-x1-{c}", "shop", "1500m", f"n{i}", ("ReplicaSet", "web-x1"), web) for i, c in
          ((1, "aaaaa"), (2, "bbbbb"), (3, "ccccc")))]
    result = invoke(["schedule", "-c", write(tmp_path, "lost.yaml", docs), "--now", NOW, "--remove-node", "n3",
                     "--drain", "n1"])
    assert result.stdout.splitlines()[1].startswith(
        "what-if: drain n1: evicted 0 pod(s), 0 recreated pending, 1 left on the node; stopped: error when evicting "
        'pods/"web-x1-aaaaa"')


def test_a_pending_pod_the_budget_selects_heals_it_once_bound(tmp_path: Path) -> None:
    # web-x1-ddddd is pending already: a budget of minAvailable 3 over 4 replicas counts 3 healthy,
    # 0 allowed. The drain of n1 is refused; while kubectl waits, ddddd is bound (n2 has room):
    # 4 healthy, 1 allowed, aaaaa goes on the retry.
    web = {"app": "web"}
    docs = [node("n1", "a", cpu="2"), node("n2", "a", cpu="4"), node("n3", "a", cpu="2"),
            {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "shop"},
             "spec": {"minAvailable": 3, "selector": {"matchLabels": web}}},
            pod("web-x1-aaaaa", "shop", "1500m", "n1", ("ReplicaSet", "web-x1"), web),
            pod("web-x1-bbbbb", "shop", "1500m", "n2", ("ReplicaSet", "web-x1"), web),
            pod("web-x1-ccccc", "shop", "1500m", "n3", ("ReplicaSet", "web-x1"), web),
            pod("web-x1-ddddd", "shop", "1500m", None, ("ReplicaSet", "web-x1"), web)]
    result = invoke(["schedule", "-c", write(tmp_path, "heal.yaml", docs), "--now", NOW, "--drain", "n1"])
    assert result.stdout.splitlines()[0].startswith(
        "what-if: drain n1: evicted 1 pod(s) (1 once pods their budget counts were bound again: kubectl retries a "
        "budget's refusal every 5s), 1 recreated pending, 0 left on the node")


def test_a_later_drain_finds_the_pods_an_earlier_drains_wait_put_on_its_node(tmp_path: Path) -> None:
    """--drain n2: aaaa2 goes (1 allowed → 0); while aaaa3 waits, aaaa2's replacement is bound on
    n0 (2500m free against n1's 1500m: the least allocated), the budget is back to 1, aaaa3 goes.
    --drain n0 finds that replacement there, beside aaaa0: both refused (0); aaaa3's replacement,
    bound on n1 meanwhile, gives one back: aaaa0 goes; its own replacement finds no room (n0, n2
    cordoned, n1 full): aaaa2's replacement stays. --drain n1: the filler goes (no budget), aaaa3's
    replacement is refused (0) and nothing pending can be bound any more."""
    result = invoke(["schedule", "-c", _budgeted(tmp_path), "--now", NOW, "--drain", "n2", "--drain", "n0",
                     "--drain", "n1", "-o", "json"])
    first, second, third = (w["summary"] for w in json.loads(result.stdout)["whatif"])
    retried = "once pods their budget counts were bound again: kubectl retries a budget's refusal every 5s"
    assert first == f"drain n2: evicted 2 pod(s) (1 {retried}), 2 recreated pending, 0 left on the node"
    assert second.startswith(f"drain n0: evicted 1 pod(s) (1 {retried}), 1 recreated pending, 1 left on the node; "
                             'stopped: error when evicting pods/"a-x1-')
    assert third.startswith('drain n1: evicted 1 pod(s), 1 recreated pending, 1 left on the node; stopped: error when '
                            'evicting pods/"a-x1-')


def test_a_pod_a_drains_wait_bound_runs_there_for_the_operations_that_follow(tmp_path: Path) -> None:
    """--drain n2: aaaa2 goes; while aaaa3 waits, aaaa2's replacement is bound on n0 (2500m free
    against n1's 1500m) and aaaa3 goes. --cordon n0 then leaves that replacement where it runs;
    aaaa3's replacement, pending after the drain, is placed by the run: n0 and n2 cordoned, n1
    has 1500m free, its request — bound there. Nothing stays pending (taken back pending, the
    first replacement would have competed for n1's 1500m with the second: one left pending)."""
    result = invoke(["schedule", "-c", _budgeted(tmp_path), "--now", NOW, "--drain", "n2", "--cordon", "n0",
                     "-o", "json"])
    assert result.exit_code == 0, result.stdout
    placed = [(r["pod"].startswith("shop/a-x1-"), r["outcome"], r["node"]) for r in json.loads(result.stdout)["results"]]
    assert placed == [(True, "bound", "n1")]


def test_drain_blocked_by_a_pdb_that_allows_none(tmp_path: Path) -> None:
    x = cluster_x() + [pdb(0)]
    result = invoke(["schedule", "-c", write(tmp_path, "x.yaml", x), "--now", NOW, "--drain", "n1", "--force"])
    assert result.exit_code == 0  # db-0 and big still find room
    assert ('kwhatif: warning: --drain n1 --force: error when evicting pods/"web-abc12-aaaaa" -n "shop" '
            "(will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.") in result.stderr
    assert result.stdout.startswith("what-if: drain n1: evicted 2 pod(s), 1 recreated pending, 4 left on the node; "
                                    'stopped: error when evicting pods/"web-abc12-aaaaa"')
    strict = invoke(["schedule", "-c", write(tmp_path, "x.yaml", x), "--now", NOW, "--drain", "n1", "--force",
                     "--strict"])
    assert strict.exit_code == 2


def test_a_pdb_over_several_nodes_is_spent_across_drains(same: Callable[..., None]) -> None:
    # Budget 2 for the 3 web pods (2 on n1, 1 on n2): draining n1 spends both, so n2's pod is
    # refused — for good: with n1 and n2 cordoned, n3 (4 cpu) takes big (3500m, first in the
    # queue) and db-0's replacement (500m) while kubectl waits on n2; the web replacements (1 cpu)
    # stay pending, so no pod the budget counts gets healthy again. X': those two nominated to n3.
    x = cluster_x() + [pdb(2)]
    edited = drained_n1(x, pdb_left=0)
    cordon(named(edited, "n2"))
    nominated(named(edited, "big"), "n3")
    nominated(named(edited, "db-0"), "n3")
    same(["--drain", "n1", "--drain", "n2", "--force"], edited, x=x)


def test_a_budget_spent_by_one_drain_recovers_for_the_next_once_the_replacements_run(
        same: Callable[..., None]) -> None:
    # Without big: draining n1 spends the budget of 2 on aaaaa and ccccc; draining n2 gets a 429
    # for bbbbb, and kubectl retries. Meanwhile n3 (4 cpu, the only node not cordoned) takes the
    # replacements of aaaaa, ccccc (1 cpu each) and db-0 (500m): two web pods healthy again, the
    # budget allows 2, bbbbb goes (1 left) and is recreated pending after the others. X': the
    # three the wait bound nominated to n3.
    x = without(cluster_x(), "big") + [pdb(2)]
    edited = without(drained_n1(x, pdb_left=1), "web-abc12-bbbbb")
    cordon(named(edited, "n2"))
    for replacement in ("web-abc12-xxxx1", "web-abc12-xxxx2", "db-0"):
        nominated(named(edited, replacement), "n3")
    named(edited, "web")["status"]["disruptedPods"]["web-abc12-bbbbb"] = NOW
    edited.append(recreated(x, "web-abc12-bbbbb", "web-abc12-xxxx3"))
    same(["--drain", "n1", "--drain", "n2", "--force"], edited, x=x)


def test_drain_without_force_stops_at_a_bare_pod(tmp_path: Path, same: Callable[..., None]) -> None:
    # kubectl's unreplicatedFilter error stops the drain before any eviction: n1 is only cordoned.
    edited = cluster_x()
    cordon(named(edited, "n1"))
    same(["--drain", "n1"], edited)
    result = invoke(["schedule", "-c", write(tmp_path, "x.yaml", cluster_x()), "--now", NOW, "--drain", "n1"])
    assert ("cannot delete Pods that declare no controller (use --force to override): shop/bare"
            in result.stderr)


def test_operations_from_a_file_equal_the_options(tmp_path: Path, validate: Callable[[Any], None]) -> None:
    ops = tmp_path / "ops.yaml"
    ops.write_text("- drain: n1\n  force: true\n- taint: [n3, 'dedicated=gpu:NoSchedule']\n- label: [n2, disk=ssd]\n")
    cluster = write(tmp_path, "x.yaml", cluster_x())
    args = ["schedule", "-c", cluster, "-o", "json", "--now", NOW]
    from_file = invoke([*args, "--whatif", str(ops)])
    from_options = invoke([*args, "--drain", "n1", "--force", "--taint", "n3", "dedicated=gpu:NoSchedule",
                           "--label", "n2", "disk=ssd"])
    assert from_file.stdout == from_options.stdout
    validate(json.loads(from_file.stdout))
    assert [w["operation"] for w in json.loads(from_file.stdout)["whatif"]] == [
        "--drain n1 --force", "--taint n3 dedicated=gpu:NoSchedule", "--label n2 disk=ssd"]


def test_place_and_explain_take_the_operations(tmp_path: Path, same: Callable[..., None]) -> None:
    pod_file = write(tmp_path, "new.yaml", [pod("extra", "shop", "3")])
    edited = cluster_x()
    cordon(named(edited, "n3"))
    same(["--cordon", "n3"], edited, command="place", extra=[pod_file])
    x = write(tmp_path, "x1.yaml", cluster_x())
    y = write(tmp_path, "y1.yaml", edited)
    explained = invoke(["explain", "shop/big", "-c", x, "-o", "json", "--now", NOW, "--cordon", "n3"])
    by_hand = invoke(["explain", "shop/big", "-c", y, "-o", "json", "--now", NOW])
    with_ops = json.loads(explained.stdout)
    assert with_ops.pop("whatif")[0]["operation"] == "--cordon n3"
    assert with_ops == json.loads(by_hand.stdout)


CHECK_WORKLOAD = [{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "api", "namespace": "shop"},
                   "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "api"}},
                            "template": {"metadata": {"labels": {"app": "api"}},
                                         "spec": {"containers": [{"name": "c", "image": "api",
                                                                  "resources": {"requests": {"cpu": "2"}}}]}}}}]


def test_check_with_operations_equals_check_of_the_edited_cluster(tmp_path: Path) -> None:
    workloads = write(tmp_path, "deploy.yaml", CHECK_WORKLOAD)
    edited = cluster_x()
    cordon(named(edited, "n3"))
    named(edited, "n2")["spec"]["taints"] = [{"key": "k", "value": "v", "effect": "NoSchedule"}]
    args = ["check", workloads, "-o", "json", "--now", NOW]
    with_ops = invoke([*args, "-c", write(tmp_path, "x.yaml", cluster_x()), "--cordon", "n3", "--taint", "n2",
                       "k=v:NoSchedule"])
    by_hand = invoke([*args, "-c", write(tmp_path, "y.yaml", edited)])
    assert with_ops.exit_code == by_hand.exit_code == 1  # 2 x 2 cpu do not fit on n1 (3.2 cpu used) alone
    data = json.loads(with_ops.stdout)
    assert [w["summary"] for w in data.pop("whatif")] == ["cordon n3", "taint n2 k=v:NoSchedule"]
    assert data == json.loads(by_hand.stdout)


@pytest.mark.parametrize("ops, error", [
    (["--cordon", "nope"], "kwhatif: error: --cordon nope: no such node in the cluster"),
    (["--drain", "zone=z"], "kwhatif: error: --drain zone=z: no node matches this label selector"),
    (["--taint", "n1", "k=v"], "kwhatif: error: --taint k=v: expected key=value:Effect with Effect one of "
                               "NoSchedule, PreferNoSchedule, NoExecute"),
    (["--delete-pod", "shop/nope"], "kwhatif: error: --delete-pod shop/nope: no such pod in the cluster"),
    (["--scale", "Deployment/shop/web=2"], "kwhatif: error: --scale Deployment/shop/web=2: no Deployment/shop/web "
                                           "in the cluster (workloads of check and capacity files are scaled there)"),
    (["--scale", "Job/shop/batch=2"], "kwhatif: error: --scale Job/shop/batch=2: KIND must be one of Deployment, "
                                      "ReplicaSet, StatefulSet, ReplicationController (in the snapshot, a Deployment "
                                      "is scaled through its ReplicaSet)"),
    # kubectl taint nodes n1 nosuch-: error: taint "nosuch" not found
    (["--untaint", "n1", "nosuch"], 'kwhatif: error: --untaint n1 nosuch: taint "nosuch" not found (kubectl\'s '
                                    "answer; no node it names has it)"),
], ids=["unknown node", "selector matching nothing", "taint without effect", "unknown pod",
        "scale a Deployment the snapshot lacks", "scale a Job", "untaint a taint no node has"])
def test_bad_operations_are_one_line_errors(tmp_path: Path, ops: list[str], error: str) -> None:
    result = invoke(["schedule", "-c", write(tmp_path, "x.yaml", cluster_x()), "--now", NOW, *ops])
    assert result.exit_code == 2
    assert result.stderr == error + "\n"


def test_the_installed_command_echoes_the_operations(tmp_path: Path) -> None:
    done = subprocess.run([executable("kwhatif"), "schedule", "-c", write(tmp_path, "x.yaml", cluster_x()),
                           "--now", NOW, "--cordon", "n3", "--drain", "n1", "--force"],
                          capture_output=True, text=True, check=False)
    assert done.stdout.splitlines()[:2] == [
        "what-if: cordon n3",
        "what-if: drain n1: evicted 4 pod(s), 3 recreated pending, 2 left on the node",
    ]


def test_capacity_with_operations_equals_capacity_of_the_edited_cluster(tmp_path: Path) -> None:
    # capacity keeps its own --add-node (nodes to add for the workloads); a cordon is the what-if one.
    workloads = write(tmp_path, "deploy.yaml", CHECK_WORKLOAD)
    edited = cluster_x()
    cordon(named(edited, "n3"))
    args = ["capacity", workloads, "-o", "json", "--now", NOW]
    with_ops = invoke([*args, "-c", write(tmp_path, "x.yaml", cluster_x()), "--cordon", "n3"])
    by_hand = invoke([*args, "-c", write(tmp_path, "y.yaml", edited)])
    assert with_ops.exit_code == by_hand.exit_code, with_ops.stderr  # 1: the workload's own replicas do not all fit
    data = json.loads(with_ops.stdout)
    assert [w["summary"] for w in data.pop("whatif")] == ["cordon n3"]
    assert data == json.loads(by_hand.stdout)


def test_check_scales_a_workload_of_its_files(tmp_path: Path) -> None:
    # --scale of the file's Deployment is its spec.replicas edited by hand.
    x = write(tmp_path, "x.yaml", cluster_x())
    scaled = copy.deepcopy(CHECK_WORKLOAD)
    scaled[0]["spec"]["replicas"] = 1
    args = ["check", "-c", x, "-o", "json", "--now", NOW]
    (tmp_path / "edited").mkdir()  # the same file name: the output names each workload's file
    with_ops = invoke([*args, write(tmp_path, "deploy.yaml", CHECK_WORKLOAD), "--scale", "Deployment/shop/api=1"])
    by_hand = invoke([*args, write(tmp_path / "edited", "deploy.yaml", scaled)])
    assert with_ops.exit_code == by_hand.exit_code == 0, with_ops.stderr  # one 2-cpu pod fits on n2 or n3
    data = json.loads(with_ops.stdout)
    assert [w["summary"] for w in data.pop("whatif")] == ["scale Deployment/shop/api=1 (a workload of the files)"]
    assert json.dumps(data) == json.dumps(json.loads(by_hand.stdout)).replace(str(tmp_path / "edited"), str(tmp_path))
    missing = invoke([*args, write(tmp_path, "deploy.yaml", CHECK_WORKLOAD), "--scale", "Deployment/shop/nope=1"])
    assert missing.exit_code == 2
    assert missing.stderr == ("kwhatif: error: --scale Deployment/shop/nope=1: no such workload in the snapshot "
                              "or the workload files\n")


@pytest.mark.parametrize("content, error", [
    ("- cordon: [n1, n2]\n", "item 0: --cordon: expected NODE"),
    ("- foo: n1\n", "item 0:"),
    ("- cordon:\n", "item 0: cordon: expected its arguments as on the command line"),  # null: not "None" the node
    ("{\n", "while parsing"),
    # "false" in quotes is a string — true in Python: refused, never read as force
    ('- drain: n1\n  force: "false"\n', "item 0: force: expected true or false, got 'false'"),
])
@pytest.mark.parametrize("command", [["check", "WORKLOADS"], ["schedule"]])
def test_a_bad_whatif_file_is_a_one_line_error_of_the_installed_command(
        tmp_path: Path, content: str, error: str, command: list[str]) -> None:
    """Exit 2, not a traceback with exit 1 — which `check` would have turned into "does not fit"."""
    ops = tmp_path / "ops.yaml"
    ops.write_text(content)
    args = [write(tmp_path, "deploy.yaml", CHECK_WORKLOAD) if a == "WORKLOADS" else a for a in command]
    done = subprocess.run([executable("kwhatif"), *args, "-c", write(tmp_path, "x.yaml", cluster_x()),
                           "--now", NOW, "--whatif", str(ops)], capture_output=True, text=True, check=False)
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"kwhatif: error: --whatif {ops}: ") and error in line


@pytest.mark.parametrize("name, error", [("missing.yaml", "no such file or directory"),
                                         ("folder", "cannot read file: is a directory"),
                                         ("latin1.yaml", "not a text file: invalid UTF-8 at byte 11")])
def test_a_whatif_file_that_cannot_be_read_is_said_as_any_input(tmp_path: Path, name: str, error: str) -> None:
    (tmp_path / "folder").mkdir()
    (tmp_path / "latin1.yaml").write_bytes("- cordon: n\xe9\n".encode("latin-1"))  # "- cordon: n" is bytes 0-10: é (0xe9) is byte 11
    result = invoke(["schedule", "-c", write(tmp_path, "x.yaml", cluster_x()), "--now", NOW,
                     "--whatif", str(tmp_path / name)])
    assert (result.exit_code, result.stderr) == (2, f"kwhatif: error: --whatif {tmp_path / name}: {error}\n")


def test_an_add_node_template_of_a_whatif_file_is_found_beside_the_file(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # As a sweep's paths are: relative to the file that names them (the working directory is elsewhere).
    ops_dir = tmp_path / "ops"
    ops_dir.mkdir()
    (ops_dir / "node.yaml").write_text(
        "apiVersion: v1\nkind: Node\nmetadata: {name: added}\n"
        "status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}\n")
    (ops_dir / "ops.yaml").write_text("- add-node: node.yaml:2\n")
    cluster = write(tmp_path, "x.yaml", cluster_x())
    monkeypatch.chdir(tmp_path)
    result = invoke(["schedule", "-c", cluster, "--whatif", str(ops_dir / "ops.yaml"), "-o", "json", "--now", NOW])
    assert result.exit_code in (0, 1), result.stderr
    assert "add-node 2 like added" in json.loads(result.stdout)["whatif"][0]["summary"]


def test_an_operation_after_a_drain_finds_the_devices_its_waits_allocated(tmp_path: Path) -> None:
    # tests/cli/data/drain/dra.yaml: draining n1 evicts web-a (the budget allows 1); while kubectl
    # waits, its replacement takes claim ca, allocated to n2's one GPU, and the budget lets web-b
    # go. Its replacement (claim cb) finds no GPU left: n1 cordoned, n2's taken, n3 has none. An
    # operation after the drain that changes nothing for them (a label on n3) must not hand n2's
    # GPU out again: the wait's allocation is the cluster's from then on.
    cluster = str(DATA / "drain" / "dra.yaml")
    alone = invoke(["schedule", "-c", cluster, "--now", NOW, "--drain", "n1", "-o", "json"])
    after = invoke(["schedule", "-c", cluster, "--now", NOW, "--drain", "n1", "--label", "n3", "x=y", "-o", "json"])
    outcomes = [{r["pod"]: r["outcome"] for r in json.loads(run.stdout)["results"]} for run in (alone, after)]
    assert sorted(outcomes[0].values()) == ["bound", "unschedulable"]
    replacement_of_b = next(pod for pod, outcome in outcomes[0].items() if outcome == "unschedulable")
    assert outcomes[1] == {replacement_of_b: "unschedulable"}  # the other one runs on n2 already


def test_a_drain_places_what_its_wait_bound_alike_alone_and_followed_by_a_no_op() -> None:
    """tests/cli/data/drain/spread.yaml: draining n1 evicts web-abc-1 and -2 (2 allowed), web-abc-3
    waits. Scores (default profile; ImageLocality, NodeAffinity, InterPodAffinity 0; TaintToleration
    300 on n2 and n3 alike; PodTopologySpread's system defaults, hostname maxSkew 3 and zone maxSkew
    5, each raw cnt·ln(2+2) + maxSkew−1 — web-abc-3 still counts on cordoned n1, nodeTaintsPolicy
    Ignore — normalized 100·(max+min−raw)/max, ×2):
    - 1st replacement: Fit n2 (200m, 200Mi) (95+97)/2 = 96, n3 (100m, 100Mi) (97+98)/2 = 97;
      Balanced n2 1−|0.05−0.0244|/2 → 98, n3 1−|0.025−0.0122|/2 → 99; spread raw n2 (1, zone a 2)
      10.16 → 10, n3 (0, zone b 0) 6: 60 and 100. n2 96+98+300+120 = 614, n3 97+99+300+200 = 696: n3.
    - 2nd: Fit 96 and Balanced 98 on both; spread raw n2 10, n3 (1, zone b 1) 8.77 → 9: 90, 100.
      n2 674, n3 694: n3.
    Both run: 4 healthy, web-abc-3 goes. Its replacement, placed by the run (nothing on n1 now):
    Fit n2 96, n3 (300m, 300Mi) (92+96)/2 = 94; Balanced 98 both; spread raw n2 (1, zone a 1) 8.77
    → 9, n3 (2, zone b 2) 11.55 → 12: 100, 75. n2 96+98+300+200 = 694, n3 94+98+300+150 = 642: n2.
    A cordon of n1 (again) or a label on n3 after the drain changes none of it. (Placed afresh
    by the run with web-abc-3 gone, the 2nd had tied n2 and n3 and gone to n2.)"""
    cluster = str(DATA / "drain" / "spread.yaml")
    placed, reasons = [], []
    for no_op in ([], ["--cordon", "n1"], ["--label", "n3", "foo=bar"]):
        result = invoke(["diff", "-c", cluster, "--now", NOW, "--drain", "n1", *no_op, "-o", "json"])
        assert result.exit_code == 1, result.stderr  # pods evicted
        data = json.loads(result.stdout)
        after = {p["pod"]: (p["after"], p["reason"]) for p in data["pods"]}
        created = [after[key] for key in data["whatif"][0]["created_pods"]]
        placed.append([node for node, _ in created])
        reasons.append(created[2][1])
    assert placed == [["n3", "n3", "n2"]] * 3
    assert reasons == ["created by --drain n1: n2 (score 694)"] * 3


def test_a_zone_drain_of_the_samples_ends_alike_alone_and_followed_by_a_no_op() -> None:
    """samples/cluster.yaml, zone eu-west-1a drained: budgets make kubectl wait, and while it
    waits the scheduler binds replacements — preempting priority -10 ml pods to do it. Those
    victims leave the cluster (their controllers make them again): left in, they ran beside
    their preemptor on a node too small for both (the run then warned that worker-b1 and
    worker-b3 hold more than they have). The pods the waits bound keep their places whether an
    operation follows or not: scheduled first, in the order they were bound, they are not
    pushed out by higher-priority pods recreated later (a nomination alone holds room only
    against equal or lower priorities)."""
    outcomes = []
    for no_op in ([], ["--cordon", "worker-a1"], ["--label", "gpu-c1", "foo=bar"]):
        result = invoke(["diff", "-c", str(REPO / "samples" / "cluster.yaml"), "--now", NOW, "--drain",
                         "topology.kubernetes.io/zone=eu-west-1a", *no_op, "-o", "json"])
        assert "request more than" not in result.stderr
        data = json.loads(result.stdout)
        outcomes.append({p["pod"]: (p["change"], p["after"]) for p in data["pods"]})
        assert "preempted while kubectl waited" in data["whatif"][0]["summary"]
    assert outcomes[0] == outcomes[1] == outcomes[2]


def test_a_deployment_scaled_through_its_replica_set_is_budgeted_at_its_new_scale() -> None:
    # maxUnavailable 1 counts from the Deployment's scale: at 3, desired 2; scaled to 1 (through its
    # ReplicaSet), expected 1, desired 0, and the one pod left healthy: 1 disruption allowed, the
    # drain of its node evicts it (counted at the old scale, 1 − 2 < 0 allowed nothing). The scale
    # deletes the younger two (1.5 and 0.5 days old against web-abc-0's year: log2 buckets 46, 45, 54).
    cluster = str(DATA / "drain" / "deployment-budget.yaml")
    result = invoke(["schedule", "-c", cluster, "--now", NOW, "--scale", "rs/shop/web-abc=1", "--drain", "n1", "-q"])
    lines = result.stdout.splitlines()
    assert lines[0] == "what-if: scale ReplicaSet/shop/web-abc from 3 to 1"
    assert lines[1].startswith("what-if: drain n1: evicted 1 pod(s)")
