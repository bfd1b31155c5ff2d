"""What-ifs replayed from checkpoints of one run (engine.PodTrials) decide exactly as the whole
scenario simulated again with the change (engine.rerun_with), over the generated scenarios:

- the pod unchanged, and the pod with its requests halved: only its own cycle runs again;
- the pod given a higher priority (it moves in the queue) and bound pods deleted: the queue runs
  again on the same snapshot;
and once the tries are done the snapshot is where the first run left it, pod order included."""

from __future__ import annotations

import lzma
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import Pod
from kwhatif.engine import PodTrials, is_pending, rerun_with, simulate
from kwhatif.framework.scheduler import PodResult
from kwhatif.load.cluster import load_cluster
from kwhatif.snapshot.snapshot import Snapshot

CORPUS = Path(__file__).parent / "corpus"
NOW = "2026-01-01T00:00:00Z"
PODS_PER_SCENARIO = 4


def _clusters(tmp: Path) -> list[Cluster]:
    out = []
    for packed in sorted(CORPUS.glob("*.yaml.xz")):
        target = tmp / packed.name.removesuffix(".xz")
        target.write_bytes(lzma.decompress(packed.read_bytes()))
        out.append(load_cluster([str(target)]))
    return out


@pytest.fixture(scope="module")
def clusters(tmp_path_factory: pytest.TempPathFactory) -> list[Cluster]:
    return _clusters(tmp_path_factory.mktemp("trials"))


def _decision(result: PodResult | None) -> Any:
    if result is None:
        return None
    victims = [v.pod.key for a in result.attempts if a.preemption for v in a.preemption.victims]
    return result.outcome, result.final.node if result.final else None, result.message, victims


def _halved(pod: Pod) -> Pod:
    containers = tuple(replace(c, requests={k: v / 2 for k, v in c.requests.items()}) for c in pod.containers)
    return pod.evolve(containers=containers)


def _state(snapshot: Snapshot) -> Any:
    return dict(snapshot.placed), [[p.key for p in n.pods] for n in snapshot.node_infos]


def _pending(cluster: Cluster) -> list[Pod]:
    return [p for p in cluster.pods if is_pending(p) and not p.scheduling_gates][:PODS_PER_SCENARIO]


@pytest.mark.parametrize("index", range(16))
def test_trials_decide_as_a_whole_new_run(clusters: list[Cluster], index: int) -> None:
    cluster = clusters[index]
    busiest = max((n.name for n in cluster.nodes), default=None,
                  key=lambda name: sum(1 for p in cluster.pods if p.node_name == name))
    removed = sorted(p.key for p in cluster.pods if p.node_name and p.node_name == busiest)[:2]
    for pod in _pending(cluster):
        trials = PodTrials(cluster, NOW, [], pod.key, None)
        after = _state(trials.sim.snapshot)
        higher = pod.evolve(priority=(pod.priority or 0) + 1000, priority_class_name="")
        for variant, gone in ((pod, []), (_halved(pod), []), (higher, []), (pod, removed)):
            expected = rerun_with(cluster, NOW, [], variant, None, removed=gone)
            assert _decision(trials.rerun(variant, removed=gone)) == _decision(expected), (pod.key, gone)
            assert _state(trials.sim.snapshot) == after
        assert _decision(trials.rerun(pod)) == _decision(trials.result)


def test_the_first_run_is_the_plain_simulation(clusters: list[Cluster]) -> None:
    cluster = clusters[0]
    for pod in _pending(cluster):
        trials = PodTrials(cluster, NOW, [], pod.key, None)
        sim = simulate(cluster, NOW, explain=frozenset({pod.key}))
        assert [_decision(r) for r in trials.sim.results] == [_decision(r) for r in sim.results]
        assert _state(trials.sim.snapshot) == _state(sim.snapshot)


def test_a_changed_pod_that_frees_quota_for_an_earlier_pod_replays_the_queue() -> None:
    """Admission charges new pods against the quota in input order: `small-first` (1.5 cpu) uses
    most of the namespace's 2 cpu, so `urgent` (1 cpu, created after it) is refused. With
    `small-first` asking 0.5 cpu, `urgent` is admitted; at a higher priority it is scheduled
    first and takes 1 of the node's 1.2 cpu, and `small-first` (0.5) no longer fits, nor can it
    preempt a pod of higher priority. Replaying only its own cycle would have bound it."""
    from kwhatif.api.objects import PriorityClass
    from kwhatif.api.quota import Amount, ResourceQuota
    from tests.builders import make_node, make_pod

    quota = ResourceQuota("default", "compute", {"requests.cpu": Amount(Fraction(2))})
    cluster = Cluster(nodes=[make_node("n1", cpu="1200m")], resource_quotas=[quota],
                      priority_classes={"high": PriorityClass("high", 100)})
    first = make_pod("small-first", cpu="1500m")
    urgent = make_pod("urgent", cpu="1", priority_class_name="high")
    trials = PodTrials(cluster, NOW, [first, urgent], first.key, None)
    lowered = make_pod("small-first", cpu="500m")
    got = trials.rerun(lowered)
    assert _decision(got) == _decision(rerun_with(cluster, NOW, [first, urgent], lowered, None))
    assert got is not None and got.outcome == "unschedulable"


def test_a_pod_moved_ahead_replays_from_its_new_place_not_its_old_one() -> None:
    """n1 has 1 cpu. `early` (600m, created first) and `late` (600m) have priority 0: early binds,
    late does not fit (400m left). With priority 100, late goes first and takes n1 — the replay
    starts before `early`, not at late's old place, where early already holds 600m."""
    from kwhatif.api.objects import PriorityClass
    from tests.builders import make_node, make_pod

    cluster = Cluster(nodes=[make_node("n1", cpu="1")], priority_classes={"urgent": PriorityClass("urgent", 100)})
    early = make_pod("early", cpu="600m", creation_timestamp="2025-01-01T00:00:00Z")
    late = make_pod("late", cpu="600m", creation_timestamp="2025-01-02T00:00:00Z")
    cluster.pods = [early, late]
    trials = PodTrials(cluster, NOW, [], late.key, None)
    assert trials.result is not None and trials.result.outcome == "unschedulable"
    raised = late.evolve(priority_class_name="urgent")
    got = trials.rerun(raised)
    assert got is not None and got.outcome == "bound" and got.final is not None and got.final.node == "n1"
    assert _decision(got) == _decision(rerun_with(cluster, NOW, [], raised, None))
