"""NodeVolumeLimits: CSI attach limits from CSINode (reference §5.8). Scenarios follow kubernetes
`nodevolumelimits/csi_test.go` (TestCSILimits: shared volumes counted once, unbound claims
counted through their StorageClass, in-tree volumes counted once migrated, nodes without limits
pass); the counts are worked out by hand beside each case as `attached + new > limit`.

Node n1 has a CSINode allowing 2 `ebs.csi.aws.com` volumes and already runs pods using
vol-1 and vol-2 (unless a case says otherwise); n2 has no CSINode; n3 has a CSINode without
allocatable counts.
"""

from __future__ import annotations

import pytest

from kwhatif.api.storage import (
    CSINode, CSINodeDriver, PersistentVolume, PersistentVolumeClaim, StorageClass, VolumeAttachment,
)
from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.status import Code
from kwhatif.plugins.node_volume_limits import NodeVolumeLimits, inline_handle
from kwhatif.plugins.volume_binding.translation import ebs_volume_id, pv_handle
from kwhatif.plugins.volume_binding.storage import InlineDisk
from kwhatif.api.cluster import Cluster
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot
from tests.builders import Handle, make_node, make_pod
from tests.plugins.harness import filter_outcomes

EBS = "ebs.csi.aws.com"
EXCEED = (Code.UNSCHEDULABLE, "node(s) exceed max volume count")
FITS = {"n1": None, "n2": None, "n3": None}
N1_EXCEEDS = {"n1": EXCEED, "n2": None, "n3": None}


def csi_pv(name: str, driver: str = EBS) -> PersistentVolume:
    return PersistentVolume(name, volume_source="csi", csi_driver=driver, volume_id=name)


def claim(name: str, volume: str = "", cls: str | None = "gp3") -> PersistentVolumeClaim:
    return PersistentVolumeClaim("default", name, storage_class_name=cls, volume_name=volume,
                                 annotations={"pv.kubernetes.io/bind-completed": "yes"} if volume else {})


PVS = [csi_pv(f"vol-{i}") for i in range(1, 5)] + [
    csi_pv("other-1", driver="other.csi.example.com"),
    PersistentVolume("intree-1", volume_source="awsElasticBlockStore", volume_id="aws://us-east-1a/vol-9"),
    PersistentVolume("local-1", volume_source="local"),
]
CLAIMS = [claim(f"c{i}", f"vol-{i}") for i in range(1, 5)] + [
    claim("other", "other-1"), claim("intree", "intree-1"), claim("local", "local-1"),
    claim("pending"), claim("pending-intree", cls="gp2-intree"), claim("dangling", "vol-gone"),
    claim("no-class", cls=None),
]
CLASSES = [StorageClass("gp3", EBS, "WaitForFirstConsumer"),
           StorageClass("gp2-intree", "kubernetes.io/aws-ebs", "WaitForFirstConsumer")]


def claims(*names: str) -> list[dict]:
    return [{"name": f"v-{n}", "persistentVolumeClaim": {"claimName": n}} for n in names]


def inline_ebs(volume_id: str) -> dict:
    return {"name": f"ebs-{volume_id}", "awsElasticBlockStore": {"volumeID": volume_id}}


def pod(name: str, *volumes: dict, node: str = ""):
    return make_pod(name, volumes=tuple(volumes) + ({"name": "token", "projected": {"sources": []}},),
                    node_name=node)


RUNNING = (pod("r1", *claims("c1"), node="n1"), pod("r2", *claims("c2"), node="n1"))


def run(p, running=RUNNING, attachments: tuple[VolumeAttachment, ...] = ()):
    cluster = Cluster(
        volume_attachments={a.name: a for a in attachments},
        nodes=[make_node("n1"), make_node("n2"), make_node("n3")], pods=list(running),
        pvcs={(c.namespace, c.name): c for c in CLAIMS}, pvs={v.name: v for v in PVS},
        storage_classes={c.name: c for c in CLASSES},
        csi_nodes={"n1": CSINode("n1", (CSINodeDriver(EBS, 2),)), "n3": CSINode("n3", (CSINodeDriver(EBS),))},
    )
    snapshot = Snapshot.build(cluster, list(running))
    return filter_outcomes(NodeVolumeLimits(None, Handle(snapshot)), snapshot, p)


CASES = [
    pytest.param(pod("p"), RUNNING, "skip", id="a pod without claims or migratable volumes skips the plugin"),
    pytest.param(pod("p", *claims("c3")), RUNNING, N1_EXCEEDS,
                 id="a third volume exceeds a limit of 2 (2 + 1 > 2)"),
    pytest.param(pod("p", *claims("c3")), RUNNING[:1], FITS, id="a second volume fits (1 + 1 = 2)"),
    pytest.param(pod("p", *claims("c1")), RUNNING, FITS,
                 id="a volume already attached to the node is not counted again (2 + 0)"),
    pytest.param(pod("p", *claims("c1", "c3")), RUNNING[:1], FITS,
                 id="only the volumes new to the node count (1 + 1 = 2)"),
    pytest.param(pod("p", *claims("c3", "c4")), RUNNING[:1], N1_EXCEEDS, id="two new volumes exceed (1 + 2 > 2)"),
    pytest.param(pod("p", *claims("c3", "c3")), RUNNING[:1], FITS,
                 id="a claim mounted twice by the pod is one volume (1 + 1 = 2)"),
    pytest.param(pod("p", *claims("other")), RUNNING, FITS, id="a driver without a limit on the node is not limited"),
    pytest.param(pod("p", *claims("local")), RUNNING, FITS, id="a non-CSI, non-migratable PV is not counted"),
    pytest.param(pod("p", *claims("pending")), RUNNING, N1_EXCEEDS,
                 id="an unbound claim counts against its class's provisioner (2 + 1 > 2)"),
    pytest.param(pod("p", *claims("pending-intree")), RUNNING, N1_EXCEEDS,
                 id="an in-tree provisioner is translated to its CSI driver (2 + 1 > 2)"),
    pytest.param(pod("p", *claims("dangling")), RUNNING, N1_EXCEEDS,
                 id="a claim whose PV is missing counts through its class (2 + 1 > 2)"),
    pytest.param(pod("p", *claims("no-class")), RUNNING, FITS,
                 id="an unbound claim without class is not counted"),
    pytest.param(pod("p", *claims("intree")), RUNNING, N1_EXCEEDS,
                 id="an in-tree EBS PV counts as ebs.csi.aws.com once migrated (2 + 1 > 2)"),
    pytest.param(pod("p", inline_ebs("vol-3")), RUNNING, N1_EXCEEDS,
                 id="an inline EBS volume counts on a node with a CSINode (2 + 1 > 2)"),
    pytest.param(pod("p", inline_ebs("aws://us-east-1a/vol-1")), RUNNING, FITS,
                 id="an inline EBS volume id in URL form is the same volume as vol-1 (2 + 0)"),
    pytest.param(pod("p", *claims("c3")), (pod("r1", *claims("c1"), node="n1"), pod("r9", *claims("gone"), node="n1")),
                 FITS, id="an existing pod's missing claim is not counted (1 + 1 = 2)"),
    pytest.param(pod("p", *claims("gone")), RUNNING,
                 {n: (Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                      'looking up PVC default/gone: persistentvolumeclaim "gone" not found') for n in ("n1", "n2", "n3")},
                 id="the new pod's missing claim is unresolvable"),
]


@pytest.mark.parametrize("p, running, expected", CASES)
def test_csi_limits(p, running, expected) -> None:
    assert run(p, running) == expected


@pytest.mark.parametrize("kubernetes_id, expected", [
    ("vol-0123", "vol-0123"),
    ("aws://us-east-1a/vol-0123", "vol-0123"),
    ("aws:///vol-0123", "vol-0123"),
])
def test_ebs_volume_ids_lose_their_url_form(kubernetes_id, expected) -> None:
    assert ebs_volume_id(kubernetes_id) == expected


def test_gce_pd_handles_follow_csi_translation() -> None:
    # inline: zone unknown; PV: zone from its label, a region for a multi-zone label
    assert inline_handle(InlineDisk("gcePersistentDisk", "disk-1")) == "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/disk-1"
    zonal = PersistentVolume("p", labels={"topology.kubernetes.io/zone": "us-central1-a"},
                             volume_source="gcePersistentDisk", volume_id="disk-1")
    assert pv_handle(zonal) == "projects/UNSPECIFIED/zones/us-central1-a/disks/disk-1"
    regional = PersistentVolume("p", labels={"topology.kubernetes.io/zone": "us-central1-a__us-central1-b"},
                                volume_source="gcePersistentDisk", volume_id="disk-1")
    assert pv_handle(regional) == "projects/UNSPECIFIED/regions/us-central1/disks/disk-1"


def attachment(pv: str | None, node: str = "n1", attacher: str = EBS) -> VolumeAttachment:
    return VolumeAttachment(f"va-{pv}-{node}-{attacher}", attacher, node, pv)


# csi.go:getNodeVolumeAttachmentInfo. n1 has the limit 2 for ebs.csi.aws.com; r1 uses vol-1 there.
ATTACHMENT_CASES = [
    pytest.param(pod("p", *claims("c4")), (attachment("vol-3"),), N1_EXCEEDS,
                 id="a volume attached by a VolumeAttachment counts (vol-1 by r1 + vol-3 attached = 2, +1 > 2)"),
    pytest.param(pod("p", *claims("c3")), (attachment("vol-1"),), FITS,
                 id="an attachment of a volume a pod already uses counts once (1 + 1 = 2)"),
    pytest.param(pod("p", *claims("c3")), (attachment("vol-3"),), N1_EXCEEDS,
                 id="an attached volume the new pod uses is still new: only pods' volumes are deduplicated (2 + 1 > 2)"),
    pytest.param(pod("p", *claims("c4")), (attachment("vol-3", node="n2"),), FITS,
                 id="an attachment to another node does not count on n1 (1 + 1 = 2)"),
    pytest.param(pod("p", *claims("c4")), (attachment("intree-1"),), FITS,
                 id="an attachment of a PV that is not CSI is skipped (1 + 1 = 2)"),
    pytest.param(pod("p", *claims("c4")), (attachment("vol-gone"),), FITS,
                 id="an attachment of a missing PV is skipped (1 + 1 = 2)"),
    pytest.param(pod("p", *claims("c4")), (attachment(None),), FITS,
                 id="an attachment of an inline volume spec (no PV name) is skipped (1 + 1 = 2)"),
    pytest.param(pod("p", *claims("c4")), (attachment("vol-3", attacher=""),), FITS,
                 id="an attachment without attacher is skipped (1 + 1 = 2)"),
    pytest.param(pod("p", *claims("c4")), (attachment("other-1", attacher="other.csi.example.com"),), FITS,
                 id="an attachment of another driver counts for that driver only (1 + 1 = 2)"),
    pytest.param(pod("p", *claims("c4")), (attachment("vol-3"), attachment("vol-3", attacher="x")), N1_EXCEEDS,
                 id="the attacher names the driver the attachment counts for (x/vol-3 is not limited)"),
]


@pytest.mark.parametrize("p, attachments, expected", ATTACHMENT_CASES)
def test_volume_attachments(p, attachments, expected) -> None:
    assert run(p, RUNNING[:1], attachments) == expected


def test_the_explanation_names_what_holds_the_slots_when_the_limit_is_reached() -> None:
    """n1 takes 2 ebs volumes: r1 uses vol-1, and a VolumeAttachment holds vol-3, which no pod
    there uses; c4 would be a third — the sentence names both holders (what to move or detach),
    and says nothing more where the limit is not reached (n3: no count, so no limit)."""
    running = RUNNING[:1]
    cluster = Cluster(
        volume_attachments={"va-3": VolumeAttachment("va-3", EBS, "n1", "vol-3")},
        nodes=[make_node("n1"), make_node("n2"), make_node("n3")], pods=list(running),
        pvcs={(c.namespace, c.name): c for c in CLAIMS}, pvs={v.name: v for v in PVS},
        storage_classes={c.name: c for c in CLASSES},
        csi_nodes={"n1": CSINode("n1", (CSINodeDriver(EBS, 2),)), "n3": CSINode("n3", (CSINodeDriver(EBS),))})
    snapshot = Snapshot.build(cluster, list(running))
    plugin = NodeVolumeLimits(None, Handle(snapshot))
    state, incoming = CycleState(explain=True), PodInfo.of(pod("p", *claims("c4")))
    plugin.pre_filter(state, incoming, snapshot.node_infos)
    assert plugin.explain_node(state, incoming, snapshot.by_name["n1"]) == [
        "ebs.csi.aws.com: 2 attached + 1 new, limit 2 (held by pod default/r1, VolumeAttachment va-3)"]
