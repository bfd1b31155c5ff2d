"""NodeName (reference §5.1 #2). Cases ported from kubernetes `nodename/node_name_test.go`."""

from __future__ import annotations

import pytest

from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.status import Code
from kwhatif.plugins.node_name import NodeName
from kwhatif.api.cluster import Cluster
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot
from tests.builders import Handle, make_node, make_pod
from tests.plugins.harness import filter_node

REASON = "node(s) didn't match the requested node name"


@pytest.mark.parametrize("pod_node_name, node_name, expected", [
    pytest.param("", "foo", None, id="a pod with no spec.nodeName fits any node"),
    pytest.param("foo", "foo", None, id="a pod whose spec.nodeName equals the node fits"),
    pytest.param("bar", "foo", (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (REASON,)),
                 id="a pod whose spec.nodeName names another node is rejected as unresolvable"),
    pytest.param("Foo", "foo", (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (REASON,)),
                 id="node names are compared case-sensitively"),
])
def test_filter(pod_node_name, node_name, expected):
    node = make_node(node_name)
    snap = Snapshot.build(Cluster(nodes=[node]), [])
    pod = make_pod("p", node_name=pod_node_name)
    status = filter_node(NodeName(None, Handle(snap)), CycleState(), PodInfo.of(pod), snap.by_name[node_name])
    assert (None if status is None else (status.code, status.reasons)) == expected
