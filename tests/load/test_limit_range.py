"""LimitRanger admission (plugin/pkg/admission/limitranger/admission.go) and the LimitRange's own
defaulting (core v1 defaults.go:SetDefaults_LimitRangeItem). Expected texts are upstream's
format strings filled in by hand: `minConstraint`, `maxConstraint`, `limitRequestRatioConstraint`
(each ending in a period), aggregated as `[a, b]` when more than one, behind admission's
`pods "<name>" is forbidden: `; a request above a defaulted limit is the API server's validation
error (`Pod "<name>" is invalid: ...`)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from kwhatif.api.objects import LimitRange, Pod
from kwhatif.load.admission import AdmissionRejected, admit_limit_ranges, admit_pod, validate_limit_ranges
from kwhatif.load.decode import decode
from tests.builders import make_container, make_pod


def limit_range(*items: dict[str, Any]) -> LimitRange:
    return decode({"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "lr", "namespace": "default"},
                   "spec": {"limits": list(items)}}, None)


def pod(*containers: Any, init: tuple[Any, ...] = ()) -> Pod:
    return make_pod("p", containers=list(containers), init_containers=init)


def test_a_container_item_defaults_its_limit_from_max_and_its_request_from_the_limit_then_min() -> None:
    [item] = limit_range({"type": "Container", "max": {"cpu": "2"}, "min": {"memory": "64Mi"},
                          "default": {"memory": "1Gi"}}).items
    assert item.default == {"cpu": Fraction(2), "memory": Fraction(2**30)}
    assert item.default_request == {"cpu": Fraction(2), "memory": Fraction(2**30)}  # from the default limit first
    [item] = limit_range({"type": "Container", "min": {"cpu": "100m"}}).items
    assert (item.default, item.default_request) == ({}, {"cpu": Fraction(1, 10)})


def test_defaults_fill_what_a_container_leaves_out() -> None:
    ranges = [limit_range({"type": "Container", "default": {"cpu": "500m"}, "defaultRequest": {"cpu": "100m"}})]
    [c] = admit_limit_ranges(pod(make_container(memory="1Gi")), ranges).containers
    assert (c.requests["cpu"], c.limits["cpu"]) == (Fraction(1, 10), Fraction(1, 2))


@pytest.mark.parametrize("item, container, text", [
    # maxConstraint: the limit first, then the request.
    ({"type": "Container", "max": {"cpu": "2"}}, make_container(cpu="1", limits={"cpu": "4"}),
     'pods "p" is forbidden: maximum cpu usage per Container is 2, but limit is 4.'),
    # (A default limit above the max never gets here: the API server refuses such a range,
    # tests/load/test_quota_checks.py.)
    ({"type": "Container", "max": {"memory": "1Gi"}}, make_container(memory="512Mi", limits={"memory": "2Gi"}),
     'pods "p" is forbidden: maximum memory usage per Container is 1Gi, but limit is 2Gi.'),
    # minConstraint: the request below the min.
    ({"type": "Container", "min": {"cpu": "200m"}}, make_container(cpu="100m"),
     'pods "p" is forbidden: minimum cpu usage per Container is 200m, but request is 100m.'),
    # limitRequestRatioConstraint: 2 / 500m = 4 > 2, printed with Go's %f.
    ({"type": "Container", "maxLimitRequestRatio": {"cpu": "2"}}, make_container(cpu="500m", limits={"cpu": "2"}),
     'pods "p" is forbidden: cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000.'),
    ({"type": "Container", "maxLimitRequestRatio": {"cpu": "2"}}, make_container(cpu="500m"),
     'pods "p" is forbidden: cpu max limit to request ratio per Container is 2, but no limit is specified or '
     'limit is 0.'),
    # Two violations of one range: aggregated in brackets (resources in name order).
    ({"type": "Container", "max": {"cpu": "1", "memory": "1Gi"}},
     make_container(cpu="1", memory="1Gi", limits={"cpu": "2", "memory": "2Gi"}),
     'pods "p" is forbidden: [maximum cpu usage per Container is 1, but limit is 2., '
     'maximum memory usage per Container is 1Gi, but limit is 2Gi.]'),
    # A default limit below the container's request: the object the defaults made is invalid.
    ({"type": "Container", "default": {"cpu": "500m"}}, make_container(cpu="1"),
     'Pod "p" is invalid: spec.containers[0].resources.requests: Invalid value: "1": must be less than or equal '
     'to cpu limit of 500m'),
])
def test_a_container_outside_the_range_is_refused_in_the_api_servers_words(item: dict[str, Any], container: Any,
                                                                          text: str) -> None:
    ranges = [limit_range(item)]
    with pytest.raises(AdmissionRejected) as refused:
        validate_limit_ranges(admit_limit_ranges(pod(container), ranges), ranges)
    assert str(refused.value) == text


def test_a_pod_item_bounds_the_sum_of_the_containers_raised_to_an_init_containers() -> None:
    """Two containers of 1 cpu limit each: 2 for the pod; an init container of 3 raises it to 3."""
    item = {"type": "Pod", "max": {"cpu": "2"}}
    two = pod(make_container("a", cpu="1", limits={"cpu": "1"}), make_container("b", cpu="1", limits={"cpu": "1"}))
    validate_limit_ranges(two, [limit_range(item)])  # 2 of 2: no refusal
    with_init = pod(make_container("a", cpu="1", limits={"cpu": "1"}), make_container("b", cpu="1", limits={"cpu": "1"}),
                    init=(make_container("i", cpu="3", limits={"cpu": "3"}),))
    with pytest.raises(AdmissionRejected) as refused:
        validate_limit_ranges(with_init, [limit_range(item)])
    assert str(refused.value) == 'pods "p" is forbidden: maximum cpu usage per Pod is 2, but limit is 3.'


def test_a_pod_the_snapshot_has_is_not_refused_again() -> None:
    """It passed the LimitRanger when it was created (the range may be newer than the pod)."""
    over = pod(make_container(cpu="1", limits={"cpu": "4"}))
    ranges = [limit_range({"type": "Container", "max": {"cpu": "2"}})]
    assert admit_pod(over, {}, {}, ranges, created=False).containers == over.containers  # admitted, not refused
    with pytest.raises(AdmissionRejected):
        admit_pod(over, {}, {}, ranges, created=True)


def test_a_missing_priority_class_is_said_before_the_limit_range() -> None:
    """Priority admission is a mutating plugin: its refusal comes before LimitRanger's validating
    half (kube-apiserver runs every mutating plugin first)."""
    over = pod(make_container(cpu="1", limits={"cpu": "4"}))
    over = over.evolve(priority_class_name="missing")
    with pytest.raises(AdmissionRejected) as refused:
        admit_pod(over, {}, {}, [limit_range({"type": "Container", "max": {"cpu": "2"}})], created=True)
    assert "PriorityClass" in str(refused.value) and "limit" not in str(refused.value)
