"""Scenarios derived from one loaded cluster (engine.Scenarios, Snapshot.derive) decide exactly as
the same scenario simulated from a snapshot built from nothing, over the generated scenarios:
a node lost (its controller-owned pods recreated pending), a zone lost, a node added (a copy of
the busiest), a node replaced by an uncordoned or relabelled copy of itself, bound pods deleted —
one after another on the same engine, so that each one also proves the previous one gave every
shared NodeInfo back; and after them the loaded cluster's base snapshot is as it was built."""

from __future__ import annotations

import gc
import weakref
from dataclasses import replace
from typing import Any, Callable

import pytest

from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import node_copies
from kwhatif.check import (
    loss_policy, node_loss_scenarios, schedule_workloads, summarise, without_nodes, zone_loss_scenarios,
)
from kwhatif.engine import Scenarios, prepare
from kwhatif.errors import Source
from kwhatif.framework.scheduler import PodResult
from kwhatif.snapshot.snapshot import Snapshot
from kwhatif.workloads.common import Workload, decode_workload
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
    return without_nodes(cluster, {_busiest(cluster)}, NOW)


def _lose_first_zone(cluster: Cluster) -> Cluster:
    zones = zone_loss_scenarios(cluster.nodes)
    return without_nodes(cluster, zones[0][1], NOW) if zones else cluster


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


def _spread_out(replicas: int, cpu: str, namespace: str) -> Workload:
    """A Deployment of `replicas` pods asking `cpu` each, spread over hostnames (ScheduleAnyway)."""
    labels = {"app": "scenario-probe"}
    spread = [{"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway",
               "labelSelector": {"matchLabels": labels}}]
    template = {"metadata": {"labels": labels},
                "spec": {"containers": [{"name": "app", "image": "probe:1", "resources": {"requests": {"cpu": cpu}}}],
                         "topologySpreadConstraints": spread}}
    return decode_workload({"apiVersion": "apps/v1", "kind": "Deployment",
                            "metadata": {"name": "scenario-probe", "namespace": namespace},
                            "spec": {"replicas": replicas, "selector": {"matchLabels": labels}, "template": template}},
                           Source("probe.yaml", 0, 1))


@pytest.mark.parametrize("index", range(0, 16, 3))
def test_loss_policies_decide_as_every_scenario_run_from_nothing(clusters: list[Cluster], index: int) -> None:
    """The policy runs each scenario on the engine and stops each queue at the workload's last
    pod; run in full from a snapshot built from nothing, every scenario leaves the same number of
    the workload's pods pending, and the worst is the one the policy names."""
    cluster = clusters[index]
    objects = [_spread_out(6, "100m", min(cluster.namespaces, default="default"))]
    scenarios = zone_loss_scenarios(cluster.nodes) + node_loss_scenarios(cluster.nodes, 1)[:4]
    pending = []
    for scenario in scenarios:
        summaries = summarise(schedule_workloads(without_nodes(cluster, scenario.lost, NOW), objects, NOW, None),
                              False)
        pending.append((sum(w.pending for w in summaries), scenario))
    policy = loss_policy("probe", cluster, scenarios, objects, NOW, None, "spec")
    failing = [(n, scenario) for n, scenario in pending if n]
    assert policy.ok == (not failing)
    if failing:
        most = max(n for n, _ in failing)
        worst = next(scenario for n, scenario in failing if n == most)
        assert policy.messages[0] == (f"{len(failing)} of {len(scenarios)} scenarios fail; worst: {worst.label}: "
                                      f"{most} of 6 new pods stay pending")
        assert policy.messages[2] == (f"the same check with {worst.flags} shows that scenario: the workloads are "
                                      "deployed after the loss, behind the pods it displaced")


def test_a_loss_policy_on_two_workers_is_the_policy_run_here(clusters: list[Cluster]) -> None:
    """`check --jobs 2`: the scenarios run in forked workers, the result is the same, in the
    same order (the worst named alike, progress heard once a scenario)."""
    cluster = clusters[6]
    objects = [_spread_out(6, "100m", min(cluster.namespaces, default="default"))]
    scenarios = zone_loss_scenarios(cluster.nodes) + node_loss_scenarios(cluster.nodes, 1)[:3]
    heard: list[tuple[int, int]] = []
    here = loss_policy("probe", cluster, scenarios, objects, NOW, None, "spec")
    there = loss_policy("probe", cluster, scenarios, objects, NOW, None, "spec",
                        progress=lambda done, total: heard.append((done, total)), jobs=2)
    assert there == here
    assert heard == [(i, len(scenarios)) for i in range(1, len(scenarios) + 1)]


def test_one_scenario_runs_with_the_collector_paused_and_gives_its_snapshot_back(clusters: list[Cluster]) -> None:
    """A scenario's hundreds of thousands of objects live until its end and hold no cycles but
    its snapshot's: the collector waits for the end, and the snapshot is released then."""
    scenarios = Scenarios(clusters[0])
    with scenarios.one():
        assert not gc.isenabled()
        prepare(clusters[0], NOW, scenarios=scenarios).run()
        assert _lent(scenarios) is not None
    assert gc.isenabled()
    assert _lent(scenarios) is None


def _lent(scenarios: Scenarios) -> Snapshot | None:
    base = scenarios._base  # noqa: SLF001 - the test looks at the shared snapshot
    assert isinstance(base, Snapshot)
    return base.lent_to


def test_a_scenario_inside_another_frees_its_snapshot_when_it_ends(clusters: list[Cluster]) -> None:
    """A sweep row's loss policy: the outer scenario keeps the collector off, yet each inner
    scenario's snapshot (held by cycles) is freed as that scenario ends, not with the row."""
    outer, inner = Scenarios(clusters[0]), Scenarios(clusters[0])
    with outer.one():
        with inner.one():
            prepare(clusters[0], NOW, scenarios=inner).run()
            derived = _lent(inner)
            assert derived is not None
            freed = weakref.ref(derived)
            del derived
        assert not gc.isenabled()
        assert freed() is None
    assert gc.isenabled()
