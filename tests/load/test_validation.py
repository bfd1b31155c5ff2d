"""Pod validation as the API server does it before admission, in its own words
(pkg/apis/core/validation/validation.go: validateContainers, ValidateResourceRequirements).

Each expected text is the upstream `field.Error` string: `<path>: Invalid value: "<value>": <detail>`
or `<path>: Required value[: <detail>]`, after the object (`Pod/<namespace>/<name>`)."""

from __future__ import annotations

from typing import Any

import pytest

from kwhatif.errors import InputError
from kwhatif.load.decode import decode
from tests.load.test_raw_pods import dump, fast_and_general
from tests.load.test_raw_pods import pod as raw_pod


def pod_with(spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x", "namespace": "shop"}, "spec": spec}


def container(requests: dict[str, Any] | None = None, limits: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"name": "app", "image": "nginx", "resources": {"requests": requests or {}, "limits": limits or {}}}


@pytest.mark.parametrize("spec, text", [
    # field.Required(fldPath, "") on an empty container list.
    ({"containers": []}, "spec.containers: Required value"),
    ({}, "spec.containers: Required value"),
    # request 2 > limit 1: Invalid(reqPath, "2", "must be less than or equal to cpu limit of 1").
    ({"containers": [container({"cpu": "2"}, {"cpu": "1"})]},
     'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1'),
    # quantities print canonically in their own format: 1.5 -> 1500m, 2048Mi -> 2Gi, 1Gi stays.
    ({"containers": [container({"cpu": "1.5"}, {"cpu": "1"})]},
     'spec.containers[0].resources.requests: Invalid value: "1500m": must be less than or equal to cpu limit of 1'),
    ({"containers": [container({"memory": "2048Mi"}, {"memory": "1Gi"})]},
     'spec.containers[0].resources.requests: Invalid value: "2Gi": must be less than or equal to memory limit of 1Gi'),
    # init containers are validated the same way, under their own path.
    ({"containers": [container()], "initContainers": [container({"memory": "1G"}, {"memory": "500M"})]},
     'spec.initContainers[0].resources.requests: Invalid value: "1G": must be less than or equal to memory limit of 500M'),
    # extended resources cannot be overcommitted: request and limit must be equal, and a limit is required.
    ({"containers": [container({"nvidia.com/gpu": "1"}, {"nvidia.com/gpu": "2"})]},
     'spec.containers[0].resources.requests: Invalid value: "1": must be equal to nvidia.com/gpu limit of 2'),
    ({"containers": [container({"nvidia.com/gpu": "1"})]},
     "spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources"),
])
def test_the_api_server_refuses_the_pod_in_its_own_words(spec: dict[str, Any], text: str) -> None:
    with pytest.raises(InputError) as err:
        decode(pod_with(spec), None)
    assert str(err.value) == f"Pod/shop/x: {text}"


@pytest.mark.parametrize("requests, limits", [
    ({"cpu": "1"}, {"cpu": "1"}),                      # equal is fine
    ({"cpu": "500m"}, {"cpu": "1"}),                   # below the limit is fine for cpu
    ({}, {"nvidia.com/gpu": "2"}),                     # the request defaults to the limit
    ({"nvidia.com/gpu": "2"}, {"nvidia.com/gpu": "2"}),
])
def test_requests_within_their_limits_are_accepted(requests: dict[str, Any], limits: dict[str, Any]) -> None:
    assert decode(pod_with({"containers": [container(requests, limits)]}), None).containers[0].limits


@pytest.mark.parametrize("spec, text", [
    ({"containers": []}, "spec.containers: Required value"),
    ({"containers": [{"name": "web", "resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}}]},
     'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1'),
])
def test_a_big_dump_refuses_the_same_pods_in_the_same_words(spec: dict[str, Any], text: str) -> None:
    # The fast reader of big JSON Lists shares decoded templates between replicas: a good replica
    # first, then the invalid one, must fail as the general path does.
    fast, general, _docs = fast_and_general(dump([raw_pod("good"), raw_pod("bad", **spec)]))
    assert fast == general
    assert isinstance(fast, str) and fast.endswith(f"Pod/shop/bad: {text}")


def test_a_big_dump_reads_active_deadline_seconds_as_the_general_path() -> None:
    # The Terminating quota scopes read spec.activeDeadlineSeconds.
    fast, general, _docs = fast_and_general(dump([raw_pod("job", activeDeadlineSeconds=600)]))
    assert fast == general
    assert isinstance(fast, list) and fast[0].active_deadline_seconds == 600
