"""InterPodAffinity: the smallest set of matching pods in the way of an anti-affinity
(kwhatif/explain/suggest/interpod.py)."""

from __future__ import annotations

from kwhatif.api.affinity import Affinity, PodAffinityRules, PodAffinityTerm
from kwhatif.api.objects import OwnerReference, Pod
from kwhatif.api.selectors import selector_from_map
from kwhatif.explain.pod import NodeVerdict
from kwhatif.explain.suggest.interpod import delete_pods_in_the_way
from kwhatif.plugins.inter_pod_affinity.filtering import ERR_REASON_ANTI_AFFINITY, ERR_REASON_EXISTING_ANTI_AFFINITY
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo
from tests.builders import make_node, make_pod

ZONE = "topology.kubernetes.io/zone"


def _anti(key: str, **labels: str) -> Affinity:
    term = PodAffinityTerm(selector_from_map(labels), key)
    return Affinity(pod_anti_affinity=PodAffinityRules(required=(term,)))


def _cluster(placed: list[tuple[str, Pod]]) -> dict[str, NodeInfo]:
    """a1, a2 in zone a; b1 in zone b."""
    infos = {n: NodeInfo.of(make_node(n, labels={ZONE: n[0], "kubernetes.io/hostname": n})) for n in ("a1", "a2", "b1")}
    for node, pod in placed:
        infos[node].add_pod(PodInfo.of(pod.evolve(node_name=node)))
    return infos


def _rejected(reason: str, *names: str) -> list[NodeVerdict]:
    return [NodeVerdict(n, False, "InterPodAffinity", "Unschedulable", [reason]) for n in names]


def test_the_zone_with_fewest_matching_pods_is_freed() -> None:
    """Zone a holds db-1 (a1) and db-2 (a2), zone b db-3 and an app=web pod the term does not
    match, plus an app=db pod of another namespace (the term reads the pod's own namespace):
    deleting db-3 frees b1; a2, empty itself, would still need both of zone a's."""
    pod = make_pod("db-new", labels={"app": "db"}, affinity=_anti(ZONE, app="db"))
    infos = _cluster([("a1", make_pod("db-1", labels={"app": "db"})), ("a2", make_pod("db-2", labels={"app": "db"})),
                      ("b1", make_pod("db-3", labels={"app": "db"})), ("b1", make_pod("web", labels={"app": "web"})),
                      ("b1", make_pod("db-x", ns="other", labels={"app": "db"}))])
    [(suggestion, variant)] = delete_pods_in_the_way(pod, _rejected(ERR_REASON_ANTI_AFFINITY, "a1", "a2", "b1"),
                                                     lambda name: infos[name])
    assert suggestion.changes == [{"op": "delete", "target": {"kind": "Pod", "namespace": "default", "name": "db-3"}}]
    assert variant.removed == frozenset({"default/db-3"})
    assert suggestion.summary == (f"delete (or move) default/db-3 (on b1), in {ZONE} b: anti-affinity keeps them "
                                  "and the pod apart, and b1 is then free")


def test_an_existing_pods_anti_affinity_that_matches_the_pod_is_in_the_way() -> None:
    """guard (a1) repels app=web pods on its hostname; the web pod has no terms of its own."""
    pod = make_pod("web", labels={"app": "web"})
    infos = _cluster([("a1", make_pod("guard", labels={"app": "guard"},
                                      affinity=_anti("kubernetes.io/hostname", app="web")))])
    [(suggestion, _)] = delete_pods_in_the_way(pod, _rejected(ERR_REASON_EXISTING_ANTI_AFFINITY, "a1"),
                                               lambda name: infos[name])
    assert [c["target"]["name"] for c in suggestion.changes] == ["guard"]


def test_nodes_another_filter_rejects_too_are_not_freed_by_deleting_pods() -> None:
    pod = make_pod("db-new", labels={"app": "db"}, affinity=_anti(ZONE, app="db"))
    infos = _cluster([("a1", make_pod("db-1", labels={"app": "db"}))])
    verdicts = [NodeVerdict("a1", False, "InterPodAffinity", "Unschedulable", [ERR_REASON_ANTI_AFFINITY],
                            also_fails={"NodeResourcesFit": ["Insufficient cpu"]})]
    assert delete_pods_in_the_way(pod, verdicts, lambda name: infos[name]) == []


def test_a_controllers_pod_in_the_way_is_said_to_come_back() -> None:
    """guard is a ReplicaSet's: deleted, its controller makes a new guard at once, which queues
    behind web (created later) unless of higher priority — the fix holds only then, so it says so."""
    pod = make_pod("web", labels={"app": "web"})
    owner = (OwnerReference("apps/v1", "ReplicaSet", "guard-rs", controller=True),)
    infos = _cluster([("a1", make_pod("guard", labels={"app": "guard"}, owner_references=owner,
                                      affinity=_anti("kubernetes.io/hostname", app="web")))])
    [(suggestion, _)] = delete_pods_in_the_way(pod, _rejected(ERR_REASON_EXISTING_ANTI_AFFINITY, "a1"),
                                               lambda name: infos[name])
    assert suggestion.summary.endswith("and a1 is then free (1 of them come back from their controllers, as new "
                                       "pods scheduled after this one unless of higher priority)")


def test_a_sibling_replica_in_the_way_is_never_the_pod_to_delete() -> None:
    """db-3 of StatefulSet db repels app=db per hostname; db-0 (a1) is of the same set: deleted,
    it comes back as one more db replica, repelled as db-3 is — a1 is not freed. db-x (a2) is
    another set's app=db pod: deleting it does free a2."""
    sts = (OwnerReference("apps/v1", "StatefulSet", "db", controller=True),)
    other = (OwnerReference("apps/v1", "StatefulSet", "db-old", controller=True),)
    pod = make_pod("db-3", labels={"app": "db"}, owner_references=sts, affinity=_anti("kubernetes.io/hostname", app="db"))
    infos = _cluster([("a1", make_pod("db-0", labels={"app": "db"}, owner_references=sts)),
                      ("a2", make_pod("db-x", labels={"app": "db"}, owner_references=other))])
    [(suggestion, _)] = delete_pods_in_the_way(pod, _rejected(ERR_REASON_ANTI_AFFINITY, "a1", "a2"),
                                               lambda name: infos[name])
    assert [c["target"]["name"] for c in suggestion.changes] == ["db-x"]
    infos = _cluster([("a1", make_pod("db-0", labels={"app": "db"}, owner_references=sts))])
    assert delete_pods_in_the_way(pod, _rejected(ERR_REASON_ANTI_AFFINITY, "a1"), lambda name: infos[name]) == []
