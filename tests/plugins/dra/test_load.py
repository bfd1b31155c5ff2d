"""Decoding resource.k8s.io objects (kwhatif/load/dra.py): the API server's defaults, and
one-line errors naming the object and the field for what it would refuse; v1beta1's shape read
as the API server converts it to v1."""

from __future__ import annotations

from fractions import Fraction

import pytest
import yaml

from kwhatif.api.dra import Version
from kwhatif.errors import InputError
from kwhatif.load.decode import decode
from tests.conformance.versions import as_v1beta1

CLAIM = """
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: ml, uid: u1}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.example.com}
    - name: any
      firstAvailable:
      - {name: big, deviceClassName: gpu.example.com, selectors: [{cel: {expression: "true"}}]}
      - {name: all, deviceClassName: gpu.example.com, allocationMode: All}
    constraints:
    - {requests: [gpu, any], matchAttribute: dra.example.com/pcieRoot}
status:
  allocation:
    devices:
      results: [{request: gpu, driver: gpu.example.com, pool: n1, device: gpu-0}]
    nodeSelector:
      nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n1]}]}]
  reservedFor: [{resource: pods, name: p, uid: pu}]
"""

SLICE = """
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpu}
spec:
  driver: gpu.example.com
  pool: {name: n1, generation: 3, resourceSliceCount: 2}
  nodeName: n1
  devices:
  - name: gpu-0
    attributes:
      model: {string: a100}
      cores: {int: 128}
      ok: {bool: true}
      driverVersion: {version: 1.2.3}
    capacity:
      memory: {value: 40Gi}
"""


def _decode(text: str) -> object:
    return decode(yaml.safe_load(text), None)


def test_claim_gets_the_api_defaults_and_its_status():
    claim = _decode(CLAIM)
    gpu, any_ = claim.requests
    # API defaults: allocationMode ExactCount, count 1 (types.go DeviceRequest defaults).
    assert (gpu.exactly.allocation_mode, gpu.exactly.count) == ("ExactCount", 1)
    assert [(s.name, s.allocation_mode) for s in any_.first_available] == [("big", "ExactCount"), ("all", "All")]
    assert claim.constraints[0].match_attribute == "dra.example.com/pcieRoot"
    assert claim.allocation.results[0].device == "gpu-0"
    assert claim.allocation.node_selector.matches({}, "n1") and not claim.allocation.node_selector.matches({}, "n2")
    assert claim.reserved_for[0].uid == "pu"


def test_slice_devices_keep_typed_attributes_and_capacity():
    s = _decode(SLICE)
    assert (s.pool, s.generation, s.slice_count, s.node_name) == ("n1", 3, 2, "n1")
    device = s.devices[0]
    assert device.attributes == {"model": "a100", "cores": 128, "ok": True, "driverVersion": Version("1.2.3")}
    assert device.capacity == {"memory": Fraction(40 * 2**30)}


CLAIM_V1BETA1 = yaml.safe_dump(as_v1beta1(yaml.safe_load(CLAIM)), sort_keys=False)
"""CLAIM at v1beta1, as the API server serves it: the request's class sits in the request itself,
not under `exactly`."""
SLICE_V1BETA1 = yaml.safe_dump(as_v1beta1(yaml.safe_load(SLICE)), sort_keys=False)
"""SLICE at v1beta1: the device's attributes and capacity under `basic`."""


@pytest.mark.parametrize("v1beta1, v1", [(CLAIM_V1BETA1, CLAIM), (SLICE_V1BETA1, SLICE),
                                          (CLAIM_V1BETA1.replace("kind: ResourceClaim", "kind: ResourceClaimTemplate")
                                           .replace("spec:\n  devices:", "spec:\n  spec:\n   devices:"),
                                           CLAIM.replace("kind: ResourceClaim", "kind: ResourceClaimTemplate")
                                           .replace("spec:\n  devices:", "spec:\n  spec:\n   devices:"))],
                         ids=["a claim", "a slice", "a claim template"])
def test_v1beta1_is_read_as_its_v1_conversion(v1beta1: str, v1: str):
    assert _decode(v1beta1) == _decode(v1)


@pytest.mark.parametrize("text, field, message", [
    pytest.param(CLAIM_V1BETA1.replace("deviceClassName: gpu.example.com\n", "selectors: []\n", 1),
                 "spec.devices.requests[0].deviceClassName", "Required value",
                 id="a v1beta1 request with selectors but no class"),
    pytest.param(CLAIM_V1BETA1.replace("      deviceClassName: gpu.example.com\n", "", 1), "spec.devices.requests[0]",
                 "exactly one of `deviceClassName` or `firstAvailable` is required",
                 id="a v1beta1 request with neither class nor alternatives"),
    pytest.param(SLICE_V1BETA1.replace("int: 128\n", "int: 128\n          string: x\n"),
                 "spec.devices[0].basic.attributes[cores]", "exactly one value",
                 id="a v1beta1 attribute with two values"),
    pytest.param(CLAIM.replace("exactly: {deviceClassName: gpu.example.com}", "exactly: {}"),
                 "spec.devices.requests[0].exactly.deviceClassName", "Required value", id="a request without class"),
    pytest.param(CLAIM.replace("allocationMode: All", "allocationMode: Some"),
                 "spec.devices.requests[1].firstAvailable[1].allocationMode", "Unsupported value",
                 id="an unknown allocation mode"),
    pytest.param(SLICE.replace("  nodeName: n1\n", ""), "spec", "exactly one of", id="a slice for no node"),
    pytest.param(SLICE.replace("{int: 128}", "{int: 128, string: x}"), "spec.devices[0].attributes[cores]",
                 "exactly one value", id="an attribute with two values"),
])
def test_refused_with_the_field_named(text: str, field: str, message: str):
    with pytest.raises(InputError) as err:
        _decode(text)
    assert field in str(err.value) and message in str(err.value)


POD = """
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ml}
spec:
  resourceClaims: [ENTRY]
  containers: [{name: c, image: x}]
"""


@pytest.mark.parametrize("entry, message", [
    pytest.param('"x"', 'spec.resourceClaims[0]: expected an object', id="an entry that is not an object"),
    pytest.param("{resourceClaimName: c}", "spec.resourceClaims[0].name: Required value", id="an entry without name"),
    pytest.param("{name: gpu}", "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`",
                 id="an entry without a source"),
    pytest.param("{name: gpu, resourceClaimName: c, resourceClaimTemplateName: t}", "must specify one of",
                 id="an entry with two sources"),
])
def test_pod_claim_entries_are_validated(entry: str, message: str):
    with pytest.raises(InputError) as err:
        _decode(POD.replace("ENTRY", entry))
    assert message in str(err.value) and "Pod/ml/p" in str(err.value)


def test_a_valid_pod_claim_entry_is_kept():
    pod = _decode(POD.replace("ENTRY", "{name: gpu, resourceClaimTemplateName: t}"))
    assert pod.resource_claims == ({"name": "gpu", "resourceClaimTemplateName": "t"},)


def test_a_capacity_without_value_is_refused():
    with pytest.raises(InputError, match=r"spec.devices\[0\].capacity\[memory\].value: Required value"):
        _decode(SLICE.replace("memory: {value: 40Gi}", "memory: {}"))


def test_a_v1beta1_count_of_0_beside_alternatives_is_unset() -> None:
    """conversion.go:hasAnyMainRequestFieldsSet takes `count: 0` (its zero value) as unset: the
    request is its alternatives alone, as at v1."""
    with_count = CLAIM_V1BETA1.replace("    - name: any\n      firstAvailable:", "    - name: any\n      count: 0\n      firstAvailable:")
    assert with_count != CLAIM_V1BETA1
    assert _decode(with_count) == _decode(CLAIM)


NOT_A_REQUEST = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"


@pytest.mark.parametrize("text, expected", [
    # validation.go validateSet over requests / firstAvailable: field.Duplicate at the later one.
    pytest.param(CLAIM.replace("- name: any", "- name: gpu"),
                 'ResourceClaim/ml/c: spec.devices.requests[1].name: Duplicate value: "gpu"',
                 id="two requests with one name"),
    pytest.param(CLAIM.replace("{name: all,", "{name: big,"),
                 'ResourceClaim/ml/c: spec.devices.requests[1].firstAvailable[1].name: Duplicate value: "big"',
                 id="two alternatives with one name"),
    pytest.param(CLAIM_V1BETA1.replace("- name: any", "- name: gpu"),
                 'ResourceClaim/ml/c: spec.devices.requests[1].name: Duplicate value: "gpu"',
                 id="two v1beta1 requests with one name"),
    # validateDeviceConstraint → validateRequestNameRef: `request` or `request/subrequest`.
    pytest.param(CLAIM.replace("requests: [gpu, any]", "requests: [gpu, nope]"),
                 f'ResourceClaim/ml/c: spec.devices.constraints[0].requests[1]: Invalid value: "nope": {NOT_A_REQUEST}',
                 id="a constraint on no request of the claim"),
    pytest.param(CLAIM.replace("requests: [gpu, any]", "requests: [gpu/big]"),
                 f'ResourceClaim/ml/c: spec.devices.constraints[0].requests[0]: Invalid value: "gpu/big": {NOT_A_REQUEST}',
                 id="a subrequest of a request that has none"),
    pytest.param(CLAIM.replace("requests: [gpu, any]", "requests: [any/small]"),
                 f'ResourceClaim/ml/c: spec.devices.constraints[0].requests[0]: Invalid value: "any/small": '
                 f"{NOT_A_REQUEST}", id="a subrequest its request does not list"),
    # validateFullyQualifiedName; with DRAConsumableCapacity off (1.34) matchAttribute is required.
    pytest.param(CLAIM.replace("matchAttribute: dra.example.com/pcieRoot", "matchAttribute: pcieRoot"),
                 'ResourceClaim/ml/c: spec.devices.constraints[0].matchAttribute: Invalid value: "pcieRoot": '
                 "a fully qualified name must be a domain and a name separated by a slash",
                 id="a matchAttribute without a domain"),
    pytest.param(CLAIM.replace(", matchAttribute: dra.example.com/pcieRoot", ""),
                 "ResourceClaim/ml/c: spec.devices.constraints[0].matchAttribute: Required value",
                 id="a constraint without matchAttribute"),
    # validateDeviceAttribute: semverRe (no leading zero in a number).
    pytest.param(SLICE.replace("version: 1.2.3", "version: 1.02.3"),
                 'ResourceSlice/n1-gpu: spec.devices[0].attributes[driverVersion].version: Invalid value: "1.02.3": '
                 "must be a string compatible with semver.org spec 2.0.0", id="a version with a leading zero"),
    pytest.param(SLICE_V1BETA1.replace("version: 1.2.3", "version: '1.2'"),
                 'ResourceSlice/n1-gpu: spec.devices[0].basic.attributes[driverVersion].version: Invalid value: '
                 '"1.2": must be a string compatible with semver.org spec 2.0.0', id="a v1beta1 version of two numbers"),
    # validateCELSelector → compile.go: "compilation failed: " + cel-go's issues (first line).
    pytest.param(CLAIM.replace('expression: "true"', "expression: 'device.driver =='"),
                 'ResourceClaim/ml/c: spec.devices.requests[1].firstAvailable[0].selectors[0].cel.expression: '
                 'Invalid value: "device.driver ==": compilation failed: ERROR: <input>:1:17: Syntax error: '
                 "mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', "
                 "NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}", id="a selector that does not parse"),
    # validateDeviceRequest / validateDeviceSubRequest: validateRequestName (a DNS label).
    pytest.param(CLAIM.replace("- name: gpu\n", "- exactly: {deviceClassName: gpu.example.com}\n", 1).replace(
        "      exactly: {deviceClassName: gpu.example.com}\n    - name: any", "    - name: any", 1),
                 "ResourceClaim/ml/c: spec.devices.requests[0].name: Required value", id="a request without a name"),
    pytest.param(CLAIM.replace("{name: big,", "{name: Big,"),
                 'ResourceClaim/ml/c: spec.devices.requests[1].firstAvailable[0].name: Invalid value: "Big": a '
                 "lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
                 "and end with an alphanumeric character (e.g. 'my-name', or '123-abc', regex used for validation "
                 "is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')", id="an alternative whose name is no DNS label"),
    # validateDeviceAllocationMode: All takes no count.
    pytest.param(CLAIM.replace("allocationMode: All}", "allocationMode: All, count: 2}"),
                 "ResourceClaim/ml/c: spec.devices.requests[1].firstAvailable[1].count: Invalid value: 2: must not be "
                 "specified when allocationMode is 'All'", id="a count with allocationMode All"),
    # validateDeviceConstraint: validateSet(requests, stringKey): Duplicate at the later index.
    pytest.param(CLAIM.replace("requests: [gpu, any]", "requests: [gpu, any, gpu]"),
                 'ResourceClaim/ml/c: spec.devices.constraints[0].requests[2]: Duplicate value: "gpu"',
                 id="a constraint naming a request twice"),
    # validateResourceSliceSpec: the driver, the pool (validateResourcePool), each device's name (a
    # DNS label, validateSet: unique).
    pytest.param(SLICE.replace("  driver: gpu.example.com\n", ""), "ResourceSlice/n1-gpu: spec.driver: Required value",
                 id="a slice without driver"),
    pytest.param(SLICE.replace("name: n1, ", ""), "ResourceSlice/n1-gpu: spec.pool.name: Required value",
                 id="a pool without name"),
    pytest.param(SLICE.replace("resourceSliceCount: 2", "resourceSliceCount: 0"),
                 "ResourceSlice/n1-gpu: spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero",
                 id="a pool of no slice"),
    pytest.param(SLICE.replace(", resourceSliceCount: 2", ""),
                 "ResourceSlice/n1-gpu: spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero",
                 id="a pool whose slice count is not given (no default)"),
    pytest.param(SLICE.replace("generation: 3", "generation: -1"),
                 "ResourceSlice/n1-gpu: spec.pool.generation: Invalid value: -1: must be greater than or equal to zero",
                 id="a negative generation"),
    pytest.param(SLICE + "  - name: gpu-0\n",
                 'ResourceSlice/n1-gpu: spec.devices[1].name: Duplicate value: "gpu-0"', id="a device listed twice"),
])
def test_what_the_api_server_refuses_is_refused_in_its_words(text: str, expected: str):
    with pytest.raises(InputError) as err:
        _decode(text)
    assert str(err.value) == expected


@pytest.mark.parametrize("text", [
    pytest.param(CLAIM.replace("requests: [gpu, any]", "requests: [gpu, any/big]"), id="a constraint on a subrequest"),
    pytest.param(SLICE.replace("version: 1.2.3", "version: 1.2.3-rc.1+build.5"), id="a pre-release version with build"),
    # cel-go parses optional-field syntax; the library cannot: Filter reports it, not the load.
    pytest.param(CLAIM.replace('expression: "true"', "expression: 'device.attributes[\"d\"].?x.orValue(1) == 1'"),
                 id="a selector only the library cannot parse"),
])
def test_what_the_api_server_accepts_is_read(text: str):
    assert _decode(text) is not None
