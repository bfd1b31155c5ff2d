"""`explain` suggestions: each one, applied to the input objects as its JSON Patch says, makes
`kwhatif schedule` bind the pod (the contract of `explanation.suggestions`).

big (1800m cpu) in tests/cli/data/cluster: node-b has 4000m - 2500m - 300m (urgent, placed
first) = 1200m free, node-a 500m; node-c is tainted. Lowering big's one container by 600m to
1200m makes it fit node-b exactly (test_explain.py has the arithmetic)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.cli.conftest import WEB_2_CPU, CLUSTER, NOW


def _apply(doc: dict[str, Any], patch: list[dict[str, Any]]) -> None:
    """RFC 6902 `replace`, `add` and `remove` on a manifest (the operations suggestions use)."""
    for op in patch:
        *parents, last = [p.replace("~1", "/").replace("~0", "~") for p in op["path"].lstrip("/").split("/")]
        target: Any = doc
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        assert op["op"] in ("replace", "add", "remove")
        if op["op"] == "remove":
            del target[int(last) if isinstance(target, list) else last]
        elif isinstance(target, list) and op["op"] == "add":  # insert before the index, or append at "-"
            target.insert(len(target) if last == "-" else int(last), op["value"])
        elif isinstance(target, list):
            target[int(last)] = op["value"]
        else:
            assert op["op"] == "add" or last in target
            target[last] = op["value"]


def _apply_changes(folder: Path, changes: list[dict[str, Any]]) -> None:
    """Each change to the input file holding its target object."""
    for i, change in enumerate(changes):
        if change["op"] == "add":
            (folder / f"added-{i}.yaml").write_text(yaml.safe_dump(change["object"]))
            continue
        assert change["op"] in ("patch", "delete")
        target = change["target"]
        for path in folder.glob("*.yaml"):
            docs = [d for d in yaml.safe_load_all(path.read_text()) if d]
            hit = [d for d in docs if d["kind"] == target["kind"] and d["metadata"]["name"] == target["name"]
                   and d["metadata"].get("namespace") in (target["namespace"], None)]
            if hit:
                if change["op"] == "delete":
                    docs.remove(hit[0])
                else:
                    _apply(hit[0], change["patch"])
                path.write_text(yaml.safe_dump_all(docs))
                break
        else:
            raise AssertionError(f"no input object for {target}")


def _explained_changes(cli, folder: Path, pod: str, validate_pod_result) -> list[Any]:
    """The changes of each suggestion `explain` makes for `pod` on the folder's input (the
    suggestions contract is part of the output schema, so the whole record is validated)."""
    data = json.loads(cli(["explain", pod, "-c", str(folder), "--now", NOW, "-o", "json"]).stdout)
    validate_pod_result(data)
    assert all(s["verified"] is True for s in data["explanation"]["suggestions"])
    return [s["changes"] for s in data["explanation"]["suggestions"]]


def _placement(cli, folder: Path, pod: str) -> tuple[str, str]:
    """(outcome, node) of `pod` when `kwhatif schedule` runs on the folder."""
    result = json.loads(cli(["schedule", "-c", str(folder), "--now", NOW, "-o", "json"]).stdout)
    found = next(r for r in result["results"] if r["pod"] == pod)
    return found["outcome"], found["node"]


BIG = {"kind": "Pod", "namespace": "default", "name": "big"}
EXPECTED = [
    # node-b: 1200m free -> 1800m - 600m fits exactly; memory (1Gi) stays. big is a bare pod: the
    # API server refuses a new request in place, so it is made again (`recreate`).
    ({"op": "patch", "target": BIG,
      "patch": [{"op": "add", "path": "/spec/containers/0/resources/requests",
                 "value": {"cpu": "1200m", "memory": "1Gi"}}], "recreate": True},
     "node-b"),
    # node-c (16 cpu, nothing bound) only lacks the toleration for dedicated=gpu:NoSchedule (added
# tolerations: the one change a pod takes in place).
    ({"op": "patch", "target": BIG,
      "patch": [{"op": "add", "path": "/spec/tolerations",
                 "value": [{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}]}]},
     "node-c"),
]
# node-a is full for big (500m free) but big fits it empty (2000m). One copy is not enough:
# urgent, earlier in the queue, takes the empty node-a-1 (LeastAllocated scores it best), leaving
# 1700m; with two, big lands on node-a-2.
ADD_NODES = [{"op": "add", "object": {
    "apiVersion": "v1", "kind": "Node",
    "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}},
    "spec": {},
    "status": {"capacity": {"cpu": "2000m", "memory": "4Gi", "pods": "110"},
               "allocatable": {"cpu": "2000m", "memory": "4Gi", "pods": "110"}}}}
    for name in ("node-a-1", "node-a-2")]


# With the existing class high (1000) big ties urgent's priority and, created earlier, goes first:
# node-a (500m free) and node-b (1500m) are full, and evicting one priority-0 pod makes room on
# either; every criterion of pickOneNodeForPreemption ties (no PDB, one victim of priority 0, same
# start time), so the smallest name: node-a, evicting bound-a, then bound there on the retry.
PRIORITY = [{"op": "patch", "target": BIG,
             "patch": [{"op": "add", "path": "/spec/priorityClassName", "value": "high"},
                       {"op": "add", "path": "/spec/priority", "value": 1000}], "recreate": True}]
CASES = [([change], node) for change, node in EXPECTED] + [(ADD_NODES, "node-a-2"), (PRIORITY, "node-a")]


@pytest.mark.parametrize("index", range(len(CASES)),
                         ids=["lower-request", "tolerate-taint", "add-nodes", "raise-priority"])
def test_each_suggestion_applied_to_the_input_binds_the_pod(cli, tmp_path, validate_pod_result, index):
    folder = tmp_path / "cluster"
    shutil.copytree(CLUSTER, folder)
    assert _explained_changes(cli, folder, "big", validate_pod_result) == [changes for changes, _ in CASES]
    changes, node = CASES[index]
    _apply_changes(folder, changes)
    assert _placement(cli, folder, "default/big") == ("bound", node)


def test_a_placed_pod_gets_no_suggestion(cli):
    data = json.loads(cli(["explain", "default/small", "-c", str(CLUSTER), "--now", NOW, "-o", "json"]).stdout)
    assert data["explanation"]["suggestions"] == []


TOO_BIG = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}
status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: want, namespace: default, creationTimestamp: "2025-06-01T00:00:00Z"}
spec:
  containers: [{name: main, image: busybox, resources: {requests: {cpu: "3", memory: 9Gi}}}]
"""
NONE_FITS = "kwhatif: no single change kwhatif tries makes it fit (it tries: lower a request, tolerate a taint,"


def test_a_pending_pod_no_single_change_fits_is_said_to_have_been_searched(cli, tmp_path, monkeypatch):
    """want asks 3 cpu and 9Gi of nodes with 2 and 8Gi: lowering either request alone leaves the
    other too big, and more than a node's allocatable is no room preemption or a like node makes
    (UnschedulableAndUnresolvable); the page says the search found nothing, naming what it tried."""
    (tmp_path / "c.yaml").write_text(TOO_BIG)
    monkeypatch.setenv("COLUMNS", "1000")
    out = cli(["explain", "want", "-c", str(tmp_path / "c.yaml"), "--now", NOW]).stdout
    assert NONE_FITS in out
    assert "what would make it fit" not in out


@pytest.mark.parametrize("pod", [
    "big",    # two suggestions (EXPECTED above): they are the section
    "small",  # placed: nothing searched
])
def test_only_a_search_that_found_nothing_says_so(cli, monkeypatch, pod):
    monkeypatch.setenv("COLUMNS", "1000")
    assert NONE_FITS not in cli(["explain", pod, "-c", str(CLUSTER), "--now", NOW]).stdout


CORDONED = """
apiVersion: v1
kind: Node
metadata: {name: old, labels: {kubernetes.io/hostname: old}}
spec:
  unschedulable: true
  taints: [{key: node.kubernetes.io/unschedulable, effect: NoSchedule}]
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata: {name: small, labels: {kubernetes.io/hostname: small}}
status:
  allocatable: {cpu: "1", memory: 8Gi, pods: "110"}
---
""" + WEB_2_CPU


SELECTOR = """
apiVersion: v1
kind: Node
metadata: {name: b, labels: {kubernetes.io/hostname: b, example.com/tier: silver}}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata: {name: a, labels: {kubernetes.io/hostname: a}}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata: {name: db, namespace: default, creationTimestamp: "2025-06-01T00:00:00Z"}
spec:
  nodeSelector: {example.com/tier: gold}
  containers: [{name: app, image: postgres, resources: {requests: {cpu: "1"}}}]
"""


PORTS = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata: {name: agent, namespace: default}
spec:
  nodeName: n1
  containers: [{name: a, image: agent, ports: [{containerPort: 80, hostPort: 8080}]}]
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, creationTimestamp: "2025-06-01T00:00:00Z"}
spec:
  containers: [{name: w, image: nginx, ports: [{containerPort: 80, hostPort: 8080}]}]
"""


LIMITS_ONLY = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status:
  allocatable: {cpu: "1", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata: {name: job, namespace: default, creationTimestamp: "2025-06-01T00:00:00Z"}
spec:
  containers: [{name: c, image: busybox, resources: {limits: {cpu: "2"}}}]
"""


SPREAD = """
apiVersion: v1
kind: Node
metadata: {name: a1, labels: {kubernetes.io/hostname: a1, topology.kubernetes.io/zone: a}}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata: {name: b1, labels: {kubernetes.io/hostname: b1, topology.kubernetes.io/zone: b}}
spec:
  taints: [{key: dedicated, value: infra, effect: NoSchedule}]
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata: {name: web-1, namespace: default, labels: {app: web}}
spec: {nodeName: a1, containers: [{name: w, image: nginx}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: web-2, namespace: default, labels: {app: web}}
spec: {nodeName: a1, containers: [{name: w, image: nginx}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: web-3, namespace: default, labels: {app: web}, creationTimestamp: "2025-06-01T00:00:00Z"}
spec:
  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule,
     labelSelector: {matchLabels: {app: web}}}
  containers: [{name: w, image: nginx}]
"""


def _node(name: str, labels: str = "") -> str:
    """A 4-cpu Node document (`labels`: more `key: value` pairs after its hostname)."""
    return f"""---
apiVersion: v1
kind: Node
metadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}{", " + labels if labels else ""}}}}}
status:
  allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}
"""


def _bound_db(name: str, node: str) -> str:
    return f"""---
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default, labels: {{app: db}}}}
spec: {{nodeName: {node}, containers: [{{name: d, image: postgres}}]}}
status: {{phase: Running}}
"""


def _pending(name: str, labels: str, spec: str) -> str:
    """A pending pod created before the others' `--now`, with `spec` lines (indented by two) before
    its one container."""
    return f"""---
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default, labels: {{{labels}}}, creationTimestamp: "2025-06-01T00:00:00Z"}}
spec:
{spec}  containers: [{{name: c, image: app}}]
"""


def _anti(selector: str) -> str:
    """spec lines: a required pod anti-affinity on the hostname against `selector` (matchLabels)."""
    return f"""  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - {{topologyKey: kubernetes.io/hostname, labelSelector: {{matchLabels: {{{selector}}}}}}}
"""


def _node_affinity(*expressions: str) -> str:
    """spec lines: one required nodeSelectorTerm with these matchExpressions."""
    return """  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
""" + "".join(f"          - {{{e}}}\n" for e in expressions)


ANTI = _node("n1") + _bound_db("db-1", "n1") + _pending("db-2", "app: db", _anti("app: db"))
ANTI_NEAREST = (_node("n1") + _node("n2") + _bound_db("db-1", "n1") + _bound_db("db-2", "n1")
                + _bound_db("db-3", "n2") + _pending("db-4", "app: db", _anti("app: db")))
EXISTING_ANTI = _node("n1") + f"""---
apiVersion: v1
kind: Pod
metadata: {{name: guard, namespace: default, labels: {{app: guard}}}}
spec:
  nodeName: n1
{_anti("app: web")}  containers: [{{name: g, image: guard}}]
status: {{phase: Running}}
""" + _pending("web", "app: web", "")
NODE_AFFINITY = (_node("a", "example.com/rack: rack-c, disktype: hdd")
                 + _node("b", "example.com/rack: rack-c")
                 + _pending("cache", "", _node_affinity(
                     "key: example.com/rack, operator: In, values: [rack-a, rack-b]",
                     "key: disktype, operator: DoesNotExist")))
NODE_AFFINITY_UNLABELLED = (_node("a", "example.com/rack: rack-c, disktype: hdd")
                            + _node("b", "kubernetes.io/os: linux")
                            + _pending("cache", "", _node_affinity(
                                "key: example.com/rack, operator: In, values: [rack-a, rack-b]",
                                "key: disktype, operator: DoesNotExist")))
NODE_AFFINITY_NOT_IN = (_node("c", "tier: spot") + _node("d", "gpu: a100, tier: spot")
                        + _pending("train", "", _node_affinity("key: gpu, operator: Exists",
                                                               "key: tier, operator: NotIn, values: [spot]")))

TERM_0 = "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0"


def _pod_patch(name: str, *ops: dict[str, Any]) -> dict[str, Any]:
    """A patch of a bare pod of the snapshot: beyond added tolerations the API server refuses it
    in place (ValidatePodUpdate), so the pod is made again with it (`recreate`)."""
    return {"op": "patch", "target": {"kind": "Pod", "namespace": "default", "name": name}, "patch": list(ops),
            "recreate": True}


def _node_patch(name: str, *ops: dict[str, Any]) -> dict[str, Any]:
    return {"op": "patch", "target": {"kind": "Node", "namespace": None, "name": name}, "patch": list(ops)}


# (input, pod, the change expected, whether it is the only suggestion, where the pod then binds)
SCENARIOS = [
    # web (2 cpu): small has 1 cpu; old has 4 but is cordoned (spec.unschedulable and its taint).
    # Uncordoning old (both gone, as kubectl uncordon and the node controller do) is one change;
    # lowering web's request to small's free cpu is the other.
    pytest.param(CORDONED, "web", _node_patch("old", {"op": "replace", "path": "/spec/unschedulable", "value": False},
                                              {"op": "remove", "path": "/spec/taints/0"}),
                 False, "old", id="uncordon"),
    # Both nodes lack one label of db's nodeSelector (a has none, b has silver): the smaller name,
    # a, gets example.com/tier=gold — the key's '/' escaped as '~1' in the JSON Pointer.
    pytest.param(SELECTOR, "db", _node_patch("a", {"op": "add", "path": "/metadata/labels/example.com~1tier",
                                                   "value": "gold"}),
                 False, "a", id="label-node"),
    # The same nearest node a has no example.com/tier at all: the pod's selector entry is dropped
    # instead; both nodes then fit and score alike, and the tie goes to the smaller name, a.
    pytest.param(SELECTOR, "db", _pod_patch("db", {"op": "remove", "path": "/spec/nodeSelector/example.com~1tier"}),
                 False, "a", id="drop-node-selector"),
    # b has no rack: it misses one expression of cache's term (rack In [rack-a, rack-b]); a misses
    # two (its rack-c, and disktype exists). b labelled with the list's first rack matches. (A
    # label a node has — a's rack-c — is never rewritten, nor a zone, which says where the machine
    # is: tests/explain/test_suggest_nodes.py.)
    pytest.param(NODE_AFFINITY_UNLABELLED, "cache", _node_patch("b", {"op": "add", "value": "rack-a",
                                                                      "path": "/metadata/labels/example.com~1rack"}),
                 False, "b", id="label-node-for-affinity"),
    # b misses rack In [rack-a, rack-b] with its rack-c: the In list takes b's rack (a still fails
    # disktype DoesNotExist), so cache lands on b.
    pytest.param(NODE_AFFINITY, "cache", _pod_patch("cache", {"op": "add", "value": "rack-c",
                                                              "path": f"{TERM_0}/matchExpressions/0/values/-"}),
                 False, "b", id="widen-affinity-in"),
    # d has a gpu label but is spot (NotIn fails): one miss; c misses the gpu too. Removing d's
    # tier label would satisfy NotIn, but a label a node has is never removed (other pods' rules
    # read it): the NotIn expression is dropped instead — gpu Exists is left, which only d meets.
    pytest.param(NODE_AFFINITY_NOT_IN, "train", _pod_patch("train", {"op": "remove",
                                                                     "path": f"{TERM_0}/matchExpressions/1"}),
                 False, "d", id="drop-affinity-expression"),
    # agent holds hostPort 8080/TCP on n1, the only node; web wants it too (NodePorts).
    pytest.param(PORTS, "web", {"op": "delete", "target": {"kind": "Pod", "namespace": "default", "name": "agent"}},
                 True, "n1", id="free-host-port"),
    # job's cpu request is its limit (2, API defaulting) and n1 has 1 cpu: short by 1000m, the
    # request becomes 1 while the limit stays 2 — the input has no requests map to replace into.
    pytest.param(LIMITS_ONLY, "job", _pod_patch("job", {"op": "add", "path": "/spec/containers/0/resources/requests",
                                                        "value": {"cpu": "1000m"}}),
                 False, "n1", id="lower-defaulted-request"),
    # Zone a holds 2 web pods, zone b none; b1 (zone b) is tainted, and nodeTaintsPolicy Ignore still
    # counts it as a domain: on a1 the skew would be 3 - 0 > maxSkew 1, so web-3 fits nowhere. As
    # ScheduleAnyway the constraint no longer rejects a1.
    pytest.param(SPREAD, "web-3", _pod_patch("web-3", {"op": "replace", "value": "ScheduleAnyway",
                                                       "path": "/spec/topologySpreadConstraints/0/whenUnsatisfiable"}),
                 False, "a1", id="relax-spread"),
    # db-1 runs on n1, the only node, and db-2 must not share a hostname with an app=db pod.
    pytest.param(ANTI, "db-2", _pod_patch("db-2", {
        "op": "remove", "path": "/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/0"}),
                 False, "n1", id="drop-anti-affinity"),
    # ... or db-1, the one app=db pod on n1, is deleted.
    pytest.param(ANTI, "db-2", {"op": "delete", "target": {"kind": "Pod", "namespace": "default", "name": "db-1"}},
                 False, "n1", id="delete-anti-affinity-match"),
    # n1 holds two app=db pods and n2 one: deleting db-3 is the smallest set that frees a node.
    pytest.param(ANTI_NEAREST, "db-4", {"op": "delete", "target": {"kind": "Pod", "namespace": "default",
                                                                     "name": "db-3"}},
                 False, "n2", id="delete-fewest-anti-affinity-matches"),
    # guard's own anti-affinity keeps app=web pods off its hostname: web has no term to drop;
    # deleting guard is one suggestion (a node like n1, a new hostname, the other).
    pytest.param(EXISTING_ANTI, "web", {"op": "delete", "target": {"kind": "Pod", "namespace": "default",
                                                                    "name": "guard"}},
                 False, "n1", id="delete-existing-anti-affinity"),
    # Zone a holds 2 web pods, zone b 0 (the emptiest): on a1 the skew is 2 + 1 - 0 = 3, so
    # maxSkew 3 is the smallest that lets web-3 on a1.
    pytest.param(SPREAD, "web-3", _pod_patch("web-3", {"op": "replace", "value": 3,
                                                       "path": "/spec/topologySpreadConstraints/0/maxSkew"}),
                 False, "a1", id="raise-max-skew"),
]


@pytest.mark.parametrize("manifests, pod, change, only, node", SCENARIOS)
def test_the_suggested_change_applied_to_the_input_binds_the_pod(cli, tmp_path, validate_pod_result,
                                                                  manifests, pod, change, only, node):
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "c.yaml").write_text(manifests)
    changes = _explained_changes(cli, folder, pod, validate_pod_result)
    assert changes == [[change]] if only else [change] in changes
    _apply_changes(folder, [change])
    assert _placement(cli, folder, f"default/{pod}") == ("bound", node)


ANTI_TERM = {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "db"}}}
CACHE_SPEC = {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [ANTI_TERM]}},
              "containers": [{"name": "c", "image": "cache"}]}
"""The pending cache pod's spec and its workloads' template spec: db-1 (app=db) holds n1, the one
node, so the anti-affinity term is in the way and dropping it is the first fix (see ANTI above)."""


def _owner_ref(kind: str, name: str) -> list[dict[str, Any]]:
    return [{"apiVersion": "batch/v1" if kind in ("Job", "CronJob") else "apps/v1", "kind": kind, "name": name,
             "uid": f"uid-{name}", "controller": True}]


def _workload(kind: str, name: str, owner: str | None = None) -> dict[str, Any]:
    """A workload of the snapshot (with a status: a controller runs it) whose template is the pod's."""
    template = {"metadata": {"labels": {"app": "cache"}}, "spec": CACHE_SPEC}
    spec: dict[str, Any] = {"selector": {"matchLabels": {"app": "cache"}}, "template": template}
    if kind == "CronJob":
        spec = {"schedule": "0 * * * *", "jobTemplate": {"spec": {"template": template}}}
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if owner is not None:
        meta["ownerReferences"] = _owner_ref(*owner.split("/"))
    return {"apiVersion": "batch/v1" if kind in ("Job", "CronJob") else "apps/v1", "kind": kind, "metadata": meta,
            "spec": spec, "status": {}}


def _owned_pending(owner: str | None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": "cache-abcde", "namespace": "default", "labels": {"app": "cache"},
                            "creationTimestamp": "2025-06-01T00:00:00Z"}
    if owner is not None:
        meta["ownerReferences"] = _owner_ref(*owner.split("/"))
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": CACHE_SPEC}


# (the pod's controller, the workloads of the snapshot as (kind/name, its controller), the object
# the fix patches, its template's path). validation.go ValidatePodUpdate refuses a change to a
# pod's affinity, and the controller makes its pods from its template: the template is patched —
# the Deployment's (or CronJob's) — even when the snapshot only names it, since that controller
# rewrites the ReplicaSet's (Job's) own; a bare pod keeps its patch (it is deleted and created
# again: `recreate`).
OWNERS = [
    pytest.param(None, [], ("Pod", "cache-abcde"), "/spec", id="bare-pod"),
    pytest.param("ReplicaSet/cache-7d9f8", [("ReplicaSet/cache-7d9f8", None)], ("ReplicaSet", "cache-7d9f8"),
                 "/spec/template/spec", id="replicaset"),
    pytest.param("ReplicaSet/cache-7d9f8", [("ReplicaSet/cache-7d9f8", "Deployment/cache"), ("Deployment/cache", None)],
                 ("Deployment", "cache"), "/spec/template/spec", id="deployment"),
    pytest.param("ReplicaSet/cache-7d9f8", [("ReplicaSet/cache-7d9f8", "Deployment/cache")],
                 ("Deployment", "cache"), "/spec/template/spec", id="deployment-not-in-snapshot"),
    pytest.param("StatefulSet/cache", [("StatefulSet/cache", None)], ("StatefulSet", "cache"), "/spec/template/spec",
                 id="statefulset"),
    pytest.param("Job/cache-29000000", [("Job/cache-29000000", "CronJob/cache"), ("CronJob/cache", None)],
                 ("CronJob", "cache"), "/spec/jobTemplate/spec/template/spec", id="cronjob"),
]


@pytest.mark.parametrize("owner, workloads, target, prefix", OWNERS)
def test_a_fix_for_a_controllers_pod_patches_the_workloads_pod_template(cli, tmp_path, validate_pod_result,
                                                                          owner, workloads, target, prefix):
    folder = tmp_path / "c"
    folder.mkdir()
    objects = [_workload(*ref.split("/"), owner=by) for ref, by in workloads]
    (folder / "c.yaml").write_text(ANTI + "---\n" + yaml.safe_dump_all([*objects, _owned_pending(owner)]))
    data = json.loads(cli(["explain", "default/cache-abcde", "-c", str(folder), "--now", NOW, "-o", "json"]).stdout)
    validate_pod_result(data)
    first = data["explanation"]["suggestions"][0]
    [change] = first["changes"]
    kind, name = target
    path = f"{prefix}/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/0"
    assert change == {"op": "patch", "target": {"kind": kind, "namespace": "default", "name": name},
                      "patch": [{"op": "remove", "path": path}], **({"recreate": True} if kind == "Pod" else {})}
    assert first["summary"].endswith(" (a pod's spec cannot change in place: delete it and create it again with the "
                                     "change)" if kind == "Pod" else f" (in the pod template of {kind} default/{name})")
    if f"{kind}/{name}" not in [ref for ref, _ in workloads] and kind != "Pod":
        return  # the object is the user's, not in the snapshot: nothing here to apply the patch to
    _apply_changes(folder, [change])  # the patch applies to that object as the input has it
    [patched] = [d for d in yaml.safe_load_all((folder / "c.yaml").read_text())
                 if d and (d["kind"], d["metadata"]["name"]) == target]
    spec: Any = patched
    for part in prefix.strip("/").split("/"):
        spec = spec[part]
    assert spec["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == []


LIMIT_RANGED = """apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "1", memory: 4Gi, pods: "110"}, capacity: {cpu: "1", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: default}
spec:
  limits:
  - {type: Container, defaultRequest: {cpu: "2"}, default: {cpu: "2"}}
"""


def test_a_request_the_limit_range_set_is_set_lower_in_the_manifest(cli, tmp_path, validate_pod_result):
    """web states no request: LimitRanger gives it cpu 2 (defaultRequest), and n1 has 1 cpu free.
    The fix sets the request the manifest lacks — to 2000m − 1000m short = 1000m — under a
    `resources` the manifest does not have (so the patch adds `resources` whole), and says where
    the 2000m came from. Applied, web fits n1 exactly (its limit stays the default 2)."""
    (tmp_path / "c.yaml").write_text(LIMIT_RANGED)
    pod = tmp_path / "web.yaml"
    pod.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "default"},
                                   "spec": {"containers": [{"name": "app", "image": "nginx"}]}}))
    args = ["-c", str(tmp_path / "c.yaml"), "--now", NOW]
    data = json.loads(cli(["explain", "default/web", "-f", str(pod), *args, "-o", "json"]).stdout)
    validate_pod_result(data)
    [fix] = data["explanation"]["suggestions"]
    assert fix["summary"] == ("set container app's cpu request to 1000m (it states none, and its namespace's "
                              "LimitRange defaults it to 2000m): it then fits on n1")
    [change] = fix["changes"]
    assert change["patch"] == [{"op": "add", "path": "/spec/containers/0/resources", "value": {"requests": {"cpu": "1000m"}}}]
    doc = yaml.safe_load(pod.read_text())
    _apply(doc, change["patch"])
    pod.write_text(yaml.safe_dump(doc))
    placed = json.loads(cli(["place", str(pod), *args, "-o", "json"]).stdout)
    assert [(r["pod"], r["outcome"], r["node"]) for r in placed["results"]] == [("default/web", "bound", "n1")]
