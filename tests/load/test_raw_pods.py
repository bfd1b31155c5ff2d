"""The fast reader of a big JSON dump's pods (`kwhatif.load.raw_pods`) against the general path.

The promise: a pod read from its bytes is the same `Pod`, field for field, as the general path's
decoding of the same object, and a bad pod fails with the same one-line error. Expected values here
are the general path's, on the same input; the cases are the shapes a dump has (replicas, DaemonSet
pods naming their node, pending pods, resize statuses) and the ones that could fool the sharing of
decoded templates (a `nodeName` key elsewhere in the spec, an escaped key, indentation).
"""

from __future__ import annotations

import copy
import json

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kwhatif.errors import InputError
from kwhatif.load.cluster import decode_docs
from kwhatif.load.raw_pods import PodReader
from kwhatif.load.documents import RawDoc
from kwhatif.load.reader import parse_bytes
from tests.hostile.test_properties import VALID_POD, mutated_objects

REPLICA = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "web-1", "namespace": "shop", "uid": "u1", "creationTimestamp": "2025-01-01T00:00:00Z",
                 "labels": {"app": "web", "pod-template-hash": "7c9d5"},
                 "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7c9d5",
                                      "uid": "rs", "controller": True}]},
    "spec": {"nodeName": "n1", "priority": 100, "priorityClassName": "mid",
             "containers": [{"name": "web", "image": "nginx", "resources": {"requests": {"cpu": "250m"},
                                                                           "limits": {"memory": "1Gi"}},
                             "ports": [{"containerPort": 80}]}],
             "tolerations": [{"operator": "Exists", "effect": "NoExecute", "key": "node.kubernetes.io/unreachable",
                              "tolerationSeconds": 300}],
             "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway",
                                            "labelSelector": {"matchLabels": {"app": "web"}}}]},
    "status": {"phase": "Running", "startTime": "2025-01-01T00:00:05Z",
               "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2025-01-01T00:00:09Z"}],
               "containerStatuses": [{"name": "web", "containerID": "containerd://1", "restartCount": 0,
                                      "ready": True}]},
}


def pod(name: str, node: str | None = "n1", **spec: object) -> dict:
    """A replica of REPLICA named `name` on `node` (None: pending), with spec fields replaced."""
    obj = copy.deepcopy(REPLICA)
    obj["metadata"]["name"] = name
    obj["metadata"]["uid"] = f"uid-{name}"
    if node is None:
        del obj["spec"]["nodeName"]
        obj["status"] = {"phase": "Pending"}
    else:
        obj["spec"]["nodeName"] = node
    obj["spec"].update(spec)
    return obj


def kubectl_pod(name: str, node: str | None, claim: str | None = None) -> dict:
    """A replica as the API server returns it: a service-account token volume and mount named for
    the pod, env (the pod's name through the downward API, as a template writes it) and probes, a
    sidecar init container, and maybe a claim."""
    token = f"kube-api-access-{name[-5:]}"
    volumes = [{"name": token, "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}},
               {"name": "cfg", "configMap": {"name": "web"}}]
    if claim:
        volumes.append({"name": "data", "persistentVolumeClaim": {"claimName": claim}})
    mounts = [{"name": token, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": True}]
    return pod(name, node, volumes=volumes, containers=[
        {"name": "web", "image": "nginx", "env": [{"name": "POD", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}], "volumeMounts": mounts,
         "livenessProbe": {"httpGet": {"path": "/", "port": 80}},
         "resources": {"requests": {"cpu": "250m"}}, "ports": [{"containerPort": 80, "hostPort": 8080}]}],
        initContainers=[{"name": "proxy", "image": "envoy", "restartPolicy": "Always", "volumeMounts": mounts,
                         "resources": {"requests": {"cpu": "50m"}}}])


def daemon_pod(name: str, node: str) -> dict:
    return pod(name, node, affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}]}}})


def with_statuses(obj: dict, statuses: list, conditions: list | None = None) -> dict:
    obj = copy.deepcopy(obj)
    obj["status"]["containerStatuses"] = statuses
    if conditions is not None:
        obj["status"]["conditions"] = conditions
    return obj


def dump(items: list[dict | bytes], indent: bool = False) -> bytes:
    """`kubectl get -o json` of `items` (bytes items are written as they are)."""
    option = orjson.OPT_INDENT_2 if indent else 0
    texts = [item if isinstance(item, bytes) else orjson.dumps(item, option=option) for item in items]
    return b'{"apiVersion": "v1", "kind": "List", "items": [' + b",\n".join(texts) + b"]}"


def outcome(docs: list[RawDoc]) -> list | str:
    try:
        return decode_docs(docs)[0]
    except InputError as err:
        return str(err)


def fast_and_general(data: bytes) -> tuple[list | str, list | str, list[RawDoc]]:
    docs = parse_bytes(data, "dump.json")
    assert all(d.raw is not None for d in docs), "the dump did not take the fast reader"
    general = outcome([RawDoc(orjson.loads(memoryview(d.raw)), d.source) for d in docs])
    return outcome(docs), general, docs


# An escaped key is the same key to a JSON parser; the reader must not mistake it.
ESCAPED_CLAIM = orjson.dumps(pod("claim-1", "n1", volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "c"}}])
                             ).replace(b'"persistentVolumeClaim"', b'"persistentVolume\\u0043laim"')
ESCAPED = orjson.dumps(pod("esc-1", "n1", nodeSelector={"nodeName": "n1"})).replace(
    b'"nodeName":"n1","priority"', b'"node\\u004eame":"n1","priority"')

CASES = [
    ("replicas on different nodes", [pod("web-1", "n1"), pod("web-2", "n2"), pod("web-3", "n1")], False),
    ("DaemonSet pods name their node in their affinity", [daemon_pod("ds-1", "n1"), daemon_pod("ds-2", "n2")], False),
    ("a pending replica beside bound ones", [pod("web-1", "n1"), pod("web-2", None), pod("web-3", "n2")], False),
    ("a nodeSelector label named nodeName is not the pod's node",
     [pod("sel-1", "n1", nodeSelector={"nodeName": "n1"}), pod("sel-2", "n2", nodeSelector={"nodeName": "n2"}),
      pod("sel-3", None, nodeSelector={"nodeName": "n1"}), pod("sel-4", "n2", nodeSelector={"nodeName": "n1"})],
     False),
    ("an escaped nodeName key", [ESCAPED, pod("esc-2", "n1", nodeSelector={"nodeName": "n1"}),
                                 pod("esc-3", "n2", nodeSelector={"nodeName": "n2"})], False),
    ("kubectl's indented JSON", [pod("web-1", "n1"), daemon_pod("ds-1", "n2"), pod("web-2", None)], True),
    ("in-place resize statuses are read, the others dropped",
     [with_statuses(pod("rs-1", "n1"), [{"name": "web", "containerID": "c1", "resources": {"requests": {"cpu": "1"}},
                                          "allocatedResources": {"cpu": "1"}}]),
      with_statuses(pod("rs-2", "n1"), [{"name": "web", "containerID": "c2", "resources": {"requests": {"cpu": "1"}},
                                          "allocatedResources": {"cpu": "1"}}]),
      with_statuses(pod("rs-3", "n2"), [{"name": "web", "containerID": "c3", "resources": {}}])], False),
    ("an Infeasible resize and a preemption in progress are read",
     [with_statuses(pod("inf-1", "n1"), [{"name": "web", "resources": {"requests": {"cpu": "2"}}}],
                    [{"type": "PodResizePending", "status": "True", "reason": "Infeasible"}]),
      with_statuses(pod("dis-1", "n2"), [], [{"type": "Ready", "status": "True"},
                                             {"type": "DisruptionTarget", "status": "True",
                                              "reason": "PreemptionByScheduler"}])], False),
    ("pods as the API server returns them: token volumes, mounts, sidecars, claims",
     [kubectl_pod("web-aaaaa", "n1"), kubectl_pod("web-bbbbb", "n2"), kubectl_pod("db-0", "n1", claim="data-db-0"),
      kubectl_pod("db-1", None, claim="data-db-1")], False),
    ("a claim whose key is written with an escape", [ESCAPED_CLAIM, pod("claim-2", "n2")], False),
    ("a volume whose name mentions a source it does not have",
     [pod("odd-1", "n1", volumes=[{"name": "ephemeral", "emptyDir": {}}])], False),
    ("a pod in the default namespace by omission", [{**pod("np-1", "n1"), "metadata": {"name": "np-1"}}], False),
]


@pytest.mark.parametrize(("case", "items", "indent"), CASES, ids=[c[0] for c in CASES])
def test_pods_read_from_bytes_equal_the_general_decoding(case, items, indent):
    fast, general, _docs = fast_and_general(dump(items, indent))
    assert isinstance(fast, list), fast
    assert fast == general


def test_replicas_share_their_decoded_template():
    fast, _general, docs = fast_and_general(dump([kubectl_pod("web-aaaaa", "n1"), kubectl_pod("web-bbbbb", "n2"),
                                                  daemon_pod("ds-1", "n1"), daemon_pod("ds-2", "n2")]))
    web1, web2, ds1, ds2 = fast
    assert web1.containers is web2.containers and web1.labels is web2.labels
    assert web1.volumes == () and web1.init_containers is web2.init_containers
    assert ds1.containers is ds2.containers  # only the affinity differs between DaemonSet pods
    assert ds1.affinity != ds2.affinity
    assert all(PodReader().read(d.raw, d.source) is not None for d in docs)


ERROR_CASES = [
    ("a uid of the wrong type", {**pod("bad-1"), "metadata": {**REPLICA["metadata"], "name": "bad-1", "uid": 5}}),
    ("a bad quantity in a replica's template", pod("bad-2", containers=[{"name": "c", "resources": {
        "requests": {"cpu": "1.5.3"}}}])),
    ("a label value that is not a string", {**pod("bad-3"), "metadata": {"name": "bad-3", "labels": {"a": 1}}}),
    ("owner references that are not a list", {**pod("bad-4"), "metadata": {"name": "bad-4", "ownerReferences": {}}}),
    ("container statuses that are not a list", {**pod("bad-5"), "status": {"containerStatuses": "resources"}}),
    ("a status resource quantity that does not parse",
     with_statuses(pod("bad-6"), [{"name": "web", "resources": {"requests": {"cpu": "10Q"}}}])),
    ("a spec that is a list", {**pod("bad-7"), "spec": []}),
    ("a toleration the API server refuses", pod("bad-8", tolerations=[{"operator": "Exists", "value": "v"}])),
    ("a volume that is not an object", pod("bad-9", volumes=["data"])),
    ("a name the API server refuses", pod("Bad_10")),
    ("a namespace the API server refuses", {**pod("bad-11"), "metadata": {"name": "bad-11", "namespace": "Shop"}}),
]


@pytest.mark.parametrize(("case", "bad"), ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_a_bad_pod_fails_as_in_the_general_path(case, bad):
    # A good replica first, so that the bad one's shared parts may already be remembered.
    fast, general, _docs = fast_and_general(dump([pod("good"), bad]))
    assert isinstance(general, str), general
    assert fast == general


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(mutated_objects(), min_size=1, max_size=3))
def test_random_pods_read_as_in_the_general_path(objects):
    items = [o for o in objects if isinstance(o, dict) and o.get("kind") == "Pod"] or [copy.deepcopy(VALID_POD)]
    for index, item in enumerate(items):
        if isinstance(item.get("metadata"), dict) and isinstance(item["metadata"].get("name"), str):
            item["metadata"]["name"] += f"-{index}"  # not duplicates of each other
    data = dump([json.dumps(i).encode() for i in items])  # json: integers beyond 64 bits too
    try:
        docs = parse_bytes(data, "dump.json")
    except InputError:
        return  # not JSON the reader takes (a lone surrogate...): the reader's tests cover it
    if not all(d.raw is not None for d in docs):
        return  # an item the List probe leaves to the general path as a whole
    general = outcome([RawDoc(orjson.loads(memoryview(d.raw)), d.source) for d in docs])
    assert outcome(docs) == general
