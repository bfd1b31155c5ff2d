"""The structured allocator, ported from the v1.34.1 table of
staging/src/k8s.io/dynamic-resource-allocation/structured/internal/allocatortesting/allocator_testing.go
(the case names are upstream's; each expected result is upstream's). Devices are named as there:
driver-a/pool-1/device-1 and so on; `None` means "no allocation on this node", an `AllocatorError`
the substring of upstream's expected error."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import pytest

from kwhatif.api.affinity import NodeSelector, NodeSelectorTerm
from kwhatif.api.cluster import Cluster
from kwhatif.api.dra import (
    Allocation, Device, DeviceClass, DeviceConstraint, DeviceRequest, DeviceResult, DeviceSubRequest, ResourceClaim,
    ResourceSlice, Version,
)
from kwhatif.api.selectors import Requirement
from kwhatif.plugins.dynamic_resources.allocator import Allocator, AllocatorError
from kwhatif.plugins.dynamic_resources.index import DraIndex
from kwhatif.api.cel import CelError, compile_selector
from kwhatif.plugins.dynamic_resources.selectors import device_matches
from tests.builders import make_node

DRIVER_A, DRIVER_B = "driver-a", "driver-b"
CLASS_A, CLASS_B = "class-a", "class-b"


def klass(name: str, driver: str) -> DeviceClass:
    return DeviceClass(name, (f'device.driver == "{driver}"',))


def dev(name: str, **attributes: object) -> Device:
    return Device(name, dict(attributes))  # type: ignore[arg-type]


def slice_(name: str, pool: str, driver: str, *devices: Device, node: str | None = "node-1",
           count: int = 1, generation: int = 1, all_nodes: bool = False,
           selector: NodeSelector | None = None) -> ResourceSlice:
    local = not all_nodes and selector is None
    return ResourceSlice(name, driver, pool, generation, count, devices,
                         node_name=node if local else None, all_nodes=all_nodes, node_selector=selector)


def label_selector(key: str, value: str) -> NodeSelector:
    """nodeLabelSelector of the upstream table: one term, one `In` expression."""
    return NodeSelector((NodeSelectorTerm((Requirement(key, "In", (value,)),)),))


def field_selector(node: str) -> NodeSelector:
    """localNodeSelector of the upstream table: metadata.name In [node]."""
    return NodeSelector((NodeSelectorTerm((), (Requirement("metadata.name", "In", (node,)),)),))


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
    # A subrequest is named by its own name (deviceSubRequestAccessor.name()), not parent/sub.
    "all-devices-of-the-incomplete-pool-in-a-subrequest: the subrequest's own name": Case(
        [claim("claim-0", first_available("req-0", DeviceSubRequest("every", CLASS_A, (), "All", 0)))],
        [slice_("slice-1", "pool-1", DRIVER_A, dev("device-1"), count=2)],
        "claim default/claim-0, request every: asks for all devices, but resource pool driver-a/pool-1 is currently "
        "being updated"),
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
    "separate-claims-share-device-admin-access: admin access lets two claims share a device": Case(
        [claim("claim-0", req("req-0", admin=True)), claim("claim-1", req("req-0", admin=True))], [TWO],
        [(result("req-0", DRIVER_A, "pool-1", "device-1", True),), (result("req-0", DRIVER_A, "pool-1", "device-1", True),)]),
    "admin-access-claims-device-allocating-for-non-admin-access: admin access ignores another claim's pick": Case(
        [claim("claim-0", req("req-0")), claim("claim-1", req("req-0", admin=True))], [TWO],
        [(result("req-0", DRIVER_A, "pool-1", "device-1"),), (result("req-0", DRIVER_A, "pool-1", "device-1", True),)]),
    "admin-access-enabled: admin access takes a device allocated elsewhere": Case(
        [claim("claim-0", req("req-0", admin=True))], [ONE], [(result("req-0", DRIVER_A, "pool-1", "device-1", True),)],
        allocated=[(DRIVER_A, "pool-1", "device-1"), (DRIVER_A, "pool-1", "device-2")]),
    "already-allocated-devices: nothing left": Case(
        [claim("claim-0", req("req-0"))], [ONE], None,
        allocated=[(DRIVER_A, "pool-1", "device-1"), (DRIVER_A, "pool-1", "device-2")]),
    "all-devices-slice-without-devices-prioritized-list: All of nothing fails, the next alternative serves": Case(
        [claim("claim-0", first_available("req-0", DeviceSubRequest("subReq-0", CLASS_A, (), "All", 0),
                                          DeviceSubRequest("subReq-1", CLASS_B)))],
        [slice_("slice-1", "pool-1", DRIVER_A), slice_("slice-2", "pool-2", DRIVER_B, dev("device-1"))],
        [(result("req-0/subReq-1", DRIVER_B, "pool-2", "device-1"),)]),
    "all-devices-some-allocated-prioritized-list: All blocked by a taken device, the next alternative serves": Case(
        [claim("claim-0", first_available("req-0", DeviceSubRequest("subReq-0", CLASS_A, (), "All", 0),
                                          DeviceSubRequest("subReq-1", CLASS_B)))],
        [TWO, slice_("slice-2", "pool-2", DRIVER_B, dev("device-1"))],
        [(result("req-0/subReq-1", DRIVER_B, "pool-2", "device-1"),)], allocated=[(DRIVER_A, "pool-1", "device-1")]),
    "network-attached-device: a slice for the node's region": Case(
        [claim("claim-0", req("req-0"))],
        [slice_("slice-1", "pool-1", DRIVER_A, dev("device-1"), selector=label_selector("region", "region-1"))],
        [(result("req-0", DRIVER_A, "pool-1", "device-1"),)]),
    "unsuccessful-allocation-network-attached-device: a slice for another region": Case(
        [claim("claim-0", req("req-0"))],
        [slice_("slice-1", "pool-1", DRIVER_A, dev("device-1"), selector=label_selector("region", "region-2"))], None),
    "several-different-drivers: one claim per driver": Case(
        [claim("claim-0", req("req-0")), claim("claim-0", req("req-0", CLASS_B))],
        [TWO, slice_("slice-1", "pool-1", DRIVER_B, dev("device-1"))],
        [(result("req-0", DRIVER_A, "pool-1", "device-1"),), (result("req-0", DRIVER_B, "pool-1", "device-1"),)]),
    "with-constraint: int, version, string and bool attributes all equal": Case(
        [claim("claim-0", req("req-0"), req("req-1"), constraints=tuple(
            DeviceConstraint((), f"driver-a/{a}") for a in ("numa", "driverVersion", "stringAttribute", "boolAttribute")))],
        [slice_("slice-1", "pool-1", DRIVER_A, *(Device(f"device-{i}", {
            "driverVersion": Version("1.0.0"), "numa": 1, "stringAttribute": "stringAttributeValue",
            "boolAttribute": True}) for i in (1, 2)))],
        [(result("req-0", DRIVER_A, "pool-1", "device-1"), result("req-1", DRIVER_A, "pool-1", "device-2"))]),
    "with-constraint-non-existent-attribute: no device has it": Case(
        [claim("claim-0", req("req-0"), constraints=(DeviceConstraint((), "driver-a/nonExistentAttribute"),))],
        [ONE], None),
    "with-constraint-not-matching-int-attribute: numa 1 and 2 cannot pair": Case(
        [claim("claim-0", req("req-0", count=2), constraints=(DeviceConstraint((), "driver-a/numa"),))],
        [slice_("slice-1", "pool-1", DRIVER_A, dev("device-1", numa=1), dev("device-2", numa=2))], None),
    "with-constraint-not-matching-string-attribute: different strings cannot pair": Case(
        [claim("claim-0", req("req-0", count=2), constraints=(DeviceConstraint((), "driver-a/stringAttribute"),))],
        [slice_("slice-1", "pool-1", DRIVER_A, dev("device-1", stringAttribute="stringAttributeValue"),
                dev("device-2", stringAttribute="stringAttributeValue2"))], None),
    "with-constraint-not-matching-bool-attribute: true and false cannot pair": Case(
        [claim("claim-0", req("req-0", count=2), constraints=(DeviceConstraint((), "driver-a/boolAttribute"),))],
        [slice_("slice-1", "pool-1", DRIVER_A, dev("device-1", boolAttribute=True), dev("device-2", boolAttribute=False))],
        None),
    "with-constraint-not-matching-int-attribute-all-devices: All under a broken constraint is an error": Case(
        [claim("claim-0", req("req-0", mode="All", count=0), constraints=(DeviceConstraint((), "driver-a/numa"),))],
        [slice_("slice-1", "pool-1", DRIVER_A, dev("device-1", numa=1), dev("device-2", numa=2))],
        "claim default/claim-0, request req-0: cannot add device driver-a/pool-1/device-2 because a claim "
        "constraint would not be satisfied"),
    "network-attached-device: an allNodes slice serves every node": Case(
        [claim("claim-0", req("req-0"))], [slice_("slice-1", "pool-1", DRIVER_A, dev("device-1"), all_nodes=True)],
        [(result("req-0", DRIVER_A, "pool-1", "device-1"),)]),
}


NODE_1 = make_node("node-1", labels={"region": "region-1", "planet": "earth"})


def _index(case: Case) -> DraIndex:
    taken = tuple(result("other", d, p, n) for d, p, n in case.allocated)
    cluster = Cluster(
        device_classes={c.name: c for c in case.classes},
        resource_slices={f"{s.driver}/{s.pool}/{s.name}": s for s in case.slices},  # upstream reuses names
        resource_claims={("default", "other"): ResourceClaim("default", "other", allocation=Allocation(taken))}
        if taken else {},
    )
    return DraIndex(cluster)


@pytest.mark.parametrize("case", [pytest.param(c, id=name) for name, c in CASES.items()])
def test_allocate(case: Case) -> None:
    allocator = Allocator(_index(case), NODE_1, case.claims)
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
        Allocator(_index(case), NODE_1, case.claims).allocate()
    assert expected in str(err.value)


def test_too_many_devices_for_one_claim() -> None:
    # allocator: "claim %s: number of requested devices %d exceeds the claim limit of %d" (32).
    case = Case([claim("claim-0", req("req-0", count=20), req("req-1", count=13))], [ONE], None)
    with pytest.raises(AllocatorError, match="number of requested devices 33 exceeds the claim limit of 32"):
        Allocator(_index(case), NODE_1, case.claims).allocate()


@pytest.mark.parametrize("expression, expected", [
    pytest.param('device.capacity["driver-a"].memory.compareTo(quantity("40Gi")) >= 0', True, id="48Gi >= 40Gi"),
    pytest.param('device.capacity["driver-a"].memory.isGreaterThan(quantity("64Gi"))', False, id="48Gi > 64Gi"),
    pytest.param('device.capacity["driver-a"].memory == quantity("48Gi")', True, id="quantities equal by value"),
    pytest.param('device.attributes["driver-a"].version.isGreaterThan(semver("1.9.0"))', True,
                 id="semver 1.10.0 > 1.9.0 by precedence, not text"),
    pytest.param('device.attributes["other.example.com"].size() == 0', True, id="an unknown domain is an empty map"),
    pytest.param('device.attributes["other" + ".example.com"].size() == 0', True,
                 id="so is one the expression computes (compile.go's map with a default)"),
    pytest.param('!has(device.attributes[device.driver + ".x"].model)', True, id="has() in a computed unknown domain"),
    # ... but only a lookup has the default: the map's own keys are the device's domains.
    pytest.param('"other.example.com" in device.attributes', False, id="an unknown domain is not in the map"),
    pytest.param('device.attributes.exists(d, d == "other.example.com")', False, id="nor among its keys"),
    pytest.param('"driver-a" in device.attributes && device.capacity.exists(d, d == "driver-a")', True,
                 id="the device's own domains are"),
    # quantity.go: add/sub of an int add that many units (resource.NewQuantity(n)); its
    # documented example is quantity("50k").sub(20000) == quantity("30k").
    pytest.param('quantity("50k").sub(20000) == quantity("30k")', True, id="sub of an int: units"),
    pytest.param('quantity("1").add(1) == quantity("2") && quantity("500m").add(1) == quantity("1500m")', True,
                 id="add of an int: units"),
    pytest.param('device.capacity["driver-a"].memory.add(quantity("16Gi")) == quantity("64Gi")', True,
                 id="add of a quantity"),
    pytest.param('quantity("1000m") == quantity("1") && quantity("2").asInteger() == 2', True,
                 id="quantities equal by value; asInteger of a whole one"),
    pytest.param('!quantity("1500m").isInteger() && quantity("-3").sign() == -1', True, id="isInteger and sign"),
    pytest.param('has(device.attributes["driver-a"].missing)', False, id="has() on a missing name is false"),
    pytest.param('device.attributes["driver-a"].cores >= 120', True, id="int attributes compare as ints"),
    # The base environment's strings extension, lists and regex libraries (cel/compile.go
    # newCompiler on MustBaseEnvSet), expected values from their documented semantics:
    pytest.param('device.attributes["driver-a"].model.lowerAscii() == "a100-sxm"', True, id="lowerAscii"),
    pytest.param('device.attributes["driver-a"].model.upperAscii() == "A100-SXM"', True, id="upperAscii"),
    pytest.param('device.attributes["driver-a"].model.split("-") == ["A100", "SXM"]', True, id="split"),
    pytest.param('device.attributes["driver-a"].model.split("-", 1) == ["A100-SXM"]', True, id="split at most 1"),
    pytest.param('device.attributes["driver-a"].model.indexOf("SXM") == 5', True, id="indexOf a substring"),
    pytest.param('device.attributes["driver-a"].model.lastIndexOf("0") == 3', True, id="lastIndexOf"),
    pytest.param('device.attributes["driver-a"].model.substring(0, 4) == "A100"', True, id="substring"),
    pytest.param('device.attributes["driver-a"].model.charAt(1) == "1"', True, id="charAt"),
    pytest.param('device.attributes["driver-a"].model.replace("-", "_") == "A100_SXM"', True, id="replace"),
    pytest.param('"  x ".trim() == "x"', True, id="trim"),
    pytest.param('["a", "b"].join("-") == "a-b"', True, id="join"),
    pytest.param('[1, 2, 2].isSorted() && [3, 1].isSorted() == false', True, id="isSorted"),
    pytest.param('[1, 2, 3].sum() == 6 && [1, 2, 3].indexOf(2) == 1 && [1].indexOf(5) == -1', True,
                 id="sum and a list's indexOf"),
    pytest.param('device.attributes["driver-a"].model.find("[0-9]+") == "100"', True, id="regex find"),
    pytest.param('"a1b22".findAll("[0-9]+") == ["1", "22"]', True, id="regex findAll"),
    pytest.param('isSemver("1.2.3") && !isSemver("v1")', True, id="isSemver"),
])
def test_cel_environment(expression: str, expected: bool) -> None:
    device = Device("gpu-0", {"version": Version("1.10.0"), "cores": 128, "model": "A100-SXM"},
                    {"memory": Fraction(48 * 2**30)})
    assert device_matches(compile_selector(expression), DRIVER_A, device) is expected


@pytest.mark.parametrize("expression, expected", [
    # compile.go DeviceMatches: "CEL result of type %s could not be converted to bool: %w", %w
    # being the value's ConvertToNative(bool) error (cel-go types/string.go, types/int.go). An
    # attribute is dyn, so the API server's compile-time type check lets these through.
    pytest.param('device.attributes["driver-a"].model', "CEL result of type string could not be converted to bool: "
                 "unsupported native conversion from string to 'bool'", id="a string attribute"),
    pytest.param('device.attributes["driver-a"].cores', "CEL result of type int could not be converted to bool: "
                 "unsupported type conversion from 'int' to bool", id="an int attribute"),
    # cel-go types/err.go: errDivideByZero, errModulusByZero, errIntOverflow.
    pytest.param("1 / 0 == 1", "division by zero", id="an int divided by zero"),
    pytest.param("1 % 0 == 1", "modulus by zero", id="an int modulo zero"),
    pytest.param("9223372036854775807 + 1 == 0", "integer overflow", id="an int overflow"),
    # quantity.go quantityGetValue: a quantity that is no whole int64 cannot be asInteger()'d.
    pytest.param('quantity("1500m").asInteger() == 1', "cannot convert value to integer", id="asInteger of 1.5"),
    # cel-go has no `_>=_` for quantities: the API server refuses the selector (kwhatif does not
    # type-check): at least no silent answer here, but cel-go's runtime error.
    pytest.param('device.capacity["driver-a"].memory >= quantity("1")', "no such overload",
                 id="a quantity compared with >="),
    pytest.param('device.capacity["driver-a"].memory > 5', "no such overload", id="a quantity compared with an int"),
    pytest.param('device.capacity["driver-a"].memory', "CEL result of type kubernetes.Quantity could not be converted "
                 "to bool", id="a quantity"),
])
def test_cel_runtime_errors_are_cel_gos(expression: str, expected: str) -> None:
    device = Device("gpu-0", {"cores": 128, "model": "A100-SXM"}, {"memory": Fraction(2**30)})
    with pytest.raises(CelError) as err:
        device_matches(compile_selector(expression), DRIVER_A, device)
    assert str(err.value) == expected


def test_the_claim_size_limit_holds_on_a_node_without_devices_too() -> None:
    # Allocate validates every request before searching, whatever the node offers.
    case = Case([claim("claim-0", req("req-0", count=20), req("req-1", count=13))], [], None)
    with pytest.raises(AllocatorError, match="number of requested devices 33 exceeds the claim limit of 32"):
        Allocator(_index(case), NODE_1, case.claims).allocate()


def test_a_claim_without_requests_is_allocated_even_where_there_are_no_devices() -> None:
    case = Case([claim("claim-0")], [], None)
    found = Allocator(_index(case), NODE_1, case.claims).allocate()
    assert found is not None and [a.results for a in found] == [()]


def test_many_network_attached_devices_get_the_union_of_their_selectors() -> None:
    # upstream "many-network-attached-devices": one term, the expressions of the region and planet
    # selectors and the field of the node-local selector; the allNodes slice adds nothing.
    case = Case([claim("claim-0", req("req-0", count=4))], [
        slice_("slice-1", "pool-1", DRIVER_A, dev("device-1"), selector=label_selector("region", "region-1")),
        slice_("slice-1", "pool-2", DRIVER_A, dev("device-1"), all_nodes=True),
        slice_("slice-1", "pool-3", DRIVER_A, dev("device-1"), selector=label_selector("planet", "earth")),
        slice_("slice-1", "pool-4", DRIVER_A, dev("device-1"), selector=field_selector("node-1")),
    ], None)
    found = Allocator(_index(case), NODE_1, case.claims).allocate()
    assert found is not None
    assert [r.pool for r in found[0].results] == ["pool-1", "pool-2", "pool-3", "pool-4"]
    assert found[0].node_selector == NodeSelector((NodeSelectorTerm(
        (Requirement("region", "In", ("region-1",)), Requirement("planet", "In", ("earth",))),
        (Requirement("metadata.name", "In", ("node-1",)),)),))


def test_a_node_local_device_pins_the_allocation_to_its_node() -> None:
    # upstream "local-and-network-attached-devices": once any device is node-local, the selector is that node.
    case = Case([claim("claim-0", req("req-0", count=2))], [
        slice_("slice-1", "pool-1", DRIVER_A, dev("device-1"), selector=label_selector("region", "region-1")),
        slice_("slice-1", "pool-2", DRIVER_A, dev("device-1")),
    ], None)
    found = Allocator(_index(case), NODE_1, case.claims).allocate()
    assert found is not None and found[0].node_selector == field_selector("node-1")
