"""What-ifs replayed from checkpoints of one run (engine.PodTrials) decide exactly as the whole
scenario simulated again with the change (engine.rerun_with), over the generated scenarios:

- the pod unchanged, and the pod with its requests halved: only its own cycle runs again;
- the pod given a higher priority (it moves in the queue) and bound pods deleted: the queue runs
  again on the same snapshot;
and once the tries are done the snapshot is where the first run left it, pod order included."""

from __future__ import annotations

import lzma
from dataclasses import replace
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
