"""Workloads → the pods their controllers would create (names, labels, ownerReferences, creation
order), so that default spreading and (anti-)affinity see them as in the cluster.

`load_workloads(paths)` reads manifests (workload kinds as `Workload`, every other kind through
the cluster decoder, all schema-validated); `expand_objects` turns them into pods per workload;
`apply_to_cluster` adds what the controllers and the manifests bring along (the ReplicaSet a
Deployment creates, StatefulSets, claims, Services, PDBs, missing namespaces)."""

from __future__ import annotations

import copy
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import BinaryIO, cast

from kwhatif.api.objects import Autoscaler, Namespace, Node, Pod, RejectedPod
from kwhatif.api.dra import ResourceClaim, ResourceClaimTemplate
from kwhatif.api.storage import PersistentVolumeClaim
from kwhatif.errors import InputError, Source
from kwhatif.load.cluster import Named, apply_object, decode_docs, rejected_pod_warnings
from kwhatif.load.disruption import count_budgets
from kwhatif.load.documents import RawDoc, in_namespace
from kwhatif.load.reader import read_inputs, skipped_warnings
from kwhatif.load.refs import object_ref
from kwhatif.load.schema import validate_object
from kwhatif.load.versions import kubernetes_kind
from kwhatif.api.cluster import Cluster
from kwhatif.workloads import (
    cronjob,
    daemonset,
    deployment,
    hpa,
    job,
    replicaset,
    replicationcontroller,
    statefulset,
)
from kwhatif.workloads.common import RUNS_FOREVER, Context, Expanded, Workload, check_controller_spec, decode_workload
from kwhatif.workloads.strategy import strategy_of
from kwhatif.workloads.ephemeral import add_ephemeral_claims
from kwhatif.workloads.pv_controller import add_claims, bind_immediate_claims
from kwhatif.workloads.operators import operated, operated_warning
from kwhatif.text import listed

CONTROLLERS: dict[str, ModuleType] = {
    "Deployment": deployment, "ReplicaSet": replicaset, "StatefulSet": statefulset, "DaemonSet": daemonset,
    "Job": job, "CronJob": cronjob, "ReplicationController": replicationcontroller,
}
WORKLOAD_KINDS = frozenset(CONTROLLERS) | {hpa.KIND}
NAMESPACE_LABEL = "kubernetes.io/metadata.name"
# Namespaces every cluster has (created by the API server): added silently when a dump lacks them.
SYSTEM_NAMESPACES = frozenset({"default", "kube-system", "kube-public", "kube-node-lease"})

__all__ = ["Expanded", "Expansion", "Workload", "apply_to_cluster", "expand", "expand_objects", "load_workloads",
           "namesake_warnings", "pods_to_place"]


@dataclass
class Expansion:
    groups: list[Expanded] = field(default_factory=list)
    others: list[Named] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def pods(self) -> list[Pod]:
        return [p for g in self.groups for p in g.pods]


def load_workloads(paths: Sequence[str], stdin: BinaryIO | None = None, namespace: str | None = None,
                   validate: str = "strict", rejected_pods: bool = False) -> tuple[list[object], list[str]]:
    """Every object of the manifests in input order: `Workload`s for controller kinds, typed
    objects for the rest (Pods, Services, PDBs, ...), each validated against its schema.
    Operator-managed custom resources are left out, named in one warning (`operators`).
    `namespace` (`-n`) goes to the objects that have none, as `kubectl apply -n` does. `validate`:
    what unknown fields are (`schema.UNKNOWN_FIELDS`); by default errors, as `kubectl apply`
    refuses them — a manifest with a misspelt field would otherwise pass a check and fail to apply.
    `rejected_pods`: a Pod the API server would refuse is kept as a RejectedPod (reported, the
    rest placed: `pods_to_place`), else its error is the run's (a check judges every manifest)."""
    skipped: list[str] = []
    docs = read_inputs(paths, stdin, skipped)
    if namespace is not None:
        in_namespace(docs, namespace)
    order: dict[Source | None, int] = {doc.source: i for i, doc in enumerate(docs)}
    workloads: list[object] = []
    warnings: list[str] = skipped_warnings(skipped)
    rest = []
    managed: list[RawDoc] = []
    seen: dict[tuple[str, str, str], Workload] = {}
    for doc in docs:
        if isinstance(doc.kind, str) and doc.kind in WORKLOAD_KINDS and kubernetes_kind(doc.obj, doc.source):
            warnings.extend(f"{doc.source}: {object_ref(doc.obj)}: {w}" for w in validate_object(doc, validate))
            workload = decode_workload(doc.obj, doc.source)
            key = (workload.kind, workload.namespace, workload.name)
            if key in seen:  # kubectl apply semantics, as for cluster objects: the last one wins
                warnings.append(f"{doc.source}: {workload.ref}: duplicate of the object at {seen[key].source}; "
                                "the last one wins")
                workloads.remove(seen[key])
            seen[key] = workload
            workloads.append(workload)
        elif operated(doc):
            managed.append(doc)
        else:
            rest.append(doc)
    note = operated_warning(managed)
    warnings += [note] if note else []
    others, more = decode_docs(rest, full_validation=True, validate=validate, reject_pods=rejected_pods) \
        if rest else ([], [])
    objects = sorted(workloads + others, key=lambda o: order.get(getattr(o, "source", None), len(order)))
    return objects, warnings + more


SCALABLE_TARGETS = ("Deployment", "ReplicaSet", "StatefulSet", "ReplicationController")
RUNNING_TARGETS = {"Deployment": "apps/v1", "StatefulSet": "apps/v1"}
"""The kinds whose spec as it runs the snapshot keeps (`Cluster.running_spec`)."""


def autoscaled_targets(cluster: Cluster, objects: Sequence[object]) -> tuple[list[object], list[str]]:
    """The files' objects with, before each HorizontalPodAutoscaler whose target runs in the
    cluster but is not among them, that target as it runs: the autoscaler sets its replicas
    (`_hpa_overrides`), so a pull request that changes only an autoscaler — minReplicas from 3
    to 30 — is checked for those 30 pods, not passed over. Returns the objects and what was
    added, said."""
    brought = {(o.kind, o.namespace, o.name) for o in objects if isinstance(o, Workload)}
    out: list[object] = []
    said: list[str] = []
    for o in objects:
        if isinstance(o, Workload) and o.kind == hpa.KIND:
            kind, namespace, name = key = hpa.target(o)
            spec = cluster.running_spec(*key) if kind in RUNNING_TARGETS and key not in brought else None
            if spec is not None:
                manifest = {"apiVersion": RUNNING_TARGETS[kind], "kind": kind,
                            "metadata": {"name": name, "namespace": namespace}, "spec": copy.deepcopy(dict(spec))}
                out.append(decode_workload(manifest, o.source))
                brought.add(key)
                said.append(f"{o.ref}: its target {kind}/{namespace}/{name} is not among the workloads but runs in "
                            "the cluster: checked as it runs, at the replicas the autoscaler sets")
        out.append(o)
    return out, said


def _hpa_overrides(objects: Sequence[object], mode: str, warnings: list[str],
                   kept: Mapping[tuple[str, str, str], int],
                   autoscalers: Collection[Autoscaler] = ()) -> dict[tuple[str, str, str], int]:
    """The replicas HPAs impose on the workloads they target: the snapshot's `autoscalers` on
    those among `objects` (the others target what the files do not change), then the files'
    own, which decide over the snapshot's (one the files give targeting nothing of theirs is
    said and ignored)."""
    by_key = {(o.kind, o.namespace, o.name): o for o in objects if isinstance(o, Workload)}
    out = {}
    wanted: dict[tuple[str, str, str], int | None] = {}  # what the snapshot's autoscalers want now
    for a in autoscalers:
        autoscaler = decode_workload(dict(a.manifest), a.source)
        key = hpa.target(autoscaler)
        if key in by_key and key[0] in SCALABLE_TARGETS:
            wanted[key] = hpa.desired(autoscaler)
            out[key] = hpa.replicas_for(autoscaler, by_key[key], mode, kept.get(key), wanted[key])
    for o in objects:
        if isinstance(o, Workload) and o.kind == hpa.KIND:
            key = hpa.target(o)
            target = by_key.get(key)
            if target is None or key[0] not in SCALABLE_TARGETS:
                warnings.append(f"{o.ref}: its target {key[0]}/{key[1]}/{key[2]} is not among the workloads; ignored")
                continue
            now = hpa.desired(o)
            out[key] = hpa.replicas_for(o, target, mode, kept.get(key), wanted.get(key) if now is None else now)
    return out


def expand_objects(objects: Sequence[object], nodes: Sequence[Node], now: str = "1970-01-01T00:00:00Z",
                   replicas_mode: str = "spec", kept: Mapping[tuple[str, str, str], int] | None = None,
                   autoscalers: Collection[Autoscaler] = ()) -> Expansion:
    """Workloads and bare Pods → pods, grouped per workload in input order. `kept`: replica
    counts of workloads that run and leave spec.replicas unset (`existing.kept_replicas`); an
    HorizontalPodAutoscaler decides over them: one of the files, else one of the snapshot's
    (`autoscalers`)."""
    out = Expansion()
    kept = kept or {}
    ctx = Context(list(nodes), now, {**kept, **_hpa_overrides(objects, replicas_mode, out.warnings, kept, autoscalers)})
    for obj in objects:
        if isinstance(obj, Workload):
            if obj.kind in CONTROLLERS:
                if obj.kind in RUNS_FOREVER:
                    check_controller_spec(obj)
                group = CONTROLLERS[obj.kind].expand(obj, ctx)
                strategy_of(obj, len(group.pods))  # a strategy the API server refuses is bad input, new or not
                out.groups.append(group)
                out.warnings.extend(group.warnings)
        elif isinstance(obj, Pod):
            out.groups.append(Expanded(Workload("Pod", "v1", obj.namespace, obj.name, obj.uid, {}, obj.source),
                                       pods=[obj]))
        else:
            out.others.append(cast(Named, obj))  # decoded by the cluster decoder: every kind is named
    return out


ADMIN_ACCESS_LABEL = "resource.kubernetes.io/admin-access"


def refuse_admin_access(cluster: Cluster, obj: object) -> None:
    """What the API server refuses of a ResourceClaim or ResourceClaimTemplate of the files
    (DRAAdminAccess, on in 1.34: validation's AuthorizedForAdmin): a request with adminAccess in a
    namespace without the `resource.kubernetes.io/admin-access: "true"` label — `kubectl apply`
    fails, and the pods wait for a claim that never comes. Judged only when the snapshot lists
    namespaces (otherwise their labels are unknown)."""
    if not isinstance(obj, (ResourceClaim, ResourceClaimTemplate)) or not cluster.namespaces:
        return
    namespace = cluster.namespaces.get(obj.namespace)
    if namespace is not None and namespace.labels.get(ADMIN_ACCESS_LABEL) == "true":
        return
    spec = "spec.spec" if isinstance(obj, ResourceClaimTemplate) else "spec"
    for i, request in enumerate(obj.requests):
        for j, (_, sub) in enumerate(request.alternatives()):
            if sub.admin_access:
                at = "exactly" if request.exactly is not None else f"firstAvailable[{j}]"
                kind = type(obj).__name__
                raise InputError(f"Forbidden: admin access to devices requires the `{ADMIN_ACCESS_LABEL}: true` label "
                                 "on the containing namespace", obj.source, f"{kind}/{obj.namespace}/{obj.name}",
                                 f"{spec}.devices.requests[{i}].{at}.adminAccess")


def workload_refs(objects: Sequence[object]) -> list[str]:
    """The workloads of the files (`Kind/namespace/name`, as a check names them): the controllers'
    and the bare Pods."""
    return [o.ref for o in objects if isinstance(o, Workload) and o.kind in CONTROLLERS or isinstance(o, Pod)]


def expand(objects: Sequence[object], nodes: Sequence[Node], now: str = "1970-01-01T00:00:00Z",
           replicas_mode: str = "spec") -> list[Pod]:
    """The pods the controllers of `objects` would create, in creation order."""
    return expand_objects(objects, nodes, now, replicas_mode).pods


def apply_to_cluster(cluster: Cluster, expansion: Expansion, refused: Collection[int] = ()) -> list[str]:
    """Add to `cluster` the objects that come with the workloads: one the snapshot has by kind,
    namespace and name is replaced, never doubled (rendered manifests of an app that runs carry
    its Namespace, Service and PDB again: that is no news, so no warning); returns warnings
    (namespaces created on the fly). `refused`: the groups whose update the API server refuses,
    whose objects stay as they run."""
    warnings: list[str] = []
    new_claims = [(o.namespace, o.name) for o in expansion.others
                  if isinstance(o, PersistentVolumeClaim) and (o.namespace, o.name) not in cluster.pvcs]
    for obj in expansion.others:
        refuse_admin_access(cluster, obj)
        apply_object(cluster, obj)
    bind_immediate_claims(cluster, new_claims)
    for index, group in enumerate(expansion.groups):
        if index in refused:
            continue
        for controller in group.controllers:
            cluster.controllers[(controller.kind, controller.namespace, controller.name)] = controller
        add_claims(cluster, group.pvcs)
        add_ephemeral_claims(cluster, group.pods)
        for pod in group.pods:
            if pod.namespace not in cluster.namespaces:
                cluster.namespaces[pod.namespace] = Namespace(pod.namespace, {NAMESPACE_LABEL: pod.namespace})
                if pod.namespace not in SYSTEM_NAMESPACES:
                    warnings.append(f"namespace {pod.namespace!r} is not in the snapshot: created for the workloads")
    count_budgets(cluster)
    return warnings



Origins = dict[str, tuple[str, str, str]]
"""Pod key → (kind, namespace, name) of the workload of the input that makes the pod."""


def pods_to_place(paths: Sequence[str], cluster: Cluster, now: str, namespace: str | None = None,
                  validate: str = "strict", replicas_mode: str = "spec") -> tuple[Cluster, list[Pod], list[str], Origins]:
    """Files of pods and workloads (`place`, `explain -f`, `compare`): the pods to add, in input
    order, and a copy of `cluster` with what the workloads bring along (`apply_to_cluster`). A
    bare Pod creates no namespace: in a namespace the cluster lacks, admission refuses it, as
    NamespaceLifecycle does. The pods' origins: the workloads that make them (not bare Pods)."""
    objects, warnings = load_workloads(paths, namespace=namespace, validate=validate, rejected_pods=True)
    cluster = cluster.copy()
    rejected = [o for o in objects if isinstance(o, RejectedPod)]
    objects = [o for o in objects if not isinstance(o, RejectedPod)]
    expansion = expand_objects(objects, cluster.nodes, now, replicas_mode, autoscalers=cluster.autoscalers.values())
    rejected += already_existing(cluster, expansion)
    cluster.rejected_pods.extend(rejected)
    warnings += rejected_pod_warnings(rejected)
    controlled = Expansion([g for g in expansion.groups if g.workload.kind != "Pod"], expansion.others)
    warnings += expansion.warnings + apply_to_cluster(cluster, controlled) + namesake_warnings(cluster, expansion.pods)
    add_ephemeral_claims(cluster, [p for g in expansion.groups if g.workload.kind == "Pod" for p in g.pods])
    if not expansion.pods and not rejected:
        raise InputError(f"no Pod objects in {', '.join(paths)} (nor workloads that create pods)")
    origins = {p.key: (g.workload.kind, g.workload.namespace, g.workload.name) for g in controlled.groups for p in g.pods}
    return cluster, expansion.pods, warnings, origins


def already_existing(cluster: Cluster, expansion: Expansion) -> list[RejectedPod]:
    """The bare Pods named as pods the snapshot has, taken out of `expansion`: creating one, the
    API server answers AlreadyExists (`kwhatif explain NAMESPACE/NAME` explains the one that
    runs). A workload's pods so named are placed as copies (`namesake_warnings`)."""
    taken = {p.key for p in cluster.pods}
    out = []
    for group in expansion.groups:
        if group.workload.kind != "Pod":
            continue
        out += [_already_exists(p) for p in group.pods if p.key in taken]
        group.pods = [p for p in group.pods if p.key not in taken]
    expansion.groups = [g for g in expansion.groups if g.pods or g.workload.kind != "Pod"]
    return out


def _already_exists(pod: Pod) -> RejectedPod:
    said = f'AlreadyExists: pods "{pod.name}" already exists'
    error = InputError(said, pod.source, f"Pod/{pod.namespace}/{pod.name}")
    return RejectedPod(pod.namespace, pod.name, str(error), said, pod.source)


def namesake_warnings(cluster: Cluster, pods: Sequence[Pod]) -> list[str]:
    """A warning for pods to place named as pods the snapshot has (a running pod's own manifest,
    a StatefulSet that runs; `place`, `check --as-new`): placed as copies beside them, which the
    API server would refuse."""
    taken = {p.key for p in cluster.pods}
    same = [p.key for p in pods if p.key in taken]
    if not same:
        return []
    return [f"{len(same)} pod(s) to place are named as pods the snapshot has ({listed(same)}): placed as copies beside "
            "them (creating them, the API server would refuse: AlreadyExists); `kwhatif explain NAMESPACE/NAME` "
            "explains a pod of the snapshot as it is"]
