"""All pending pods at once, grouped by root cause (`kwhatif pending`).

After a queue is scheduled, hundreds of pods may stay pending for a handful of reasons. Two pods
share a root cause when the same plugins rejected nodes for the same reasons (the node counts may
differ: a cluster fills up as the queue runs); each group is one thing to fix."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from kwhatif.api.cluster import Cluster
from kwhatif.config.profile import ProfileConfig
from kwhatif.explain.run import explain_pod
from kwhatif.explain.suggest import Suggestion
from kwhatif.framework.scheduler import Attempt, Outcome, PodResult

Signature = tuple[tuple[str, tuple[str, ...]], ...]  # ((plugin, reasons), ...) sorted
GATES_PLUGIN = "SchedulingGates"
GATED: Signature = ((GATES_PLUGIN, ("waiting for its schedulingGates to be removed",)),)
SCHEDULER_ERROR = "SchedulerError"
"""How a pod whose attempt ended in a SchedulingError is grouped: its PodScheduled condition's
reason (schedule_one.go:handleSchedulingFailure), with the error's text as the cause."""
PENDING = (Outcome.UNSCHEDULABLE, Outcome.GATED, Outcome.ERROR)
"""The outcomes that leave a pod Pending: a scheduler error too (the reference, §8)."""


@dataclass
class PendingGroup:
    """Pods left pending for the same reasons."""

    signature: Signature
    pods: list[PodResult] = field(default_factory=list)

    @property
    def namespaces(self) -> list[str]:
        return sorted({r.pod.namespace for r in self.pods})

    @property
    def owners(self) -> list[str]:
        """`Kind/namespace/name` of the pods' controllers (the workloads to change), sorted."""
        refs = {f"{ref.kind}/{r.pod.namespace}/{ref.name}" for r in self.pods
                for ref in [r.pod.controller_ref] if ref is not None}
        return sorted(refs)


def signature(result: PodResult) -> Signature:
    """The (plugin, reasons) pairs that rejected nodes in the pod's first attempt (before any
    preemption changed the cluster)."""
    if result.outcome == Outcome.GATED:
        return _gated_signature(result)
    if result.outcome == Outcome.ERROR:
        return ((SCHEDULER_ERROR, (result.message or "",)),)
    attempt = result.first
    return _attempt_signature(attempt) if attempt is not None else ()


def _gated_signature(result: PodResult) -> Signature:
    """The PreEnqueue plugin that holds the pod, with its reason: pods DynamicResources holds
    for a claim not there yet, one being deleted or one made for another pod are different
    things to fix, and none of them waits for scheduling gates."""
    if result.held_by in ("", GATES_PLUGIN):
        return GATED
    return ((result.held_by, (result.message or "",)),)


def _attempt_signature(attempt: Attempt) -> Signature:
    statuses = attempt.diagnosis.node_to_status
    pairs = {(s.plugin, tuple(s.reasons)) for s in statuses.statuses.values()}
    if attempt.num_nodes > len(statuses.statuses) and statuses.absent.reasons:
        pairs.add((statuses.absent.plugin, tuple(statuses.absent.reasons)))
    return tuple(sorted(pairs))


def pending_groups(results: list[PodResult]) -> list[PendingGroup]:
    """The pods that stay pending (unschedulable, gated, or their attempt an error), grouped by
    signature, biggest group first (then by signature, so the order is stable); pods keep
    scheduling order."""
    groups: dict[Signature, PendingGroup] = {}
    for result in results:
        if result.outcome in PENDING:
            key = signature(result)
            groups.setdefault(key, PendingGroup(key)).pods.append(result)
    return sorted(groups.values(), key=lambda g: (-len(g.pods), g.signature))


def best_suggestions(cluster: Cluster, now: str, groups: list[PendingGroup],
                     profiles: Sequence[ProfileConfig] | None) -> dict[Signature, Suggestion]:
    """Per group (those PreEnqueue holds and those a scheduler error stopped aside: no node was
    judged), the first verified suggestion for its first pod in the queue: what the group's
    owners would change first."""
    out: dict[Signature, Suggestion] = {}
    for group in groups:
        if group.pods[0].outcome != Outcome.UNSCHEDULABLE:
            continue
        done = explain_pod(cluster, now, group.pods[0].pod.key, [], profiles, rest_of_queue=False)
        if done is not None and done.explanation.suggestions:
            out[group.signature] = done.explanation.suggestions[0]
    return out
