"""InterPodAffinity: PreFilter/Filter (reference §5.12), AddPod/RemovePod (§2.1, §9.4) and
PreScore/Score/NormalizeScore (§6.7).

Every expected value is worked out by hand next to its case. Nodes used throughout:

    n1: hostname n1, zone a        n2: hostname n2, zone a
    n3: hostname n3, zone b        nz: hostname nz, no zone label
"""

from __future__ import annotations

import numpy as np
import pytest

from kwhatif.api.affinity import Affinity, PodAffinityRules, PodAffinityTerm, WeightedPodAffinityTerm
from kwhatif.api.objects import Namespace
from kwhatif.api.selectors import LabelSelector, Requirement, selector_from_map
from kwhatif.config.args import plugin_args
from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.status import Code
from kwhatif.plugins.inter_pod_affinity import (
    ERR_REASON_AFFINITY, ERR_REASON_ANTI_AFFINITY, ERR_REASON_EXISTING_ANTI_AFFINITY, NAME, InterPodAffinity,
)
from kwhatif.plugins.inter_pod_affinity.counts import TopologyCounts
from kwhatif.plugins.inter_pod_affinity.index import TermIndex
from kwhatif.plugins.inter_pod_affinity.terms import TermMemo
from kwhatif.api.cluster import Cluster
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot
from tests.builders import Handle, make_node, make_pod
from tests.plugins import harness

HOST = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"

AFF = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_AFFINITY)
ANTI = (Code.UNSCHEDULABLE, ERR_REASON_ANTI_AFFINITY)
EXIST = (Code.UNSCHEDULABLE, ERR_REASON_EXISTING_ANTI_AFFINITY)
OK = None
SKIP = "skip"


# Builders ------------------------------------------------------------------------------------

def sel(**labels: str) -> LabelSelector:
    return selector_from_map(labels)


def expr(key: str, op: str, *values: str) -> LabelSelector:
    return LabelSelector((Requirement(key, op, values),))


def term(selector: LabelSelector | None, key: str, namespaces: tuple[str, ...] = (),
         ns_selector: LabelSelector | None = None) -> PodAffinityTerm:
    return PodAffinityTerm(label_selector=selector, topology_key=key, namespaces=namespaces,
                           namespace_selector=ns_selector)


def pref(weight: int, t: PodAffinityTerm) -> WeightedPodAffinityTerm:
    return WeightedPodAffinityTerm(weight=weight, term=t)


def affinity(req=(), pref_=(), anti=(), anti_pref=()) -> Affinity:
    return Affinity(
        pod_affinity=PodAffinityRules(tuple(req), tuple(pref_)) if (req or pref_) else None,
        pod_anti_affinity=PodAffinityRules(tuple(anti), tuple(anti_pref)) if (anti or anti_pref) else None,
    )


def pod(name: str, ns: str = "default", on: str = "", aff: Affinity | None = None, **labels: str):
    return make_pod(name, ns=ns, labels=labels, node_name=on, affinity=aff)


def node(name: str, zone: str | None = None, **labels: str):
    all_labels = {HOST: name, **labels}
    if zone is not None:
        all_labels[ZONE] = zone
    return make_node(name, labels=all_labels)


def ns(name: str, **labels: str) -> Namespace:
    return Namespace(name=name, labels={"kubernetes.io/metadata.name": name, **labels})


NODES = [node("n1", "a"), node("n2", "a"), node("n3", "b"), node("nz")]


def make_plugin(nodes, bound, namespaces=(), args=None) -> tuple[InterPodAffinity, Snapshot]:
    cluster = Cluster(nodes=list(nodes), namespaces={n.name: n for n in namespaces})
    snap = Snapshot.build(cluster, list(bound))
    return InterPodAffinity(plugin_args(InterPodAffinity.name, args), Handle(snap)), snap


def outcome(status):
    return None if status is None else (status.code, status.message)


def filter_all(plugin: InterPodAffinity, snap: Snapshot, state: CycleState, incoming: PodInfo) -> dict:
    return {name: outcome(s) for name, s in harness.filter_nodes(plugin, state, incoming, snap.node_infos).items()}


def run_filter(nodes, bound, incoming_pod, namespaces=()):
    plugin, snap = make_plugin(nodes, bound, namespaces)
    state = CycleState()
    incoming = PodInfo.of(incoming_pod)
    result, status = plugin.pre_filter(state, incoming, snap.node_infos)
    assert result is None
    if status is not None:
        assert status.code == Code.SKIP
        return SKIP
    return filter_all(plugin, snap, state, incoming)


# Filtering -----------------------------------------------------------------------------------

FILTER_CASES = [
    # (case, incoming pod, bound pods, namespaces, expected per node or SKIP)
    ("a pod without affinity skips PreFilter when no existing pod's anti-affinity matches it",
     pod("web", app="web"),
     [pod("db", on="n1", app="db")], [],
     SKIP),
    # db runs on n1 only; the hostname pair (host, n1) has count 1.
    ("required affinity on hostname admits only the node running a matching pod",
     pod("api", app="api", aff=affinity(req=[term(sel(app="db"), HOST)])),
     [pod("db", on="n1", app="db")], [],
     {"n1": OK, "n2": AFF, "n3": AFF, "nz": AFF}),
    # db on n1 → (zone, a) = 1: n1 and n2 are in zone a; nz has no zone label at all.
    ("required affinity on zone admits every node of the zone running a matching pod",
     pod("api", app="api", aff=affinity(req=[term(sel(app="db"), ZONE)])),
     [pod("db", on="n1", app="db")], [],
     {"n1": OK, "n2": OK, "n3": AFF, "nz": AFF}),
    # No pod matches, the table is empty and web matches app=web itself: any node with a zone label.
    ("the first pod of a group passes on every node that has the topology key, and only there",
     pod("web", app="web", aff=affinity(req=[term(sel(app="web"), ZONE)])),
     [pod("db", on="n1", app="db")], [],
     {"n1": OK, "n2": OK, "n3": OK, "nz": AFF}),
    ("the first-pod rule does not apply when the pod does not match its own terms",
     pod("api", app="api", aff=affinity(req=[term(sel(app="web"), ZONE)])),
     [], [],
     {"n1": AFF, "n2": AFF, "n3": AFF, "nz": AFF}),
    # web-1 on n1 → (host, n1) = 1: the table is not empty, so n2/n3 get no first-pod pass.
    ("the first-pod rule does not apply once a pod elsewhere matches all the terms",
     pod("web-2", app="web", aff=affinity(req=[term(sel(app="web"), HOST)])),
     [pod("web-1", on="n1", app="web")], [],
     {"n1": OK, "n2": AFF, "n3": AFF, "nz": AFF}),
    # p1 (app=db only) matches the first term but not the second: it counts nowhere. p2 matches both
    # → (zone, a) = 1 and (host, n2) = 1. n1: zone a ok but (host, n1) = 0 → fail. n3: (zone, b) = 0.
    ("an existing pod counts for affinity only when it matches all the terms",
     pod("api", app="api", aff=affinity(req=[term(sel(app="db"), ZONE), term(sel(tier="backend"), HOST)])),
     [pod("p1", on="n1", app="db"), pod("p2", on="n2", app="db", tier="backend")], [],
     {"n1": AFF, "n2": OK, "n3": AFF, "nz": AFF}),
    ("required anti-affinity on hostname rejects only the node running a matching pod",
     pod("web", app="web", aff=affinity(anti=[term(sel(app="db"), HOST)])),
     [pod("db", on="n1", app="db")], [],
     {"n1": ANTI, "n2": OK, "n3": OK, "nz": OK}),
    # (zone, a) = 1 rejects n1 and n2; nz has no zone label, so the term does not apply there.
    ("required anti-affinity on zone rejects the whole zone and ignores nodes without the key",
     pod("web", app="web", aff=affinity(anti=[term(sel(app="db"), ZONE)])),
     [pod("db", on="n1", app="db")], [],
     {"n1": ANTI, "n2": ANTI, "n3": OK, "nz": OK}),
    # The pod repels itself: no replica yet → nothing counted; with web-1 on n1 → (host, n1) = 1.
    ("a pod whose anti-affinity matches itself is kept off the nodes of its earlier replicas only",
     pod("web-2", app="web", aff=affinity(anti=[term(sel(app="web"), HOST)])),
     [pod("web-1", on="n1", app="web")], [],
     {"n1": ANTI, "n2": OK, "n3": OK, "nz": OK}),
    ("a term with a null label selector matches no pod",
     pod("web", app="web", aff=affinity(anti=[term(None, HOST)])),
     [pod("db", on="n1", app="db")], [],
     {"n1": OK, "n2": OK, "n3": OK, "nz": OK}),
    # db's term matches web → existing table (zone, a) = 1; every node label is looked up.
    ("an existing pod's anti-affinity repels a matching pod from its whole zone",
     pod("web", app="web"),
     [pod("db", on="n1", app="db", aff=affinity(anti=[term(sel(app="web"), ZONE)]))], [],
     {"n1": EXIST, "n2": EXIST, "n3": OK, "nz": OK}),
    ("an existing pod's anti-affinity covers only its own namespace by default",
     pod("web", ns="other", app="web"),
     [pod("db", ns="shop", on="n1", app="db", aff=affinity(anti=[term(sel(app="web"), HOST)]))], [],
     SKIP),
    ("an existing pod's anti-affinity with a namespaceSelector matches the incoming pod's namespace labels",
     pod("web", ns="blue-ns", app="web"),
     [pod("db", ns="shop", on="n1", app="db",
          aff=affinity(anti=[term(sel(app="web"), HOST, ns_selector=sel(team="blue"))]))],
     [ns("shop"), ns("blue-ns", team="blue")],
     {"n1": EXIST, "n2": OK, "n3": OK, "nz": OK}),
    ("an existing pod's anti-affinity with a namespaceSelector ignores namespaces whose labels differ",
     pod("web", ns="red-ns", app="web"),
     [pod("db", ns="shop", on="n1", app="db",
          aff=affinity(anti=[term(sel(app="web"), HOST, ns_selector=sel(team="blue"))]))],
     [ns("shop"), ns("red-ns", team="red")],
     SKIP),
    ("an existing pod's anti-affinity with an empty namespaceSelector covers every namespace",
     pod("web", ns="other", app="web"),
     [pod("db", ns="shop", on="n1", app="db",
          aff=affinity(anti=[term(sel(app="web"), HOST, ns_selector=LabelSelector())]))],
     [ns("shop"), ns("other")],
     {"n1": EXIST, "n2": OK, "n3": OK, "nz": OK}),
    ("an existing pod's namespaceSelector sees no labels when the incoming pod's Namespace object is missing",
     pod("web", ns="ghost", app="web"),
     [pod("db", ns="shop", on="n1", app="db",
          aff=affinity(anti=[term(sel(app="web"), HOST, ns_selector=sel(team="blue"))]))],
     [ns("shop")],
     SKIP),
    # ...and a selector that holds on an empty label set (team DoesNotExist) therefore matches.
    ("a DoesNotExist namespaceSelector of an existing pod matches a pod whose Namespace object is missing",
     pod("web", ns="ghost", app="web"),
     [pod("db", ns="shop", on="n1", app="db",
          aff=affinity(anti=[term(sel(app="web"), HOST, ns_selector=expr("team", "DoesNotExist"))]))],
     [ns("shop")],
     {"n1": EXIST, "n2": OK, "n3": OK, "nz": OK}),
    ("terminating existing pods still repel",
     pod("web", app="web"),
     [make_pod("db", labels={"app": "db"}, node_name="n1", deletion_timestamp="2025-01-01T00:00:00Z",
               affinity=affinity(anti=[term(sel(app="web"), HOST)]))], [],
     {"n1": EXIST, "n2": OK, "n3": OK, "nz": OK}),
    # namespaces=[data]: only data/db (n1) counts, web/db (n2) is in the pod's own namespace.
    ("the incoming pod's affinity with explicit namespaces ignores pods of its own namespace",
     pod("api", ns="web", app="api", aff=affinity(req=[term(sel(app="db"), HOST, namespaces=("data",))])),
     [pod("db", ns="data", on="n1", app="db"), pod("db", ns="web", on="n2", app="db")], [],
     {"n1": OK, "n2": AFF, "n3": AFF, "nz": AFF}),
    # team In (a) resolves to {alpha}; it does not hold on an empty label set, so beta/db does not count.
    ("the incoming pod's namespaceSelector is resolved against the Namespace objects",
     pod("api", ns="alpha", app="api",
         aff=affinity(req=[term(sel(app="db"), HOST, ns_selector=sel(team="a"))])),
     [pod("db", ns="alpha", on="n1", app="db"), pod("db", ns="beta", on="n2", app="db")],
     [ns("alpha", team="a"), ns("beta", team="b")],
     {"n1": OK, "n2": AFF, "n3": AFF, "nz": AFF}),
    ("the incoming pod's empty namespaceSelector matches pods in every namespace, even without a Namespace object",
     pod("web", ns="alpha", app="web", aff=affinity(anti=[term(sel(app="db"), HOST, ns_selector=LabelSelector())])),
     [pod("db", ns="beta", on="n2", app="db"), pod("db", ns="ghost", on="n3", app="db")],
     [ns("alpha"), ns("beta")],
     {"n1": OK, "n2": ANTI, "n3": ANTI, "nz": OK}),
    # v1.34.1 adds the names of matching namespaces (beta) but keeps the selector, which is then
    # tested against an empty label set: `team NotIn (a)` holds there, so alpha/db counts too.
    ("quirk: the incoming pod's NotIn namespaceSelector also matches the namespaces it excludes",
     pod("web", ns="beta", app="web",
         aff=affinity(anti=[term(sel(app="db"), HOST, ns_selector=expr("team", "NotIn", "a"))])),
     [pod("db", ns="alpha", on="n1", app="db"), pod("db", ns="beta", on="n2", app="db")],
     [ns("alpha", team="a"), ns("beta", team="b")],
     {"n1": ANTI, "n2": ANTI, "n3": OK, "nz": OK}),
    # n1: db and cache → affinity ok, anti fails. n2: affinity fails first even though cache-2's
    # anti-affinity also repels web there. n3: no db → affinity.
    ("affinity is checked before anti-affinity, and anti-affinity before existing pods' anti-affinity",
     pod("web", app="web", aff=affinity(req=[term(sel(app="db"), ZONE)], anti=[term(sel(app="cache"), HOST)])),
     [pod("db", on="n1", app="db"), pod("cache", on="n1", app="cache"),
      pod("guard", on="n2", app="guard", aff=affinity(anti=[term(sel(app="web"), HOST)]))], [],
     {"n1": ANTI, "n2": EXIST, "n3": AFF, "nz": AFF}),
]


@pytest.mark.parametrize("case, incoming, bound, namespaces, expected", FILTER_CASES,
                         ids=[c[0] for c in FILTER_CASES])
def test_filter(case, incoming, bound, namespaces, expected):
    assert run_filter(NODES, bound, incoming, namespaces) == expected


# AddPod / RemovePod ----------------------------------------------------------------------------

NOTHING_ANTI = affinity(anti=[term(sel(app="nothing"), HOST)])  # keeps PreFilter from skipping

EXTENSION_CASES = [
    # (case, incoming, bound, operation, pod, node, expected before, expected after)
    ("adding a pod that matches the affinity makes its node feasible",
     pod("api", app="api", aff=affinity(req=[term(sel(app="db"), HOST)])),
     [], "add", pod("db", on="n2", app="db"), "n2",
     {"n1": AFF, "n2": AFF, "n3": AFF, "nz": AFF},
     {"n1": AFF, "n2": OK, "n3": AFF, "nz": AFF}),
    ("adding a pod whose anti-affinity matches the incoming pod rejects its zone",
     pod("web", app="web", aff=NOTHING_ANTI),
     [], "add", pod("db", on="n1", app="db", aff=affinity(anti=[term(sel(app="web"), ZONE)])), "n1",
     {"n1": OK, "n2": OK, "n3": OK, "nz": OK},
     {"n1": EXIST, "n2": EXIST, "n3": OK, "nz": OK}),
    ("removing the only pod repelling through its anti-affinity frees its node",
     pod("web", app="web"),
     [pod("db", on="n1", app="db", aff=affinity(anti=[term(sel(app="web"), HOST)]))],
     "remove", pod("db", on="n1", app="db", aff=affinity(anti=[term(sel(app="web"), HOST)])), "n1",
     {"n1": EXIST, "n2": OK, "n3": OK, "nz": OK},
     {"n1": OK, "n2": OK, "n3": OK, "nz": OK}),
    ("removing the pod that matches the incoming anti-affinity frees its node",
     pod("web", app="web", aff=affinity(anti=[term(sel(app="db"), HOST)])),
     [pod("db", on="n1", app="db")], "remove", pod("db", on="n1", app="db"), "n1",
     {"n1": ANTI, "n2": OK, "n3": OK, "nz": OK},
     {"n1": OK, "n2": OK, "n3": OK, "nz": OK}),
    # (host, n1) goes 1 → 0 and is deleted, the table is empty again and web-2 matches its own
    # term: the first-pod rule admits every node with a hostname label.
    ("removing the last matching pod brings back the first-pod rule",
     pod("web-2", app="web", aff=affinity(req=[term(sel(app="web"), HOST)])),
     [pod("web-1", on="n1", app="web")], "remove", pod("web-1", on="n1", app="web"), "n1",
     {"n1": OK, "n2": AFF, "n3": AFF, "nz": AFF},
     {"n1": OK, "n2": OK, "n3": OK, "nz": OK}),
    # Adding a second matching pod on n1 and removing it must leave (host, n1) at 1, not delete it.
    ("adding then removing a matching pod leaves the earlier count in place",
     pod("web-3", app="web", aff=affinity(req=[term(sel(app="web"), HOST)])),
     [pod("web-1", on="n1", app="web")], "add-remove", pod("web-2", on="n1", app="web"), "n1",
     {"n1": OK, "n2": AFF, "n3": AFF, "nz": AFF},
     {"n1": OK, "n2": AFF, "n3": AFF, "nz": AFF}),
]


@pytest.mark.parametrize("case, incoming, bound, op, other, node_name, before, after", EXTENSION_CASES,
                         ids=[c[0] for c in EXTENSION_CASES])
def test_add_remove_pod(case, incoming, bound, op, other, node_name, before, after):
    plugin, snap = make_plugin(NODES, bound)
    state = CycleState()
    info = PodInfo.of(incoming)
    _, status = plugin.pre_filter(state, info, snap.node_infos)
    assert status is None
    assert filter_all(plugin, snap, state, info) == before

    copy = state.clone()
    ext = plugin.pre_filter_extensions()
    node_copy = snap.by_name[node_name].clone()
    other_info = PodInfo.of(other)
    if op in ("add", "add-remove"):
        node_copy.add_pod(other_info)
        assert ext.add_pod(copy, info, other_info, node_copy) is None
    if op in ("remove", "add-remove"):
        node_copy.remove_pod(other_info.key)
        assert ext.remove_pod(copy, info, other_info, node_copy) is None
    assert filter_all(plugin, snap, copy, info) == after
    # The original state is untouched by changes made to its clone.
    assert filter_all(plugin, snap, state, info) == before


def test_a_pod_bound_after_an_earlier_prefilter_is_seen_by_the_next_one():
    plugin, snap = make_plugin(NODES, [])
    info = PodInfo.of(pod("web", app="web", aff=NOTHING_ANTI))
    state = CycleState()
    plugin.pre_filter(state, info, snap.node_infos)
    assert filter_all(plugin, snap, state, info)["n3"] is OK
    # db lands on n3 with anti-affinity to web on the hostname: the per-node index must be rebuilt.
    db = pod("db", on="n3", app="db", aff=affinity(anti=[term(sel(app="web"), HOST)]))
    snap.assume(PodInfo.of(db), "n3")
    state = CycleState()
    plugin.pre_filter(state, info, snap.node_infos)
    assert filter_all(plugin, snap, state, info) == {"n1": OK, "n2": OK, "n3": EXIST, "nz": OK}
    snap.forget(db.key)
    state = CycleState()
    plugin.pre_filter(state, info, snap.node_infos)
    assert filter_all(plugin, snap, state, info)["n3"] is OK


def test_filter_without_prefilter_state_is_an_error():
    plugin, snap = make_plugin(NODES, [])
    status = harness.filter_node(plugin, CycleState(), PodInfo.of(pod("web")), snap.node_infos[0])
    assert status.code == Code.ERROR


# Scoring -------------------------------------------------------------------------------------

HOSTS_ONLY = [node("nx"), node("ny"), node("nz")]
ZONED = [node("n1", "a"), node("n2", "a"), node("n3", "b")]

SCORE_CASES = [
    # (case, nodes, bound, incoming, namespaces, args, expected raw, expected normalized) or SKIP
    # §6.7: raw nx 100, ny 29, nz 0; min 0, d 100; ny = trunc(100.0 × (29/100)) = trunc(28.999…) = 28.
    ("worked example: preferred affinity weights 100 and 29 normalize to 100, 28, 0",
     HOSTS_ONLY, [pod("a", on="nx", app="a"), pod("b", on="ny", app="b")],
     pod("in", aff=affinity(pref_=[pref(100, term(sel(app="a"), HOST)), pref(29, term(sel(app="b"), HOST))])),
     [], {},
     {"nx": 100, "ny": 29, "nz": 0}, {"nx": 100, "ny": 28, "nz": 0}),
    # raw n1 −50, n2 0, n3 −20; min −50, max 0, d 50: n1 0, n2 100, n3 trunc(100 × 30/50) = 60.
    ("preferred anti-affinity makes raw scores negative and the lowest becomes 0",
     ZONED, [pod("a", on="n1", app="a"), pod("b", on="n3", app="b")],
     pod("in", aff=affinity(anti_pref=[pref(50, term(sel(app="a"), HOST)), pref(20, term(sel(app="b"), HOST))])),
     [], {},
     {"n1": -50, "n2": 0, "n3": -20}, {"n1": 0, "n2": 100, "n3": 60}),
    # a on n1 → T[zone][a] = 10, shared by n1 and n2.
    ("a zone preference counts for every node of the zone",
     ZONED, [pod("a", on="n1", app="a")],
     pod("in", aff=affinity(pref_=[pref(10, term(sel(app="a"), ZONE))])),
     [], {},
     {"n1": 10, "n2": 10, "n3": 0}, {"n1": 100, "n2": 100, "n3": 0}),
    # e1's required term matches web: +1 (hardPodAffinityWeight default) on (host, n1); e2's
    # preferred anti-affinity: −3 on (host, n2). min −3, max 1, d 4: n3 = trunc(100 × 3/4) = 75.
    ("existing pods' required affinity adds hardPodAffinityWeight 1 by default",
     ZONED,
     [pod("e1", on="n1", app="e1", aff=affinity(req=[term(sel(app="web"), HOST)])),
      pod("e2", on="n2", app="e2", aff=affinity(anti_pref=[pref(3, term(sel(app="web"), HOST))]))],
     pod("web", app="web"), [], {},
     {"n1": 1, "n2": -3, "n3": 0}, {"n1": 100, "n2": 0, "n3": 75}),
    # Same with weight 5: n1 5, n2 −3, n3 0; d 8: n3 = trunc(100 × 3/8) = trunc(37.5) = 37.
    ("hardPodAffinityWeight 5 weighs existing pods' required affinity five times",
     ZONED,
     [pod("e1", on="n1", app="e1", aff=affinity(req=[term(sel(app="web"), HOST)])),
      pod("e2", on="n2", app="e2", aff=affinity(anti_pref=[pref(3, term(sel(app="web"), HOST))]))],
     pod("web", app="web"), [], {"hardPodAffinityWeight": 5},
     {"n1": 5, "n2": -3, "n3": 0}, {"n1": 100, "n2": 0, "n3": 37}),
    ("hardPodAffinityWeight 0 ignores existing pods' required affinity, so nothing scores",
     ZONED, [pod("e1", on="n1", app="e1", aff=affinity(req=[term(sel(app="web"), HOST)]))],
     pod("web", app="web"), [], {"hardPodAffinityWeight": 0},
     SKIP, SKIP),
    # e1's preferred affinity (40, zone): T[zone][a] = 40 for n1 and n2.
    ("an existing pod's preferred affinity adds its weight when the incoming pod matches",
     ZONED, [pod("e1", on="n1", app="e1", aff=affinity(pref_=[pref(40, term(sel(app="web"), ZONE))]))],
     pod("web", app="web"), [], {},
     {"n1": 40, "n2": 40, "n3": 0}, {"n1": 100, "n2": 100, "n3": 0}),
    ("an existing pod's required anti-affinity does not score",
     ZONED, [pod("e1", on="n1", app="e1", aff=affinity(anti=[term(sel(app="web"), HOST)]))],
     pod("web", app="web"), [], {},
     SKIP, SKIP),
    ("PreScore skips when no existing pod matches any term",
     ZONED, [pod("a", on="n1", app="a")],
     pod("in", aff=affinity(pref_=[pref(10, term(sel(app="x"), HOST))])),
     [], {},
     SKIP, SKIP),
    ("ignorePreferredTermsOfExistingPods skips a pod without preferred terms of its own",
     ZONED, [pod("e1", on="n1", app="e1", aff=affinity(pref_=[pref(40, term(sel(app="web"), ZONE))]))],
     pod("web", app="web"), [], {"ignorePreferredTermsOfExistingPods": True},
     SKIP, SKIP),
    # The incoming pod has preferred terms, so existing pods' terms count too: n1 +10 (a),
    # n2 +5 (e1's preferred affinity on hostname); d 10 → 100, 50, 0.
    ("ignorePreferredTermsOfExistingPods still counts existing pods' terms for a pod with preferred terms",
     ZONED,
     [pod("a", on="n1", app="a"),
      pod("e1", on="n2", app="e1", aff=affinity(pref_=[pref(5, term(sel(app="web"), HOST))]))],
     pod("web", app="web", aff=affinity(pref_=[pref(10, term(sel(app="a"), HOST))])),
     [], {"ignorePreferredTermsOfExistingPods": True},
     {"n1": 10, "n2": 5, "n3": 0}, {"n1": 100, "n2": 50, "n3": 0}),
    # +5 and −5 on (host, n1): the entry exists with 0, so PreScore does not skip; d 0 → all 0.
    ("terms that cancel out still create an entry, and equal raw scores all normalize to 0",
     ZONED, [pod("a", on="n1", app="a")],
     pod("in", aff=affinity(pref_=[pref(5, term(sel(app="a"), HOST))], anti_pref=[pref(5, term(sel(app="a"), HOST))])),
     [], {},
     {"n1": 0, "n2": 0, "n3": 0}, {"n1": 0, "n2": 0, "n3": 0}),
    # Only n1 and n2 (both zone a, raw 10 each) are scored: min 10, max 10, d 0 → 0, not 100.
    ("equal positive raw scores normalize to 0 because the minimum is taken over the nodes",
     ZONED[:2], [pod("a", on="n1", app="a")],
     pod("in", aff=affinity(pref_=[pref(10, term(sel(app="a"), ZONE))])),
     [], {},
     {"n1": 10, "n2": 10}, {"n1": 0, "n2": 0}),
    # team In (b) resolves to {beta}: beta/db on n1 counts, alpha/db on n2 (own namespace) does not.
    ("the incoming pod's preferred namespaceSelector is resolved against the Namespace objects",
     ZONED, [pod("db", ns="beta", on="n1", app="db"), pod("db", ns="alpha", on="n2", app="db")],
     pod("in", ns="alpha", aff=affinity(pref_=[pref(10, term(sel(app="db"), HOST, ns_selector=sel(team="b")))])),
     [ns("alpha", team="a"), ns("beta", team="b")], {},
     {"n1": 10, "n2": 0, "n3": 0}, {"n1": 100, "n2": 0, "n3": 0}),
    # e1's term selects namespaces labelled team=blue; web's namespace has it → n1 −7; min −7, max 0.
    ("an existing pod's preferred anti-affinity with a namespaceSelector reads the incoming pod's namespace labels",
     ZONED,
     [pod("e1", ns="shop", on="n1", app="e1",
          aff=affinity(anti_pref=[pref(7, term(sel(app="web"), HOST, ns_selector=sel(team="blue")))]))],
     pod("web", ns="blue-ns", app="web"),
     [ns("shop"), ns("blue-ns", team="blue")], {},
     {"n1": -7, "n2": 0, "n3": 0}, {"n1": 0, "n2": 100, "n3": 100}),
    # Preferred anti-affinity of the incoming pod against pods without any affinity of their own
    # (only reachable because the incoming pod has preferred terms, so all pods are walked).
    ("the incoming pod's preferred terms are evaluated against pods that have no affinity",
     ZONED, [pod("a1", on="n1", app="a"), pod("a2", on="n1", app="a"), pod("a3", on="n3", app="a")],
     pod("in", aff=affinity(anti_pref=[pref(10, term(sel(app="a"), HOST))])),
     [], {},
     # n1: two matching pods → −20; n3: −10; min −20, max 0: n1 0, n2 100, n3 trunc(100 × 10/20) = 50.
     {"n1": -20, "n2": 0, "n3": -10}, {"n1": 0, "n2": 100, "n3": 50}),
]


@pytest.mark.parametrize("case, nodes, bound, incoming, namespaces, args, raw, normalized", SCORE_CASES,
                         ids=[c[0] for c in SCORE_CASES])
def test_score(case, nodes, bound, incoming, namespaces, args, raw, normalized):
    plugin, snap = make_plugin(nodes, bound, namespaces, args)
    state = CycleState()
    info = PodInfo.of(incoming)
    feasible = snap.node_infos
    status = plugin.pre_score(state, info, feasible)
    if raw == SKIP:
        assert status is not None and status.code == Code.SKIP
        return
    assert status is None
    scores = harness.score_nodes(plugin, state, info, feasible)
    assert scores == raw
    assert harness.normalize(plugin, state, info, scores) == (normalized, None)


def test_prescore_reads_the_whole_snapshot_not_only_the_feasible_nodes():
    # The only matching pod runs on n3, which is not feasible. PreScore walks the snapshot, so
    # T[hostname][n3] = 10 exists and it does not skip; n1 and n2 both score 0 → d 0 → 0.
    plugin, snap = make_plugin(ZONED, [pod("a", on="n3", app="a")])
    state = CycleState()
    info = PodInfo.of(pod("in", aff=affinity(pref_=[pref(10, term(sel(app="a"), HOST))])))
    feasible = [snap.by_name["n1"], snap.by_name["n2"]]
    assert plugin.pre_score(state, info, feasible) is None
    scores = harness.score_nodes(plugin, state, info, feasible)
    assert scores == {"n1": 0, "n2": 0}
    assert harness.normalize(plugin, state, info, scores) == ({"n1": 0, "n2": 0}, None)


# Explanations --------------------------------------------------------------------------------

def test_explain_names_the_failing_term_and_the_pods():
    bound = [pod("web-1", ns="shop", on="n1", app="web"),
             pod("guard", ns="shop", on="n2", app="guard", aff=affinity(anti=[term(sel(app="web"), ZONE)]))]
    plugin, snap = make_plugin(NODES, bound)
    incoming = PodInfo.of(pod("web-2", ns="shop", app="web", aff=affinity(anti=[term(sel(app="web"), HOST)])))
    state = CycleState(explain=True)  # the evidence (pod names) is kept when explaining
    plugin.pre_filter(state, incoming, snap.node_infos)
    n1 = plugin.explain_node(state, incoming, snap.by_name["n1"])
    assert ("anti-affinity term app=web on kubernetes.io/hostname: "
            "pod shop/web-1 in kubernetes.io/hostname=n1 matches") in n1
    assert any("pod shop/guard in topology.kubernetes.io/zone=a has anti-affinity term app=web on "
               "topology.kubernetes.io/zone" in line for line in n1)
    n3 = plugin.explain_node(state, incoming, snap.by_name["n3"])
    assert n3 == ["all pod affinity and anti-affinity rules are satisfied on this node"]


def test_explain_mentions_the_missing_topology_key_and_the_first_pod_rule():
    plugin, snap = make_plugin(NODES, [])
    incoming = PodInfo.of(pod("web", app="web", aff=affinity(req=[term(sel(app="web"), ZONE)])))
    state = CycleState()
    plugin.pre_filter(state, incoming, snap.node_infos)
    nz = plugin.explain_node(state, incoming, snap.by_name["nz"])
    assert nz[0] == ("affinity term app=web on topology.kubernetes.io/zone: "
                     "the node has no topology.kubernetes.io/zone label")
    n1 = plugin.explain_node(state, incoming, snap.by_name["n1"])
    assert any("first pod of its group" in line for line in n1)


@pytest.mark.parametrize("bound, expected_n1", [
    # no db pod anywhere: the same words for every node (a summary of thousands groups them)
    ([], "affinity term app=db on topology.kubernetes.io/zone: no pod matching all affinity terms runs anywhere "
         "in the cluster"),
    # a db pod in zone b: n1 (zone a) is told which domain lacks it
    ([pod("db", on="n3", app="db")], "affinity term app=db on topology.kubernetes.io/zone: no pod matching all "
                                     "affinity terms runs in topology.kubernetes.io/zone=a"),
], ids=["no matching pod anywhere", "matching pods elsewhere"])
def test_explain_says_where_no_pod_the_affinity_needs_runs(bound, expected_n1):
    plugin, snap = make_plugin(NODES, bound)
    incoming = PodInfo.of(pod("web", app="web", aff=affinity(req=[term(sel(app="db"), ZONE)])))
    state = CycleState()
    plugin.pre_filter(state, incoming, snap.node_infos)
    assert plugin.explain_node(state, incoming, snap.by_name["n1"])[0] == expected_n1


def test_plugin_name_and_extensions():
    plugin, _ = make_plugin(NODES, [])
    assert NAME == "InterPodAffinity" == plugin.name
    assert plugin.pre_filter_extensions() is plugin
    assert plugin.hard_pod_affinity_weight == 1
    assert plugin.ignore_preferred_terms_of_existing_pods is False


# The term index: which existing pods' terms an incoming pod is tested against -----------------

GATE_CASES = [
    # (case, incoming pod's labels, the existing pods' anti-affinity selector per pod name, expected
    # pod names whose term matches). Every existing pod runs on n1 in "default", as the incoming pod.
    ("an In requirement files the term under each of its values",
     {"app": "web"}, {"a": expr("app", "In", "web", "api"), "b": expr("app", "In", "db")}, {"a"}),
    ("matchLabels are In requirements: the pod must carry every pair",
     {"app": "web", "tier": "front"}, {"a": sel(app="web", tier="front"), "b": sel(app="web", tier="back")}, {"a"}),
    ("a selector without an In requirement is tested against every pod",
     {"app": "web"}, {"a": expr("app", "NotIn", "db"), "b": expr("app", "Exists"), "c": expr("team", "DoesNotExist")},
     {"a", "b", "c"}),
    ("an empty selector matches every pod of its namespaces",
     {"app": "web"}, {"a": LabelSelector(())}, {"a"}),
    ("the In gate is necessary, not sufficient: the other requirements still decide",
     {"app": "web", "team": "x"}, {"a": LabelSelector((Requirement("app", "In", ("web",)),
                                                       Requirement("team", "NotIn", ("x",))))}, set()),
    ("a pod without the gated key matches no gated term",
     {"tier": "front"}, {"a": sel(app="web"), "b": expr("app", "NotIn", "web")}, {"b"}),
]


@pytest.mark.parametrize("case, labels, selectors, expected", GATE_CASES, ids=[c[0] for c in GATE_CASES])
def test_term_index_matches_the_terms_every_existing_term_would(case, labels, selectors, expected):
    """The index files terms by label pair to test fewer of them; what matches must be what
    testing every term finds (interpodaffinity filtering.go:Filter tests them all)."""
    bound = [pod(name, on="n1", aff=affinity(anti=[term(selector, HOST)])) for name, selector in selectors.items()]
    _, snap = make_plugin(NODES, bound)
    incoming = pod("in", **labels)
    index = TermIndex(snap)
    found = {t.selector for (_, t, _), _, _ in index.matching(incoming, TermMemo(incoming, {}))}
    assert found == {selectors[name] for name in expected}


def test_topology_counts_drop_to_absent_at_zero_and_are_read_per_row():
    """An array per key stands for topologyToMatchedTermCount: (zone, a) counts the pods of
    n1 and n2 (1 + 2 = 3); nz has no zone label and counts nowhere."""
    _, snap = make_plugin(NODES, [])
    counts = TopologyCounts(snap.table)
    assert not counts
    rows = np.array([snap.table.index[name] for name in ("n1", "n2", "n3", "nz")])
    counts.add_rows(ZONE, rows, np.array([1, 2, 0, 5]))
    assert counts.get((ZONE, "a")) == 3 and counts.get((ZONE, "b")) == 0 and counts.get((ZONE, "c")) == 0
    assert counts.keys() == [ZONE]
    has, positive = counts.positive_at(ZONE, rows)
    assert has.tolist() == [True, True, True, False] and positive.tolist() == [True, True, False, False]
    copy = counts.copy()
    copy.update({ZONE: "a"}, ZONE, -3)
    assert not copy and counts.get((ZONE, "a")) == 3  # the copy is independent
    copy.update({HOST: "n1"}, ZONE, 1)  # a node without the key: no change
    assert not copy
    counts.update({ZONE: "b"}, ZONE, 2)  # and so is the original, after the copy
    assert counts.get((ZONE, "b")) == 2 and copy.get((ZONE, "b")) == 0


def test_explain_says_a_skipped_prefilter_is_about_required_terms_and_still_names_the_preferences():
    """Only preferred anti-affinity here: PreFilter skips (no required term, the pod's nor an
    existing pod's), Filter passes every node — yet the preference scores: the explanation says
    the first without denying the second (it said 'no pod affinity or anti-affinity applies')."""
    plugin, snap = make_plugin(NODES, [pod("web-1", on="n1", app="web")])
    incoming = PodInfo.of(pod("in", aff=affinity(anti_pref=[pref(100, term(sel(app="web"), HOST))])))
    state = CycleState(explain=True)
    _, status = plugin.pre_filter(state, incoming, snap.node_infos)
    assert status is not None and status.code == Code.SKIP
    state.skip_filter.add(plugin.name)
    nodes = snap.node_infos
    assert plugin.pre_score(state, incoming, nodes) is None
    n1 = plugin.explain_node(state, incoming, snap.by_name["n1"])
    assert n1[0] == ("no required pod affinity or anti-affinity term applies, the pod's nor an existing pod's "
                     "(PreFilter skipped: Filter passes every node)")
    assert len(n1) > 1 and "kubernetes.io/hostname=n1" in n1[1]
