"""Update strategies resolved as the controllers resolve them, and refused in the API server's
words where its validation refuses them (apps validation.go)."""

from __future__ import annotations

import pytest

from kwhatif.errors import InputError
from kwhatif.workloads.strategy import Strategy, strategy_of
from tests.check.conftest import workload


def _deployment(strategy: dict) -> object:
    return workload("Deployment", "web", "100m", "app:v1", {"replicas": 4, "strategy": strategy})


@pytest.mark.parametrize("strategy, expected", [
    # maxSurge and maxUnavailable default to 25%: surge rounds up (ceil 1.0 = 1), unavailable
    # down (floor 1.0 = 1) (deployment_util.go ResolveFenceposts).
    ({}, Strategy("RollingUpdate", 1, 1)),
    ({"rollingUpdate": {"maxSurge": "30%", "maxUnavailable": "30%"}}, Strategy("RollingUpdate", 2, 1)),  # 1.2
    ({"rollingUpdate": {"maxSurge": 0, "maxUnavailable": "10%"}}, Strategy("RollingUpdate", 0, 1)),  # floor 0.4 -> 1
    ({"type": "Recreate"}, Strategy("Recreate")),
    ({"rollingUpdate": {"maxSurge": None, "maxUnavailable": None}}, Strategy("RollingUpdate", 1, 1)),  # null: unset
])
def test_a_deployment_strategy_rounds_surge_up_and_unavailability_down(strategy, expected):
    assert strategy_of(_deployment(strategy), 4) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize("strategy, expected", [
    # daemon/util SurgeCount and UnavailableCount both round up; defaults maxUnavailable 1, maxSurge 0.
    ({}, Strategy("RollingUpdate", 0, 1)),
    ({"rollingUpdate": {"maxUnavailable": "10%"}}, Strategy("RollingUpdate", 0, 2)),  # ceil(1.2)
    ({"rollingUpdate": {"maxSurge": "10%", "maxUnavailable": 0}}, Strategy("RollingUpdate", 2, 0)),
    ({"type": "OnDelete"}, Strategy("OnDelete")),
])
def test_a_daemonset_strategy_rounds_both_up(strategy, expected):
    ds = workload("DaemonSet", "agent", "100m", "app:v1", {"updateStrategy": strategy})
    assert strategy_of(ds, 12) == expected


def test_a_statefulset_strategy_keeps_its_partition_and_pod_management_policy():
    sts = workload("StatefulSet", "db", "100m", "app:v1",
                   {"podManagementPolicy": "Parallel", "updateStrategy": {"rollingUpdate": {"partition": 2}}})
    assert strategy_of(sts, 3) == Strategy("RollingUpdate", 0, 1, 2, True)


@pytest.mark.parametrize("w, field", [
    (_deployment({"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 0}}), "spec.strategy.rollingUpdate.maxUnavailable"),
    (_deployment({"type": "Replace"}), "spec.strategy.type"),
    (_deployment({"rollingUpdate": {"maxSurge": "lots"}}), "spec.strategy.rollingUpdate.maxSurge"),
    # ValidateDeploymentStrategy: "may not be specified when strategy `type` is 'Recreate'"
    (_deployment({"type": "Recreate", "rollingUpdate": {"maxSurge": 1}}), "spec.strategy.rollingUpdate"),
    # IsNotMoreThan100Percent (ValidateRollingUpdateDeployment)
    (_deployment({"rollingUpdate": {"maxUnavailable": "200%"}}), "spec.strategy.rollingUpdate.maxUnavailable"),
])
def test_a_strategy_the_api_server_refuses_is_an_input_error_naming_the_field(w, field):
    with pytest.raises(InputError) as err:
        strategy_of(w, 4)  # type: ignore[arg-type]
    assert (err.value.obj, err.value.field) == ("Deployment/default/web", field)


def test_a_recreate_deployment_may_write_rolling_update_null():
    # `rollingUpdate: null` decodes to a nil pointer: the documented way to switch to Recreate with apply.
    w = _deployment({"type": "Recreate", "rollingUpdate": None})
    assert strategy_of(w, 4) == Strategy("Recreate")  # type: ignore[arg-type]


@pytest.mark.parametrize("surge, unavailable, said", [
    # field.Invalid(maxUnavailable, the IntOrString as written, ...): apimachinery's ErrorBody
    # prints a value whose pointer is a fmt.Stringer by String() — the percentage as written,
    # the number by Itoa (field/errors.go; intstr.go String).
    (0, 0, "Invalid value: 0: may not be 0 when `maxSurge` is 0"),
    ("0%", "0%", "Invalid value: 0%: may not be 0 when `maxSurge` is 0"),
    (0, "0%", "Invalid value: 0%: may not be 0 when `maxSurge` is 0"),
])
def test_no_surge_and_no_unavailability_is_refused_with_the_value_as_written(surge, unavailable, said):
    w = _deployment({"rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable}})
    with pytest.raises(InputError) as err:
        strategy_of(w, 4)  # type: ignore[arg-type]
    assert err.value.message == said


@pytest.mark.parametrize("rolling, said", [
    # ValidatePositiveIntOrPercent: a string is IsValidPercent's ([0-9]+%, ASCII digits only);
    # IsNotMoreThan100Percent for maxUnavailable; both print the IntOrString by String().
    ({"maxSurge": "lots"}, "Invalid value: lots: a valid percent string must be a numeric string followed by an "
                           "ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"),
    ({"maxSurge": "\u0665%"}, "Invalid value: \u0665%: a valid percent string must be a numeric string followed by "
                              "an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"),
    ({"maxUnavailable": "200%"}, "Invalid value: 200%: must not be greater than 100%"),
])
def test_a_deployment_percentage_the_api_server_refuses_is_told_in_its_words(rolling, said):
    with pytest.raises(InputError) as err:
        strategy_of(_deployment({"rollingUpdate": rolling}), 4)  # type: ignore[arg-type]
    assert err.value.message == said
