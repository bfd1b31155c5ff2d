"""What every controller shares: the workload object, deterministic names and hashes, and the
pod template → Pod step (through the pod decoder, so pods from templates are validated exactly
as pods from manifests are)."""

from __future__ import annotations

import copy
import hashlib
import uuid
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

import orjson

from kwhatif.api.objects import Controller, Node, Pod
from kwhatif.api.storage import PersistentVolumeClaim
from kwhatif.errors import InputError, Source
from kwhatif.load.pods import HUGEPAGES_ALONE, decode_pod, hugepages_alone
from kwhatif.golang import not_supported
from kwhatif.load.fields import Fields, object_fields
from kwhatif.load.pod_spec_checks import restart_policy
from kwhatif.load.selectors import checked_annotations, checked_labels

# k8s.io/apimachinery/pkg/util/rand: the alphabet of generated names and SafeEncodeString.
ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"
# names.SimpleNameGenerator: a generateName base longer than 63 - 5 characters is cut.
MAX_NAME_LENGTH = 63
RANDOM_LENGTH = 5
MAX_GENERATED_BASE = MAX_NAME_LENGTH - RANDOM_LENGTH
# apps/v1 ControllerRevisionHashLabelKey: the DaemonSet and StatefulSet controllers stamp each pod
# with its ControllerRevision.
REVISION_LABEL = "controller-revision-hash"


@dataclass(frozen=True)
class Workload:
    """A controller object read from a manifest (Deployment, ReplicaSet, StatefulSet, DaemonSet,
    Job, CronJob, ReplicationController, HorizontalPodAutoscaler), kept as its mapping: each
    controller module reads the fields it needs with `Fields`, so errors name the field."""

    kind: str
    api_version: str
    namespace: str
    name: str
    uid: str
    obj: dict[str, Any]
    source: Source | None = None

    @property
    def ref(self) -> str:
        return f"{self.kind}/{self.namespace}/{self.name}"

    @property
    def fields(self) -> Fields:
        return Fields(self.source, self.ref)

    @property
    def spec(self) -> dict[str, Any]:
        return self.fields.map(self.obj, "spec", "")

    @property
    def metadata(self) -> dict[str, Any]:
        return self.fields.map(self.obj, "metadata", "")


def decode_workload(obj: dict[str, Any], source: Source | None) -> Workload:
    """The workload, its own labels and annotations judged as ValidateObjectMeta judges them: a
    gate must not pass a manifest `kubectl apply` refuses."""
    f, meta, namespace, name = object_fields(obj, source)
    checked_labels(f, meta)
    checked_annotations(f, meta)
    kind = str(obj["kind"])
    uid = f.str(meta, "uid", "metadata") or deterministic_uid(kind, namespace, name)
    return Workload(kind, str(obj.get("apiVersion", "")), namespace, name, uid, obj, source)


def deterministic_uid(kind: str, namespace: str, name: str) -> str:
    """The uid the API server would assign, made stable: a UUIDv5 of the object's identity."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"kwhatif:{kind}/{namespace}/{name}"))


def fnv32a(data: bytes) -> int:
    h = 0x811C9DC5
    for byte in data:
        h ^= byte
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


def safe_encode(text: str) -> str:
    """rand.SafeEncodeString: each byte mapped into the alphabet without vowels (no bad words)."""
    return "".join(ALPHANUMS[ord(c) % len(ALPHANUMS)] for c in text)


def template_hash(template: Any, collision_count: int = 0) -> str:
    """A pod-template-hash / controller-revision-hash as the controllers spell it:
    SafeEncodeString of the decimal FNV-32a of the template. kube-controller-manager hashes its
    Go printout of the object, which cannot be reproduced offline; kwhatif hashes the template's
    canonical JSON instead (stable, same length and alphabet)."""
    data = orjson.dumps(template, option=orjson.OPT_SORT_KEYS)
    if collision_count:
        data += str(collision_count).encode()
    return safe_encode(str(fnv32a(data)))


def random_suffix(seed: str) -> str:
    """The 5 characters generateName appends, deterministic: derived from `seed`."""
    digest = hashlib.sha256(seed.encode()).digest()
    return "".join(ALPHANUMS[b % len(ALPHANUMS)] for b in digest[:RANDOM_LENGTH])


def generate_name(base: str, seed: str) -> str:
    """names.SimpleNameGenerator.GenerateName with a deterministic suffix."""
    if len(base) > MAX_GENERATED_BASE:
        base = base[:MAX_GENERATED_BASE]
    return base + random_suffix(seed)


class NameSet:
    """Generated names of one workload, unique like the API server makes them (a name already
    taken is generated again). `existing`: names taken before, read only (shared by the
    scenarios of one cluster); `taken`: the names taken here."""

    def __init__(self, existing: AbstractSet[str] = frozenset()) -> None:
        self.existing = existing
        self.taken: set[str] = set()

    def generate(self, base: str, seed: str) -> str:
        attempt = 0
        while True:
            name = generate_name(base, f"{seed}#{attempt}" if attempt else seed)
            if name not in self.taken and name not in self.existing:
                self.taken.add(name)
                return name
            attempt += 1


def owner_reference(api_version: str, kind: str, name: str, uid: str) -> dict[str, Any]:
    """metav1.NewControllerRef: controller and blockOwnerDeletion true."""
    return {"apiVersion": api_version, "kind": kind, "name": name, "uid": uid,
            "controller": True, "blockOwnerDeletion": True}


RUNS_FOREVER = {"Deployment": "ReplicaSet", "ReplicaSet": "ReplicaSet", "ReplicationController": "ReplicationController",
                "DaemonSet": "DaemonSet", "StatefulSet": "StatefulSet"}
"""The kinds whose pods run until deleted, with the word their validation names them by (a
Deployment's template is validated as its ReplicaSet's)."""
DEFAULT_PROGRESS_DEADLINE = 600  # apps/v1 defaults.go:SetDefaults_Deployment


def check_controller_spec(w: Workload) -> None:
    """What the API server refuses of a long-running controller beyond what kwhatif reads (apps
    validation.go: ValidatePodTemplateSpecForReplicaSet and the DaemonSet's, StatefulSet's and
    ReplicationController's twins; ValidateDeploymentSpec...): a template whose pods would stop
    (restartPolicy other than Always, an activeDeadlineSeconds), negative minReadySeconds or
    revisionHistoryLimit, a Deployment's progress deadline (600 s when unset) not beyond its
    minReadySeconds."""
    f, spec = w.fields, w.spec
    pod_spec = f.map(f.map(spec, "template", "spec"), "spec", "spec.template")
    restart = restart_policy(f, pod_spec, "spec.template.spec")  # the template's own refusal comes first
    if restart != "Always":
        raise f.error("spec.template.spec.restartPolicy", not_supported(restart, ("Always",)))
    if pod_spec.get("activeDeadlineSeconds") is not None:
        raise f.error("spec.template.spec.activeDeadlineSeconds",
                      f"Forbidden: activeDeadlineSeconds in {RUNS_FOREVER[w.kind]} is not Supported")
    ready = non_negative(w, "minReadySeconds") or 0
    if w.kind in ("Deployment", "DaemonSet", "StatefulSet"):
        non_negative(w, "revisionHistoryLimit")
    if w.kind == "Deployment":
        deadline = non_negative(w, "progressDeadlineSeconds")
        deadline = DEFAULT_PROGRESS_DEADLINE if deadline is None else deadline
        if deadline <= ready:
            raise f.error("spec.progressDeadlineSeconds", f"Invalid value: {deadline}: must be greater than "
                          "minReadySeconds")


def non_negative(w: Workload, key: str, bits: int = 32) -> int | None:
    """spec.`key` (an int of `bits`), refused when negative (ValidateNonnegativeField)."""
    value = w.fields.int(w.spec, key, "spec", bits=bits)
    if value is not None and value < 0:
        raise w.fields.error(f"spec.{key}", f"Invalid value: {value}: must be greater than or equal to 0")
    return value


def template_of(w: Workload, parent: dict[str, Any], path: str) -> dict[str, Any]:
    """The pod template at `path` (`spec.template`), a deep copy controllers may change. An
    empty `metadata:` (null, as Helm renders one) is no metadata, as the API server reads it."""
    f = w.fields
    template = f.opt_map(parent, "template", path)
    if template is None:
        raise f.error(f"{path}.template", "Required value")
    copied = copy.deepcopy(template)
    if copied.get("metadata") is None:
        copied["metadata"] = {}
    return copied


def make_pod(w: Workload, template: dict[str, Any], template_path: str, name: str,
             labels: dict[str, str], owner: dict[str, Any], annotations: dict[str, str] | None = None,
             spec: dict[str, Any] | None = None) -> Pod:
    """The pod a controller creates from `template` (controller.GetPodFromTemplate): template
    labels/annotations/spec, the given name and owner, in the workload's namespace. Decoded by
    the pod decoder; a bad template is an InputError naming the template's field."""
    meta = template.get("metadata")
    if not isinstance(meta, dict):
        meta = {}
    merged_annotations = dict(meta.get("annotations") or {})
    merged_annotations.update(annotations or {})
    manifest = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": w.namespace, "labels": labels,
                     "annotations": merged_annotations, "ownerReferences": [owner]},
        "spec": spec if spec is not None else (template.get("spec") or {}),
    }
    try:
        pod = decode_pod(manifest, w.source)
    except InputError as err:
        field_path = f"{template_path}.{err.field}" if err.field else template_path
        raise InputError(err.message, w.source, w.ref, field_path) from None
    alone = hugepages_alone(pod)  # the template as written: no LimitRange applies to a workload
    if alone is not None:
        raise InputError(HUGEPAGES_ALONE, w.source, w.ref, f"{template_path}.{alone}")
    return pod


def replicas(w: Workload, default: int = 1) -> int:
    f = w.fields
    count = f.int(w.spec, "replicas", "spec", default)
    if count is None or count < 0:
        raise f.error("spec.replicas", f"Invalid value: {count}: must be greater than or equal to 0")
    return count


MAX_PODS_A_WORKLOAD = 1_000_000
"""More pods than a workload is simulated with: Kubernetes' own scalability limits stop at
150,000 pods a cluster, and a million pods take minutes and gigabytes — a replica count beyond it
(an int32 the API server takes) is refused rather than left to exhaust the machine."""


def wanted_replicas(w: Workload, ctx: Context) -> int:
    """The replicas a controller creates: the override (an HPA's, the running count) or its own."""
    count = ctx.replicas_override.get((w.kind, w.namespace, w.name), replicas(w))
    within_limit(w.fields, "spec.replicas", count)
    return count


def within_limit(f: Fields, path: str, count: int) -> None:
    if count > MAX_PODS_A_WORKLOAD:
        raise f.error(path, f"{count:,} pods: kwhatif simulates at most {MAX_PODS_A_WORKLOAD:,} pods a workload")


def template_labels(w: Workload, template: dict[str, Any], path: str) -> dict[str, str]:
    """The pod template's labels, judged with its annotations as ValidatePodTemplateSpec does (at
    `<path>.labels` and `<path>.annotations`, its paths): judged even when no pod is made
    (`replicas: 0`), after the controller's selector, as upstream."""
    f = w.fields
    meta = f.map(template, "metadata", path)
    labels = checked_labels(f, meta, "labels", path)
    checked_annotations(f, meta, path)
    return dict(labels)


@dataclass
class Expanded:
    """What one workload turns into: its pods in creation order, plus the objects its controller
    creates that scheduling reads (the ReplicaSet of a Deployment for default spreading, the
    StatefulSet itself, the claims of volumeClaimTemplates)."""

    workload: Workload
    pods: list[Pod] = field(default_factory=list)
    controllers: list[Controller] = field(default_factory=list)
    pvcs: list[PersistentVolumeClaim] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    pinned: dict[str, str] = field(default_factory=dict)
    """A DaemonSet's pods: pod key → the node its pod is pinned to."""
    keeps: frozenset[str] = frozenset()
    """A DaemonSet: the nodes it starts no pod on where a pod of it keeps running
    (NodeShouldRunDaemonPod's shouldContinueRunning: a NoSchedule taint it does not tolerate)."""


@dataclass
class Context:
    """What expansion may read: the cluster's nodes (DaemonSets), the simulation clock (CronJob
    job names), the replica counts HorizontalPodAutoscalers impose, and the pod names the
    namespace has taken (a DaemonSet's pods on nodes added to a running cluster avoid them)."""

    nodes: list[Node]
    now: str = "1970-01-01T00:00:00Z"
    replicas_override: dict[tuple[str, str, str], int] = field(default_factory=dict)
    taken_names: AbstractSet[str] = frozenset()


def replica_pods(w: Workload, ctx: Context, template: dict[str, Any], labels: dict[str, str],
                 owner: dict[str, Any]) -> list[Pod]:
    """The pods a ReplicaSet-like controller creates: `replicas` (or the override) copies of the
    template named `<name>-<5 chars>`."""
    count = wanted_replicas(w, ctx)
    names = NameSet()
    return [make_pod(w, template, "spec.template", names.generate(f"{w.name}-", f"{w.uid}/{i}"), labels, owner)
            for i in range(count)]
