"""Workloads that already run: strategies resolved as the controllers resolve them, a template
change told from the running pods, and a workload's pods found through its controllers."""

from __future__ import annotations

import copy
import hashlib
from fractions import Fraction

import pytest

from kwhatif.api.objects import Container, ContainerPort, Pod, TopologySpreadConstraint
from kwhatif.api.tolerations import Toleration
from kwhatif.errors import InputError
from kwhatif.live.redact import redact
from kwhatif.workloads import expand
from kwhatif.workloads.apply import kept_by_apply
from kwhatif.workloads.existing import PodIndex, exists, kept_replicas
from kwhatif.workloads.strategy import Strategy, strategy_of
from kwhatif.workloads.templates import carrying_template, drops_from
from tests.check.conftest import cluster, node, running, workload


def _deployment(strategy: dict) -> object:
    return workload("Deployment", "web", "100m", "app:v1", {"replicas": 4, "strategy": strategy})


@pytest.mark.parametrize("strategy, expected", [
    # maxSurge and maxUnavailable default to 25%: surge rounds up (ceil 1.0 = 1), unavailable
    # down (floor 1.0 = 1) (deployment_util.go ResolveFenceposts).
    ({}, Strategy("RollingUpdate", 1, 1)),
    ({"rollingUpdate": {"maxSurge": "30%", "maxUnavailable": "30%"}}, Strategy("RollingUpdate", 2, 1)),  # 1.2
    ({"rollingUpdate": {"maxSurge": 0, "maxUnavailable": "10%"}}, Strategy("RollingUpdate", 0, 1)),  # floor 0.4 -> 1
    ({"type": "Recreate"}, Strategy("Recreate")),
    ({"rollingUpdate": {"maxSurge": None, "maxUnavailable": None}}, Strategy("RollingUpdate", 1, 1)),  # null: unset
])
def test_a_deployment_strategy_rounds_surge_up_and_unavailability_down(strategy, expected):
    assert strategy_of(_deployment(strategy), 4) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize("strategy, expected", [
    # daemon/util SurgeCount and UnavailableCount both round up; defaults maxUnavailable 1, maxSurge 0.
    ({}, Strategy("RollingUpdate", 0, 1)),
    ({"rollingUpdate": {"maxUnavailable": "10%"}}, Strategy("RollingUpdate", 0, 2)),  # ceil(1.2)
    ({"rollingUpdate": {"maxSurge": "10%", "maxUnavailable": 0}}, Strategy("RollingUpdate", 2, 0)),
    ({"type": "OnDelete"}, Strategy("OnDelete")),
])
def test_a_daemonset_strategy_rounds_both_up(strategy, expected):
    ds = workload("DaemonSet", "agent", "100m", "app:v1", {"updateStrategy": strategy})
    assert strategy_of(ds, 12) == expected


def test_a_statefulset_strategy_keeps_its_partition_and_pod_management_policy():
    sts = workload("StatefulSet", "db", "100m", "app:v1",
                   {"podManagementPolicy": "Parallel", "updateStrategy": {"rollingUpdate": {"partition": 2}}})
    assert strategy_of(sts, 3) == Strategy("RollingUpdate", 0, 1, 2, True)


@pytest.mark.parametrize("w, field", [
    (_deployment({"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 0}}), "spec.strategy.rollingUpdate.maxUnavailable"),
    (_deployment({"type": "Replace"}), "spec.strategy.type"),
    (_deployment({"rollingUpdate": {"maxSurge": "lots"}}), "spec.strategy.rollingUpdate.maxSurge"),
    # ValidateDeploymentStrategy: "may not be specified when strategy `type` is 'Recreate'"
    (_deployment({"type": "Recreate", "rollingUpdate": {"maxSurge": 1}}), "spec.strategy.rollingUpdate"),
    # IsNotMoreThan100Percent (ValidateRollingUpdateDeployment)
    (_deployment({"rollingUpdate": {"maxUnavailable": "200%"}}), "spec.strategy.rollingUpdate.maxUnavailable"),
])
def test_a_strategy_the_api_server_refuses_is_an_input_error_naming_the_field(w, field):
    with pytest.raises(InputError) as err:
        strategy_of(w, 4)  # type: ignore[arg-type]
    assert (err.value.obj, err.value.field) == ("Deployment/default/web", field)


LABELS = {"app": "web", "pod-template-hash": "h1"}


def test_a_deployments_pods_are_found_through_its_replicasets():
    state = cluster(running("web-h1-a", ("ReplicaSet", "web-h1"), "n1", "100m", labels=LABELS),
                    running("webhook-h2-a", ("ReplicaSet", "webhook-h2"), "n1", "100m",
                            labels={"app": "webhook", "pod-template-hash": "h2"}))
    found, pods = exists(state, PodIndex.of(state), workload("Deployment", "web", "100m", "app:v1"))
    assert found and [p.name for p in pods] == ["web-h1-a"]


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
A_DIGEST = "sha256:" + hashlib.sha256(b"a").hexdigest()  # what a redacted snapshot keeps of "a"


@pytest.mark.parametrize("running_annotations, template_annotations, same", [
    ({CHECKSUM: "a"}, {CHECKSUM: "a"}, True),
    ({CHECKSUM: "a"}, {CHECKSUM: "b"}, False),  # Helm's config checksum changed: the controller rolls
    ({CHECKSUM: A_DIGEST}, {CHECKSUM: "a"}, True),  # a redacted snapshot: the digest of the same value
    ({CHECKSUM: A_DIGEST}, {CHECKSUM: "b"}, False),
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
    state = cluster(redact(doc) if redacted else doc)
    assert (carrying_template(state.pods, expand([manifest], []), "Deployment") == state.pods) is same


def _replica_set(name: str, template_hash: str) -> dict:
    """A ReplicaSet a Deployment made, as a dump has it: its selector holds the pod-template-hash."""
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "web", "pod-template-hash": template_hash}},
                     "template": {"metadata": {"labels": {"app": "web", "pod-template-hash": template_hash}},
                                  "spec": {"containers": [{"name": "app", "image": "app:v1"}]}}}}


def test_replicas_left_unset_keep_the_count_that_runs_or_zero() -> None:
    """web runs 2 pods: 2 are kept. A Deployment scaled to zero (its ReplicaSet web-h1 is there,
    with pod-template-hash h1, no pod) keeps 0; web-api-h2 is another Deployment's ReplicaSet
    (its selector's hash is h2, not "api-h2"): no evidence for `web` there. A manifest that sets
    replicas keeps its own count."""
    web = workload("Deployment", "web", "100m", "app:v1")
    running_two = cluster(running("web-h1-a", ("ReplicaSet", "web-h1"), "n1", "100m", labels=LABELS),
                          running("web-h1-b", ("ReplicaSet", "web-h1"), "n1", "100m", labels=LABELS))
    assert kept_replicas([web], running_two, PodIndex.of(running_two)) == {("Deployment", "default", "web"): 2}
    to_zero = cluster(_replica_set("web-h1", "h1"))
    assert kept_replicas([web], to_zero, PodIndex.of(to_zero)) == {("Deployment", "default", "web"): 0}
    other = cluster(_replica_set("web-api-h2", "h2"))
    assert kept_replicas([web], other, PodIndex.of(other)) == {}
    pinned = workload("Deployment", "web", "100m", "app:v1", {"replicas": 3})
    assert kept_replicas([pinned], running_two, PodIndex.of(running_two)) == {}


def _sized(rs: dict, replicas: int, desired: int) -> dict:
    """The ReplicaSet sized by its Deployment: spec.replicas, and the Deployment's count in the
    desired-replicas annotation (deployment/util: SetReplicasAnnotations)."""
    rs["spec"]["replicas"] = replicas
    rs["metadata"]["annotations"] = {"deployment.kubernetes.io/desired-replicas": str(desired)}
    return rs


def test_replicas_left_unset_keep_the_deployments_count_not_a_rollouts_surge() -> None:
    """A rollout in progress: web-h1 (old, 3 pods) and web-h2 (new, 1 surge pod) both sized for a
    Deployment of 3; 4 pods run, 3 are kept. web-h0, an older set scaled to 0 long ago, still
    says 5: an inactive set's annotation is stale and not read."""
    pods = [running(f"web-h1-{c}", ("ReplicaSet", "web-h1"), "n1", "100m", labels={**LABELS, "pod-template-hash": "h1"})
            for c in "abc"]
    pods.append(running("web-h2-a", ("ReplicaSet", "web-h2"), "n1", "100m", labels={**LABELS, "pod-template-hash": "h2"}))
    state = cluster(_sized(_replica_set("web-h0", "h0"), 0, 5), _sized(_replica_set("web-h1", "h1"), 3, 3),
                    _sized(_replica_set("web-h2", "h2"), 1, 3), *pods)
    web = workload("Deployment", "web", "100m", "app:v1")
    assert kept_replicas([web], state, PodIndex.of(state)) == {("Deployment", "default", "web"): 3}


def test_replicas_left_unset_keep_a_statefulsets_spec_replicas() -> None:
    # db says 3 replicas; db-2 is gone (deleted, its replacement not made yet): 3 are kept, not 2.
    sts = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": "default"},
           "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "db"}}, "serviceName": "db",
                    "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [{"name": "app"}]}}}}
    state = cluster(sts, *(running(f"db-{i}", ("StatefulSet", "db"), "n1", "100m", labels={"app": "db"}) for i in range(2)))
    db = workload("StatefulSet", "db", "100m", "app:v1")
    assert kept_replicas([db], state, PodIndex.of(state)) == {("StatefulSet", "default", "db"): 3}


def test_a_deployment_scaled_to_zero_keeps_zero_whatever_its_old_sets_say() -> None:
    """web-h0 was sized for 5 long ago and scaled to 0; web-h1, the current set, for 0: no set is
    active, so web runs no replica and a manifest without replicas keeps 0."""
    state = cluster(_sized(_replica_set("web-h0", "h0"), 0, 5), _sized(_replica_set("web-h1", "h1"), 0, 0))
    web = workload("Deployment", "web", "100m", "app:v1")
    assert kept_replicas([web], state, PodIndex.of(state)) == {("Deployment", "default", "web"): 0}


def test_a_snapshot_pods_env_that_is_not_a_list_is_refused_naming_it() -> None:
    # ValidateEnv reads a list (the API server could not even decode a number there): one line, never a crash.
    doc = running("web-h1-a", ("ReplicaSet", "web-h1"), "n1", "100m", labels=LABELS)
    doc["spec"]["containers"][0]["env"] = 5
    with pytest.raises(InputError) as err:
        cluster(doc)
    assert (err.value.field, err.value.message) == ("spec.containers[0].env", "expected a list, got an integer 5")


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


def test_a_recreate_deployment_may_write_rolling_update_null():
    # `rollingUpdate: null` decodes to a nil pointer: the documented way to switch to Recreate with apply.
    w = _deployment({"type": "Recreate", "rollingUpdate": None})
    assert strategy_of(w, 4) == Strategy("Recreate")  # type: ignore[arg-type]


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
    replica_set = _replica_set("web-h1", "h1")
    _set_template(replica_set["spec"]["template"], *running_template)
    manifest = workload("Deployment", "web", "100m", "app:v1")
    _set_template(manifest.obj["spec"]["template"], *manifest_template)
    (controller,) = cluster(redact(replica_set) if redacted else replica_set).controllers.values()
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


_SPOT = Toleration("spot", "Exists")
_WEB = Toleration("dedicated", "Equal", "web", "NoSchedule")
_ZONE = TopologySpreadConstraint(1, "topology.kubernetes.io/zone", "ScheduleAnyway")
_HOST = TopologySpreadConstraint(1, "kubernetes.io/hostname", "ScheduleAnyway")


def _pod(**fields: object) -> Pod:
    return Pod("default", "web", containers=(Container("app", "app:1"),)).evolve(**fields)


@pytest.mark.parametrize("live, applied, manifest, field, expected", [
    # Maps, merged key by key: a key neither the last apply nor the manifest writes stays; one
    # the last apply wrote and the manifest leaves out goes; the manifest's value wins.
    ({"labels": {"app": "web", "team": "a"}}, {"labels": {"app": "web"}}, {"labels": {"app": "web"}},
     "labels", {"app": "web", "team": "a"}),
    ({"labels": {"app": "web", "team": "a"}}, {"labels": {"app": "web", "team": "a"}}, {"labels": {"app": "web"}},
     "labels", {"app": "web"}),
    ({"node_selector": {"pool": "web"}}, {}, {"node_selector": {"pool": "db"}}, "node_selector", {"pool": "db"}),
    # Lists merged by a key: the manifest's items, then the live ones of keys neither writes.
    ({"topology_spread_constraints": (_HOST, _ZONE)}, {"topology_spread_constraints": (_HOST,)}, {},
     "topology_spread_constraints", (_ZONE,)),
    ({"topology_spread_constraints": (_HOST, _ZONE)}, {}, {"topology_spread_constraints": (_HOST,)},
     "topology_spread_constraints", (_HOST, _ZONE)),
    ({"volumes": ({"name": "a", "emptyDir": {}}, {"name": "b", "emptyDir": {}})}, {"volumes": ({"name": "b"},)}, {},
     "volumes", ({"name": "a", "emptyDir": {}},)),
    # Fields set whole (tolerations: an atomic list): the live value only when neither sets it.
    ({"tolerations": (_WEB, _SPOT)}, {}, {}, "tolerations", (_WEB, _SPOT)),
    ({"tolerations": (_WEB, _SPOT)}, {"tolerations": (_WEB,)}, {"tolerations": (_WEB,)}, "tolerations", (_WEB,)),
    ({"tolerations": (_WEB, _SPOT)}, {}, {"tolerations": (_WEB,)}, "tolerations", (_WEB,)),
    ({"priority_class_name": "high"}, {}, {}, "priority_class_name", "high"),
    ({"priority_class_name": "high"}, {"priority_class_name": "high"}, {}, "priority_class_name", ""),
    ({"scheduler_name": "batch"}, {}, {}, "scheduler_name", "batch"),
    ({"host_network": True}, {}, {}, "host_network", True),
])
def test_kept_by_apply_merges_as_a_three_way_merge(live, applied, manifest, field, expected):
    """`kubectl apply`'s three-way merge (strategicpatch CreateThreeWayMergePatch) of the last
    apply's template, the manifest's and the live one, field by field."""
    merged = kept_by_apply(_pod(**manifest), _pod(**live), _pod(**applied))
    assert getattr(merged, field) == expected


def test_kept_by_apply_merges_containers_by_name_and_their_resources_by_key():
    """A sidecar kubectl patch added (named by neither) stays; so does a limit `kubectl set
    resources` set, and a port, in a container the manifest names; what the manifest sets wins."""
    live = _pod(containers=(Container("app", "app:1", {"cpu": Fraction(1, 2)}, {"cpu": Fraction(1)},
                                      (ContainerPort(80), ContainerPort(9090))),
                            Container("proxy", "envoy:1")))
    applied = _pod(containers=(Container("app", "app:1", {"cpu": Fraction(1, 2)}, ports=(ContainerPort(80),)),))
    manifest = _pod(containers=(Container("app", "app:2", {"cpu": Fraction(1, 4)}),))
    app, proxy = kept_by_apply(manifest, live, applied).containers
    assert (app.image, app.requests, app.limits, app.ports) == ("app:2", {"cpu": Fraction(1, 4)},
                                                                 {"cpu": Fraction(1)}, (ContainerPort(9090),))
    assert proxy == Container("proxy", "envoy:1")


@pytest.mark.parametrize("surge, unavailable, said", [
    # field.Invalid(maxUnavailable, the IntOrString as written, ...): apimachinery's ErrorBody
    # prints a value whose pointer is a fmt.Stringer by String() — the percentage as written,
    # the number by Itoa (field/errors.go; intstr.go String).
    (0, 0, "Invalid value: 0: may not be 0 when `maxSurge` is 0"),
    ("0%", "0%", "Invalid value: 0%: may not be 0 when `maxSurge` is 0"),
    (0, "0%", "Invalid value: 0%: may not be 0 when `maxSurge` is 0"),
])
def test_no_surge_and_no_unavailability_is_refused_with_the_value_as_written(surge, unavailable, said):
    w = _deployment({"rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable}})
    with pytest.raises(InputError) as err:
        strategy_of(w, 4)  # type: ignore[arg-type]
    assert err.value.message == said


@pytest.mark.parametrize("rolling, said", [
    # ValidatePositiveIntOrPercent: a string is IsValidPercent's ([0-9]+%, ASCII digits only);
    # IsNotMoreThan100Percent for maxUnavailable; both print the IntOrString by String().
    ({"maxSurge": "lots"}, "Invalid value: lots: a valid percent string must be a numeric string followed by an "
                           "ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"),
    ({"maxSurge": "\u0665%"}, "Invalid value: \u0665%: a valid percent string must be a numeric string followed by "
                              "an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"),
    ({"maxUnavailable": "200%"}, "Invalid value: 200%: must not be greater than 100%"),
])
def test_a_deployment_percentage_the_api_server_refuses_is_told_in_its_words(rolling, said):
    with pytest.raises(InputError) as err:
        strategy_of(_deployment({"rollingUpdate": rolling}), 4)  # type: ignore[arg-type]
    assert err.value.message == said
