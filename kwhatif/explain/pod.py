"""Why a pod landed where it did, or why it stays pending: a structured explanation.

Upstream text (the FailedScheduling message, reason strings) is kept verbatim; what kwhatif adds
(per-node verdicts, score breakdowns, preemption detail, plugin insight) is labelled as its own."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kwhatif.api.cluster import Cluster
from kwhatif.explain.requeue import RequeueEvent, requeue_events
from kwhatif.framework.scheduler import Attempt, Outcome, PodResult
from kwhatif.framework.status import Code
from kwhatif.plugins.dynamic_resources import NAME as DYNAMIC_RESOURCES
from kwhatif.plugins.dynamic_resources.claims import never_created

if TYPE_CHECKING:  # suggest builds on this module's Explanation
    from kwhatif.explain.suggest import Suggestion


@dataclass
class NodeVerdict:
    node: str
    feasible: bool
    plugin: str = ""
    code: str = ""
    reasons: list[str] = field(default_factory=list)
    scores: dict[str, int] = field(default_factory=dict)
    total: int | None = None
    chosen: bool = False
    tied: bool = False
    insights: dict[str, list[str]] = field(default_factory=dict)
    measures: dict[str, int] = field(default_factory=dict)  # how far from fitting (NodeExplainer.measure_node)
    also_fails: dict[str, list[str]] = field(default_factory=dict)  # later filters that reject it too (kwhatif's)


@dataclass
class AttemptExplanation:
    outcome: Outcome
    node: str | None
    message: str | None
    tied_nodes: list[str]
    verdicts: list[NodeVerdict]
    nominated_fast_path: bool
    named_node: bool = False
    node_set_plugins: tuple[str, ...] = ()
    """The PreFilter plugins whose node-name sets left nodes out before Filter (Attempt.node_set_plugins)."""

    def rejected_by(self, plugin: str) -> tuple[str, ...]:
        """The plugin(s) that rejected a node whose status names `plugin`: that one, or, for a node a
        PreFilter node-name set left out — whose status, kube-scheduler's absent-node status, names
        no plugin — the plugins whose sets did (schedule_one.go:findNodesThatFitPod)."""
        return (plugin,) if plugin else self.node_set_plugins


@dataclass
class Explanation:
    pod: str
    outcome: Outcome
    node: str | None
    message: str | None
    tied_nodes: list[str]
    attempts: list[AttemptExplanation]
    preemption: dict[str, Any] | None
    requeue_on: list[tuple[str, RequeueEvent]] = field(default_factory=list)  # (plugin, event), pending pods
    suggestions: list[Suggestion] = field(default_factory=list)  # each verified by a re-run
    suggestions_searched: bool = False
    """Whether suggestions were searched: no suggestion then means none of the kinds tried binds the pod."""
    priority: int = 0  # as the scheduler saw it (after admission)
    gates: tuple[str, ...] = ()
    """A gated pod's spec.schedulingGates: the condition message does not name them."""
    held: list[str] = field(default_factory=list)
    """kwhatif's account of a pod a PreEnqueue check holds for good, with what to change (a
    missing ResourceClaimTemplate: `dynamic_resources.claims.never_created`)."""


def _verdicts(attempt: Attempt, node_names: list[str]) -> list[NodeVerdict]:
    if attempt.outcome == Outcome.ERROR:
        return []  # a plugin's error ended the cycle: no node was judged
    statuses = attempt.diagnosis.node_to_status
    feasible = set(attempt.feasible_nodes)
    out = []
    if attempt.nominated_fast_path or attempt.named_node:
        node_names = attempt.feasible_nodes  # only the nominated (or named) node was evaluated
    for name in node_names:
        if name in feasible:
            v = NodeVerdict(name, True, chosen=name == attempt.node, tied=name in attempt.tied_nodes)
            if attempt.scores is not None and name in attempt.scores.by_node:
                v.scores = dict(attempt.scores.by_node[name])
                v.total = attempt.scores.totals[name]
        else:
            status = statuses.get(name)
            v = NodeVerdict(name, False, status.plugin, status.code.label if status.code != Code.SUCCESS else "",
                            list(status.reasons))
        v.insights = attempt.insights.get(name) or _rejection_insight(attempt, name)
        v.measures = attempt.measures.get(name, {})
        v.also_fails = {st.plugin: list(st.reasons) for st in attempt.also_fails.get(name, [])}
        out.append(v)
    out.sort(key=lambda v: (not v.feasible, -(v.total or 0), v.node))
    return out


def _rejection_insight(attempt: Attempt, node: str) -> dict[str, list[str]]:
    """The PreFilter rejection's sentences, for a node that carries its (absent-node) status."""
    statuses = attempt.diagnosis.node_to_status
    if not attempt.rejection_insight or node in statuses.statuses:
        return {}
    return {statuses.absent.plugin: attempt.rejection_insight}


def _preemption(attempt: Attempt) -> dict[str, Any] | None:
    if not attempt.post_filter_ran:
        return None
    status = attempt.post_filter_status
    result = attempt.preemption
    report = result.explanation if result is not None else None
    data: dict[str, Any] = {"postfilter_message": status.message if status else ""}
    if report is None:
        return data
    data["not_eligible"] = report.not_eligible
    data["potential_nodes"] = report.potential
    data["node_results"] = {n: list(s.reasons) for n, s in sorted(report.node_results.items())}
    data["candidates"] = [
        {"node": c.node, "victims": [{"pod": v.key, "priority": v.pod.effective_priority,
                                      "breaks_pdb": c.pdb_broken.get(v.key, [])} for v in c.victims],
         "reprieved": [r.key for r in c.reprieved], "pdb_violations": c.num_pdb_violations}
        for c in sorted(report.candidates, key=lambda c: c.node)
    ]
    if report.chosen is not None:
        data["chosen"] = report.chosen.node
        data["decided_by"] = report.decided_by
        data["tied"] = report.tied
    return data


def explain(result: PodResult, node_names: list[str]) -> Explanation:
    """The explanation of the final attempt (preemption detail from the first, as the scheduler
    reports it)."""
    final, first = result.final, result.first
    if final is None or first is None:
        gated = [result.held_by] if result.outcome == Outcome.GATED and result.held_by else []
        return Explanation(result.pod.key, result.outcome, None, result.message, [], [], None,
                           requeue_events(gated), priority=result.pod.effective_priority,
                           gates=result.pod.scheduling_gates if result.held_by == "SchedulingGates" else ())
    attempts = [
        AttemptExplanation(a.outcome, a.node, a.message, a.tied_nodes, _verdicts(a, node_names),
                           a.nominated_fast_path, a.named_node, a.node_set_plugins)
        for a in result.attempts
    ]
    pending = result.outcome == Outcome.UNSCHEDULABLE
    return Explanation(
        pod=result.pod.key, outcome=result.outcome, node=final.node, message=final.message,
        tied_nodes=final.tied_nodes, attempts=attempts, preemption=_preemption(first),
        requeue_on=requeue_events(_rejecting_plugins(attempts[-1])) if pending else [],
        priority=result.pod.effective_priority,
    )


def held_account(result: PodResult, cluster: Cluster) -> list[str]:
    """What keeps a pod DynamicResources' PreEnqueue holds waiting for good, and what to change
    (`never_created`); empty for any other pod, or when the wait is the moment the resourceclaim
    controller takes."""
    if result.outcome != Outcome.GATED or result.held_by != DYNAMIC_RESOURCES:
        return []
    return never_created(result.pod, cluster.claim_templates, cluster.resource_claims)


def _rejecting_plugins(attempt: AttemptExplanation) -> list[str]:
    """The plugins that rejected some node, most nodes first: kube-scheduler records them as the
    pod's unschedulable plugins, and only their registered events move it back to the queue."""
    counts = Counter(plugin for v in attempt.verdicts if not v.feasible for plugin in attempt.rejected_by(v.plugin))
    return sorted(counts, key=lambda plugin: (-counts[plugin], plugin))
