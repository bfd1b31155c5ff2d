"""PodTopologySpread: PreFilter counting, Filter, AddPod/RemovePod, PreScore/Score/NormalizeScore
(reference §5.11 and §6.6). Every expected value is worked out by hand in the comment beside it.

Notation in the comments: `a=2` means domain a counts 2 matching pods; `min` is the global
minimum; `skew = count + selfMatch − min`.
"""

from __future__ import annotations

import numpy as np
import pytest

from kwhatif.api.affinity import Affinity, NodeAffinity, NodeSelector, NodeSelectorTerm, TopologySpreadConstraint
from kwhatif.api.objects import Controller, OwnerReference, Service
from kwhatif.api.selectors import LabelSelector, Requirement
from kwhatif.config.args import plugin_args
from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.status import Code
from kwhatif.plugins.pod_topology_spread import NAME, PodTopologySpread
from kwhatif.plugins.pod_topology_spread.filtering import CriticalPaths
from kwhatif.plugins.normalize import round_half_away
from kwhatif.api.cluster import Cluster
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot
from tests.builders import Handle, make_node, make_pod, make_taint, make_toleration
from tests.plugins.harness import filter_nodes, normalize, score_nodes

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
NOT_MATCH = "node(s) didn't match pod topology spread constraints"
MISSING = "node(s) didn't match pod topology spread constraints (missing required label)"
PASS = None
U = ("Unschedulable", NOT_MATCH)
UU = ("UnschedulableAndUnresolvable", MISSING)
TS = "2025-12-31T23:00:00Z"  # a deletionTimestamp


# Builders --------------------------------------------------------------------------------------

def sel(**labels: str) -> LabelSelector:
    return LabelSelector(tuple(Requirement(k, "In", (v,)) for k, v in sorted(labels.items())))


WEB = sel(app="web")


def spread(key: str = ZONE, skew: int = 1, when: str = "DoNotSchedule", selector: LabelSelector | None = WEB,
           **kw: object) -> TopologySpreadConstraint:
    return TopologySpreadConstraint(max_skew=skew, topology_key=key, when_unsatisfiable=when,
                                    label_selector=selector, **kw)


def node(name: str, zone: str | None = None, hostname: bool = True, **kw: object):
    labels = dict(kw.pop("labels", {}))
    if zone is not None:
        labels[ZONE] = zone
    if hostname:
        labels[HOST] = name
    return make_node(name, labels=labels, **kw)


def on(node_name: str, name: str, labels: dict | None = None, ns: str = "default", **kw: object):
    """A pod bound to `node_name` (app=web unless told otherwise)."""
    return make_pod(name, ns=ns, labels={"app": "web"} if labels is None else labels, node_name=node_name, **kw)


def incoming(*constraints: TopologySpreadConstraint, labels: dict | None = None, **kw: object):
    return make_pod("incoming", labels={"app": "web"} if labels is None else labels,
                    topology_spread_constraints=tuple(constraints), **kw)


def rs_owner(name: str = "web-rs"):
    return (OwnerReference(api_version="apps/v1", kind="ReplicaSet", name=name, controller=True),)


def build(nodes, bound=(), services=(), controllers=(), args=None):
    snap = Snapshot.build(
        Cluster(nodes=list(nodes), services=list(services),
                controllers={(c.kind, c.namespace, c.name): c for c in controllers}),
        list(bound))
    return snap, PodTopologySpread(plugin_args(NAME, args), Handle(snap))


def outcome(status):
    if status is None:
        return PASS
    return (status.code.label, status.message)


def run_filter(nodes, bound=(), pod=None, **kw):
    """{node: PASS | (code, message)} for every node, or "Skip" when PreFilter skips."""
    snap, pl = build(nodes, bound, **kw)
    state, info = CycleState(), PodInfo.of(pod)
    _, status = pl.pre_filter(state, info, snap.node_infos)
    if status is not None:
        return status.code.label
    return {name: outcome(status) for name, status in sorted(filter_nodes(pl, state, info, snap.node_infos).items())}


def run_score(nodes, bound=(), pod=None, feasible=None, **kw):
    """(raw, normalized) score dicts over the feasible nodes, or "Skip"."""
    snap, pl = build(nodes, bound, **kw)
    state, info = CycleState(), PodInfo.of(pod)
    names = feasible if feasible is not None else sorted(snap.by_name)
    infos = [snap.by_name[n] for n in names]
    status = pl.pre_score(state, info, infos)
    if status is not None:
        return status.code.label
    raw = score_nodes(pl, state, info, infos)
    normalized, status = normalize(pl, state, info, raw)
    assert status is None
    return raw, normalized


# Filter ----------------------------------------------------------------------------------------

TWO_ZONES = [node("na", "a"), node("nb", "b")]

FILTER_CASES = [
    # (case, nodes, bound pods, incoming pod, plugin args, expected)
    ("a zone already holding more matching pods than maxSkew allows rejects its nodes",
     TWO_ZONES, [on("na", "w1"), on("na", "w2")], incoming(spread()), None,
     # a=2, b=0, min 0: na 2+1-0=3 > 1 → U; nb 0+1-0=1 ≤ 1
     {"na": U, "nb": PASS}),
    ("a balanced spread lets the pod go anywhere within maxSkew",
     TWO_ZONES, [on("na", "w1"), on("nb", "w2")], incoming(spread()), None,
     # a=1, b=1, min 1: both 1+1-1=1 ≤ 1
     {"na": PASS, "nb": PASS}),
    ("a larger maxSkew tolerates the imbalance",
     TWO_ZONES, [on("na", "w1"), on("na", "w2")], incoming(spread(skew=3)), None,
     # a=2, b=0: na 3 ≤ 3
     {"na": PASS, "nb": PASS}),
    ("a node without the topology key is unresolvable and its pods count nowhere",
     [node("na", "a"), node("nb", "b"), node("nx")],
     [on("nx", "x1"), on("nx", "x2"), on("na", "w1")], incoming(spread()), None,
     # nx not eligible: a=1, b=0, min 0; na 1+1=2 > 1 → U; nb 1 ≤ 1; nx lacks the zone → U&U
     {"na": U, "nb": PASS, "nx": UU}),
    ("a node missing one constraint's key contributes to no constraint",
     [node("na", "a"), node("nb", "b"), node("nx", "b", hostname=False)],
     [on("nx", "x1"), on("nx", "x2"), on("na", "w1")], incoming(spread(), spread(HOST, skew=5)), None,
     # nx lacks the hostname label, so even its zone b gets nothing: a=1, b=0 → na skew 2 > 1 → U.
     # nb: zone 0+1-0=1 ok, host nb=0, min 0 → 1 ok. nx: zone b 0+1-0 ok, then no hostname → U&U
     {"na": U, "nb": PASS, "nx": UU}),
    ("a pod that does not match its own selector adds no selfMatch",
     TWO_ZONES, [on("na", "d1", {"app": "db"})], incoming(spread(selector=sel(app="db"))), None,
     # a=1, b=0, selfMatch 0 (pod is app=web): na 1+0-0=1 ≤ 1
     {"na": PASS, "nb": PASS}),
    ("pods of other namespaces and terminating pods are not counted",
     TWO_ZONES,
     [on("na", "o1", ns="other"), on("na", "o2", ns="other"), on("na", "t1", deletion_timestamp=TS),
      on("na", "t2", deletion_timestamp=TS)],
     incoming(spread()), None,
     # a=0, b=0: skew 1 everywhere
     {"na": PASS, "nb": PASS}),
    ("pods not matching the selector are not counted",
     TWO_ZONES, [on("na", "d1", {"app": "db"}), on("na", "d2", {"app": "db"})], incoming(spread()), None,
     {"na": PASS, "nb": PASS}),
    ("an empty labelSelector counts no pod at all (the count-0 quirk) but the pod still self-matches",
     TWO_ZONES, [on("na", f"w{i}") for i in range(5)], incoming(spread(selector=LabelSelector())), None,
     # counts a=0, b=0 despite 5 pods on na; selfMatch 1: skew 1 ≤ 1 everywhere
     {"na": PASS, "nb": PASS}),
    ("a null labelSelector matches nothing, not even the incoming pod",
     TWO_ZONES, [on("na", f"w{i}") for i in range(5)], incoming(spread(selector=None)), None,
     # counts 0, selfMatch 0: skew 0
     {"na": PASS, "nb": PASS}),
    # minDomains
    ("fewer domains than minDomains make the global minimum 0",
     TWO_ZONES, [on("na", "w1"), on("nb", "w2")], incoming(spread(min_domains=3)), None,
     # a=1, b=1 but 2 domains < 3 → min 0: both 1+1-0=2 > 1
     {"na": U, "nb": U}),
    ("with as many domains as minDomains the real minimum is used",
     TWO_ZONES, [on("na", "w1"), on("nb", "w2")], incoming(spread(min_domains=2)), None,
     # 2 domains ≥ 2 → min 1: 1+1-1=1
     {"na": PASS, "nb": PASS}),
    ("a domain with no matching pod still counts towards minDomains",
     [node("na", "a"), node("nb", "b"), node("nc", "c")], [on("na", "w1"), on("nb", "w2")],
     incoming(spread(min_domains=3)), None,
     # domains a=1, b=1, c=0: 3 ≥ 3, min 0 → na, nb 2 > 1; nc 0+1=1
     {"na": U, "nb": U, "nc": PASS}),
    # nodeAffinityPolicy
    ("nodeAffinityPolicy Honor (the default) leaves nodes outside the pod's nodeSelector out of the domains",
     [node("na", "a", labels={"pool": "main"}), node("nb", "b", labels={"pool": "main"}), node("nc", "c")],
     [on("na", "w1"), on("nb", "w2")], incoming(spread(), node_selector={"pool": "main"}), None,
     # c excluded: a=1, b=1, min 1 → na, nb skew 1. nc: domain c unknown → 0+1-1=0
     {"na": PASS, "nb": PASS, "nc": PASS}),
    ("nodeAffinityPolicy Ignore counts domains the pod could not land in",
     [node("na", "a", labels={"pool": "main"}), node("nb", "b", labels={"pool": "main"}), node("nc", "c")],
     [on("na", "w1"), on("nb", "w2")],
     incoming(spread(node_affinity_policy="Ignore"), node_selector={"pool": "main"}), None,
     # a=1, b=1, c=0, min 0 → na, nb 2 > 1; nc 1
     {"na": U, "nb": U, "nc": PASS}),
    ("nodeAffinityPolicy Honor also applies required node affinity terms",
     [node("na", "a"), node("nb", "b"), node("nc", "c")], [on("na", "w1"), on("nb", "w2")],
     incoming(spread(), affinity=Affinity(node_affinity=NodeAffinity(required=NodeSelector((
         NodeSelectorTerm(match_expressions=(Requirement(ZONE, "In", ("a", "b")),)),))))), None,
     # c excluded by the required term: a=1, b=1, min 1 → skew 1; nc 0+1-1=0
     {"na": PASS, "nb": PASS, "nc": PASS}),
    # nodeTaintsPolicy
    ("nodeTaintsPolicy Ignore (the default) keeps a tainted node's domain",
     [node("na", "a"), node("nb", "b", taints=[make_taint("dedicated", "x")])], [on("na", "w1")],
     incoming(spread()), None,
     # a=1, b=0, min 0 → na 2 > 1
     {"na": U, "nb": PASS}),
    ("nodeTaintsPolicy Honor drops the domain of an untolerated NoSchedule taint",
     [node("na", "a"), node("nb", "b", taints=[make_taint("dedicated", "x")])], [on("na", "w1")],
     incoming(spread(node_taints_policy="Honor")), None,
     # b excluded: a=1, min 1 → na 1+1-1=1; nb domain unknown → 0+1-1=0
     {"na": PASS, "nb": PASS}),
    ("nodeTaintsPolicy Honor keeps a node whose taint the pod tolerates",
     [node("na", "a"), node("nb", "b", taints=[make_taint("dedicated", "x")])], [on("na", "w1")],
     incoming(spread(node_taints_policy="Honor"), tolerations=(make_toleration("dedicated", "Exists"),)), None,
     # b kept: a=1, b=0, min 0 → na 2 > 1
     {"na": U, "nb": PASS}),
    ("nodeTaintsPolicy Honor ignores PreferNoSchedule taints",
     [node("na", "a"), node("nb", "b", taints=[make_taint("soft", effect="PreferNoSchedule")])],
     [on("na", "w1")], incoming(spread(node_taints_policy="Honor")), None,
     # b kept: min 0 → na 2 > 1
     {"na": U, "nb": PASS}),
    # matchLabelKeys
    ("matchLabelKeys narrows the selector to pods with the incoming pod's value",
     TWO_ZONES, [on("na", "v1a", {"app": "web", "version": "v1"}), on("na", "v1b", {"app": "web", "version": "v1"})],
     incoming(spread(match_label_keys=("version",)), labels={"app": "web", "version": "v2"}), None,
     # selector app=web,version=v2: a=0, b=0 → skew 1
     {"na": PASS, "nb": PASS}),
    ("without matchLabelKeys the other version's pods count",
     TWO_ZONES, [on("na", "v1a", {"app": "web", "version": "v1"}), on("na", "v1b", {"app": "web", "version": "v1"})],
     incoming(spread(), labels={"app": "web", "version": "v2"}), None,
     # a=2, b=0 → na 3 > 1
     {"na": U, "nb": PASS}),
    ("a matchLabelKeys key the pod does not have leaves the selector unchanged",
     TWO_ZONES, [on("na", "w1"), on("na", "w2")], incoming(spread(match_label_keys=("version",))), None,
     # selector stays app=web: a=2 → na 3 > 1
     {"na": U, "nb": PASS}),
    ("matchLabelKeys turns an empty selector into a counting one",
     TWO_ZONES, [on("na", "v2a", {"app": "web", "version": "v2"}), on("na", "v2b", {"app": "web", "version": "v2"})],
     incoming(spread(selector=LabelSelector(), match_label_keys=("version",)), labels={"app": "web", "version": "v2"}),
     None,
     # selector version=v2 (no longer empty): a=2, b=0 → na 3 > 1
     {"na": U, "nb": PASS}),
    ("matchLabelKeys cannot revive a null selector",
     TWO_ZONES, [on("na", "v2a", {"app": "web", "version": "v2"}), on("na", "v2b", {"app": "web", "version": "v2"})],
     incoming(spread(selector=None, match_label_keys=("version",)), labels={"app": "web", "version": "v2"}), None,
     # still 'nothing': counts 0, selfMatch 0
     {"na": PASS, "nb": PASS}),
    # which constraints
    ("constraints are checked in order and the first failure is reported",
     [node("na", "a"), node("nb", "b")], [on("na", "w1"), on("na", "w2")],
     incoming(spread(HOST, skew=1), spread(ZONE, skew=1)), None,
     # host: na=2, nb=0, min 0 → na 3 > 1 → U already at the first constraint
     {"na": U, "nb": PASS}),
    ("a pod with only ScheduleAnyway constraints skips the Filter",
     TWO_ZONES, [on("na", "w1"), on("na", "w2")], incoming(spread(when="ScheduleAnyway")), None, "Skip"),
    ("a pod without constraints gets only ScheduleAnyway system defaults, so the Filter is skipped",
     TWO_ZONES, [on("na", "w1")], make_pod("incoming", labels={"app": "web"}, owner_references=rs_owner()),
     None, "Skip"),
]


@pytest.mark.parametrize("case,nodes,bound,pod,args,expected", FILTER_CASES, ids=[c[0] for c in FILTER_CASES])
def test_filter(case, nodes, bound, pod, args, expected):
    assert run_filter(nodes, bound, pod, args=args) == expected


def test_list_defaulting_with_a_do_not_schedule_default_constraint_filters_replicaset_pods():
    """defaultingType List: the DoNotSchedule default applies to a pod without own constraints,
    with the ReplicaSet's selector (app=web)."""
    args = {"defaultingType": "List",
            "defaultConstraints": [{"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule"}]}
    rs = Controller("ReplicaSet", "default", "web-rs", selector=WEB)
    pod = make_pod("incoming", labels={"app": "web"}, owner_references=rs_owner())
    got = run_filter(TWO_ZONES, [on("na", "w1"), on("na", "w2")], pod, args=args, controllers=[rs])
    # a=2, b=0, min 0 → na 3 > 1; nb 1
    assert got == {"na": U, "nb": PASS}
    # without any selector source the default constraint does not apply at all → Skip
    lonely = make_pod("incoming", labels={"app": "web"})
    assert run_filter(TWO_ZONES, [on("na", "w1"), on("na", "w2")], lonely, args=args) == "Skip"


def test_default_constraints_carry_their_own_node_inclusion_policies():
    args = {"defaultingType": "List",
            "defaultConstraints": [{"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
                                    "nodeTaintsPolicy": "Honor"}]}
    rs = Controller("ReplicaSet", "default", "web-rs", selector=WEB)
    pod = make_pod("incoming", labels={"app": "web"}, owner_references=rs_owner())
    nodes = [node("na", "a"), node("nb", "b", taints=[make_taint("dedicated", "x")])]
    # nb's domain is dropped (untolerated taint, Honor): a=1, min 1 → na 1+1-1 = 1; nb 0+1-1 = 0
    assert run_filter(nodes, [on("na", "w1")], pod, args=args, controllers=[rs]) == {"na": PASS, "nb": PASS}


def test_own_constraints_replace_the_default_ones_even_when_none_is_do_not_schedule():
    args = {"defaultingType": "List",
            "defaultConstraints": [{"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule"}]}
    rs = Controller("ReplicaSet", "default", "web-rs", selector=WEB)
    pod = incoming(spread(when="ScheduleAnyway"), owner_references=rs_owner())
    assert run_filter(TWO_ZONES, [on("na", "w1"), on("na", "w2")], pod, args=args, controllers=[rs]) == "Skip"


# AddPod / RemovePod ------------------------------------------------------------------------------

def _prefiltered(nodes, bound, pod, **kw):
    snap, pl = build(nodes, bound, **kw)
    state, info = CycleState(), PodInfo.of(pod)
    assert pl.pre_filter(state, info, snap.node_infos) == (None, None)
    return snap, pl, state, info


def test_the_terminating_pod_example_of_5_11_through_remove_pod():
    """Zones a (na) and b (nb, untolerated NoSchedule taint; nodeTaintsPolicy Ignore keeps it).
    T (terminating, app=web) and H (app=web) on na. PreFilter skips T: a=1, b=0, min 0 → na
    1+1-0 = 2 > 1. RemovePod does not look at deletionTimestamp: removing T gives a=0 → na 0+1-0 = 1
    fits, as in the preemption dry run; adding T back gives a=1 → fails again."""
    nodes = [node("na", "a"), node("nb", "b", taints=[make_taint("dedicated", "x")])]
    t = on("na", "T", deletion_timestamp=TS, priority=0)
    h = on("na", "H", priority=200)
    snap, pl, state, info = _prefiltered(nodes, [t, h], incoming(spread(), priority=100))
    na = snap.by_name["na"]
    assert outcome(pl.filter(state, info, na)) == U

    dry = state.clone()
    na_copy = na.clone()
    t_info = next(p for p in na.pods if p.pod.name == "T")
    na_copy.remove_pod(t_info.key)
    assert pl.pre_filter_extensions().remove_pod(dry, info, t_info, na_copy) is None
    assert outcome(pl.filter(dry, info, na_copy)) == PASS  # a = 0 (one below the true count)
    assert outcome(pl.filter(state, info, na)) == U  # the original state is untouched

    na_copy.add_pod(t_info)
    pl.pre_filter_extensions().add_pod(dry, info, t_info, na_copy)
    assert outcome(pl.filter(dry, info, na_copy)) == U  # a = 1 again: T cannot be reprieved


def test_add_pod_counts_only_same_namespace_matching_pods_on_nodes_with_all_keys():
    snap, pl, state, info = _prefiltered([node("na", "a"), node("nb", "b"), node("nx")], [],
                                         incoming(spread()))
    ext = pl.pre_filter_extensions()
    nb = snap.by_name["nb"]
    # a=0, b=0 → na passes (skew 1)
    assert outcome(pl.filter(state, info, snap.by_name["na"])) == PASS
    for other in (on("nb", "o", ns="other"), on("nb", "d", {"app": "db"})):
        ext.add_pod(state, info, PodInfo.of(other), nb)
    ext.add_pod(state, info, PodInfo.of(on("nx", "x")), snap.by_name["nx"])  # no zone label: ignored
    assert outcome(pl.filter(state, info, nb)) == PASS  # still b=0
    ext.add_pod(state, info, PodInfo.of(on("nb", "w")), nb)
    # b=1, a=0, min 0 → nb 1+1-0 = 2 > 1
    assert outcome(pl.filter(state, info, nb)) == U


def test_add_pod_respects_the_node_inclusion_policies():
    nodes = [node("na", "a"), node("nb", "b", taints=[make_taint("dedicated", "x")])]
    snap, pl, state, info = _prefiltered(nodes, [on("na", "w1")], incoming(spread(node_taints_policy="Honor")))
    nb = snap.by_name["nb"]
    pl.pre_filter_extensions().add_pod(state, info, PodInfo.of(on("nb", "w2")), nb)
    pl.pre_filter_extensions().add_pod(state, info, PodInfo.of(on("nb", "w3")), nb)
    # nb stays excluded (untolerated taint, Honor): a=1, min 1 → na 1+1-1 = 1 passes
    assert outcome(pl.filter(state, info, snap.by_name["na"])) == PASS


def test_add_pod_has_no_empty_selector_quirk():
    """PreFilter counts 0 for `{}`, but AddPod matches `{}` against the added pod and counts it."""
    snap, pl, state, info = _prefiltered(TWO_ZONES, [on("na", "w1"), on("na", "w2")],
                                         incoming(spread(selector=LabelSelector())))
    na = snap.by_name["na"]
    assert outcome(pl.filter(state, info, na)) == PASS  # a=0, b=0 → 1
    pl.pre_filter_extensions().add_pod(state, info, PodInfo.of(on("na", "w3")), na)
    assert outcome(pl.filter(state, info, na)) == U  # a=1, b=0 → 1+1-0 = 2 > 1


def test_add_pod_raises_the_minimum_when_the_emptiest_domain_gains_a_pod():
    """nodeAffinityPolicy Ignore keeps nc (zone c, outside the nodeSelector) as a domain, so there
    are 3 domains = minDomains and the minimum is the real one (c=0); AddPod on nc lifts it to 1."""
    nodes = [node("na", "a", labels={"pool": "main"}), node("nb", "b", labels={"pool": "main"}), node("nc", "c")]
    snap, pl, state, info = _prefiltered(nodes, [on("na", "w1"), on("nb", "w2")],
                                         incoming(spread(min_domains=3, node_affinity_policy="Ignore"),
                                                  node_selector={"pool": "main"}))
    # Ignore: a=1, b=1, c=0 → 3 domains, min 0 → na 2 > 1
    assert outcome(pl.filter(state, info, snap.by_name["na"])) == U
    pl.pre_filter_extensions().add_pod(state, info, PodInfo.of(on("nc", "w3")), snap.by_name["nc"])
    # c=1 → min 1 → na 1+1-1 = 1 passes
    assert outcome(pl.filter(state, info, snap.by_name["na"])) == PASS


CRITICAL_PATH_CASES = [
    # (case, updates, expected (v0, n0, v1, n1))
    ("the first value takes slot 0 and the untouched slot 1 keeps the initial value",
     [("a", 3)], ("a", 3, "", 2147483647)),
    ("a smaller count pushes slot 0 into slot 1",
     [("a", 3), ("b", 1)], ("b", 1, "a", 3)),
    ("a count between both slots replaces slot 1",
     [("a", 1), ("b", 5), ("c", 3)], ("a", 1, "c", 3)),
    ("a count not below either slot is dropped",
     [("a", 1), ("b", 2), ("c", 2)], ("a", 1, "b", 2)),
    ("updating a tracked value swaps the slots when slot 0 grows past slot 1",
     [("a", 1), ("b", 2), ("a", 3)], ("b", 2, "a", 3)),
    ("the empty domain value collides with the initial slots and still ends up minimal",
     [("a", 5), ("", 3)], ("", 3, "a", 5)),
    ("the empty domain value updates the initial slot 1 in place",
     [("a", 5), ("", 7)], ("a", 5, "", 7)),
    # Two tracked domains changed on one state: the minimum is overstated (true minimum c=0).
    ("incrementing two different tracked domains can overstate the minimum",
     [("a", 0), ("b", 0), ("c", 0), ("a", 1), ("b", 1)], ("b", 1, "a", 1)),
]


@pytest.mark.parametrize("case,updates,expected", CRITICAL_PATH_CASES, ids=[c[0] for c in CRITICAL_PATH_CASES])
def test_critical_paths(case, updates, expected):
    p = CriticalPaths()
    for value, num in updates:
        p.update(value, num)
    assert (p.v0, p.n0, p.v1, p.n1) == expected


# Score -----------------------------------------------------------------------------------------

ONE_ZONE = [node("A", "z"), node("B", "z"), node("C", "z")]
RS = Controller("ReplicaSet", "default", "web-rs", selector=WEB)
RS_POD = make_pod("incoming", labels={"app": "web"}, owner_references=rs_owner())


def test_the_worked_example_of_6_6():
    """System defaults, ReplicaSet app=web with 2 pods on A, 1 on B, 0 on C, one zone z.
    host: w = ln(3+2) = 1.6094; zone: 1 domain → w = ln 3 = 1.0986, cnt 3.
    A = 2×1.6094 + 2 + 3×1.0986 + 4 = 12.51 → 13; B = 10.91 → 11; C = 9.30 → 9.
    min 9, max 13: A = 100×9 div 13 = 69, B = 100×11 div 13 = 84, C = 1300 div 13 = 100."""
    got = run_score(ONE_ZONE, [on("A", "w1"), on("A", "w2"), on("B", "w3")], RS_POD, controllers=[RS])
    assert got == ({"A": 13, "B": 11, "C": 9}, {"A": 69, "B": 84, "C": 100})


SCORE_CASES = [
    # (case, nodes, bound, pod, services, controllers, args, feasible, expected)
    ("a Service selecting the pod gives the default selector",
     ONE_ZONE, [on("A", "w1"), on("A", "w2"), on("B", "w3")], make_pod("incoming", labels={"app": "web"}),
     [Service("default", "web", {"app": "web"})], [], None, None,
     # same counts as the 6.6 example → same scores
     ({"A": 13, "B": 11, "C": 9}, {"A": 69, "B": 84, "C": 100})),
    ("Services of other namespaces, without selector, or not selecting the pod are ignored",
     ONE_ZONE, [on("A", "w1")], make_pod("incoming", labels={"app": "web"}),
     [Service("other", "web", {"app": "web"}), Service("default", "headless", None),
      Service("default", "db", {"app": "db"})], [], None, None,
     "Skip"),
    ("a pod with no selector source gets no default constraints and no score",
     ONE_ZONE, [on("A", "w1")], make_pod("incoming", labels={"app": "web"}), [], [], None, None, "Skip"),
    ("an owner ReplicaSet that does not exist adds nothing",
     ONE_ZONE, [on("A", "w1")], RS_POD, [], [], None, None, "Skip"),
    ("a ReplicationController owner merges its selector map",
     ONE_ZONE, [on("A", "w1"), on("A", "w2"), on("B", "w3")],
     make_pod("incoming", labels={"app": "web"},
              owner_references=(OwnerReference("v1", "ReplicationController", "web-rc", controller=True),)),
     [], [Controller("ReplicationController", "default", "web-rc", map_selector={"app": "web"})], None, None,
     ({"A": 13, "B": 11, "C": 9}, {"A": 69, "B": 84, "C": 100})),
    ("a StatefulSet owner ANDs its requirements with the Service selector",
     ONE_ZONE,
     [on("A", "w1", {"app": "web", "tier": "x"}), on("A", "w2"), on("B", "w3", {"app": "web", "tier": "x"})],
     make_pod("incoming", labels={"app": "web", "tier": "x"},
              owner_references=(OwnerReference("apps/v1", "StatefulSet", "web-ss", controller=True),)),
     [Service("default", "web", {"app": "web"})],
     [Controller("StatefulSet", "default", "web-ss", selector=sel(tier="x"))], None, None,
     # selector app=web,tier=x: A=1, B=1, C=0, zone 2.
     # A = 1.6094 + 2 + 2×1.0986 + 4 = 9.81 → 10; B = 10; C = 0 + 2 + 2.1972 + 4 = 8.20 → 8
     # min 8, max 10: A = 100×8 div 10 = 80, C = 100×10 div 10 = 100
     ({"A": 10, "B": 10, "C": 8}, {"A": 80, "B": 80, "C": 100})),
    ("with the system defaults a node without a zone label is still scored on hostname",
     [node("A", "z"), node("B", "z"), node("N")], [on("A", "w1"), on("N", "w2"), on("N", "w3")],
     RS_POD, [], [RS], None, None,
     # requireAll false: host size 3 → ln 5. Zone domains over feasible nodes: {z, ""} → ln 4;
     # zone counts over all nodes, missing label = "": z = 1 (A), "" = 2 (N).
     # A = 1.6094 + 2 + 1×1.3863 + 4 = 8.9957 → 9; B = 0 + 2 + 1.3863 + 4 = 7.3863 → 7;
     # N has no zone label: only host = 2×1.6094 + 2 = 5.2189 → 5.
     # min 5, max 9: A = 100×5 div 9 = 55, B = 100×7 div 9 = 77, N = 100×9 div 9 = 100
     ({"A": 9, "B": 7, "N": 5}, {"A": 55, "B": 77, "N": 100})),
    ("own constraints require every key: a node lacking one is ignored and scores 0",
     [node("A", "a"), node("B", "b"), node("N")], [on("A", "w1"), on("A", "w2")],
     incoming(spread(when="ScheduleAnyway")), [], [], None, None,
     # N ignored. Zone domains {a, b} → w = ln 4. A = 2×1.3863 + 0 = 2.77 → 3; B = 0.
     # min 0, max 3: A = 100×(3+0-3) div 3 = 0, B = 100×3 div 3 = 100, N → 0
     ({"A": 3, "B": 0, "N": 0}, {"A": 0, "B": 100, "N": 0})),
    ("when every raw score is 0 all non-ignored nodes get 100",
     [node("A", "a"), node("B", "b"), node("N")], [], incoming(spread(when="ScheduleAnyway")), [], [], None, None,
     ({"A": 0, "B": 0, "N": 0}, {"A": 100, "B": 100, "N": 0})),
    ("zone counts include pods on nodes that are not feasible",
     [node("A", "a"), node("B", "b"), node("B2", "b")], [on("B2", "w1"), on("B2", "w2"), on("B2", "w3")],
     incoming(spread(when="ScheduleAnyway", skew=2)), [], [], None, ["A", "B"],
     # domains {a, b} → ln 4; b = 3 (from B2). A = 0 + 1 = 1; B = 3×1.3863 + 1 = 5.16 → 5.
     # min 1, max 5: A = 100×(5+1-1) div 5 = 100, B = 100×1 div 5 = 20
     ({"A": 1, "B": 5}, {"A": 100, "B": 20})),
    ("zone counts skip domains with no feasible node",
     [node("A", "a"), node("B", "b"), node("C", "c")], [on("C", "w1"), on("C", "w2"), on("A", "w3")],
     incoming(spread(when="ScheduleAnyway")), [], [], None, ["A", "B"],
     # domains {a, b} → ln 4, c is never counted. A = 1.3863 → 1; B = 0.
     # min 0, max 1: A = 100×0 div 1 = 0, B = 100
     ({"A": 1, "B": 0}, {"A": 0, "B": 100})),
    ("nodeTaintsPolicy Honor keeps an untolerated tainted node's pods out of the zone count",
     [node("A", "a"), node("B", "b"), node("T", "b", taints=[make_taint("dedicated", "x")])],
     [on("T", "w1"), on("T", "w2"), on("T", "w3")],
     incoming(spread(when="ScheduleAnyway", node_taints_policy="Honor")), [], [], None, ["A", "B"],
     # T excluded: a=0, b=0 → all raw 0 → 100
     ({"A": 0, "B": 0}, {"A": 100, "B": 100})),
    ("nodeTaintsPolicy Ignore counts the tainted node's pods in its zone",
     [node("A", "a"), node("B", "b"), node("T", "b", taints=[make_taint("dedicated", "x")])],
     [on("T", "w1"), on("T", "w2"), on("T", "w3")],
     incoming(spread(when="ScheduleAnyway")), [], [], None, ["A", "B"],
     # b = 3, ln 4: B = 3×1.3863 = 4.16 → 4, A = 0. min 0 max 4: A = 100, B = 0
     ({"A": 0, "B": 4}, {"A": 100, "B": 0})),
    ("nodeAffinityPolicy Honor keeps nodes outside the pod's nodeSelector out of the zone count",
     [node("A", "a", labels={"pool": "p"}), node("B", "b", labels={"pool": "p"}), node("X", "b")],
     [on("X", "w1"), on("X", "w2"), on("X", "w3")],
     incoming(spread(when="ScheduleAnyway"), node_selector={"pool": "p"}), [], [], None, ["A", "B"],
     ({"A": 0, "B": 0}, {"A": 100, "B": 100})),
    ("the hostname constraint counts the node's own pods at Score time, terminating ones excluded",
     [node("A", "a"), node("B", "a"), node("C", "a")],
     [on("A", "w1"), on("A", "w2"), on("A", "w3"), on("B", "w4"), on("C", "t", deletion_timestamp=TS),
      on("C", "o", ns="other")],
     incoming(spread(HOST, when="ScheduleAnyway")), [], [], None, None,
     # w = ln 5: A = 3×1.6094 = 4.83 → 5; B = 1.61 → 2; C = 0.
     # min 0 max 5: A = 0, B = 100×3 div 5 = 60, C = 100
     ({"A": 5, "B": 2, "C": 0}, {"A": 0, "B": 60, "C": 100})),
    ("maxSkew − 1 is added per constraint and softens the differences",
     [node("A", "a"), node("B", "b")], [on("A", "w1")],
     incoming(spread(when="ScheduleAnyway", skew=5)), [], [], None, None,
     # ln 4: A = 1.3863 + 4 = 5.39 → 5; B = 4. min 4 max 5: A = 100×4 div 5 = 80, B = 100
     ({"A": 5, "B": 4}, {"A": 80, "B": 100})),
    ("a pod with only DoNotSchedule constraints gets no spread score",
     TWO_ZONES, [], incoming(spread()), [], [], None, None, "Skip"),
    ("defaultingType List requires every key, so a node without zone is ignored",
     [node("A", "z"), node("B", "z"), node("N")], [on("A", "w1")], RS_POD, [], [RS],
     {"defaultingType": "List",
      "defaultConstraints": [{"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "ScheduleAnyway"}]},
     None,
     # N ignored; zone {z} → ln 3, z = 1: A = B = 1.0986 → 1. min = max = 1 → 100×1 div 1 = 100
     ({"A": 1, "B": 1, "N": 0}, {"A": 100, "B": 100, "N": 0})),
    ("a ReplicaSet with a null selector adds nothing to the default selector",
     ONE_ZONE, [on("A", "w1")], RS_POD, [], [Controller("ReplicaSet", "default", "web-rs", selector=None)],
     None, None, "Skip"),
    ("defaultingType List with no default constraints never scores",
     ONE_ZONE, [on("A", "w1")], RS_POD, [], [RS], {"defaultingType": "List"}, None, "Skip"),
]


@pytest.mark.parametrize("case,nodes,bound,pod,services,controllers,args,feasible,expected", SCORE_CASES,
                         ids=[c[0] for c in SCORE_CASES])
def test_score(case, nodes, bound, pod, services, controllers, args, feasible, expected):
    got = run_score(nodes, bound, pod, feasible=feasible, services=services, controllers=controllers, args=args)
    assert got == expected


def test_pre_score_skips_with_no_nodes_in_the_snapshot():
    snap, pl = build([], controllers=[RS])
    assert pl.pre_score(CycleState(), PodInfo.of(RS_POD), []).code == Code.SKIP


ROUNDING = [
    ("a half rounds away from zero", 0.5, 1),
    ("two and a half rounds to 3, not to the even 2", 2.5, 3),
    ("just below a half rounds down", 0.49999999999999994, 0),
    ("a negative half rounds away from zero", -2.5, -3),
    ("1.4 rounds down", 1.4, 1),
]


@pytest.mark.parametrize("case,x,expected", ROUNDING, ids=[c[0] for c in ROUNDING])
def test_round_half_away(case, x, expected):
    assert round_half_away(x) == expected


def test_round_half_away_over_arrays_rounds_each_value_as_alone():
    """With a negative value (the general form) and without (the non-negative one)."""
    values, expected = [c[1] for c in ROUNDING], [c[2] for c in ROUNDING]
    assert round_half_away(np.array(values)).tolist() == expected
    kept = [i for i, x in enumerate(values) if x >= 0]
    assert round_half_away(np.array([values[i] for i in kept])).tolist() == [expected[i] for i in kept]


# Explanations ------------------------------------------------------------------------------------

def test_explain_node_gives_the_counts_behind_the_skew():
    nodes = [node("n1", "eu-1a"), node("n2", "eu-1b"), node("nx")]
    snap, pl, state, info = _prefiltered(nodes, [on("n1", f"w{i}") for i in range(3)], incoming(spread()))
    assert pl.explain_node(state, info, snap.by_name["n1"]) == [
        # eu-1a=3, eu-1b=0 → 3 + 1 − 0 = 4
        "constraint topology.kubernetes.io/zone maxSkew 1: domain eu-1a has 3 matching pods, "
        "global minimum 0, placing here gives skew 4 > 1"]
    assert pl.explain_node(state, info, snap.by_name["n2"]) == [
        "constraint topology.kubernetes.io/zone maxSkew 1: domain eu-1b has 0 matching pods, "
        "global minimum 0, placing here gives skew 1 <= 1"]
    assert pl.explain_node(state, info, snap.by_name["nx"]) == [
        "constraint topology.kubernetes.io/zone maxSkew 1: node nx has no label "
        "topology.kubernetes.io/zone (missing required label)"]


def test_explain_node_is_empty_when_the_plugin_was_skipped():
    snap, pl = build(TWO_ZONES)
    assert pl.explain_node(CycleState(), PodInfo.of(incoming()), snap.by_name["na"]) == []


def test_the_plugin_name_is_the_upstream_one():
    assert NAME == PodTopologySpread.name == "PodTopologySpread"
