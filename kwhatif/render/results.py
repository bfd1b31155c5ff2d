"""The JSON output contract (`schemas/schedule-output.schema.json`): simulation → plain data.

Field names and meanings follow the conformance format; kwhatif adds `incomplete`, `reason`
and `explanation`-free extras only under their own names."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from kwhatif.engine import Simulation
from kwhatif.explain.pod import Explanation
from kwhatif.explain.summary import ReasonGroup, reason_groups
from kwhatif.framework.scheduler import Attempt, Outcome, PodResult

VERSION = "kube-scheduler v1.34.1"


def _filter(attempt: Attempt) -> dict[str, Any]:
    statuses = attempt.diagnosis.node_to_status.statuses
    return {
        node: {"plugin": s.plugin, "code": s.code.label, "reasons": list(s.reasons)}
        for node, s in sorted(statuses.items())
    }


def _scores(attempt: Attempt) -> dict[str, Any] | None:
    if attempt.scores is None:
        return None
    by_node, totals = attempt.scores.node_scores(), attempt.scores.node_totals()
    out = {}
    for node in sorted(by_node):
        entry = dict(sorted(by_node[node].items()))
        entry["total"] = totals[node]
        out[node] = entry
    return out


def _preemption(attempt: Attempt) -> dict[str, Any] | None:
    if not attempt.post_filter_ran:
        return None
    result = attempt.preemption
    return {
        "nominated_node": (result.nominated_node or None) if result else None,
        "victims": [v.key for v in result.victims] if result else [],
    }


def attempt_data(attempt: Attempt, node_detail: bool = True) -> dict[str, Any]:
    """The attempt's outcome; with `node_detail`, also its feasible nodes, each node's filter
    result and each feasible node's scores (on 5,000 nodes, a million entries for 1,000 pods)."""
    data: dict[str, Any] = {
        "outcome": attempt.outcome.value,
        "node": attempt.node,
        "tied_nodes": attempt.tied_nodes,
        "message": attempt.message,
        "reason": attempt.reason,
        "num_nodes": attempt.num_nodes,
        "num_feasible": attempt.num_feasible,
        "scored_by_scheduler": attempt.scored_by_scheduler,
    }
    if attempt.nominated_fast_path:
        data["nominated_node_fast_path"] = True
    if attempt.named_node:
        data["named_node"] = True
    if node_detail:
        if attempt.outcome == Outcome.BOUND:
            data["feasible_nodes"] = attempt.feasible_nodes
        if attempt.diagnosis.node_to_status.statuses:
            data["filter"] = _filter(attempt)
        scores = _scores(attempt)
        if scores is not None:
            data["scores"] = scores
    data["preemption"] = _preemption(attempt)
    return data


def pod_result_data(result: PodResult, node_detail: bool = True) -> dict[str, Any]:
    pod = result.pod
    data: dict[str, Any] = {"pod": pod.key, "priority": pod.effective_priority}
    final, first = result.final, result.first
    if final is None or first is None:
        data.update({"outcome": result.outcome.value, "node": None, "tied_nodes": [], "message": result.message,
                     "preemption": None})
    else:
        data.update(attempt_data(final, node_detail))
        data["preemption"] = _preemption(first)
        if len(result.attempts) > 1:
            data["attempts"] = [attempt_data(a, node_detail) for a in result.attempts]
    if result.incomplete:
        data["incomplete"] = result.incomplete
    return data


def simulation_data(sim: Simulation, node_detail: bool = True) -> dict[str, Any]:
    return {**simulation_head(sim), "results": [pod_result_data(r, node_detail) for r in sim.results],
            "warnings": sim.warnings}


def simulation_head(sim: Simulation) -> dict[str, Any]:
    """What precedes the results in `simulation_data`."""
    counts: dict[str, int] = {}
    for result in sim.results:
        outcome = (result.final.outcome if result.final is not None else result.outcome).value
        counts[outcome] = counts.get(outcome, 0) + 1
    return {
        "version": VERSION,
        "cluster": {"nodes": sim.snapshot.num_nodes, "bound_pods": sim.initial_bound,
                    "pending_pods": len(sim.results)},
        "counts": dict(sorted(counts.items())),
    }


def explained_pod_data(sim: Simulation, exp: Explanation, running_on: str | None = None) -> dict[str, Any]:
    """The pod's record of the contract with its `explanation` (each attempt's per-node verdicts
    and the preemption story) added; `running_on`: the node a bound pod runs on in the snapshot
    (its record's node is where a re-run of its placement would put it now)."""
    data = next(pod_result_data(r) for r in sim.results if r.pod.key == exp.pod)
    attempts = [{**asdict(a), "outcome": a.outcome.value, "groups": [_group_data(g) for g in reason_groups(a)]}
                for a in exp.attempts]
    requeue = [{"plugin": plugin, "resource": e.resource, "actions": list(e.actions), "why": e.why}
               for plugin, e in exp.requeue_on]
    data["explanation"] = {"attempts": attempts, "preemption": exp.preemption, "requeue_on": requeue,
                           "suggestions": [s.data() for s in exp.suggestions],
                           "suggestions_searched": exp.suggestions_searched}
    if running_on:
        data["explanation"]["running_on"] = running_on
    if exp.gates:
        data["explanation"]["gates"] = list(exp.gates)
    if exp.held:
        data["explanation"]["held"] = list(exp.held)
    return data


def _group_data(group: ReasonGroup) -> dict[str, Any]:
    """One group of rejected nodes (kwhatif's summary): who stopped them, how many, examples and
    how far they are from fitting."""
    return {"plugin": group.plugin, "code": group.code, "reasons": list(group.reasons), "count": len(group.nodes),
            "examples": group.examples, "spreads": [asdict(s) for s in group.spreads], "insight": group.insight,
            "also_fails": [{"filter": a.text, "count": a.nodes} for a in group.also_fails],
            **({"taint_key": group.taint_key} if group.taint_key is not None else {})}
