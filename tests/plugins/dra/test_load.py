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
