"""VolumeZone: zone/region labels of bound PVs against the node (reference §5.10). Cases follow
kubernetes `volumezone/volume_zone_test.go` (TestSingleZone, TestMultiZone, TestWithBinding);
expected values are written beside each case.
"""

from __future__ import annotations

import pytest

from kwhatif.api.storage import PersistentVolume, PersistentVolumeClaim, StorageClass
from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.status import Code
from kwhatif.plugins.volume_zone import VolumeZone, label_zones_to_set
from kwhatif.api.cluster import Cluster
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot
from tests.builders import Handle, make_node, make_pod

BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
CONFLICT = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) had no available volume zone")
FIT = None
SKIP = "skip"


PVS = {
    "vol-1": {BETA_ZONE: "us-west1-a"},
    "vol-2": {BETA_REGION: "us-west1", "uselessLabel": "none"},
    "vol-stable-1": {ZONE: "us-west1-a"},
    "vol-stable-2": {REGION: "us-west1", "uselessLabel": "none"},
    "vol-multi": {BETA_ZONE: "us-west1-b__us-west1-c"},
    "vol-bad": {ZONE: "us-west1-a__"},
    "vol-none": {"uselessLabel": "none"},
}
CLASSES = (StorageClass("wait", "csi.example.com", "WaitForFirstConsumer"),
           StorageClass("now", "csi.example.com", "Immediate"))


def claim(name: str, volume: str = "", cls: str | None = None) -> PersistentVolumeClaim:
    return PersistentVolumeClaim("default", name, volume_name=volume, storage_class_name=cls)


CLAIMS = [claim(f"pvc-{v}", v) for v in PVS] + [
    claim("pvc-gone", "vol-gone"), claim("pvc-wait", cls="wait"), claim("pvc-now", cls="now"),
    claim("pvc-no-class"), claim("pvc-unknown-class", cls="nope"),
]


def pod(*claims: str):
    volumes = tuple({"name": f"v{i}", "persistentVolumeClaim": {"claimName": c}} for i, c in enumerate(claims))
    return make_pod("p", volumes=volumes)


def run(p, node_labels: dict[str, str]):
    cluster = Cluster(nodes=[make_node("n", labels=node_labels)], pvcs={(c.namespace, c.name): c for c in CLAIMS},
                      pvs={n: PersistentVolume(n, labels=labels) for n, labels in PVS.items()},
                      storage_classes={c.name: c for c in CLASSES})
    snapshot = Snapshot.build(cluster, [])
    plugin = VolumeZone(None, Handle(snapshot))
    state, info = CycleState(), PodInfo.of(p)
    _, status = plugin.pre_filter(state, info, snapshot.node_infos)
    if status is not None:
        return SKIP if status.code == Code.SKIP else (status.code, status.message)
    s = plugin.filter(state, info, snapshot.node_infos[0])
    return None if s is None else (s.code, s.message)


CASES = [
    pytest.param(pod(), {BETA_ZONE: "us-west1-a"}, SKIP, id="a pod without claims skips the plugin"),
    pytest.param(pod("pvc-vol-1"), {}, FIT, id="a node without topology labels accepts any volume"),
    pytest.param(pod("pvc-vol-1"), {BETA_ZONE: "us-west1-a", "uselessLabel": "none"}, FIT,
                 id="the beta zone label matches"),
    pytest.param(pod("pvc-vol-1"), {BETA_ZONE: "no_us-west1-a"}, CONFLICT,
                 id="a different beta zone conflicts"),
    pytest.param(pod("pvc-vol-2"), {BETA_REGION: "us-west1"}, FIT, id="the beta region label matches"),
    pytest.param(pod("pvc-vol-2"), {BETA_REGION: "no_us-west1"}, CONFLICT, id="a different beta region conflicts"),
    pytest.param(pod("pvc-vol-stable-1"), {ZONE: "us-west1-a"}, FIT, id="the GA zone label matches"),
    pytest.param(pod("pvc-vol-stable-1"), {ZONE: "no_us-west1-a"}, CONFLICT, id="a different GA zone conflicts"),
    pytest.param(pod("pvc-vol-stable-2"), {REGION: "us-west1"}, FIT, id="the GA region label matches"),
    pytest.param(pod("pvc-vol-1"), {ZONE: "us-west1-a"}, FIT,
                 id="a PV's beta zone label is matched by the node's GA zone label"),
    pytest.param(pod("pvc-vol-stable-1"), {BETA_ZONE: "us-west1-a"}, CONFLICT,
                 id="a PV's GA zone label is not matched by a beta label on the node"),
    pytest.param(pod("pvc-vol-1"), {REGION: "us-west1"}, CONFLICT,
                 id="a node with a region but no zone label misses the PV's zone"),
    pytest.param(pod("pvc-vol-multi"), {BETA_ZONE: "us-west1-c"}, FIT,
                 id="a multi-zone PV accepts any of its zones"),
    pytest.param(pod("pvc-vol-multi"), {BETA_ZONE: "us-west1-a"}, CONFLICT,
                 id="a multi-zone PV refuses other zones"),
    pytest.param(pod("pvc-vol-bad"), {ZONE: "elsewhere"}, SKIP,
                 id="a malformed zone list is ignored"),
    pytest.param(pod("pvc-vol-none"), {ZONE: "us-west1-a"}, SKIP, id="a PV without topology labels skips"),
    pytest.param(pod("pvc-vol-1", "pvc-vol-stable-2"), {BETA_ZONE: "us-west1-a", REGION: "elsewhere"}, CONFLICT,
                 id="every PV must match"),
    pytest.param(pod("pvc-wait"), {ZONE: "x"}, SKIP, id="an unbound WaitForFirstConsumer claim is skipped"),
    pytest.param(pod("pvc-now"), {ZONE: "x"}, (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "PersistentVolume had no name"),
                 id="an unbound immediate claim has no PV yet"),
    pytest.param(pod("pvc-no-class"), {ZONE: "x"},
                 (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "PersistentVolumeClaim had no pv name and storageClass name"),
                 id="an unbound claim without class"),
    pytest.param(pod("pvc-unknown-class"), {ZONE: "x"},
                 (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, 'storageclass.storage.k8s.io "nope" not found'),
                 id="an unbound claim whose class does not exist"),
    pytest.param(pod("pvc-gone"), {ZONE: "x"},
                 (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, 'persistentvolume "vol-gone" not found'),
                 id="a claim bound to a missing PV"),
    pytest.param(pod("missing"), {ZONE: "x"},
                 (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, 'persistentvolumeclaim "missing" not found'),
                 id="a missing claim"),
    pytest.param(pod(""), {ZONE: "x"}, (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "PersistentVolumeClaim had no name"),
                 id="a claim volume without claimName"),
]


@pytest.mark.parametrize("p, node_labels, expected", CASES)
def test_volume_zone(p, node_labels, expected) -> None:
    assert run(p, node_labels) == expected


@pytest.mark.parametrize("text, expected", [
    ("us-west1-a", {"us-west1-a"}),
    ("us-west1-a__us-west1-b", {"us-west1-a", "us-west1-b"}),
    (" us-west1-a __ us-west1-b ", {"us-west1-a", "us-west1-b"}),
    ("us-west1-a____us-west1-b", None),
    ("", None),
])
def test_label_zones_to_set(text, expected) -> None:
    got = label_zones_to_set(text)
    assert (set(got) if got is not None else None) == expected
