"""PodTopologySpread: the smallest maxSkew that passes, or the constraint made ScheduleAnyway.

The smallest maxSkew comes from the domain counts as the Filter sees them (podtopologyspread
filtering.go:Filter), for a node N whose every other DoNotSchedule constraint passes:

    skew(N) = count[domain of N] + selfMatch − minMatch
    minMatch = the smallest count over the eligible domains (0 with fewer domains than minDomains)

maxSkew = the smallest skew(N) over those nodes lets the emptiest-crowded of them pass."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from kwhatif.api.affinity import TopologySpreadConstraint
from kwhatif.api.objects import Pod
from kwhatif.explain.pod import NodeVerdict
from kwhatif.explain.suggest.model import SPREAD, Candidate, Suggestion, Variant, pod_change, rejected_alone
from kwhatif.plugins.pod_topology_spread.common import (
    DO_NOT_SCHEDULE, ERR_REASON_CONSTRAINTS_NOT_MATCH, Constraint, filter_constraints, node_has_all_keys,
)
from kwhatif.plugins.pod_topology_spread.filtering import compute_pre_filter_state
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot

MAX_DOMAINS_NAMED = 3


def spread_fixes(pod: Pod, verdicts: list[NodeVerdict], snapshot: Snapshot) -> list[Candidate]:
    """When PodTopologySpread alone rejects some node: per DoNotSchedule constraint of the pod's
    own, the smallest maxSkew that frees such a node, then the constraint made ScheduleAnyway."""
    rejected = rejected_alone(verdicts, SPREAD)
    if not rejected:
        return []
    return _smallest_max_skew(pod, rejected, snapshot) + _schedule_anyway(pod)


def _schedule_anyway(pod: Pod) -> list[Candidate]:
    """Each DoNotSchedule constraint made ScheduleAnyway (kept as a preference in scoring, no
    longer a rule)."""
    out: list[Candidate] = []
    for i, c in _hard(pod):
        ops: list[dict[str, Any]] = [{"op": "replace", "path": f"/spec/topologySpreadConstraints/{i}/whenUnsatisfiable",
                                      "value": "ScheduleAnyway"}]
        if c.min_domains is not None:  # "can only use minDomains if whenUnsatisfiable=DoNotSchedule"
            ops.append({"op": "remove", "path": f"/spec/topologySpreadConstraints/{i}/minDomains"})
        summary = (f"make the spread over {c.topology_key} (maxSkew {c.max_skew}) ScheduleAnyway: a preference "
                   "instead of a rule" + (", without its minDomains" if c.min_domains is not None else ""))
        softened = replace(c, when_unsatisfiable="ScheduleAnyway", min_domains=None)
        out.append((Suggestion(summary, [pod_change(pod, ops)]), Variant(_with(pod, i, softened))))
    return out


def _hard(pod: Pod) -> list[tuple[int, TopologySpreadConstraint]]:
    """The pod's own DoNotSchedule constraints with their index in the manifest."""
    return [(i, c) for i, c in enumerate(pod.topology_spread_constraints) if c.when_unsatisfiable == DO_NOT_SCHEDULE]


def _with(pod: Pod, index: int, constraint: TopologySpreadConstraint) -> Pod:
    changed = list(pod.topology_spread_constraints)
    changed[index] = constraint
    return pod.evolve(topology_spread_constraints=tuple(changed))


@dataclass(frozen=True)
class Domains:
    """One constraint's matching pods per eligible domain, as PreFilter counts them."""

    constraint: Constraint
    counts: dict[str, int]
    self_match: int
    min_match: int

    def skew(self, value: str) -> int:
        return self.counts.get(value, 0) + self.self_match - self.min_match


def domain_counts(pod: Pod, constraints: list[Constraint], snapshot: Snapshot) -> list[Domains]:
    """The Filter's view of each constraint, from the plugin's own PreFilter counting
    (podtopologyspread filtering.go:calPreFilterState)."""
    state = compute_pre_filter_state(PodInfo.of(pod), constraints, snapshot)
    return [Domains(c, state.counts[i], state.self_match[i], state.min_match(i)) for i, c in enumerate(constraints)]


def _smallest_max_skew(pod: Pod, rejected: list[NodeVerdict], snapshot: Snapshot) -> list[Candidate]:
    hard = _hard(pod)
    constraints = filter_constraints(pod.topology_spread_constraints, pod.labels, DO_NOT_SCHEDULE)
    if not hard:
        return []
    domains = domain_counts(pod, constraints, snapshot)
    nodes = [snapshot.by_name[v.node].node for v in rejected if ERR_REASON_CONSTRAINTS_NOT_MATCH in v.reasons]
    out: list[Candidate] = []
    for j, (index, c) in enumerate(hard):
        key = c.topology_key
        # The nodes only constraint j keeps out (every other one passes), and the skew each would give.
        skews = {n.labels[key]: domains[j].skew(n.labels[key]) for n in nodes
                 if node_has_all_keys(n.labels, constraints) and domains[j].skew(n.labels[key]) > c.max_skew
                 and all(d.skew(n.labels[d.constraint.topology_key]) <= d.constraint.max_skew
                         for k, d in enumerate(domains) if k != j)}
        if not skews:
            continue
        needed = min(skews.values())
        crowded = sorted(value for value, skew in skews.items() if skew == needed)[:MAX_DOMAINS_NAMED]
        held = ", ".join(f"{key} {value} holds {domains[j].counts.get(value, 0)} matching pod(s)" for value in crowded)
        summary = f"{held}, {_emptiest(domains[j])}: maxSkew {needed} would pass (now {c.max_skew})"
        change = pod_change(pod, [{"op": "replace", "path": f"/spec/topologySpreadConstraints/{index}/maxSkew",
                                   "value": needed}])
        out.append((Suggestion(summary, [change]), Variant(_with(pod, index, replace(c, max_skew=needed)))))
    return out


def _emptiest(d: Domains) -> str:
    if len(d.counts) < d.constraint.min_domains:
        return f"the minimum counts as 0 ({len(d.counts)} domain(s) < minDomains {d.constraint.min_domains})"
    return f"the emptiest {d.min_match}"
