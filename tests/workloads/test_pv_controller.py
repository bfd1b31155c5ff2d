"""The PV controller's binding of the immediate claims a run creates (pv_controller.go:
syncUnboundClaim; FindMatchingVolume without a node): expected bindings worked out by hand from
those rules beside each row — the pre-bound volume, else the smallest matching Available PV, else
a volume the class's provisioner creates (`pvc-<claim uid>`), else nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kwhatif.api.cluster import Cluster
from kwhatif.load.storage import decode_pv, decode_pvc, decode_storage_class
from kwhatif.workloads.pv_controller import add_claims
from tests.cli.conftest import NOW, invoke


def _class(name: str, provisioner: str, mode: str = "Immediate", default: bool = False, topologies: list | None = None) -> dict:
    meta: dict = {"name": name}
    if default:
        meta["annotations"] = {"storageclass.kubernetes.io/is-default-class": "true"}
    obj = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": meta, "provisioner": provisioner,
           "volumeBindingMode": mode}
    if topologies:
        obj["allowedTopologies"] = topologies
    return obj


def _pv(name: str, size: str, sc: str = "manual", modes: tuple[str, ...] = ("ReadWriteOnce",), phase: str = "Available",
        claim: str | None = None) -> dict:
    spec: dict = {"storageClassName": sc, "capacity": {"storage": size}, "accessModes": list(modes),
                  "hostPath": {"path": f"/data/{name}"}}
    if claim:
        spec["claimRef"] = {"namespace": "default", "name": claim}
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name}, "spec": spec,
            "status": {"phase": phase}}


def _pvc(name: str, size: str = "1Gi", sc: str | None = "manual", volume: str = "",
         modes: tuple[str, ...] = ("ReadWriteOnce",)) -> dict:
    spec: dict = {"accessModes": list(modes), "resources": {"requests": {"storage": size}}}
    if sc is not None:
        spec["storageClassName"] = sc
    if volume:
        spec["volumeName"] = volume
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"}, "spec": spec}


def _cluster(classes: list[dict], pvs: list[dict]) -> Cluster:
    cluster = Cluster()
    for sc in classes:
        cluster.storage_classes[sc["metadata"]["name"]] = decode_storage_class(sc, None)
    for pv in pvs:
        cluster.pvs[pv["metadata"]["name"]] = decode_pv(pv, None)
    return cluster


NO_PROVISIONER = "kubernetes.io/no-provisioner"


@pytest.mark.parametrize("classes, pvs, claims, bound", [
    pytest.param([_class("manual", NO_PROVISIONER)], [_pv("big", "5Gi"), _pv("small", "2Gi"), _pv("tiny", "512Mi")],
                 [_pvc("data")], {"data": "small"},
                 id="the smallest Available PV of the class with room (2Gi over 5Gi; 512Mi is too small)"),
    pytest.param([_class("manual", NO_PROVISIONER)], [_pv("rwx", "2Gi", modes=("ReadWriteMany",))],
                 [_pvc("data")], {"data": None},
                 id="a PV that lacks an access mode the claim asks for is no match; nothing provisions"),
    pytest.param([_class("manual", NO_PROVISIONER)], [_pv("released", "2Gi", phase="Released")],
                 [_pvc("data")], {"data": None}, id="a Released PV is not Available"),
    pytest.param([_class("manual", NO_PROVISIONER)], [_pv("one", "2Gi")], [_pvc("a"), _pvc("b")],
                 {"a": "one", "b": None}, id="a volume goes to the first claim created; the second waits"),
    pytest.param([_class("manual", NO_PROVISIONER)], [_pv("big", "5Gi"), _pv("mine", "8Gi", claim="data")],
                 [_pvc("data")], {"data": "mine"}, id="a PV pre-bound to the claim wins over a smaller one"),
    pytest.param([_class("manual", NO_PROVISIONER)], [_pv("named", "2Gi"), _pv("other", "1Gi")],
                 [_pvc("data", volume="named")], {"data": "named"}, id="the volume the claim names"),
    pytest.param([_class("manual", NO_PROVISIONER)], [_pv("other", "1Gi")],
                 [_pvc("data", volume="missing")], {"data": None},
                 id="a named volume that does not exist: no other is taken"),
    pytest.param([_class("nfs", "nfs.csi.k8s.io")], [], [_pvc("data", sc="nfs")], {"data": "pvc-uid-data"},
                 id="nothing matches: the class's provisioner creates pvc-<uid>"),
    pytest.param([_class("nfs", "nfs.csi.k8s.io", default=True)], [], [_pvc("data", sc=None)],
                 {"data": "pvc-uid-data"}, id="a claim without a class gets the default one, which provisions"),
    pytest.param([_class("nfs", "nfs.csi.k8s.io")], [], [_pvc("data", sc="")], {"data": None},
                 id="class \"\" (no class) never provisions"),
    pytest.param([], [], [_pvc("data", sc="absent")], {"data": None}, id="a class that does not exist provisions nothing"),
    pytest.param([_class("wait", "ebs.csi.aws.com", mode="WaitForFirstConsumer")], [_pv("w", "2Gi", sc="wait")],
                 [_pvc("data", sc="wait")], {"data": None},
                 id="WaitForFirstConsumer: left to the scheduler's VolumeBinding, even with a match"),
])
def test_the_pv_controller_binds_new_immediate_claims(classes: list[dict], pvs: list[dict], claims: list[dict],
                                                       bound: dict[str, str | None]) -> None:
    cluster = _cluster(classes, pvs)
    add_claims(cluster, [decode_pvc(c, None) for c in claims])
    claims_now = {name: cluster.pvcs[("default", name)] for name in bound}
    got = {name: c.volume_name if c.phase == "Bound" else None for name, c in claims_now.items()}
    assert got == bound
    for name, volume in bound.items():
        if volume is None:
            continue
        claim, pv = cluster.pvcs[("default", name)], cluster.pvs[volume]
        assert (claim.phase, pv.phase, pv.claim_ref.namespace, pv.claim_ref.name) == ("Bound", "Bound", "default", name)
        assert claim.annotations["pv.kubernetes.io/bind-completed"] == "yes"


def test_a_provisioned_volume_is_sized_as_asked_and_kept_to_the_allowed_topologies() -> None:
    # allowedTopologies: one term, zone In [a, b] -> the volume's node affinity, as kwhatif cannot
    # know which zone the driver picks (docs/fidelity.md).
    zones = [{"matchLabelExpressions": [{"key": "topology.kubernetes.io/zone", "values": ["a", "b"]}]}]
    cluster = _cluster([_class("zonal", "pd.csi.storage.gke.io", topologies=zones)], [])
    add_claims(cluster, [decode_pvc(_pvc("data", size="10Gi", sc="zonal"), None)])
    pv = cluster.pvs["pvc-uid-data"]
    assert (pv.capacity, pv.storage_class_name, pv.access_modes, pv.csi_driver) == (
        10 * 2**30, "zonal", ("ReadWriteOnce",), "pd.csi.storage.gke.io")
    assert pv.annotations["pv.kubernetes.io/provisioned-by"] == "pd.csi.storage.gke.io"
    assert [pv.node_affinity.matches({"topology.kubernetes.io/zone": z}, "") for z in ("a", "b", "c")] == [True, True, False]


def test_a_claim_the_cluster_has_is_left_as_it_is() -> None:
    # The controller that makes claims leaves one of that name: the snapshot's unbound claim
    # stays unbound (that is the cluster's state), even though a volume would now match.
    cluster = _cluster([_class("manual", NO_PROVISIONER)], [_pv("free", "2Gi")])
    cluster.pvcs[("default", "data")] = decode_pvc(_pvc("data"), None)
    add_claims(cluster, [decode_pvc(_pvc("data"), None)])
    assert cluster.pvcs[("default", "data")].volume_name == ""


NODE = ("apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {kubernetes.io/hostname: n1}}\n"
        "status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}\n")


def _workloads(claim_class: str) -> list[dict]:
    """A Deployment with its own PVC and a StatefulSet with a volumeClaimTemplate, on `claim_class`."""
    claim = _pvc("shared", sc=claim_class, modes=("ReadWriteMany",))
    template = {"metadata": {"labels": {"app": "db"}},
                "spec": {"containers": [{"name": "c", "image": "pg", "resources": {"requests": {"cpu": "100m"}}}]}}
    web = {"metadata": {"labels": {"app": "web"}},
           "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "100m"}}}],
                    "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "shared"}}]}}
    return [claim,
            {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
             "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}}, "template": web}},
            {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": "default"},
             "spec": {"replicas": 2, "serviceName": "db", "selector": {"matchLabels": {"app": "db"}}, "template": template,
                      "volumeClaimTemplates": [{"metadata": {"name": "pgdata"}, "spec": {
                          "storageClassName": claim_class, "accessModes": ["ReadWriteOnce"],
                          "resources": {"requests": {"storage": "1Gi"}}}}]}}]


@pytest.mark.parametrize("provisioner, code, bound", [
    pytest.param("driver.longhorn.io", 0, {"web": 2, "db": 2},
                 id="an Immediate class that provisions: every claim is bound before the pods schedule"),
    pytest.param(NO_PROVISIONER, 1, {"web": 0, "db": 0},
                 id="an Immediate class without provisioner nor volumes: the claims stay unbound, the pods pending"),
])
def test_check_binds_the_claims_its_workloads_bring(tmp_path: Path, provisioner: str, code: int,
                                                     bound: dict[str, int]) -> None:
    (tmp_path / "cluster.yaml").write_text(NODE + "---\n" + json.dumps(_class("std", provisioner)))
    (tmp_path / "app.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": _workloads("std")}))
    result = invoke(["check", str(tmp_path / "app.json"), "-c", str(tmp_path / "cluster.yaml"), "--now", NOW, "-q",
                     "-o", "json"])
    assert result.exit_code == code, result.stdout
    report = json.loads(result.stdout)
    assert {w["name"]: w["bound"] for w in report["workloads"]} == bound
