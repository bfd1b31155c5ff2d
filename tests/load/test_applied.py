"""`kwhatif.load.applied`: a workload file's object applied over the snapshot's, as `kubectl
apply` leaves it — the manifest's spec; the status, uid and controller-set fields of the object
that runs, unless the manifest states a status itself. Expected values: the rules of the API
server (status is a subresource apply never writes; a three-way merge keeps fields the manifest
does not name) beside each case."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from kwhatif.api.dra import Allocation, ConsumerRef, ResourceClaim
from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import ImageState, Node, PodDisruptionBudget, PriorityClass, Service
from kwhatif.api.selectors import LabelSelector, Requirement
from kwhatif.api.storage import ClaimRef, PersistentVolume, PersistentVolumeClaim
from kwhatif.api.tolerations import Taint
from kwhatif.errors import InputError
from kwhatif.load.applied import applied
from kwhatif.load.cluster import apply_object

BIND = {"pv.kubernetes.io/bind-completed": "yes"}
RUNNING_CLAIM = PersistentVolumeClaim("default", "data", uid="u-data", annotations=BIND, storage_class_name="standard",
                                      volume_name="pv-data", requested_storage=Fraction(2**30), phase="Bound")
CHART_CLAIM = PersistentVolumeClaim("default", "data", annotations={"owner": "chart"},
                                    requested_storage=Fraction(2**30))
RUNNING_VOLUME = PersistentVolume("pv-data", annotations={"pv.kubernetes.io/bound-by-controller": "yes"},
                                  claim_ref=ClaimRef("default", "data", "u-data"), phase="Bound")
WRITTEN_VOLUME = PersistentVolume("pv-data", capacity=Fraction(2**31))
CONTROL_PLANE = Taint("node-role.kubernetes.io/control-plane", "", "NoSchedule")
RUNNING_NODE = Node("node-a", {"zone": "a", "kubernetes.io/hostname": "node-a"}, taints=(CONTROL_PLANE,),
                    allocatable={"cpu": Fraction(2)}, images=(ImageState(("nginx:1",), 100),))
TAINTS, CORDON = frozenset({"taints"}), frozenset({"unschedulable"})
WEB = LabelSelector((Requirement("app", "In", ("web",)),))
COUNTED = PodDisruptionBudget("default", "web", WEB, disruptions_allowed=1, disrupted_pods=frozenset({"web-1"}),
                              min_available=2, counted=True)
GRANTED = Allocation(())
RUNNING_RESOURCE_CLAIM = ResourceClaim("default", "gpu", uid="u-gpu", allocation=GRANTED,
                                       reserved_for=(ConsumerRef("pods", "p", "u-p"),))


@pytest.mark.parametrize("old, new, expected", [
    # The claim keeps its binding (volumeName, the bind annotation, the uid the volume's claimRef
    # names, its phase) and the class admission defaulted; the chart's own annotation is added.
    (RUNNING_CLAIM, CHART_CLAIM,
     CHART_CLAIM.evolve(uid="u-data", annotations={**BIND, "owner": "chart"}, storage_class_name="standard",
                        volume_name="pv-data", phase="Bound")),
    # A claim written with a status is a what-if: as written.
    (RUNNING_CLAIM, CHART_CLAIM.evolve(phase="Pending"), CHART_CLAIM.evolve(phase="Pending")),
    # A class the manifest names is the manifest's ("" is "no class", not unset).
    (RUNNING_CLAIM, CHART_CLAIM.evolve(storage_class_name=""),
     CHART_CLAIM.evolve(uid="u-data", annotations={**BIND, "owner": "chart"}, storage_class_name="",
                        volume_name="pv-data", phase="Bound")),
    # The volume keeps the binder's claimRef, annotation and phase; its spec is the manifest's.
    (RUNNING_VOLUME, WRITTEN_VOLUME,
     WRITTEN_VOLUME.evolve(annotations=RUNNING_VOLUME.annotations, claim_ref=RUNNING_VOLUME.claim_ref, phase="Bound")),
    # A Node without status keeps the kubelet's (allocatable, images); labels merge (the manifest's
    # zone wins, the hostname label it does not name stays), taints it does not name stay.
    (RUNNING_NODE, Node("node-a", {"zone": "b"}),
     Node("node-a", {"zone": "b", "kubernetes.io/hostname": "node-a"}, taints=(CONTROL_PLANE,),
          allocatable={"cpu": Fraction(2)}, images=RUNNING_NODE.images)),
    # Taints the manifest names are its own, and so is `taints: []` or `unschedulable: false`.
    (RUNNING_NODE, Node("node-a", taints=(Taint("gpu", "", "NoSchedule"),), written=TAINTS),
     Node("node-a", RUNNING_NODE.labels, taints=(Taint("gpu", "", "NoSchedule"),), allocatable={"cpu": Fraction(2)},
          images=RUNNING_NODE.images, written=TAINTS)),
    (replace(RUNNING_NODE, unschedulable=True), Node("node-a", written=TAINTS | CORDON),
     Node("node-a", RUNNING_NODE.labels, allocatable={"cpu": Fraction(2)}, images=RUNNING_NODE.images,
          written=TAINTS | CORDON)),
    # A Node written with allocatable is a what-if of another size: as written.
    (RUNNING_NODE, Node("node-a", allocatable={"cpu": Fraction(8)}), Node("node-a", allocatable={"cpu": Fraction(8)})),
    # The same PDB spec: what the disruption controller counted for it stays (whatever the order
    # of a selector's values).
    (COUNTED, PodDisruptionBudget("default", "web", WEB, min_available=2), COUNTED),
    (replace(COUNTED, selector=LabelSelector((Requirement("app", "In", ("web", "api")),))),
     PodDisruptionBudget("default", "web", LabelSelector((Requirement("app", "In", ("api", "web")),)), min_available=2),
     replace(COUNTED, selector=LabelSelector((Requirement("app", "In", ("api", "web")),)))),
    # Another spec (minAvailable, or the selector): counted again upstream, not here — 0 allowed.
    (COUNTED, PodDisruptionBudget("default", "web", WEB, min_available=3),
     PodDisruptionBudget("default", "web", WEB, min_available=3)),
    (COUNTED, PodDisruptionBudget("default", "web", LabelSelector((Requirement("app", "In", ("api",)),)), min_available=2),
     PodDisruptionBudget("default", "web", LabelSelector((Requirement("app", "In", ("api",)),)), min_available=2)),
    # A count the manifest states is a what-if: as written.
    (COUNTED, PodDisruptionBudget("default", "web", WEB, min_available=2, counted=True),
     PodDisruptionBudget("default", "web", WEB, min_available=2, counted=True)),
    # A ResourceClaim keeps the scheduler's allocation and reservations.
    (RUNNING_RESOURCE_CLAIM, ResourceClaim("default", "gpu"),
     ResourceClaim("default", "gpu", uid="u-gpu", allocation=GRANTED, reserved_for=RUNNING_RESOURCE_CLAIM.reserved_for)),
    # Kinds without server-owned fields kwhatif reads: as written.
    (Service("default", "web", {"app": "old"}), Service("default", "web", {"app": "web"}),
     Service("default", "web", {"app": "web"})),
])
def test_applied_keeps_what_the_server_owns(old, new, expected):
    assert applied(old, new) == expected


HIGH = PriorityClass("high", 100000)


@pytest.mark.parametrize("classes, written, field", [
    # ValidatePriorityClassUpdate: value and preemptionPolicy are immutable.
    ({"high": HIGH}, PriorityClass("high", 2000000), "value"),
    ({"high": HIGH}, PriorityClass("high", 100000, preemption_policy="Never"), "preemptionPolicy"),
    # The Priority admission plugin: only one globalDefault.
    ({"base": PriorityClass("base", 0, global_default=True)}, PriorityClass("high", 1, global_default=True),
     "globalDefault"),
])
def test_a_priority_class_change_the_api_server_refuses_is_an_input_error(classes, written, field):
    cluster = Cluster(priority_classes=dict(classes))
    with pytest.raises(InputError) as err:
        apply_object(cluster, written)
    assert (err.value.obj, err.value.field) == (f"PriorityClass/{written.name}", field)
    assert cluster.priority_classes == classes  # nothing applied


@pytest.mark.parametrize("written", [PriorityClass("high", 100000), PriorityClass("new", 5, global_default=True)])
def test_a_priority_class_applied_again_or_new_is_taken(written):
    cluster = Cluster(priority_classes={"high": HIGH})
    apply_object(cluster, written)
    assert cluster.priority_classes[written.name] == written
