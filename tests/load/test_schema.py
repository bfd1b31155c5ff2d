"""Validation against the committed Kubernetes v1.34 schemas, and the light structural check.

Warnings are kubectl's words for unknown fields; errors name the object and the field path.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from kwhatif.errors import InputError, Source
from kwhatif.load import schema
from kwhatif.load.documents import RawDoc
from kwhatif.load.schema import validate_light, validate_object

REPO = Path(__file__).resolve().parents[2]

POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web"}},
    "spec": {
        "containers": [{
            "name": "app",
            "image": "nginx:1.27",
            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"cpu": 1}},
        }],
    },
}

RUNNING_POD = {  # as `kubectl get pod -o json` prints one
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {
        "name": "web-7d9f8-x2x9z", "namespace": "shop", "uid": "b1c2", "resourceVersion": "123",
        "creationTimestamp": "2025-01-01T00:00:00Z", "generateName": "web-7d9f8-",
        "labels": {"app.kubernetes.io/name": "web", "pod-template-hash": "7d9f8"},
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7d9f8", "uid": "u",
                             "controller": True, "blockOwnerDeletion": True}],
        "managedFields": [{"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1",
                           "time": "2025-01-01T00:00:00Z", "fieldsType": "FieldsV1",
                           "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}}}}],
    },
    "spec": {
        "containers": [{
            "name": "app", "image": "nginx:1.27", "imagePullPolicy": "IfNotPresent",
            "ports": [{"containerPort": 80, "protocol": "TCP"}],
            "resources": {"requests": {"cpu": "100m", "memory": "128Mi", "nvidia.com/gpu": 1},
                          "limits": {"cpu": 1.5, "memory": "256Mi", "nvidia.com/gpu": "1"}},
            "env": [{"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
            "readinessProbe": {"httpGet": {"path": "/", "port": "http"}, "periodSeconds": 5},
            "livenessProbe": {"tcpSocket": {"port": 80}},
            "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
        }],
        "nodeName": "node-1", "schedulerName": "default-scheduler", "priority": 0,
        "restartPolicy": "Always", "dnsPolicy": "ClusterFirst", "enableServiceLinks": True,
        "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
                         "tolerationSeconds": 300}],
        "affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 100, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "web"}},
                                                 "topologyKey": "kubernetes.io/hostname"}}]}},
        "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                       "whenUnsatisfiable": "ScheduleAnyway",
                                       "labelSelector": {"matchLabels": {"app": "web"}}}],
        "volumes": [{"name": "kube-api-access", "projected": {"defaultMode": 420, "sources": [
            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}]}}],
    },
    "status": {
        "phase": "Running", "qosClass": "Burstable", "podIP": "10.0.0.1", "hostIP": "10.1.0.1",
        "startTime": "2025-01-01T00:00:00Z",
        "conditions": [{"type": "Ready", "status": "True", "lastProbeTime": None,
                        "lastTransitionTime": "2025-01-01T00:00:00Z"}],
        "containerStatuses": [{"name": "app", "ready": True, "restartCount": 0, "image": "nginx:1.27",
                               "imageID": "docker://sha", "started": True,
                               "state": {"running": {"startedAt": "2025-01-01T00:00:00Z"}}}],
    },
}

DEPLOYMENT = {
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "web"},
    "spec": {
        "replicas": 3,
        "selector": {"matchLabels": {"app": "web"}},
        "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": "25%"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": copy.deepcopy(POD["spec"])},
    },
}

NODE = {
    "apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "node-1", "labels": {"kubernetes.io/hostname": "node-1"}},
    "spec": {"taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]},
    "status": {"capacity": {"cpu": 8, "memory": "32Gi", "pods": "110"},
               "allocatable": {"cpu": "7900m", "memory": "31Gi", "pods": 110}},
}


CLAIM_TEMPLATE = {  # resource.k8s.io/v1: the request's class, count... under `exactly`
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
    "metadata": {"name": "two-gpus", "namespace": "ml"},
    "spec": {"spec": {"devices": {
        "requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu", "count": 2,
                                                 "selectors": [{"cel": {"expression": "true"}}]}}],
        "constraints": [{"requests": ["gpu"], "matchAttribute": "gpu.example.com/numa"}]}}},
}

SLICE = {  # resource.k8s.io/v1: a device's attributes and capacity beside its name
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "n1-gpu"},
    "spec": {"driver": "gpu.example.com", "nodeName": "n1",
             "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1},
             "devices": [{"name": "gpu-0", "attributes": {"model": {"string": "a100"}},
                          "capacity": {"memory": {"value": "40Gi"}}}]},
}

SLICE_V1BETA1 = {  # v1beta1: the same device, its fields under `basic`
    **SLICE, "apiVersion": "resource.k8s.io/v1beta1",
    "spec": {**SLICE["spec"], "devices": [{"name": "gpu-0", "basic": {
        "attributes": {"model": {"string": "a100"}}, "capacity": {"memory": {"value": "40Gi"}}}}]},
}

CLAIM_V1BETA1 = {  # v1beta1: the request holds its class and count itself (no `exactly`)
    "apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaim", "metadata": {"name": "c", "namespace": "ml"},
    "spec": {"devices": {"requests": [{"name": "gpu", "deviceClassName": "gpu", "count": 1}]}},
}


def doc(obj: dict) -> RawDoc:
    return RawDoc(obj, Source("m.yaml", 0, 1))


def edited(base: dict, path: str, value) -> dict:
    """A deep copy of `base` with the dotted `path` set (list indexes as numbers); `...` deletes."""
    obj = copy.deepcopy(base)
    *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
    node = obj
    for step in parents:
        node = node[step]
    if value is ...:
        del node[last]
    else:
        node[last] = value
    return obj


# ------------------------------------------------------------------------------------- valid ----

VALID = [
    # (case, object)
    ("a valid pod gives no warning", POD),
    ("a running pod as kubectl dumps it, with status and managedFields, gives no warning", RUNNING_POD),
    ("a deployment whose maxUnavailable is a number and maxSurge a percentage is valid", DEPLOYMENT),
    ("a node whose capacity mixes numbers and strings is valid", NODE),
    ("a quantity written as a plain number is valid", edited(POD, "spec.containers.0.resources.requests.cpu", 2)),
    ("a quantity written as a fraction is valid", edited(POD, "spec.containers.0.resources.requests.cpu", 0.25)),
    ("a null field is accepted, as kubectl drops it", edited(POD, "spec.nodeName", None)),
    ("a null quantity is accepted", edited(POD, "spec.containers.0.resources.requests.cpu", None)),
    ("a pod without a namespace is valid", edited(POD, "metadata.namespace", ...)),
    ("a PriorityClass is valid",
     {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"},
      "value": 1000, "preemptionPolicy": "Never"}),
    ("a PodDisruptionBudget with a percentage is valid",
     {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "p", "namespace": "a"},
      "spec": {"minAvailable": "50%", "selector": {"matchLabels": {"app": "web"}}}}),
    ("a CSINode is valid",
     {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": "node-1"},
      "spec": {"drivers": [{"name": "ebs.csi.aws.com", "nodeID": "i-1", "allocatable": {"count": 25}}]}}),
    ("a kind without a schema is not validated, whatever it holds",
     {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": 1}, "junk": [1]}),
    ("a known kind at an apiVersion without a schema is not validated",
     {"apiVersion": "policy/v1beta1", "kind": "PodDisruptionBudget", "metadata": {"name": "p"}, "spec": 5}),
    ("a custom resource is not validated",
     {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"size": "XL"}}),
    # OpenAPI marks these required; the API server defaults the first (batch v1 SetDefaults_Job:
    # status True) and drops a status on create: both manifests are accepted.
    ("a pod failure policy's onPodConditions without status (defaulted to True) is valid",
     {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "a"},
      "spec": {"podFailurePolicy": {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]},
               "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "x"}]}}}}),
    ("a v1 ResourceClaimTemplate is valid", CLAIM_TEMPLATE),
    ("a v1 ResourceSlice is valid", SLICE),
    ("a v1beta2 ResourceSlice (v1's shape) is valid", edited(SLICE, "apiVersion", "resource.k8s.io/v1beta2")),
    ("a v1beta1 ResourceSlice with its device's fields under basic is valid", SLICE_V1BETA1),
    ("a v1beta1 ResourceClaim whose request names its class itself is valid", CLAIM_V1BETA1),
    # Marked +required, but their zero value passes resource validation.go: accepted.
    ("a DeviceClass without spec (no selector) is valid",
     {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "any"}}),
    ("a ResourceClaimTemplate with an empty claim spec is valid", edited(CLAIM_TEMPLATE, "spec.spec", ...)),
    ("a ResourceSlice pool without generation (0) is valid", edited(SLICE, "spec.pool.generation", ...)),
    ("an empty status on a StatefulSet manifest is valid (the server drops it)",
     {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": "a"}, "status": {},
      "spec": {"selector": {"matchLabels": {"app": "db"}}, "serviceName": "db",
               "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}}}}),
]


@pytest.mark.parametrize("case, obj", VALID, ids=[v[0] for v in VALID])
def test_valid_objects_give_no_warning(case, obj):
    assert validate_object(doc(obj)) == []


# ---------------------------------------------------------------------------------- warnings ----

WARNINGS = [
    # (case, object, warnings)
    ("an unknown field in spec is a warning, in kubectl's words",
     edited(POD, "spec.foo", 1), ['unknown field "spec.foo"']),
    ("an unknown top-level field is a warning",
     edited(POD, "extra", True), ['unknown field "extra"']),
    ("a key holding a newline or a terminal escape is escaped: the warning stays one line, as written",
     edited(POD, "spec.a\r\nb\x1b[31m", 1), ['unknown field "spec[a\\r\\nb\\x1b[31m]"']),
    ("an unknown field inside a container names the container's index",
     edited(POD, "spec.containers.0.resourcez", {}), ['unknown field "spec.containers[0].resourcez"']),
    ("several unknown fields come in document order",
     edited(edited(edited(POD, "spec.zzz", 1), "spec.containers.0.aaa", 2), "bbb", 3),
     ['unknown field "spec.containers[0].aaa"', 'unknown field "spec.zzz"', 'unknown field "bbb"']),
    ("a misspelt field in a deployment's pod template is found",
     edited(DEPLOYMENT, "spec.template.spec.nodeSelectr", {"a": "b"}),
     ['unknown field "spec.template.spec.nodeSelectr"']),
    ("a misspelt count in a ResourceClaimTemplate's request is found",
     edited(CLAIM_TEMPLATE, "spec.spec.devices.requests.0.exactly.cout", 2),
     ['unknown field "spec.spec.devices.requests[0].exactly.cout"']),
    ("a v1beta1 `basic` block in a v1 ResourceSlice is unknown (its attributes would be lost)",
     edited(SLICE, "spec.devices.0", SLICE_V1BETA1["spec"]["devices"][0]),
     ['unknown field "spec.devices[0].basic"']),
    ("a v1 device in a v1beta1 ResourceSlice is unknown outside `basic`",
     edited(SLICE_V1BETA1, "spec.devices.0", SLICE["spec"]["devices"][0]),
     ['unknown field "spec.devices[0].attributes"', 'unknown field "spec.devices[0].capacity"']),
    ("a v1 `exactly` in a v1beta1 ResourceClaim is unknown",
     edited(CLAIM_V1BETA1, "spec.devices.requests.0", {"name": "gpu", "exactly": {"deviceClassName": "gpu"}}),
     ['unknown field "spec.devices.requests[0].exactly"']),
    ("a DeviceClass's selectors misspelt are found",
     {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
      "spec": {"selector": [{"cel": {"expression": "true"}}]}},
     ['unknown field "spec.selector"']),
]


@pytest.mark.parametrize("case, obj, expected", WARNINGS, ids=[w[0] for w in WARNINGS])
def test_unknown_fields_are_warnings(case, obj, expected):
    assert validate_object(doc(obj)) == expected


# ------------------------------------------------------------------------------------ errors ----

ERRORS = [
    # (case, object, str(InputError))
    ("a replica count written as a word is an error naming the field",
     edited(DEPLOYMENT, "spec.replicas", "three"),
     'm.yaml#0:1: Deployment/default/web: spec.replicas: expected integer, got a string "three"'),
    ("a pod without containers is missing a required field",
     edited(POD, "spec.containers", ...),
     "m.yaml#0:1: Pod/shop/web: spec.containers: required field is missing"),
    ("a container without a name is missing a required field",
     edited(POD, "spec.containers.0.name", ...),
     "m.yaml#0:1: Pod/shop/web: spec.containers[0].name: required field is missing"),
    ("a quantity that is a list is an error at the full path",
     edited(POD, "spec.containers.0.resources.requests.cpu", [1]),
     "m.yaml#0:1: Pod/shop/web: spec.containers[0].resources.requests.cpu: expected string or number, got an array"),
    ("a label value that is a number is an error; a dotted key goes in brackets",
     edited(POD, "metadata.labels", {"app.kubernetes.io/name": 5}),
     "m.yaml#0:1: Pod/shop/web: metadata.labels[app.kubernetes.io/name]: expected string, got an integer 5"),
    ("a container port written as a string is an error",
     edited(POD, "spec.containers.0.ports", [{"containerPort": "80"}]),
     'm.yaml#0:1: Pod/shop/web: spec.containers[0].ports[0].containerPort: expected integer, got a string "80"'),
    ("a boolean where a number belongs is an error",
     edited(DEPLOYMENT, "spec.replicas", True),
     "m.yaml#0:1: Deployment/default/web: spec.replicas: expected integer, got a boolean true"),
    ("a cluster-scoped object is named without a namespace",
     edited(NODE, "spec.unschedulable", "yes"),
     'm.yaml#0:1: Node/node-1: spec.unschedulable: expected boolean, got a string "yes"'),
    ("a taint without an effect is missing a required field",
     edited(NODE, "spec.taints.0.effect", ...),
     "m.yaml#0:1: Node/node-1: spec.taints[0].effect: required field is missing"),
    ("a spec that is a list is an error",
     edited(POD, "spec", []),
     "m.yaml#0:1: Pod/shop/web: spec: expected object, got an array"),
    ("the first violation in document order is the one reported (metadata before spec)",
     edited(edited(POD, "metadata.labels", {"app": 1}), "spec.nodeName", 7),
     "m.yaml#0:1: Pod/shop/web: metadata.labels.app: expected string, got an integer 1"),
    ("the first violation in document order is the one reported (spec written first)",
     {"spec": {"nodeName": 7, "containers": [{"name": "c"}]}, "kind": "Pod", "apiVersion": "v1",
      "metadata": {"name": "p", "labels": {"a": 1}}},
     "m.yaml#0:1: Pod/default/p: spec.nodeName: expected string, got an integer 7"),
    ("an error beside unknown fields is still an error",
     edited(edited(POD, "spec.foo", 1), "spec.priority", "high"),
     'm.yaml#0:1: Pod/shop/web: spec.priority: expected integer, got a string "high"'),
    ("a DRA request count written as a word is an error",
     edited(CLAIM_TEMPLATE, "spec.spec.devices.requests.0.exactly.count", "two"),
     'm.yaml#0:1: ResourceClaimTemplate/ml/two-gpus: spec.spec.devices.requests[0].exactly.count: expected '
     'integer, got a string "two"'),
    ("a ResourceSlice without spec misses a required field (a slice needs a driver and a pool)",
     edited(SLICE, "spec", ...), "m.yaml#0:1: ResourceSlice/n1-gpu: spec: required field is missing"),
    ("a pod without a name fails the structural check first",
     edited(POD, "metadata.name", ...), "m.yaml#0:1: Pod/shop/?: metadata.name: missing"),
    ("an object without apiVersion fails the structural check",
     edited(POD, "apiVersion", ...), "m.yaml#0:1: Pod/shop/web: apiVersion: missing"),
]


@pytest.mark.parametrize("case, obj, expected", ERRORS, ids=[e[0] for e in ERRORS])
def test_violations_are_input_errors(case, obj, expected):
    with pytest.raises(InputError) as info:
        validate_object(doc(obj))
    assert str(info.value) == expected


def test_the_error_carries_the_object_and_field_separately():
    with pytest.raises(InputError) as info:
        validate_object(doc(edited(DEPLOYMENT, "spec.replicas", "three")))
    assert (info.value.obj, info.value.field) == ("Deployment/default/web", "spec.replicas")
    assert info.value.source == Source("m.yaml", 0, 1)


# ------------------------------------------------------------------------------- light check ----

LIGHT = [
    # (case, object, None if fine or str(InputError))
    ("a pod with apiVersion, kind and a named metadata passes", POD, None),
    ("an unknown kind passes as long as it is shaped like an object",
     {"apiVersion": "x/v1", "kind": "Thing", "metadata": {"name": "t"}}, None),
    ("a missing kind is named",
     {"apiVersion": "v1", "metadata": {"name": "t"}}, "m.yaml#0:1: ?/default/t: kind: missing"),
    ("a kind that is not a string is named",
     {"apiVersion": "v1", "kind": 3, "metadata": {"name": "t"}},
     "m.yaml#0:1: ?/default/t: kind: must be a non-empty string, not an integer 3"),
    ("an empty apiVersion is named",
     {"apiVersion": "", "kind": "Pod", "metadata": {"name": "t"}},
     'm.yaml#0:1: Pod/default/t: apiVersion: must be a non-empty string, not a string ""'),
    ("metadata that is a list is named",
     {"apiVersion": "v1", "kind": "Node", "metadata": ["n"]},
     "m.yaml#0:1: Node/?: metadata: must be an object, not an array"),
    ("a missing name is named, showing generateName",
     {"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "web-"}},
     "m.yaml#0:1: Pod/default/web-*: metadata.name: missing"),
    ("a name that is a number is named",
     {"apiVersion": "v1", "kind": "Node", "metadata": {"name": 5}},
     "m.yaml#0:1: Node/?: metadata.name: must be a non-empty string, not an integer 5"),
    ("a namespace that is not a string is named",
     {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": ["a"]}},
     "m.yaml#0:1: Pod/default/p: metadata.namespace: must be a string, not an array"),
    # The API server's name rules (apimachinery IsDNS1123Subdomain / IsDNS1123Label).
    ("a node named with dots passes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "ip-10-0-1-2.ec2.internal"}},
     None),
    ("a PodDisruptionBudget may have any name (its validation checks the spec alone)",
     {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "Web_PDB"}}, None),
    ("a pod name longer than 253 characters is named",
     {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a" * 254}},
     f"m.yaml#0:1: Pod/default/{'a' * 254}: metadata.name: Invalid value: '{'a' * 254}': must be no more than "
     "253 characters"),
]


@pytest.mark.parametrize("case, obj, expected", LIGHT, ids=[c[0] for c in LIGHT])
def test_light_check(case, obj, expected):
    if expected is None:
        validate_light(doc(obj))
        return
    with pytest.raises(InputError) as info:
        validate_light(doc(obj))
    assert str(info.value) == expected


# ----------------------------------------------------------------------------------- schemas ----

BRIEF_KINDS = [
    ("v1", "Node"), ("v1", "Pod"), ("v1", "Namespace"), ("scheduling.k8s.io/v1", "PriorityClass"),
    ("node.k8s.io/v1", "RuntimeClass"), ("policy/v1", "PodDisruptionBudget"), ("v1", "LimitRange"),
    ("v1", "Service"), ("apps/v1", "ReplicaSet"), ("apps/v1", "StatefulSet"), ("v1", "ReplicationController"),
    ("apps/v1", "Deployment"), ("apps/v1", "DaemonSet"), ("batch/v1", "Job"), ("batch/v1", "CronJob"),
    ("v1", "PersistentVolumeClaim"), ("v1", "PersistentVolume"), ("storage.k8s.io/v1", "StorageClass"),
    ("storage.k8s.io/v1", "CSINode"), ("storage.k8s.io/v1", "CSIDriver"),
    *((f"resource.k8s.io/{version}", kind) for version in ("v1", "v1beta2", "v1beta1")
      for kind in ("ResourceClaim", "ResourceClaimTemplate", "DeviceClass", "ResourceSlice")),
]


def test_every_kind_kwhatif_reads_has_a_schema():
    kinds = []
    for path in schema.SCHEMA_DIR.glob("*.json"):
        for gvk in json.loads(path.read_text()).get("x-kubernetes-group-version-kind", []):
            kinds.append((f"{gvk['group']}/{gvk['version']}" if gvk["group"] else gvk["version"], gvk["kind"]))
    assert sorted(kinds) == sorted(BRIEF_KINDS)


@pytest.mark.parametrize("name", sorted(p.name for p in schema.SCHEMA_DIR.glob("*.json")))
def test_each_schema_file_is_self_contained(name):
    text = (schema.SCHEMA_DIR / name).read_text()
    refs = {ref for ref in _refs(json.loads(text))}
    assert refs and all(ref.startswith("#/$defs/") for ref in refs)
    data = json.loads(text)
    assert all(ref[len("#/$defs/"):] in data["$defs"] for ref in refs)
    assert "kubernetes-validate v1.34.0-local-strict" in text


def _refs(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                yield value
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from _refs(item)


def test_the_committed_schemas_are_what_the_generator_writes(tmp_path):
    pytest.importorskip("kubernetes_validate", reason="kubernetes-validate (a test extra: make test installs it) is not installed")
    subprocess.run([sys.executable, str(REPO / "scripts" / "gen_schemas.py"), "--out", str(tmp_path)],
                   check=True, capture_output=True)
    committed = {p.name: p.read_bytes() for p in schema.SCHEMA_DIR.glob("*.json")}
    generated = {p.name: p.read_bytes() for p in tmp_path.glob("*.json")}
    assert generated == committed
