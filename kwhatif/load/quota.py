"""ResourceQuota admission: the API server's `ResourceQuota` plugin for pods, after the mutating
plugins (LimitRanger, Priority...), as resourcequota controller.go:CheckRequest runs it.

- Each quota's starting point is its own `status.hard`/`status.used`, as the plugin reads them.
  A quota without `status.hard` (a manifest the quota controller has not synced yet) gets the
  status the controller would give it: `spec.hard`, and usage counted from the namespace's pods
  (pods evaluator core/pods.go: terminal pods only in `count/pods`).
- A pod is charged when it is created: usage accumulates in queue (admission) order, so the second
  new pod of a Deployment sees the first one's usage. Pods the dump already holds were charged
  before the dump was taken; a pending pod without `metadata.creationTimestamp` was never created
  and is charged at admission instead of being counted.
- Quotas of a namespace are checked in name order (the API server's lister has no fixed order);
  the first that refuses the pod decides the text.
- PersistentVolumeClaims are charged too (core/persistent_volume_claims.go): `persistentvolumeclaims`,
  `count/persistentvolumeclaims`, `requests.storage` and their `<class>.storageclass.storage.k8s.io/`
  forms, when a claim a workload brings is first used by a pod being created (a StatefulSet creates
  its pod's claims just before the pod), counted like pods otherwise (those that exist —
  `claim_exists` — were charged before the dump). Quotas with scopes are pod quotas here.
- ResourceClaims too (core/resource_claims.go): `count/resourceclaims.resource.k8s.io` and
  `<class>.deviceclass.resource.k8s.io/devices` — the devices a claim may take of each class: an
  exact count, `All` as the most an allocation holds (32), a `firstAvailable` request as its
  largest alternative per class. A pod being created charges the claims its templates make (the
  resourceclaim controller creates them right after the pod; one refused leaves the pod waiting
  for ever); the snapshot's claims were charged before it was taken.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from fractions import Fraction

from kwhatif.api.affinity import PodAffinityRules
from kwhatif.api.dra import DeviceRequest, DeviceSubRequest, ResourceClaim
from kwhatif.api.objects import Container, Pod
from kwhatif.api.storage import PersistentVolumeClaim
from kwhatif.api.quota import (
    BEST_EFFORT, CROSS_NAMESPACE_POD_AFFINITY, NOT_BEST_EFFORT, NOT_TERMINATING, PRIORITY_CLASS, TERMINATING, Amount,
    ResourceQuota, ScopeRequirement, pod_amount, pretty,
)
from kwhatif.api.resources import (
    container_aggregate, is_extended_resource_name, is_pod_level_resource, pod_requests, qos_class,
)
from kwhatif.api.selectors import Requirement
from kwhatif.load.admission import AdmissionRejected, forbidden

COUNT_PODS = "count/pods"
_POD_RESOURCES = frozenset((
    COUNT_PODS, "pods", "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
    "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage",
))
_COMPUTE = ("cpu", "memory", "ephemeral-storage")
_MUST_SPECIFY = frozenset(("cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"))
"""Quota on these makes every container state them (core/pods.go:validationSet, kept for backward
compatibility upstream)."""
_ONE = Amount(Fraction(1))


def matching_resources(names: Iterable[str]) -> list[str]:
    """The quota resources the pods evaluator tracks (core/pods.go:MatchingResources): the
    compute names, `count/pods`, hugepages and `requests.<extended resource>`."""
    return [n for n in names if n in _POD_RESOURCES or n.startswith(("hugepages-", "requests.hugepages-"))
            or (n.startswith("requests.") and "/" in n and "kubernetes.io/" not in n)]


_CLAIM_COUNTS = ("persistentvolumeclaims", "count/persistentvolumeclaims")
_CLASS_RESOURCE = ".storageclass.storage.k8s.io/"


def claim_resources(names: Iterable[str]) -> list[str]:
    """The quota resources the claims evaluator tracks (core/persistent_volume_claims.go)."""
    return [n for n in names if n in _CLAIM_COUNTS or n == "requests.storage"
            or (_CLASS_RESOURCE in n and n.endswith(("/requests.storage", "/persistentvolumeclaims")))]


def claim_usage(claim: PersistentVolumeClaim, class_name: str) -> dict[str, Amount]:
    """core/persistent_volume_claims.go:Usage: the counts, the storage requested, and both again
    for the claim's StorageClass."""
    usage = dict.fromkeys(_CLAIM_COUNTS, _ONE)
    if class_name:
        usage[f"{class_name}{_CLASS_RESOURCE}persistentvolumeclaims"] = _ONE
    if claim.requested_storage is not None:
        usage["requests.storage"] = pod_amount("requests.storage", claim.requested_storage)
        if class_name:
            usage[f"{class_name}{_CLASS_RESOURCE}requests.storage"] = usage["requests.storage"]
    return usage


RESOURCE_CLAIMS = "count/resourceclaims.resource.k8s.io"
_DEVICE_CLASS_RESOURCE = ".deviceclass.resource.k8s.io/devices"
ALLOCATION_RESULTS_MAX_SIZE = 32
"""resource.k8s.io's AllocationResultsMaxSize: what an `All` request is charged (its worst case)."""


def device_claim_resources(names: Iterable[str]) -> list[str]:
    """The quota resources the ResourceClaims evaluator tracks (resource_claims.go:MatchingResources)."""
    return [n for n in names if n == RESOURCE_CLAIMS or n.endswith(_DEVICE_CLASS_RESOURCE)]


def device_claim_usage(requests: Sequence[DeviceRequest]) -> dict[str, Amount]:
    """resource_claims.go:Usage: the claim, and per device class the devices it may take."""
    devices: dict[str, int] = {}
    for request in requests:
        largest: dict[str, int] = {}
        for _, sub in request.alternatives():
            key = f"{sub.device_class_name}{_DEVICE_CLASS_RESOURCE}"
            largest[key] = max(largest.get(key, 0), _devices(sub))
        for key, count in largest.items():
            devices[key] = devices.get(key, 0) + count
    return {RESOURCE_CLAIMS: _ONE, **{key: Amount(Fraction(count)) for key, count in devices.items()}}


def _devices(sub: DeviceSubRequest) -> int:
    return ALLOCATION_RESULTS_MAX_SIZE if sub.allocation_mode == "All" else sub.count


def claim_exists(claim: PersistentVolumeClaim) -> bool:
    """Whether the API server holds the claim already (charged when it was created): a dump's
    has a creationTimestamp; a hand-written one that is bound (`spec.volumeName`, phase Bound)
    exists too. Any other is created by the workload that brings it."""
    return bool(claim.creation_timestamp or claim.volume_name or claim.phase == "Bound")


def _claim_refused(claim: PersistentVolumeClaim, text: str) -> AdmissionRejected:
    return AdmissionRejected(f'persistentvolumeclaims "{claim.name}" is forbidden: {text}')


def _cross_namespace(rules: PodAffinityRules | None) -> bool:
    if rules is None:
        return False
    terms = list(rules.required) + [w.term for w in rules.preferred]
    return any(t.namespaces or t.namespace_selector is not None for t in terms)


def scope_matches(scope: ScopeRequirement, pod: Pod) -> bool:
    """core/pods.go:podMatchesScopeFunc."""
    name = scope.scope_name
    if name in (TERMINATING, NOT_TERMINATING):
        terminating = pod.active_deadline_seconds is not None and pod.active_deadline_seconds >= 0
        return terminating == (name == TERMINATING)
    if name in (BEST_EFFORT, NOT_BEST_EFFORT):
        return (qos_class(pod) == "BestEffort") == (name == BEST_EFFORT)
    if name == PRIORITY_CLASS:
        if scope.operator == "Exists":
            return bool(pod.priority_class_name)
        labels = {PRIORITY_CLASS: pod.priority_class_name} if pod.priority_class_name else {}
        return Requirement(PRIORITY_CLASS, scope.operator, scope.values).matches(labels)
    if name == CROSS_NAMESPACE_POD_AFFINITY:
        affinity = pod.affinity
        return affinity is not None and (_cross_namespace(affinity.pod_affinity)
                                         or _cross_namespace(affinity.pod_anti_affinity))
    return False


def _pod_limits(pod: Pod) -> dict[str, Fraction]:
    """resource helpers.go:PodLimits: containers' limits aggregated like requests, pod-level limits
    over them, and overhead added only to limits that are set."""
    as_requests = pod.evolve(
        containers=tuple(replace(c, requests=c.limits) for c in pod.containers),
        init_containers=tuple(replace(c, requests=c.limits) for c in pod.init_containers))
    limits = container_aggregate(as_requests)
    for name, q in (pod.pod_limits or {}).items():
        if is_pod_level_resource(name):
            limits[name] = q
    for name, q in (pod.overhead or {}).items():
        if name in limits:
            limits[name] += q
    return limits


def _compute_usage(requests: Mapping[str, Fraction], limits: Mapping[str, Fraction]) -> dict[str, Fraction]:
    """core/pods.go:podComputeUsageHelper: `pods`, the compute names with their `requests.`/`limits.`
    forms, hugepages and `requests.<extended resource>`."""
    usage = {"pods": Fraction(1)}
    for name in _COMPUTE:
        if name in requests:
            usage[name] = usage[f"requests.{name}"] = requests[name]
        if name in limits:
            usage[f"limits.{name}"] = limits[name]
    for name, q in requests.items():
        if name.startswith("hugepages-"):
            usage[name] = usage[f"requests.{name}"] = q
        elif is_extended_resource_name(name):
            usage[f"requests.{name}"] = q
    return usage


def pod_usage(pod: Pod) -> dict[str, Amount]:
    """core/pods.go:PodUsageFunc: `count/pods` always; compute usage unless the pod is terminal."""
    usage = {COUNT_PODS: _ONE}
    if pod.phase not in ("Succeeded", "Failed"):
        computed = _compute_usage(pod_requests(pod), _pod_limits(pod))
        usage.update((name, pod_amount(name, q)) for name, q in computed.items())
    return usage


def _add(a: Mapping[str, Amount], b: Mapping[str, Amount]) -> dict[str, Amount]:
    """quota.Add: key-wise sums, keys of either side kept."""
    out = dict(a)
    for name, q in b.items():
        out[name] = out[name].plus(q) if name in out else q
    return out


def _must_specify(required: set[str], containers: Sequence[Container]) -> str | None:
    """core/pods.go:Constraints: the resources some container leaves out, with those containers."""
    missing: dict[str, set[str]] = {}
    for c in containers:
        present = _compute_usage(c.requests, c.limits)
        for name in required - present.keys():
            missing.setdefault(name, set()).add(c.name)
    if not missing:
        return None
    return "must specify " + "; ".join(f"{n} for: {','.join(sorted(missing[n]))}" for n in sorted(missing))


OBJECT_RESOURCES = {
    "Deployment": "deployments.apps", "StatefulSet": "statefulsets.apps", "DaemonSet": "daemonsets.apps",
    "ReplicaSet": "replicasets.apps", "Job": "jobs.batch", "CronJob": "cronjobs.batch",
    "ReplicationController": "replicationcontrollers",
}
"""The workloads' resources, as object-count quotas name them (`count/<resource>`, generic
evaluator; a ReplicationController's legacy name too, core's object_count evaluators)."""


def object_count_keys(kind: str) -> tuple[str, ...]:
    resource = OBJECT_RESOURCES[kind]
    return (f"count/{resource}", resource) if kind == "ReplicationController" else (f"count/{resource}",)


class QuotaLedger:
    """The quotas of a run with their running usage: what each admitted pod has charged so far."""

    def __init__(self, quotas: Sequence[ResourceQuota], pods: Sequence[Pod],
                 claims: Sequence[PersistentVolumeClaim] = (), device_claims: Sequence[ResourceClaim] = ()) -> None:
        self._quotas: dict[str, list[ResourceQuota]] = {}
        for q in sorted(quotas, key=lambda q: (q.namespace, q.name)):
            self._quotas.setdefault(q.namespace, []).append(q)
        self._pods = pods
        self._claims = claims
        self._device_claims = device_claims
        self._synced: set[str] = set()
        self.claims_charged: set[tuple[str, str]] = {(c.namespace, c.name) for c in claims if claim_exists(c)}
        """The claims created already (charged before the dump) or charged in this run."""

    def _sync(self, namespace: str) -> list[ResourceQuota]:
        """The namespace's quotas, each given the status the quota controller would have written
        if it has none (resource_quota_controller: hard = spec.hard, used counted from pods)."""
        quotas = self._quotas.get(namespace, [])
        if namespace in self._synced or all(q.status_hard is not None for q in quotas):
            return quotas
        self._synced.add(namespace)
        members = [p for p in self._pods if p.namespace == namespace and (p.node_name or p.creation_timestamp)]
        claims = [c for c in self._claims if c.namespace == namespace and claim_exists(c)]
        devices = [c for c in self._device_claims if c.namespace == namespace]
        quotas[:] = [q if q.status_hard is not None else _controller_status(q, members, claims, devices)
                     for q in quotas]
        return quotas

    def charge_claim(self, claim: PersistentVolumeClaim, class_name: str) -> None:
        """Admit a claim being created against its namespace's quotas (`claim_usage`; `class_name`
        after the DefaultStorageClass admission), or raise AdmissionRejected with the API
        server's text; charged once (`claims_charged`)."""
        key = (claim.namespace, claim.name)
        if key in self.claims_charged:
            return
        quotas = self._sync(claim.namespace)
        matched = [i for i, q in enumerate(quotas) if not q.scopes and claim_resources(q.status_hard or {})]
        for i in matched:
            _usage_known(quotas[i], claim_resources(quotas[i].status_hard or {}),
                         lambda text: _claim_refused(claim, text))
        usage = claim_usage(claim, class_name)
        charged = [_charged(quotas[i], usage, lambda text: _claim_refused(claim, text)) for i in matched]
        for i, quota in zip(matched, charged):
            quotas[i] = quota
        self.claims_charged.add(key)

    def charge_device_claim(self, namespace: str, name: str, requests: Sequence[DeviceRequest]) -> None:
        """Admit a ResourceClaim being created (`device_claim_usage`) against its namespace's
        quotas, or raise AdmissionRejected with the API server's text."""
        quotas = self._sync(namespace)
        matched = [i for i, q in enumerate(quotas) if not q.scopes and device_claim_resources(q.status_hard or {})]

        def refused(text: str) -> AdmissionRejected:
            return AdmissionRejected(f'resourceclaims.resource.k8s.io "{name}" is forbidden: {text}')
        for i in matched:
            _usage_known(quotas[i], device_claim_resources(quotas[i].status_hard or {}), refused)
        usage = device_claim_usage(requests)
        charged = [_charged(quotas[i], usage, refused) for i in matched]
        for i, quota in zip(matched, charged):
            quotas[i] = quota

    def charge(self, pod: Pod) -> None:
        """Admit `pod` against its namespace's quotas, or raise AdmissionRejected with the API
        server's text; on success its usage is added to every quota that matches it."""
        quotas = self._sync(pod.namespace)
        matched = [i for i, q in enumerate(quotas) if _matches(q, pod)]
        if not matched:
            return  # no quota limits the pod: nothing to check or charge
        for i in matched:
            _check_status(quotas[i], pod)
        usage = {n: q for n, q in pod_usage(pod).items() if q.value}
        charged = [_charged(quotas[i], usage, lambda text: forbidden(pod, text))  # all or none: a refusal charges nothing
                   for i in matched]
        for i, quota in zip(matched, charged):
            quotas[i] = quota


    def charge_object(self, kind: str, namespace: str, name: str, existing: int) -> None:
        """Admit a workload object being created (`OBJECT_RESOURCES`) against the namespace's
        quotas that count its kind, or raise AdmissionRejected with the API server's text
        (`deployments.apps "api" is forbidden: exceeded quota: ...`). `existing`: how many the
        snapshot has, the usage of a quota whose status does not say (the controller's count)."""
        keys = object_count_keys(kind)
        quotas = self._sync(namespace)

        def refused(text: str) -> AdmissionRejected:
            return AdmissionRejected(f'{OBJECT_RESOURCES[kind]} "{name}" is forbidden: {text}')
        charged = {}
        for i, quota in enumerate(quotas):
            hard = quota.status_hard if quota.status_hard is not None else quota.hard
            counted = [k for k in keys if k in hard]
            if quota.scopes or not counted:
                continue
            used = {k: (quota.status_used or {}).get(k) or Amount(Fraction(existing)) for k in counted}
            known = replace(quota, status_hard=hard, status_used={**(quota.status_used or {}), **used})
            charged[i] = _charged(known, dict.fromkeys(counted, _ONE), refused)
        for i, quota in charged.items():  # all or none: a refusal charges nothing
            quotas[i] = quota

    def release(self, pod: Pod) -> None:
        """A pod deleted: its usage leaves every quota that matches it (the quota controller
        counts what is left), so a rollout's deleted pods make room for its new ones."""
        quotas = self._sync(pod.namespace)
        usage = {n: q for n, q in pod_usage(pod).items() if q.value}
        for i, quota in enumerate(quotas):
            if _matches(quota, pod):
                hard = quota.status_hard or {}
                minus = {n: Amount(-q.value, q.fmt) for n, q in usage.items() if n in hard}
                quotas[i] = replace(quota, status_used=_add(quota.status_used or {}, minus))


def _matches(quota: ResourceQuota, pod: Pod) -> bool:
    """generic.Matches: the quota limits some pod resource and every scope holds for the pod."""
    return bool(matching_resources(quota.status_hard or {})) and all(scope_matches(s, pod) for s in quota.scopes)


def _check_status(quota: ResourceQuota, pod: Pod) -> None:
    """The first pass of CheckRequest: containers state what the quota requires, and the quota's
    usage is known for each resource it limits."""
    restricted = matching_resources(quota.status_hard or {})
    missing = _must_specify(set(restricted) & _MUST_SPECIFY, pod.containers + pod.init_containers)
    if missing:
        raise forbidden(pod, f"failed quota: {quota.name}: {missing}")
    _usage_known(quota, restricted, lambda text: forbidden(pod, text))


def _usage_known(quota: ResourceQuota, restricted: Sequence[str], refused: Callable[[str], AdmissionRejected]) -> None:
    """CheckRequest refuses what a quota limits while its usage of one of them is unknown."""
    if any(name not in (quota.status_used or {}) for name in restricted):
        raise refused(f"status unknown for quota: {quota.name}, resources: {','.join(sorted(restricted))}")


def _charged(quota: ResourceQuota, usage: Mapping[str, Amount],
             refused: Callable[[str], AdmissionRejected]) -> ResourceQuota:
    """The second pass: the object's usage of what the quota limits, added to what is used, must
    stay within `hard`; otherwise the `exceeded quota` text with the exceeded resources only."""
    hard, used = quota.status_hard or {}, quota.status_used or {}
    requested = {n: q for n, q in usage.items() if n in hard}
    new_used = _add(used, requested)
    exceeded = sorted(n for n in requested if new_used[n].value > hard[n].value)
    if exceeded:
        raise refused(f"exceeded quota: {quota.name}, requested: {pretty({n: requested[n] for n in exceeded})}, "
                      f"used: {pretty({n: used[n] for n in exceeded if n in used})}, "
                      f"limited: {pretty({n: hard[n] for n in exceeded})}")
    return replace(quota, status_used=new_used)


def _controller_status(quota: ResourceQuota, pods: Sequence[Pod], claims: Sequence[PersistentVolumeClaim] = (),
                       device_claims: Sequence[ResourceClaim] = ()) -> ResourceQuota:
    """generic.CalculateUsageStats over the namespace's pods matching the quota's scopes (and its
    claims of both kinds, for a quota without scopes), each tracked resource starting from 0,
    masked to `hard`."""
    tracked = matching_resources(quota.hard) + claim_resources(quota.hard) + device_claim_resources(quota.hard)
    used = {name: Amount(Fraction(0)) for name in tracked}
    for pod in pods:
        if all(scope_matches(s, pod) for s in quota.scopes):
            used = _add(used, {n: q for n, q in pod_usage(pod).items() if n in used})
    usages = [claim_usage(c, c.storage_class_name or "") for c in claims]
    usages += [device_claim_usage(c.requests) for c in device_claims]
    for usage in usages if not quota.scopes else ():
        used = _add(used, {n: q for n, q in usage.items() if n in used})
    return replace(quota, status_hard=dict(quota.hard), status_used=used)
