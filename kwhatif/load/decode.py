"""Manifest mappings → typed API objects (`kwhatif.api.objects`), with API defaulting (core v1
defaults.go:SetDefaults_Pod).

Only scheduling-relevant fields are kept, so a 150,000-pod dump does not keep its raw dicts.
Malformed values become `InputError`s naming the field; values the API server would refuse in
selectors (unknown operators, missing values) are refused here too.

Pods are decoded in `kwhatif.load.pods`, the storage kinds in `kwhatif.load.storage`, selectors in
`kwhatif.load.selectors`; the other kinds here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import timezone
from fractions import Fraction
from typing import Any, Callable

from kwhatif.api.meta import last_applied
from kwhatif.api.names import is_qualified_name
from kwhatif.api.objects import (
    DESIRED_REPLICAS, ApplyBase, Autoscaler, Controller, DaemonSet, ImageState, LimitRange, LimitRangeItem, Namespace, Node,
    OwnerReference, Pod, PodDisruptionBudget, PriorityClass, RunningJob, RuntimeClass, Service, TemplateOwner,
)
from kwhatif.api.quota import ResourceQuota, ScopeRequirement, canonical, pod_amount, quantity_format
from kwhatif.api.selectors import written_form
from kwhatif.api.timestamps import parse_time
from kwhatif.api.tolerations import Taint
from kwhatif.errors import InputError, Source
from kwhatif.load.admission import SYSTEM_PRIORITY_CLASSES
from kwhatif.load.dra import DRA_DECODERS
from kwhatif.load.fields import Fields, object_fields
from kwhatif.load.pods import decode_pod, owner_references, taint_effect, toleration
from kwhatif.load.quota_checks import default_container_item, limit_range_problems, resource_quota_problems
from kwhatif.load.refs import object_ref
from kwhatif.load.selectors import check_label_value, check_name, checked_labels, controller_map_selector, controller_selector, label_selector
from kwhatif.load.spec_checks import check_budget, check_service
from kwhatif.load.versions import kubernetes_kind
from kwhatif.load.storage import (
    decode_csi_driver, decode_csi_node, decode_csi_storage_capacity, decode_pv, decode_pvc, decode_storage_class,
    decode_volume_attachment,
)


def _taint(f: Fields, raw: dict, path: str) -> tuple[Taint, str | None]:
    """validateNodeTaints' checks of one taint, in its order: the key (a label name), the value
    (a label value), the effect (required); and its timeAdded, a metav1.Time the API server
    decodes as RFC 3339 before it validates. The taint, and when it was added."""
    time_added = f.time(raw, "timeAdded", path)
    key, value = f.str(raw, "key", path), f.str(raw, "value", path)
    check_name(f, key, f"{path}.key", is_qualified_name)
    check_label_value(f, value, f"{path}.value")
    return Taint(key, value, taint_effect(f, raw, path, empty_ok=False)), time_added


def _taints(f: Fields, spec: dict) -> tuple[Taint, ...]:
    """spec.taints, each once by key and effect (validateNodeTaints: the second is refused, the
    internal core.Taint printed as v1.34's field errors print a struct, as JSON)."""
    seen: set[tuple[str, str]] = set()
    decoded = f.items(spec, "taints", "spec", lambda e, p: _taint(f, e, p))
    for i, (taint, added) in enumerate(decoded):
        if (taint.key, taint.effect) in seen:
            shown = json.dumps({"Key": taint.key, "Value": taint.value, "Effect": taint.effect,
                                "TimeAdded": _utc_seconds(added)}, separators=(",", ":"), ensure_ascii=False)
            raise f.error(f"spec.taints[{i}]", f"Duplicate value: {shown}: taints must be unique by key and effect pair")
        seen.add((taint.key, taint.effect))
    return tuple(taint for taint, _added in decoded)


def _whole_counts(f: Fields, status: dict, key: str, amounts: Mapping[str, Fraction]) -> None:
    """ValidateNode's ValidateResourceQuantityValue: `pods` and extended resources are counts."""
    for name, amount in amounts.items():
        counted = name == "pods" or ("/" in name and "kubernetes.io/" not in name and not name.startswith("hugepages-"))
        if counted and amount.denominator != 1:
            written = (status.get(key) or {}).get(name)
            shown = canonical(amount, quantity_format(written))
            raise f.error(f"status.{key}[{name}]", f'Invalid value: "{shown}": must be an integer')


def _utc_seconds(text: str | None) -> str | None:
    """metav1.Time.MarshalJSON: RFC 3339 in UTC, to the second."""
    moment = parse_time(text)
    return None if moment is None else moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def decode_node(obj: dict, source: Source | None) -> Node:
    f, meta, _, name = object_fields(obj, source)
    spec = f.map(obj, "spec", "")
    status = f.map(obj, "status", "")
    allocatable = f.resources(status, "allocatable", "status")
    key = "allocatable"
    if status.get("allocatable") is None:
        allocatable = f.resources(status, "capacity", "status")  # core v1 defaults.go:SetDefaults_Pod: copied from capacity
        key = "capacity"
    _whole_counts(f, status, key, allocatable)
    images = f.items(status, "images", "status", lambda e, p: ImageState(
        f.str_list(e, "names", p), f.int(e, "sizeBytes", p, 0, bits=64) or 0))
    return Node(
        name=name, labels=checked_labels(f, meta),
        taints=_taints(f, spec),
        unschedulable=f.bool(spec, "unschedulable", "spec"), allocatable=allocatable, images=images, source=source,
        written=_WRITTEN[("taints" in spec, "unschedulable" in spec)],
    )


_WRITTEN = {(taints, cordon): frozenset(name for name, named in (("taints", taints), ("unschedulable", cordon)) if named)
            for taints in (False, True) for cordon in (False, True)}
"""The four `Node.written` values, shared by every node of a dump."""


def decode_namespace(obj: dict, source: Source | None) -> Namespace:
    f, meta, _, name = object_fields(obj, source)
    labels = dict(checked_labels(f, meta))
    labels["kubernetes.io/metadata.name"] = name  # always set by the API server (core v1 defaults.go:SetDefaults_Pod)
    phase = f.str(f.map(obj, "status", ""), "phase", "status")
    return Namespace(name, labels, source, terminating=meta.get("deletionTimestamp") is not None or phase == "Terminating")


def decode_priority_class(obj: dict, source: Source | None) -> PriorityClass:
    f, _, _, name = object_fields(obj, source)
    if obj.get("value") is None:
        raise f.error("value", "Required value")
    policy = f.str(obj, "preemptionPolicy", "") or "PreemptLowerPriority"
    if policy not in ("PreemptLowerPriority", "Never"):
        raise f.error("preemptionPolicy", f"Unsupported value: {policy!r}: supported values: \"Never\", \"PreemptLowerPriority\"")
    value, global_default = f.int(obj, "value", "") or 0, f.bool(obj, "globalDefault", "")
    problem = _priority_class_problem(name, value, global_default)
    if problem is not None:
        raise f.error(*problem)
    return PriorityClass(name, value, global_default, policy, source)


HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000


def _priority_class_problem(name: str, value: int, global_default: bool) -> tuple[str, str] | None:
    """What the API server refuses a PriorityClass for (scheduling validation.go:ValidatePriorityClass):
    the `system-` names are the two built-in classes, with their values; any other class stays at
    or below 1,000,000,000 — above it only the cluster's own critical pods may go. (field, text)."""
    if name.startswith("system-"):
        known = SYSTEM_PRIORITY_CLASSES.get(name)
        if known is None:
            why = f"{name} is not a known system priority class"
        elif value != known.value:
            why = f"value of {name} PriorityClass must be {known.value}"
        elif global_default:
            why = f"globalDefault of {name} PriorityClass must be false"
        else:
            return None
        return "metadata.name", f"Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: {why}"
    if value > HIGHEST_USER_DEFINABLE_PRIORITY:
        return "value", f"Forbidden: maximum allowed value of a user defined priority is {HIGHEST_USER_DEFINABLE_PRIORITY}"
    return None


def decode_runtime_class(obj: dict, source: Source | None) -> RuntimeClass:
    f, _, _, name = object_fields(obj, source)
    overhead_raw = f.map(obj, "overhead", "")
    scheduling = f.map(obj, "scheduling", "")
    return RuntimeClass(
        name=name, handler=f.str(obj, "handler", ""),
        overhead=f.resources(overhead_raw, "podFixed", "overhead") if overhead_raw.get("podFixed") else None,
        node_selector=f.str_map(scheduling, "nodeSelector", "scheduling") if scheduling.get("nodeSelector") else None,
        tolerations=f.items(scheduling, "tolerations", "scheduling", lambda e, p: toleration(f, e, p)),
        source=source,
    )


def decode_pdb(obj: dict, source: Source | None) -> PodDisruptionBudget:
    f, _, namespace, name = object_fields(obj, source)
    spec = f.map(obj, "spec", "")
    check_budget(f, spec)
    status = f.map(obj, "status", "")
    return PodDisruptionBudget(
        namespace=namespace, name=name, selector=label_selector(f, spec, "selector", "spec"),
        disruptions_allowed=f.int(status, "disruptionsAllowed", "status", 0) or 0,
        disrupted_pods=frozenset(f.map(status, "disruptedPods", "status")), source=source,
        min_available=_int_or_percent(spec.get("minAvailable")),
        max_unavailable=_int_or_percent(spec.get("maxUnavailable")),
        counted="disruptionsAllowed" in status, surplus=_surplus(f, status), locked=_locked(f, status),
        desired_healthy=f.int(status, "desiredHealthy", "status"),
        unhealthy_pod_eviction_policy=f.str(spec, "unhealthyPodEvictionPolicy", "spec") or "IfHealthyBudget",
    )


def _surplus(f: Fields, status: dict) -> int | None:
    """currentHealthy − desiredHealthy from a counted status (one that gives only
    disruptionsAllowed, written by hand, is taken at it: None)."""
    if "currentHealthy" in status and "desiredHealthy" in status:
        return (f.int(status, "currentHealthy", "status", 0) or 0) - (f.int(status, "desiredHealthy", "status", 0) or 0)
    return None


def _locked(f: Fields, status: dict) -> bool:
    """Whether the controller allows nothing whatever the pods do: no pod expected
    (disruption.go:updatePdbStatus), or its count failed (failSafe: the DisruptionAllowed
    condition's reason SyncFailed)."""
    failed = any(isinstance(c, dict) and c.get("type") == "DisruptionAllowed" and c.get("reason") == "SyncFailed"
                 for c in f.list(status, "conditions", "status"))
    return failed or f.int(status, "expectedPods", "status", 1) == 0


def _int_or_percent(value: object) -> int | str | None:
    """An IntOrString as written, only compared (a spec changed or not): not interpreted here."""
    return value if isinstance(value, (int, str)) and not isinstance(value, bool) else None


def decode_service(obj: dict, source: Source | None) -> Service:
    f, _, namespace, name = object_fields(obj, source)
    spec = f.map(obj, "spec", "")
    check_service(f, spec)
    selector = f.str_map(spec, "selector", "spec") if spec.get("selector") is not None else None
    return Service(namespace, name, selector, source)


def decode_autoscaler(obj: dict, source: Source | None) -> Autoscaler:
    _, _, namespace, name = object_fields(obj, source)
    return Autoscaler(namespace, name, obj, source)


def decode_daemonset(obj: dict, source: Source | None) -> DaemonSet:
    """Kept whole: its template is read when a what-if gives it a node (`kwhatif.whatif.daemons`).
    Its selector is judged now, as the API server judged it."""
    f, _, namespace, name = object_fields(obj, source)
    spec = f.map(obj, "spec", "")
    controller_selector(f, "DaemonSet", spec)
    return DaemonSet(namespace, name, obj, source, template_pod(spec, namespace, name, source), apply_base(obj))


def decode_controller(obj: dict, source: Source | None) -> Controller:
    f, meta, namespace, name = object_fields(obj, source)
    spec = f.map(obj, "spec", "")
    kind = obj["kind"]
    replicas = f.int(spec, "replicas", "spec")
    if replicas is not None and replicas < 0:
        raise f.error("spec.replicas", f"Invalid value: {replicas}: must be greater than or equal to 0")
    if kind == "ReplicationController":
        return Controller(kind, namespace, name, map_selector=controller_map_selector(f, spec), source=source,
                          replicas=replicas)
    desired = f.str_map(meta, "annotations", "metadata").get(DESIRED_REPLICAS, "")
    return Controller(kind, namespace, name, selector=controller_selector(f, kind, spec), source=source,
                      replicas=replicas, deployment_replicas=int(desired) if desired.isdigit() else None,
                      written_selector=written_form(spec.get("selector")),
                      fixed=statefulset_fixed(f, spec) if kind == "StatefulSet" else (),
                      template=template_pod(spec, namespace, name, source), owner=controller_of(f, meta),
                      apply_base=apply_base(obj), spec=spec if kind == "StatefulSet" else None)


def controller_of(f: Fields, meta: dict) -> OwnerReference | None:
    """The owner reference with controller: true (a Deployment's ReplicaSet: the Deployment)."""
    return next((ref for ref in owner_references(f, meta) if ref.controller), None)


def decode_template_owner(obj: dict, source: Source | None) -> TemplateOwner | None:
    """A Deployment or CronJob the snapshot holds (with a status: a controller runs it), kept by
    name only (`TemplateOwner`: its ReplicaSets and Jobs are read, `SHOWN_BY_WHAT_THEY_MADE`);
    None for a manifest among the cluster inputs (`never_run`). A Deployment the API server
    would refuse for its selector is refused either way."""
    f, _, namespace, name = object_fields(obj, source)
    deployment = f.map(obj, "spec", "") if obj["kind"] == "Deployment" else None
    if deployment is not None:
        controller_selector(f, "Deployment", deployment)
    if "status" not in obj:
        return None
    if deployment is None:
        return TemplateOwner(obj["kind"], namespace, name, source)
    return TemplateOwner("Deployment", namespace, name, source, template_pod(deployment, namespace, name, source),
                         apply_base(obj), deployment)


def apply_base(obj: dict) -> ApplyBase | None:
    """The object's spec and its last client-side apply's, as written, when it has both."""
    applied = last_applied(obj.get("metadata"))
    written, spec = (applied or {}).get("spec"), obj.get("spec")
    return ApplyBase(spec, written) if isinstance(spec, dict) and isinstance(written, dict) else None


def template_pod(spec: dict, namespace: str, name: str, source: Source | None) -> Pod | None:
    """A controller's pod template as a pod named after it (its labels, annotations and spec);
    None when it has none, or one the pod decoder refuses (its pods were read, or refused, on
    their own: a template is only compared with)."""
    template = spec.get("template")
    if not isinstance(template, dict):
        return None
    written = template.get("metadata")
    meta: dict[str, Any] = written if isinstance(written, dict) else {}
    manifest = {"apiVersion": "v1", "kind": "Pod", "spec": template.get("spec") or {},
                "metadata": {"name": name, "namespace": namespace, "labels": meta.get("labels") or {},
                             "annotations": meta.get("annotations") or {}}}
    try:
        return decode_pod(manifest, source)
    except InputError:
        return None


STATEFULSET_FIXED = (("serviceName", ""), ("podManagementPolicy", "OrderedReady"))
"""StatefulSet spec fields ValidateStatefulSetUpdate keeps as they are, with their defaults
(apps v1 defaults.go:SetDefaults_StatefulSet): besides the selector and the claim templates."""


def statefulset_fixed(f: Fields, spec: dict) -> tuple[tuple[str, str], ...]:
    """STATEFULSET_FIXED's fields, then each claim template's (`_claim_template_fields`)."""
    return (tuple((key, f.str(spec, key, "spec") or default) for key, default in STATEFULSET_FIXED)
            + _claim_template_fields(f, spec))


def _claim_template_fields(f: Fields, spec: dict) -> tuple[tuple[str, str], ...]:
    """The fields of each volumeClaimTemplate an update may not change (ValidateStatefulSetUpdate
    compares the whole template, semantically) that a snapshot and a manifest write alike: access
    modes, class, volume mode (defaulted to Filesystem), requests and limits (by value: 2048Mi,
    2Gi and 2147483648 are one quantity) — a storage resize is the classic refused update —, and
    its labels and annotations (`TEMPLATE_METADATA`: compared where both sides state a key — a
    chart's version label bumped is refused too). (Not compared: selector, data source.)"""
    out: list[tuple[str, str]] = []
    for i, template in enumerate(f.items(spec, "volumeClaimTemplates", "spec", lambda e, p: e)):
        path = f"spec.volumeClaimTemplates[{i}]"
        claim, meta = f.map(template, "spec", path), f.map(template, "metadata", path)
        at = f"volumeClaimTemplates[{f.str(meta, 'name', f'{path}.metadata')}]"
        out += [(f"{at}.spec.accessModes", ", ".join(f.str_list(claim, "accessModes", f"{path}.spec"))),
                (f"{at}.spec.storageClassName", f.str(claim, "storageClassName", f"{path}.spec")),
                (f"{at}.spec.volumeMode", f.str(claim, "volumeMode", f"{path}.spec") or "Filesystem")]
        resources = f.map(claim, "resources", f"{path}.spec")
        for kind in ("requests", "limits"):
            amounts = f.resources(resources, kind, f"{path}.spec.resources")
            out += [(f"{at}.spec.resources.{kind}.{name}", str(pod_amount(f"{kind}.{name}", amounts[name])))
                    for name in sorted(amounts)]
        for key in ("labels", "annotations"):
            out += [(f"{at}{TEMPLATE_METADATA}{key}[{k}]", v)
                    for k, v in sorted(f.str_map(meta, key, f"{path}.metadata").items())]
    return tuple(out)


TEMPLATE_METADATA = ".metadata."
"""The part of a claim template field's name that marks its labels and annotations: a dump may
carry keys the manifest never wrote (and the other way round), so only keys on both sides count."""


def decode_job(obj: dict, source: Source | None) -> RunningJob | None:
    """A Job the snapshot holds (one with a status: a controller has run it); None for a
    manifest among the cluster inputs (`never_run`)."""
    if "status" not in obj:
        return None
    f, meta, namespace, name = object_fields(obj, source)
    spec, status = f.map(obj, "spec", ""), f.map(obj, "status", "")
    completions = f.int(spec, "completions", "spec")
    done = any(isinstance(c, dict) and c.get("type") in FINISHED_CONDITIONS and c.get("status") == "True"
               for c in f.list(status, "conditions", "status"))
    managed_by = f.str(spec, "managedBy", "spec")
    elsewhere = bool(managed_by) and managed_by != "kubernetes.io/job-controller"
    return RunningJob(namespace, name, completions, f.int(spec, "parallelism", "spec", 1) or 0,
                      f.str(spec, "completionMode", "spec") == "Indexed", f.int(status, "succeeded", "status", 0) or 0,
                      _indexes(f.str(status, "completedIndexes", "status"), completions),
                      _indexes(f.str(status, "failedIndexes", "status"), completions),
                      f.int(status, "terminating", "status", 0) or 0,
                      done or bool(meta.get("deletionTimestamp")) or elsewhere,
                      f.str(spec, "podReplacementPolicy", "spec") == "Failed" or spec.get("podFailurePolicy") is not None,
                      job_immutables(spec), source, controller_of(f, meta), _failures_left(f, spec, status))


DEFAULT_BACKOFF_LIMIT = 6  # batch v1 defaults.go SetDefaults_Job


def _failures_left(f: Fields, spec: dict, status: dict) -> int | None:
    """`RunningJob.failures_left`: spec.backoffLimit less status.failed; None under a
    podFailurePolicy or backoffLimitPerIndex (they decide which failures count, per index)."""
    if spec.get("podFailurePolicy") is not None or spec.get("backoffLimitPerIndex") is not None:
        return None
    limit = f.int(spec, "backoffLimit", "spec", DEFAULT_BACKOFF_LIMIT, bits=32)
    return (DEFAULT_BACKOFF_LIMIT if limit is None else limit) - (f.int(status, "failed", "status", 0) or 0)


JOB_IMMUTABLE = ("podFailurePolicy", "backoffLimitPerIndex")
"""Job spec fields ValidateJobSpecUpdate keeps as they are (beside completions, completionMode
and the template, which `check` judges on their own)."""


def job_immutables(spec: dict) -> tuple[tuple[str, str], ...]:
    """The immutable fields a Job's spec sets, each as canonical JSON."""
    return tuple((key, json.dumps(spec[key], sort_keys=True)) for key in JOB_IMMUTABLE if spec.get(key) is not None)


FINISHED_CONDITIONS = ("Complete", "Failed", "FailureTarget", "SuccessCriteriaMet")
"""syncJob: with one of these true the Job is finished (manageJob never runs)."""
_INTERVAL = re.compile(r"([0-9]+)(?:-([0-9]+))?")


def _indexes(text: str, completions: int | None) -> frozenset[int]:
    """An interval list of completion indexes ("1,3-5,7"), as indexed_job_utils.go
    parseIndexesFromString reads it: a corrupt interval is skipped, an index from
    `completions` on is dropped."""
    out: set[int] = set()
    for part in text.split(","):
        match = _INTERVAL.fullmatch(part)
        if match is None or completions is None:
            continue
        low, high = int(match[1]), int(match[2] or match[1])
        out.update(range(low, min(high, completions - 1) + 1))
    return frozenset(out)


def decode_limit_range(obj: dict, source: Source | None) -> LimitRange:
    f, _, namespace, name = object_fields(obj, source)
    spec = f.map(obj, "spec", "")
    items = f.items(spec, "limits", "spec", lambda e, p: _limit_range_item(f, e, p))
    f.refuse(limit_range_problems(f, spec))
    return LimitRange(namespace, name, items, source)


def _limit_range_item(f: Fields, raw: dict, path: str) -> LimitRangeItem:
    """A Container item gets its defaults (`default_container_item`)."""
    kind = f.str(raw, "type", path)
    default, request = dict(f.resources(raw, "default", path)), dict(f.resources(raw, "defaultRequest", path))
    low, high = f.amounts(raw, "min", path) or {}, f.amounts(raw, "max", path) or {}
    if kind == "Container":
        default_container_item(default, request, {n: q.value for n, q in low.items()},
                               {n: q.value for n, q in high.items()})
    return LimitRangeItem(kind, default, request, low, high, f.amounts(raw, "maxLimitRequestRatio", path) or {})


def _scope(f: Fields, raw: dict, path: str) -> ScopeRequirement:
    return ScopeRequirement(f.str(raw, "scopeName", path), f.str(raw, "operator", path),
                            f.str_list(raw, "values", path))


def decode_resource_quota(obj: dict, source: Source | None) -> ResourceQuota:
    """spec.scopes become Exists requirements ahead of spec.scopeSelector's (resourcequota
    controller.go:getScopeSelectorsFromQuota)."""
    f, _, namespace, name = object_fields(obj, source)
    spec = f.map(obj, "spec", "")
    status = f.map(obj, "status", "")
    scopes = tuple(ScopeRequirement(s, "Exists") for s in f.str_list(spec, "scopes", "spec"))
    selector = f.map(spec, "scopeSelector", "spec")
    scopes += f.items(selector, "matchExpressions", "spec.scopeSelector", lambda e, p: _scope(f, e, p))
    f.refuse(resource_quota_problems(f, spec))
    return ResourceQuota(namespace, name, f.amounts(spec, "hard", "spec") or {}, scopes,
                         f.amounts(status, "hard", "status"), f.amounts(status, "used", "status"), source)


DECODERS: dict[str, Callable[[dict, Source | None], Any]] = {
    "Pod": decode_pod,
    "Job": decode_job,
    "Deployment": decode_template_owner,
    "CronJob": decode_template_owner,
    "Node": decode_node,
    "Namespace": decode_namespace,
    "PriorityClass": decode_priority_class,
    "RuntimeClass": decode_runtime_class,
    "PodDisruptionBudget": decode_pdb,
    "Service": decode_service,
    "ReplicaSet": decode_controller,
    "StatefulSet": decode_controller,
    "ReplicationController": decode_controller,
    "DaemonSet": decode_daemonset,
    "HorizontalPodAutoscaler": decode_autoscaler,
    "LimitRange": decode_limit_range,
    "ResourceQuota": decode_resource_quota,
    "PersistentVolumeClaim": decode_pvc,
    "PersistentVolume": decode_pv,
    "StorageClass": decode_storage_class,
    "CSINode": decode_csi_node,
    "CSIDriver": decode_csi_driver,
    "CSIStorageCapacity": decode_csi_storage_capacity,
    "VolumeAttachment": decode_volume_attachment,
    **DRA_DECODERS,
}


SHOWN_BY_WHAT_THEY_MADE = {"Deployment": "apps", "Job": "batch", "CronJob": "batch", "ControllerRevision": "apps"}
"""Kinds (and their API groups) a snapshot holds — `kwhatif snapshot` captures Deployments and
Jobs, `kubectl get all` prints the rest — whose scheduling is all in what they made: the
ReplicaSets and pods, which are read. Not read (but a Job's spec and progress, `decode_job`, which
`check` needs to update it), and not counted among the ignored kinds either (`--strict` would
refuse every live snapshot); a custom kind of the same name in another group is ignored as any
other."""


def shown_by_what_it_made(obj: dict) -> bool:
    group = str(obj.get("apiVersion") or "").rpartition("/")[0]
    return SHOWN_BY_WHAT_THEY_MADE.get(str(obj.get("kind"))) == group


def never_run(obj: dict) -> bool:
    """A workload written by hand (no status: no controller has run it) among cluster inputs:
    its pods are in no snapshot; `check`, `place` and `explain -f` are where they get made."""
    return str(obj.get("kind")) in ("Deployment", "Job", "CronJob") and "status" not in obj


def decode(obj: dict, source: Source | None) -> Any | None:
    """The typed object for a known kind, or None for kinds kwhatif does not read."""
    kind = obj.get("kind")
    if not isinstance(kind, str) or not kind:
        raise InputError("kind is required", source, object_ref(obj), "kind")
    if not isinstance(obj.get("apiVersion"), str) or not obj.get("apiVersion"):
        raise InputError("apiVersion is required", source, object_ref(obj), "apiVersion")
    if not kubernetes_kind(obj, source):
        return None
    decoder = DECODERS.get(kind)
    return decoder(obj, source) if decoder else None
