"""Bound pods written by hand (no spec.priority, no overhead) count as the API server would have
admitted them: preemption compares the priority of their class, and nodes account their
RuntimeClass overhead. A pod with a priority came through admission already and is left alone."""

from __future__ import annotations

from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import PriorityClass, RuntimeClass
from kwhatif.engine import simulate
from tests.builders import make_node, make_pod, rl

NOW = "2026-01-01T00:00:00Z"
CLASSES = {"high": PriorityClass("high", 1000), "mid": PriorityClass("mid", 500)}


def _outcome(cluster: Cluster) -> tuple[str, list[str]]:
    [result] = simulate(cluster, NOW).results
    victims = [v.pod.key for a in result.attempts if a.preemption for v in a.preemption.victims]
    return result.outcome, victims


def test_a_bound_pod_keeps_the_priority_of_its_class() -> None:
    # node 1 cpu; the bound pod (class high = 1000) holds 800m; the pending pod (class mid = 500)
    # needs 500m: evicting a pod of higher priority is not allowed, so no preemption.
    running = make_pod("running", cpu="800m", node_name="n1", priority_class_name="high")
    pending = make_pod("pending", cpu="500m", priority_class_name="mid")
    cluster = Cluster(nodes=[make_node("n1", cpu="1")], pods=[running, pending], priority_classes=CLASSES)
    assert _outcome(cluster) == ("unschedulable", [])


def test_a_bound_pod_with_a_priority_is_taken_as_it_is() -> None:
    # The dump says priority 0 (its class was created later, say): it stays 0 and is preempted.
    running = make_pod("running", cpu="800m", node_name="n1", priority_class_name="high", priority=0)
    pending = make_pod("pending", cpu="500m", priority_class_name="mid")
    cluster = Cluster(nodes=[make_node("n1", cpu="1")], pods=[running, pending], priority_classes=CLASSES)
    assert _outcome(cluster) == ("bound", ["default/running"])


def test_a_bound_pod_is_charged_its_runtime_class_overhead() -> None:
    # 500m requested + 400m overhead = 900m of 1 cpu used: a 200m pod no longer fits (1100m > 1000m).
    kata = RuntimeClass("kata", "kata", overhead=rl(cpu="400m"))
    running = make_pod("running", cpu="500m", node_name="n1", runtime_class_name="kata")
    pending = make_pod("pending", cpu="200m")
    cluster = Cluster(nodes=[make_node("n1", cpu="1")], pods=[running, pending], runtime_classes={"kata": kata})
    result = simulate(cluster, NOW).results[0]
    assert result.outcome == "unschedulable" and "1 Insufficient cpu" in result.message


def test_a_bound_pod_the_api_server_would_refuse_runs_at_priority_zero_with_a_warning() -> None:
    running = make_pod("running", cpu="800m", node_name="n1", priority_class_name="gone")
    pending = make_pod("pending", cpu="500m", priority_class_name="mid")
    cluster = Cluster(nodes=[make_node("n1", cpu="1")], pods=[running, pending], priority_classes=CLASSES)
    sim = simulate(cluster, NOW)
    assert sim.warnings == ['Pod/default/running: bound, but the API server would refuse it: pods "running" is '
                            'forbidden: no PriorityClass with name gone was found; kept on n1 at priority 0']
    assert [v.pod.key for a in sim.results[0].attempts if a.preemption for v in a.preemption.victims] == \
        ["default/running"]
