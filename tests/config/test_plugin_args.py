"""The plugin-argument validators, run as kube-scheduler v1.34.1 runs them in its own tests: with a
nil path (`Validate*Args(nil, &args)`), so messages start at the argument's own field.

The tables are kubernetes `pkg/scheduler/apis/config/validation/validation_pluginargs_test.go`
(TestValidateDefaultPreemptionArgs, TestValidateInterPodAffinityArgs,
TestValidatePodTopologySpreadArgs, TestValidateNodeResourcesBalancedAllocationArgs,
TestValidateVolumeBindingArgs, TestValidateFitArgs and the three scoring-strategy tables), case
names kept. Upstream compares the field paths and types; the full texts here are written from
validation_pluginargs.go's format strings and apimachinery's `field.Error.Error()`
(`<path>: <type>: <value>: <detail>`), by hand.
"""

from __future__ import annotations

from typing import Any, Callable

import pytest

from kwhatif.config.args import balanced_allocation, default_preemption, inter_pod_affinity, pod_topology_spread
from kwhatif.config.args import volume_binding
from kwhatif.config.args.fit import validate_fit_args

Validator = Callable[[str, Any], list[str]]


def check(validate: Validator, args: dict[str, Any], want: list[str]) -> None:
    assert validate("", args) == want


@pytest.mark.parametrize(("args", "want"), [
    pytest.param({"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 100}, [], id="valid args (default)"),
    pytest.param({"minCandidateNodesPercentage": -1, "minCandidateNodesAbsolute": 100},
                 ["minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]"],
                 id="negative minCandidateNodesPercentage"),
    pytest.param({"minCandidateNodesPercentage": 900, "minCandidateNodesAbsolute": 100},
                 ["minCandidateNodesPercentage: Invalid value: 900: not in valid range [0, 100]"],
                 id="minCandidateNodesPercentage over 100"),
    pytest.param({"minCandidateNodesPercentage": 20, "minCandidateNodesAbsolute": -1},
                 ["minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)"],
                 id="negative minCandidateNodesAbsolute"),
    pytest.param({"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0},
                 ["minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as "
                  "minCandidateNodesAbsolute",
                  "minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time as "
                  "minCandidateNodesPercentage"], id="all zero"),
    pytest.param({"minCandidateNodesPercentage": -1, "minCandidateNodesAbsolute": -1},
                 ["minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]",
                  "minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)"], id="both negative"),
])
def test_default_preemption_args(args: dict[str, Any], want: list[str]) -> None:
    check(default_preemption.validate, args, want)


@pytest.mark.parametrize(("weight", "want"), [
    pytest.param(10, [], id="valid args"),
    pytest.param(-1, ["hardPodAffinityWeight: Invalid value: -1: not in valid range [0, 100]"],
                 id="hardPodAffinityWeight less than min"),
    pytest.param(101, ["hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]"],
                 id="hardPodAffinityWeight more than max"),
])
def test_inter_pod_affinity_args(weight: int, want: list[str]) -> None:
    check(inter_pod_affinity.validate, {"hardPodAffinityWeight": weight}, want)


def constraint(max_skew: int = 1, key: str = "node", when: str = "DoNotSchedule", **extra: Any) -> dict[str, Any]:
    return {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": when, **extra}


@pytest.mark.parametrize(("args", "want"), [
    pytest.param({"defaultConstraints": [constraint(), constraint(2, "zone", "ScheduleAnyway")],
                  "defaultingType": "List"}, [], id="valid config"),
    pytest.param({"defaultConstraints": [constraint(-1)], "defaultingType": "List"},
                 ["defaultConstraints[0].maxSkew: Invalid value: -1: not in valid range (0, inf)"],
                 id="maxSkew less than zero"),
    pytest.param({"defaultConstraints": [constraint(key="")], "defaultingType": "List"},
                 ["defaultConstraints[0].topologyKey: Required value: can not be empty"], id="empty topology key"),
    pytest.param({"defaultConstraints": [constraint(when="")], "defaultingType": "List"},
                 ["defaultConstraints[0].whenUnsatisfiable: Required value: can not be empty"],
                 id="whenUnsatisfiable is empty"),
    pytest.param({"defaultConstraints": [constraint(when="unknown action")], "defaultingType": "List"},
                 ['defaultConstraints[0].whenUnsatisfiable: Unsupported value: "unknown action": supported values: '
                  '"DoNotSchedule", "ScheduleAnyway"'],
                 id="whenUnsatisfiable contains unsupported action"),
    pytest.param({"defaultConstraints": [constraint(), constraint(2)], "defaultingType": "List"},
                 ['defaultConstraints[1]: Duplicate value: "{node, DoNotSchedule}"'], id="duplicated constraints"),
    pytest.param({"defaultConstraints": [constraint(key="key", labelSelector={"matchLabels": {"a": "b"}})],
                  "defaultingType": "List"},
                 ["defaultConstraints[0].labelSelector: Forbidden: constraint must not define a selector, as they "
                  "deduced for each pod"], id="label selector present"),
    pytest.param({"defaultingType": "List"}, [], id="list default constraints, no constraints"),
    pytest.param({"defaultingType": "System"}, [], id="system default constraints"),
    pytest.param({"defaultingType": "unknown"},
                 ['defaultingType: Unsupported value: "unknown": supported values: "System", "List"'],
                 id="wrong constraints"),
    pytest.param({"defaultConstraints": [constraint(key="key")], "defaultingType": "System"},
                 ['defaultingType: Invalid value: "System": when .defaultConstraints are not empty'],
                 id="system default constraints, but has constraints"),
])
def test_pod_topology_spread_args(args: dict[str, Any], want: list[str]) -> None:
    check(pod_topology_spread.validate, args, want)


@pytest.mark.parametrize(("resources", "want"), [
    pytest.param([{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}], [], id="valid config"),
    pytest.param([{"name": "cpu", "weight": 2}, {"name": "memory", "weight": 1}],
                 ["resources[0].weight: Invalid value: 2: must be 1"], id="invalid config"),
    pytest.param([{"name": "cpu", "weight": 1}, {"name": "cpu", "weight": 1}],
                 ['resources[1].name: Duplicate value: "cpu"'], id="repeated resources"),
])
def test_balanced_allocation_args(resources: list[dict[str, Any]], want: list[str]) -> None:
    check(balanced_allocation.validate, {"resources": resources}, want)


@pytest.mark.parametrize(("args", "want"), [
    pytest.param({"bindTimeoutSeconds": 0}, [], id="zero is a valid config"),
    pytest.param({"bindTimeoutSeconds": 10}, [], id="positive value is valid config"),
    pytest.param({"bindTimeoutSeconds": -10},
                 ["bindTimeoutSeconds: Invalid value: -10: invalid BindTimeoutSeconds, should not be a negative value"],
                 id="negative value is invalid config"),
    pytest.param({"bindTimeoutSeconds": 10, "shape": None}, [],
                 id="[StorageCapacityScoring=off] shape should be nil when the feature is off"),
    # BadValue is the internal []config.UtilizationShapePoint, printed with %#v.
    pytest.param({"bindTimeoutSeconds": 10, "shape": [{"utilization": 1, "score": 1}, {"utilization": 3, "score": 3}]},
                 ["shape: Invalid value: []config.UtilizationShapePoint{config.UtilizationShapePoint{Utilization:1, "
                  "Score:1}, config.UtilizationShapePoint{Utilization:3, Score:3}}: unexpected field `shape`, remove "
                  "it or turn on the feature gate StorageCapacityScoring"],
                 id="[StorageCapacityScoring=off] error if the shape is not nil when the feature is off"),
])
def test_volume_binding_args(args: dict[str, Any], want: list[str]) -> None:
    # StorageCapacityScoring is alpha and off in v1.34: the gate-on cases of the upstream table do not apply.
    check(volume_binding.validate, args, want)


DEFAULT_STRATEGY = {"type": "LeastAllocated", "resources": [{"name": "cpu", "weight": 1},
                                                            {"name": "memory", "weight": 1}]}
LONG = "longvalue" + "a" * 64
QUALIFIED = ("a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
             "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
             "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix "
             "and '/' (e.g. 'example.com/MyName')")
# IsQualifiedName: an empty name part fails both the emptiness and the regex checks.
NAME_REGEX = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
              "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
              "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")


@pytest.mark.parametrize(("args", "want"), [
    pytest.param({"ignoredResources": [LONG], "scoringStrategy": DEFAULT_STRATEGY},
                 [f'ignoredResources[0]: Invalid value: "{LONG}": name part must be no more than 63 characters'],
                 id="IgnoredResources: too long value"),
    pytest.param({"ignoredResources": ["example.com/"], "scoringStrategy": DEFAULT_STRATEGY},
                 ['ignoredResources[0]: Invalid value: "example.com/": name part must be non-empty',
                  f'ignoredResources[0]: Invalid value: "example.com/": {NAME_REGEX}'],
                 id="IgnoredResources: name is empty"),
    pytest.param({"ignoredResources": ["example.com/aaa/bbb"], "scoringStrategy": DEFAULT_STRATEGY},
                 [f'ignoredResources[0]: Invalid value: "example.com/aaa/bbb": {QUALIFIED}'],
                 id="IgnoredResources: name has too many slash"),
    pytest.param({"ignoredResources": ["example.com"], "scoringStrategy": DEFAULT_STRATEGY}, [],
                 id="IgnoredResources: valid args"),
    pytest.param({"ignoredResourceGroups": ["example.com"], "scoringStrategy": DEFAULT_STRATEGY}, [],
                 id="IgnoredResourceGroups: valid args"),
    pytest.param({"ignoredResourceGroups": ["example.com/"], "scoringStrategy": DEFAULT_STRATEGY},
                 ["ignoredResourceGroups[0]: Invalid value: \"example.com/\": resource group name can't contain '/'",
                  'ignoredResourceGroups[0]: Invalid value: "example.com/": name part must be non-empty',
                  f'ignoredResourceGroups[0]: Invalid value: "example.com/": {NAME_REGEX}'],
                 id="IgnoredResourceGroups: illegal args"),
    pytest.param({"ignoredResourceGroups": ["a" * 64], "scoringStrategy": DEFAULT_STRATEGY},
                 [f'ignoredResourceGroups[0]: Invalid value: "{"a" * 64}": name part must be no more than 63 '
                  "characters"],
                 id="IgnoredResourceGroups: name is too long"),
    pytest.param({"ignoredResourceGroups": ["example.com/aa"], "scoringStrategy": DEFAULT_STRATEGY},
                 ["ignoredResourceGroups[0]: Invalid value: \"example.com/aa\": resource group name can't contain '/'"],
                 id="IgnoredResourceGroups: name cannot be contain slash"),
    pytest.param({}, ["scoringStrategy: Required value: ScoringStrategy field is required"],
                 id="ScoringStrategy: field is required"),
    pytest.param({"scoringStrategy": {"type": "Invalid"}},
                 ['scoringStrategy.type: Unsupported value: "Invalid": supported values: "LeastAllocated", '
                  '"MostAllocated", "RequestedToCapacityRatio"'],
                 id="ScoringStrategy: type is unsupported"),
])
def test_fit_args(args: dict[str, Any], want: list[str]) -> None:
    assert validate_fit_args(args) == want


WEIGHT_CASES = [
    pytest.param(None, [], id="default config"),
    pytest.param([{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 10}], [], id="multi valid resources"),
    pytest.param([{"name": "cpu", "weight": 0}],
                 ["scoringStrategy.resources[0].weight: Invalid value: 0: resource weight of cpu not in valid range "
                  "(0, 100]"], id="weight less than min"),
    pytest.param([{"name": "cpu", "weight": 101}],
                 ["scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not in valid range "
                  "(0, 100]"], id="weight greater than max"),
    pytest.param([{"name": "cpu", "weight": 0}, {"name": "memory", "weight": 101}],
                 ["scoringStrategy.resources[0].weight: Invalid value: 0: resource weight of cpu not in valid range "
                  "(0, 100]",
                  "scoringStrategy.resources[1].weight: Invalid value: 101: resource weight of memory not in valid "
                  "range (0, 100]"], id="multi invalid resources"),
]


@pytest.mark.parametrize("kind", ["LeastAllocated", "MostAllocated"])
@pytest.mark.parametrize(("resources", "want"), WEIGHT_CASES)
def test_least_and_most_allocated_strategies(kind: str, resources: list[dict[str, Any]] | None,
                                             want: list[str]) -> None:
    # TestValidateLeastAllocatedScoringStrategy and TestValidateMostAllocatedScoringStrategy.
    assert validate_fit_args({"scoringStrategy": {"type": kind, "resources": resources}}) == want


def shape(*points: tuple[int, int]) -> list[dict[str, int]]:
    return [{"utilization": u, "score": s} for u, s in points]


DEFAULT_SHAPE = shape((30, 3))


@pytest.mark.parametrize(("resources", "points", "want"), [
    pytest.param(None, None, ["scoringStrategy.shape: Required value: at least one point must be specified"],
                 id="no shapes"),
    pytest.param([{"name": "cpu", "weight": 101}], DEFAULT_SHAPE,
                 ["scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not in valid range "
                  "(0, 100]"], id="weight greater than max"),
    pytest.param([{"name": "cpu", "weight": 0}], DEFAULT_SHAPE,
                 ["scoringStrategy.resources[0].weight: Invalid value: 0: resource weight of cpu not in valid range "
                  "(0, 100]"], id="weight less than min"),
    pytest.param(None, DEFAULT_SHAPE, [], id="valid shapes"),
    pytest.param(None, shape((-1, 3)),
                 ["scoringStrategy.shape[0].utilization: Invalid value: -1: not in valid range [0, 100]"],
                 id="utilization less than min"),
    pytest.param(None, shape((101, 3)),
                 ["scoringStrategy.shape[0].utilization: Invalid value: 101: not in valid range [0, 100]"],
                 id="utilization greater than max"),
    pytest.param(None, shape((10, 3), (10, 3)),
                 ["scoringStrategy.shape[1].utilization: Invalid value: 10: values must be sorted in increasing order"],
                 id="duplicated utilization values"),
    pytest.param(None, shape((10, 3), (20, 3), (30, 3)), [], id="increasing utilization values"),
    pytest.param(None, shape((10, 3), (20, 3), (15, 3)),
                 ["scoringStrategy.shape[2].utilization: Invalid value: 15: values must be sorted in increasing order"],
                 id="non-increasing utilization values"),
    pytest.param(None, shape((10, -1)), ["scoringStrategy.shape[0].score: Invalid value: -1: not in valid range [0, 10]"],
                 id="score less than min"),
    pytest.param(None, shape((10, 11)), ["scoringStrategy.shape[0].score: Invalid value: 11: not in valid range [0, 10]"],
                 id="score greater than max"),
])
def test_requested_to_capacity_ratio_strategy(resources: list[dict[str, Any]] | None,
                                              points: list[dict[str, int]] | None, want: list[str]) -> None:
    # TestValidateRequestedToCapacityRatioScoringStrategy: requestedToCapacityRatio is always set
    # (with a nil shape for "no shapes"); v1.34.1's path for shape errors is scoringStrategy.shape.
    strategy = {"type": "RequestedToCapacityRatio", "resources": resources,
                "requestedToCapacityRatio": {"shape": points}}
    assert validate_fit_args({"scoringStrategy": strategy}) == want
