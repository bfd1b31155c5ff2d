"""PodTopologySpread: the smallest maxSkew that passes, or the constraint made ScheduleAnyway.

The smallest maxSkew comes from the domain counts as the Filter sees them (podtopologyspread
filtering.go:Filter), for a node N whose every other DoNotSchedule constraint passes:

    skew(N) = count[domain of N] + selfMatch − minMatch
    minMatch = the smallest count over the eligible domains (0 with fewer domains than minDomains)

maxSkew = the smallest skew(N) over those nodes lets the emptiest-crowded of them pass."""

from __future__ import annotations

from dataclasses import dataclass, replace

from kwhatif.api.affinity import RequiredNodeAffinity, TopologySpreadConstraint
from kwhatif.api.objects import Pod
from kwhatif.api.tolerations import first_untolerated_taint
from kwhatif.explain.pod import NodeVerdict
from kwhatif.explain.suggest.model import SPREAD, Candidate, NodeOf, Suggestion, Variant, pod_change, rejected_alone
from kwhatif.plugins.pod_topology_spread.common import (
    DO_NOT_SCHEDULE, ERR_REASON_CONSTRAINTS_NOT_MATCH, HONOR, Constraint, filter_constraints, node_has_all_keys,
)
from kwhatif.snapshot.node_info import NodeInfo

MAX_DOMAINS_NAMED = 3


def spread_fixes(pod: Pod, verdicts: list[NodeVerdict], node_of: NodeOf) -> list[Candidate]:
    """When PodTopologySpread alone rejects some node: per DoNotSchedule constraint of the pod's
    own, the smallest maxSkew that frees such a node, then the constraint made ScheduleAnyway."""
    rejected = rejected_alone(verdicts, SPREAD)
    if not rejected:
        return []
    return _smallest_max_skew(pod, rejected, verdicts, node_of) + _schedule_anyway(pod)


def _schedule_anyway(pod: Pod) -> list[Candidate]:
    """Each DoNotSchedule constraint made ScheduleAnyway (kept as a preference in scoring, no
    longer a rule)."""
    out: list[Candidate] = []
    for i, c in _hard(pod):
        change = pod_change(pod, [{"op": "replace", "path": f"/spec/topologySpreadConstraints/{i}/whenUnsatisfiable",
                                   "value": "ScheduleAnyway"}])
        summary = (f"make the spread over {c.topology_key} (maxSkew {c.max_skew}) ScheduleAnyway: a preference "
                   "instead of a rule")
        out.append((Suggestion(summary, [change]), Variant(_with(pod, i, replace(c, when_unsatisfiable="ScheduleAnyway")))))
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
    """One constraint's matching pods per eligible domain, and what the Filter derives from them."""

    constraint: Constraint
    counts: dict[str, int]
    self_match: int
    min_match: int  # computed once: skew() is asked for every rejected node

    @classmethod
    def of(cls, constraint: Constraint, counts: dict[str, int], self_match: int) -> Domains:
        """`minMatchNum`: fewer domains than minDomains make the global minimum 0."""
        enough = counts and len(counts) >= constraint.min_domains
        return cls(constraint, counts, self_match, min(counts.values()) if enough else 0)

    def skew(self, value: str) -> int:
        return self.counts.get(value, 0) + self.self_match - self.min_match


def _smallest_max_skew(pod: Pod, rejected: list[NodeVerdict], verdicts: list[NodeVerdict],
                       node_of: NodeOf) -> list[Candidate]:
    hard = _hard(pod)
    constraints = filter_constraints(pod.topology_spread_constraints, pod.labels, DO_NOT_SCHEDULE)
    if not hard:
        return []
    domains = domain_counts(pod, constraints, [node_of(v.node) for v in verdicts])
    nodes = [node_of(v.node).node for v in rejected if ERR_REASON_CONSTRAINTS_NOT_MATCH in v.reasons]
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


def domain_counts(pod: Pod, constraints: list[Constraint], nodes: list[NodeInfo]) -> list[Domains]:
    """PreFilter's counting (podtopologyspread filtering.go:calPreFilterState) node by node: over the
    nodes having every topology key and passing the constraint's inclusion policies, each node's
    domain gets its pods of the pod's namespace that match, terminating ones left out
    (`countPodsMatchSelector`, 0 for an empty selector)."""
    out = []
    required = RequiredNodeAffinity.of(pod)
    for c in constraints:
        counts: dict[str, int] = {}
        for info in nodes:
            node = info.node
            if not node_has_all_keys(node.labels, constraints) or not _included(pod, c, info, required):
                continue
            value = node.labels[c.topology_key]
            counts[value] = counts.get(value, 0) + _matching(pod, c, info)
        out.append(Domains.of(c, counts, 1 if c.matches(pod.labels) else 0))
    return out


def _included(pod: Pod, c: Constraint, info: NodeInfo, required: RequiredNodeAffinity) -> bool:
    """`matchNodeInclusionPolicies`: Honor keeps only nodes matching the pod's node affinity
    (nodeAffinityPolicy) or without an untolerated NoSchedule/NoExecute taint (nodeTaintsPolicy)."""
    node = info.node
    if c.node_affinity_policy == HONOR and not required.matches(node.labels, node.name):
        return False
    return c.node_taints_policy != HONOR or first_untolerated_taint(node.taints, pod.tolerations) is None


def _matching(pod: Pod, c: Constraint, info: NodeInfo) -> int:
    if c.counts_nothing:
        return 0
    return sum(1 for p in info.pods if p.pod.namespace == pod.namespace and p.pod.deletion_timestamp is None
               and c.matches(p.pod.labels))
