"""NodeUnschedulable (reference §5.1 #1, §5.3 last paragraph).

Cases ported from kubernetes `nodeunschedulable/node_unschedulable_test.go` plus the toleration
edge cases of §5.2 applied to the `node.kubernetes.io/unschedulable:NoSchedule` taint.
"""

from __future__ import annotations


import pytest

from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.runtime import Framework, PluginSet
from kwhatif.framework.status import Code
from kwhatif.plugins.node_unschedulable import NodeUnschedulable
from kwhatif.plugins.taint_toleration import TaintToleration
from kwhatif.api.cluster import Cluster
from kwhatif.framework.scheduler import NominatedPods
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot
from tests.builders import Handle, make_node, make_pod, make_taint, make_toleration
from tests.plugins.harness import filter_node

UNSCHEDULABLE = "node(s) were unschedulable"
KEY = "node.kubernetes.io/unschedulable"


def _filter(pod, node):
    snap = Snapshot.build(Cluster(nodes=[node]), [])
    plugin = NodeUnschedulable(None, Handle(snap))
    status = filter_node(plugin, CycleState(), PodInfo.of(pod), snap.by_name[node.name])
    return None if status is None else (status.code, status.reasons)


REJECTED = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (UNSCHEDULABLE,))


@pytest.mark.parametrize("tolerations, unschedulable, expected", [
    pytest.param((), True, REJECTED,
                 id="a pod is not scheduled onto a cordoned node (spec.unschedulable true)"),
    pytest.param((), False, None,
                 id="a pod is scheduled onto a normal node"),
    pytest.param((make_toleration(KEY, effect="NoSchedule"),), True, None,
                 id="a pod tolerating the unschedulable taint with empty operator and value lands on a cordoned node"),
    pytest.param((make_toleration(KEY, "Exists", effect="NoSchedule"),), True, None,
                 id="a pod tolerating the unschedulable taint with Exists lands on a cordoned node"),
    pytest.param((make_toleration(KEY, "Exists"),), True, None,
                 id="a toleration of the key with an empty effect tolerates the NoSchedule unschedulable taint"),
    pytest.param((make_toleration(operator="Exists"),), True, None,
                 id="an Exists toleration with empty key tolerates every taint including unschedulable"),
    pytest.param((make_toleration(KEY, "Exists", effect="NoExecute"),), True, REJECTED,
                 id="a NoExecute toleration does not tolerate the NoSchedule unschedulable taint"),
    pytest.param((make_toleration(KEY, "Equal", "true", "NoSchedule"),), True, REJECTED,
                 id="an Equal toleration with a non-empty value does not match the empty-valued unschedulable taint"),
    pytest.param((make_toleration("other", "Exists", effect="NoSchedule"),), True, REJECTED,
                 id="a toleration for another key does not help on a cordoned node"),
])
def test_filter(tolerations, unschedulable, expected):
    pod = make_pod("p", cpu="100m", tolerations=tuple(tolerations))
    node = make_node("n1", unschedulable=unschedulable)
    assert _filter(pod, node) == expected


def test_a_cordoned_node_with_the_taint_reports_unschedulable_not_the_taint():
    """§5.3: NodeUnschedulable runs before TaintToleration, so the cordon reason wins."""
    node = make_node("n1", unschedulable=True, taints=[make_taint(KEY, "", "NoSchedule")])
    snap = Snapshot.build(Cluster(nodes=[node]), [])
    handle = Handle(snap)
    fwk = Framework("default-scheduler",
                    PluginSet(filter=[NodeUnschedulable(None, handle), TaintToleration(None, handle)]),
                    NominatedPods())
    status = fwk.run_filter(CycleState(), PodInfo.of(make_pod("p")), snap.by_name["n1"])
    assert (status.code, status.reasons, status.plugin) == (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (UNSCHEDULABLE,), "NodeUnschedulable")


def test_the_node_once_uncordoned_has_neither_the_cordon_nor_its_taint() -> None:
    """kwhatif's "also fails" for a cordoned node looks at it uncordoned: kubectl uncordon clears
    spec.unschedulable and the cordon's taint goes with it; any other taint stays (and may still
    be reported), and the node itself is not changed."""
    cordon, gpu = make_taint("node.kubernetes.io/unschedulable"), make_taint("nvidia.com/gpu", "present")
    info = NodeInfo.of(make_node("n1", unschedulable=True, taints=(cordon, gpu)))
    passed = NodeUnschedulable(None, Handle(Snapshot.build(Cluster(), []))).node_once_passed(info)
    assert (passed.node.unschedulable, passed.node.taints) == (False, (gpu,))
    assert (info.node.unschedulable, info.node.taints) == (True, (cordon, gpu))
