"""Scenarios derived from one loaded cluster (engine.Scenarios, Snapshot.derive) decide exactly as
the same scenario simulated from a snapshot built from nothing, over the generated scenarios:
a node lost (its controller-owned pods recreated pending), a zone lost, a node added (a copy of
the busiest), a node replaced by an uncordoned or relabelled copy of itself, bound pods deleted —
one after another on the same engine, so that each one also proves the previous one gave every
shared NodeInfo back; and after them the loaded cluster's base snapshot is as it was built."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

import pytest

from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import node_copies
from kwhatif.check import without_nodes, zone_loss_scenarios
from kwhatif.engine import Scenarios, prepare
from kwhatif.framework.scheduler import PodResult
from kwhatif.snapshot.snapshot import Snapshot
from tests.properties.test_trials import NOW, _clusters, _state

Change = Callable[[Cluster], Cluster]


@pytest.fixture(scope="module")
def clusters(tmp_path_factory: pytest.TempPathFactory) -> list[Cluster]:
    return _clusters(tmp_path_factory.mktemp("scenarios"))


def _decisions(results: list[PodResult]) -> list[Any]:
    return [(r.pod.key, r.outcome, r.final.node if r.final else None, r.message,
             [v.pod.key for a in r.attempts if a.preemption for v in a.preemption.victims]) for r in results]


def _busiest(cluster: Cluster) -> str:
    return max(sorted(n.name for n in cluster.nodes), key=lambda name: sum(1 for p in cluster.pods if p.node_name == name))


def _lose_busiest(cluster: Cluster) -> Cluster:
    return without_nodes(cluster, {_busiest(cluster)})


def _lose_first_zone(cluster: Cluster) -> Cluster:
    zones = zone_loss_scenarios(cluster.nodes)
    return without_nodes(cluster, zones[0][1]) if zones else cluster


def _add_copy(cluster: Cluster) -> Cluster:
    out = cluster.copy()
    template = next(n for n in cluster.nodes if n.name == _busiest(cluster))
    out.nodes = list(cluster.nodes) + node_copies(template, 2, {n.name for n in cluster.nodes})
    return out


def _replace_first(cluster: Cluster) -> Cluster:
    """Every node a new object: uncordoned, and one more label (its pods stay on it)."""
    out = cluster.copy()
    out.nodes = [replace(n, unschedulable=False, labels={**n.labels, "kwhatif.test/relabelled": "yes"})
                 for n in cluster.nodes]
    return out


def _delete_on_busiest(cluster: Cluster) -> Cluster:
    out = cluster.copy()
    busiest = _busiest(cluster)
    gone = sorted(p.key for p in cluster.pods if p.node_name == busiest)[:3]
    out.pods = [p for p in cluster.pods if p.key not in gone]
    return out


CHANGES: list[Change] = [_lose_busiest, _add_copy, _lose_first_zone, _replace_first, _delete_on_busiest]


def _base_state(scenarios: Scenarios) -> Any:
    base = scenarios._base  # noqa: SLF001 - the test looks at the shared NodeInfos
    assert isinstance(base, Snapshot)
    return _state(base), [(n.name, n.requested.milli_cpu, n.requested.memory, len(n.pods)) for n in base.node_infos]


@pytest.mark.parametrize("index", range(16))
def test_derived_scenarios_decide_as_snapshots_built_from_nothing(clusters: list[Cluster], index: int) -> None:
    cluster = clusters[index]
    scenarios = Scenarios(cluster)
    before = None
    for change in CHANGES:
        changed = change(cluster)
        fresh = prepare(changed, NOW).run()
        derived = prepare(changed, NOW, scenarios=scenarios).run()
        assert _decisions(derived.results) == _decisions(fresh.results), change.__name__
        assert _state(derived.snapshot) == _state(fresh.snapshot), change.__name__
        if before is None:
            scenarios.release()
            before = _base_state(scenarios)
    scenarios.release()
    assert _base_state(scenarios) == before
