"""Inputs → a `Cluster`: read, decode, de-duplicate (last wins, with a warning naming both places).

What a cluster input (`-c`) gets checked for, and what is only warned about (`--strict` turns every
warning into an error):

- Every object: structure (`validate_light`) and the types, quantities and selectors of the fields
  kwhatif reads (the decoder); anything wrong is an `InputError` (exit 2).
- Unknown fields are warned about as kubectl does (`unknown field "spec.foo"`) when the inputs hold at
  most `UNKNOWN_FIELD_CHECK_LIMIT` objects: a small input is likely hand-written, and the schema walk
  costs about 1 ms an object. Bigger inputs are dumps the API server printed, and the API server
  prunes unknown fields before it stores an object, so a dump cannot hold any; checking a
  150,000-pod dump would take minutes. Pods given to `place`/`explain -f` are always checked in full.
- Duplicates (same kind/namespace/name): the last one wins, with a warning naming both places.
- Kinds kwhatif does not read (custom resources...) are ignored, with one warning counting them;
  kinds whose scheduling is all in what they made (Deployments, Jobs: `decode.SHOWN_BY_WHAT_THEY_MADE`)
  are skipped without one — but a Deployment, Job or CronJob without status (a manifest no
  controller has run: its pods are in no snapshot) gets a warning of its own.
- A pod bound to a node missing from the snapshot: one warning per pod naming the pod and the node
  (its usage is set aside, as the scheduler's cache would).
- A node whose bound pods request more than its allocatable: kept (the dump says they run there),
  with a warning naming the node and the resources.
"""

from __future__ import annotations

import itertools
import operator
from typing import Any, BinaryIO, Callable, Protocol, Sequence, cast

from kwhatif.api.objects import (
    Autoscaler, Controller, DaemonSet, LimitRange, Namespace, Node, Pod, PodDisruptionBudget, PriorityClass, RejectedPod,
    RunningJob, RuntimeClass, Service, TemplateOwner,
)
from kwhatif.api.dra import DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice
from kwhatif.api.quota import ResourceQuota
from kwhatif.api.storage import (
    CSIDriver, CSINode, CSIStorageCapacity, PersistentVolume, PersistentVolumeClaim, StorageClass, VolumeAttachment,
)
from kwhatif.api.cluster import Cluster
from kwhatif.errors import InputError, Source, located
from kwhatif.memory import collector_paused
from kwhatif.load.applied import applied
from kwhatif.load.decode import decode, never_run, shown_by_what_it_made
from kwhatif.load.forked import both
from kwhatif.load.raw_pods import PodReader
from kwhatif.load.refs import object_ref
from kwhatif.load.documents import RawDoc
from kwhatif.load.prepared import is_prepared, read_prepared
from kwhatif.load.reader import read_inputs, skipped_warnings
from kwhatif.load.disruption import count_budgets
from kwhatif.load.schema import unknown_field_warnings, validate_light, validate_object


class Named(Protocol):
    """A decoded object as far as de-duplication cares: every kind has a name (the decoders'
    table types them all as `Any`); only namespaced kinds have a namespace."""

    @property
    def name(self) -> str: ...


def _never_run_warnings(docs: list[tuple[int, RawDoc]], controllers: Sequence[Controller]) -> Said:
    """A workload manifest without status among the cluster inputs: none of its pods is in the
    snapshot — unless it is a Deployment whose ReplicaSets are (a dump whose status was dropped):
    those are read, and its pods with them."""
    sets = {(c.namespace, c.name.rpartition("-")[0]) for c in controllers
            if c.kind == "ReplicaSet" and c.deployment_replicas is not None}
    return [(index, f"{doc.source}: {object_ref(doc.obj)}: a workload manifest among the cluster inputs (no status: "
                    "no controller has run it), so none of its pods is in the snapshot; give it to check, place or "
                    "explain -f to schedule them")
            for index, doc in docs if not (doc.kind == "Deployment" and (_namespace_of(doc), _name_of(doc)) in sets)]


def _namespace_of(doc: RawDoc) -> str:
    namespace = _meta(doc).get("namespace")
    return namespace if isinstance(namespace, str) and namespace else "default"


def _name_of(doc: RawDoc) -> str:
    return str(_meta(doc).get("name") or "")


def _meta(doc: RawDoc) -> dict[str, Any]:
    meta = doc.obj.get("metadata") if isinstance(doc.obj, dict) else None
    return meta if isinstance(meta, dict) else {}


def _identity(obj: Named) -> tuple:
    kind = "Pod" if isinstance(obj, RejectedPod) else type(obj).__name__
    if isinstance(obj, (Controller, TemplateOwner)):  # a Deployment and a CronJob may share a name
        return (obj.kind, obj.namespace, obj.name)
    return (kind, getattr(obj, "namespace", ""), obj.name)


UNKNOWN_FIELD_CHECK_LIMIT = 1000
"""Cluster inputs with at most this many objects are checked for unknown fields (see above)."""


def _decode_doc(doc: RawDoc, full_validation: bool, warnings: list[str], pods: PodReader,
                unknown_fields: bool = False, validate: str = "warn", reject_pods: bool = False) -> Named | None:
    """One document to its typed object. With `reject_pods` (pods to place), a Pod the API server
    would refuse (any error in it, once it names a pod) becomes a RejectedPod, reported while the
    rest of the run goes on; the cluster's inputs are the environment, which must be right."""
    try:
        return _decode_one(doc, full_validation, warnings, pods, unknown_fields, validate)
    except InputError as err:
        rejected = _rejected_pod(doc, err) if reject_pods else None
        if rejected is None:
            raise
        return rejected


def _rejected_pod(doc: RawDoc, err: InputError) -> RejectedPod | None:
    """The pod an error is about, when the document is a Pod with a name (else the error stays
    the run's: nothing to report it as)."""
    if doc.kind != "Pod" or not isinstance(_meta(doc).get("name"), str) or not _name_of(doc):
        return None
    reason = f"{err.field}: {err.message}" if err.field else err.message
    return RejectedPod(_namespace_of(doc), _name_of(doc), str(err), " ".join(reason.split()), doc.source)


def _decode_one(doc: RawDoc, full_validation: bool, warnings: list[str], pods: PodReader,
                unknown_fields: bool = False, validate: str = "warn") -> Named | None:
    """One document to its typed object. Pods of a big JSON List are read from their bytes
    (the structural check is the reader's types); everything else from the parsed object."""
    if doc.raw is not None and doc.kind == "Pod" and not full_validation:
        pod = pods.read(doc.raw, doc.source)
        if pod is not None:
            return pod
    if full_validation or (isinstance(doc.kind, str) and doc.kind in KEPT_WHOLE):
        warnings.extend(f"{doc.source}: {object_ref(doc.obj)}: {w}" for w in validate_object(doc, validate))
    else:
        validate_light(doc)
        if unknown_fields:
            warnings.extend(f"{doc.source}: {object_ref(doc.obj)}: {w}" for w in unknown_field_warnings(doc))
    return decode(doc.obj, doc.source)


KEPT_WHOLE = frozenset({"DaemonSet"})
"""Kinds decoded as their manifest, read later (a DaemonSet's template, when a what-if adds a
node): checked in full here, so that a bad field is an input error of the load, not of the
what-if that reads it (nor a crash of one that tries a node for a suggestion)."""

Said = list[tuple[int, str]]
"""Warnings with the index of the document they are about."""

PARALLEL_DECODE_MIN = 20000
"""Inputs of at least this many objects are decoded on two cores (`kwhatif.load.forked`)."""
CHILD_SHARE = 0.36
"""The share of the objects the child decodes: it also pickles them, which costs about as much
as decoding; this process unpickles them at a quarter of that."""


def decode_docs(docs: Sequence[RawDoc], full_validation: bool = False, unknown_fields: bool | None = None,
                progress: Callable[[int, int], None] | None = None,
                parallel_min: int = PARALLEL_DECODE_MIN, validate: str = "warn",
                reject_pods: bool = False) -> tuple[list[object], list[str]]:
    """Typed objects in input order; duplicates keep the last one (kubectl apply semantics).

    `full_validation` checks every object against the Kubernetes schemas (about 1 ms an object:
    right for manifests a user writes, too slow for a 150,000-pod dump, which gets the structural
    check; decoding itself still refuses wrong types and bad quantities, naming the field).
    `unknown_fields` (default: inputs of at most UNKNOWN_FIELD_CHECK_LIMIT objects) adds the
    unknown-field warnings alone to that structural check; `validate` is what the unknown fields
    of fully validated objects are (`schema.UNKNOWN_FIELDS`). `progress` hears (objects decoded,
    objects) every 10,000 objects decoded here. From `parallel_min` objects, the last
    CHILD_SHARE of them are decoded by a forked child meanwhile: the same objects, warnings and
    first error. `reject_pods`: see `_decode_doc`."""
    if unknown_fields is None:
        unknown_fields = len(docs) <= UNKNOWN_FIELD_CHECK_LIMIT

    def part(start: int, end: int, told: Callable[[int, int], None] | None) -> tuple[list[Named | None], Said]:
        return _decoded(docs, start, end, full_validation, unknown_fields, told, validate, reject_pods)

    if len(docs) >= parallel_min:
        cut = len(docs) - int(len(docs) * CHILD_SHARE)
        (objects, warnings), (rest, later) = both(lambda: part(0, cut, progress), lambda: part(cut, len(docs), None),
                                                  lambda: part(cut, len(docs), progress))
        objects += rest
        warnings += later
    else:
        objects, warnings = part(0, len(docs), progress)
    return _last_of_each(docs, objects, warnings)


def _decoded(docs: Sequence[RawDoc], start: int, end: int, full_validation: bool, unknown_fields: bool,
             progress: Callable[[int, int], None] | None, validate: str,
             reject_pods: bool = False) -> tuple[list[Named | None], Said]:
    """docs[start:end] decoded (None for a kind kwhatif does not read), and their warnings."""
    warnings: Said = []
    objects: list[Named | None] = []
    pods = PodReader()
    for index in range(start, end):
        if progress is not None and index % 10000 == 0:
            progress(index, len(docs))
        doc = docs[index]
        said: list[str] = []
        objects.append(_decode_doc(doc, full_validation, said, pods, unknown_fields, validate, reject_pods))
        warnings.extend((index, text) for text in said)
        doc.release()  # a big List's items are decoded one at a time
    return objects, warnings


def _last_of_each(docs: Sequence[RawDoc], decoded: list[Named | None], said: Said) -> tuple[list[object], list[str]]:
    """The decoded objects without the duplicates an object later in the input replaces, and
    the ignored kinds counted; the warnings in input order, each document's in the order they
    were found. An input without ignored kinds and duplicates (every dump the API server wrote)
    is recognised in two C-speed passes over its 150,000 identities."""
    if not any(map(operator.is_, decoded, itertools.repeat(None))):  # `None in` would call each __eq__
        kept = cast(list[Named], decoded)
        if len(set(map(_identity, kept))) == len(kept):
            return list(kept), [text for _, text in sorted(said, key=lambda item: item[0])]
    warnings = list(said)
    seen: dict[tuple, tuple[int, Source]] = {}
    objects: list[object | None] = []
    unknown: dict[str, int] = {}
    hand_written: list[tuple[int, RawDoc]] = []
    for index, (doc, obj) in enumerate(zip(docs, decoded)):
        if obj is None:
            kind = str(doc.kind)
            if not shown_by_what_it_made(doc.obj):
                unknown[kind] = unknown.get(kind, 0) + 1
            elif never_run(doc.obj):
                hand_written.append((index, doc))
            continue
        ident = _identity(obj)
        if ident in seen:
            position, first = seen[ident]
            warnings.append((index, f"{doc.source}: {object_ref(doc.obj)}: duplicate of the object at {first}; "
                                    "the last one wins"))
            objects[position] = None
        seen[ident] = (len(objects), doc.source)
        objects.append(obj)
    warnings += _never_run_warnings(hand_written, [o for o in objects if isinstance(o, Controller)])
    warnings.sort(key=lambda item: item[0])  # stable: a document's own warnings keep their order
    texts = [text for _, text in warnings]
    if unknown:
        kinds = ", ".join(f"{k} ({n})" for k, n in sorted(unknown.items()))
        texts.append(f"ignored kinds kwhatif does not read: {kinds}")
    return [o for o in objects if o is not None], texts


# Where each kind goes in a Cluster: the field, and the key for mapping fields (None: a list).
_PLACES: dict[type, tuple[str, Callable[[Any], Any] | None]] = {
    Node: ("nodes", None),
    Pod: ("pods", None),
    RejectedPod: ("rejected_pods", None),
    Namespace: ("namespaces", lambda o: o.name),
    PriorityClass: ("priority_classes", lambda o: o.name),
    RuntimeClass: ("runtime_classes", lambda o: o.name),
    PodDisruptionBudget: ("pdbs", None),
    Service: ("services", None),
    Controller: ("controllers", lambda o: (o.kind, o.namespace, o.name)),
    RunningJob: ("jobs", lambda o: (o.namespace, o.name)),
    DaemonSet: ("daemonsets", lambda o: (o.namespace, o.name)),
    TemplateOwner: ("template_owners", lambda o: (o.kind, o.namespace, o.name)),
    Autoscaler: ("autoscalers", lambda o: (o.namespace, o.name)),
    LimitRange: ("limit_ranges", None),
    ResourceQuota: ("resource_quotas", None),
    PersistentVolumeClaim: ("pvcs", lambda o: (o.namespace, o.name)),
    PersistentVolume: ("pvs", lambda o: o.name),
    StorageClass: ("storage_classes", lambda o: o.name),
    CSINode: ("csi_nodes", lambda o: o.name),
    CSIDriver: ("csi_drivers", lambda o: o.name),
    CSIStorageCapacity: ("csi_storage_capacities", None),
    VolumeAttachment: ("volume_attachments", lambda o: o.name),
    DeviceClass: ("device_classes", lambda o: o.name),
    ResourceSlice: ("resource_slices", lambda o: o.name),
    ResourceClaim: ("resource_claims", lambda o: (o.namespace, o.name)),
    ResourceClaimTemplate: ("claim_templates", lambda o: (o.namespace, o.name)),
}


def rejected_pod_warnings(rejected: Sequence[RejectedPod]) -> list[str]:
    """A warning a pod the API server would refuse: its error line, and what becomes of it."""
    return [f"{r.error} (the API server would reject this pod: it is reported as rejected and not scheduled; "
            "the rest of the run goes on)" for r in rejected]


def bound_pod_warnings(nodes: Sequence[Node], pods: Sequence[Pod]) -> list[str]:
    """Bound pods the snapshot cannot account for: bound to a node missing from the snapshot (the
    scheduler's cache keeps their usage aside). Nodes whose pods request more than they have are
    reported by the engine, from the snapshot's own aggregates."""
    known = {node.name for node in nodes}
    warnings = []
    for pod in pods:
        if pod.node_name and pod.node_name not in known and pod.phase not in ("Succeeded", "Failed"):
            warnings.append(f'{located(pod.source)}Pod/{pod.namespace}/{pod.name}: bound to node "{pod.node_name}", which is not '
                            "in the snapshot; its usage is set aside")
    return warnings


def phaseless_volume_warnings(volumes: Sequence[PersistentVolume]) -> list[str]:
    """A PersistentVolume without status.phase (a hand-written manifest) is never matched to a
    claim: the scheduler's binder takes only Available volumes (pv_helpers.go FindMatchingVolume),
    the phase the PV controller gives a new volume at once. Said, since the claim then reads
    "didn't find available persistent volumes to bind" for a reason the cluster would not have."""
    return [f"{located(pv.source)}PersistentVolume/{pv.name}: no status.phase: kube-scheduler binds claims only to "
            "Available volumes, which the PV controller makes a new one at once; as written it is never picked (add "
            "status: {phase: Available}, or Bound with its claimRef)" for pv in volumes if not pv.phase]


def empty_node_warnings(nodes: Sequence[Node]) -> list[str]:
    """A node without status.allocatable and status.capacity has room for nothing, not even a pod
    (the `pods` count is allocatable too): said, since hand-written Node manifests often omit status."""
    return [f"{located(node.source)}Node/{node.name}: neither status.allocatable nor status.capacity is set: it "
            "holds no pods (add status.allocatable: cpu, memory, pods)" for node in nodes if not node.allocatable]



def add_object(cluster: Cluster, obj: object) -> None:
    """Put a typed object where its kind goes in the cluster (a mapping entry replaces an equal key)."""
    field_name, key = _PLACES[type(obj)]
    target = getattr(cluster, field_name)
    if key is None:
        target.append(obj)
    else:
        target[key(obj)] = obj


def apply_object(cluster: Cluster, obj: Named) -> None:
    """`add_object` for an object that may exist already: one of the same kind, namespace and
    name is replaced, not doubled (two PodDisruptionBudgets of one name would both count
    disruptions; two Nodes of one name are no cluster), as `kubectl apply` replaces it: what
    the server and the controllers own stays (`kwhatif.load.applied`)."""
    if isinstance(obj, PriorityClass):
        refuse_priority_class(cluster, obj)
    field_name, key = _PLACES[type(obj)]
    target = getattr(cluster, field_name)
    if key is None:  # kept in a list: look for its namesake
        identity = _identity(obj)
        for index, old in enumerate(target):
            if _identity(old) == identity:
                target[index] = applied(old, obj)
                return
    elif key(obj) in target:
        obj = applied(target[key(obj)], obj)
    add_object(cluster, obj)


def refuse_priority_class(cluster: Cluster, new: PriorityClass) -> None:
    """What the API server refuses of a PriorityClass applied over the cluster's: a new value or
    preemptionPolicy (ValidatePriorityClassUpdate: immutable — the pods that run keep the
    priority they were admitted with), a second globalDefault (the Priority admission plugin).
    An input error: `kubectl apply` would fail there, and taking the class as changed would
    judge the workloads by a priority they never get."""
    ref = f"PriorityClass/{new.name}"
    old = cluster.priority_classes.get(new.name)
    if old is not None and old.value != new.value:
        raise InputError(f"Forbidden: may not be changed in an update (the cluster's has {old.value}; delete "
                         "and create the class to change it)", new.source, ref, "value")
    if old is not None and old.preemption_policy != new.preemption_policy:
        raise InputError(f"Invalid value: {new.preemption_policy!r}: field is immutable (the cluster's is "
                         f"{old.preemption_policy!r})", new.source, ref, "preemptionPolicy")
    other = next((c.name for c in cluster.priority_classes.values() if c.global_default and c.name != new.name), None)
    if new.global_default and other is not None:
        raise InputError(f"Forbidden: PriorityClass {other} is already marked as default. Only one default can "
                         "exist", new.source, ref, "globalDefault")


def build_cluster(objects: Sequence[object], warnings: list[str] | None = None) -> Cluster:
    cluster = Cluster(warnings=list(warnings or []))
    for obj in objects:
        add_object(cluster, obj)
    cluster.warnings.extend(rejected_pod_warnings(cluster.rejected_pods) + empty_node_warnings(cluster.nodes)
                            + bound_pod_warnings(cluster.nodes, cluster.pods)
                            + phaseless_volume_warnings(list(cluster.pvs.values())))
    count_budgets(cluster)
    return cluster


def load_objects(paths: Sequence[str], stdin: BinaryIO | None = None, full_validation: bool = False,
                 progress: Callable[[int, int], None] | None = None,
                 validate: str = "warn") -> tuple[list[object], list[str]]:
    skipped: list[str] = []
    docs = read_inputs(paths, stdin, skipped)
    objects, warnings = decode_docs(docs, full_validation, progress=progress, validate=validate)
    if progress is not None:
        progress(len(docs), len(docs))
    return objects, skipped_warnings(skipped) + warnings


def load_cluster(paths: Sequence[str], stdin: BinaryIO | None = None, full_validation: bool = False,
                 progress: Callable[[int, int], None] | None = None, for_the_run: bool = False) -> Cluster:
    """The cluster of the inputs; a prepared snapshot (`.kws`, `kwhatif.load.prepared`) is read
    as it was written, and must then be the only input (its objects are already de-duplicated
    and checked: mixing it with manifests would skip that for them). `for_the_run`: the cluster
    lives as long as the process (`kwhatif.memory.collector_paused(keep=True)`)."""
    prepared = [p for p in map(str, paths) if is_prepared(p)]
    if prepared:
        if len(paths) > 1:
            raise InputError("a prepared snapshot (.kws) must be the only -c input; prepare the other inputs with "
                             "it: kwhatif snapshot prepare DUMP... -o FILE.kws", Source(prepared[0]))
        return read_prepared(prepared[0], for_the_run)
    with collector_paused(for_the_run):  # see kwhatif.memory
        objects, warnings = load_objects(paths, stdin, full_validation, progress)
        return build_cluster(objects, warnings)
