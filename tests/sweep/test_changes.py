"""A scenario's changes to its snapshot: nodes lost by label (their controllers' pods come back
pending, the others are gone), nodes added from a template; the loaded snapshot never changes."""

from __future__ import annotations

from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import OwnerReference
from kwhatif.sweep.changes import add_nodes, labelled, remove_labelled
from tests.builders import make_node, make_pod

ZONE = "topology.kubernetes.io/zone"
RS = OwnerReference("apps/v1", "ReplicaSet", "web-7d9f8", controller=True)
DS = OwnerReference("apps/v1", "DaemonSet", "logs", controller=True)


def cluster() -> Cluster:
    nodes = [make_node("a1", labels={ZONE: "a", "pool": "x"}), make_node("a2", labels={ZONE: "a"}),
             make_node("b1", labels={ZONE: "b", "pool": "x"})]
    pods = [make_pod("web-1", node_name="a1", owner_references=(RS,), phase="Running"),
            make_pod("logs-a1", node_name="a1", owner_references=(DS,), phase="Running"),
            make_pod("bare", node_name="a2", phase="Running"),
            make_pod("web-2", node_name="b1", owner_references=(RS,), phase="Running")]
    return Cluster(nodes=nodes, pods=pods)


def test_every_label_must_match_and_no_label_matches_nothing() -> None:
    nodes = cluster().nodes
    assert labelled(nodes, {ZONE: "a"}) == {"a1", "a2"}
    assert labelled(nodes, {ZONE: "a", "pool": "x"}) == {"a1"}
    assert labelled(nodes, {}) == set()


def test_losing_a_zone_requeues_controller_pods_and_drops_the_others() -> None:
    before = cluster()
    after = remove_labelled(before, {ZONE: "a"})
    assert [n.name for n in after.nodes] == ["b1"]
    # web-1 (ReplicaSet) is recreated pending; logs-a1 (DaemonSet) and bare go with their nodes.
    assert [(p.name, p.node_name) for p in after.pods] == [("web-1", ""), ("web-2", "b1")]
    assert [n.name for n in before.nodes] == ["a1", "a2", "b1"] and len(before.pods) == 4


def test_added_nodes_are_named_after_the_template_and_skip_taken_names() -> None:
    before = cluster()
    template = make_node("a1", labels={ZONE: "c"})  # a1 is taken: copies are a1-1, a1-2
    after = add_nodes(before, template, 2)
    assert [n.name for n in after.nodes] == ["a1", "a2", "b1", "a1-1", "a1-2"]
    assert after.nodes[3].labels == {ZONE: "c", "kubernetes.io/hostname": "a1-1"}
    assert len(before.nodes) == 3
    assert add_nodes(before, template, 0) is before
