"""NodeResourcesBalancedAllocation (reference §6.9, PreScore skip of §6.0).

Cases ported from kubernetes `noderesources/balanced_allocation_test.go`
(TestNodeResourcesBalancedAllocation; its DRA cases need a feature gate that is off in 1.34 and
are left out), then the examples of §6.9 and §6.4. In the Go test `makeNode(name, milliCPU,
memory, scalars)` takes millicores and bytes; the pods below reproduce `cpuOnly`,
`cpuAndMemory` and `cpuAndMemoryAndGPU` literally.
"""

from __future__ import annotations

import pytest

from kwhatif.config.args import plugin_args
from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.status import Code
from kwhatif.plugins.node_resources.balanced_allocation import NodeResourcesBalancedAllocation
from kwhatif.api.cluster import Cluster
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot
from tests.builders import Handle, make_container, make_node, make_pod
from tests.plugins.harness import score_nodes

GPU = "nvidia.com/gpu"
DEFAULT = {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}
WITH_GPU = {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}, {"name": GPU, "weight": 1}]}


def go_node(name: str, milli_cpu: int, memory: int, scalars: dict | None = None):
    return make_node(name, cpu=f"{milli_cpu}m", memory=str(memory), allocatable=scalars or {})


def cpu_only(name: str = "p", node: str = ""):
    return make_pod(name, node_name=node, containers=[
        make_container("a", cpu="1000m", memory="0"), make_container("b", cpu="2000m", memory="0")])


def cpu_and_memory(name: str = "p", node: str = ""):
    return make_pod(name, node_name=node, containers=[
        make_container("a", cpu="1000m", memory="2000"), make_container("b", cpu="2000m", memory="3000")])


def cpu_memory_gpu(name: str = "p", node: str = ""):
    return make_pod(name, node_name=node, containers=[
        make_container("a", cpu="1000m", memory="2000"),
        make_container("b", cpu="2000m", memory="3000", requests={GPU: "3"})])


def run(args, pod, nodes, bound=()):
    snap = Snapshot.build(Cluster(nodes=list(nodes)), list(bound))
    plugin = NodeResourcesBalancedAllocation(plugin_args(NodeResourcesBalancedAllocation.name, args), Handle(snap))
    info = PodInfo.of(pod)
    state = CycleState()
    infos = [snap.by_name[n.name] for n in nodes]
    status = plugin.pre_score(state, info, infos)
    if status is not None and status.code == Code.SKIP:
        return "skip"
    assert status is None or status.code == Code.SUCCESS
    return score_nodes(plugin, state, info, infos)


CASES = [
    # --- ported from TestNodeResourcesBalancedAllocation ---
    pytest.param(DEFAULT, make_pod("p", containers=[]),
                 [go_node("node1", 4000, 10000), go_node("node2", 4000, 10000)], [], "skip",
                 id="a best-effort pod that requests nothing is skipped in PreScore"),
    pytest.param(DEFAULT, cpu_and_memory(), [go_node("node1", 4000, 10000), go_node("node2", 6000, 10000)], [],
                 # node1: 0.75 and 0.5 → std 0.125 → 87; node2: 0.5 and 0.5 → 100
                 {"node1": 87, "node2": 100},
                 id="requests on differently sized empty nodes"),
    pytest.param(DEFAULT, cpu_and_memory(), [go_node("node1", 10000, 20000), go_node("node2", 10000, 20000)],
                 [cpu_only("e1", "node1"), cpu_and_memory("e2", "node2")],
                 # node1: 0.6 and 0.25 → 0.175 → 82; node2: 0.6 and 0.5 → 0.05 → 95
                 {"node1": 82, "node2": 95},
                 id="requests on nodes with requesting pods"),
    pytest.param(DEFAULT, cpu_and_memory(), [go_node("node1", 10000, 20000), go_node("node2", 10000, 50000)],
                 [cpu_only("e1", "node1"), cpu_and_memory("e2", "node2")],
                 # node2: 0.6 and 0.2 → 0.2 → 80
                 {"node1": 82, "node2": 80},
                 id="requests on differently sized nodes with requesting pods"),
    pytest.param(DEFAULT, cpu_only(), [go_node("node1", 6000, 10000), go_node("node2", 6000, 10000)],
                 [cpu_only("e1", "node1"), cpu_and_memory("e2", "node2")],
                 # node1: 1 and 0 → 0.5 → 50; node2: 1 and 0.5 → 0.25 → 75
                 {"node1": 50, "node2": 75},
                 id="requested resources at node capacity"),
    pytest.param(WITH_GPU, make_pod("p", containers=[make_container("c", requests={"memory": "0", GPU: "1"})]),
                 [go_node("node1", 3500, 40000, {GPU: "8"}), go_node("node2", 3500, 40000, {GPU: "8"})],
                 [cpu_and_memory("e1", "node2"), cpu_memory_gpu("e2", "node1")],
                 # node1: 3000/3500, 5000/40000, 4/8 → population std 0.2989 → 70
                 # node2: 3000/3500, 5000/40000, 1/8 → population std 0.3451 → 65
                 {"node1": 70, "node2": 65},
                 id="three resources use the population standard deviation"),
    pytest.param(WITH_GPU, cpu_and_memory(),
                 [go_node("node1", 3500, 40000, {GPU: "8"}), go_node("node2", 3500, 40000)], [],
                 # gpu not requested → left out: 0.857 and 0.125 → std 0.366 → 63 on both
                 {"node1": 63, "node2": 63},
                 id="a scalar resource the pod doesn't request is left out"),
    # --- reference §6.9 ---
    pytest.param(DEFAULT, make_pod("p", cpu="500m", memory="1Gi"), [make_node("n", cpu="4", memory="8Gi")],
                 [make_pod("e", cpu="1", memory="2Gi", node_name="n")],
                 # cpu 1500/4000 = 0.375, memory 3Gi/8Gi = 0.375 → std 0 → 100
                 {"n": 100},
                 id="equal cpu and memory fractions score 100"),
    pytest.param(DEFAULT, make_pod("p", cpu="2", memory="2Gi"), [make_node("n", cpu="4", memory="8Gi")], [],
                 # cpu 0.5, memory 0.25 → std 0.125 → 87
                 {"n": 87},
                 id="cpu 0.5 and memory 0.25 score 87"),
    pytest.param(DEFAULT, make_pod("p", containers=[make_container("c", cpu="500m")],
                                   pod_requests={"cpu": "2", "memory": "1Gi"}),
                 [make_node("n", cpu="4000m", memory="8Gi")], [],
                 # §6.4: pod level honoured: 0.5 and 0.125 → std 0.1875 → 81
                 {"n": 81},
                 id="balanced allocation honours pod-level requests"),
    pytest.param(DEFAULT, make_pod("p", cpu="1", memory="4Gi"), [make_node("n", cpu="4", memory="8Gi")],
                 [make_pod("e", cpu="4", node_name="n")],
                 # cpu 5000/4000 capped at 1, memory 0.5 → std 0.25 → 75
                 {"n": 75},
                 id="a fraction above 1 is capped at 1"),
    pytest.param(DEFAULT, make_pod("p", cpu="1"), [make_node("n", cpu="4", memory="8Gi")],
                 [make_pod("e", containers=[make_container("c")], node_name="n")],
                 # real requests, no defaults: cpu 1000/4000 = 0.25, memory 0/8Gi = 0 → 0.125 → 87
                 {"n": 87},
                 id="balanced allocation uses real requests without the non-zero defaults"),
    pytest.param(DEFAULT, make_pod("p", cpu="1", memory="1Gi"), [make_node("n", cpu="4", memory=None)], [],
                 # memory allocatable 0 → skipped; one fraction → std 0 → 100
                 {"n": 100},
                 id="a resource with zero allocatable is left out and a single fraction scores 100"),
    pytest.param(DEFAULT, make_pod("p", containers=[make_container("c", cpu="0", memory="0")]),
                 [make_node("n")], [], "skip",
                 id="a pod whose cpu and memory requests are explicitly zero is skipped"),
    pytest.param(DEFAULT, make_pod("p", containers=[make_container("c")], overhead={"cpu": "250m"}),
                 [make_node("n", cpu="1", memory="8Gi")], [],
                 # overhead counts: cpu 250/1000 = 0.25, memory 0 → 0.125 → 87
                 {"n": 87},
                 id="pod overhead counts so an overhead-only pod is not best effort"),
    pytest.param(DEFAULT, make_pod("p", containers=[make_container("c", requests={GPU: "1"})]),
                 [make_node("n", allocatable={GPU: "1"})], [], "skip",
                 id="a pod requesting only resources outside the configured ones is skipped"),
    pytest.param(None, make_pod("p", cpu="2", memory="2Gi"), [make_node("n", cpu="4", memory="8Gi")], [],
                 {"n": 87},
                 id="without arguments the resources are cpu and memory"),
]


@pytest.mark.parametrize("args, pod, nodes, bound, expected", CASES)
def test_balanced_allocation(args, pod, nodes, bound, expected):
    assert run(args, pod, nodes, bound) == expected
