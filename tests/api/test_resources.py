"""Pod request vectors (reference §4.2, 4.3, 4.5, 4.7) and their integer conversion (§4.1).

Results are compared whole as `Resources(milli_cpu, memory, ephemeral_storage, scalars)`.
Byte constants: Mi = 1048576, Gi = 1073741824, 200Mi = 209715200.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from kwhatif.api.objects import PodCondition
from kwhatif.api.resources import (
    Resources,
    is_scalar_resource,
    non_zero_requests,
    pod_requests,
)
from tests.builders import (
    make_container,
    make_pod,
    make_sidecar,
    make_status,
    resize_infeasible,
    rl,
)

MI = 2**20
GI = 2**30
DEFAULT_MEM = 200 * MI  # 209715200


def vector(pod, **opts) -> Resources:
    return Resources.from_list(pod_requests(pod, **opts))


# ---------------------------------------------------------------------------------------------
# §4.2 Pod requests (Filter vector and node aggregates).
# ---------------------------------------------------------------------------------------------
POD_REQUESTS = [
    # (case, pod, expected)
    # §4.2 example: cpu max(2+1, max(2, 2)) = 3; memory max(1G+1G, max(1G, 3G)) = 3G.
    ("the first worked example of 4.2: init containers win on memory only",
     make_pod("p", containers=[make_container("c1", cpu="2", memory="1G"),
                               make_container("c2", cpu="1", memory="1G")],
              init_containers=[make_container("ic1", cpu="2", memory="1G"),
                               make_container("ic2", cpu="2", memory="3G")]),
     Resources(milli_cpu=3000, memory=3_000_000_000)),
    # §4.2 example: R = 500m + 200m = 700m; candidates 200m, 1000m + 200m = 1200m -> 1200m.
    ("the sidecar example of 4.2: a job after a sidecar runs alongside it",
     make_pod("p", containers=[make_container("app", cpu="500m")],
              init_containers=[make_sidecar("sc", cpu="200m"),
                               make_container("job", cpu="1")]),
     Resources(milli_cpu=1200)),
    # R = 500m + 200m = 700m; candidates: job 1000m (no sidecar before it), sidecar S = 200m.
    # max(700m, 1000m) = 1000m.
    ("a sidecar declared after a job doesn't add to the job's candidate",
     make_pod("p", containers=[make_container("app", cpu="500m")],
              init_containers=[make_container("job", cpu="1"),
                               make_sidecar("sc", cpu="200m")]),
     Resources(milli_cpu=1000)),
    # R = 100 + 300 + 200 = 600m; candidates 300, 500, 400 + 500 = 900 -> 900m.
    ("two sidecars before a job: the job's candidate includes both",
     make_pod("p", containers=[make_container("app", cpu="100m")],
              init_containers=[make_sidecar("sc1", cpu="300m"), make_sidecar("sc2", cpu="200m"),
                               make_container("job", cpu="400m")]),
     Resources(milli_cpu=900)),
    # R = 1 + 1 = 2 cpu; candidate S = 1 cpu -> 2000m; sidecar memory 64Mi counts too.
    ("a sidecar is added to the containers' sum",
     make_pod("p", containers=[make_container("app", cpu="1")],
              init_containers=[make_sidecar("sc", cpu="1", memory="64Mi")]),
     Resources(milli_cpu=2000, memory=64 * MI)),
    # Union of names: cpu only from containers, memory only from the init container.
    ("element-wise max runs over the union of resource names",
     make_pod("p", containers=[make_container("app", cpu="1")],
              init_containers=[make_container("init", memory="1Gi")]),
     Resources(milli_cpu=1000, memory=GI)),
    # 100m + 200m = 300m exactly; memory 0.5 + 0.5 = 1 byte (per-container Value would give 2).
    ("quantities are summed exactly and converted once per pod",
     make_pod("p", containers=[make_container("a", cpu="0.1", memory="0.5"),
                               make_container("b", cpu="0.2", memory="0.5")]),
     Resources(milli_cpu=300, memory=1)),
    # 1 + 250m = 1250m; 1Gi + 120Mi = 1073741824 + 125829120 = 1199570944.
    ("overhead is added to the requests",
     make_pod("p", cpu="1", memory="1Gi", overhead={"cpu": "250m", "memory": "120Mi"}),
     Resources(milli_cpu=1250, memory=1_199_570_944)),
    # max(500m, 2000m) = 2000m, then + 100m overhead = 2100m.
    ("overhead is added after the init-container maximum",
     make_pod("p", containers=[make_container("app", cpu="500m")],
              init_containers=[make_container("init", cpu="2")], overhead={"cpu": "100m"}),
     Resources(milli_cpu=2100)),
    # ephemeral 1Gi; gpu 2; hugepages-2Mi 4Mi = 4194304; storage and foo are ignored (§4.5).
    ("ephemeral storage and scalar names count, other names are ignored",
     make_pod("p", containers=[make_container("app", requests={
         "ephemeral-storage": "1Gi", "nvidia.com/gpu": 2, "hugepages-2Mi": "4Mi",
         "storage": "1Gi", "foo": 1})]),
     Resources(ephemeral_storage=GI, scalars={"nvidia.com/gpu": 2, "hugepages-2Mi": 4 * MI})),
    ("limits play no part",
     make_pod("p", containers=[make_container("app", limits={"cpu": "4", "memory": "4Gi"})]),
     Resources()),
    ("a pod without containers' requests requests nothing", make_pod("p"), Resources()),
    # §6.4 example: the Filter uses the pod-level 2000m / 1Gi.
    ("pod-level requests replace the aggregated cpu and memory",
     make_pod("p", cpu="500m", pod_requests={"cpu": "2", "memory": "1Gi"}),
     Resources(milli_cpu=2000, memory=GI)),
    ("names absent from pod-level requests keep the aggregated value",
     make_pod("p", cpu="500m", memory="1Gi", pod_requests={"cpu": "2"}),
     Resources(milli_cpu=2000, memory=GI)),
    # gpu is not a supported pod-level name: container value 1 stays.
    ("unsupported names in pod-level requests are ignored",
     make_pod("p", containers=[make_container("app", cpu="500m", requests={"nvidia.com/gpu": 1})],
              pod_requests={"cpu": "1", "nvidia.com/gpu": 4}),
     Resources(milli_cpu=1000, scalars={"nvidia.com/gpu": 1})),
    # No supported name at pod level, so nothing is replaced.
    ("pod-level requests without a supported name replace nothing",
     make_pod("p", containers=[make_container("app", cpu="500m",
                                              requests={"ephemeral-storage": "1Gi"})],
              pod_requests={"ephemeral-storage": "5Gi"}),
     Resources(milli_cpu=500, ephemeral_storage=GI)),
    # hugepages-* is supported at pod level: 8Mi = 8388608 replaces 4Mi.
    ("pod-level hugepages replace the aggregated hugepages",
     make_pod("p", containers=[make_container("app", cpu="1", requests={"hugepages-2Mi": "4Mi"})],
              pod_requests={"hugepages-2Mi": "8Mi"}),
     Resources(milli_cpu=1000, scalars={"hugepages-2Mi": 8 * MI})),
    # Pod-level 1 cpu, then + 250m overhead = 1250m.
    ("overhead is added on top of pod-level requests",
     make_pod("p", cpu="500m", pod_requests={"cpu": "1"}, overhead={"cpu": "250m"}),
     Resources(milli_cpu=1250)),
]


@pytest.mark.parametrize(
    "pod, expected", [c[1:] for c in POD_REQUESTS], ids=[c[0] for c in POD_REQUESTS]
)
def test_pod_requests(pod, expected):
    assert vector(pod) == expected


def test_pod_requests_keeps_exact_quantities():
    # The exact list before conversion: 0.1 + 0.2 = 3/10 cpu, 0.5 + 0.5 = 1 byte.
    pod = make_pod("p", containers=[make_container("a", cpu="0.1", memory="0.5"),
                                    make_container("b", cpu="0.2", memory="0.5")])
    assert pod_requests(pod) == {"cpu": Fraction(3, 10), "memory": Fraction(1)}


def test_pod_level_requests_can_be_ignored():
    # §6.4: the NodeResourcesFit scorer is built without pod-level resources.
    pod = make_pod("p", cpu="500m", pod_requests={"cpu": "2", "memory": "1Gi"})
    assert vector(pod, pod_level=False) == Resources(milli_cpu=500)


# ---------------------------------------------------------------------------------------------
# §4.3 Non-zero requests (scoring).
# ---------------------------------------------------------------------------------------------
NON_ZERO = [
    # (case, pod, (Non0CPU, Non0Mem))
    ("a pod without requests counts 100m and 200Mi", make_pod("p"), (100, DEFAULT_MEM)),
    # §4.3 example: 100m default + 250m overhead = 350m; memory default 200Mi.
    ("the overhead example of 4.3",
     make_pod("p", overhead={"cpu": "250m"}), (350, DEFAULT_MEM)),
    ("explicit zeros are kept", make_pod("p", cpu="0", memory="0"), (0, 0)),
    ("an explicit zero cpu is kept while missing memory is defaulted",
     make_pod("p", cpu="0"), (0, DEFAULT_MEM)),
    ("a container with only cpu gets the memory default",
     make_pod("p", cpu="500m"), (500, DEFAULT_MEM)),
    # 100m + 100m, 200Mi + 200Mi = 419430400.
    ("each request-less container gets the defaults",
     make_pod("p", containers=[make_container("a"), make_container("b")]), (200, 2 * DEFAULT_MEM)),
    # Containers 50m/100Mi; the request-less init container counts 100m/200Mi -> max.
    ("a request-less init container counts the defaults",
     make_pod("p", containers=[make_container("app", cpu="50m", memory="100Mi")],
              init_containers=[make_container("init")]), (100, DEFAULT_MEM)),
    # R = 1 + 100m = 1100m, 1Gi + 200Mi = 1283457024; sidecar candidate 100m/200Mi is smaller.
    ("a request-less sidecar adds the defaults to the sum",
     make_pod("p", containers=[make_container("app", cpu="1", memory="1Gi")],
              init_containers=[make_sidecar("sc")]), (1100, GI + DEFAULT_MEM)),
    # No pod level: 100m + 100m overhead = 200m; 200Mi + 50Mi = 262144000.
    ("overhead adds to the defaults",
     make_pod("p", overhead={"cpu": "100m", "memory": "50Mi"}), (200, DEFAULT_MEM + 50 * MI)),
    # §6.4 example pod, pod level honoured: R = {cpu 2, memory 1Gi}, both present -> no default.
    ("pod-level requests are used when they give cpu and memory",
     make_pod("p", cpu="500m", pod_requests={"cpu": "2", "memory": "1Gi"}), (2000, GI)),
    # R = {cpu 2}; memory absent from R, so the container gets 200Mi; cpu replaced by 2.
    ("with pod-level cpu only, memory falls back to the container default",
     make_pod("p", pod_requests={"cpu": "2"}), (2000, DEFAULT_MEM)),
    # R = {memory 1Gi}; cpu absent -> 100m per container (200m); memory is replaced by 1Gi.
    ("with pod-level memory only and no cpu anywhere, cpu falls back per container",
     make_pod("p", containers=[make_container("a"), make_container("b")],
              pod_requests={"memory": "1Gi"}), (200, GI)),
    # R = {cpu 500m, memory 1Gi}: cpu present in R, so container b gets no cpu default.
    ("with pod-level requests, a container without cpu gets no default if R has cpu",
     make_pod("p", containers=[make_container("a", cpu="500m"), make_container("b")],
              pod_requests={"memory": "1Gi"}), (500, GI)),
    # R = {memory 1Gi (container a), hugepages-2Mi}; cpu absent -> 100m x 2 = 200m; memory is
    # present in R, so no memory default is applied to container b: memory stays 1Gi.
    ("with pod-level requests, only the names absent from R get defaults",
     make_pod("p", containers=[make_container("a", memory="1Gi"), make_container("b")],
              pod_requests={"hugepages-2Mi": "2Mi"}), (200, GI)),
    # R (with overhead) = {cpu 1 + 100m, memory 50Mi}: both present -> no defaults at all.
    ("with pod-level requests, overhead counts when deciding which names are missing",
     make_pod("p", pod_requests={"cpu": "1"}, overhead={"cpu": "100m", "memory": "50Mi"}),
     (1100, 50 * MI)),
]


@pytest.mark.parametrize(
    "pod, expected", [c[1:] for c in NON_ZERO], ids=[c[0] for c in NON_ZERO]
)
def test_non_zero_requests(pod, expected):
    assert non_zero_requests(pod) == expected


def test_the_overhead_example_of_4_3_requests_only_the_overhead():
    # §4.3 example: requests cpu 250m, memory 0.
    assert vector(make_pod("p", overhead={"cpu": "250m"})) == Resources(milli_cpu=250)


NON_ZERO_NO_POD_LEVEL = [
    # §6.4 example: scoring uses 500m and the 200Mi memory default.
    ("NodeResourcesFit scoring ignores pod-level requests (6.4 example)",
     make_pod("p", cpu="500m", pod_requests={"cpu": "2", "memory": "1Gi"}), (500, DEFAULT_MEM)),
    # Container defaults 100m / 200Mi, plus overhead 250m.
    ("ignoring pod level still adds overhead",
     make_pod("p", pod_requests={"cpu": "2"}, overhead={"cpu": "250m"}), (350, DEFAULT_MEM)),
]


@pytest.mark.parametrize(
    "pod, expected",
    [c[1:] for c in NON_ZERO_NO_POD_LEVEL],
    ids=[c[0] for c in NON_ZERO_NO_POD_LEVEL],
)
def test_non_zero_requests_without_pod_level(pod, expected):
    assert non_zero_requests(pod, pod_level=False) == expected


# ---------------------------------------------------------------------------------------------
# §4.7 Status resources of pods already on nodes.
# ---------------------------------------------------------------------------------------------
def _on_node(containers, statuses=(), init_containers=(), init_statuses=(), conditions=()):
    return make_pod("p", containers=containers, init_containers=init_containers,
                    container_statuses=tuple(statuses),
                    init_container_statuses=tuple(init_statuses),
                    conditions=tuple(conditions), node_name="n1")


APP_2 = make_container("app", cpu="2")
STATUS_1 = make_status("app", requests={"cpu": "1"}, allocated={"cpu": "1"})

STATUS = [
    # (case, pod, expected with use_status=True)
    # max(1, 1500m, 1500m) = 1500m.
    ("status requests larger than spec are used",
     _on_node([make_container("app", cpu="1")],
              [make_status("app", requests={"cpu": "1500m"}, allocated={"cpu": "1500m"})]),
     Resources(milli_cpu=1500)),
    # max(2, 1, 1) = 2.
    ("spec requests larger than status are used",
     _on_node([APP_2], [STATUS_1]), Resources(milli_cpu=2000)),
    # Infeasible: max(1, 1) = 1, spec left out.
    ("an Infeasible resize leaves spec requests out",
     _on_node([APP_2], [STATUS_1], conditions=[resize_infeasible()]), Resources(milli_cpu=1000)),
    ("a PodResizePending condition with another reason keeps spec requests",
     _on_node([APP_2], [STATUS_1], conditions=[
         PodCondition(type="PodResizePending", status="True", reason="Deferred")]),
     Resources(milli_cpu=2000)),
    ("an Infeasible reason on another condition type keeps spec requests",
     _on_node([APP_2], [STATUS_1], conditions=[
         PodCondition(type="PodResizeInProgress", status="True", reason="Infeasible")]),
     Resources(milli_cpu=2000)),
    # max(1, 1, 1200m) = 1200m.
    ("allocated resources larger than both are used",
     _on_node([make_container("app", cpu="1")],
              [make_status("app", requests={"cpu": "1"}, allocated={"cpu": "1200m"})]),
     Resources(milli_cpu=1200)),
    # cpu max(1, 500m) = 1; memory max(1Gi, 2Gi) = 2Gi.
    ("the max is taken per resource name",
     _on_node([make_container("app", cpu="1", memory="1Gi")],
              [make_status("app", requests={"cpu": "500m", "memory": "2Gi"})]),
     Resources(milli_cpu=1000, memory=2 * GI)),
    # Infeasible: max(status {memory 2Gi}, allocated {memory 2Gi}); spec cpu is left out.
    ("an Infeasible resize drops spec names absent from status",
     _on_node([make_container("app", cpu="1", memory="1Gi")],
              [make_status("app", requests={"memory": "2Gi"}, allocated={"memory": "2Gi"})],
              conditions=[resize_infeasible()]),
     Resources(memory=2 * GI)),
    ("a status with null resources keeps the spec",
     _on_node([make_container("app", cpu="1")], [make_status("app", requests=None)]),
     Resources(milli_cpu=1000)),
    ("a container without a status entry keeps the spec",
     _on_node([make_container("app", cpu="1"), make_container("other", cpu="1")],
              [make_status("other", requests={"cpu": "3"})]),
     Resources(milli_cpu=4000)),
    # Regular init container status ignored: max(500m, 1000m) = 1000m.
    ("a regular init container's status is ignored",
     _on_node([make_container("app", cpu="500m")], [],
              init_containers=[make_container("job", cpu="1")],
              init_statuses=[make_status("job", requests={"cpu": "3"})]),
     Resources(milli_cpu=1000)),
    # Sidecar uses max(200m, 400m) = 400m: R = 500m + 400m = 900m; candidate 400m.
    ("a sidecar's status is used",
     _on_node([make_container("app", cpu="500m")], [],
              init_containers=[make_sidecar("sc", cpu="200m")],
              init_statuses=[make_status("sc", requests={"cpu": "400m"})]),
     Resources(milli_cpu=900)),
]


@pytest.mark.parametrize("pod, expected", [c[1:] for c in STATUS], ids=[c[0] for c in STATUS])
def test_status_resources(pod, expected):
    assert vector(pod, use_status=True) == expected


def test_the_incoming_pod_ignores_status_resources():
    pod = _on_node([make_container("app", cpu="1")],
                   [make_status("app", requests={"cpu": "1500m"}, allocated={"cpu": "1500m"})])
    assert vector(pod) == Resources(milli_cpu=1000)


# ---------------------------------------------------------------------------------------------
# §4.5 Which names count as scalar resources.
# ---------------------------------------------------------------------------------------------
SCALAR_NAMES = [
    ("an extended resource with a domain: nvidia.com/gpu", "nvidia.com/gpu", True),
    ("an extended resource: example.com/foo", "example.com/foo", True),
    ("an extended resource may use _ and . in its name", "example.com/foo_bar.v2", True),
    ("hugepages-2Mi", "hugepages-2Mi", True),
    ("hugepages-1Gi", "hugepages-1Gi", True),
    ("a prefixed native resource: kubernetes.io/batteries", "kubernetes.io/batteries", True),
    ("a prefixed native resource in a kubernetes.io subdomain", "node.kubernetes.io/x", True),
    ("attachable-volumes-csi-x", "attachable-volumes-csi-x", True),
    ("storage is ignored", "storage", False),
    ("foo is ignored", "foo", False),
    ("requests.foo/bar is a quota name, not a resource", "requests.foo/bar", False),
    ("cpu is handled explicitly, not as a scalar", "cpu", False),
    ("memory is handled explicitly, not as a scalar", "memory", False),
    ("ephemeral-storage is handled explicitly, not as a scalar", "ephemeral-storage", False),
    ("pods is not a scalar", "pods", False),
    # requests.Example.com/foo: the prefix must be a lower-case DNS subdomain.
    ("an upper-case domain isn't a qualified name", "Example.com/foo", False),
    ("a name starting with a dash isn't a qualified name", "example.com/-foo", False),
    ("two slashes aren't a qualified name", "a/b/c", False),
]


@pytest.mark.parametrize(
    "name, expected", [c[1:] for c in SCALAR_NAMES], ids=[c[0] for c in SCALAR_NAMES]
)
def test_is_scalar_resource(name, expected):
    assert is_scalar_resource(name) is expected


# ---------------------------------------------------------------------------------------------
# Resources.from_list (§4.1 conversion per name).
# ---------------------------------------------------------------------------------------------
FROM_LIST = [
    ("an empty list is the zero vector", {}, Resources()),
    # 250m -> 250; memory 0.5 -> ceil = 1; 1Gi; gpu 2; 4Mi = 4194304; storage, foo, pods dropped.
    ("each name is converted by its own rule and unknown names are dropped",
     rl({"cpu": "250m", "memory": "0.5", "ephemeral-storage": "1Gi", "nvidia.com/gpu": 2,
         "hugepages-2Mi": "4Mi", "storage": "5Gi", "foo": 1, "pods": 110}),
     Resources(milli_cpu=250, memory=1, ephemeral_storage=GI,
               scalars={"nvidia.com/gpu": 2, "hugepages-2Mi": 4 * MI})),
    ("1.5 cpu is 1500 millicores and 1.5Gi is 1610612736 bytes",
     rl(cpu="1.5", memory="1.5Gi"), Resources(milli_cpu=1500, memory=1_610_612_736)),
    # Scalars use Value: ceil(0.5) = 1.
    ("a fractional scalar is rounded up", rl({"example.com/foo": "500m"}),
     Resources(scalars={"example.com/foo": 1})),
    # Without API rounding, 1n of cpu is ceil(10^-9 x 1000) = 1 millicore.
    ("MilliValue rounds a sub-millicore amount up",
     {"cpu": Fraction(1, 10**9)}, Resources(milli_cpu=1)),
]


@pytest.mark.parametrize(
    "quantities, expected", [c[1:] for c in FROM_LIST], ids=[c[0] for c in FROM_LIST]
)
def test_resources_from_list(quantities, expected):
    assert Resources.from_list(quantities) == expected


def test_resources_get_reads_every_name():
    res = Resources(milli_cpu=1, memory=2, ephemeral_storage=3, scalars={"nvidia.com/gpu": 4})
    got = [res.get(n) for n in ("cpu", "memory", "ephemeral-storage", "nvidia.com/gpu", "x/y")]
    assert got == [1, 2, 3, 4, 0]


def test_resources_add_and_subtract():
    total = Resources(milli_cpu=1000, memory=GI, scalars={"nvidia.com/gpu": 1})
    total.add(Resources(milli_cpu=500, scalars={"nvidia.com/gpu": 1, "example.com/foo": 2}))
    assert total == Resources(milli_cpu=1500, memory=GI,
                              scalars={"nvidia.com/gpu": 2, "example.com/foo": 2})
    total.add(Resources(milli_cpu=500, memory=GI), sign=-1)
    assert total == Resources(milli_cpu=1000, scalars={"nvidia.com/gpu": 2, "example.com/foo": 2})
