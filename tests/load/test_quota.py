"""ResourceQuota admission (resourcequota controller.go:CheckRequest with the pods evaluator,
core/pods.go). Every expected text is worked out by hand from those two files:

    pods "<name>" is forbidden: exceeded quota: <quota>, requested: <r>, used: <u>, limited: <h>

with <r>/<u>/<h> the exceeded resources only, `name=quantity` in name order, quantities printed
as resource.Quantity.String() prints them (canonical form, in the format they were parsed in).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from kwhatif.api.dra import DeviceRequest, DeviceSubRequest
from kwhatif.api.quota import BINARY_SI, DECIMAL_EXPONENT, DECIMAL_SI, Amount, canonical
from kwhatif.engine import simulate
from kwhatif.framework.scheduler import Outcome
from kwhatif.load.cluster import build_cluster
from kwhatif.load.admission import AdmissionRejected
from kwhatif.load.decode import decode
from kwhatif.load.quota import QuotaLedger, device_claim_usage
from kwhatif.plugins.dynamic_resources.claims import generated_name

NOW = "2026-01-01T00:00:00Z"
CREATED = "2025-06-01T00:00:00Z"


def quota(name: str, hard: dict[str, Any], used: dict[str, Any] | None = None, *, scopes: list[str] | None = None,
          selector: list[dict[str, Any]] | None = None, ns: str = "shop") -> dict[str, Any]:
    """A ResourceQuota manifest; `used` given means a status as the quota controller wrote it."""
    spec: dict[str, Any] = {"hard": hard}
    if scopes:
        spec["scopes"] = scopes
    if selector:
        spec["scopeSelector"] = {"matchExpressions": selector}
    obj = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name, "namespace": ns}, "spec": spec}
    if used is not None:
        obj["status"] = {"hard": hard, "used": used}
    return obj


def pod(name: str, requests: dict[str, Any] | None = None, *, limits: dict[str, Any] | None = None,
        ns: str = "shop", node: str = "", phase: str = "", created: str = "", **spec: Any) -> dict[str, Any]:
    resources: dict[str, Any] = {}
    if requests:
        resources["requests"] = requests
    if limits:
        resources["limits"] = limits
    meta: dict[str, Any] = {"name": name, "namespace": ns}
    if created:
        meta["creationTimestamp"] = created
    obj: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
                           "spec": {"containers": [{"name": "app", "image": "nginx", "resources": resources}], **spec}}
    if node:
        obj["spec"]["nodeName"] = node
    if phase:
        obj["status"] = {"phase": phase}
    return obj


NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "64", "memory": "256Gi", "pods": "110", "nvidia.com/gpu": "8"}}}
CLASSES = [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": n}, "value": v,
            **({"globalDefault": True} if n == "high" else {})} for n, v in (("high", 1000), ("low", 10))]


def admitted(cluster_objs: list[dict[str, Any]], new: list[dict[str, Any]]) -> dict[str, str | None]:
    """Each new pod's admission refusal (None when admitted), in creation order."""
    cluster = build_cluster([decode(o, None) for o in [NODE, *cluster_objs]])
    sim = simulate(cluster, NOW, new_pods=[decode(o, None) for o in new])
    return {r.pod.name: (r.message if r.outcome == Outcome.SKIPPED else None) for r in sim.results}


def refused(name: str, text: str) -> str:
    return f'admission: pods "{name}" is forbidden: {text}'


@pytest.mark.parametrize("value, fmt, text", [
    (Fraction(3, 2), DECIMAL_SI, "1500m"),          # 1.5 = 1500 x 10^-3
    (Fraction(2), DECIMAL_SI, "2"),
    (Fraction(10**9), DECIMAL_SI, "1G"),
    (Fraction(1500000), DECIMAL_SI, "1500k"),      # 1.5M is not whole: 1500 x 10^3
    (Fraction(1536 * 2**20), BINARY_SI, "1536Mi"),  # 1.5Gi is not whole: 1536 x 1024^2
    (Fraction(2**31), BINARY_SI, "2Gi"),
    (Fraction(1000), BINARY_SI, "1k"),             # |v| < 1024: printed as DecimalSI
    (Fraction(2**30 + 1), BINARY_SI, "1073741825"),
    (Fraction(1000), DECIMAL_EXPONENT, "1e3"),
    (Fraction(0), BINARY_SI, "0"),
])
def test_quantities_print_as_quantity_string_prints_them(value: Fraction, fmt: str, text: str) -> None:
    assert canonical(value, fmt) == text


def test_a_pod_that_would_exceed_the_used_up_cpu_quota_is_refused_with_the_api_text() -> None:
    # status.used is the starting point: 1500m + 1 > 2.
    result = admitted([quota("compute", {"requests.cpu": "2"}, {"requests.cpu": "1500m"})], [pod("x", {"cpu": "1"})])
    assert result == {"x": refused(
        "x", "exceeded quota: compute, requested: requests.cpu=1, used: requests.cpu=1500m, limited: requests.cpu=2")}


def test_usage_accumulates_as_new_pods_are_admitted() -> None:
    # pods: used 1 of 3. a -> 2, b -> 3, c: 3 + 1 > 3.
    result = admitted([quota("count", {"pods": "3"}, {"pods": "1"})],
                      [pod("a", {"cpu": "1"}), pod("b", {"cpu": "1"}), pod("c", {"cpu": "1"})])
    assert result == {"a": None, "b": None, "c": refused(
        "c", "exceeded quota: count, requested: pods=1, used: pods=3, limited: pods=3")}


def test_a_refused_pod_charges_nothing() -> None:
    # requests.cpu 2: big (3) is refused and charges nothing; small (1) then fits: 0 + 1 <= 2.
    result = admitted([quota("compute", {"requests.cpu": "2"}, {"requests.cpu": "0"})],
                      [pod("big", {"cpu": "3"}), pod("small", {"cpu": "1"})])
    assert result["small"] is None
    assert result["big"] == refused(
        "big", "exceeded quota: compute, requested: requests.cpu=3, used: requests.cpu=0, limited: requests.cpu=2")


def test_a_quota_without_status_counts_the_pods_as_the_quota_controller_does() -> None:
    # Counted: bound 500m and pending (created) 300m = 800m; the Succeeded pod is terminal (not
    # counted); another namespace is not counted. New 300m: 800m + 300m = 1100m > 1.
    cluster = [quota("compute", {"requests.cpu": "1"}),
               pod("bound", {"cpu": "500m"}, node="n1", created=CREATED),
               pod("done", {"cpu": "4"}, node="n1", phase="Succeeded", created=CREATED),
               pod("waiting", {"cpu": "300m"}, created=CREATED),
               pod("elsewhere", {"cpu": "4"}, ns="other", node="n1", created=CREATED)]
    assert admitted(cluster, [pod("x", {"cpu": "300m"})])["x"] == refused(
        "x", "exceeded quota: compute, requested: requests.cpu=300m, used: requests.cpu=800m, limited: requests.cpu=1")


def test_count_pods_counts_terminal_pods_too() -> None:
    # count/pods tracks every pod in storage: bound + Succeeded = 2; new: 2 + 1 > 2.
    cluster = [quota("objects", {"count/pods": "2"}),
               pod("bound", {"cpu": "1"}, node="n1", created=CREATED),
               pod("done", {"cpu": "1"}, node="n1", phase="Succeeded", created=CREATED)]
    assert admitted(cluster, [pod("x", {"cpu": "1"})])["x"] == refused(
        "x", "exceeded quota: objects, requested: count/pods=1, used: count/pods=2, limited: count/pods=2")


def test_a_pending_pod_never_created_is_charged_at_admission_not_counted() -> None:
    # `early` has no creationTimestamp: not counted by the controller (used 0), charged when admitted
    # (pods 1 of 1), so the new pod finds 1 + 1 > 1.
    cluster = [quota("count", {"pods": "1"}), pod("early", {"cpu": "1"})]
    assert admitted(cluster, [pod("x", {"cpu": "1"})]) == {
        "early": None, "x": refused("x", "exceeded quota: count, requested: pods=1, used: pods=1, limited: pods=1")}


@pytest.mark.parametrize("scope, matching, other", [
    # BestEffort: no cpu/memory request or limit anywhere.
    ("BestEffort", pod("x"), pod("y", {"cpu": "100m"})),
    ("NotBestEffort", pod("x", {"memory": "1Gi"}), pod("y")),
    # Terminating: activeDeadlineSeconds >= 0 (the API server takes 1 and more: ValidatePodSpec).
    ("Terminating", pod("x", activeDeadlineSeconds=60), pod("y")),
    ("NotTerminating", pod("x"), pod("y", activeDeadlineSeconds=1)),
])
def test_a_scoped_quota_limits_only_the_pods_in_its_scope(scope: str, matching: dict, other: dict) -> None:
    # pods 0 of 0: a matching pod is refused (0 + 1 > 0), the other pod is not in scope.
    result = admitted([quota("scoped", {"pods": "0"}, {"pods": "0"}, scopes=[scope])], [matching, other])
    assert result == {"x": refused("x", "exceeded quota: scoped, requested: pods=1, used: pods=0, limited: pods=0"),
                      "y": None}


def test_a_priority_class_scope_selector_sees_the_class_priority_admission_set() -> None:
    # In [high]: `x` names high; `d` names none but `high` is the globalDefault, which Priority
    # admission (earlier in the chain) writes into the pod; `y` (low) is out of scope.
    # pods 1 of 2: x -> 2, d: 2 + 1 > 2.
    selector = [{"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}]
    result = admitted([*CLASSES, quota("vip", {"pods": "2"}, {"pods": "1"}, selector=selector)],
                      [pod("x", priorityClassName="high"), pod("y", priorityClassName="low"), pod("d")])
    assert result == {"x": None, "y": None,
                      "d": refused("d", "exceeded quota: vip, requested: pods=1, used: pods=2, limited: pods=2")}


def test_an_extended_resource_is_limited_through_its_requests_name() -> None:
    # requests.nvidia.com/gpu: 3 used + 2 > 4.
    q = quota("gpus", {"requests.nvidia.com/gpu": "4"}, {"requests.nvidia.com/gpu": "3"})
    new = pod("x", {"nvidia.com/gpu": "2"}, limits={"nvidia.com/gpu": "2"})
    assert admitted([q], [new])["x"] == refused(
        "x", "exceeded quota: gpus, requested: requests.nvidia.com/gpu=2, used: requests.nvidia.com/gpu=3, "
             "limited: requests.nvidia.com/gpu=4")


def test_only_the_exceeded_resources_are_named_in_name_order_and_binary_amounts_stay_binary() -> None:
    # requests.cpu 1 + 500m <= 2 is fine; requests.memory 1536Mi + 1Gi > 2Gi and limits.memory
    # 1536Mi + 1Gi > 2Gi exceed; pods stays within. Names sorted: limits.memory < requests.memory.
    hard = {"pods": "10", "requests.cpu": "2", "requests.memory": "2Gi", "limits.memory": "2Gi"}
    used = {"pods": "3", "requests.cpu": "1", "requests.memory": "1536Mi", "limits.memory": "1536Mi"}
    new = pod("x", {"cpu": "500m", "memory": "1Gi"}, limits={"memory": "1Gi"})
    assert admitted([quota("mem", hard, used)], [new])["x"] == refused(
        "x", "exceeded quota: mem, requested: limits.memory=1Gi,requests.memory=1Gi, "
             "used: limits.memory=1536Mi,requests.memory=1536Mi, limited: limits.memory=2Gi,requests.memory=2Gi")


def test_several_quotas_the_first_in_name_order_that_refuses_decides() -> None:
    # a-pods allows the pod (1 + 1 <= 5); b-cpu and c-cpu both refuse it; b-cpu is named.
    quotas = [quota("c-cpu", {"requests.cpu": "1"}, {"requests.cpu": "1"}),
              quota("a-pods", {"pods": "5"}, {"pods": "1"}),
              quota("b-cpu", {"cpu": "1"}, {"cpu": "900m"})]
    assert admitted(quotas, [pod("x", {"cpu": "200m"})])["x"] == refused(
        "x", "exceeded quota: b-cpu, requested: cpu=200m, used: cpu=900m, limited: cpu=1")


def test_every_matching_quota_is_charged() -> None:
    # Both quotas count the first pod: pods 0 -> 1 in `a`, requests.cpu 0 -> 1 in `b`; the second
    # pod then exceeds `a` (1 + 1 > 1).
    quotas = [quota("a", {"pods": "1"}, {"pods": "0"}), quota("b", {"requests.cpu": "4"}, {"requests.cpu": "0"})]
    result = admitted(quotas, [pod("p", {"cpu": "1"}), pod("q", {"cpu": "1"})])
    assert result == {"p": None, "q": refused("q", "exceeded quota: a, requested: pods=1, used: pods=1, limited: pods=1")}


def test_a_cpu_or_memory_quota_requires_every_container_to_state_it() -> None:
    # core/pods.go:Constraints: limits.cpu and limits.memory quota'd, the container states neither.
    q = quota("compute", {"limits.cpu": "4", "limits.memory": "4Gi"}, {"limits.cpu": "0", "limits.memory": "0"})
    assert admitted([q], [pod("x", {"cpu": "1"})])["x"] == refused(
        "x", "failed quota: compute: must specify limits.cpu for: app; limits.memory for: app")


def test_a_quota_whose_status_lacks_usage_refuses_the_pod() -> None:
    # status.hard set by the controller, status.used not yet: hasUsageStats fails.
    q = quota("compute", {"requests.cpu": "4", "pods": "4"}, {"pods": "0"})
    assert admitted([q], [pod("x", {"cpu": "1"})])["x"] == refused(
        "x", "status unknown for quota: compute, resources: pods,requests.cpu")


def test_a_quota_on_other_resources_leaves_pods_alone() -> None:
    # count/services is not a pods-evaluator resource: the quota does not match pods.
    q = quota("svc", {"count/services": "0"}, {"count/services": "0"})
    assert admitted([q], [pod("x", {"cpu": "1"})]) == {"x": None}


def test_a_cross_namespace_affinity_scope_limits_pods_whose_terms_name_namespaces() -> None:
    # CrossNamespacePodAffinity: a (anti-)affinity term with namespaces or a namespaceSelector.
    term = {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}
    cross = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{**term, "namespaces": ["data"]}]}}
    local = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    q = quota("cross", {"pods": "0"}, {"pods": "0"}, scopes=["CrossNamespacePodAffinity"])
    result = admitted([q], [pod("x", affinity=cross), pod("y", affinity=local)])
    assert result == {"x": refused("x", "exceeded quota: cross, requested: pods=1, used: pods=0, limited: pods=0"),
                      "y": None}


def test_hugepages_are_limited_under_their_own_and_their_requests_names() -> None:
    # hugepages-2Mi 1Gi: both `hugepages-2Mi` and `requests.hugepages-2Mi` are charged;
    # 512Mi + 1Gi > 1Gi for each. Names sorted: hugepages-2Mi < requests.hugepages-2Mi.
    hard = {"hugepages-2Mi": "1Gi", "requests.hugepages-2Mi": "1Gi"}
    used = {"hugepages-2Mi": "512Mi", "requests.hugepages-2Mi": "512Mi"}
    new = pod("x", {"cpu": "1", "hugepages-2Mi": "1Gi"}, limits={"hugepages-2Mi": "1Gi"})
    assert admitted([quota("huge", hard, used)], [new])["x"] == refused(
        "x", "exceeded quota: huge, requested: hugepages-2Mi=1Gi,requests.hugepages-2Mi=1Gi, "
             "used: hugepages-2Mi=512Mi,requests.hugepages-2Mi=512Mi, limited: hugepages-2Mi=1Gi,requests.hugepages-2Mi=1Gi")


def claim(name: str, storage: str, *, created: str = "", class_name: str | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "shop"}
    if created:
        meta["creationTimestamp"] = created
    spec: dict[str, Any] = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": storage}}}
    if class_name is not None:
        spec["storageClassName"] = class_name
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta, "spec": spec}


def mounting(name: str, claim_name: str, **kw: Any) -> dict[str, Any]:
    return pod(name, {"cpu": "100m"}, volumes=[{"name": "data", "persistentVolumeClaim": {"claimName": claim_name}}],
               **kw)


DEFAULT_CLASS = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                 "metadata": {"name": "fast", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
                 "provisioner": "ebs.csi.aws.com", "volumeBindingMode": "WaitForFirstConsumer"}


def test_a_new_claim_is_charged_when_its_first_pod_is_created_and_a_refusal_refuses_the_pod() -> None:
    # requests.storage 15Gi, no status: the existing claim `old` (created, 5Gi) counts; a's new claim
    # (8Gi): 5 + 8 = 13Gi fits; b's (8Gi): 13 + 8 = 21Gi > 15Gi: refused, and b with it.
    cluster = [DEFAULT_CLASS, quota("storage", {"requests.storage": "15Gi"}), claim("old", "5Gi", created=CREATED),
               claim("a-data", "8Gi"), claim("b-data", "8Gi")]
    result = admitted(cluster, [mounting("a", "a-data"), mounting("b", "b-data")])
    assert result == {"a": None, "b": (
        'admission: its claim b-data is refused: persistentvolumeclaims "b-data" is forbidden: exceeded quota: '
        "storage, requested: requests.storage=8Gi, used: requests.storage=13Gi, limited: requests.storage=15Gi; the "
        "pod would wait for it")}


def test_a_claim_is_charged_once_and_by_its_class() -> None:
    # fast.storageclass.storage.k8s.io/persistentvolumeclaims 1: the unset class defaults to `fast`
    # (DefaultStorageClass); two pods share the claim, which is created (and charged) once.
    cluster = [DEFAULT_CLASS, quota("per-class", {"fast.storageclass.storage.k8s.io/persistentvolumeclaims": "1"},
                                    {"fast.storageclass.storage.k8s.io/persistentvolumeclaims": "0"}),
               claim("shared", "1Gi"), claim("other", "1Gi", class_name="slow")]
    result = admitted(cluster, [mounting("a", "shared"), mounting("b", "shared"), mounting("c", "other")])
    assert result == {"a": None, "b": None, "c": None}  # `other` is of class slow: not limited


def test_a_hand_written_bound_claim_counts_as_existing() -> None:
    # No creationTimestamp, but bound (spec.volumeName): it exists, so a status-less quota counts it:
    # 2Gi used + the new claim's 2Gi = 4Gi > 3Gi — refused.
    bound = claim("old", "2Gi")
    bound["spec"]["volumeName"] = "pv-old"
    cluster = [DEFAULT_CLASS, quota("storage", {"requests.storage": "3Gi"}), bound, claim("new-data", "2Gi")]
    assert admitted(cluster, [mounting("a", "new-data")])["a"] == (
        'admission: its claim new-data is refused: persistentvolumeclaims "new-data" is forbidden: exceeded quota: '
        "storage, requested: requests.storage=2Gi, used: requests.storage=2Gi, limited: requests.storage=3Gi; the "
        "pod would wait for it")


@pytest.mark.parametrize("kind, quotas, existing, refused", [
    # a status counts what runs: used 2 + 1 <= 3, admitted
    ("Job", [quota("objects", {"count/jobs.batch": "3"}, {"count/jobs.batch": "2"})], 0, None),
    # used 3 + 1 > 3: refused, in the generic evaluator's words
    ("Job", [quota("objects", {"count/jobs.batch": "3"}, {"count/jobs.batch": "3"})], 0,
     'jobs.batch "j" is forbidden: exceeded quota: objects, requested: count/jobs.batch=1, used: '
     "count/jobs.batch=3, limited: count/jobs.batch=3"),
    # no status yet: the controller's count is the snapshot's objects (2 + 1 > 2)
    ("Job", [quota("objects", {"count/jobs.batch": "2"})], 2,
     'jobs.batch "j" is forbidden: exceeded quota: objects, requested: count/jobs.batch=1, used: '
     "count/jobs.batch=2, limited: count/jobs.batch=2"),
    # a quota with scopes limits pods only; another kind's count is not this object's
    ("Job", [quota("scoped", {"count/jobs.batch": "0"}, {"count/jobs.batch": "0"}, scopes=["BestEffort"]),
             quota("other", {"count/cronjobs.batch": "0"}, {"count/cronjobs.batch": "0"})], 5, None),
    # a ReplicationController also counts under its legacy name
    ("ReplicationController", [quota("legacy", {"replicationcontrollers": "1"}, {"replicationcontrollers": "1"})], 0,
     'replicationcontrollers "j" is forbidden: exceeded quota: legacy, requested: replicationcontrollers=1, used: '
     "replicationcontrollers=1, limited: replicationcontrollers=1"),
])
def test_a_workload_object_is_charged_against_object_count_quotas(kind, quotas, existing, refused):
    ledger = QuotaLedger([decode(q, None) for q in quotas], [])
    try:
        ledger.charge_object(kind, "shop", "j", existing)
        said = None
    except AdmissionRejected as err:
        said = str(err)
    assert said == refused


# ResourceClaims (core/resource_claims.go:Usage) ---------------------------------------------------

def _request(name: str, cls: str = "gpu", **exactly: Any) -> DeviceRequest:
    return DeviceRequest(name, exactly=DeviceSubRequest(name, cls, **exactly))


@pytest.mark.parametrize("requests, usage", [
    # upstream's TestResourceClaimEvaluatorUsage: "simple", "many-requests" (5 of one), "count" (5).
    ([_request("r")], {"gpu": 1}),
    ([_request(f"r{i}") for i in range(5)], {"gpu": 5}),
    ([_request("r", count=5)], {"gpu": 5}),
    # All: the worst case, AllocationResultsMaxSize (32); two classes apart.
    ([_request("r", allocation_mode="All", count=0), _request("s", "nic", count=2)], {"gpu": 32, "nic": 2}),
    # firstAvailable: the largest alternative per class, summed with the other requests.
    ([DeviceRequest("r", first_available=(DeviceSubRequest("big", "gpu", count=4), DeviceSubRequest("small", "gpu"),
                                          DeviceSubRequest("cpu", "nic", count=3))), _request("s")],
     {"gpu": 5, "nic": 3}),
])
def test_a_resource_claim_is_charged_the_devices_it_may_take_per_class(requests: list[DeviceRequest],
                                                                        usage: dict[str, int]) -> None:
    assert device_claim_usage(requests) == {"count/resourceclaims.resource.k8s.io": Amount(Fraction(1)), **{
        f"{cls}.deviceclass.resource.k8s.io/devices": Amount(Fraction(n)) for cls, n in usage.items()}}


TEMPLATE = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": "two-gpus", "namespace": "shop"},
            "spec": {"spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu", "count": 2}}]}}}}
EXISTING_CLAIM = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                  "metadata": {"name": "old", "namespace": "shop"},
                  "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu"}}]}}}


def _claiming(name: str) -> dict[str, Any]:
    return pod(name, {"cpu": "100m"}, resourceClaims=[{"name": "g", "resourceClaimTemplateName": "two-gpus"}])


def test_a_pods_template_claim_is_charged_when_the_pod_is_created_and_one_refused_leaves_it_waiting() -> None:
    # gpu.deviceclass.resource.k8s.io/devices 4, no status: the snapshot's claim `old` (1 device)
    # counts; a's claim (2): 1 + 2 = 3 fits; b's: 3 + 2 = 5 > 4: refused — b is created (its pod
    # quota charged) but waits for a claim that never comes.
    cluster = [quota("gpus", {"gpu.deviceclass.resource.k8s.io/devices": "4"}), TEMPLATE, EXISTING_CLAIM]
    result = admitted(cluster, [_claiming("a"), _claiming("b")])
    claim_b = generated_name(decode(_claiming("b"), None), "g")
    assert result == {"a": None, "b": (
        f'admission: its claim {claim_b} is refused: resourceclaims.resource.k8s.io "{claim_b}" is forbidden: '
        "exceeded quota: gpus, requested: gpu.deviceclass.resource.k8s.io/devices=2, used: "
        "gpu.deviceclass.resource.k8s.io/devices=3, limited: gpu.deviceclass.resource.k8s.io/devices=4; the pod would "
        "wait for it")}
