"""Node operations and node targets, as tables (kubectl cordon/taint/label semantics)."""

from __future__ import annotations

import pytest

from kwhatif.api.cluster import Cluster
from kwhatif.api.dra import Device, ResourceSlice
from kwhatif.api.storage import CSINode, CSINodeDriver
from kwhatif.api.tolerations import Taint
from kwhatif.errors import InputError
from kwhatif.api.objects import CORDON_TAINT, cordoned, uncordoned
from kwhatif.whatif.nodes import add_nodes, labelled, parse_taint, tainted, untainted
from kwhatif.whatif.targets import target_nodes
from kwhatif.whatif.ops import evict_untolerating
from tests.builders import make_node, make_pod, make_toleration

NO_EXEC = Taint("k", "v", "NoExecute")


def test_cordon_and_uncordon_are_symmetric() -> None:
    node = make_node("n1", taints=(NO_EXEC,))
    assert cordoned(node).unschedulable and cordoned(node).taints == (NO_EXEC, CORDON_TAINT)
    assert cordoned(cordoned(node)).taints == (NO_EXEC, CORDON_TAINT)  # once only
    assert uncordoned(cordoned(node)) == node


@pytest.mark.parametrize("text, taint", [
    ("dedicated=gpu:NoSchedule", Taint("dedicated", "gpu", "NoSchedule")),
    ("dedicated:PreferNoSchedule", Taint("dedicated", "", "PreferNoSchedule")),
    ("example.com/x=y:NoExecute", Taint("example.com/x", "y", "NoExecute")),
], ids=["key, value and effect", "no value", "a prefixed key"])
def test_taint_specs(text: str, taint: Taint) -> None:
    assert parse_taint(text) == taint


@pytest.mark.parametrize("text", ["k=v", "k=v:Sometimes", "bad key=v:NoSchedule"],
                         ids=["no effect", "unknown effect", "invalid key"])
def test_bad_taint_specs(text: str) -> None:
    with pytest.raises(InputError):
        parse_taint(text)


def test_a_taint_replaces_the_one_with_its_key_and_effect() -> None:
    node = make_node("n1", taints=(Taint("k", "old", "NoSchedule"), NO_EXEC))
    assert tainted(node, Taint("k", "new", "NoSchedule")).taints == (NO_EXEC, Taint("k", "new", "NoSchedule"))


@pytest.mark.parametrize("text, left", [
    ("k", ()), ("k:NoExecute", (Taint("k", "v", "NoSchedule"),)), ("other", (Taint("k", "v", "NoSchedule"), NO_EXEC)),
], ids=["a key removes every effect", "key:Effect removes that one", "an absent key changes nothing"])
def test_untaint(text: str, left: tuple[Taint, ...]) -> None:
    node = make_node("n1", taints=(Taint("k", "v", "NoSchedule"), NO_EXEC))
    assert untainted(node, text).taints == left


def test_labels_set_and_removed() -> None:
    node = make_node("n1", labels={"a": "1"})
    assert labelled(node, "b=2").labels == {"a": "1", "b": "2"}
    assert labelled(node, "a-").labels == {}
    with pytest.raises(InputError):
        labelled(node, "b")


NODES = [make_node("n1", labels={"zone": "a", "gpu": "yes"}), make_node("n2", labels={"zone": "a"}),
         make_node("n3", labels={"zone": "b"})]


@pytest.mark.parametrize("target, names", [
    ("n2", ["n2"]), ("zone=a", ["n1", "n2"]), ("zone==b", ["n3"]), ("zone!=a", ["n3"]), ("zone=a,gpu", ["n1"]), ("gpu,", ["n1"]),
    ("!gpu", ["n2", "n3"]), ("zone=a,!gpu", ["n2"]),
], ids=["a name", "equality", "double equals", "inequality", "exists (beside another requirement: a bare word is a node name)", "exists alone", "does not exist", "ANDed"])
def test_targets(target: str, names: list[str]) -> None:
    assert [n.name for n in target_nodes(Cluster(nodes=list(NODES)), target, "cordon")] == names


def test_copies_of_a_node_of_the_cluster_register_its_csi_drivers():
    """A copy of node `a` gets `a`'s CSINode (same drivers, same attach limits), under its own
    name; nodes from a template that is not a node of the cluster get none (their kubelet's
    drivers are unknown)."""
    grown = Cluster(nodes=[make_node("a")])
    grown.csi_nodes["a"] = CSINode("a", (CSINodeDriver("ebs.csi.aws.com", 25),))
    add_nodes(grown, grown.nodes[0], 1, "2026-01-01T00:00:00Z")
    assert grown.csi_nodes["a-1"] == CSINode("a-1", (CSINodeDriver("ebs.csi.aws.com", 25),))
    add_nodes(grown, make_node("b"), 1, "2026-01-01T00:00:00Z")
    assert "b-1" not in grown.csi_nodes


def test_copies_join_schedulable_with_the_pools_taints_only():
    """A copy of a cordoned, not-ready GPU node: a new node is neither (`kubectl cordon` and the
    node lifecycle controller's taints are about that node), but it is a GPU node like it."""
    gpu = Taint("nvidia.com/gpu", "present", "NoSchedule")
    sick = make_node("g1", unschedulable=True, taints=(gpu, CORDON_TAINT, Taint("node.kubernetes.io/not-ready", "",
                                                                                 "NoExecute")))
    [copy] = add_nodes(Cluster(nodes=[sick]), sick, 1, "2026-01-01T00:00:00Z")[0]
    assert (copy.name, copy.unschedulable, copy.taints) == ("g1-1", False, (gpu,))


MAINT = Taint("maint", "true", "NoExecute")


@pytest.mark.parametrize("tolerations, evicted", [
    ((), True),
    ((make_toleration("maint", "Equal", "true", "NoExecute"),), False),  # tolerated for good
    ((make_toleration("maint", "Exists", seconds=300),), True),  # tolerated for 300 s: then evicted
    ((make_toleration(operator="Exists"),), False),  # tolerates every taint
    ((make_toleration("maint", "Exists", effect="NoSchedule"),), True),  # another effect
])
def test_a_noexecute_taint_evicts_a_pod_unless_it_tolerates_it_for_good(tolerations, evicted):
    node = make_node("n1")
    pod = make_pod("p", node_name="n1", phase="Running", tolerations=tolerations)
    cluster = Cluster(nodes=[node], pods=[pod])
    gone, _ = evict_untolerating(cluster, [node], MAINT, "2026-01-01T00:00:00Z")
    assert (gone == [pod], cluster.pods == [pod]) == (evicted, not evicted)


def test_copies_of_a_node_of_the_cluster_publish_its_own_resource_slices():
    """A node of the same kind runs the same DRA driver, which publishes its devices in a pool of
    its own (drivers name a node's pool after it); slices of other nodes or for every node stay
    as they are."""
    gpu = Device("gpu-0")
    own = ResourceSlice("n1-gpu", "gpu.example.com", "n1", 1, 1, (gpu,), node_name="n1")
    other = ResourceSlice("n2-gpu", "gpu.example.com", "n2", 1, 1, (gpu,), node_name="n2")
    shared = ResourceSlice("fabric", "net.example.com", "fabric", 1, 1, (gpu,), all_nodes=True)
    cluster = Cluster(nodes=[make_node("n1"), make_node("n2")],
                      resource_slices={s.name: s for s in (own, other, shared)})
    added, _ = add_nodes(cluster, cluster.nodes[0], 1, "2026-01-01T00:00:00Z")
    copy = cluster.resource_slices["n1-1-gpu"]
    assert (added[0].name, copy.node_name, copy.pool, copy.devices) == ("n1-1", "n1-1", "n1-1", (gpu,))
    assert sorted(cluster.resource_slices) == ["fabric", "n1-1-gpu", "n1-gpu", "n2-gpu"]


@pytest.mark.parametrize("target, said", [
    # labels.Parse refuses an empty or invalid key: read as written, each would have selected every node.
    ("!", "invalid label selector: '': name part must be non-empty"),
    ("!=", "invalid label selector: '' '': name part must be non-empty"),
    ("!!x", "invalid label selector: '!x': name part must consist of alphanumeric characters"),
    ("zone=a b", "invalid label selector: 'zone' 'a b': a valid label must be an empty string or consist of"),
    ("k in (a", "neither a node name (an RFC 1123 subdomain) nor a label selector kwhatif reads"),
    # A '/' makes it a selector (no node name holds one): a key of more than one prefix is no key.
    ("a/b/c", "invalid label selector: 'a/b/c': a qualified name must consist of alphanumeric characters"),
    ("example.com/gpu", "no node matches this label selector"),
])
def test_a_target_that_is_no_selector_and_no_node_name_is_refused(target: str, said: str) -> None:
    with pytest.raises(InputError) as err:
        target_nodes(Cluster(nodes=[make_node("n1")]), target, "cordon")
    assert str(err.value).startswith(f"--cordon {target}: {said}")


@pytest.mark.parametrize("target, chosen", [
    ("topology.kubernetes.io/zone", ["n1", "n2"]),
    ("gpu,", ["n2"]),
    ("gpu", ["gpu"]),
], ids=[
    "a prefixed key alone selects the nodes that have the label: a node name never holds '/'",
    "a key without a prefix needs a comma to be a selector",
    "without one, it is a node name",
])
def test_a_label_key_alone_is_a_selector_when_it_can_be_no_node_name(target: str, chosen: list[str]) -> None:
    """labels.Parse reads a bare key as `exists`; kwhatif takes a bare word for a node name first."""
    zone = {"topology.kubernetes.io/zone": "a"}
    nodes = [make_node("n1", labels=zone), make_node("n2", labels={**zone, "gpu": "true"}), make_node("n3"),
             make_node("gpu")]
    assert [n.name for n in target_nodes(Cluster(nodes=nodes), target, "remove-node")] == chosen
