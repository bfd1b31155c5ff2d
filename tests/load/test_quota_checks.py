"""LimitRange and ResourceQuota validation: what the API server refuses, in its words, and the
unusual objects it accepts. Expected texts are upstream's, filled in by hand from core
validation.go — ValidateLimitRange, validateLimitRangeTypeName, validateLimitRangeResourceName,
ValidateResourceQuotaSpec, ValidateResourceQuotaResourceName, ValidateResourceQuantityValue,
validateResourceQuotaScopes, validateScopedResourceSelectorRequirement — and the field error
format (apimachinery field/errors.go:ErrorBody: a Quantity or ResourceName bare, being
Stringers; a named string type quoted; a slice or struct as `%#v` of the internal type), several
aggregated as `[a, b]` (resource names sorted: upstream walks a Go map)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from kwhatif.errors import InputError
from kwhatif.load.decode import decode
from tests.cli.conftest import NOW, executable, single_error_line


def limit_range(*items: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "lr", "namespace": "shop"},
            "spec": {"limits": list(items)}}


def quota(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q", "namespace": "shop"},
            "spec": spec}


def selector(*expressions: dict[str, Any]) -> dict[str, Any]:
    return {"matchExpressions": list(expressions)}


QUALIFIED = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
             "alphanumeric character (e.g. 'MyName', or 'my.name', or '123-abc', regex used for validation is "
             "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
"""validation.IsQualifiedName's text (RegexError), as an InputError prints it: on one line, single-spaced
(upstream has two spaces before each `or`)."""
EXISTS_ONLY = ("must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, "
               "ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or "
               "ResourceQuotaScopeCrossNamespacePodAffinity")

LIMIT_RANGE_CASES = {
    # validateLimitRangeTypeName: no domain, so one of Pod, Container, PersistentVolumeClaim.
    "unknown type": (limit_range({"type": "Containr", "default": {"cpu": "1"}}),
                     'spec.limits[0].type: Invalid value: "Containr": must be a standard limit type or fully qualified'),
    "type not a qualified name": (limit_range({"type": "a b"}), f'spec.limits[0].type: Invalid value: "a b": {QUALIFIED}'),
    # ValidateLimitRange: limitTypeSet.
    "one type twice": (limit_range({"type": "Container", "default": {"cpu": "200m"}},
                                   {"type": "Container", "default": {"cpu": "4"}}),
                       'spec.limits[1].type: Duplicate value: "Container"'),
    # The comparisons, on the defaulted item: defaultRequest 3 > max 500m, > default 1; default 1 > max.
    "defaults above the max": (
        limit_range({"type": "Container", "defaultRequest": {"cpu": "3"}, "default": {"cpu": "1"},
                     "max": {"cpu": "500m"}}),
        "[spec.limits[0].defaultRequest[cpu]: Invalid value: 3: default request value 3 is greater than max value "
        "500m, spec.limits[0].defaultRequest[cpu]: Invalid value: 3: default request value 3 is greater than default "
        "limit value 1, spec.limits[0].default[cpu]: Invalid value: 500m: default value 1 is greater than max value "
        "500m]"),
    # min 2 > max 1; the defaults (default and defaultRequest from the max: 1) are below the min.
    "min above max, defaulted from max": (
        limit_range({"type": "Container", "min": {"cpu": "2"}, "max": {"cpu": "1"}}),
        "[spec.limits[0].min[cpu]: Invalid value: 2: min value 2 is greater than max value 1, "
        "spec.limits[0].defaultRequest[cpu]: Invalid value: 1: min value 2 is greater than default request value 1, "
        "spec.limits[0].default[cpu]: Invalid value: 2: min value 2 is greater than default value 1]"),
    "ratio below 1": (limit_range({"type": "Container", "maxLimitRequestRatio": {"cpu": "500m"}}),
                      "spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: 500m: ratio 500m is less than 1"),
    # max/min = 1000m/500m = 2 < 3, with %f.
    "ratio above max over min": (
        limit_range({"type": "Pod", "min": {"cpu": "500m"}, "max": {"cpu": "1"}, "maxLimitRequestRatio": {"cpu": "3"}}),
        "spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: 3: ratio 3 is greater than max/min = 2.000000"),
    "defaults on a Pod item": (
        limit_range({"type": "Pod", "default": {"cpu": "1"}, "defaultRequest": {"cpu": "1"}}),
        "[spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod', "
        "spec.limits[0].defaultRequest: Forbidden: may not be specified when `type` is 'Pod']"),
    "claim item without a storage bound": (
        limit_range({"type": "PersistentVolumeClaim", "max": {"cpu": "1"}}),
        "spec.limits[0].limits: Required value: either minimum or maximum storage value is required, but neither "
        "was provided"),
    # validateContainerResourceName: not known at all, then not a container's (ResourceName: bare).
    "unknown container resource": (
        limit_range({"type": "Container", "max": {"cpuu": "1"}}),
        "[spec.limits[0].max[cpuu]: Invalid value: cpuu: must be a standard resource type or fully qualified, "
        "spec.limits[0].max[cpuu]: Invalid value: cpuu: must be a standard resource for containers, "
        "spec.limits[0].default[cpuu]: Invalid value: cpuu: must be a standard resource type or fully qualified, "
        "spec.limits[0].default[cpuu]: Invalid value: cpuu: must be a standard resource for containers, "
        "spec.limits[0].defaultRequest[cpuu]: Invalid value: cpuu: must be a standard resource type or fully "
        "qualified, spec.limits[0].defaultRequest[cpuu]: Invalid value: cpuu: must be a standard resource for "
        "containers]"),
    "storage on a Pod item": (limit_range({"type": "Pod", "max": {"storage": "1Gi"}}),
                              "spec.limits[0].max[storage]: Invalid value: storage: must be a standard resource for "
                              "containers"),
    # Not overcommitable: default and defaultRequest must be equal.
    "extended default and request differ": (
        limit_range({"type": "Container", "default": {"example.com/gpu": "2"},
                     "defaultRequest": {"example.com/gpu": "1"}}),
        "spec.limits[0].defaultRequest[example.com/gpu]: Invalid value: 1: default value 2 must equal to "
        "defaultRequest value 1 in example.com/gpu"),
}

QUOTA_CASES = {
    # ValidateResourceQuotaResourceName (both texts for an unknown name); ValidateNonnegativeQuantity
    # passes value.String(): quoted.
    "unknown resource and a negative count": (
        quota(hard={"requests.cpuu": "0", "pods": "-1"}),
        '[spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0, '
        "spec.hard[requests.cpuu]: Invalid value: requests.cpuu: must be a standard resource type or fully "
        "qualified, spec.hard[requests.cpuu]: Invalid value: requests.cpuu: must be a standard resource for quota]"),
    "storage is no quota resource": (quota(hard={"storage": "1Gi"}),
                                     "spec.hard[storage]: Invalid value: storage: must be a standard resource for quota"),
    # IsIntegerResourceName: counts and extended resources (count/... is one).
    "fractional count": (quota(hard={"count/deployments.apps": "1500m"}),
                         "spec.hard[count/deployments.apps]: Invalid value: 1500m: must be an integer"),
    # validateResourceQuotaScopes: the error repeats per resource, aggregation keeps one.
    "BestEffort limits only pods": (
        quota(scopes=["BestEffort"], hard={"requests.cpu": "1", "requests.memory": "1Gi", "pods": "5"}),
        'spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort"}: unsupported scope applied to resource'),
    # A count the pod scopes do not track.
    "NotTerminating on services": (
        quota(scopes=["NotTerminating"], hard={"services": "1"}),
        'spec.scopes: Invalid value: []core.ResourceQuotaScope{"NotTerminating"}: unsupported scope applied to resource'),
    "Terminating and NotTerminating": (
        quota(scopes=["Terminating", "NotTerminating"], hard={"pods": "0"}),
        'spec.scopes: Invalid value: []core.ResourceQuotaScope{"Terminating", "NotTerminating"}: conflicting scopes'),
    "unknown scope": (quota(scopes=["Sometimes"], hard={"pods": "1"}),
                      'spec.scopes: Invalid value: []core.ResourceQuotaScope{"Sometimes"}: unsupported scope'),
    # validateScopedResourceSelectorRequirement: no index in the paths.
    "In without values": (
        quota(scopeSelector=selector({"scopeName": "PriorityClass", "operator": "In"}), hard={"pods": "0"}),
        "spec.scopeSelector.matchExpressions.values: Required value: must be at least one value when `operator` is "
        "'In' or 'NotIn' for scope selector"),
    "Exists with values": (
        quota(scopeSelector=selector({"scopeName": "PriorityClass", "operator": "Exists", "values": ["high"]})),
        'spec.scopeSelector.matchExpressions.values: Invalid value: []string{"high"}: must be no value when '
        "`operator` is 'Exist' or 'DoesNotExist' for scope selector"),
    "a yes/no scope with In": (
        quota(scopeSelector=selector({"scopeName": "BestEffort", "operator": "In", "values": ["x"]})),
        f'spec.scopeSelector.matchExpressions.operator: Invalid value: "In": {EXISTS_ONLY}'),
    "unknown operator": (
        quota(scopeSelector=selector({"scopeName": "PriorityClass", "operator": "Maybe"})),
        'spec.scopeSelector.matchExpressions.operator: Invalid value: "Maybe": not a valid selector operator'),
    "unknown selector scope": (
        quota(scopeSelector=selector({"scopeName": "Sometimes", "operator": "Exists"})),
        'spec.scopeSelector.matchExpressions.scopeName: Invalid value: "Sometimes": unsupported scope'),
    # The selector printed whole (%#v of the dereferenced *core.ScopeSelector).
    "selector scope on a claim resource": (
        quota(scopeSelector=selector({"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}),
              hard={"requests.storage": "1Gi"}),
        "spec.scopeSelector.matchExpressions: Invalid value: core.ScopeSelector{MatchExpressions:"
        "[]core.ScopedResourceSelectorRequirement{core.ScopedResourceSelectorRequirement{ScopeName:\"PriorityClass\", "
        "Operator:\"In\", Values:[]string{\"high\"}}}}: unsupported scope applied to resource"),
    # Conflicting selector scopes are shown with spec.scopes (here nil).
    "conflicting selector scopes": (
        quota(scopeSelector=selector({"scopeName": "BestEffort", "operator": "Exists"},
                                     {"scopeName": "NotBestEffort", "operator": "Exists"})),
        "spec.scopeSelector.matchExpressions: Invalid value: []core.ResourceQuotaScope(nil): conflicting scopes"),
}


@pytest.mark.parametrize("obj, text", [*LIMIT_RANGE_CASES.values(), *QUOTA_CASES.values()],
                         ids=[*LIMIT_RANGE_CASES, *QUOTA_CASES])
def test_an_object_the_api_server_refuses_is_bad_input_in_its_words(obj: dict[str, Any], text: str) -> None:
    with pytest.raises(InputError) as err:
        decode(obj, None)
    assert str(err.value) == f"{obj['kind']}/shop/{obj['metadata']['name']}: {text}"


@pytest.mark.parametrize("obj", [
    limit_range({"type": "Container", "default": {"cpu": "1", "memory": "1Gi", "ephemeral-storage": "1Gi",
                                                  "hugepages-2Mi": "4Mi", "example.com/gpu": "1"},
                 "defaultRequest": {"cpu": "500m", "memory": "512Mi", "hugepages-2Mi": "4Mi", "example.com/gpu": "1"},
                 "min": {"cpu": "100m"}, "max": {"cpu": "2", "memory": "2Gi"}, "maxLimitRequestRatio": {"cpu": "4"}},
                {"type": "Pod", "max": {"cpu": "4", "hugepages-1Gi": "2Gi"}, "min": {"cpu": "0"}},
                {"type": "PersistentVolumeClaim", "min": {"storage": "1Gi"}, "max": {"storage": "10Gi"}},
                {"type": "example.com/Custom", "max": {"storage": "1", "example.com/anything": "3"}}),
    # A zero min: upstream divides by zero (+Inf), and no ratio is too high.
    limit_range({"type": "Pod", "min": {"cpu": "0"}, "max": {"cpu": "1"}, "maxLimitRequestRatio": {"cpu": "10"}}),
    quota(hard={"pods": "10", "count/deployments.apps": "3", "count/pods": "5", "requests.storage": "100Gi",
                "gold.storageclass.storage.k8s.io/requests.storage": "10Gi",
                "gold.storageclass.storage.k8s.io/persistentvolumeclaims": "2", "requests.nvidia.com/gpu": "4",
                "nvidia.com/gpu": "4", "hugepages-2Mi": "1Gi", "requests.hugepages-2Mi": "1Gi", "services.nodeports": "0",
                "requests.ephemeral-storage": "1500m", "limits.cpu": "1500m"}),
    quota(scopes=["NotTerminating", "NotBestEffort"], hard={"pods": "3", "requests.cpu": "2", "limits.memory": "1Gi",
                                                             "count/deployments.apps": "1"}),
    quota(scopes=["CrossNamespacePodAffinity"], hard={"pods": "0"}),
    quota(scopes=["VolumeAttributesClass"], hard={"requests.storage": "10Gi", "persistentvolumeclaims": "2"}),
    quota(scopeSelector=selector({"scopeName": "VolumeAttributesClass", "operator": "In", "values": ["gold"]}),
          hard={"requests.storage": "10Gi"}),
    quota(scopeSelector=selector({"scopeName": "PriorityClass", "operator": "NotIn", "values": ["low"]},
                                 {"scopeName": "Terminating", "operator": "Exists"}), hard={"requests.memory": "1Gi"}),
    quota(scopes=[], scopeSelector={}, hard={}),
], ids=["every kind of item", "zero min", "unusual resources", "pod scopes", "cross-namespace affinity",
        "volume attributes class", "volume attributes class selector", "selector", "empty"])
def test_an_unusual_object_the_api_server_accepts_loads(obj: dict[str, Any]) -> None:
    assert decode(obj, None) is not None


REPRO = """\
apiVersion: v1
kind: LimitRange
metadata: {name: lr, namespace: shop}
spec:
  limits:
  - {type: Container, default: {cpu: 200m}, defaultRequest: {cpu: 100m}}
  - {type: Container, default: {cpu: "4"}, defaultRequest: {cpu: "3"}}
"""
CLUSTER = """\
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: shop}}
- apiVersion: v1
  kind: Node
  metadata: {name: n1}
  status: {allocatable: {cpu: "2", memory: 16Gi, pods: "110"}}
"""
POD = """\
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: shop}
spec: {containers: [{name: c, image: x}]}
"""


def test_check_refuses_a_workload_file_limit_range_the_api_server_refuses(tmp_path: Path) -> None:
    for name, text in (("lr.yaml", REPRO), ("cluster.yaml", CLUSTER), ("pod.yaml", POD)):
        (tmp_path / name).write_text(text)
    proc = subprocess.run([executable("kwhatif"), "check", "lr.yaml", "pod.yaml", "-c", "cluster.yaml", "--now", NOW],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert single_error_line(proc.stderr) == ('kwhatif: error: lr.yaml#0:1: LimitRange/shop/lr: spec.limits[1].type: '
                                              'Duplicate value: "Container"')
