"""One scenario run on a loaded snapshot, and the row it yields.

A scenario is the snapshot plus its changes (nodes of a template added, then nodes removed by
label — added ones too: "how many nodes survive losing zone a" loses the zone-a nodes it adds),
scheduled as `kwhatif schedule` does, or, with workloads, checked as `kwhatif check`
does with the sweep's policies: the row's figures are those commands' figures for the same
inputs (tests/sweep compares them). A scenario that fails (bad input found only now, a bug)
yields a row with its error; the sweep goes on."""

from __future__ import annotations

from typing import Any

from kwhatif.api.cluster import Cluster
from kwhatif.check import CheckResult, run_check
from kwhatif.engine import Scenarios, Simulation, simulate
from kwhatif.errors import InputError
from kwhatif.framework.scheduler import Outcome, PodResult
from kwhatif.snapshot.snapshot import Snapshot
from kwhatif.sweep.changes import add_nodes, remove_labelled
from kwhatif.sweep.spec import Plan, Scenario

BASE_RESOURCES = ("cpu", "memory", "pods")


def outcome(result: PodResult) -> Outcome:
    """The pod's outcome as `schedule -o json` counts it (its final attempt's)."""
    return result.final.outcome if result.final is not None else result.outcome


def message(result: PodResult) -> str | None:
    return result.final.message if result.final is not None else result.message


def victims(sim: Simulation) -> set[str]:
    return {v.key for r in sim.results for a in r.attempts if a.preemption for v in a.preemption.victims}


def utilisation(snapshot: Snapshot) -> dict[str, float]:
    """Per resource, the percentage of the cluster's allocatable that bound pods request after
    the run (cpu, memory, pods, then any extended resource a node offers), to 0.1 %; none where
    nothing is offered (no node left: 0 of 0 is no 0 %)."""
    infos = snapshot.node_infos
    extended = sorted({name for i in infos for name, n in i.allocatable.scalars.items() if n > 0})
    out: dict[str, float] = {}
    for name in (*BASE_RESOURCES, *extended):
        if name == "pods":
            used, offered = sum(len(i.pods) for i in infos), sum(i.allowed_pods for i in infos)
        else:
            used = sum(i.requested.get(name) for i in infos)
            offered = sum(i.allocatable.get(name) for i in infos)
        if offered:
            out[name] = round(100 * used / offered, 1)
    return out


FAILED_SCHEDULING = (Outcome.UNSCHEDULABLE, Outcome.ERROR)
"""The outcomes kube-scheduler reports with a FailedScheduling event."""


def simulation_row(sim: Simulation) -> dict[str, Any]:
    """bound / pending count the queue's pods by outcome (a pod bound, then evicted by a later
    preemption, stays counted as bound, as `schedule` counts it); evicted: distinct victims;
    message: the queue's first FailedScheduling text — of a pod no node takes, or whose cycle
    failed; a gated pod or one left to another scheduler has no such event (a check's row says its
    verdict's reason instead: `verdict_row`)."""
    bound = sum(1 for r in sim.results if outcome(r) == Outcome.BOUND)
    first = next((message(r) for r in sim.results if outcome(r) in FAILED_SCHEDULING and message(r)), None)
    return {"nodes": sim.snapshot.num_nodes, "bound": bound, "pending": len(sim.results) - bound,
            "evicted": len(victims(sim)), "utilisation": utilisation(sim.snapshot), "message": first}


def scenario_cluster(cluster: Cluster, scenario: Scenario, plan: Plan) -> Cluster:
    template = plan.templates.get(scenario.template) if scenario.template is not None else None
    grown = add_nodes(cluster, template, scenario.count, plan.now)
    return remove_labelled(grown, plan.removals.get(scenario.remove or "", {}), plan.now)


def figures(engine: Scenarios, scenario: Scenario, plan: Plan) -> dict[str, Any]:
    """The scenario's figures: the schedule's, and with workloads the check's verdict, from a
    snapshot the engine derives from the loaded one."""
    changed = scenario_cluster(engine.cluster, scenario, plan)
    profiles = plan.configs.get(scenario.config)
    if scenario.workloads is None:
        sim = simulate(changed, plan.now, profiles=profiles, scenarios=engine)
        return {**simulation_row(sim), "verdict": None, "failed_workloads": [], "policies": [],
                "warnings": engine.own_warnings(sim.warnings)}
    options = plan.check
    result = run_check(changed, plan.workloads[scenario.workloads], plan.now, profiles,
                       replicas_mode=options.replicas_mode, as_new=options.as_new,
                       no_evictions=options.no_evictions, headroom=options.headroom, node_loss=options.node_loss,
                       zone_loss=options.zone_loss, scenarios=engine)
    return {**simulation_row(result.simulation), **verdict_row(result), "warnings": engine.own_warnings(result.warnings)}


def verdict_row(result: CheckResult) -> dict[str, Any]:
    """The check's verdict and what decides it: the workloads that do not fit (or evict, or
    stall their rollout) and the policies that fail. The message is the reason of the first of
    them — the first failing workload's (its FailedScheduling text when a pod stays pending),
    else the first failing policy's — never that of a pod the snapshot had pending that no
    workload of the check owns: a passing row has none."""
    failed = [w for w in result.workloads if not w.ok]
    reasons = [w.message for w in failed] + [m for p in result.policies if not p.ok for m in p.messages]
    return {"verdict": "pass" if result.ok else "fail", "failed_workloads": [w.ref for w in failed],
            "policies": [{"policy": p.policy, "ok": p.ok} for p in result.policies],
            "message": next((r for r in reasons if r), None)}


EMPTY: dict[str, Any] = {"nodes": None, "bound": None, "pending": None, "evicted": None, "utilisation": {},
                         "message": None, "warnings": [], "verdict": None, "failed_workloads": [], "policies": []}


def run_scenario(engine: Scenarios, scenario: Scenario, plan: Plan) -> dict[str, Any]:
    """The scenario's row; an error is reported in it (the way the CLI would word it)."""
    try:
        with engine.one():
            found = figures(engine, scenario, plan)
        error = None
    except InputError as err:
        found, error = dict(EMPTY), f"error: {err}"
    except Exception as err:  # noqa: BLE001 - one scenario's bug must not end the sweep
        found, error = dict(EMPTY), f"internal error: {type(err).__name__}: {err}"
    return {**scenario.data(), **found, "error": error}
