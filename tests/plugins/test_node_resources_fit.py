"""NodeResourcesFit: Filter (reference §4.2, §4.5-4.7, §5.6) and scoring (§4.3, §6.4).

Filter cases are ported from kubernetes `noderesources/fit_test.go` (TestEnoughRequests,
TestNotEnoughRequests, TestStorageRequests). That stored copy predates the v1.34 rule that makes
the status UnschedulableAndUnresolvable when the pod's request alone exceeds the node's
allocatable (§5.6; the 1.34 `fitsRequest` sets `Unresolvable: podRequest > allocatable`), so the
codes of those cases are recomputed here; the reasons are unchanged.

Score cases are ported from `least_allocated_test.go`, `most_allocated_test.go` and
`requested_to_capacity_ratio_test.go`; the worked examples of §6.4 follow. In those Go tests a
node capacity like `"cpu": "4000"` means 4000 cores and `st.MakePod().Obj()` has no containers
at all (so no non-zero defaults apply); both are reproduced literally.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from kwhatif.config.args import plugin_args
from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.status import Code
from kwhatif.plugins.node_resources.fit import NodeResourcesFit, _distinct
from kwhatif.plugins.node_resources.resource_allocation import ResourceSpec
from kwhatif.plugins.node_resources.strategies import broken_linear, least_allocated, most_allocated
from kwhatif.api.cluster import Cluster
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot
from tests.builders import Handle, make_container, make_node, make_pod, make_sidecar, make_status, resize_infeasible
from tests.plugins.harness import filter_node, score_nodes

U = Code.UNSCHEDULABLE
UU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
CPU, MEM, EPH, PODS = "Insufficient cpu", "Insufficient memory", "Insufficient ephemeral-storage", "Too many pods"
EXT_A, EXT_B = "example.com/aaa", "example.com/bbb"
K8S_A, K8S_B = "kubernetes.io/something", "subdomain.kubernetes.io/something"
HUGE_A = "hugepages-2Mi"


def insufficient(name: str) -> str:
    return f"Insufficient {name}"


# Builders -------------------------------------------------------------------------------------

def ctr(milli_cpu: int = 0, memory: int = 0, eph: int = 0, scalars: dict | None = None, name: str = "c"):
    """A container like the Go test's `newResourcePod` entry: explicit cpu (millicores) and memory
    (bytes) keys, plus ephemeral storage and scalar resources when given."""
    requests: dict[str, Any] = {"cpu": f"{milli_cpu}m", "memory": str(memory)}
    if eph:
        requests["ephemeral-storage"] = str(eph)
    requests.update(scalars or {})
    return make_container(name, requests=requests)


def rpod(*containers, init=(), name: str = "p", node: str = "", **kw):
    return make_pod(name, containers=list(containers), init_containers=list(init), node_name=node, **kw)


def on_node(*containers, node: str = "node", name: str = "existing", **kw):
    return rpod(*containers, name=name, node=node, **kw)


def go_node(name: str = "node", milli_cpu=10, memory=20, pods=32, ext_a=5, storage=20, huge_a=5):
    """`makeAllocatableResources(milliCPU, memory, pods, extendedA, storage, hugePageA)`."""
    return make_node(name, cpu=f"{milli_cpu}m", memory=str(memory), pods=str(pods),
                     allocatable={EXT_A: str(ext_a), "ephemeral-storage": str(storage), HUGE_A: str(huge_a)})


def run_filter(pod, node, bound=(), args=None):
    snap = Snapshot.build(Cluster(nodes=[node]), list(bound))
    plugin = NodeResourcesFit(plugin_args(NodeResourcesFit.name, args), Handle(snap))
    info = PodInfo.of(pod)
    state = CycleState()
    _, status = plugin.pre_filter(state, info, snap.node_infos)
    assert status is None or status.code == Code.SUCCESS
    status = filter_node(plugin, state, info, snap.by_name[node.name])
    return None if status is None else (status.code, status.reasons)


# Filter: ported from TestEnoughRequests (node 10m cpu, 20 B memory, 32 pods, 5 example.com/aaa,
# 20 B ephemeral storage, 5 hugepages-2Mi; one existing pod) -----------------------------------

ENOUGH = [
    pytest.param(rpod(), [on_node(ctr(10, 20))], None, None,
                 id="a pod requesting no resources always fits"),
    pytest.param(rpod(ctr(1, 1)), [on_node(ctr(10, 20))], None, (U, (CPU, MEM)),
                 id="a pod fails on cpu and memory when the node is full, reported in that order"),
    pytest.param(rpod(ctr(1, 1), init=[ctr(3, 1)]), [on_node(ctr(8, 19))], None, (U, (CPU,)),
                 id="an init container's cpu larger than the free cpu fails"),
    pytest.param(rpod(ctr(1, 1), init=[ctr(3, 1), ctr(2, 1)]), [on_node(ctr(8, 19))], None, (U, (CPU,)),
                 id="the largest init container's cpu is what must fit"),
    pytest.param(rpod(ctr(1, 1), init=[ctr(1, 3)]), [on_node(ctr(9, 19))], None, (U, (MEM,)),
                 id="an init container's memory larger than the free memory fails"),
    pytest.param(rpod(ctr(1, 1), init=[ctr(1, 3), ctr(1, 2)]), [on_node(ctr(9, 19))], None, (U, (MEM,)),
                 id="the largest init container's memory is what must fit"),
    pytest.param(rpod(ctr(1, 1), init=[ctr(1, 1)]), [on_node(ctr(9, 19))], None, None,
                 id="an init container fits because the max, not the sum, of containers and init containers counts"),
    pytest.param(rpod(ctr(1, 1), init=[ctr(1, 1), ctr(1, 1)]), [on_node(ctr(9, 19))], None, None,
                 id="several init containers fit because the max, not the sum, counts"),
    pytest.param(rpod(ctr(1, 1)), [on_node(ctr(5, 5))], None, None,
                 id="both resources fit"),
    pytest.param(rpod(ctr(2, 1)), [on_node(ctr(9, 5))], None, (U, (CPU,)),
                 id="memory fits but cpu does not"),
    pytest.param(rpod(ctr(1, 2)), [on_node(ctr(5, 19))], None, (U, (MEM,)),
                 id="cpu fits but memory does not"),
    pytest.param(rpod(ctr(5, 1)), [on_node(ctr(5, 19))], None, None,
                 id="a request exactly equal to the free amount fits"),
    pytest.param(rpod(ctr(4, 1), init=[ctr(5, 1)]), [on_node(ctr(5, 19))], None, None,
                 id="an init container request exactly equal to the free amount fits"),
    pytest.param(rpod(ctr(scalars={EXT_A: 1})), [on_node(ctr())], None, None,
                 id="an extended resource request within allocatable fits"),
    pytest.param(rpod(ctr(), init=[ctr(scalars={EXT_A: 1})]), [on_node(ctr())], None, None,
                 id="an init container's extended resource request within allocatable fits"),
    # 10 > allocatable 5 → unresolvable in 1.34
    pytest.param(rpod(ctr(1, 1, scalars={EXT_A: 10})), [on_node(ctr(scalars={EXT_A: 0}))], None,
                 (UU, (insufficient(EXT_A),)),
                 id="an extended resource request above the node's allocatable is unresolvable"),
    pytest.param(rpod(ctr(), init=[ctr(1, 1, scalars={EXT_A: 10})]), [on_node(ctr(scalars={EXT_A: 0}))], None,
                 (UU, (insufficient(EXT_A),)),
                 id="an init container's extended resource above allocatable is unresolvable"),
    # 1 > 5 - 5 but 1 <= 5 → resolvable
    pytest.param(rpod(ctr(1, 1, scalars={EXT_A: 1})), [on_node(ctr(scalars={EXT_A: 5}))], None,
                 (U, (insufficient(EXT_A),)),
                 id="an extended resource used up by other pods is insufficient but resolvable"),
    pytest.param(rpod(ctr(), init=[ctr(1, 1, scalars={EXT_A: 1})]), [on_node(ctr(scalars={EXT_A: 5}))], None,
                 (U, (insufficient(EXT_A),)),
                 id="an init container's extended resource used up by other pods is resolvable"),
    # 3 + 3 = 6 > 5 - 2, and 6 > 5 → unresolvable
    pytest.param(rpod(ctr(1, 1, scalars={EXT_A: 3}, name="a"), ctr(1, 1, scalars={EXT_A: 3}, name="b")),
                 [on_node(ctr(scalars={EXT_A: 2}))], None, (UU, (insufficient(EXT_A),)),
                 id="extended resource requests of several containers are summed"),
    pytest.param(rpod(ctr(), init=[ctr(1, 1, scalars={EXT_A: 3}, name="a"), ctr(1, 1, scalars={EXT_A: 3}, name="b")]),
                 [on_node(ctr(scalars={EXT_A: 2}))], None, None,
                 id="extended resource requests of several init containers are not summed"),
    pytest.param(rpod(ctr(), init=[ctr(1, 1, scalars={EXT_A: 6}, name="a"), ctr(1, 1, scalars={EXT_A: 3}, name="b")]),
                 [on_node(ctr(scalars={EXT_A: 2}))], None, (UU, (insufficient(EXT_A),)),
                 id="the largest init container's extended resource must fit"),
    pytest.param(rpod(ctr(1, 1, scalars={EXT_B: 1})), [on_node(ctr())], None, (UU, (insufficient(EXT_B),)),
                 id="an extended resource the node doesn't have counts as allocatable 0"),
    pytest.param(rpod(ctr(), init=[ctr(1, 1, scalars={EXT_B: 1})]), [on_node(ctr())], None,
                 (UU, (insufficient(EXT_B),)),
                 id="an init container's extended resource the node doesn't have counts as allocatable 0"),
    pytest.param(rpod(ctr(1, 1, scalars={K8S_A: 10})), [on_node(ctr())], None, (UU, (insufficient(K8S_A),)),
                 id="a kubernetes.io prefixed resource is enforced"),
    pytest.param(rpod(ctr(), init=[ctr(1, 1, scalars={K8S_B: 10})]), [on_node(ctr())], None,
                 (UU, (insufficient(K8S_B),)),
                 id="a subdomain.kubernetes.io prefixed resource is enforced for init containers"),
    pytest.param(rpod(ctr(1, 1, scalars={HUGE_A: 10})), [on_node(ctr(scalars={HUGE_A: 0}))], None,
                 (UU, (insufficient(HUGE_A),)),
                 id="a hugepages request above allocatable is unresolvable"),
    pytest.param(rpod(ctr(), init=[ctr(1, 1, scalars={HUGE_A: 10})]), [on_node(ctr(scalars={HUGE_A: 0}))], None,
                 (UU, (insufficient(HUGE_A),)),
                 id="an init container's hugepages request above allocatable is unresolvable"),
    pytest.param(rpod(ctr(1, 1, scalars={HUGE_A: 3}, name="a"), ctr(1, 1, scalars={HUGE_A: 3}, name="b")),
                 [on_node(ctr(scalars={HUGE_A: 2}))], None, (UU, (insufficient(HUGE_A),)),
                 id="hugepages requests of several containers are summed"),
    pytest.param(rpod(ctr(1, 1, scalars={EXT_B: 1})), [on_node(ctr())], {"ignoredResources": [EXT_B]}, None,
                 id="an extended resource listed in ignoredResources is not checked"),
    pytest.param(rpod(ctr(1, 1), overhead={"cpu": "3m", "memory": "13"}), [on_node(ctr(5, 5))], None, None,
                 id="requests plus pod overhead that fit"),
    # memory 1 + 15 = 16 > 20 - 5, and 16 <= 20
    pytest.param(rpod(ctr(1, 1), overhead={"cpu": "1m", "memory": "15"}), [on_node(ctr(5, 5))], None, (U, (MEM,)),
                 id="requests plus pod overhead that don't fit in memory"),
    pytest.param(rpod(ctr(1, 1, scalars={EXT_B: 1, K8S_A: 1})), [on_node(ctr())],
                 {"ignoredResourceGroups": ["example.com"]}, (UU, (insufficient(K8S_A),)),
                 id="ignoredResourceGroups skips the extended resources of that group only"),
    pytest.param(rpod(ctr(1, 1, scalars={EXT_A: 0})), [on_node(ctr(scalars={EXT_A: 6}))], None, None,
                 id="an extended resource requested with quantity zero is not checked"),
    pytest.param(rpod(ctr(scalars={EXT_A: 1})), [on_node(ctr(20, 30, scalars={EXT_A: 1}))], None, None,
                 id="cpu and memory requested as zero are not checked even on an overcommitted node"),
]


@pytest.mark.parametrize("pod, bound, args, expected", ENOUGH)
def test_enough_requests(pod, bound, args, expected):
    assert run_filter(pod, go_node(), bound, args) == expected


# Filter: ported from TestNotEnoughRequests (same node but 1 allowed pod and 0 extended) ----------

NOT_ENOUGH = [
    pytest.param(rpod(), ctr(10, 20), (U, (PODS,)),
                 id="even a pod requesting nothing fails with Too many pods when the pod count is reached"),
    pytest.param(rpod(ctr(1, 1)), ctr(5, 5), (U, (PODS,)),
                 id="Too many pods although cpu and memory fit"),
    pytest.param(rpod(ctr(5, 1)), ctr(5, 19), (U, (PODS,)),
                 id="Too many pods in the equal edge case"),
    pytest.param(rpod(ctr(5, 1), init=[ctr(5, 1)]), ctr(5, 19), (U, (PODS,)),
                 id="Too many pods in the equal edge case with an init container"),
    # reference §5.6: Too many pods comes first and never makes the status unresolvable itself
    pytest.param(rpod(ctr(6, 1)), ctr(5, 19), (U, (PODS, CPU)),
                 id="Too many pods is listed before a resolvable cpu shortage"),
    pytest.param(rpod(ctr(11, 1)), ctr(5, 19), (UU, (PODS, CPU)),
                 id="a cpu request above allocatable makes Too many pods plus cpu unresolvable"),
]


@pytest.mark.parametrize("pod, existing_container, expected", NOT_ENOUGH)
def test_not_enough_requests(pod, existing_container, expected):
    node = go_node(pods=1, ext_a=0, storage=0, huge_a=0)
    assert run_filter(pod, node, [on_node(existing_container)]) == expected


# Filter: ported from TestStorageRequests ---------------------------------------------------------

STORAGE = [
    pytest.param(rpod(ctr(1, 1)), ctr(2, 10), None,
                 id="no ephemeral storage requested and the pod fits"),
    # 25 > allocatable 20 → unresolvable in 1.34
    pytest.param(rpod(ctr(eph=25)), ctr(2, 2), (UU, (EPH,)),
                 id="an ephemeral storage request above allocatable is unresolvable"),
    pytest.param(rpod(ctr(eph=5)), ctr(2, 2, eph=10), None,
                 id="ephemeral storage within what is left fits"),
    pytest.param(rpod(ctr(eph=10)), ctr(2, 2), None,
                 id="ephemeral storage request fits"),
    # reference §5.6: 15 > 20 - 10 but 15 <= 20
    pytest.param(rpod(ctr(eph=15)), ctr(2, 2, eph=10), (U, (EPH,)),
                 id="ephemeral storage taken by other pods is a resolvable shortage"),
]


@pytest.mark.parametrize("pod, existing_container, expected", STORAGE)
def test_storage_requests(pod, existing_container, expected):
    assert run_filter(pod, go_node(), [on_node(existing_container)]) == expected


# Filter: the pod vector of §4.2 / §4.7 and the rules of §4.5, §4.6, §5.6 ----------------------

def c(name="c", **kw):
    return make_container(name, **kw)


def bound_cpu(cpu: str, node: str = "n", name: str = "existing", **kw):
    return make_pod(name, cpu=cpu, node_name=node, **kw)


def sidecar_pod():
    """§4.2 example: containers {cpu 500m}; init [sidecar {cpu 200m}, job {cpu 1}] → 1200m."""
    return make_pod("p", containers=[c(cpu="500m")],
                    init_containers=[make_sidecar("sidecar", cpu="200m"), c("job", cpu="1")])


def example_4_2_pod():
    """§4.2 example: C1 {2, 1G}, C2 {1, 1G}; IC1 {2, 1G}, IC2 {2, 3G} → cpu 3000m, memory 3G."""
    return make_pod("p", containers=[c("c1", cpu="2", memory="1G"), c("c2", cpu="1", memory="1G")],
                    init_containers=[c("ic1", cpu="2", memory="1G"), c("ic2", cpu="2", memory="3G")])


VECTOR = [
    pytest.param(sidecar_pod(), make_node("n", cpu="2"), [bound_cpu("850m")], (U, (CPU,)),
                 id="a sidecar adds to the containers and to later init candidates: 1200m > 1150m free"),
    pytest.param(sidecar_pod(), make_node("n", cpu="2"), [bound_cpu("800m")], None,
                 id="the sidecar pod needs exactly 1200m and fits in 1200m free"),
    pytest.param(make_pod("p", containers=[c(cpu="500m")],
                          init_containers=[c("job", cpu="1"), make_sidecar("sidecar", cpu="200m")]),
                 make_node("n", cpu="2"), [bound_cpu("1001m")], (U, (CPU,)),
                 # R = 700m; candidates: job 1000m (no sidecar before it), sidecar 200m → max 1000m > 999m
                 id="a sidecar declared after a regular init container is not added to that container's candidate"),
    pytest.param(make_pod("p", containers=[c(cpu="500m")],
                          init_containers=[c("job", cpu="1"), make_sidecar("sidecar", cpu="200m")]),
                 make_node("n", cpu="2"), [bound_cpu("1")], None,
                 id="the init-then-sidecar pod needs 1000m and fits in 1000m free"),
    pytest.param(example_4_2_pod(), make_node("n", cpu="4", memory="4G"),
                 [make_pod("existing", cpu="1001m", memory="1G", node_name="n")], (U, (CPU,)),
                 id="max of summed containers and largest init container: cpu 3000m > 2999m free"),
    pytest.param(example_4_2_pod(), make_node("n", cpu="4", memory="4G"),
                 [make_pod("existing", cpu="1", memory="1000000001", node_name="n")], (U, (MEM,)),
                 id="max of summed containers and largest init container: memory 3G > 3G - 1 free"),
    pytest.param(example_4_2_pod(), make_node("n", cpu="4", memory="4G"),
                 [make_pod("existing", cpu="1", memory="1G", node_name="n")], None,
                 id="the 4.2 example pod needs exactly 3000m and 3G"),
    pytest.param(make_pod("p", containers=[c(cpu="500m")], pod_requests={"cpu": "2", "memory": "1Gi"}),
                 make_node("n", cpu="4", memory="8Gi"), [bound_cpu("2001m")], (U, (CPU,)),
                 id="pod-level requests replace the containers' cpu in the Filter vector"),
    pytest.param(make_pod("p", containers=[c(cpu="500m")], pod_requests={"cpu": "2", "memory": "1Gi"}),
                 make_node("n", cpu="4", memory="8Gi"), [bound_cpu("2")], None,
                 id="the pod-level cpu request of 2 fits in 2000m free"),
    pytest.param(make_pod("p", containers=[c(cpu="500m", memory="2Gi")], pod_requests={"memory": "1Gi"}),
                 make_node("n", cpu="1", memory="1536Mi"), [], None,
                 id="pod-level memory replaces only memory and the container cpu still counts"),
    pytest.param(make_pod("p", containers=[c(cpu="1500m", memory="2Gi")], pod_requests={"memory": "1Gi"}),
                 make_node("n", cpu="1", memory="1536Mi"), [], (UU, (CPU,)),
                 id="names absent at pod level keep the aggregated container value"),
    pytest.param(make_pod("p", containers=[c(requests={HUGE_A: "4Mi"})], pod_requests={HUGE_A: "2Mi"}),
                 make_node("n", allocatable={HUGE_A: "2Mi"}), [], None,
                 id="pod-level hugepages replace the containers' hugepages"),
    pytest.param(make_pod("p", containers=[c(requests={"ephemeral-storage": "2Gi"})],
                          pod_requests={"ephemeral-storage": "1Gi"}),
                 make_node("n", allocatable={"ephemeral-storage": "1536Mi"}), [], (UU, (EPH,)),
                 id="pod-level requests of an unsupported name like ephemeral-storage are ignored"),
    pytest.param(make_pod("p", containers=[c(cpu="100m")], pod_requests={"cpu": "1"}, overhead={"cpu": "250m"}),
                 make_node("n", cpu="1250m"), [], None,
                 id="overhead is added after the pod-level replacement: 1000m + 250m fits in 1250m"),
    pytest.param(make_pod("p", containers=[c(cpu="100m")], pod_requests={"cpu": "1"}, overhead={"cpu": "250m"}),
                 make_node("n", cpu="1249m"), [], (UU, (CPU,)),
                 id="overhead after the pod-level replacement: 1250m does not fit in 1249m"),
    pytest.param(make_pod("p", cpu="2500m"), make_node("n", cpu="4"),
                 [make_pod("existing", cpu="1", node_name="n", container_statuses=(
                     make_status("c", requests={"cpu": "2"}, allocated={"cpu": "2"}),))],
                 (U, (CPU,)),
                 id="a bound pod's status resources larger than its spec count in the node aggregate"),
    pytest.param(make_pod("p", cpu="2500m"), make_node("n", cpu="4"),
                 [make_pod("existing", cpu="3", node_name="n", conditions=(resize_infeasible(),),
                           container_statuses=(make_status("c", requests={"cpu": "1"}, allocated={"cpu": "1"}),))],
                 None,
                 id="an infeasible resize leaves the bound pod's spec requests out of the aggregate"),
    pytest.param(make_pod("p", cpu="2500m"), make_node("n", cpu="4"),
                 [make_pod("existing", cpu="2", node_name="n", container_statuses=(
                     make_status("c", requests={"cpu": "1"}, allocated={"cpu": "1"}),))],
                 (U, (CPU,)),
                 # max(spec 2, status 1, allocated 1) = 2000m → 2500m > 2000m free
                 id="a bound pod's status resources smaller than its spec leave the spec in the aggregate"),
    pytest.param(make_pod("p", cpu="2500m"), make_node("n", cpu="4"),
                 [make_pod("existing", cpu="2", node_name="n", container_statuses=(make_status("c"),))],
                 (U, (CPU,)),
                 id="a status entry with null resources leaves the spec requests"),
    pytest.param(make_pod("p", cpu="2600m"), make_node("n", cpu="4"),
                 [make_pod("existing", containers=[c(cpu="500m")], node_name="n",
                           init_containers=[make_sidecar("s", cpu="100m")],
                           init_container_statuses=(make_status("s", requests={"cpu": "1"}),))],
                 (U, (CPU,)),
                 # sidecar effective 1000m: R = 500m + 1000m = 1500m → 2600m > 2500m free
                 id="a bound pod's sidecar status resources count in the aggregate"),
    pytest.param(make_pod("p", cpu="3500m"), make_node("n", cpu="4"),
                 [make_pod("existing", containers=[c(cpu="500m")], node_name="n",
                           init_containers=[c("job", cpu="100m")],
                           init_container_statuses=(make_status("job", requests={"cpu": "3"}),))],
                 None,
                 # regular init container statuses are ignored: R = max(500m, 100m) = 500m → 3500m fits
                 id="a bound pod's regular init container status resources are ignored"),
    pytest.param(make_pod("p", cpu="1", container_statuses=(make_status("c", requests={"cpu": "5"}),)),
                 make_node("n", cpu="4"), [], None,
                 id="the incoming pod's own status resources are ignored by the Filter vector"),
    pytest.param(make_pod("p", containers=[c(requests={"foo": "1", "storage": "10Gi"})]),
                 make_node("n"), [], None,
                 id="resource names that are not scalar resources are ignored"),
    pytest.param(make_pod("p", memory="1Gi"), make_node("n", cpu="1"), [bound_cpu("2")], None,
                 id="a pod requesting no cpu is not rejected for cpu on an overcommitted node"),
    pytest.param(make_pod("p", cpu="100m"), make_node("n", pods=None), [], (U, (PODS,)),
                 id="a node without a pods allocatable entry admits no pod"),
    pytest.param(make_pod("p", cpu="5", memory="16Gi"), make_node("n", cpu="4", memory="8Gi"),
                 [bound_cpu("1")], (UU, (CPU, MEM)),
                 id="one unresolvable item makes the whole status unresolvable"),
    pytest.param(make_pod("p", cpu="5", memory="1Gi"), make_node("n", cpu="4", memory="8Gi"),
                 [make_pod("existing", memory="7680Mi", node_name="n")], (UU, (CPU, MEM)),
                 id="a status mixing an unresolvable cpu with a resolvable memory shortage is unresolvable"),
    pytest.param(make_pod("p", containers=[c(requests={"nvidia.com/gpu": "1", HUGE_A: "4Mi"})]),
                 make_node("n", allocatable={"nvidia.com/gpu": "1", HUGE_A: "2Mi"}),
                 [make_pod("existing", containers=[c(requests={"nvidia.com/gpu": "1"})], node_name="n")],
                 # gpu 1 > 1 - 1 (resolvable), hugepages 4Mi > 2Mi (unresolvable); the order of scalar
                 # reasons is Go map order (§5.6), so the expected reasons are compared as a set
                 (UU, {insufficient("nvidia.com/gpu"), insufficient(HUGE_A)}),
                 id="every failing scalar resource gets its own reason"),
]


@pytest.mark.parametrize("pod, node, bound, expected", VECTOR)
def test_filter_pod_vector(pod, node, bound, expected):
    got = run_filter(pod, node, bound)
    if expected is not None and isinstance(expected[1], set):
        assert got is not None and len(got[1]) == len(expected[1])
        got = (got[0], set(got[1]))
    assert got == expected


IGNORED = [
    pytest.param({"ignoredResources": [HUGE_A]}, {HUGE_A: 10}, (UU, (insufficient(HUGE_A),)),
                 id="ignoredResources does not apply to hugepages, which are not extended resources"),
    pytest.param({"ignoredResourceGroups": ["kubernetes.io"]}, {K8S_A: 1}, (UU, (insufficient(K8S_A),)),
                 id="ignoredResourceGroups does not apply to kubernetes.io prefixed native resources"),
    pytest.param({"ignoredResourceGroups": ["example.com"]}, {EXT_A: 10}, None,
                 id="ignoredResourceGroups skips every resource of the group"),
    pytest.param({"ignoredResources": [EXT_B]}, {EXT_A: 10}, (UU, (insufficient(EXT_A),)),
                 id="ignoredResources skips only the named resource"),
    pytest.param({"ignoredResourceGroups": ["example"]}, {EXT_A: 10}, (UU, (insufficient(EXT_A),)),
                 id="an ignored group must equal the whole prefix before the slash"),
]


@pytest.mark.parametrize("args, scalars, expected", IGNORED)
def test_ignored_resources(args, scalars, expected):
    assert run_filter(rpod(ctr(1, 1, scalars=scalars)), go_node(), [], args) == expected


# Scoring --------------------------------------------------------------------------------------

DEFAULT_RES = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
EXTENDED_RES = "abc.com/xyz"
EXTENDED_SET = DEFAULT_RES + [{"name": EXTENDED_RES, "weight": 1}]


def req(cpu: str, memory: str, name: str = "c", **extra):
    requests = {"cpu": cpu, "memory": memory}
    requests.update({k.replace("__", "/").replace("_", "."): v for k, v in extra.items()})
    return make_container(name, requests=requests)


def scores(args, pod, nodes, bound=()):
    snap = Snapshot.build(Cluster(nodes=list(nodes)), list(bound))
    plugin = NodeResourcesFit(plugin_args(NodeResourcesFit.name, args), Handle(snap))
    info = PodInfo.of(pod)
    state = CycleState()
    infos = [snap.by_name[n.name] for n in nodes]
    assert plugin.pre_score(state, info, infos) is None
    return score_nodes(plugin, state, info, infos)


def strategy(kind, resources=None, shape=None):
    s: dict[str, Any] = {"type": kind, "resources": resources if resources is not None else DEFAULT_RES}
    if shape is not None:
        s["requestedToCapacityRatio"] = {"shape": [{"utilization": u, "score": v} for u, v in shape]}
    return {"scoringStrategy": s}


def cap(name, cpu, memory, **extra):
    return make_node(name, cpu=cpu, memory=memory, allocatable={k: v for k, v in extra.items()})


def empty_pod(name="p", node=""):
    return make_pod(name, containers=[], node_name=node)


def two_container_pod():
    return make_pod("p", containers=[req("1000", "2000", "a"), req("2000", "3000", "b")])


LEAST = [
    # (resources, pod, nodes, bound, expected) — ported from TestLeastAllocatedScoringStrategy
    pytest.param(None, empty_pod(), [cap("node1", "4000", "10000"), cap("node2", "4000", "10000")], [],
                 {"node1": 100, "node2": 100},
                 id="least allocated: nothing scheduled and nothing requested scores 100"),
    pytest.param(None, two_container_pod(), [cap("node1", "4000", "10000"), cap("node2", "6000", "10000")], [],
                 # node1: cpu (4000-3000)*100/4000 = 25, mem 50 → 37; node2: 50, 50 → 50
                 {"node1": 37, "node2": 50},
                 id="least allocated: requests on differently sized empty nodes"),
    pytest.param(None, empty_pod(), [cap("node1", "4000", "10000"), cap("node2", "4000", "10000")],
                 [empty_pod("e1", "node1"), empty_pod("e2", "node1"), empty_pod("e3", "node2"), empty_pod("e4", "node2")],
                 {"node1": 100, "node2": 100},
                 id="least allocated: pods without containers add nothing"),
    pytest.param(None, empty_pod(), [cap("node1", "10000", "20000"), cap("node2", "10000", "20000")],
                 [make_pod("e1", containers=[req("3000", "0")], node_name="node1"),
                  make_pod("e2", containers=[req("3000", "0")], node_name="node1"),
                  make_pod("e3", containers=[req("3000", "0")], node_name="node2"),
                  make_pod("e4", containers=[req("3000", "5000")], node_name="node2")],
                 # node1: cpu 40, mem 100 → 70; node2: cpu 40, mem 75 → 57
                 {"node1": 70, "node2": 57},
                 id="least allocated: nothing requested on nodes with requesting pods"),
    pytest.param(None, two_container_pod(), [cap("node1", "10000", "20000"), cap("node2", "10000", "20000")],
                 [make_pod("e1", containers=[req("3000", "0")], node_name="node1"),
                  make_pod("e2", containers=[req("3000", "5000")], node_name="node2")],
                 {"node1": 57, "node2": 45},
                 id="least allocated: requests on nodes with requesting pods"),
    pytest.param(None, two_container_pod(), [cap("node1", "10000", "20000"), cap("node2", "10000", "50000")],
                 [make_pod("e1", containers=[req("3000", "0")], node_name="node1"),
                  make_pod("e2", containers=[req("3000", "5000")], node_name="node2")],
                 {"node1": 57, "node2": 60},
                 id="least allocated: requests on differently sized nodes with requesting pods"),
    pytest.param(None, make_pod("p", containers=[req("3000", "0")]),
                 [cap("node1", "4000", "10000"), cap("node2", "4000", "10000")],
                 [make_pod("e1", containers=[req("3000", "0")], node_name="node1"),
                  make_pod("e2", containers=[req("3000", "5000")], node_name="node2")],
                 # cpu 6000 > 4000 → 0; node1 mem 100 → 50; node2 mem 50 → 25
                 {"node1": 50, "node2": 25},
                 id="least allocated: a resource requested beyond capacity scores 0"),
    pytest.param(None, empty_pod(), [make_node("node1", cpu=None, memory=None), make_node("node2", cpu=None, memory=None)],
                 [make_pod("e1", containers=[req("3000", "0")], node_name="node1"),
                  make_pod("e2", containers=[req("3000", "5000")], node_name="node2")],
                 {"node1": 0, "node2": 0},
                 id="least allocated: nodes without cpu and memory allocatable score 0"),
    pytest.param([{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}], two_container_pod(),
                 [cap("node1", "4000", "10000"), cap("node2", "6000", "10000")], [],
                 # node1: (25*1 + 50*2) div 3 = 41; node2: 50
                 {"node1": 41, "node2": 50},
                 id="least allocated: resource weights make a weighted average"),
    pytest.param(EXTENDED_SET, two_container_pod(),
                 [cap("node1", "6000", "10000"), cap("node2", "6000", "10000", **{EXTENDED_RES: "4"})], [],
                 {"node1": 50, "node2": 50},
                 id="least allocated: an extended resource the pod doesn't request is left out"),
    pytest.param(EXTENDED_SET, make_pod("p", containers=[make_container("c", requests={
                     "cpu": "3000", "memory": "5000", EXTENDED_RES: "2"})]),
                 [cap("node1", "6000", "10000", **{EXTENDED_RES: "4"}),
                  cap("node2", "6000", "10000", **{EXTENDED_RES: "10"})], [],
                 # node1: (50+50+50) div 3 = 50; node2: (50+50+80) div 3 = 60
                 {"node1": 50, "node2": 60},
                 id="least allocated: an extended resource the pod requests is scored"),
    pytest.param([{"name": EXTENDED_RES, "weight": 2}, {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
                 make_pod("p", containers=[req("3000", "4000")]),
                 [cap("node1", "6000", "10000"), cap("node2", "6000", "10000", **{EXTENDED_RES: "4"})], [],
                 # (50 + 60) div 2 = 55 on both
                 {"node1": 55, "node2": 55},
                 id="least allocated: a resource the node doesn't have is left out"),
    # --- reference §6.4 ---
    pytest.param(None, make_pod("p", cpu="500m", memory="1Gi"), [make_node("n", cpu="4000m", memory="8Gi")],
                 [make_pod("e", cpu="1", memory="2Gi", node_name="n")],
                 # cpu (4000-1500)*100 div 4000 = 62; memory 5/8 → 62; (62+62) div 2 = 62
                 {"n": 62},
                 id="least allocated: the reference example scores 62"),
    pytest.param(None, make_pod("p", containers=[make_container("c", cpu="500m")],
                                pod_requests={"cpu": "2", "memory": "1Gi"}),
                 [make_node("n", cpu="4000m", memory="8Gi")], [],
                 # 500m and the 200Mi default: cpu 87, memory (8589934592-209715200)*100 div 8589934592 = 97 → 92
                 {"n": 92},
                 id="least allocated: scoring ignores pod-level requests and uses non-zero defaults (v1.34.1 quirk)"),
    pytest.param(None, make_pod("p", containers=[make_container("c")]), [make_node("n", cpu="1", memory="1000Mi")],
                 [make_pod("e", containers=[make_container("c")], node_name="n")],
                 # non-zero: node 100m/200Mi + pod 100m/200Mi → cpu (1000-200)*100 div 1000 = 80,
                 # memory (1000-400)*100 div 1000 = 60 → 70
                 {"n": 70},
                 id="least allocated: request-less containers count as 100m cpu and 200Mi memory"),
    pytest.param(None, make_pod("p", containers=[make_container("c", cpu="0", memory="0")]),
                 [make_node("n", cpu="1", memory="1000Mi")], [],
                 {"n": 100},
                 id="least allocated: explicit zero requests stay zero"),
    pytest.param(None, make_pod("p", containers=[make_container("c")], overhead={"cpu": "250m"}),
                 [make_node("n", cpu="1", memory="1000Mi")], [],
                 # §4.3 example: non-zero cpu 350m, memory 200Mi → cpu 65, memory 80 → 72
                 {"n": 72},
                 id="least allocated: overhead adds to the non-zero cpu default"),
    # node NonZeroRequested of bound pods with pod-level requests (§4.3; cases of kubernetes
    # types_test.go TestPodInfoCalculateResources): the aggregate honours pod-level requests
    pytest.param(None, make_pod("p", cpu="500m", memory="1Gi"), [make_node("n", cpu="4", memory="8Gi")],
                 [make_pod("e", containers=[make_container("c", cpu="500m")], pod_requests={"cpu": "2", "memory": "1Gi"},
                           node_name="n")],
                 # bound non-zero 2000m / 1Gi: cpu (4000-2500)*100 div 4000 = 37, memory (8-2)/8 → 75 → 56
                 {"n": 56},
                 id="least allocated: a bound pod's pod-level requests count in the node's non-zero aggregate"),
    pytest.param(None, make_pod("p", containers=[make_container("c", cpu="0", memory="0")]),
                 [make_node("n", cpu="1", memory="2400Mi")],
                 [make_pod("e", containers=[make_container("c")], init_containers=[make_container("i")],
                           pod_requests={"memory": "1200Mi"}, node_name="n")],
                 # bound: cpu absent from R → default 100m; memory 1200Mi → cpu 90, memory 50 → 70
                 {"n": 70},
                 id="least allocated: a bound pod with only pod-level memory gets the cpu default"),
    pytest.param(None, make_pod("p", containers=[make_container("c", cpu="0", memory="0")]),
                 [make_node("n", cpu="1", memory="1000Mi")],
                 [make_pod("e", containers=[make_container("c", requests={"ephemeral-storage": "800Mi"})],
                           init_containers=[make_container("i", requests={"ephemeral-storage": "500Mi"})],
                           pod_requests={"cpu": "500m"}, node_name="n")],
                 # bound: cpu 500m, memory absent → 200Mi default → cpu 50, memory 80 → 65
                 {"n": 65},
                 id="least allocated: a bound pod with only pod-level cpu gets the memory default"),
    pytest.param([{"name": "cpu", "weight": 0}, {"name": "memory", "weight": 0}], two_container_pod(),
                 [cap("node1", "4000", "10000"), cap("node2", "6000", "10000")], [],
                 {"node1": 37, "node2": 50},
                 id="least allocated: a resource weight of 0 is replaced by 1"),
]


@pytest.mark.parametrize("resources, pod, nodes, bound, expected", LEAST)
def test_least_allocated(resources, pod, nodes, bound, expected):
    args = strategy("LeastAllocated", resources)
    assert scores(args, pod, nodes, bound) == expected


def test_default_strategy_is_least_allocated_over_cpu_and_memory():
    """§1.4: no args means LeastAllocated with cpu and memory weight 1 (the §6.4 example, 62)."""
    got = scores(None, make_pod("p", cpu="500m", memory="1Gi"), [make_node("n", cpu="4000m", memory="8Gi")],
                 [make_pod("e", cpu="1", memory="2Gi", node_name="n")])
    assert got == {"n": 62}


MOST = [
    # ported from TestMostAllocatedScoringStrategy
    pytest.param(None, empty_pod(), [cap("node1", "4000", "10000"), cap("node2", "4000", "10000")], [],
                 {"node1": 0, "node2": 0},
                 id="most allocated: nothing scheduled and nothing requested scores 0"),
    pytest.param(None, two_container_pod(), [cap("node1", "4000", "10000"), cap("node2", "6000", "10000")], [],
                 # node1: cpu 75, mem 50 → 62; node2: 50, 50 → 50
                 {"node1": 62, "node2": 50},
                 id="most allocated: requests on differently sized empty nodes"),
    pytest.param(None, empty_pod(), [cap("node1", "10000", "20000"), cap("node2", "10000", "20000")],
                 [make_pod("e1", containers=[req("3000", "0")], node_name="node1"),
                  make_pod("e2", containers=[req("3000", "0")], node_name="node1"),
                  make_pod("e3", containers=[req("3000", "0")], node_name="node2"),
                  make_pod("e4", containers=[req("3000", "5000")], node_name="node2")],
                 {"node1": 30, "node2": 42},
                 id="most allocated: nothing requested on nodes with requesting pods"),
    pytest.param(None, two_container_pod(), [cap("node1", "10000", "20000"), cap("node2", "10000", "20000")],
                 [make_pod("e1", containers=[req("3000", "0")], node_name="node1"),
                  make_pod("e2", containers=[req("3000", "5000")], node_name="node2")],
                 {"node1": 42, "node2": 55},
                 id="most allocated: requests on nodes with requesting pods"),
    pytest.param(None, make_pod("p", containers=[req("2000", "4000", "a"), req("3000", "5000", "b")]),
                 [cap("node1", "5000", "10000"), cap("node2", "10000", "9000")], [],
                 # node1: 100, 90 → 95; node2: 50, 100 → 75
                 {"node1": 95, "node2": 75},
                 id="most allocated: requests equal to node capacity score 100 for that resource"),
    pytest.param([{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}], two_container_pod(),
                 [cap("node1", "4000", "10000"), cap("node2", "6000", "10000")], [],
                 # node1: (75 + 50*2) div 3 = 58
                 {"node1": 58, "node2": 50},
                 id="most allocated: resource weights make a weighted average"),
    pytest.param(None, make_pod("p", containers=[make_container("container")]),
                 [make_node("node1", cpu="250m", memory="1000Mi"), make_node("node2", cpu="250m", memory="1000Mi")],
                 [make_pod("e1", containers=[make_container("container")], node_name="node1"),
                  make_pod("e2", containers=[make_container("container")], node_name="node1")],
                 # node1: cpu min(300,250)/250 = 100, mem 600/1000 = 60 → 80; node2: 40, 20 → 30
                 {"node1": 80, "node2": 30},
                 id="most allocated: non-zero defaults apply to request-less containers and requests are capped"),
    pytest.param(EXTENDED_SET, two_container_pod(),
                 [cap("node1", "6000", "10000"), cap("node2", "6000", "10000", **{EXTENDED_RES: "4"})], [],
                 {"node1": 50, "node2": 50},
                 id="most allocated: an extended resource the pod doesn't request is left out"),
    pytest.param(EXTENDED_SET, make_pod("p", containers=[make_container("c", requests={
                     "cpu": "3000", "memory": "5000", EXTENDED_RES: "2"})]),
                 [cap("node1", "6000", "10000", **{EXTENDED_RES: "4"}),
                  cap("node2", "6000", "10000", **{EXTENDED_RES: "10"})], [],
                 # node2: (50+50+20) div 3 = 40
                 {"node1": 50, "node2": 40},
                 id="most allocated: an extended resource the pod requests is scored"),
    pytest.param([{"name": EXTENDED_RES, "weight": 2}, {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
                 make_pod("p", containers=[req("3000", "4000")]),
                 [cap("node1", "6000", "10000"), cap("node2", "6000", "10000", **{EXTENDED_RES: "4"})], [],
                 {"node1": 45, "node2": 45},
                 id="most allocated: a resource the node doesn't have is left out"),
]


@pytest.mark.parametrize("resources, pod, nodes, bound, expected", MOST)
def test_most_allocated(resources, pod, nodes, bound, expected):
    args = strategy("MostAllocated", resources)
    assert scores(args, pod, nodes, bound) == expected


FALLING = [(0, 10), (100, 0)]
REF_SHAPE = [(0, 0), (7, 9), (40, 3), (100, 7)]

RTC = [
    # ported from TestRequestedToCapacityRatioScoringStrategy (shape (0,10) (100,0))
    pytest.param(None, FALLING, empty_pod(), [cap("node1", "4000", "10000"), cap("node2", "4000", "10000")],
                 [empty_pod("e1", "node1"), empty_pod("e2", "node1")],
                 {"node1": 100, "node2": 100},
                 id="requested to capacity ratio: nothing requested on a falling shape scores 100"),
    pytest.param(None, FALLING, two_container_pod(), [cap("node1", "4000", "10000"), cap("node2", "6000", "10000")],
                 [empty_pod("e1", "node1"), empty_pod("e2", "node1")],
                 # node1: cpu p 75 → 25, mem p 50 → 50, 37.5 rounds half away → 38; node2: 50, 50 → 50
                 {"node1": 38, "node2": 50},
                 id="requested to capacity ratio: requests on differently sized nodes, 37.5 rounds to 38"),
    pytest.param(None, FALLING, empty_pod(), [cap("node1", "4000", "10000"), cap("node2", "6000", "10000")],
                 [make_pod("e1", containers=[req("3000", "5000")], node_name="node1"),
                  make_pod("e2", containers=[req("3000", "5000")], node_name="node2")],
                 {"node1": 38, "node2": 50},
                 id="requested to capacity ratio: pods scheduled with resources"),
    # ported from TestResourceBinPackingSingleExtended (shape (0,0) (100,1), intel.com/foo weight 1)
    pytest.param([{"name": "intel.com/foo", "weight": 1}], [(0, 0), (100, 1)], empty_pod(),
                 [cap("node1", "4", "10000Mi", **{"intel.com/foo": "8"}),
                  cap("node2", "4", "10000Mi", **{"intel.com/foo": "4"})], [],
                 {"node1": 0, "node2": 0},
                 id="requested to capacity ratio: an extended resource not requested is left out and scores 0"),
    pytest.param([{"name": "intel.com/foo", "weight": 1}], [(0, 0), (100, 1)],
                 make_pod("p", containers=[make_container("c", requests={"intel.com/foo": "2"})]),
                 [cap("node1", "4", "10000Mi", **{"intel.com/foo": "8"}),
                  cap("node2", "4", "10000Mi", **{"intel.com/foo": "4"})], [],
                 # node1 p 25 → 0 + 10*25 div 100 = 2; node2 p 50 → 5
                 {"node1": 2, "node2": 5},
                 id="requested to capacity ratio: an extended resource bin-packs by utilization"),
    pytest.param([{"name": "intel.com/foo", "weight": 1}], [(0, 0), (100, 1)],
                 make_pod("p", containers=[make_container("c", requests={"intel.com/foo": "2"})]),
                 [cap("node1", "4", "10000Mi", **{"intel.com/foo": "8"}),
                  cap("node2", "4", "10000Mi", **{"intel.com/foo": "4"})],
                 [make_pod("e", containers=[make_container("c", requests={"intel.com/foo": "2"})], node_name="node2")],
                 {"node1": 2, "node2": 10},
                 id="requested to capacity ratio: an extended resource already used on the node counts"),
    pytest.param([{"name": "intel.com/foo", "weight": 1}], [(0, 0), (100, 1)],
                 make_pod("p", containers=[make_container("c", requests={"intel.com/foo": "4"})]),
                 [cap("node1", "4", "10000Mi", **{"intel.com/foo": "8"}),
                  cap("node2", "4", "10000Mi", **{"intel.com/foo": "4"})], [],
                 {"node1": 5, "node2": 10},
                 id="requested to capacity ratio: a larger extended request scores higher"),
    # --- reference §6.4 worked examples ---
    pytest.param(None, REF_SHAPE, make_pod("p", cpu="900m", memory="750Mi"), [make_node("n", cpu="10", memory="10Gi")],
                 [],
                 # cpu p 9 → 90 + (-60*2) div 33 = 90 - 3 = 87; memory p 7 → 90; round(88.5) = 89
                 {"n": 89},
                 id="requested to capacity ratio: reference example one truncates -120/33 to -3 and rounds 88.5 up to 89"),
    pytest.param(None, REF_SHAPE, make_pod("p", cpu="800m", memory="750Mi"),
                 [make_node("n", cpu="10", memory="100Gi")], [],
                 # cpu p 8 → 90 + (-60) div 33 = 89; memory p 0 → f = 0 → left out → 89
                 {"n": 89},
                 id="requested to capacity ratio: reference example two leaves a zero-scoring resource out"),
    pytest.param(None, FALLING, make_pod("p", containers=[req("5", "1Gi")]),
                 [make_node("n", cpu="4", memory="2Gi")], [],
                 # cpu over capacity → p = 100 → f = 0 → left out; memory p 50 → 50 → score 50
                 {"n": 50},
                 id="requested to capacity ratio: a request over capacity counts as 100 percent"),
]


@pytest.mark.parametrize("resources, shape, pod, nodes, bound, expected", RTC)
def test_requested_to_capacity_ratio(resources, shape, pod, nodes, bound, expected):
    args = strategy("RequestedToCapacityRatio", resources, shape)
    assert scores(args, pod, nodes, bound) == expected


BROKEN_LINEAR = [
    # ported from TestBrokenLinearFunction (scores given unscaled)
    pytest.param([(10, 1), (90, 9)],
                 [(-10, 1), (0, 1), (9, 1), (10, 1), (15, 1), (19, 1), (20, 2), (89, 8), (90, 9), (99, 9),
                  (100, 9), (110, 9)],
                 id="a rising shape is constant before the first point and after the last"),
    pytest.param([(0, 2), (40, 10), (100, 0)],
                 [(-10, 2), (0, 2), (20, 6), (30, 8), (40, 10), (70, 5), (100, 0), (110, 0)],
                 id="a rising then falling shape interpolates on both segments"),
    pytest.param([(0, 2), (40, 2), (100, 2)],
                 [(-10, 2), (0, 2), (20, 2), (30, 2), (40, 2), (70, 2), (100, 2), (110, 2)],
                 id="a flat shape is constant"),
    # reference §0 / §6.4: truncation toward zero on a falling segment
    pytest.param([(0, 2), (40, 10), (100, 0)],
                 # 10 + (-10*10) div 60 = 10 - 1 = 9 (floor division would give 8)
                 [(50, 9), (41, 10), (99, 1)],
                 id="the interpolation on a falling segment truncates toward zero, not down"),
    pytest.param([(0, 0), (7, 90), (40, 30), (100, 70)],
                 # 90 + (-60*2) div 33 = 87; 90 + (-60*1) div 33 = 89
                 [(9, 87), (8, 89), (7, 90), (0, 0)],
                 id="the reference shape scaled by ten gives 87 at 9 percent and 89 at 8 percent"),
]


@pytest.mark.parametrize("points, assertions", BROKEN_LINEAR)
def test_broken_linear(points, assertions):
    f = broken_linear(points)
    assert [(p, f(p)) for p, _ in assertions] == assertions


@pytest.mark.parametrize("codes, bits", [
    ([5, 1, 5, 3], 3),          # few distinct check failures: counted
    ([0, 0], 1),                # one kind
    ([9000, 2, 9000, 7], 14),   # many checks (extended resources): sorted, as np.unique does
])
def test_distinct_failure_codes_are_numpys_unique_with_the_inverse(codes: list[int], bits: int) -> None:
    kinds, which = _distinct(np.array(codes), bits)
    want_kinds, want_which = np.unique(np.array(codes), return_inverse=True)
    assert kinds.tolist() == want_kinds.tolist()
    assert which.tolist() == want_which.tolist()


@pytest.mark.parametrize("strategy", ["least", "most"])
@pytest.mark.parametrize("requested, allocatable", [
    # every node has both resources (the one-pass form)
    ([[1000, 4000, 9000], [2 << 30, 1 << 30, 9 << 30]], [[4000, 4000, 8000], [8 << 30, 2 << 30, 8 << 30]]),
    # a node without memory: that resource is left out of its mean (the general form)
    ([[1000, 4000], [2 << 30, 0]], [[4000, 8000], [8 << 30, 0]]),
])
def test_strategies_over_nodes_equal_the_upstream_one_node_form(strategy: str, requested: list[list[int]],
                                                                allocatable: list[list[int]]) -> None:
    resources = (ResourceSpec("cpu", 1), ResourceSpec("memory", 3))
    scorer = (least_allocated if strategy == "least" else most_allocated)(resources)
    rows = scorer([np.array(r) for r in requested], [np.array(a) for a in allocatable]).tolist()
    nodes = [scorer.node([r[i] for r in requested], [a[i] for a in allocatable]) for i in range(len(requested[0]))]
    assert rows == nodes
