"""VolumeBinding with CSIStorageCapacity (binder.go:hasEnoughCapacity, capacitySufficient,
nodeHasAccess). The table is kubernetes `volumebinding/binder_test.go` TestCapacity: one claim of
1Gi to provision with class `wait-with-provisioner`, judged on node1; each scenario runs with the
CSIDriver opted in (`storageCapacity: true`) and opted out (then no capacity check happens, every
scenario passes). The expected reasons are the upstream table's; the hand reasoning is beside
each case.
"""

from __future__ import annotations

from typing import Any

import pytest

from kwhatif.api.cluster import Cluster
from kwhatif.api.quantity import parse_quantity
from kwhatif.api.selectors import LabelSelector, Requirement
from kwhatif.api.storage import CSIDriver, CSIStorageCapacity, StorageClass
from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.status import Code
from kwhatif.plugins.volume_binding import VolumeBinding
from kwhatif.plugins.volume_binding.storage import ANN_SELECTED_NODE, storage_of
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot
from tests.builders import Handle, make_node
from tests.plugins.test_volume_binding import HOST, pod, pvc, run

PROVISIONER = "test-provisioner"
WAIT_WITH_PROVISIONER = "wait-with-provisioner"
WAIT_OTHER = "wait"
NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
UU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE

NODE1 = make_node("node1", labels={HOST: "node1"})
NODE2 = make_node("node2", labels={HOST: "node2"})


def capacity(node: str | None, size: str, maximum: str = "", cls: str = WAIT_WITH_PROVISIONER,
             topology: bool = True) -> CSIStorageCapacity:
    """makeCapacity: nodeTopology `{}` (every node) or `hostname=<node>`; an empty size is unset."""
    selector = LabelSelector((Requirement(HOST, "In", (node,)),) if node else ()) if topology else None
    return CSIStorageCapacity("default", f"cap-{node}-{size}-{maximum}", cls, selector,
                              parse_quantity(size) if size else None, parse_quantity(maximum) if maximum else None)


def setup(capacities: tuple[CSIStorageCapacity, ...], opt_in: bool = True, size: str = "1Gi",
          **claim: Any) -> tuple[VolumeBinding, Snapshot]:
    classes = [StorageClass(WAIT_WITH_PROVISIONER, PROVISIONER, "WaitForFirstConsumer"),
               StorageClass(WAIT_OTHER, "other-provisioner", "WaitForFirstConsumer")]
    claims = [pvc("provisioned-pvc", cls=WAIT_WITH_PROVISIONER, size=size, **claim)]
    cluster = Cluster(nodes=[NODE1, NODE2], pvcs={(c.namespace, c.name): c for c in claims},
                      storage_classes={c.name: c for c in classes},
                      csi_drivers={PROVISIONER: CSIDriver(PROVISIONER, storage_capacity=opt_in)},
                      csi_storage_capacities=list(capacities))
    snapshot = Snapshot.build(cluster, [])
    return VolumeBinding(None, Handle(snapshot)), snapshot


def node1_outcome(capacities: tuple[CSIStorageCapacity, ...], opt_in: bool = True, **claim: Any) -> Any:
    plugin, snapshot = setup(capacities, opt_in, **claim)
    pre, nodes = run(plugin, snapshot, pod(claims=("provisioned-pvc",)))
    assert pre is None
    return nodes["node1"]


SHORT = (UU, (NOT_ENOUGH_SPACE,))

CASES = [
    pytest.param((capacity(None, "1Gi"),), None,
                 id="network-attached: an empty nodeTopology reaches every node, 1Gi >= 1Gi"),
    pytest.param((capacity("node1", "1Gi"),), None, id="local-storage: node1's own capacity of 1Gi fits 1Gi"),
    pytest.param((capacity(None, "1Gi"), capacity("node2", "1Gi"), capacity("node1", "1Gi")), None,
                 id="multiple: any one capacity that fits is enough"),
    pytest.param((), SHORT, id="no-storage: without a CSIStorageCapacity nothing has room"),
    pytest.param((capacity("node2", "1Gi"),), SHORT, id="wrong-node: node2's capacity does not reach node1"),
    pytest.param((capacity("node1", "1Gi", cls=WAIT_OTHER),), SHORT,
                 id="wrong-storage-class: a capacity of another class does not count"),
    pytest.param((capacity("node1", "1Mi"),), SHORT, id="insufficient-storage: 1Mi < 1Gi"),
    pytest.param((capacity("node1", "1Gi", "1Mi"),), SHORT,
                 id="insufficient-volume-size: maximumVolumeSize 1Mi wins over capacity 1Gi, 1Mi < 1Gi"),
    pytest.param((capacity("node1", "0Mi"),), SHORT, id="zero storage: 0 < 1Gi"),
    pytest.param((capacity("node1", ""),), SHORT, id="nil storage: neither capacity nor maximumVolumeSize set"),
    pytest.param((capacity("node1", "1Gi", topology=False),), SHORT,
                 id="a capacity without nodeTopology reaches no node (nodeHasAccess)"),
    pytest.param((capacity("node1", "1Mi", "2Gi"),), None,
                 id="maximumVolumeSize 2Gi is read instead of capacity 1Mi: 2Gi >= 1Gi"),
]


@pytest.mark.parametrize(("capacities", "expected"), CASES)
def test_capacity_with_the_driver_opted_in(capacities: tuple[CSIStorageCapacity, ...], expected: Any) -> None:
    assert node1_outcome(capacities) == expected


@pytest.mark.parametrize(("capacities", "expected"), CASES)
def test_capacity_is_not_checked_when_the_driver_does_not_opt_in(capacities: tuple[CSIStorageCapacity, ...],
                                                                  expected: Any) -> None:
    # TestCapacity with optIn=false: expectedReasons = nil whatever the capacities.
    assert node1_outcome(capacities, opt_in=False) is None


def test_a_claim_without_a_storage_request_is_not_checked() -> None:
    # hasEnoughCapacity: no `requests.storage` → "No capacity to check for" → true.
    plugin, snapshot = setup((), size="1Gi")
    claim = storage_of(snapshot).pvcs[("default", "provisioned-pvc")]
    storage_of(snapshot).pvcs[("default", "provisioned-pvc")] = claim.evolve(requested_storage=None)
    assert run(plugin, snapshot, pod(claims=("provisioned-pvc",)))[1] == {"node1": None, "node2": None}


def test_a_provisioner_without_a_csidriver_object_is_not_checked() -> None:
    # csiDriverLister.Get NotFound → "the provisioner is not a CSI driver" → true.
    plugin, snapshot = setup(())
    storage_of(snapshot).csi_drivers = {}
    assert run(plugin, snapshot, pod(claims=("provisioned-pvc",)))[1] == {"node1": None, "node2": None}


def test_the_request_is_compared_in_whole_bytes() -> None:
    # Quantity.Value rounds up: a request of 1500m bytes is 2 bytes; a capacity of 2 fits it, 1 does not.
    assert node1_outcome((capacity(None, "2"),), size="1500m") is None
    assert node1_outcome((capacity(None, "1"),), size="1500m") == SHORT


def test_a_claim_already_provisioning_for_the_node_is_checked_too() -> None:
    # FindPodVolumes: a claim with selected-node == node goes to checkVolumeProvisions like the others.
    outcome = node1_outcome((capacity("node2", "1Gi"),), annotations={ANN_SELECTED_NODE: "node1"})
    assert outcome == SHORT


def test_reserve_marks_the_claim_for_provisioning_on_the_node_with_room() -> None:
    # node2 has room (2Gi >= 1Gi), node1 none: only node2 passes; Reserve selects it for the claim.
    plugin, snapshot = setup((capacity("node2", "2Gi"),))
    state = CycleState()
    info = PodInfo.of(pod(claims=("provisioned-pvc",)))
    plugin.pre_filter(state, info, snapshot.node_infos)
    assert [plugin.filter(state, info, n) is None for n in snapshot.node_infos] == [False, True]
    plugin.reserve(state, info, "node2")
    assert storage_of(snapshot).pvcs[("default", "provisioned-pvc")].annotations[ANN_SELECTED_NODE] == "node2"
