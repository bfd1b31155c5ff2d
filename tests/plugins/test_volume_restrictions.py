"""VolumeRestrictions: in-tree disk conflicts and ReadWriteOncePod claims in use (reference §5.7).
Disk cases follow kubernetes `volumerestrictions/volume_restrictions_test.go`
(TestGCEDiskConflicts, TestAWSDiskConflicts, TestRBDDiskConflicts, TestISCSIDiskConflicts,
TestAccessModeConflicts); the read-only and AddPod/RemovePod cases are worked from the rules in
§5.7 (a conflict needs the same disk, and is waived only when both mounts are read-only — never
for EBS).
"""

from __future__ import annotations

import pytest

from kwhatif.api.storage import PersistentVolumeClaim
from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.status import Code
from kwhatif.plugins.volume_restrictions import VolumeRestrictions
from kwhatif.api.cluster import Cluster
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot
from tests.builders import Handle, make_node, make_pod
from tests.plugins.harness import filter_outcomes

DISK = "node(s) had no available disk"
RWOP = "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod"
U = Code.UNSCHEDULABLE


def gce(pd: str, ro: bool = False) -> dict:
    return {"name": f"gce-{pd}", "gcePersistentDisk": {"pdName": pd, "readOnly": ro}}


def ebs(vid: str, ro: bool = False) -> dict:
    return {"name": f"ebs-{vid}", "awsElasticBlockStore": {"volumeID": vid, "readOnly": ro}}


def rbd(monitors: list[str], pool: str = "foo", image: str = "bar", ro: bool = False) -> dict:
    return {"name": "rbd", "rbd": {"monitors": monitors, "pool": pool, "image": image, "readOnly": ro}}


def iscsi(iqn: str, ro: bool = False) -> dict:
    return {"name": f"iscsi-{iqn}", "iscsi": {"iqn": iqn, "targetPortal": "10.0.0.1:3260", "lun": 0, "readOnly": ro}}


def claim(name: str) -> dict:
    return {"name": f"v-{name}", "persistentVolumeClaim": {"claimName": name}}


def pod(name: str, *volumes: dict, node: str = "", ns: str = "default"):
    return make_pod(name, ns=ns, volumes=tuple(volumes), node_name=node)


def pvc(name: str, *modes: str) -> PersistentVolumeClaim:
    return PersistentVolumeClaim("default", name, access_modes=modes or ("ReadWriteOnce",), volume_name=f"pv-{name}")


def setup(bound=(), pvcs=()) -> tuple[VolumeRestrictions, Snapshot]:
    cluster = Cluster(nodes=[make_node("n1"), make_node("n2")], pods=list(bound),
                      pvcs={(c.namespace, c.name): c for c in pvcs})
    snapshot = Snapshot.build(cluster, list(bound))
    return VolumeRestrictions(None, Handle(snapshot)), snapshot


def outcome(plugin: VolumeRestrictions, snapshot: Snapshot, p, state: CycleState | None = None):
    """"skip", (code, message) for a PreFilter rejection, or {node: (code, reason) | None}."""
    return filter_outcomes(plugin, snapshot, p, state)


DISK_CASES = [
    pytest.param((), pod("new"), "skip", id="a pod without volumes skips the plugin"),
    pytest.param((pod("old", gce("foo"), node="n1"),), pod("new"), "skip",
                 id="a pod without disks is not checked against disks on the node"),
    pytest.param((pod("old", gce("foo"), node="n1"),), pod("new", gce("foo")), {"n1": (U, DISK), "n2": None},
                 id="the same GCE PD on the node conflicts"),
    pytest.param((pod("old", gce("foo"), node="n1"),), pod("new", gce("bar")), {"n1": None, "n2": None},
                 id="a different GCE PD does not conflict"),
    pytest.param((pod("old", gce("foo", ro=True), node="n1"),), pod("new", gce("foo", ro=True)),
                 {"n1": None, "n2": None},
                 id="the same GCE PD mounted read-only by both pods does not conflict"),
    pytest.param((pod("old", gce("foo", ro=True), node="n1"),), pod("new", gce("foo")), {"n1": (U, DISK), "n2": None},
                 id="the same GCE PD read-write by one pod conflicts"),
    pytest.param((pod("old", ebs("foo", ro=True), node="n1"),), pod("new", ebs("foo", ro=True)),
                 {"n1": (U, DISK), "n2": None},
                 id="the same EBS volume conflicts even read-only"),
    pytest.param((pod("old", ebs("foo"), node="n1"),), pod("new", ebs("bar")), {"n1": None, "n2": None},
                 id="a different EBS volume does not conflict"),
    pytest.param((pod("old", rbd(["a", "b"]), node="n2"),), pod("new", rbd(["b", "c"])), {"n1": None, "n2": (U, DISK)},
                 id="RBD images sharing a monitor, pool and image conflict"),
    pytest.param((pod("old", rbd(["a", "b"]), node="n2"),), pod("new", rbd(["c", "d"])), {"n1": None, "n2": None},
                 id="RBD images without a common monitor do not conflict"),
    pytest.param((pod("old", rbd(["a"], pool="p1"), node="n2"),), pod("new", rbd(["a"], pool="p2")),
                 {"n1": None, "n2": None},
                 id="RBD images in different pools do not conflict"),
    pytest.param((pod("old", rbd(["a"], ro=True), node="n2"),), pod("new", rbd(["a"], ro=True)),
                 {"n1": None, "n2": None},
                 id="an RBD image read-only for both pods does not conflict"),
    pytest.param((pod("old", iscsi("iqn.2016-12.server:storage.target01"), node="n1"),),
                 pod("new", iscsi("iqn.2016-12.server:storage.target01")), {"n1": (U, DISK), "n2": None},
                 id="the same iSCSI IQN conflicts"),
    pytest.param((pod("old", iscsi("iqn.a", ro=True), node="n1"),), pod("new", iscsi("iqn.a", ro=True)),
                 {"n1": None, "n2": None},
                 id="the same iSCSI IQN read-only for both pods does not conflict"),
    pytest.param((pod("old", gce("foo"), node="n1"),), pod("new", ebs("foo")), {"n1": None, "n2": None},
                 id="disks of different kinds never conflict"),
]


@pytest.mark.parametrize("bound, p, expected", DISK_CASES)
def test_disk_conflicts(bound, p, expected) -> None:
    plugin, snapshot = setup(bound)
    assert outcome(plugin, snapshot, p) == expected


RWOP_CASES = [
    pytest.param((), (pvc("data"),), pod("new", claim("data")), "skip",
                 id="a ReadWriteOnce claim needs no check"),
    pytest.param((), (), pod("new", claim("data")), (Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                                      'persistentvolumeclaim "data" not found'),
                 id="a missing claim is rejected with the NotFound text"),
    pytest.param((), (pvc("data", "ReadWriteOncePod"),), pod("new", claim("data")), "skip",
                 id="a ReadWriteOncePod claim nobody uses needs no check"),
    pytest.param((pod("holder", claim("data"), node="n2"),), (pvc("data", "ReadWriteOncePod"),),
                 pod("new", claim("data")), {"n1": (U, RWOP), "n2": (U, RWOP)},
                 id="a ReadWriteOncePod claim in use rejects the pod on every node"),
    pytest.param((pod("holder", claim("data"), node="n2", ns="other"),), (pvc("data", "ReadWriteOncePod"),),
                 pod("new", claim("data")), "skip",
                 id="a claim of the same name in another namespace is another claim"),
    pytest.param((pod("holder", claim("data"), node="n2"),), (pvc("data", "ReadWriteMany"),),
                 pod("new", claim("data")), "skip",
                 id="a ReadWriteMany claim in use is shared"),
]


@pytest.mark.parametrize("bound, pvcs, p, expected", RWOP_CASES)
def test_read_write_once_pod(bound, pvcs, p, expected) -> None:
    plugin, snapshot = setup(bound, pvcs)
    assert outcome(plugin, snapshot, p) == expected


def test_removing_the_holder_lifts_the_read_write_once_pod_conflict() -> None:
    # preemption's dry run: RemovePod(holder) brings the count from 1 to 0
    holder = pod("holder", claim("data"), node="n2")
    plugin, snapshot = setup((holder,), (pvc("data", "ReadWriteOncePod"),))
    state, info = CycleState(), PodInfo.of(pod("new", claim("data")))
    plugin.pre_filter(state, info, snapshot.node_infos)
    node = snapshot.by_name["n2"].clone()
    victim = node.remove_pod("default/holder")
    assert plugin.remove_pod(state, info, victim, node) is None
    assert plugin.filter(state, info, node) is None


def test_a_nominated_pod_holding_the_claim_is_counted_by_add_pod() -> None:
    # a disk check keeps the state written although nobody uses the claim yet (count 0);
    # AddPod of a nominated pod using the claim makes it 1
    plugin, snapshot = setup((), (pvc("data", "ReadWriteOncePod"),))
    state, info = CycleState(), PodInfo.of(pod("new", claim("data"), gce("foo")))
    plugin.pre_filter(state, info, snapshot.node_infos)
    node = snapshot.by_name["n1"]
    assert plugin.filter(state, info, node) is None
    with_nominated = state.clone()
    plugin.add_pod(with_nominated, info, PodInfo.of(pod("nominated", claim("data"))), node)
    assert plugin.filter(with_nominated, info, node).reasons == (RWOP,)
    assert plugin.filter(state, info, node) is None  # the clone did not touch the original state


def test_a_disk_conflict_is_reported_before_a_read_write_once_pod_conflict() -> None:
    bound = (pod("holder", claim("data"), gce("foo"), node="n1"),)
    plugin, snapshot = setup(bound, (pvc("data", "ReadWriteOncePod"),))
    assert outcome(plugin, snapshot, pod("new", claim("data"), gce("foo"))) == {"n1": (U, DISK), "n2": (U, RWOP)}


def test_node_pvc_ref_counts_follow_pods_added_and_removed() -> None:
    # §4.4 PVCRefCounts: namespace/claim -> number of pods on the node using it
    _, snapshot = setup((pod("a", claim("data"), node="n1"), pod("b", claim("data"), node="n1")))
    node = snapshot.by_name["n1"]
    assert node.pvc_ref_counts == {"default/data": 2}
    copy = node.clone()
    copy.remove_pod("default/a")
    copy.remove_pod("default/b")
    assert copy.pvc_ref_counts == {} and node.pvc_ref_counts == {"default/data": 2}


def test_the_explanation_names_the_pod_holding_a_read_write_once_pod_claim() -> None:
    """The pod to delete (or move) is the one to name: holder uses `data` on n2 — said on every
    node the claim rejects (it said "already in use by another pod")."""
    plugin, snapshot = setup((pod("holder", claim("data"), node="n2"),), (pvc("data", "ReadWriteOncePod"),))
    state = CycleState(explain=True)
    incoming = PodInfo.of(pod("new", claim("data")))
    plugin.pre_filter(state, incoming, snapshot.node_infos)
    for node in ("n1", "n2"):
        assert plugin.explain_node(state, incoming, snapshot.by_name[node]) == [
            "ReadWriteOncePod claim(s) data already in use by default/holder on n2 (at most one pod may use such a "
            "claim: the other has to go first)"]
