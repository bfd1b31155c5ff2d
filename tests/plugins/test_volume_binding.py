"""VolumeBinding: PreFilter claim checks, Filter (bound PV affinity, PV matching, provisioning),
Reserve (reference §5.1, §5.9, §1.3). Cases follow kubernetes `volumebinding/volume_binding_test.go`
(TestVolumeBinding) and `binder_test.go` (FindPodVolumes scenarios) and
`component-helpers/storage/volume` (FindMatchingVolume); expected values are written beside each
case from those tests or worked out by hand.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from kwhatif.api.affinity import NodeSelector, NodeSelectorTerm
from kwhatif.api.storage import (
    ClaimRef, PersistentVolume, PersistentVolumeClaim, StorageClass, TopologySelectorRequirement,
)
from kwhatif.api.quantity import parse_resource_quantity
from kwhatif.api.selectors import LabelSelector, Requirement
from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.status import Code
from kwhatif.plugins.volume_binding import VolumeBinding
from kwhatif.plugins.volume_binding.storage import (
    ANN_BIND_COMPLETED,
    ANN_SELECTED_NODE,
    storage_of,
)
from kwhatif.api.cluster import Cluster
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot
from tests.builders import Handle, make_node, make_pod

HOST = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
NODE_CONFLICT = "node(s) didn't match PersistentVolume's node affinity"
BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"
UU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
OK = None


# Builders --------------------------------------------------------------------------------------

def q(text: str) -> Fraction:
    return parse_resource_quantity(text)


def sc(name: str, mode: str = "WaitForFirstConsumer", provisioner: str = "csi.example.com",
       topologies: tuple = (), **kw: Any) -> StorageClass:
    return StorageClass(name, provisioner, mode, topologies, **kw)


def pvc(name: str, volume: str = "", cls: str | None = "wffc", size: str = "10Gi", bound: bool | None = None,
        modes: tuple[str, ...] = ("ReadWriteOnce",), ns: str = "default", annotations: dict | None = None,
        **kw: Any) -> PersistentVolumeClaim:
    ann = dict(annotations or {})
    if bound if bound is not None else bool(volume):
        ann[ANN_BIND_COMPLETED] = "yes"
    return PersistentVolumeClaim(ns, name, uid=f"uid-{name}", annotations=ann, access_modes=modes,
                                 storage_class_name=cls, volume_name=volume, requested_storage=q(size), **kw)


def host_affinity(*hosts: str, key: str = HOST) -> NodeSelector:
    return NodeSelector((NodeSelectorTerm((Requirement(key, "In", hosts),)),))


def pv(name: str, size: str = "10Gi", cls: str = "wffc", claim: str | None = None, phase: str = "Available",
       modes: tuple[str, ...] = ("ReadWriteOnce",), affinity: NodeSelector | None = None, **kw: Any
       ) -> PersistentVolume:
    ref = ClaimRef("default", claim, "") if claim else None
    return PersistentVolume(name, storage_class_name=cls, capacity=q(size), access_modes=modes, claim_ref=ref,
                            node_affinity=affinity, phase=phase, volume_source="local", **kw)


def pod(name: str = "p", claims: tuple[str, ...] = (), ephemeral: tuple[str, ...] = (), **kw: Any):
    volumes = [{"name": f"v-{c}", "persistentVolumeClaim": {"claimName": c}} for c in claims]
    volumes += [{"name": e, "ephemeral": {"volumeClaimTemplate": {"spec": {}}}} for e in ephemeral]
    volumes.append({"name": "kube-api-access", "projected": {"sources": []}})
    return make_pod(name, volumes=tuple(volumes), **kw)


NODES = (make_node("node-a", labels={HOST: "node-a", ZONE: "z1"}),
         make_node("node-b", labels={HOST: "node-b", ZONE: "z2"}))
CLASSES = (sc("wffc"), sc("immediate", mode="Immediate"), sc("static", provisioner="kubernetes.io/no-provisioner"))


def setup(pvcs=(), pvs=(), classes=CLASSES, nodes=NODES, bound=()) -> tuple[VolumeBinding, Snapshot]:
    cluster = Cluster(nodes=list(nodes), pods=list(bound), pvcs={(c.namespace, c.name): c for c in pvcs},
                      pvs={v.name: v for v in pvs}, storage_classes={c.name: c for c in classes})
    snapshot = Snapshot.build(cluster, list(bound))
    return VolumeBinding(None, Handle(snapshot)), snapshot


def run(plugin: VolumeBinding, snapshot: Snapshot, p, state: CycleState | None = None):
    """(PreFilter outcome, {node: (code, reasons) or None}); the PreFilter outcome is "skip",
    None (success) or (code, message)."""
    state = state or CycleState()
    info = PodInfo.of(p)
    _, status = plugin.pre_filter(state, info, snapshot.node_infos)
    if status is not None and status.code == Code.SKIP:
        return "skip", {}
    if status is not None:
        return (status.code, status.message), {}
    out = {}
    for node in snapshot.node_infos:
        s = plugin.filter(state, info, node)
        out[node.name] = None if s is None else (s.code, s.reasons)
    return None, out


# PreFilter -------------------------------------------------------------------------------------

PRE_FILTER_CASES = [
    pytest.param((), (), pod(), "skip",
                 id="a pod without claims skips the plugin"),
    pytest.param((), (), pod(claims=("data",)), (UU, 'persistentvolumeclaim "data" not found'),
                 id="a missing claim is rejected with the lister's NotFound text"),
    pytest.param((pvc("a", "pv-a"),), (pv("pv-a", claim="a", phase="Bound"),), pod(claims=("a", "b")),
                 (UU, 'persistentvolumeclaim "b" not found'),
                 id="the first missing claim in volume order is named"),
    pytest.param((), (), pod("runner", ephemeral=("cache",)),
                 (UU, 'waiting for ephemeral volume controller to create the persistentvolumeclaim "runner-cache"'),
                 id="a missing generic ephemeral claim is named pod-volume and is waited for"),
    pytest.param((pvc("runner-cache", "pv-x", controller_uid="someone-else"),), (pv("pv-x", claim="runner-cache"),),
                 pod("runner", ephemeral=("cache",), uid="uid-runner"),
                 (UU, "PVC default/runner-cache was not created for pod default/runner (pod is not owner)"),
                 id="an ephemeral claim controlled by another pod is refused"),
    pytest.param((pvc("a", "pv-gone", phase="Lost"),), (), pod(claims=("a",)),
                 (UU, 'persistentvolumeclaim "a" bound to non-existent persistentvolume "pv-gone"'),
                 id="a Lost claim names the PV it was bound to"),
    pytest.param((pvc("a", "pv-a", deletion_timestamp="2025-12-31T00:00:00Z"),), (pv("pv-a", claim="a"),),
                 pod(claims=("a",)), (UU, 'persistentvolumeclaim "a" is being deleted'),
                 id="a claim being deleted is refused"),
    pytest.param((pvc("a", cls="immediate"),), (), pod(claims=("a",)), (UU, UNBOUND_IMMEDIATE),
                 id="an unbound claim of an Immediate class must be bound first"),
    pytest.param((pvc("a", cls=""),), (), pod(claims=("a",)), (UU, UNBOUND_IMMEDIATE),
                 id="an unbound claim without class counts as immediate"),
    pytest.param((pvc("a", cls="nope"),), (), pod(claims=("a",)), (UU, UNBOUND_IMMEDIATE),
                 id="an unbound claim whose class does not exist counts as immediate"),
    pytest.param((pvc("a", "pv-a", bound=False),), (pv("pv-a", claim="a"),), pod(claims=("a",)),
                 (UU, UNBOUND_IMMEDIATE),
                 id="a claim pre-bound through volumeName but not bind-completed counts as immediate"),
    pytest.param((pvc("a"),), (), pod(claims=("a",)), None,
                 id="an unbound WaitForFirstConsumer claim is decided per node"),
]


@pytest.mark.parametrize("pvcs, pvs, p, expected", PRE_FILTER_CASES)
def test_pre_filter(pvcs, pvs, p, expected) -> None:
    plugin, snapshot = setup(pvcs, pvs)
    got, _ = run(plugin, snapshot, p)
    assert got == expected


@pytest.mark.parametrize("pvcs, pvs, expected", [
    pytest.param((pvc("a", cls="manual", size="1Gi"),), (), [
        "PersistentVolumeClaim default/a: StorageClass manual binds at once (Immediate) but does not provision, and "
        "no Available PersistentVolume of it matches the claim (at least 1Gi, ReadWriteOnce): create one"],
        id="no-provisioner class: no volume matches, so one must be created"),
    pytest.param((pvc("a", cls="immediate"),), (), [
        "PersistentVolumeClaim default/a: StorageClass immediate binds at once (Immediate) through csi.example.com, "
        "which has not provisioned a volume for it yet: see the claim's events (kubectl describe pvc)"],
        id="a class that provisions has not done it yet: its events say why"),
    pytest.param((pvc("a", cls="immediate"),), (pv("free", cls="immediate"),), [
        "PersistentVolumeClaim default/a matches an Available PersistentVolume: the PV controller has not bound it yet"],
        id="a volume matches: the PV controller binds it, and the claim's update retries the pod"),
    pytest.param((pvc("a", cls="nope", size="2Gi", modes=("ReadWriteMany",)),), (), [
        "PersistentVolumeClaim default/a: StorageClass nope does not exist and no Available PersistentVolume of that "
        "class matches it (at least 2Gi, ReadWriteMany): create the class, or name one that exists"],
        id="a class that does not exist"),
    pytest.param((pvc("a", cls=""),), (), [
        "PersistentVolumeClaim default/a names no StorageClass and no Available PersistentVolume without a class "
        "matches it (at least 10Gi, ReadWriteOnce): create one, or name a StorageClass that provisions"],
        id="no class at all"),
    pytest.param((pvc("a", "pv-x", bound=False),), (), [
        "PersistentVolumeClaim default/a names PersistentVolume pv-x, which does not exist: create it, or drop "
        "spec.volumeName"], id="a pre-bound claim whose volume does not exist"),
    pytest.param((pvc("a", "pv-x", bound=False),), (pv("pv-x", claim="b", phase="Bound"),), [
        "PersistentVolumeClaim default/a names PersistentVolume pv-x, which is bound to default/b: name another volume"],
        id="a pre-bound claim whose volume another claim holds"),
    pytest.param((pvc("a", "pv-x", bound=False, size="20Gi"),), (pv("pv-x", size="10Gi"),), [
        "PersistentVolumeClaim default/a names PersistentVolume pv-x, which does not satisfy it (capacity, access "
        "modes, volume mode, class): the PV controller does not bind them"],
        id="a pre-bound claim larger than its volume"),
    pytest.param((pvc("a", cls="wffc"), pvc("b", cls="manual", size="1Gi")), (), [
        "PersistentVolumeClaim default/b: StorageClass manual binds at once (Immediate) but does not provision, and "
        "no Available PersistentVolume of it matches the claim (at least 1Gi, ReadWriteOnce): create one"],
        id="only the immediate claims are named, not the WaitForFirstConsumer one beside them"),
])
def test_an_unbound_immediate_rejection_says_which_claim_and_why(pvcs, pvs, expected) -> None:
    # pv_controller.go:syncUnboundClaim: a claim names its volume, or takes a matching
    # Available PV, or its class provisions one; the sentence says which step is missing.
    plugin, snapshot = setup(pvcs, pvs, classes=(*CLASSES, sc("manual", "Immediate", "kubernetes.io/no-provisioner")))
    p = pod(claims=tuple(c.name for c in pvcs))
    assert run(plugin, snapshot, p)[0] == (UU, UNBOUND_IMMEDIATE)
    assert plugin.explain_rejection(CycleState(), PodInfo.of(p)) == expected


def test_an_ephemeral_claim_controlled_by_its_pod_passes_pre_filter() -> None:
    claim = pvc("runner-cache", "pv-x", controller_uid="uid-runner")
    plugin, snapshot = setup((claim,), (pv("pv-x", claim="runner-cache", phase="Bound"),))
    got, per_node = run(plugin, snapshot, pod("runner", ephemeral=("cache",), uid="uid-runner"))
    assert got is None and per_node == {"node-a": OK, "node-b": OK}


# Filter ----------------------------------------------------------------------------------------

FILTER_CASES = [
    pytest.param((pvc("a", "pv-a"),), (pv("pv-a", claim="a", phase="Bound"),),
                 {"node-a": OK, "node-b": OK},
                 id="a bound PV without node affinity accepts every node"),
    pytest.param((pvc("a", "pv-a"),), (pv("pv-a", claim="a", phase="Bound", affinity=host_affinity("node-a")),),
                 {"node-a": OK, "node-b": (UU, (NODE_CONFLICT,))},
                 id="a bound local PV only accepts its host"),
    pytest.param((pvc("a", "pv-a"),), (pv("pv-a", claim="a", phase="Bound", affinity=host_affinity("z1", key=ZONE)),),
                 {"node-a": OK, "node-b": (UU, (NODE_CONFLICT,))},
                 id="a bound zonal PV only accepts nodes of its zone"),
    pytest.param((pvc("a", "pv-gone"),), (),
                 {"node-a": (UU, (PV_NOT_EXIST,)), "node-b": (UU, (PV_NOT_EXIST,))},
                 id="a bound claim whose PV does not exist rejects every node"),
    # binder_test "bound-and-unbound-unsatisfied": both reasons, node affinity first.
    pytest.param((pvc("a", "pv-a"), pvc("b")),
                 (pv("pv-a", claim="a", phase="Bound", affinity=host_affinity("node-a")),),
                 {"node-a": OK, "node-b": (UU, (NODE_CONFLICT,))},
                 id="a bound mismatch and a provisionable claim give only the node affinity reason"),
    pytest.param((pvc("a", "pv-a"), pvc("b", cls="static")),
                 (pv("pv-a", claim="a", phase="Bound", affinity=host_affinity("node-a")),),
                 {"node-a": (UU, (BIND_CONFLICT,)), "node-b": (UU, (NODE_CONFLICT, BIND_CONFLICT))},
                 id="a bound mismatch and an unmatched static claim give both reasons in order"),
    pytest.param((pvc("a", cls="static"),), (),
                 {"node-a": (UU, (BIND_CONFLICT,)), "node-b": (UU, (BIND_CONFLICT,))},
                 id="no PV and a class without provisioner cannot bind"),
    pytest.param((pvc("a", cls="static"),), (pv("pv-1", cls="static", affinity=host_affinity("node-b")),),
                 {"node-a": (UU, (BIND_CONFLICT,)), "node-b": OK},
                 id="an available local PV is only found on its node"),
    pytest.param((pvc("a", cls="static", size="20Gi"),), (pv("pv-1", cls="static", size="10Gi"),),
                 {"node-a": (UU, (BIND_CONFLICT,)), "node-b": (UU, (BIND_CONFLICT,))},
                 id="a PV smaller than the request does not match"),
    pytest.param((pvc("a", cls="static", modes=("ReadWriteMany",)),), (pv("pv-1", cls="static"),),
                 {"node-a": (UU, (BIND_CONFLICT,)), "node-b": (UU, (BIND_CONFLICT,))},
                 id="a PV lacking the claim's access mode does not match"),
    pytest.param((pvc("a", cls="static", volume_mode="Block"),), (pv("pv-1", cls="static"),),
                 {"node-a": (UU, (BIND_CONFLICT,)), "node-b": (UU, (BIND_CONFLICT,))},
                 id="a Filesystem PV does not match a Block claim"),
    pytest.param((pvc("a", cls="static"),), (pv("pv-1", cls="static", phase="Released"),),
                 {"node-a": (UU, (BIND_CONFLICT,)), "node-b": (UU, (BIND_CONFLICT,))},
                 id="a Released PV is not available"),
    pytest.param((pvc("a", cls="static"),), (pv("pv-1", cls="static", claim="other", phase="Bound"),),
                 {"node-a": (UU, (BIND_CONFLICT,)), "node-b": (UU, (BIND_CONFLICT,))},
                 id="a PV bound to another claim does not match"),
    pytest.param((pvc("a", cls="static", selector=LabelSelector((Requirement("tier", "In", ("ssd",)),))),),
                 (pv("pv-1", cls="static", labels={"tier": "hdd"}),),
                 {"node-a": (UU, (BIND_CONFLICT,)), "node-b": (UU, (BIND_CONFLICT,))},
                 id="a PV whose labels miss the claim's selector does not match"),
    pytest.param((pvc("a", cls="static"),), (pv("pv-1", cls="static", claim="a", phase="Released",
                                                size="500Gi", affinity=host_affinity("node-a")),),
                 {"node-a": OK, "node-b": (UU, (BIND_CONFLICT,))},
                 id="a PV pre-bound to the claim matches whatever its phase, on its nodes only"),
    pytest.param((pvc("a", cls="wffc"),), (),
                 {"node-a": OK, "node-b": OK},
                 id="without a PV a class with a provisioner provisions anywhere"),
    pytest.param((pvc("a", cls="zonal"),), (),
                 {"node-a": (UU, (BIND_CONFLICT,)), "node-b": OK},
                 id="allowedTopologies limit where a volume can be provisioned"),
    pytest.param((pvc("a", annotations={ANN_SELECTED_NODE: "node-b"}),), (),
                 {"node-a": (UU, (BIND_CONFLICT,)), "node-b": OK},
                 id="a claim already being provisioned for a node holds the pod to it"),
    pytest.param((pvc("a", cls="static"), pvc("b", cls="static")), (pv("pv-1", cls="static"),),
                 {"node-a": (UU, (BIND_CONFLICT,)), "node-b": (UU, (BIND_CONFLICT,))},
                 id="two claims cannot share one PV"),
]

ZONAL = sc("zonal", topologies=((TopologySelectorRequirement(ZONE, ("z2",)),),))


@pytest.mark.parametrize("pvcs, pvs, expected", FILTER_CASES)
def test_filter(pvcs, pvs, expected) -> None:
    plugin, snapshot = setup(pvcs, pvs, classes=CLASSES + (ZONAL,))
    got, per_node = run(plugin, snapshot, pod(claims=tuple(c.name for c in pvcs)))
    assert got is None
    assert per_node == expected


def decisions(pvcs, pvs, node: str = "node-a"):
    plugin, snapshot = setup(pvcs, pvs)
    state = CycleState()
    run(plugin, snapshot, pod(claims=tuple(c.name for c in pvcs)), state)
    d = state.get("VolumeBinding").by_node[node]
    return [(c.name, v.name) for c, v in d.static_bindings], [c.name for c in d.dynamic_provisions]


def test_the_smallest_fitting_pv_is_chosen() -> None:
    # request 40Gi; candidates 100Gi, 50Gi, 30Gi (too small) -> 50Gi
    pvs = (pv("pv-100", cls="static", size="100Gi"), pv("pv-50", cls="static", size="50Gi"),
           pv("pv-30", cls="static", size="30Gi"))
    assert decisions((pvc("a", cls="static", size="40Gi"),), pvs) == ([("a", "pv-50")], [])


def test_smaller_claims_choose_first() -> None:
    # claims sorted by request: b (10Gi) takes pv-10, a (20Gi) takes pv-20 (pv-10 is too small anyway)
    pvs = (pv("pv-10", cls="static", size="10Gi"), pv("pv-20", cls="static", size="20Gi"))
    got = decisions((pvc("a", cls="static", size="20Gi"), pvc("b", cls="static", size="10Gi")), pvs)
    assert got == ([("b", "pv-10"), ("a", "pv-20")], [])


def test_a_claim_without_a_pv_is_provisioned_beside_a_static_binding() -> None:
    # a takes the only PV; b (same class, provisioner set) is provisioned
    got = decisions((pvc("a"), pvc("b", size="20Gi")), (pv("pv-1"),))
    assert got == ([("a", "pv-1")], ["b"])


def test_pre_score_always_skips() -> None:
    plugin, snapshot = setup((pvc("a"),))
    assert plugin.pre_score(CycleState(), PodInfo.of(pod(claims=("a",))), snapshot.node_infos).code == Code.SKIP


# Reserve ---------------------------------------------------------------------------------------

def schedule(plugin: VolumeBinding, snapshot: Snapshot, p, node: str) -> None:
    state = CycleState()
    run(plugin, snapshot, p, state)
    assert plugin.reserve(state, PodInfo.of(p), node) is None


def test_reserve_binds_the_chosen_pv_so_the_next_pod_cannot_take_it() -> None:
    plugin, snapshot = setup((pvc("a", cls="static"), pvc("b", cls="static")), (pv("pv-1", cls="static"),))
    schedule(plugin, snapshot, pod("first", claims=("a",)), "node-a")
    storage = storage_of(snapshot)
    assert storage.pvc("default", "a").volume_name == "pv-1"
    assert storage.pv("pv-1").claim_ref == ClaimRef("default", "a", "uid-a")
    assert [r.describe() for r in plugin.reservations_for("default/first")] == [
        "PersistentVolumeClaim default/a would be bound to PersistentVolume pv-1"]
    _, per_node = run(plugin, snapshot, pod("second", claims=("b",)))
    assert per_node == {"node-a": (UU, (BIND_CONFLICT,)), "node-b": (UU, (BIND_CONFLICT,))}


def test_reserve_of_a_provisioned_claim_holds_pods_sharing_it_to_the_node() -> None:
    plugin, snapshot = setup((pvc("shared"),))
    schedule(plugin, snapshot, pod("first", claims=("shared",)), "node-b")
    assert storage_of(snapshot).pvc("default", "shared").annotations[ANN_SELECTED_NODE] == "node-b"
    _, per_node = run(plugin, snapshot, pod("second", claims=("shared",)))
    assert per_node == {"node-a": (UU, (BIND_CONFLICT,)), "node-b": OK}


def test_reserve_does_nothing_when_every_claim_is_bound() -> None:
    plugin, snapshot = setup((pvc("a", "pv-a"),), (pv("pv-a", claim="a", phase="Bound"),))
    schedule(plugin, snapshot, pod("first", claims=("a",)), "node-a")
    assert plugin.reservations_for("default/first") == []


def test_reserve_leaves_the_loaded_cluster_untouched() -> None:
    plugin, snapshot = setup((pvc("a", cls="static"),), (pv("pv-1", cls="static"),))
    schedule(plugin, snapshot, pod("first", claims=("a",)), "node-a")
    assert snapshot.cluster.pvcs[("default", "a")].volume_name == ""
    assert snapshot.cluster.pvs["pv-1"].claim_ref is None


# Default StorageClass (§10.5) ------------------------------------------------------------------

def test_an_unbound_claim_without_class_gets_the_newest_default_class() -> None:
    classes = (sc("old-default", is_default=True, creation_timestamp="2024-01-01T00:00:00Z"),
               sc("new-default", mode="Immediate", is_default=True, creation_timestamp="2025-01-01T00:00:00Z"))
    plugin, snapshot = setup((pvc("a", cls=None),), classes=classes)
    assert storage_of(snapshot).pvc("default", "a").storage_class_name == "new-default"
    got, _ = run(plugin, snapshot, pod(claims=("a",)))
    assert got == (UU, UNBOUND_IMMEDIATE)  # new-default is Immediate


def test_an_explicitly_empty_class_is_not_defaulted() -> None:
    _, snapshot = setup((pvc("a", cls=""),), classes=(sc("d", is_default=True),))
    assert storage_of(snapshot).pvc("default", "a").storage_class_name == ""


# Decoding the storage kinds (kwhatif.load.storage) ----------------------------------------------

def test_a_pvc_manifest_keeps_what_binding_reads() -> None:
    from kwhatif.load.decode import decode
    got = decode({
        "apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": "runner-cache", "namespace": "ci", "uid": "u1",
                     "annotations": {ANN_SELECTED_NODE: "n1"},
                     "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "runner", "uid": "pod-uid",
                                          "controller": True}]},
        "spec": {"accessModes": ["ReadWriteOncePod"], "resources": {"requests": {"storage": "40Gi"}},
                 "storageClassName": "gp3", "volumeMode": "Block"},
        "status": {"phase": "Pending"},
    }, None)
    assert (got.key, got.controller_uid, got.access_modes, got.storage_class_name, got.volume_mode) == (
        "ci/runner-cache", "pod-uid", ("ReadWriteOncePod",), "gp3", "Block")
    assert got.requested_storage == 40 * 2**30 and got.volume_name == "" and got.phase == "Pending"


def test_a_pv_manifest_keeps_its_source_affinity_and_claim() -> None:
    from kwhatif.load.decode import decode
    got = decode({
        "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-1"},
        "spec": {"capacity": {"storage": "200Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "local",
                 "claimRef": {"namespace": "db", "name": "data", "uid": "c1"},
                 "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-1"},
                 "nodeAffinity": {"required": {"nodeSelectorTerms": [
                     {"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["z1"]}]}]}}},
        "status": {"phase": "Bound"},
    }, None)
    assert (got.volume_source, got.csi_driver, got.volume_id, got.claim_ref) == (
        "csi", "ebs.csi.aws.com", "vol-1", ClaimRef("db", "data", "c1"))
    assert got.node_affinity.matches({ZONE: "z1"}, "") and not got.node_affinity.matches({ZONE: "z2"}, "")


def test_a_storage_class_without_binding_mode_is_immediate() -> None:
    from kwhatif.load.decode import decode
    got = decode({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                  "metadata": {"name": "std", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
                  "provisioner": "pd.csi.storage.gke.io",
                  "allowedTopologies": [{"matchLabelExpressions": [{"key": ZONE, "values": ["z1", "z2"]}]}]}, None)
    assert (got.volume_binding_mode, got.is_default) == ("Immediate", True)
    assert got.allowed_topologies == ((TopologySelectorRequirement(ZONE, ("z1", "z2")),),)


def test_a_csinode_manifest_keeps_limits_and_migrated_plugins() -> None:
    from kwhatif.load.decode import decode
    got = decode({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
                  "metadata": {"name": "n1", "annotations": {
                      "storage.alpha.kubernetes.io/migrated-plugins": "kubernetes.io/aws-ebs,kubernetes.io/gce-pd"}},
                  "spec": {"drivers": [{"name": "ebs.csi.aws.com", "allocatable": {"count": 25}},
                                       {"name": "efs.csi.aws.com"}]}}, None)
    assert [(d.name, d.allocatable_count) for d in got.drivers] == [("ebs.csi.aws.com", 25), ("efs.csi.aws.com", None)]
    assert got.migrated_plugins == {"kubernetes.io/aws-ebs", "kubernetes.io/gce-pd"}


def test_a_wrong_type_in_a_storage_object_names_the_field() -> None:
    from kwhatif.errors import InputError
    from kwhatif.load.decode import decode
    with pytest.raises(InputError) as err:
        decode({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "x"},
                "spec": {"accessModes": "ReadWriteOnce"}}, None)
    assert err.value.field == "spec.accessModes" and err.value.obj == "PersistentVolumeClaim/default/x"
