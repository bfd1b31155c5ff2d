"""The structured allocator, ported from the v1.34.1 table of
staging/src/k8s.io/dynamic-resource-allocation/structured/internal/allocatortesting/allocator_testing.go
(the case names are upstream's; each expected result is upstream's). Devices are named as there:
driver-a/pool-1/device-1 and so on; `None` means "no allocation on this node", an `AllocatorError`
the substring of upstream's expected error."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import pytest

from kwhatif.api.cluster import Cluster
from kwhatif.api.dra import (
    Allocation, Device, DeviceClass, DeviceConstraint, DeviceRequest, DeviceResult, DeviceSubRequest, ResourceClaim,
    ResourceSlice, Version,
)
from kwhatif.plugins.dynamic_resources.allocator import Allocator, AllocatorError
from kwhatif.plugins.dynamic_resources.index import DraIndex
from kwhatif.plugins.dynamic_resources.selectors import compile_selector, device_matches
from tests.builders import make_node

DRIVER_A, DRIVER_B = "driver-a", "driver-b"
CLASS_A, CLASS_B = "class-a", "class-b"


def klass(name: str, driver: str) -> DeviceClass:
    return DeviceClass(name, (f'device.driver == "{driver}"',))


def dev(name: str, **attributes: object) -> Device:
    return Device(name, dict(attributes))  # type: ignore[arg-type]


def slice_(name: str, pool: str, driver: str, *devices: Device, node: str | None = "node-1",
           count: int = 1, generation: int = 1, all_nodes: bool = False) -> ResourceSlice:
    return ResourceSlice(name, driver, pool, generation, count, devices,
                         node_name=None if all_nodes else node, all_nodes=all_nodes)


def req(name: str, klass_name: str = CLASS_A, count: int = 1, mode: str = "ExactCount", admin: bool = False,
        selectors: tuple[str, ...] = ()) -> DeviceRequest:
    return DeviceRequest(name, exactly=DeviceSubRequest(name, klass_name, selectors, mode, count, admin))


def first_available(name: str, *subs: DeviceSubRequest) -> DeviceRequest:
    return DeviceRequest(name, first_available=subs)


def claim(name: str, *requests: DeviceRequest, constraints: tuple[DeviceConstraint, ...] = ()) -> ResourceClaim:
    return ResourceClaim("default", name, requests=requests, constraints=constraints)


def result(request: str, driver: str, pool: str, device: str, admin: bool = False) -> DeviceResult:
    return DeviceResult(request, driver, pool, device, admin)


@dataclass
class Case:
    claims: list[ResourceClaim]
    slices: list[ResourceSlice]
    expect: list[tuple[DeviceResult, ...]] | None | str
    classes: list[DeviceClass] = field(default_factory=lambda: [klass(CLASS_A, DRIVER_A), klass(CLASS_B, DRIVER_B)])
    allocated: list[tuple[str, str, str]] = field(default_factory=list)


ONE = slice_("slice-1", "pool-1", DRIVER_A, dev("device-1"))
TWO = slice_("slice-1", "pool-1", DRIVER_A, dev("device-1"), dev("device-2"))

CASES = {
    "simple: one request gets the one device": Case(
        [claim("claim-0", req("req-0"))], [ONE], [(result("req-0", DRIVER_A, "pool-1", "device-1"),)]),
    "other-node: a slice of another node offers nothing": Case(
        [claim("claim-0", req("req-0"))], [slice_("slice-1", "pool-1", DRIVER_A, dev("device-1"), node="node-2")],
        None),
    "small-and-large: two requests of one claim take two devices in order": Case(
        [claim("claim-0", req("req-0"), req("req-1"))], [TWO],
        [(result("req-0", DRIVER_A, "pool-1", "device-1"), result("req-1", DRIVER_A, "pool-1", "device-2"))]),
    "not-enough-suitable-devices: two claims, one device": Case(
        [claim("claim-0", req("req-0")), claim("claim-1", req("req-1"))], [ONE], None),
    "no-slices: nothing to allocate from": Case([claim("claim-0", req("req-0"))], [], None),
    "unknown-class: the class lookup fails": Case(
        [claim("claim-0", req("req-0", "unknown-class"))], [ONE], "could not retrieve device class unknown-class"),
    "already-allocated-devices: a device taken by another claim is skipped": Case(
        [claim("claim-0", req("req-0"))], [TWO], [(result("req-0", DRIVER_A, "pool-1", "device-2"),)],
        allocated=[(DRIVER_A, "pool-1", "device-1")]),
    "obsolete-slice: only the newest generation of a pool counts": Case(
        [claim("claim-0", req("req-0"))],
        [slice_("slice-1-obsolete", "pool-1", DRIVER_A, dev("device-1")),
         slice_("slice-1-new", "pool-1", DRIVER_A, dev("device-2"), generation=2)],
        [(result("req-0", DRIVER_A, "pool-1", "device-2"),)]),
    "all-devices-single: All takes the one device": Case(
        [claim("claim-0", req("req-0", mode="All", count=0))], [ONE],
        [(result("req-0", DRIVER_A, "pool-1", "device-1"),)]),
    "all-devices-many: All takes the devices of every pool": Case(
        [claim("claim-0", req("req-0", mode="All", count=0))],
        [slice_("slice-1", "pool-1", DRIVER_A, dev("device-1")), slice_("slice-2", "pool-2", DRIVER_A, dev("device-1"))],
        [(result("req-0", DRIVER_A, "pool-1", "device-1"), result("req-0", DRIVER_A, "pool-2", "device-1"))]),
    "all-devices-of-the-incomplete-pool: All refuses a pool being updated": Case(
        [claim("claim-0", req("req-0", mode="All", count=0))],
        [slice_("slice-1", "pool-1", DRIVER_A, dev("device-1"), count=2)],
        "claim default/claim-0, request req-0: asks for all devices, but resource pool driver-a/pool-1 is currently being updated"),
    "all-devices-plus-another: All of one driver and one of another": Case(
        [claim("claim-0", req("req-0", mode="All", count=0)), claim("claim-1", req("req-0", CLASS_B))],
        [ONE, slice_("slice-1", "pool-1", DRIVER_B, dev("device-1"))],
        [(result("req-0", DRIVER_A, "pool-1", "device-1"),), (result("req-0", DRIVER_B, "pool-1", "device-1"),)]),
    "all-devices-no-solution: one device wanted by ExactCount then All": Case(
        [claim("claim-1", req("req-0")), claim("claim-0", req("req-0", mode="All", count=0))], [ONE], None),
    "all-devices-no-solution-reversed: one device wanted by All then ExactCount": Case(
        [claim("claim-0", req("req-0", mode="All", count=0)), claim("claim-1", req("req-0"))], [ONE], None),
    "all-devices-slice-without-devices: All needs at least one device": Case(
        [claim("claim-0", req("req-0", mode="All", count=0))], [slice_("slice-1", "pool-1", DRIVER_A)], None),
    "all-devices-some-allocated: All fails when one device is taken": Case(
        [claim("claim-0", req("req-0", mode="All", count=0))], [TWO], None, allocated=[(DRIVER_A, "pool-1", "device-1")]),
    "all-devices-some-allocated-admin-access: admin access takes devices in use too": Case(
        [claim("claim-0", req("req-0", mode="All", count=0, admin=True))], [TWO],
        [(result("req-0", DRIVER_A, "pool-1", "device-1", True), result("req-0", DRIVER_A, "pool-1", "device-2", True))],
        allocated=[(DRIVER_A, "pool-1", "device-1")]),
    "all-devices-some-allocating-admin-access: not the same device twice within one claim": Case(
        [claim("claim-0", req("req-0", admin=True), req("req-1", mode="All", count=0, admin=True))], [TWO], None),
    "with-constraint: matchAttribute picks devices with equal values": Case(
        [claim("claim-0", req("req-0"), req("req-1"), constraints=(DeviceConstraint((), "driver-a/numa"),))],
        [slice_("slice-1", "pool-1", DRIVER_A, dev("device-1", numa=1), dev("device-2", numa=2), dev("device-3", numa=1))],
        [(result("req-0", DRIVER_A, "pool-1", "device-1"), result("req-1", DRIVER_A, "pool-1", "device-3"))]),
    "with-constraint-not-matching-attribute: devices without the attribute never satisfy it": Case(
        [claim("claim-0", req("req-0"), constraints=(DeviceConstraint(("req-0",), "driver-a/numa"),))], [ONE], None),
    "with-constraint-for-request: a constraint on other requests does not bind this one": Case(
        [claim("claim-0", req("req-0"), req("req-1"), constraints=(DeviceConstraint(("req-1",), "driver-a/numa"),))],
        [slice_("slice-1", "pool-1", DRIVER_A, dev("device-1"), dev("device-2", numa=1))],
        [(result("req-0", DRIVER_A, "pool-1", "device-1"), result("req-1", DRIVER_A, "pool-1", "device-2"))]),
    "with-class-selector: CEL on an attribute filters devices": Case(
        [claim("claim-0", req("req-0", selectors=('device.attributes["driver-a"].model == "b"',)))],
        [slice_("slice-1", "pool-1", DRIVER_A, dev("device-1", model="a"), dev("device-2", model="b"))],
        [(result("req-0", DRIVER_A, "pool-1", "device-2"),)]),
    "invalid-CEL-one-device: a runtime error aborts the allocation": Case(
        [claim("claim-0", req("req-0", selectors=('device.attributes["driver-a"].missing == 1',)))], [ONE],
        "claim default/claim-0: selector #0: CEL runtime error: no such key: missing"),
    "prioritized-list-first-unavailable: the second alternative is taken": Case(
        [claim("claim-0", first_available("req-0", DeviceSubRequest("sub-0", CLASS_A, (), "ExactCount", 2),
                                          DeviceSubRequest("sub-1", CLASS_A)))], [ONE],
        [(result("req-0/sub-1", DRIVER_A, "pool-1", "device-1"),)]),
    "prioritized-list-all-devices: the first alternative that works wins": Case(
        [claim("claim-0", first_available("req-0", DeviceSubRequest("sub-0", CLASS_B),
                                          DeviceSubRequest("sub-1", CLASS_A, (), "All", 0)))], [TWO],
        [(result("req-0/sub-1", DRIVER_A, "pool-1", "device-1"), result("req-0/sub-1", DRIVER_A, "pool-1", "device-2"))]),
    "network-attached-device: an allNodes slice serves every node": Case(
        [claim("claim-0", req("req-0"))], [slice_("slice-1", "pool-1", DRIVER_A, dev("device-1"), all_nodes=True)],
        [(result("req-0", DRIVER_A, "pool-1", "device-1"),)]),
}


def _index(case: Case) -> DraIndex:
    taken = tuple(result("other", d, p, n) for d, p, n in case.allocated)
    cluster = Cluster(
        device_classes={c.name: c for c in case.classes},
        resource_slices={f"{s.driver}/{s.name}": s for s in case.slices},
        resource_claims={("default", "other"): ResourceClaim("default", "other", allocation=Allocation(taken))}
        if taken else {},
    )
    return DraIndex(cluster)


@pytest.mark.parametrize("case", [pytest.param(c, id=name) for name, c in CASES.items()])
def test_allocate(case: Case) -> None:
    allocator = Allocator(_index(case), make_node("node-1"), case.claims)
    if isinstance(case.expect, str):
        with pytest.raises(AllocatorError) as err:
            allocator.allocate()
        assert case.expect in str(err.value)
        return
    found = allocator.allocate()
    assert (None if found is None else [a.results for a in found]) == case.expect


@pytest.mark.parametrize("selector, expected", [
    pytest.param('device.attributes["driver-a"].model ==', "claim default/claim-0: selector #0: CEL compile error",
                 id="a selector that does not parse is a compile error naming the claim"),
    pytest.param('device.attributes["driver-a"].model == "x"', "CEL runtime error: no such key: model",
                 id="a missing attribute in a known domain is a runtime error"),
])
def test_cel_errors_abort_allocation(selector: str, expected: str) -> None:
    case = Case([claim("claim-0", req("req-0", selectors=(selector,)))], [ONE], None)
    with pytest.raises(AllocatorError) as err:
        Allocator(_index(case), make_node("node-1"), case.claims).allocate()
    assert expected in str(err.value)


def test_too_many_devices_for_one_claim() -> None:
    # allocator: "claim %s: number of requested devices %d exceeds the claim limit of %d" (32).
    case = Case([claim("claim-0", req("req-0", count=20), req("req-1", count=13))], [ONE], None)
    with pytest.raises(AllocatorError, match="number of requested devices 33 exceeds the claim limit of 32"):
        Allocator(_index(case), make_node("node-1"), case.claims).allocate()


@pytest.mark.parametrize("expression, expected", [
    pytest.param('device.capacity["driver-a"].memory.compareTo(quantity("40Gi")) >= 0', True, id="48Gi >= 40Gi"),
    pytest.param('device.capacity["driver-a"].memory.isGreaterThan(quantity("64Gi"))', False, id="48Gi > 64Gi"),
    pytest.param('device.capacity["driver-a"].memory == quantity("48Gi")', True, id="quantities equal by value"),
    pytest.param('device.attributes["driver-a"].version.isGreaterThan(semver("1.9.0"))', True,
                 id="semver 1.10.0 > 1.9.0 by precedence, not text"),
    pytest.param('device.attributes["other.example.com"].size() == 0', True, id="an unknown domain is an empty map"),
    pytest.param('has(device.attributes["driver-a"].missing)', False, id="has() on a missing name is false"),
    pytest.param('device.attributes["driver-a"].cores >= 120', True, id="int attributes compare as ints"),
])
def test_cel_environment(expression: str, expected: bool) -> None:
    device = Device("gpu-0", {"version": Version("1.10.0"), "cores": 128}, {"memory": Fraction(48 * 2**30)})
    assert device_matches(compile_selector(expression), DRIVER_A, device) is expected


def test_the_claim_size_limit_holds_on_a_node_without_devices_too() -> None:
    # Allocate validates every request before searching, whatever the node offers.
    case = Case([claim("claim-0", req("req-0", count=20), req("req-1", count=13))], [], None)
    with pytest.raises(AllocatorError, match="number of requested devices 33 exceeds the claim limit of 32"):
        Allocator(_index(case), make_node("node-1"), case.claims).allocate()


def test_a_claim_without_requests_is_allocated_even_where_there_are_no_devices() -> None:
    case = Case([claim("claim-0")], [], None)
    found = Allocator(_index(case), make_node("node-1"), case.claims).allocate()
    assert found is not None and [a.results for a in found] == [()]
