"""NodePorts (reference §5.5). Cases ported from kubernetes `nodeports/node_ports_test.go`
(TestNodePorts), plus the sidecar / init-container / defaulting rules of §5.5.

Ports are written as in the Go test: "PROTO/hostIP/hostPort".
"""

from __future__ import annotations

import pytest

from kwhatif.api.objects import ContainerPort, OwnerReference
from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.status import Code
from kwhatif.plugins.node_ports import NodePorts
from kwhatif.api.cluster import Cluster
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot
from tests.builders import Handle, make_container, make_node, make_pod, make_sidecar

REASON = "node(s) didn't have free ports for the requested pod ports"
CONFLICT = (Code.UNSCHEDULABLE, (REASON,))
SKIP = "skip"


def ports(*specs: str) -> tuple[ContainerPort, ...]:
    out = []
    for spec in specs:
        proto, ip, port = spec.split("/")
        out.append(ContainerPort(container_port=int(port), host_port=int(port), protocol=proto, host_ip=ip))
    return tuple(out)


def pod(name: str, *specs: str, node: str = "", init=(), containers=None):
    if containers is None:
        containers = [make_container("c", ports=ports(*specs))]
    return make_pod(name, node_name=node, containers=containers, init_containers=init)


def existing(*specs: str, **kw):
    return pod("existing", *specs, node="n1", **kw)


def run(incoming, bound):
    snap = Snapshot.build(Cluster(nodes=[make_node("n1")]), list(bound))
    plugin = NodePorts(None, Handle(snap))
    info = PodInfo.of(incoming)
    state = CycleState()
    _, status = plugin.pre_filter(state, info, snap.node_infos)
    if status is not None and status.code == Code.SKIP:
        return SKIP
    assert status is None
    status = plugin.filter(state, info, snap.by_name["n1"])
    return None if status is None else (status.code, status.reasons)


CASES = [
    # --- ported from TestNodePorts ---
    pytest.param(make_pod("m1", containers=[make_container("c")]), [], SKIP,
                 id="a pod without host ports makes PreFilter skip"),
    pytest.param(pod("m1", "UDP/127.0.0.1/8080"), [existing("UDP/127.0.0.1/9090")], None,
                 id="a different port on the same ip is free"),
    pytest.param(pod("m1", "UDP/127.0.0.1/8080"), [existing("UDP/127.0.0.1/8080")], CONFLICT,
                 id="the same UDP ip and port conflicts"),
    pytest.param(pod("m1", "TCP/127.0.0.1/8080"), [existing("TCP/127.0.0.1/8080")], CONFLICT,
                 id="the same TCP ip and port conflicts"),
    pytest.param(pod("m1", "TCP/127.0.0.1/8080"), [existing("TCP/127.0.0.2/8080")], None,
                 id="the same port on a different host ip is free"),
    pytest.param(pod("m1", "UDP/127.0.0.1/8080"), [existing("TCP/127.0.0.1/8080")], None,
                 id="the same port with a different protocol is free"),
    pytest.param(pod("m1", "UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"), [existing("UDP/127.0.0.1/8080")], CONFLICT,
                 id="a conflict on the second wanted port rejects"),
    pytest.param(pod("m1", "TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"),
                 [existing("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081")], CONFLICT,
                 id="a conflict on the first wanted port rejects"),
    pytest.param(pod("m1", "TCP/0.0.0.0/8001"), [existing("TCP/127.0.0.1/8001")], CONFLICT,
                 id="a wanted 0.0.0.0 port conflicts with the same port on any ip"),
    pytest.param(pod("m1", "TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"), [existing("TCP/127.0.0.1/8001")], CONFLICT,
                 id="a wanted 0.0.0.0 port among others conflicts with a specific ip in use"),
    pytest.param(pod("m1", "TCP/127.0.0.1/8001"), [existing("TCP/0.0.0.0/8001")], CONFLICT,
                 id="a wanted specific ip conflicts with the same port in use on 0.0.0.0"),
    pytest.param(pod("m1", "UDP/127.0.0.1/8001"), [existing("TCP/0.0.0.0/8001")], None,
                 id="0.0.0.0 in use with another protocol is no conflict"),
    pytest.param(pod("m1", "UDP/127.0.0.1/8001"), [existing("TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001")], CONFLICT,
                 id="0.0.0.0 in use with the same protocol conflicts"),
    # --- reference §5.5 ---
    pytest.param(pod("m1", "TCP//8001"), [existing("TCP/127.0.0.1/8001")], CONFLICT,
                 id="an empty wanted hostIP means 0.0.0.0"),
    pytest.param(pod("m1", "TCP/127.0.0.1/8001"), [existing("TCP//8001")], CONFLICT,
                 id="an empty hostIP in use means 0.0.0.0"),
    pytest.param(pod("m1", "/127.0.0.1/8001"), [existing("TCP/127.0.0.1/8001")], CONFLICT,
                 id="an empty wanted protocol means TCP"),
    pytest.param(pod("m1", "TCP/127.0.0.1/8001"), [existing("/127.0.0.1/8001")], CONFLICT,
                 id="an empty protocol in use means TCP"),
    pytest.param(make_pod("m1", containers=[make_container("c", ports=(ContainerPort(8080),))]),
                 [existing("TCP/0.0.0.0/8080")], SKIP,
                 id="a containerPort without hostPort is not a wanted port"),
    pytest.param(make_pod("m1", containers=[make_container("c")],
                          init_containers=[make_sidecar("s", ports=ports("TCP/0.0.0.0/9000"))]),
                 [existing("TCP/0.0.0.0/9000")], CONFLICT,
                 id="a sidecar init container's host port is wanted"),
    pytest.param(make_pod("m1", containers=[make_container("c")],
                          init_containers=[make_container("i", ports=ports("TCP/0.0.0.0/9000"))]),
                 [existing("TCP/0.0.0.0/9000")], SKIP,
                 id="a regular init container's host port is not wanted"),
    pytest.param(pod("m1", "TCP/0.0.0.0/9000"),
                 [existing(containers=[make_container("c")],
                           init=[make_sidecar("s", ports=ports("TCP/0.0.0.0/9000"))])], CONFLICT,
                 id="a host port used by a bound pod's sidecar is taken"),
    pytest.param(pod("m1", "TCP/0.0.0.0/9000"),
                 [existing(containers=[make_container("c")],
                           init=[make_container("i", ports=ports("TCP/0.0.0.0/9000"))])], None,
                 id="a host port of a bound pod's regular init container is free"),
    pytest.param(pod("m1", "TCP/0.0.0.0/8001"), [], None,
                 id="an empty node has every port free"),
]


@pytest.mark.parametrize("incoming, bound, expected", CASES)
def test_node_ports(incoming, bound, expected):
    assert run(incoming, bound) == expected


def test_a_removed_pod_frees_its_port():
    """NodeInfo bookkeeping: after the pod holding the port leaves, the port is free again."""
    holder = existing("TCP/0.0.0.0/8001")
    snap = Snapshot.build(Cluster(nodes=[make_node("n1")]), [holder])
    snap.forget(holder.key)
    plugin = NodePorts(None, Handle(snap))
    info = PodInfo.of(pod("m1", "TCP/127.0.0.1/8001"))
    state = CycleState()
    plugin.pre_filter(state, info, snap.node_infos)
    assert plugin.filter(state, info, snap.by_name["n1"]) is None


def test_filter_without_its_pre_filter_state_is_an_error():
    """node_ports.go Filter reads PreFilter's state: with PreFilter disabled in the profile it is
    missing, and Filter returns the error (the runner ends the cycle with it)."""
    snap = Snapshot.build(Cluster(nodes=[make_node("n1")]), [])
    status = NodePorts(None, Handle(snap)).filter(CycleState(), PodInfo.of(pod("m1", "TCP//8001")), snap.by_name["n1"])
    assert status is not None and (status.code, status.reasons) == (
        Code.ERROR, ('reading "PreFilterNodePorts" from cycleState: not found',))


def _owned(name: str, kind: str, owner: str, *specs: str):
    ref = OwnerReference(api_version="apps/v1", kind=kind, name=owner, controller=True)
    return make_pod(name, ns="infra", node_name="n1", owner_references=(ref,),
                    containers=[make_container("c", ports=ports(*specs))])


EXPLAIN_CASES = [
    pytest.param(pod("m1", "TCP/0.0.0.0/8080"), [existing("TCP/0.0.0.0/8080")],
                 ["host port 8080/TCP is taken by pod default/existing"],
                 id="a bare pod holding the port is named"),
    pytest.param(pod("m1", "TCP/0.0.0.0/9100"), [_owned("exporter-x7", "DaemonSet", "exporter", "TCP/0.0.0.0/9100")],
                 ["host port 9100/TCP is taken by a pod of DaemonSet infra/exporter"],
                 id="a controller's pod is named by its controller, the same words on every node"),
    pytest.param(pod("m1", "TCP/127.0.0.1/8001", "UDP/0.0.0.0/53"),
                 [existing("TCP/0.0.0.0/8001", "UDP/0.0.0.0/53")],
                 ["host port 127.0.0.1:8001/TCP is taken by pod default/existing",
                  "host port 53/UDP is taken by pod default/existing"],
                 id="each taken port in the pod's order, a specific ip shown"),
    pytest.param(pod("m1", "TCP/127.0.0.1/8001"), [existing("TCP/127.0.0.2/8001")], [],
                 id="a free port says nothing"),
    pytest.param(pod("m1", "UDP/0.0.0.0/8001"), [existing("TCP/0.0.0.0/8001")], [],
                 id="another protocol's holder says nothing"),
]


@pytest.mark.parametrize("incoming, bound, expected", EXPLAIN_CASES)
def test_explain_names_the_taken_port_and_its_holder(incoming, bound, expected):
    snap = Snapshot.build(Cluster(nodes=[make_node("n1")]), list(bound))
    plugin = NodePorts(None, Handle(snap))
    assert plugin.explain_node(CycleState(), PodInfo.of(incoming), snap.by_name["n1"]) == expected
