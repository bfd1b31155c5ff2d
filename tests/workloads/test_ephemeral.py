"""Generic ephemeral volumes: a pod kwhatif creates gets the claim the ephemeral volume controller
makes for it (`<pod>-<volume>`, the template's metadata and spec, the pod as controller), so
VolumeBinding finds it as kube-scheduler does once the controller has run."""

from __future__ import annotations

import json
from pathlib import Path

from kwhatif.load.decode import decode
from kwhatif.workloads.ephemeral import ephemeral_claims
from tests.cli.conftest import NOW, invoke

TEMPLATE = {"metadata": {"labels": {"type": "scratch"}},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}


def _pod(volumes: list) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "eph", "namespace": "default", "uid": "u-eph"},
            "spec": {"containers": [{"name": "c", "image": "nginx"}], "volumes": volumes}}


def test_the_claim_of_each_ephemeral_volume_is_named_and_owned_as_the_controller_makes_it() -> None:
    pod = decode(_pod([{"name": "cache", "emptyDir": {}}, {"name": "scratch", "ephemeral": {"volumeClaimTemplate": TEMPLATE}}]),
                 None)
    [claim] = ephemeral_claims(pod)
    assert (claim.namespace, claim.name, claim.labels, claim.controller_uid, claim.access_modes,
            claim.requested_storage) == ("default", "eph-scratch", {"type": "scratch"}, "u-eph", ("ReadWriteOnce",), 2**30)


def test_a_deployment_with_an_ephemeral_volume_fits(tmp_path: Path) -> None:
    # One node, a default StorageClass that provisions where the pod lands: the claim the
    # controller makes binds there (without it: "waiting for ephemeral volume controller ...").
    (tmp_path / "cluster.yaml").write_text(
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {kubernetes.io/hostname: n1}}\n"
        "status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}\n---\n"
        "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: std, annotations: "
        "{storageclass.kubernetes.io/is-default-class: 'true'}}\nprovisioner: ebs.csi.aws.com\n"
        "volumeBindingMode: WaitForFirstConsumer\n")
    template = {"metadata": {"labels": {"app": "web"}}, "spec": _pod([{"name": "scratch", "ephemeral": {
        "volumeClaimTemplate": TEMPLATE}}])["spec"]}
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
                  "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}}, "template": template}}
    (tmp_path / "web.json").write_text(json.dumps(deployment))
    result = invoke(["check", str(tmp_path / "web.json"), "-c", str(tmp_path / "cluster.yaml"), "--now", NOW, "-q",
                     "-o", "json"])
    assert result.exit_code == 0, result.stdout
    [web] = json.loads(result.stdout)["workloads"]
    assert (web["bound"], web["pending"]) == (2, 0)
