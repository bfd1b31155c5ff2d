"""A scenario's changes to its snapshot: nodes lost by label (their controllers' pods come back
pending as new pods, the others are gone), nodes added from a template; the loaded snapshot never
changes."""

from __future__ import annotations

from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import OwnerReference
from kwhatif.sweep.changes import add_nodes, labelled, remove_labelled
from kwhatif.sweep.scenario import scenario_cluster
from kwhatif.sweep.spec import Plan, Scenario
from tests.builders import make_node, make_pod

ZONE = "topology.kubernetes.io/zone"
RS = OwnerReference("apps/v1", "ReplicaSet", "web-7d9f8", controller=True)
DS = OwnerReference("apps/v1", "DaemonSet", "logs", controller=True)
NODE_A1 = OwnerReference("v1", "Node", "a1", controller=True)
NOW = "2026-01-01T00:00:00Z"


def cluster() -> Cluster:
    nodes = [make_node("a1", labels={ZONE: "a", "pool": "x"}), make_node("a2", labels={ZONE: "a"}),
             make_node("b1", labels={ZONE: "b", "pool": "x"})]
    pods = [make_pod("web-1", node_name="a1", owner_references=(RS,), phase="Running"),
            make_pod("logs-a1", node_name="a1", owner_references=(DS,), phase="Running"),
            make_pod("bare", node_name="a2", phase="Running"),
            make_pod("etcd-a1", node_name="a1", owner_references=(NODE_A1,), phase="Running",
                     annotations={"kubernetes.io/config.mirror": "hash"}),
            make_pod("web-2", node_name="b1", owner_references=(RS,), phase="Running")]
    return Cluster(nodes=nodes, pods=pods)


def test_every_label_must_match_and_no_label_matches_nothing() -> None:
    nodes = cluster().nodes
    assert labelled(nodes, {ZONE: "a"}) == {"a1", "a2"}
    assert labelled(nodes, {ZONE: "a", "pool": "x"}) == {"a1"}
    assert labelled(nodes, {}) == set()


def test_losing_a_zone_requeues_controller_pods_and_drops_the_others() -> None:
    before = cluster()
    after = remove_labelled(before, {ZONE: "a"}, NOW)
    assert [n.name for n in after.nodes] == ["b1"]
    # web-1 (ReplicaSet) comes back as the new pod its ReplicaSet creates now: a generated name
    # `web-7d9f8-<5 chars>`, pending, at the end of the queue. logs-a1 (DaemonSet) and the static
    # pod's mirror etcd-a1 belong to their node and go with it; bare has no controller.
    assert [(p.name, p.node_name) for p in after.pods][0] == ("web-2", "b1")
    new = after.pods[1:]
    assert len(new) == 1 and new[0].name.startswith("web-7d9f8-") and len(new[0].name) == len("web-7d9f8-") + 5
    assert (new[0].node_name, new[0].creation_timestamp, new[0].controller_ref) == ("", NOW, RS)
    assert [n.name for n in before.nodes] == ["a1", "a2", "b1"] and len(before.pods) == 5


def test_added_nodes_are_named_after_the_template_and_skip_taken_names() -> None:
    before = cluster()
    template = make_node("a1", labels={ZONE: "c"})  # a1 is taken: copies are a1-1, a1-2
    after = add_nodes(before, template, 2, NOW)
    assert [n.name for n in after.nodes] == ["a1", "a2", "b1", "a1-1", "a1-2"]
    assert after.nodes[3].labels == {ZONE: "c", "kubernetes.io/hostname": "a1-1"}
    assert len(before.nodes) == 3
    assert add_nodes(before, template, 0, NOW) is before
    # logs-a1's DaemonSet object is not in the snapshot: the new nodes get no pod of it, and the
    # scenario's runs say so (kwhatif.whatif.daemons).
    assert len(after.pods) == len(before.pods)
    assert after.warnings == ["DaemonSet pods of default/logs run in the snapshot, but not their DaemonSet objects: "
                              "the added nodes get none of their pods (kwhatif snapshot captures them)"]
    assert before.warnings == []


def test_labels_that_match_no_node_lose_nothing_and_say_so() -> None:
    before = cluster()
    after = remove_labelled(before, {ZONE: "x"}, NOW)
    assert ([n.name for n in after.nodes], after.pods) == ([n.name for n in before.nodes], before.pods)
    assert after.warnings == [f"remove {ZONE}=x: no node has these labels, so no node is removed"]
    assert before.warnings == []


def test_a_scenario_adds_its_nodes_before_it_removes_by_label() -> None:
    # Two zone-a nodes added, then zone a lost: the added ones go with a1 and a2 (losing a zone
    # loses every node in it), as `check --tolerate-zone-loss` on the grown cluster would.
    plan = Plan(NOW, templates={"t": make_node("new", labels={ZONE: "a"})}, removals={"zone-a": {ZONE: "a"}})
    after = scenario_cluster(cluster(), Scenario(0, "snap", template="t", count=2, remove="zone-a"), plan)
    assert [n.name for n in after.nodes] == ["b1"]
