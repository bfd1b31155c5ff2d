"""Node-pressure eviction, offline: which of a node's pods the kubelet evicts, in which order,
how many go before the signal is back above its threshold, and where the evicted pods that a
controller recreates would be scheduled.

The kubelet's order (pkg/kubelet/eviction/helpers.go):
- memory.available: rankMemoryPressure = orderedBy(exceedMemoryRequests, priority, memory):
  a pod without usage stats first, then a pod whose usage exceeds its memory request, then the
  lower priority, then the larger usage minus request;
- nodefs.available: rankDiskPressureFunc = orderedBy(exceedDiskRequests, priority, disk), the same
  with ephemeral-storage usage and requests;
- pid.available: rankPIDPressure = orderedBy(priority, process): lower priority, then more processes.
Go's sort is not stable; kwhatif keeps input order between pods the comparators call equal.
Critical pods (static, mirror, or priority ≥ 2000000000) are skipped (eviction_manager.go:evictPod).

The kubelet evicts one pod at a time and observes again; kwhatif counts the pods that must go,
each freeing its usage, until `available >= threshold` (a signal is met while available <
threshold). The node gets the pressure taint (TaintNodesByCondition) before the evicted pods are
scheduled again."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import Node, Pod
from kwhatif.api.quantity import parse_quantity, value
from kwhatif.api.resources import pod_requests, qos_class
from kwhatif.api.tolerations import Taint
from kwhatif.engine import is_bound, simulate
from kwhatif.errors import InputError
from kwhatif.framework.scheduler import Outcome
from kwhatif.whatif.pods import MIRROR_ANNOTATION, replaced_pods
from kwhatif.whatif.targets import replace_node
from kwhatif.text import listed

SYSTEM_CRITICAL_PRIORITY = 2_000_000_000  # scheduling.SystemCriticalPriority
STATIC_SOURCE = "kubernetes.io/config.source"


@dataclass(frozen=True)
class Signal:
    name: str
    usage: str          # the usage key read from the usage file
    request: str | None  # the request the usage is compared with
    default: str | None  # the kubelet's default hard threshold
    taint: str


SIGNALS: dict[str, Signal] = {s.name: s for s in (
    Signal("memory.available", "memory", "memory", "100Mi", "node.kubernetes.io/memory-pressure"),
    Signal("nodefs.available", "ephemeral-storage", "ephemeral-storage", "10%", "node.kubernetes.io/disk-pressure"),
    Signal("pid.available", "pids", None, None, "node.kubernetes.io/pid-pressure"),
)}


def is_critical(pod: Pod) -> bool:
    """kubelettypes.IsCriticalPod: a static pod, a mirror pod, or system-critical priority."""
    return (pod.annotations.get(STATIC_SOURCE, "api") != "api" or MIRROR_ANNOTATION in pod.annotations
            or pod.effective_priority >= SYSTEM_CRITICAL_PRIORITY)


@dataclass(frozen=True)
class Candidate:
    pod: Pod
    usage: int | None  # None: no stats for this pod
    request: int

    @property
    def exceeds(self) -> bool:
        return self.usage is not None and self.usage > self.request


def cmp_bool(a: bool, b: bool) -> int:
    """helpers.go:cmpBool: true sorts first."""
    return 0 if a == b else (-1 if a else 1)


def exceeds_requests(a: Candidate, b: Candidate) -> int:
    """exceedMemoryRequests / exceedDiskRequests: no stats first, then usage above the request."""
    if a.usage is None or b.usage is None:
        return cmp_bool(a.usage is None, b.usage is None)
    return cmp_bool(a.exceeds, b.exceeds)


def by_priority(a: Candidate, b: Candidate) -> int:
    """helpers.go:priority: the lower priority first."""
    pa, pb = a.pod.effective_priority, b.pod.effective_priority
    return 0 if pa == pb else (1 if pa > pb else -1)


def above_request(a: Candidate, b: Candidate) -> int:
    """memory / disk: the larger usage minus request first (no stats: that pod first)."""
    if a.usage is None:
        return -1
    if b.usage is None:
        return 1
    return (b.usage - b.request) - (a.usage - a.request)


def by_usage(a: Candidate, b: Candidate) -> int:
    """helpers.go:process: no stats first (cmpBool(!p1Found, !p2Found)), then more processes first."""
    if a.usage is None or b.usage is None:
        return cmp_bool(a.usage is None, b.usage is None)
    return b.usage - a.usage


RANKS: dict[str, tuple[Callable[[Candidate, Candidate], int], ...]] = {
    "memory.available": (exceeds_requests, by_priority, above_request),
    "nodefs.available": (exceeds_requests, by_priority, above_request),
    "pid.available": (by_priority, by_usage),
}


def ranked(candidates: list[Candidate], signal: str) -> list[Candidate]:
    """orderedBy(...).Sort: the first comparator that tells the pods apart decides."""
    comparators = RANKS[signal]

    def compare(a: Candidate, b: Candidate) -> int:
        for cmp in comparators:
            result = cmp(a, b)
            if result:
                return result
        return 0
    return sorted(candidates, key=functools.cmp_to_key(compare))


def threshold_bytes(text: str, capacity: int | None, signal: str) -> int:
    """A hard threshold: a quantity, or a percentage of the capacity (`10%`)."""
    if text in ("0%", "100%"):  # eviction/helpers.go parseThresholdStatement: "ignore 0% and 100%"
        raise InputError(f"--threshold {text}: the kubelet ignores a threshold of 0% or 100%: it evicts nothing "
                         f"for {signal}")
    if text.endswith("%"):
        if not _PERCENT.fullmatch(text[:-1]):
            raise InputError(f"--threshold {text}: not a percentage")
        percent = Fraction(text[:-1])
        if not 0 <= percent <= 100:
            raise InputError(f"--threshold {text}: eviction percentage threshold {signal} must be "
                             f"{'>= 0%' if percent < 0 else '<= 100%'}: {text}")
        if capacity is None:
            raise InputError(f"--threshold {text}: a percentage of {signal} needs the capacity "
                             "(--capacity, or a kubelet stats summary as --usage)")
        return value(percent * capacity / 100)
    try:
        amount = value(parse_quantity(text))
    except ValueError:
        raise InputError(f"--threshold {text}: not a quantity (e.g. 100Mi) nor a percentage (e.g. 10%)") from None
    if amount <= 0:
        raise InputError(f"--threshold {text}: eviction threshold {signal} must be positive: {text}")
    return amount


_PERCENT = re.compile(r"-?[0-9]{1,15}(\.[0-9]{1,15})?")
"""A percentage as a person writes one (the kubelet reads a float): bounded, so that no text
takes Fraction minutes to read."""


@dataclass
class Ranked:
    """One line of the ranking."""

    candidate: Candidate
    qos: str
    critical: bool
    evicted: bool = False
    rescheduled: str | None = None  # where its recreated pod lands, or its FailedScheduling message


@dataclass
class EvictionPlan:
    node: str
    signal: str
    available: int
    threshold: int
    estimated: bool
    ranking: list[Ranked] = field(default_factory=list)
    after: int = 0
    warnings: list[str] = field(default_factory=list)

    @property
    def evicted(self) -> list[Ranked]:
        return [r for r in self.ranking if r.evicted]

    def data(self) -> dict[str, Any]:
        return {"node": self.node, "signal": self.signal, "available": self.available, "threshold": self.threshold,
                "available_estimated": self.estimated, "under_pressure": self.available < self.threshold,
                "evicted": len(self.evicted), "available_after": self.after,
                "ranking": [{"pod": r.candidate.pod.key, "qos": r.qos, "priority": r.candidate.pod.effective_priority,
                             "usage": r.candidate.usage, "request": r.candidate.request,
                             "exceeds_request": r.candidate.exceeds, "critical": r.critical,
                             "evicted": r.evicted, "rescheduled": r.rescheduled} for r in self.ranking],
                "warnings": self.warnings}


@dataclass(frozen=True)
class NodeStats:
    """What the usage file says of the node itself (a kubelet stats summary), if anything."""

    available: dict[str, int] = field(default_factory=dict)
    capacity: dict[str, int] = field(default_factory=dict)


def plan_eviction(cluster: Cluster, node_name: str, signal: str, usage: Mapping[str, Mapping[str, int]],
                  node_stats: NodeStats, now: str, threshold: str | None = None,
                  available: int | None = None, capacity: int | None = None) -> EvictionPlan:
    """The ranking, the pods that go, and where their controllers' new pods are scheduled."""
    spec = SIGNALS[signal]
    node = next((n for n in cluster.nodes if n.name == node_name), None)
    if node is None:
        raise InputError(f"{node_name}: no such node in the cluster")
    pods = [p for p in cluster.pods if p.node_name == node_name and is_bound(p)]
    candidates = [candidate(p, spec, usage) for p in pods]
    capacity = capacity if capacity is not None else node_stats.capacity.get(spec.usage, allocatable(node, spec))
    estimated = available is None and spec.usage not in node_stats.available
    if available is None:
        available = node_stats.available.get(spec.usage)
    if available is None:
        if capacity is None:
            raise InputError(f"{signal}: give --available (the usage file says nothing of the node)")
        available = capacity - sum(c.usage or 0 for c in candidates)
    limit_text = spec.default if threshold is None else threshold
    if limit_text is None:
        raise InputError(f"{signal}: the kubelet has no default threshold for it; give --threshold")
    plan = EvictionPlan(node_name, signal, available, threshold_bytes(limit_text, capacity, signal), estimated)
    unmeasured = [c.pod.key for c in candidates if c.usage is None]
    if unmeasured and usage:
        plan.warnings.append(f"{len(unmeasured)} pod(s) on {node_name} have no {spec.usage} reading in the usage file "
                             f"({listed(unmeasured, 5)}): ranked as pods the kubelet has no stats for, first — a "
                             "stale file (a pod started since) makes them look that way")
    plan.ranking = [Ranked(c, qos_class(c.pod), is_critical(c.pod)) for c in ranked(candidates, signal)]
    plan.after = choose_evictions(plan)
    reschedule(cluster, plan, spec, now)
    return plan


def allocatable(node: Node, spec: Signal) -> int | None:
    """The node's allocatable amount of the signal's resource: the capacity when the usage file
    gives none (allocatable is capacity minus the kubelet's reservations, so this errs small)."""
    amount = node.allocatable.get(spec.usage)
    return int(amount) if amount is not None else None


def candidate(pod: Pod, spec: Signal, usage: Mapping[str, Mapping[str, int]]) -> Candidate:
    return Candidate(pod, usage.get(pod.key, {}).get(spec.usage), eviction_request(pod, spec.request))


def eviction_request(pod: Pod, resource: str | None) -> int:
    """resource helpers.go:GetResourceRequestQuantity, what the eviction ranking compares usage
    with: the pod's request without its overhead, the overhead added only to a request above
    zero — a BestEffort pod of a RuntimeClass with overhead still requests nothing, so any use
    exceeds it."""
    if resource is None:
        return 0
    request = pod_requests(pod, overhead=False).get(resource, Fraction(0))
    if request and pod.overhead:
        request += pod.overhead.get(resource, Fraction(0))
    return int(request)


def choose_evictions(plan: EvictionPlan) -> int:
    """Mark the pods that go, in rank order, until available >= threshold; returns the available
    amount after them. A critical pod is passed over, as the kubelet does."""
    available = plan.available
    for line in plan.ranking:
        if available >= plan.threshold:
            break
        if line.critical:
            continue
        line.evicted = True
        available += line.candidate.usage or 0
    if available < plan.threshold:
        plan.warnings.append(f"{plan.signal} stays under its threshold even with every pod evicted")
    return available


def reschedule(cluster: Cluster, plan: EvictionPlan, spec: Signal, now: str) -> None:
    """The evicted pods gone; the node tainted with its pressure; the recreated pods scheduled."""
    if not plan.evicted:
        return
    after = cluster.copy()
    node = next(n for n in after.nodes if n.name == plan.node)
    replace_node(after, replace(node, taints=node.taints + (Taint(spec.taint, "", "NoSchedule"),)))
    gone = [r.candidate.pod for r in plan.evicted]
    by_owner = {id(pod): fresh for pod, fresh in replaced_pods(after, gone, now, f"evict/{plan.node}")}
    sim = simulate(after, now)
    results = {r.pod.key: r for r in sim.results}
    for line in plan.evicted:
        fresh = by_owner.get(id(line.candidate.pod))
        result = results.get(fresh.key) if fresh is not None else None
        if fresh is None:
            line.rescheduled = ("not recreated (no controller)" if line.candidate.pod.controller_ref is None
                                else "not recreated (its controller makes no new pod)")
        elif result is not None and result.outcome == Outcome.BOUND and result.final is not None:
            line.rescheduled = f"{fresh.key} on {result.final.node}"
        elif result is not None:
            line.rescheduled = f"{fresh.key} pending: {result.message or result.outcome.value}"
    plan.warnings.extend(sim.warnings)
