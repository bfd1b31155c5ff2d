"""The pods the snapshot's DaemonSets create on added nodes (`kwhatif.whatif.daemons`). Expected
values from the daemon controller (NodeShouldRunDaemonPod: nodeSelector and required node
affinity of the template, every NoSchedule/NoExecute taint tolerated with the DaemonSet default
tolerations; ReplaceDaemonSetPodNodeNameNodeAffinity pins each pod to its node)."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

import pytest

from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import DaemonSet
from kwhatif.whatif.daemons import daemon_pods
from kwhatif.whatif.nodes import add_nodes
from tests.builders import make_node, make_taint

NOW = "2026-01-01T00:00:00Z"
LINUX = {"kubernetes.io/os": "linux"}


def daemonset(name: str, node_selector: dict[str, str] | None = None,
              tolerations: list[dict[str, str]] | None = None) -> DaemonSet:
    spec: dict[str, Any] = {"containers": [{"name": "agent", "image": "agent:1",
                                            "resources": {"requests": {"cpu": "250m", "memory": "128Mi"}}}]}
    if node_selector:
        spec["nodeSelector"] = node_selector
    if tolerations:
        spec["tolerations"] = tolerations
    manifest = {"apiVersion": "apps/v1", "kind": "DaemonSet",
                "metadata": {"name": name, "namespace": "kube-system", "uid": f"uid-{name}"},
                "spec": {"selector": {"matchLabels": {"app": name}},
                         "template": {"metadata": {"labels": {"app": name}}, "spec": spec}}}
    return DaemonSet("kube-system", name, manifest)


def cluster(*sets: DaemonSet) -> Cluster:
    return Cluster(nodes=[make_node("a", labels=LINUX)], daemonsets={(d.namespace, d.name): d for d in sets})


def pinned_node(pod: Any) -> str:
    [term] = pod.affinity.node_affinity.required.terms
    [requirement] = term.match_fields
    return str(requirement.values[0])


@pytest.mark.parametrize("sets, added, expected", [
    # One pod a DaemonSet per added node that should run it, DaemonSets in name order.
    ([daemonset("logs"), daemonset("cni")], [make_node("n1"), make_node("n2")],
     [("cni", "n1"), ("cni", "n2"), ("logs", "n1"), ("logs", "n2")]),
    # nodeSelector: only the node with the label.
    ([daemonset("logs", node_selector=LINUX)], [make_node("n1", labels=LINUX), make_node("n2")], [("logs", "n1")]),
    # A NoSchedule taint the pod does not tolerate keeps it off; one it tolerates does not.
    ([daemonset("logs"), daemonset("gpu", tolerations=[{"key": "gpu", "operator": "Exists"}])],
     [make_node("n1", taints=[make_taint("gpu")])], [("gpu", "n1")]),
    # The default tolerations cover the unschedulable taint a cordoned template node carries.
    ([daemonset("logs")], [make_node("n1", taints=[make_taint("node.kubernetes.io/unschedulable")])],
     [("logs", "n1")]),
    # A PreferNoSchedule taint never keeps a DaemonSet off.
    ([daemonset("logs")], [make_node("n1", taints=[make_taint("x", effect="PreferNoSchedule")])], [("logs", "n1")]),
])
def test_each_daemonset_gets_a_pod_on_each_added_node_that_should_run_it(sets, added, expected):
    grown = cluster(*sets)
    new = daemon_pods(grown, added, NOW)
    assert [(p.controller_ref.name, pinned_node(p)) for p in new] == expected
    assert grown.pods == new  # appended: the end of the queue
    for pod in new:
        assert re.fullmatch(rf"{pod.controller_ref.name}-[bcdfghjklmnpqrstvwxz2456789]{{5}}", pod.name)
        assert (pod.namespace, pod.node_name, pod.creation_timestamp) == ("kube-system", "", NOW)
        assert pod.controller_ref.kind == "DaemonSet"
        assert pod.containers[0].requests["cpu"] == Fraction(1, 4)  # the template's 250m
    assert len({p.uid for p in new}) == len(new)


def test_a_daemonset_being_deleted_creates_no_pod():
    deleted = daemonset("logs")
    deleted.manifest["metadata"]["deletionTimestamp"] = "2025-12-31T00:00:00Z"
    assert daemon_pods(cluster(deleted, daemonset("cni")), [make_node("n1")], NOW)[0].controller_ref.name == "cni"
    assert len(daemon_pods(cluster(deleted), [make_node("n1")], NOW)) == 0


def test_nothing_is_added_without_nodes_or_daemonsets():
    assert daemon_pods(cluster(daemonset("logs")), [], NOW) == []
    empty = cluster()
    assert daemon_pods(empty, [make_node("n1")], NOW) == [] and empty.warnings == []


def test_add_nodes_returns_the_nodes_and_their_daemonset_pods():
    grown = cluster(daemonset("logs"))
    nodes, pods = add_nodes(grown, make_node("a", labels=LINUX), 2, NOW)
    assert [n.name for n in nodes] == ["a-1", "a-2"]
    assert [pinned_node(p) for p in pods] == ["a-1", "a-2"]


def test_names_taken_in_the_namespace_are_generated_again():
    """The first pod's name on n1, taken by a pod that runs: the new one gets another."""
    first = daemon_pods(cluster(daemonset("logs")), [make_node("n1")], NOW)[0]
    grown = cluster(daemonset("logs"))
    grown.pods.append(first.evolve(node_name="a", uid="running"))
    [again] = daemon_pods(grown, [make_node("n1")], NOW)
    assert again.name != first.name and again.name.startswith("logs-")
