"""DynamicResources at each extension point, after the v1.34.1 table of
pkg/scheduler/framework/plugins/dynamicresources/dynamicresources_test.go: the statuses and
reason texts are upstream's (`statusUnschedulable` is UnschedulableAndUnresolvable there)."""

from __future__ import annotations

import pytest

from kwhatif.api.affinity import NodeSelector, NodeSelectorTerm
from kwhatif.api.cluster import Cluster
from kwhatif.api.dra import (
    Allocation, ConsumerRef, Device, DeviceConstraint, DeviceResult, DeviceSubRequest, ResourceClaim,
    ResourceClaimTemplate,
)
from kwhatif.api.selectors import Requirement
from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.diagnosis import NodeToStatus
from kwhatif.framework.status import Code
from kwhatif.plugins.dynamic_resources import DynamicResources
from kwhatif.plugins.dynamic_resources.claims import generated_name, never_created
from kwhatif.plugins.dynamic_resources.index import dra_of
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot
from tests.builders import Handle, make_node, make_pod
from tests.plugins.dra.test_allocator import (
    CLASS_A, CLASS_B, DRIVER_A, DRIVER_B, claim, first_available, klass, req, slice_,
)


def _pod(name: str = "my-pod", *entries: dict, uid: str = "pod-uid"):
    return make_pod(name).evolve(uid=uid, resource_claims=tuple(entries) or ({"name": "res", "resourceClaimName": "my-claim"},))


def _setup(*claims: ResourceClaim, templates: tuple[ResourceClaimTemplate, ...] = ()):
    cluster = Cluster(
        nodes=[make_node("node-1"), make_node("node-2")],
        device_classes={CLASS_A: klass(CLASS_A, DRIVER_A)},
        resource_slices={"slice-1": slice_("slice-1", "pool-1", DRIVER_A, *_devices(1))},
        resource_claims={(c.namespace, c.name): c for c in claims},
        claim_templates={(t.namespace, t.name): t for t in templates},
    )
    snap = Snapshot.build(cluster, [])
    return snap, DynamicResources(None, Handle(snap))


def _devices(n: int):
    return tuple(Device(f"device-{i + 1}") for i in range(n))


def _cycle(plugin: DynamicResources, snap: Snapshot, pod):
    state, info = CycleState(), PodInfo.of(pod)
    _, status = plugin.pre_filter(state, info, snap.node_infos)
    return state, info, status


def _on_node(name: str) -> NodeSelector:
    return NodeSelector((NodeSelectorTerm((), (Requirement("metadata.name", "In", (name,)),)),))


ALLOCATED_ON_2 = Allocation((DeviceResult("req-1", DRIVER_A, "pool-1", "device-1"),), _on_node("node-2"))


def test_claim_missing_is_refused_at_pre_enqueue():
    # upstream "claim-missing": PreEnqueue status UnschedulableAndUnresolvable. v1.34 reads claims
    # through the DRA manager's assume cache (dra_manager.go claimTracker.Get), which scheduler.go
    # names "ResourceClaim": its NotFoundError is `could not find ResourceClaim "<ns>/<name>"`.
    snap, plugin = _setup()
    status = plugin.pre_enqueue(PodInfo.of(_pod()))
    assert (status.code, status.message) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                             'could not find ResourceClaim "default/my-claim"')


def test_deleted_claim_is_refused():
    # upstream "deleted-claim": `resourceclaim "my-claim" is being deleted`.
    snap, plugin = _setup(claim("my-claim", req("req-1")).evolve(deleting=True))
    status = plugin.pre_enqueue(PodInfo.of(_pod()))
    assert status.message == 'resourceclaim "my-claim" is being deleted'


def test_missing_class_stops_pre_filter():
    # upstream "missing-class": `request req-1: device class does-not-exist does not exist`.
    snap, plugin = _setup(claim("my-claim", req("req-1", "does-not-exist")))
    _, _, status = _cycle(plugin, snap, _pod())
    assert (status.code, status.message) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                             "request req-1: device class does-not-exist does not exist")


def test_structured_allocation_is_reserved_and_then_taken():
    # upstream "structured-no-resources"/"structured": node-1 has the only device; once the first
    # pod reserved it, a second claim cannot be allocated: `cannot allocate all claims`.
    snap, plugin = _setup(claim("my-claim", req("req-1")), claim("other", req("req-1")))
    state, info, status = _cycle(plugin, snap, _pod())
    assert status is None
    assert plugin.filter(state, info, snap.by_name["node-2"]).message == "cannot allocate all claims"
    assert plugin.filter(state, info, snap.by_name["node-1"]) is None
    assert plugin.reserve(state, info, "node-1") is None
    reserved = dra_of(snap).claims[("default", "my-claim")]
    assert reserved.allocation.results == (DeviceResult("req-1", DRIVER_A, "pool-1", "device-1"),)
    assert reserved.reserved_for == (ConsumerRef("pods", "my-pod", "pod-uid"),)
    other = _pod("other-pod", {"name": "res", "resourceClaimName": "other"}, uid="uid-2")
    state2, info2, _ = _cycle(plugin, snap, other)
    status = plugin.filter(state2, info2, snap.by_name["node-1"])
    assert (status.code, status.message) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "cannot allocate all claims")


def test_snapshot_restore_takes_the_allocation_back():
    snap, plugin = _setup(claim("my-claim", req("req-1")))
    mark = snap.mark()
    state, info, _ = _cycle(plugin, snap, _pod())
    plugin.filter(state, info, snap.by_name["node-1"])
    plugin.reserve(state, info, "node-1")
    assert dra_of(snap).claims[("default", "my-claim")].allocation is not None
    snap.restore(mark)
    assert dra_of(snap).claims[("default", "my-claim")].allocation is None
    assert not dra_of(snap).allocated


def test_allocated_claim_elsewhere_is_deallocated_by_post_filter():
    # upstream "structured-allocated-claim-unavailable" style: allocated for node-2 only, reserved by
    # nobody → Filter on node-1 `resourceclaim not available on the node`; PostFilter deallocates.
    snap, plugin = _setup(claim("my-claim", req("req-1")).evolve(allocation=ALLOCATED_ON_2))
    state, info, _ = _cycle(plugin, snap, _pod())
    status = plugin.filter(state, info, snap.by_name["node-1"])
    assert (status.code, status.message) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                             "resourceclaim not available on the node")
    assert plugin.filter(state, info, snap.by_name["node-2"]) is None
    _, status = plugin.post_filter(state, info, NodeToStatus())
    assert (status.code, status.message) == (Code.UNSCHEDULABLE, "deallocation of ResourceClaim completed")
    assert dra_of(snap).claims[("default", "my-claim")].allocation is None


def test_claim_reserved_by_another_pod_is_not_deallocated():
    # PostFilter only deallocates a claim nobody else uses: `still not schedulable`.
    in_use = claim("my-claim", req("req-1")).evolve(allocation=ALLOCATED_ON_2,
                                                    reserved_for=(ConsumerRef("pods", "other", "uid-9"),))
    snap, plugin = _setup(in_use)
    state, info, _ = _cycle(plugin, snap, _pod())
    plugin.filter(state, info, snap.by_name["node-1"])
    _, status = plugin.post_filter(state, info, NodeToStatus())
    assert (status.code, status.message) == (Code.UNSCHEDULABLE, "still not schedulable")


def test_template_claim_is_made_as_the_controller_names_it():
    # resourceclaim controller: GenerateName "<pod>-<podClaim>-" plus 5 characters, owned by the pod.
    template = ResourceClaimTemplate("default", "tmpl", (req("req-1"),))
    snap, plugin = _setup(templates=(template,))
    pod = _pod("my-pod", {"name": "gpu", "resourceClaimTemplateName": "tmpl"})
    state, info, status = _cycle(plugin, snap, pod)
    assert status is None
    name = generated_name(pod, "gpu")
    assert name.startswith("my-pod-gpu-") and len(name) == len("my-pod-gpu-") + 5
    assert dra_of(snap).claims[("default", name)].owner_pod_uid == "pod-uid"
    assert plugin.filter(state, info, snap.by_name["node-1"]) is None


def test_template_missing_means_claim_not_created_yet():
    # resourceclaim.Name: `pod "default/my-pod": ResourceClaim not created yet`.
    snap, plugin = _setup()
    pod = _pod("my-pod", {"name": "gpu", "resourceClaimTemplateName": "tmpl"})
    assert plugin.pre_enqueue(PodInfo.of(pod)).message == 'pod "default/my-pod": ResourceClaim not created yet'


def test_explain_names_the_device_and_the_refused_ones():
    snap, plugin = _setup(claim("my-claim", req("req-1")), claim("other", req("req-1")).evolve(
        allocation=Allocation((DeviceResult("req-1", DRIVER_A, "pool-1", "device-1"),))))
    state, info, _ = _cycle(plugin, snap, _pod())
    assert plugin.filter(state, info, snap.by_name["node-1"]).message == "cannot allocate all claims"
    assert plugin.explain_node(state, info, snap.by_name["node-1"]) == [
        # device-1 passes class-a's selector but `other` holds it: 0 free of the 1 asked.
        "request req-1 of ResourceClaim default/my-claim cannot be met on this node: 1 device(s) pass class "
        "class-a's selectors, 0 of them free, and it asks for 1: lower its count, or free devices held by other claims",
        "device device-1 of ResourceSlice slice-1: allocated to ResourceClaim default/other"]


def test_explain_says_an_allocated_claim_is_pinned_elsewhere():
    snap, plugin = _setup(claim("my-claim", req("req-1")).evolve(allocation=ALLOCATED_ON_2))
    state, info, _ = _cycle(plugin, snap, _pod())
    plugin.filter(state, info, snap.by_name["node-1"])
    assert plugin.explain_node(state, info, snap.by_name["node-1"]) == [
        "ResourceClaim default/my-claim is allocated already (driver-a/pool-1/device-1): "
        "not usable from this node (status.allocation.nodeSelector)"]


def test_explain_names_the_constraint_that_no_choice_met():
    # device-1 has numa 1, device-2 numa 2: two requests under matchAttribute numa cannot both be met.
    cluster = Cluster(
        nodes=[make_node("node-1")], device_classes={CLASS_A: klass(CLASS_A, DRIVER_A)},
        resource_slices={"slice-1": slice_("slice-1", "pool-1", DRIVER_A, Device("device-1", {"numa": 1}),
                                           Device("device-2", {"numa": 2}))},
        resource_claims={("default", "my-claim"): claim("my-claim", req("req-0"), req("req-1"),
                                                        constraints=(DeviceConstraint((), "driver-a/numa"),))})
    snap = Snapshot.build(cluster, [])
    plugin = DynamicResources(None, Handle(snap))
    state, info, _ = _cycle(plugin, snap, _pod())
    assert plugin.filter(state, info, snap.by_name["node-1"]).message == "cannot allocate all claims"
    assert plugin.explain_node(state, info, snap.by_name["node-1"]) == [
        "device device-1 of ResourceSlice slice-1: matches request req-0 of ResourceClaim default/my-claim, but no "
        "choice of devices gave every request of the claim the same driver-a/numa (this device: driver-a/numa=1)",
        "device device-2 of ResourceSlice slice-1: matches request req-0 of ResourceClaim default/my-claim, but no "
        "choice of devices gave every request of the claim the same driver-a/numa (this device: driver-a/numa=2)"]


NOT_IT = "not what stops this node: request nic of ResourceClaim default/my-claim cannot be met here (above)"


@pytest.mark.parametrize("requests, constraints, devices_b, expected", [
    # node-1 has device-1 and device-2 of driver-a (numa 0 both). The claim asks one class-a
    # device (gpu) and one class-b device (nic); only the nic is impossible, and the GPUs are fine.
    pytest.param((req("gpu"), req("nic", CLASS_B)), (), (), [
        "request nic of ResourceClaim default/my-claim cannot be met on this node: no device of this node passes "
        "class class-b's selectors: publish such a device for this node, run the pod where one is, or change the "
        "request",
        f"device device-1 of ResourceSlice slice-a: matches request gpu of ResourceClaim default/my-claim, {NOT_IT}",
        f"device device-2 of ResourceSlice slice-a: matches request gpu of ResourceClaim default/my-claim, {NOT_IT}",
    ], id="a request no device of the node can serve is named, and the free devices are not blamed"),
    # The nic exists (nic-0 of driver-b) but lacks driver-a/numa, which the constraint over both
    # requests compares: nic can never be allocated with it, whatever the GPUs.
    pytest.param((req("gpu"), req("nic", CLASS_B)), (DeviceConstraint(("gpu", "nic"), "driver-a/numa"),),
                 (Device("nic-0"),), [
        "request nic of ResourceClaim default/my-claim cannot be met on this node: 0 of its 1 free matching "
        "device(s) have attribute driver-a/numa, which a matchAttribute constraint of the claim compares, and it "
        "asks for 1: publish the attribute on the devices or leave the request out of the constraint",
        f"device device-1 of ResourceSlice slice-a: matches request gpu of ResourceClaim default/my-claim, {NOT_IT}",
        f"device device-2 of ResourceSlice slice-a: matches request gpu of ResourceClaim default/my-claim, {NOT_IT}",
        "device nic-0 of ResourceSlice slice-b: matches request nic of ResourceClaim default/my-claim, but no choice "
        "of devices gave every request of the claim the same driver-a/numa (this device: no such attribute)",
    ], id="a device without the attribute a constraint compares is the cause"),
    # Every alternative of a firstAvailable request asks more than the 2 devices: each is said.
    pytest.param((first_available("gpu", DeviceSubRequest("big", CLASS_A, count=5),
                                  DeviceSubRequest("small", CLASS_A, count=3)),), (), (), [
        "request gpu of ResourceClaim default/my-claim cannot be met on this node: gpu/big: 2 device(s) pass class "
        "class-a's selectors, 2 of them free, and it asks for 5: lower its count, or free devices held by other "
        "claims; gpu/small: 2 device(s) pass class class-a's selectors, 2 of them free, and it asks for 3: lower "
        "its count, or free devices held by other claims",
        "device device-1 of ResourceSlice slice-a: matches request gpu/big of ResourceClaim default/my-claim, but "
        "request gpu of ResourceClaim default/my-claim cannot be met here (above)",
        "device device-2 of ResourceSlice slice-a: matches request gpu/big of ResourceClaim default/my-claim, but "
        "request gpu of ResourceClaim default/my-claim cannot be met here (above)",
    ], id="each alternative of an impossible firstAvailable request says why"),
    # 3 devices asked of the 2, under a matchAttribute both carry (numa 0): too few, and no
    # attribute to blame (it blamed driver-a/numa, and advised publishing it).
    pytest.param((req("gpu", count=3),), (DeviceConstraint(("gpu",), "driver-a/numa"),), (), [
        "request gpu of ResourceClaim default/my-claim cannot be met on this node: 2 device(s) pass class class-a's "
        "selectors, 2 of them free, and it asks for 3: lower its count, or free devices held by other claims",
        "device device-1 of ResourceSlice slice-a: matches request gpu of ResourceClaim default/my-claim, but "
        "request gpu of ResourceClaim default/my-claim cannot be met here (above)",
        "device device-2 of ResourceSlice slice-a: matches request gpu of ResourceClaim default/my-claim, but "
        "request gpu of ResourceClaim default/my-claim cannot be met here (above)",
    ], id="too few free devices under a constraint they all satisfy: the count, not the attribute"),
    # 1 + 2 devices asked of 2: each request alone fits, together they do not.
    pytest.param((req("req-0"), req("req-1", count=2)), (), (), [
        "device device-1 of ResourceSlice slice-a: matches request req-0 of ResourceClaim default/my-claim, but "
        "the requests of the claims together ask for more such devices than are free: lower a count or free devices "
        "held by other claims",
        "device device-2 of ResourceSlice slice-a: matches request req-0 of ResourceClaim default/my-claim, but "
        "the requests of the claims together ask for more such devices than are free: lower a count or free devices "
        "held by other claims",
    ], id="requests that fit alone but not together"),
])
def test_explain_names_the_request_that_cannot_be_met_and_what_to_change(requests, constraints, devices_b, expected):
    slices = {"slice-a": slice_("slice-a", "pool-a", DRIVER_A, Device("device-1", {"numa": 0}),
                                Device("device-2", {"numa": 0}))}
    if devices_b:
        slices["slice-b"] = slice_("slice-b", "pool-b", DRIVER_B, *devices_b)
    cluster = Cluster(
        nodes=[make_node("node-1")], resource_slices=slices,
        device_classes={CLASS_A: klass(CLASS_A, DRIVER_A), CLASS_B: klass(CLASS_B, DRIVER_B)},
        resource_claims={("default", "my-claim"): claim("my-claim", *requests, constraints=constraints)})
    snap = Snapshot.build(cluster, [])
    plugin = DynamicResources(None, Handle(snap))
    state, info, _ = _cycle(plugin, snap, _pod())
    assert plugin.filter(state, info, snap.by_name["node-1"]).message == "cannot allocate all claims"
    assert plugin.explain_node(state, info, snap.by_name["node-1"]) == expected


def test_a_claim_reserved_by_the_maximum_of_consumers_is_in_use():
    # upstream "claim-in-use": allocated, reservedFor full (ResourceClaimReservedForMaxSize 256), not this pod.
    full = tuple(ConsumerRef("pods", f"p{i}", f"uid-{i}") for i in range(256))
    snap, plugin = _setup(claim("my-claim", req("req-1")).evolve(allocation=ALLOCATED_ON_2, reserved_for=full))
    _, _, status = _cycle(plugin, snap, _pod())
    assert (status.code, status.message) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "resourceclaim in use")


def test_a_shared_claim_allocated_already_is_used_where_it_lives():
    # upstream "structured-allocated-claim"-style: allocated for node-2 and reserved by another pod;
    # this pod may join (fewer than 256 consumers) on node-2 only, and Reserve adds it to reservedFor.
    shared = claim("my-claim", req("req-1")).evolve(allocation=ALLOCATED_ON_2,
                                                    reserved_for=(ConsumerRef("pods", "other", "uid-9"),))
    snap, plugin = _setup(shared)
    state, info, status = _cycle(plugin, snap, _pod())
    assert status is None
    assert plugin.filter(state, info, snap.by_name["node-1"]).message == "resourceclaim not available on the node"
    assert plugin.filter(state, info, snap.by_name["node-2"]) is None
    plugin.reserve(state, info, "node-2")
    assert [r.uid for r in dra_of(snap).claims[("default", "my-claim")].reserved_for] == ["uid-9", "pod-uid"]


def test_copies_of_a_pod_sharing_its_uid_get_claims_of_their_own():
    # `kwhatif capacity` copies keep the prototype's UID; the controller names claims after the pod.
    template = ResourceClaimTemplate("default", "tmpl", (req("req-1"),))
    snap, plugin = _setup(templates=(template,))
    entry = {"name": "gpu", "resourceClaimTemplateName": "tmpl"}
    for name in ("copy-1", "copy-2"):
        _cycle(plugin, snap, _pod(name, entry))
    made = sorted(key[1] for key in dra_of(snap).claims)
    assert [n[:-5] for n in made] == ["copy-1-gpu-", "copy-2-gpu-"]


def test_a_generated_claim_in_the_input_is_the_pods_own():
    # A dump holds the claim the controller made: owned by the pod, annotated with the entry name.
    made = claim("my-pod-gpu-x7k2q", req("req-1")).evolve(owner_pod_uid="pod-uid", pod_claim_name="gpu",
                                                          allocation=ALLOCATED_ON_2)
    snap, plugin = _setup(made, templates=(ResourceClaimTemplate("default", "tmpl", (req("req-1"),)),))
    state, info, status = _cycle(plugin, snap, _pod("my-pod", {"name": "gpu", "resourceClaimTemplateName": "tmpl"}))
    assert status is None and [c.name for c in state.get("PreFilterDynamicResources").claims] == ["my-pod-gpu-x7k2q"]


def _with_status(pod, *statuses: tuple[str, str | None]):
    return pod.evolve(resource_claim_statuses=statuses)


TEMPLATED = {"name": "gpu", "resourceClaimTemplateName": "tmpl"}


def test_the_claim_the_pods_status_names_is_used_as_it_is():
    """resourceclaim.Name: a template entry's claim is the one status.resourceClaimStatuses
    names — already allocated on node-2 here — never the template again (which now asks for a
    class no device has): the pod goes where its claim is."""
    named = claim("my-pod-gpu-abcde", req("req-1")).evolve(owner_pod_uid="pod-uid", allocation=ALLOCATED_ON_2)
    changed = ResourceClaimTemplate("default", "tmpl", (req("req-1", "no-such-class"),))
    snap, plugin = _setup(named, templates=(changed,))
    pod = _with_status(_pod("my-pod", TEMPLATED), ("gpu", "my-pod-gpu-abcde"))
    state, info, status = _cycle(plugin, snap, pod)
    assert status is None and [c.name for c in state.get("PreFilterDynamicResources").claims] == ["my-pod-gpu-abcde"]
    assert plugin.filter(state, info, snap.by_name["node-2"]) is None
    assert plugin.filter(state, info, snap.by_name["node-1"]) is not None


@pytest.mark.parametrize("claims, statuses, message", [
    # the status names a claim the cache lacks (assumecache NotFoundError)
    ((), (("gpu", "my-pod-gpu-abcde"),), 'could not find ResourceClaim "default/my-pod-gpu-abcde"'),
    # resourceclaim.IsForPod: the named claim is controlled by another pod
    ((claim("my-pod-gpu-abcde", req("req-1")).evolve(owner_pod_uid="other-uid"),), (("gpu", "my-pod-gpu-abcde"),),
     "ResourceClaim default/my-pod-gpu-abcde was not created for pod default/my-pod (pod is not owner)"),
])
def test_a_status_named_claim_that_is_missing_or_not_the_pods_holds_it(claims, statuses, message):
    snap, plugin = _setup(*claims, templates=(ResourceClaimTemplate("default", "tmpl", (req("req-1"),)),))
    pod = _with_status(_pod("my-pod", TEMPLATED), *statuses)
    assert plugin.pre_enqueue(PodInfo.of(pod)).message == message


def test_a_status_without_a_claim_name_needs_no_claim():
    # foreachPodResourceClaim: a nil claim name is skipped ("valid use cases").
    snap, plugin = _setup()
    pod = _with_status(_pod("my-pod", TEMPLATED), ("gpu", None))
    assert plugin.pre_enqueue(PodInfo.of(pod)) is None


def test_generated_names_are_cut_in_proportion_past_57_characters():
    # resourceclaim controller: pod name and claim name each cut to len*57/len(base), joined by "-".
    pod = make_pod("p" * 60)
    base = generated_name(pod, "c" * 20)[:-5]
    # len(base) before cutting = 60 + 1 + 20 + 1 = 82; 60*57//82 = 41, 20*57//82 = 13
    assert base == "p" * 41 + "-" + "c" * 13


def test_after_its_own_pre_filter_rejection_post_filter_has_no_claims_to_deallocate():
    # dynamicresources.go: PreFilter writes the empty state first and returns before storing the
    # claims, so PostFilter takes its fast path (reference §8.2: "PreFilter rejection by
    # DynamicResources itself" ends with ` no new claims to deallocate`).
    snap, plugin = _setup(claim("my-claim", req("req-1", "does-not-exist")))
    state, info, status = _cycle(plugin, snap, _pod())
    assert status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    _, status = plugin.post_filter(state, info, NodeToStatus())
    assert (status.code, status.message) == (Code.UNSCHEDULABLE, "no new claims to deallocate")


def test_pods_without_uids_are_told_apart_by_name():
    # Manifests often carry no UID: a claim reserved by pod "a" (no UID) is not pod "b"'s to
    # deallocate, so PostFilter says `still not schedulable`.
    shared = claim("my-claim", req("req-1")).evolve(allocation=ALLOCATED_ON_2,
                                                    reserved_for=(ConsumerRef("pods", "a", ""),))
    snap, plugin = _setup(shared)
    state, info, _ = _cycle(plugin, snap, _pod("b", uid=""))
    plugin.filter(state, info, snap.by_name["node-1"])
    _, status = plugin.post_filter(state, info, NodeToStatus())
    assert status.message == "still not schedulable"
    assert dra_of(snap).claims[("default", "my-claim")].allocation is not None


@pytest.mark.parametrize("requests, short", [
    # three devices on node-1, device-1 allocated to `other`: two free for the class
    ((req("req-1", count=3),), 1),                      # 3 asked - 2 free
    ((req("req-1", count=2), req("req-2", count=4)), 2),  # 0 + (4 - 2)
    # firstAvailable: the alternative nearest to fitting (count 2: 0 short) — the pod fits by that measure
    ((first_available("gpu", DeviceSubRequest("big", CLASS_A, count=5), DeviceSubRequest("small", CLASS_A, count=2)),), 0),
    # an All request is not counted
    ((req("req-1", mode="All", count=0),), 0),
])
def test_measure_counts_the_devices_a_node_lacks(requests, short):
    cluster = Cluster(
        nodes=[make_node("node-1")], device_classes={CLASS_A: klass(CLASS_A, DRIVER_A)},
        resource_slices={"slice-1": slice_("slice-1", "pool-1", DRIVER_A, *_devices(3))},
        resource_claims={("default", "my-claim"): claim("my-claim", *requests),
                         ("default", "other"): claim("other", req("req-1")).evolve(
                             allocation=Allocation((DeviceResult("req-1", DRIVER_A, "pool-1", "device-1"),)))})
    snap = Snapshot.build(cluster, [])
    plugin = DynamicResources(None, Handle(snap))
    state, info, _ = _cycle(plugin, snap, _pod())
    assert plugin.measure_node(state, info, snap.by_name["node-1"]) == ({"devices": short} if short else {})


_TMPL_POD = _pod("my-pod", {"name": "gpu", "resourceClaimTemplateName": "tmpl"})
_TMPL = ResourceClaimTemplate("default", "tmpl", (req("req-1"),))
_MADE = ResourceClaim("default", generated_name(_TMPL_POD, "gpu"), owner_pod_uid="pod-uid", pod_claim_name="gpu")
# controller.go handleClaim: `resource claim template %q: %v` of the lister's NotFound error, in
# the event `PodResourceClaim %s: %v` (FailedResourceClaimCreation).
_NEVER = ('the resourceclaim controller can never create the claim of spec.resourceClaims[0] (gpu): '
          'resourceclaimtemplate "tmpl" does not exist in namespace default (its FailedResourceClaimCreation '
          'event on the pod: "PodResourceClaim gpu: resource claim template "tmpl": '
          'resourceclaimtemplate.resource.k8s.io "tmpl" not found"). Create the template, or fix '
          "resourceClaimTemplateName: the pod waits until then")


@pytest.mark.parametrize("pod, templates, claims, expected", [
    pytest.param(_TMPL_POD, {}, {}, [_NEVER], id="a missing template: the claim is never made"),
    pytest.param(_TMPL_POD, {("default", "tmpl"): _TMPL}, {}, [], id="the template exists: a moment's wait"),
    pytest.param(_TMPL_POD, {}, {("default", _MADE.name): _MADE}, [], id="the claim was made before the template went"),
    pytest.param(_TMPL_POD.evolve(resource_claim_statuses=(("gpu", "my-pod-gpu-x1x2x"),)), {}, {}, [],
                 id="the pod's status names its claim"),
    pytest.param(_pod(), {}, {}, [], id="a claim named by the pod, no template"),
])
def test_a_missing_template_is_named_with_what_to_change(pod, templates, claims, expected):
    assert never_created(pod, templates, claims) == expected
