"""A template change told from the running pods (and from the running controller's template):
what the controllers, admission and webhooks add is no change, what the manifest sets otherwise or
drops is."""

from __future__ import annotations

import copy
import hashlib

import pytest

from kwhatif.live.redact import redact
from kwhatif.workloads import expand
from kwhatif.workloads.templates import carrying_template, drops_from
from tests.check.conftest import cluster, node, running, workload
from tests.workloads.conftest import replica_set


LABELS = {"app": "web", "pod-template-hash": "h1"}


@pytest.mark.parametrize("image, cpu, same", [
    ("app:v1", "100m", True),
    ("app:v2", "100m", False),
    ("app:v1", "200m", False),
])
def test_a_template_is_unchanged_whatever_labels_and_tolerations_the_controller_and_admission_added(image, cpu, same):
    # The running pod carries pod-template-hash and the not-ready/unreachable tolerations
    # DefaultTolerationSeconds added; the manifest's template has neither.
    old = cluster(running("web-h1-a", ("ReplicaSet", "web-h1"), "n1", "100m", labels=LABELS)).pods
    new = expand([workload("Deployment", "web", cpu, image)], [])
    assert (carrying_template(old, new, "Deployment") == old) is same


CHECKSUM = "checksum/config"
A_DIGEST = "sha256:" + hashlib.sha256(b"a").hexdigest()  # what an older kwhatif's redacted snapshot kept of "a"
SALT = "0123456789abcdef"
A_SEALED = f"sha256:{SALT}:" + hashlib.sha256(f"{SALT}:{A_DIGEST}".encode()).hexdigest()  # what one keeps now


@pytest.mark.parametrize("running_annotations, template_annotations, same", [
    ({CHECKSUM: "a"}, {CHECKSUM: "a"}, True),
    ({CHECKSUM: "a"}, {CHECKSUM: "b"}, False),  # Helm's config checksum changed: the controller rolls
    ({CHECKSUM: A_DIGEST}, {CHECKSUM: "a"}, True),  # a redacted snapshot: the digest of the same value
    ({CHECKSUM: A_DIGEST}, {CHECKSUM: "b"}, False),
    ({CHECKSUM: A_SEALED}, {CHECKSUM: "a"}, True),  # sealed with the snapshot's salt (api/meta.py:sealed_digest)
    ({CHECKSUM: A_SEALED}, {CHECKSUM: "b"}, False),
    ({}, {CHECKSUM: "b"}, False),  # added to the template (a chart's first checksum): the pods lack it, it rolls
    ({}, {"kubectl.kubernetes.io/restartedAt": "2026-01-01T00:00:00Z"}, False),  # the first `kubectl rollout restart`
    ({CHECKSUM: "a", "cni.example/ip": "10.0.0.1"}, {CHECKSUM: "a"}, True),  # others' annotations aside
])
def test_a_template_annotation_the_running_pods_lack_or_carry_otherwise_tells_a_change(running_annotations, template_annotations,
                                                                         same):
    doc = running("web-h1-a", ("ReplicaSet", "web-h1"), "n1", "100m", labels=LABELS)
    doc["metadata"]["annotations"] = running_annotations
    manifest = workload("Deployment", "web", "100m", "app:v1")
    manifest.obj["spec"]["template"]["metadata"]["annotations"] = template_annotations
    pods = cluster(doc).pods
    assert (carrying_template(pods, expand([manifest], []), "Deployment") == pods) is same


def _env(**values: str) -> list[dict]:
    return [{"name": k, "value": v} for k, v in values.items()]


POD_NAME = {"fieldRef": {"fieldPath": "metadata.name"}}


@pytest.mark.parametrize("running_sets, template_sets, same", [
    ({"env": _env(A="1")}, {"env": _env(A="1")}, True),
    ({"env": _env(A="1")}, {"env": _env(A="2")}, False),  # a config value changed: the controller rolls
    ({"env": _env(A="1", INJECTED="x")}, {"env": _env(A="1")}, True),  # a webhook's env var, not the template's
    ({"env": _env(A="1")}, {"env": _env(A="1", B="2")}, False),  # a variable added
    ({}, {"env": _env(A="1")}, False),  # the first variable: the template hash covers env
    ({"env": [{"name": "P", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}]},
     {"env": [{"name": "P", "valueFrom": POD_NAME}]}, True),  # fieldRef.apiVersion defaulted to v1 on the pod
    ({"env": [{"name": "E"}]}, {"env": [{"name": "E", "value": ""}]}, True),  # "" is omitted (omitempty)
    ({"env": [{"name": "M", "valueFrom": {"resourceFieldRef": {"resource": "limits.memory", "divisor": "1Mi"}}}]},
     {"env": [{"name": "M", "valueFrom": {"resourceFieldRef": {"resource": "limits.memory", "divisor": "1024Ki"}}}]},
     True),  # a Quantity is stored in canonical form: 1024Ki is 1Mi
    ({"env": [{"name": "E"}]}, {"env": [{"name": "E", "value": None}]}, True),  # null is no value either
    ({"env": [{"name": "P", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}]},
     {"env": [{"name": "P", "valueFrom": {"fieldRef": {"apiVersion": "", "fieldPath": "metadata.name"}}}]},
     True),  # an empty apiVersion is defaulted too
    ({"env": _env(A="1", B="2")}, {"env": _env(B="2", A="1")}, False),  # the order is the template's
    ({"env": _env(A="1", X="i", B="2")}, {"env": _env(A="1", B="2")}, True),  # an injected one in between
    ({"command": ["run"], "args": ["--a"]}, {"command": ["run"], "args": ["--b"]}, False),
    ({"command": ["run"]}, {"command": ["run"]}, True),
    ({"envFrom": [{"configMapRef": {"name": "a"}}]}, {"envFrom": [{"configMapRef": {"name": "b"}}]}, False),
], ids=["same env", "a value changed", "an injected variable is no change", "a variable added",
        "a first variable", "a defaulted fieldRef", "an empty value", "a divisor spelled otherwise", "a null value",
        "an empty fieldRef apiVersion", "reordered", "an injected variable in between", "new args", "same command",
        "another ConfigMap"])
@pytest.mark.parametrize("redacted", [False, True], ids=["plain", "redacted snapshot"])
def test_env_command_and_args_the_template_sets_tell_a_change(running_sets, template_sets, same, redacted):
    """kwhatif/api/settings.py: compared by key; a redacted snapshot holds digests of the same values."""
    doc = running("web-h1-a", ("ReplicaSet", "web-h1"), "n1", "100m", labels=LABELS)
    doc["spec"]["containers"][0].update(copy.deepcopy(running_sets))
    manifest = workload("Deployment", "web", "100m", "app:v1")
    manifest.obj["spec"]["template"]["spec"]["containers"][0].update(copy.deepcopy(template_sets))
    state = cluster(redact(doc, SALT) if redacted else doc)
    assert (carrying_template(state.pods, expand([manifest], []), "Deployment") == state.pods) is same


TOKEN = {"name": "kube-api-access-x7k2p", "projected": {"defaultMode": 420, "sources": [
    {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}]}}  # what ServiceAccount admission adds
DATA = {"name": "data", "persistentVolumeClaim": {"claimName": "data"}}


@pytest.mark.parametrize("running_spec, template_spec, same", [
    ({"volumes": [TOKEN]}, {}, True),
    ({"volumes": [TOKEN, DATA]}, {"volumes": [DATA]}, True),
    ({"volumes": [TOKEN]}, {"volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": "missing"}}]}, False),
    ({"volumes": [{"name": "d", "gcePersistentDisk": {"pdName": "d1", "fsType": "ext4"}}]},
     {"volumes": [{"name": "d", "gcePersistentDisk": {"pdName": "d1"}}]}, True),  # the same disk, fsType aside
    ({"volumes": [{"name": "d", "gcePersistentDisk": {"pdName": "d1"}}]},
     {"volumes": [{"name": "d", "gcePersistentDisk": {"pdName": "d2"}}]}, False),
    ({"volumes": [DATA]}, {"volumes": [{"name": "data", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}]}, False),
    ({"volumes": [{"name": "s", "ephemeral": {"volumeClaimTemplate": {"spec": {
        "storageClassName": "fast", "resources": {"requests": {"storage": "1Gi"}}}}}}]},
     {"volumes": [{"name": "s", "ephemeral": {"volumeClaimTemplate": {"spec": {
         "storageClassName": "fast", "resources": {"requests": {"storage": "2Gi"}}}}}}]}, False),
    ({}, {"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpu"}]}, False),
    ({"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpu"}]},
     {"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpu"}]}, True),
    ({}, {"nodeName": "n2"}, False),  # the running pod is on n1
    ({}, {"nodeName": "n1"}, True),
], ids=["the token volume admission adds", "a claim kept", "a claim added", "a disk with a defaulted field",
        "another disk", "another kind of volume", "a bigger ephemeral volume", "a resource claim added",
        "the same resource claim", "another nodeName", "the same nodeName"])
def test_volumes_claims_and_node_name_the_template_sets_tell_a_change(running_spec, template_spec, same):
    """A rollout follows any template change; these decide where the new pods can go
    (VolumeBinding, DynamicResources, a named node). What only the running pod has is injected."""
    doc = running("web-h1-a", ("ReplicaSet", "web-h1"), "n1", "100m", labels=LABELS)
    doc["spec"].update(copy.deepcopy(running_spec))
    manifest = workload("Deployment", "web", "100m", "app:v1")
    manifest.obj["spec"]["template"]["spec"].update(copy.deepcopy(template_spec))
    state = cluster(doc)
    assert (carrying_template(state.pods, expand([manifest], []), "Deployment") == state.pods) is same


ISTIO = {"name": "istio-proxy", "image": "istio/proxyv2:1.23", "resources": {"requests": {"cpu": "100m"}}}


@pytest.mark.parametrize("running_spec, running_labels, template_spec, template_labels, same", [
    # What a mesh's webhook adds to every pod: a sidecar container and labels of its own.
    ({"containers": [ISTIO]}, {"security.istio.io/tlsMode": "istio"}, {}, {}, True),
    ({"initContainers": [{**ISTIO, "restartPolicy": "Always"}]}, {}, {}, {}, True),  # a native sidecar
    ({"nodeSelector": {"pool": "batch"}}, {}, {}, {}, True),  # Kueue's admission of the workload
    ({"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]}, {}, {}, {},
     True),  # ExtendedResourceToleration's
    ({}, {}, {"containers": [ISTIO]}, {}, False),  # the template adds a container
    ({}, {}, {}, {"tier": "web"}, False),  # the template adds a label
    ({"nodeSelector": {"pool": "batch"}}, {}, {"nodeSelector": {"pool": "gpu"}}, {}, False),
], ids=["a mesh's sidecar and labels", "a native sidecar", "a queue's nodeSelector", "an admission toleration",
        "a container added", "a label added", "another nodeSelector value"])
def test_what_only_the_running_pod_has_was_injected(running_spec, running_labels, template_spec, template_labels,
                                                     same):
    """Webhooks and admission add to pods, never to the template: the template is unchanged while
    each thing it sets is on the pod alike."""
    doc = running("web-h1-a", ("ReplicaSet", "web-h1"), "n1", "100m", labels={**LABELS, **running_labels})
    for key, value in copy.deepcopy(running_spec).items():
        doc["spec"][key] = doc["spec"].get(key, []) + value if isinstance(value, list) else value
    manifest = workload("Deployment", "web", "100m", "app:v1")
    template = manifest.obj["spec"]["template"]
    template["metadata"]["labels"].update(template_labels)
    for key, value in copy.deepcopy(template_spec).items():
        template["spec"][key] = template["spec"].get(key, []) + value if isinstance(value, list) else value
    state = cluster(doc)
    assert (carrying_template(state.pods, expand([manifest], []), "Deployment") == state.pods) is same


def test_a_statefulsets_pods_compare_their_own_ordinals_claims():
    """volumeClaimTemplates: db-i mounts data-db-i (getPersistentVolumeClaimName
    `<template>-<set>-<ordinal>`): each pod is compared with the manifest's pod of its name."""
    docs = []
    for i in range(2):
        doc = running(f"db-{i}", ("StatefulSet", "db"), "n1", "100m", labels={"app": "db"})
        doc["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": f"data-db-{i}"}}]
        docs.append(doc)
    manifest = workload("StatefulSet", "db", "100m", "app:v1", {"replicas": 2, "volumeClaimTemplates": [
        {"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"],
                                                "resources": {"requests": {"storage": "1Gi"}}}}]})
    state = cluster(*docs)
    assert carrying_template(state.pods, expand([manifest], []), "StatefulSet") == state.pods


def test_an_ephemeral_volumes_size_compares_by_value():
    # The API server stores quantities canonically: 1024Mi is kept as 1Gi.
    def ephemeral(size: str) -> dict:
        return {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {
            "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}}}}}}
    doc = running("web-h1-a", ("ReplicaSet", "web-h1"), "n1", "100m", labels=LABELS)
    doc["spec"]["volumes"] = [ephemeral("1Gi")]
    manifest = workload("Deployment", "web", "100m", "app:v1")
    manifest.obj["spec"]["template"]["spec"]["volumes"] = [ephemeral("1024Mi")]
    state = cluster(doc)
    assert carrying_template(state.pods, expand([manifest], []), "Deployment") == state.pods


def _set_template(template: dict, spec: dict, labels: dict, annotations: dict) -> None:
    template["metadata"]["labels"].update(labels)
    template["metadata"]["annotations"] = {**template["metadata"].get("annotations", {}), **annotations}
    for key, value in copy.deepcopy(spec).items():
        if key == "env":
            template["spec"]["containers"][0]["env"] = value
        else:
            template["spec"][key] = template["spec"].get(key, []) + value if isinstance(value, list) else value


TOLERATION = {"key": "dedicated", "operator": "Equal", "value": "web", "effect": "NoSchedule"}


@pytest.mark.parametrize("running_template, manifest_template, drops", [
    (({}, {}, {}), ({}, {}, {}), False),
    (({"tolerations": [TOLERATION]}, {}, {}), ({}, {}, {}), True),  # the toleration removed
    (({"nodeSelector": {"pool": "web"}}, {}, {}), ({}, {}, {}), True),  # unpinned
    (({}, {"tier": "web"}, {}), ({}, {}, {}), True),  # a label removed
    (({}, {}, {CHECKSUM: "a"}), ({}, {}, {}), True),  # an annotation removed
    (({}, {}, {"kubectl.kubernetes.io/restartedAt": "2026-01-01T00:00:00Z"}), ({}, {}, {}), False),  # kept by apply
    (({"env": _env(A="1", B="2")}, {}, {}), ({"env": _env(A="1")}, {}, {}), True),  # an env var removed
    (({"env": _env(A="1")}, {}, {}), ({"env": _env(A="1")}, {}, {}), False),
    (({"containers": [ISTIO]}, {}, {}), ({}, {}, {}), True),  # a container removed
    (({"volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]}, {}, {}), ({}, {}, {}),
     True),  # a claim removed (pods keep the volumes scheduling reads)
    (({}, {}, {}), ({"tolerations": [TOLERATION]}, {"tier": "web"}, {CHECKSUM: "a"}), False),  # added: not dropped
])
@pytest.mark.parametrize("redacted", [False, True], ids=["plain", "redacted snapshot"])
def test_what_the_running_controllers_template_sets_and_the_manifest_drops_is_a_new_template(
        running_template, manifest_template, drops, redacted):
    """The controllers compare whole templates (EqualIgnoreHash): a field the ReplicaSet's
    template sets that the manifest leaves out is a change, though the pods, extras and all,
    still carry everything the manifest sets. A redacted snapshot's template (digests of env
    values and annotations) compares alike."""
    made = replica_set("web-h1", "h1")
    _set_template(made["spec"]["template"], *running_template)
    manifest = workload("Deployment", "web", "100m", "app:v1")
    _set_template(manifest.obj["spec"]["template"], *manifest_template)
    (controller,) = cluster(redact(made, SALT) if redacted else made).controllers.values()
    assert controller.template is not None
    assert drops_from(controller.template, expand([manifest], [])[0]) is drops


def test_a_daemonsets_pods_compare_with_the_daemonsets_own_template():
    """A DaemonSet's pods have their controller in `daemonsets`, not `controllers`: its template is
    theirs (what the DaemonSet controller adds to each pod — node pinning, its tolerations — is
    not in it), and a toleration the manifest drops from it is a change."""
    daemonset = workload("DaemonSet", "agent", "100m", "agent:v1")
    daemonset.obj["spec"]["template"]["spec"]["tolerations"] = [TOLERATION]
    pod = running("agent-x", ("DaemonSet", "agent"), "n1", "100m", image="agent:v1", labels={"app": "agent"})
    state = cluster(node("n1", "4"), daemonset.obj, pod)
    template = state.template_of(state.pods[0])
    assert template is not None and template.tolerations[0].key == "dedicated"
    dropped = workload("DaemonSet", "agent", "100m", "agent:v1")
    assert drops_from(template, expand([dropped], state.nodes)[0])
