"""What `redact` keeps and drops: scheduling fields stay, values the scheduler never reads go.
Each case: an object in, the object out (written by hand from the rule in kwhatif/live/redact.py)."""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

import pytest

from kwhatif.api.meta import stands_for
from kwhatif.live.redact import cluster_salt, redact

SCHEDULING_CONTAINER = {"name": "app", "image": "shop:1", "ports": [{"containerPort": 80, "hostPort": 8080}],
                        "resources": {"requests": {"cpu": "1"}, "limits": {"memory": "1Gi"}}}
NOISY_CONTAINER = dict(SCHEDULING_CONTAINER, env=[{"name": "A", "value": "x"}], envFrom=[{"secretRef": {"name": "s"}}],
                       command=["run"], args=["--token=x"], lifecycle={"preStop": {"exec": {"command": ["x"]}}},
                       livenessProbe={"exec": {"command": ["x"]}}, readinessProbe={"httpGet": {"path": "/"}},
                       startupProbe={"tcpSocket": {"port": 80}})


SALT = "0123456789abcdef"


def _sha(text: str) -> str:
    """What a value leaves in a redacted snapshot: the sha256 of the salt, a colon and the
    value's own `sha256:<hex>` digest, named with the salt (kwhatif/api/meta.py:sealed_digest)."""
    plain = "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    return f"sha256:{SALT}:" + hashlib.sha256(f"{SALT}:{plain}".encode()).hexdigest()


X_DIGEST = _sha("x")  # what a value "x" leaves


# The noisy container's settings as sealed digests of their compact, key-sorted JSON (an env var's
# without its name), each in the place and shape its field takes (kwhatif/api/settings.py).
REDACTED_CONTAINER = dict(SCHEDULING_CONTAINER, env=[{"name": "A", "value": _sha('{"value":"x"}')}],
                          envFrom=[{"prefix": _sha('[{"secretRef":{"name":"s"}}]')}],
                          command=[_sha('["run"]')], args=[_sha('["--token=x"]')])


def pod_spec(container: dict[str, Any]) -> dict[str, Any]:
    return {"nodeSelector": {"disk": "ssd"}, "containers": [container], "initContainers": [dict(container, name="i")],
            "ephemeralContainers": [dict(container, name="e")]}


def template(kind: str, container: dict[str, Any], annotations: dict[str, str] | None) -> dict[str, Any]:
    meta: dict[str, Any] = {"labels": {"app": "w"}} | ({"annotations": annotations} if annotations else {})
    return {"kind": kind, "metadata": {"name": "w"}, "spec": {"replicas": 2, "template": {
        "metadata": meta, "spec": pod_spec(container)}}}


CASES = [
    pytest.param({"kind": "Pod", "metadata": {"name": "p"}, "spec": pod_spec(NOISY_CONTAINER)},
                 {"kind": "Pod", "metadata": {"name": "p"}, "spec": pod_spec(REDACTED_CONTAINER)},
                 id="a pod's containers, init and ephemeral containers lose probes and hooks, keep digests of env, "
                    "envFrom, command and args"),
    *[pytest.param(template(kind, NOISY_CONTAINER, {"checksum/config": "x"}),
                   template(kind, REDACTED_CONTAINER, {"checksum/config": X_DIGEST}),
                   id=f"a {kind}'s pod template loses them too; its template annotations keep digests of their values")
      for kind in ("ReplicaSet", "ReplicationController", "StatefulSet", "DaemonSet", "Deployment", "Job")],
    pytest.param({"kind": "Pod", "metadata": {"name": "p", "annotations": {
                     "kubectl.kubernetes.io/last-applied-configuration": "{}", "checksum/config": "x"}},
                  "spec": pod_spec(SCHEDULING_CONTAINER)},
                 {"kind": "Pod", "metadata": {"name": "p", "annotations": {"checksum/config": X_DIGEST}},
                  "spec": pod_spec(SCHEDULING_CONTAINER)},
                 id="a pod's annotations keep digests of their values, but the last applied manifest goes"),
    pytest.param({"kind": "CronJob", "spec": {"jobTemplate": {"spec": {"template": {"spec": pod_spec(NOISY_CONTAINER)}}}}},
                 {"kind": "CronJob", "spec": {"jobTemplate": {"spec": {"template": {"spec": pod_spec(REDACTED_CONTAINER)}}}}},
                 id="a CronJob's job template's pod template too"),
    pytest.param({"kind": "Node", "metadata": {"name": "n", "labels": {"zone": "a"}, "managedFields": [{"manager": "k"}],
                                               "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}",
                                                               "node.alpha.kubernetes.io/ttl": "0"}}},
                 {"kind": "Node", "metadata": {"name": "n", "labels": {"zone": "a"}}},
                 id="managedFields and annotations nobody schedules by go; labels stay; no empty annotations are left"),
    pytest.param({"kind": "PersistentVolumeClaim", "metadata": {"annotations": {
                     "volume.kubernetes.io/selected-node": "n1", "pv.kubernetes.io/bind-completed": "yes",
                     "volume.beta.kubernetes.io/storage-class": "fast", "team": "shop"}}},
                 {"kind": "PersistentVolumeClaim", "metadata": {"annotations": {
                     "volume.kubernetes.io/selected-node": "n1", "pv.kubernetes.io/bind-completed": "yes",
                     "volume.beta.kubernetes.io/storage-class": "fast"}}},
                 id="the volume-binding annotations a claim is scheduled by stay"),
    pytest.param({"kind": "StorageClass", "metadata": {"annotations": {"storageclass.kubernetes.io/is-default-class": "true"}}},
                 {"kind": "StorageClass", "metadata": {"annotations": {"storageclass.kubernetes.io/is-default-class": "true"}}},
                 id="the default StorageClass stays the default"),
    pytest.param({"kind": "CSINode", "metadata": {"annotations": {"storage.alpha.kubernetes.io/migrated-plugins": "x"}}},
                 {"kind": "CSINode", "metadata": {"annotations": {"storage.alpha.kubernetes.io/migrated-plugins": "x"}}},
                 id="a CSINode's migrated plugins stay"),
    pytest.param({"kind": "Pod", "metadata": {"annotations": {"batch.kubernetes.io/job-completion-index": "3"}},
                  "spec": {"containers": "not a list"}},
                 {"kind": "Pod", "metadata": {"annotations": {"batch.kubernetes.io/job-completion-index": "3"}},
                  "spec": {"containers": "not a list"}},
                 id="an indexed Job's completion index stays; a malformed spec is left for the loader to refuse"),
    pytest.param({"kind": "Pod", "metadata": {"name": "p"}, "spec": pod_spec(SCHEDULING_CONTAINER), "status": {
                     "phase": "Running", "containerStatuses": [{"name": "app", "resources": {"requests": {"cpu": "1"}},
                         "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}},
                         "lastState": {"terminated": {"exitCode": 2, "reason": "Error",
                                                      "message": "panic: postgres://admin:pw@db failed"}}}],
                     "initContainerStatuses": [{"name": "i", "state": {"waiting": {"reason": "CrashLoopBackOff",
                                                                                   "message": "back-off: pw"}}}]}},
                 {"kind": "Pod", "metadata": {"name": "p"}, "spec": pod_spec(SCHEDULING_CONTAINER), "status": {
                     "phase": "Running", "containerStatuses": [{"name": "app", "resources": {"requests": {"cpu": "1"}},
                         "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}},
                         "lastState": {"terminated": {"exitCode": 2, "reason": "Error"}}}],
                     "initContainerStatuses": [{"name": "i", "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]}},
                 id="container states lose their messages (FallbackToLogsOnError copies log lines there); "
                    "reasons and the resources a resize reads stay"),
    pytest.param({"kind": "StatefulSet", "spec": {"volumeClaimTemplates": [{"metadata": {"name": "data", "annotations": {
                     "kubectl.kubernetes.io/last-applied-configuration": "{}", "team": "shop"}}}]}},
                 {"kind": "StatefulSet", "spec": {"volumeClaimTemplates": [{"metadata": {"name": "data"}}]}},
                 id="a StatefulSet's claim templates lose their annotations as any metadata does"),
    pytest.param({"kind": "CronJob", "spec": {"jobTemplate": {"metadata": {"annotations": {"team": "shop"}}}}},
                 {"kind": "CronJob", "spec": {"jobTemplate": {"metadata": {}}}},
                 id="a CronJob's job template loses its annotations as any metadata does"),
    pytest.param({"kind": "Service", "metadata": {"name": "s"}, "spec": {"selector": {"app": "w"}}},
                 {"kind": "Service", "metadata": {"name": "s"}, "spec": {"selector": {"app": "w"}}},
                 id="a kind without pods is left as it is"),
]


@pytest.mark.parametrize("obj, expected", CASES)
def test_redact(obj: dict[str, Any], expected: dict[str, Any]) -> None:
    assert redact(copy.deepcopy(obj), SALT) == expected


def test_a_workloads_last_applied_manifest_keeps_only_what_check_reads() -> None:
    """The manifest a Deployment was last applied with tells `check` which template fields that
    apply wrote (a three-way merge removes only those, and keeps what another hand set): its pod
    template is kept with labels, the scheduling fields (nodeSelector, tolerations, affinity,
    spread constraints, priority class...) and the containers' images, resources and ports as
    they are, annotation values and container settings as digests, and nothing else — no probe,
    no field outside the template but the replicas it wrote — and it reads back as the spec
    `check` merges a manifest with."""
    from kwhatif.load.decode import apply_base

    applied = template("Deployment", NOISY_CONTAINER, {"checksum/config": "x"})
    applied["metadata"] = {"name": "w", "namespace": "default", "annotations": {"vault.example/token": "x"}}
    applied["spec"]["template"]["spec"]["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
    applied["spec"]["template"]["spec"]["priorityClassName"] = "high"
    applied["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] = 5
    deployment = copy.deepcopy(applied)
    deployment["metadata"]["annotations"] = {"kubectl.kubernetes.io/last-applied-configuration": json.dumps(applied)}
    redacted = redact(deployment, SALT)
    kept = json.loads(redacted["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"])
    (container,) = kept["spec"]["template"]["spec"]["containers"]
    assert container == {"name": "app", "image": "shop:1", "ports": SCHEDULING_CONTAINER["ports"],
                         "resources": SCHEDULING_CONTAINER["resources"], "env": REDACTED_CONTAINER["env"],
                         "envFrom": REDACTED_CONTAINER["envFrom"], "command": REDACTED_CONTAINER["command"],
                         "args": REDACTED_CONTAINER["args"]}
    assert kept["spec"]["template"]["metadata"] == {"labels": {"app": "w"}, "annotations": {"checksum/config": X_DIGEST}}
    assert kept["spec"]["template"]["spec"]["tolerations"] == [{"key": "dedicated", "operator": "Exists"}]
    assert kept["spec"]["template"]["spec"]["priorityClassName"] == "high"
    assert "terminationGracePeriodSeconds" not in kept["spec"]["template"]["spec"]
    assert set(kept) == {"spec"} and set(kept["spec"]) == {"template", "replicas"}  # no metadata, strategy...
    base = apply_base(redacted)
    assert base is not None and base.applied == kept["spec"]


def test_the_salt_is_the_clusters_the_same_each_capture_another_for_another_cluster() -> None:
    """sha256 of "kwhatif-salt" and the namespaces' UIDs, sorted, one a line: its first 16 hex
    digits. A cluster captured again seals alike (the same bytes); another does not, so no table
    of digests made once serves both."""
    one = [{"metadata": {"name": "b", "uid": "u2"}}, {"metadata": {"name": "a", "uid": "u1"}}]
    assert cluster_salt(one) == hashlib.sha256(b"kwhatif-salt\nu1\nu2").hexdigest()[:16]
    assert cluster_salt(list(reversed(one))) == cluster_salt(one)
    assert cluster_salt([{"metadata": {"name": "a", "uid": "u3"}}]) != cluster_salt(one)


@pytest.mark.parametrize("stored, value, expected", [
    (X_DIGEST, "x", True),                                     # sealed with the salt it names
    (X_DIGEST, "y", False),
    ("sha256:" + hashlib.sha256(b"x").hexdigest(), "x", True),  # an older kwhatif's plain digest
    ("x", "x", True),                                           # a snapshot that is not redacted
    (X_DIGEST.replace(SALT, "fedcba9876543210"), "x", False),   # another salt: another digest
    (None, "x", False),
])
def test_a_stored_value_stands_for_the_manifests(stored: str | None, value: str, expected: bool) -> None:
    assert stands_for(stored, value) is expected
