"""The kubelet's eviction order, against hand-worked tables (pkg/kubelet/eviction/helpers.go:
rankMemoryPressure = orderedBy(exceedMemoryRequests, priority, memory);
rankPIDPressure = orderedBy(priority, process); qos.go:GetPodQOS)."""

from __future__ import annotations

import pytest

from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import Pod
from kwhatif.errors import InputError
from kwhatif.api.resources import qos_class
from kwhatif.evict.ranking import Candidate, NodeStats, eviction_request, plan_eviction, ranked, threshold_bytes
from tests.builders import make_container, make_node, make_pod, rl

MI = 2**20


@pytest.mark.parametrize("pod, qos", [
    (make_pod("p"), "BestEffort"),
    (make_pod("p", memory="100Mi"), "Burstable"),
    (make_pod("p", containers=[make_container(cpu="1", memory="1Gi", limits={"cpu": "1", "memory": "1Gi"})]),
     "Guaranteed"),
    (make_pod("p", containers=[make_container(cpu="1", memory="1Gi", limits={"cpu": "2", "memory": "1Gi"})]),
     "Burstable"),
    (make_pod("p", containers=[make_container(cpu="1", memory="1Gi", limits={"memory": "1Gi"})]), "Burstable"),
    # Pod-level resources decide alone (ComputePodQOS, PodLevelResources on by default in 1.34).
    (make_pod("p", containers=[make_container()], pod_requests={"cpu": "100m", "memory": "500Mi"}), "Burstable"),
    (make_pod("p", containers=[make_container()], pod_requests={"cpu": "1", "memory": "1Gi"},
              pod_limits=rl(cpu="1", memory="1Gi")), "Guaranteed"),
    (make_pod("p", containers=[make_container()], pod_requests={"memory": "1Gi"}, pod_limits=rl(memory="1Gi")),
     "Burstable"),
], ids=["nothing requested", "a request only", "limits equal to requests", "a limit above its request",
        "no cpu limit", "pod-level requests: Burstable, the containers asking nothing",
        "pod-level limits equal to requests", "pod-level limits without cpu"])
def test_qos_classes(pod: Pod, qos: str) -> None:
    assert qos_class(pod) == qos


@pytest.mark.parametrize("pod, asked", [
    (make_pod("p", overhead={"memory": "50Mi"}), 0),
    (make_pod("p", memory="100Mi", overhead={"memory": "50Mi"}), 150 * 2**20),
    (make_pod("p", memory="100Mi"), 100 * 2**20),
], ids=["BestEffort with overhead: requests nothing", "a request: the overhead added", "no overhead"])
def test_the_request_usage_is_compared_with(pod: Pod, asked: int) -> None:
    """helpers.go:GetResourceRequestQuantity: PodRequests without the overhead, which is added
    only to a request above zero."""
    assert eviction_request(pod, "memory") == asked


def c(name: str, usage: int | None, request: int = 0, priority: int = 0) -> Candidate:
    return Candidate(make_pod(name, priority=priority), usage, request)


def test_memory_pressure_order() -> None:
    # exceeds-request first (no stats before all), then lower priority, then usage - request larger:
    #   f: no stats                      -> first
    #   b: 600Mi used, 200Mi requested, p0 -> exceeds, over 400Mi
    #   a: 300Mi used, 0 requested, p0     -> exceeds, over 300Mi
    #   e: 100Mi used, 0 requested, p1000  -> exceeds, but higher priority
    #   c: 200Mi used, 1Gi requested, p0   -> within its request
    #   d: 400Mi used, 500Mi requested, p1000
    pods = [c("d", 400 * MI, 500 * MI, 1000), c("c", 200 * MI, 1024 * MI), c("e", 100 * MI, 0, 1000),
            c("a", 300 * MI), c("b", 600 * MI, 200 * MI), c("f", None)]
    assert [x.pod.name for x in ranked(pods, "memory.available")] == ["f", "b", "a", "e", "c", "d"]


def test_within_requests_the_larger_overshoot_goes_first() -> None:
    # Neither exceeds; same priority: usage - request is -100Mi for x and -300Mi for y: x first.
    pods = [c("y", 200 * MI, 500 * MI), c("x", 400 * MI, 500 * MI)]
    assert [p.pod.name for p in ranked(pods, "memory.available")] == ["x", "y"]


def test_pid_pressure_order() -> None:
    # priority first, then (helpers.go:process) a pod without stats, then more processes first;
    # requests play no part.
    pods = [c("low-few", 10), c("high-many", 500, priority=10), c("low-many", 90), c("low-unknown", None)]
    assert [p.pod.name for p in ranked(pods, "pid.available")] == ["low-unknown", "low-many", "low-few", "high-many"]


def test_pods_go_until_the_signal_is_back_above_the_threshold() -> None:
    # available 50Mi < 100Mi: f (no stats, frees nothing known) goes, 50Mi; b frees 600Mi -> 650Mi >= 100Mi.
    pods = [make_pod("b", memory="200Mi", node_name="n1"), make_pod("a", node_name="n1"),
            make_pod("f", node_name="n1")]
    usage = {"default/b": {"memory": 600 * MI}, "default/a": {"memory": 300 * MI}}
    cluster = Cluster(nodes=[make_node("n1", memory="4Gi")], pods=pods)
    plan = plan_eviction(cluster, "n1", "memory.available", usage, NodeStats(), "2026-01-01T00:00:00Z",
                         available=50 * MI)
    assert [r.candidate.pod.name for r in plan.ranking] == ["f", "b", "a"]
    assert [r.candidate.pod.name for r in plan.evicted] == ["f", "b"]
    assert (plan.threshold, plan.after) == (100 * MI, 650 * MI)


def test_a_percentage_threshold_of_the_summary_capacity() -> None:
    # nodefs.available 5Gi of 100Gi; 10% is 10Gi: the pod using 6Gi of disk goes (5 + 6 = 11Gi >= 10Gi).
    gi = 2**30
    pods = [make_pod("small", node_name="n1"), make_pod("big", node_name="n1")]
    usage = {"default/small": {"ephemeral-storage": 1 * gi}, "default/big": {"ephemeral-storage": 6 * gi}}
    stats = NodeStats({"ephemeral-storage": 5 * gi}, {"ephemeral-storage": 100 * gi})
    plan = plan_eviction(Cluster(nodes=[make_node("n1")], pods=pods), "n1", "nodefs.available", usage, stats,
                         "2026-01-01T00:00:00Z")
    assert (plan.threshold, [r.candidate.pod.name for r in plan.evicted], plan.after) == (10 * gi, ["big"], 11 * gi)


@pytest.mark.parametrize("text, capacity, expected", [
    ("10%", 1000, 100),
    ("100Mi", None, 100 * 2**20),
])
def test_thresholds(text: str, capacity: int | None, expected: int) -> None:
    assert threshold_bytes(text, capacity, "memory.available") == expected


@pytest.mark.parametrize("text, error", [
    # eviction/helpers.go parseThresholdStatement
    ("200%", "--threshold 200%: eviction percentage threshold memory.available must be <= 100%: 200%"),
    ("-5%", "--threshold -5%: eviction percentage threshold memory.available must be >= 0%: -5%"),
    ("lots%", "--threshold lots%: not a percentage"),
    ("1e-99999999%", "--threshold 1e-99999999%: not a percentage"),  # bounded: Fraction would read it for minutes
    ("100%", "--threshold 100%: the kubelet ignores a threshold of 0% or 100%: it evicts nothing for memory.available"),
    ("0Mi", "--threshold 0Mi: eviction threshold memory.available must be positive: 0Mi"),
])
def test_thresholds_the_kubelet_refuses(text: str, error: str) -> None:
    with pytest.raises(InputError) as err:
        threshold_bytes(text, 1000, "memory.available")
    assert str(err.value) == error
