"""PodTopologySpread: domain counts as the Filter sees them and the smallest maxSkew that passes
(kwhatif/explain/suggest/spread.py)."""

from __future__ import annotations

from kwhatif.api.affinity import TopologySpreadConstraint
from kwhatif.api.objects import Node, Pod
from kwhatif.api.selectors import selector_from_map
from kwhatif.explain.pod import NodeVerdict
from kwhatif.explain.suggest.spread import domain_counts, spread_fixes
from kwhatif.plugins.pod_topology_spread.common import DO_NOT_SCHEDULE, ERR_REASON_CONSTRAINTS_NOT_MATCH, filter_constraints
from kwhatif.api.cluster import Cluster
from kwhatif.snapshot.snapshot import Snapshot
from tests.builders import make_node, make_pod, make_taint

ZONE = "topology.kubernetes.io/zone"
WEB = {"app": "web"}


def _constraint(max_skew: int = 1, key: str = ZONE, **kw: object) -> TopologySpreadConstraint:
    return TopologySpreadConstraint(max_skew, key, DO_NOT_SCHEDULE, selector_from_map(WEB), **kw)  # type: ignore[arg-type]


def _incoming(*constraints: TopologySpreadConstraint) -> Pod:
    return make_pod("web-new", labels=WEB, topology_spread_constraints=constraints)


def _cluster() -> Snapshot:
    """a1: 3 web pods, a2: 1 (zone a: 4); b1: 1 web pod, a terminating one and one of another
    namespace, none of which count (zone b: 1); c1 (tainted): none (zone c: 0)."""
    nodes: list[Node] = [make_node(name, labels={ZONE: name[0], "kubernetes.io/hostname": name})
                         for name in ("a1", "a2", "b1")]
    nodes.append(make_node("c1", labels={ZONE: "c", "kubernetes.io/hostname": "c1"},
                           taints=(make_taint("dedicated", "infra"),)))
    pods = [("a1", "default", None)] * 3 + [("a2", "default", None), ("b1", "default", None),
                                            ("b1", "default", "2026-01-01T00:00:00Z"), ("b1", "other", None)]
    bound = [make_pod(f"web-{i}", ns=ns, labels=WEB, node_name=node, deletion_timestamp=deleted)
             for i, (node, ns, deleted) in enumerate(pods)]
    return Snapshot.build(Cluster(nodes=nodes), bound)


def _rejected_by_spread(*names: str) -> list[NodeVerdict]:
    return [NodeVerdict(n, False, "PodTopologySpread", "Unschedulable", [ERR_REASON_CONSTRAINTS_NOT_MATCH])
            for n in names]


def test_domains_count_matching_pods_of_the_namespace_that_are_not_terminating() -> None:
    pod = _incoming(_constraint())
    [domains] = domain_counts(pod, filter_constraints(pod.topology_spread_constraints, pod.labels, DO_NOT_SCHEDULE),
                              _cluster())
    assert domains.counts == {"a": 4, "b": 1, "c": 0}
    assert (domains.min_match, domains.self_match) == (0, 1)


def test_node_taints_policy_honor_leaves_the_tainted_domain_out() -> None:
    """c1's untolerated taint removes zone c: the emptiest eligible domain is then b (1)."""
    pod = _incoming(_constraint(node_taints_policy="Honor"))
    [domains] = domain_counts(pod, filter_constraints(pod.topology_spread_constraints, pod.labels, DO_NOT_SCHEDULE),
                              _cluster())
    assert (domains.counts, domains.min_match) == ({"a": 4, "b": 1}, 1)


def test_the_smallest_max_skew_is_the_least_crowded_rejected_domains_skew() -> None:
    """Skews with min 0 (zone c) and selfMatch 1: a1/a2 4 + 1 = 5, b1 1 + 1 = 2. maxSkew 2 frees
    b1; c1 is kept off by its taint, not by the spread."""
    pod = _incoming(_constraint())
    snapshot = _cluster()
    verdicts = _rejected_by_spread("a1", "a2", "b1") + [NodeVerdict("c1", False, "TaintToleration")]
    (raised, variant), (anyway, _) = spread_fixes(pod, verdicts, snapshot)
    assert raised.summary == f"{ZONE} b holds 1 matching pod(s), the emptiest 0: maxSkew 2 would pass (now 1)"
    assert raised.changes[0]["patch"] == [{"op": "replace", "path": "/spec/topologySpreadConstraints/0/maxSkew",
                                           "value": 2}]
    assert variant.pod.topology_spread_constraints[0].max_skew == 2
    assert anyway.changes[0]["patch"][0]["value"] == "ScheduleAnyway"


def test_fewer_domains_than_min_domains_make_the_minimum_zero() -> None:
    """nodeTaintsPolicy Honor drops zone c, leaving a (4) and b (1): b's 1 would be the minimum,
    but with 2 domains < minDomains 4 the global minimum is 0."""
    pod = _incoming(_constraint(min_domains=4, node_taints_policy="Honor"))
    snapshot = _cluster()
    verdicts = _rejected_by_spread("a1", "a2", "b1") + [NodeVerdict("c1", False, "TaintToleration")]
    raised = spread_fixes(pod, verdicts, snapshot)[0][0]
    # b1: 1 + 1 - 0 = 2
    assert raised.summary == (f"{ZONE} b holds 1 matching pod(s), the minimum counts as 0 "
                              "(2 domain(s) < minDomains 4): maxSkew 2 would pass (now 1)")


def test_a_node_another_constraint_rejects_does_not_set_the_max_skew() -> None:
    """Zone maxSkew 4 (skews a 5, b 2) and hostname maxSkew 1 (minimum 0 on c1; skews a1 4,
    a2 2, b1 2). No node fails the zone alone (a1 and a2 fail the hostname too); among the nodes
    the zone lets through, only b1, the hostname needs 2 — a2 gives 2 as well but its zone keeps
    it out, so b1's host alone is named."""
    pod = _incoming(_constraint(4), _constraint(key="kubernetes.io/hostname"))
    snapshot = _cluster()
    verdicts = _rejected_by_spread("a1", "a2", "b1") + [NodeVerdict("c1", False, "TaintToleration")]
    raised = [s for s, _ in spread_fixes(pod, verdicts, snapshot) if "would pass" in s.summary]
    assert [(s.summary, s.changes[0]["patch"]) for s in raised] == [(
        "kubernetes.io/hostname b1 holds 1 matching pod(s), the emptiest 0: maxSkew 2 would pass (now 1)",
        [{"op": "replace", "path": "/spec/topologySpreadConstraints/1/maxSkew", "value": 2}])]


def test_made_schedule_anyway_a_constraint_drops_its_min_domains() -> None:
    """validation.go: "can only use minDomains if whenUnsatisfiable=DoNotSchedule" — the patch that
    softens the rule removes minDomains too, and the re-run's pod has none."""
    pod = _incoming(_constraint(min_domains=4))
    snapshot = _cluster()
    [(softened, variant)] = [(s, v) for s, v in spread_fixes(pod, _rejected_by_spread("a1"), snapshot)
                             if "ScheduleAnyway" in s.summary]
    assert softened.summary.endswith("a preference instead of a rule, without its minDomains")
    assert softened.changes[0]["patch"] == [
        {"op": "replace", "path": "/spec/topologySpreadConstraints/0/whenUnsatisfiable", "value": "ScheduleAnyway"},
        {"op": "remove", "path": "/spec/topologySpreadConstraints/0/minDomains"}]
    [constraint] = variant.pod.topology_spread_constraints
    assert (constraint.when_unsatisfiable, constraint.min_domains) == ("ScheduleAnyway", None)
