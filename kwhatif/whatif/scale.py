"""`--scale KIND/NS/NAME=REPLICAS` for a controller of the snapshot (ReplicaSet, StatefulSet,
ReplicationController): the snapshot holds no pod template, so new replicas are copies of one of
the controller's pods (as `recreated`), and the replicas that go are those its controller deletes
first.

ReplicaSet / ReplicationController: controller_utils.go ActivePodsWithRanks
(`kwhatif.workloads.deletion`), over the pods FilterActivePods keeps — neither finished nor
already being deleted (the controller stopped counting those). StatefulSet (OrderedReady and Parallel
alike): the highest ordinals go, new ones take the next ordinals, each with its identity labels
and its own claims (`stateful_replica`)."""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from dataclasses import replace

from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import Pod
from kwhatif.errors import InputError
from kwhatif.load.disruption import count_namespace_again
from kwhatif.workloads.common import MAX_PODS_A_WORKLOAD, NameSet, Workload, deterministic_uid
from kwhatif.workloads.deletion import deletion_order as replica_deletion_order
from kwhatif.workloads.pv_controller import add_claims
from kwhatif.whatif.pods import STATEFULSET, is_finished, recreated, remove_pods, taken_names

SCALABLE = ("ReplicaSet", "StatefulSet", "ReplicationController")
FILE_SCALABLE = ("Deployment", *SCALABLE)  # a workload of check / capacity files: its spec.replicas
SCALE_SYNTAX = re.compile(r"^(?P<kind>[A-Za-z]+)(?:\.apps)?/(?P<namespace>[^/=]+)/(?P<name>[^/=]+)=(?P<replicas>\d+)$")
"""KIND/NAMESPACE/NAME=REPLICAS; KIND as kubectl takes it, with its group or not (`deployment.apps`)."""


def parse_scale(text: str) -> tuple[str, str, str, int]:
    match = SCALE_SYNTAX.match(text)
    if match is None:
        raise InputError(f"--scale {text}: expected KIND/NAMESPACE/NAME=REPLICAS (e.g. ReplicaSet/shop/web-7d9f8=5)")
    kind = KIND_NAMES.get(match["kind"].lower(), match["kind"])
    count = int(match["replicas"])
    if count > MAX_PODS_A_WORKLOAD:
        raise InputError(f"--scale {text}: kwhatif simulates at most {MAX_PODS_A_WORKLOAD:,} pods a workload")
    return kind, match["namespace"], match["name"], count


KIND_NAMES = {alias: kind for kind, aliases in (
    ("Deployment", ("deployment", "deployments", "deploy")),
    ("ReplicaSet", ("replicaset", "replicasets", "rs")),
    ("StatefulSet", ("statefulset", "statefulsets", "sts")),
    ("ReplicationController", ("replicationcontroller", "replicationcontrollers", "rc")),
) for alias in aliases}
"""The names kubectl takes for each kind (lower case, plural, short name)."""


def replicas_of(cluster: Cluster, kind: str, namespace: str, name: str) -> list[Pod]:
    """The controller's live pods, in input order: a ReplicaSet's are those FilterActivePods
    keeps (neither finished nor being deleted); a StatefulSet's terminating pod still holds its
    ordinal (the controller waits for it, then makes it again)."""
    out = []
    for pod in cluster.pods:
        ref = pod.controller_ref
        if ref is not None and (ref.kind, ref.name) == (kind, name) and pod.namespace == namespace \
                and not is_finished(pod) and (kind == STATEFULSET or pod.deletion_timestamp is None):
            out.append(pod)
    return out


def ordinal(pod: Pod) -> int:
    tail = pod.name.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else -1


def deletion_order(pods: list[Pod], kind: str, now: str, related: list[Pod] | None = None) -> list[Pod]:
    """The pods in the order the controller deletes them (module docstring); `related`: the
    pods whose count per node ranks them (`related_pods`)."""
    if kind == STATEFULSET:
        return sorted(pods, key=ordinal, reverse=True)
    return replica_deletion_order(pods, now, related)


def related_pods(cluster: Cluster, kind: str, namespace: str, name: str, pods: list[Pod]) -> list[Pod]:
    """replica_set.go getIndirectlyRelatedPods: the active pods of every ReplicaSet with the same
    controller as this one (a Deployment's old and new ReplicaSets) — how many of them share a
    node ranks a pod for deletion; `pods` alone for a ReplicaSet no controller owns."""
    known = cluster.controllers.get((kind, namespace, name))
    owner = known.owner if known is not None else None
    if kind != "ReplicaSet" or owner is None:
        return pods
    siblings = [n for (k, ns, n), c in cluster.controllers.items() if (k, ns) == (kind, namespace)
                and c.owner is not None and (c.owner.kind, c.owner.name) == (owner.kind, owner.name)]
    return [p for sibling in siblings for p in replicas_of(cluster, kind, namespace, sibling)]


def scale(cluster: Cluster, text: str, now: str) -> tuple[str, list[Pod], list[Pod]]:
    """Scale the controller; returns (what was done, pods removed, pods created)."""
    kind, namespace, name, wanted = parse_scale(text)
    if (kind, namespace, name) not in cluster.controllers and kind in FILE_SCALABLE:
        raise InputError(f"--scale {text}: no {kind}/{namespace}/{name} in the cluster (workloads of check "
                         "and capacity files are scaled there)")
    if kind not in SCALABLE:
        raise InputError(f"--scale {text}: KIND must be one of {', '.join(FILE_SCALABLE)} (in the snapshot, "
                         "a Deployment is scaled through its ReplicaSet)")
    pods = replicas_of(cluster, kind, namespace, name)
    if wanted > len(pods) and not pods:
        raise InputError(f"--scale {text}: {kind}/{namespace}/{name} has no pod to copy (the snapshot "
                         "holds no pod template)")
    related = related_pods(cluster, kind, namespace, name, pods)
    gone = deletion_order(pods, kind, now, related)[:len(pods) - wanted] if wanted < len(pods) else []
    remove_pods(cluster, gone, now, "scale", replace=False)
    new = new_replicas(cluster, pods, kind, wanted - len(pods), now)
    cluster.pods.extend(new)
    known = cluster.controllers.get((kind, namespace, name))
    if known is not None:  # a Deployment's ReplicaSet: the Deployment scaled through it (its scale too)
        deployment = None if known.deployment_replicas is None else wanted
        cluster.controllers[(kind, namespace, name)] = replace(known, replicas=wanted, deployment_replicas=deployment)
    count_namespace_again(cluster, namespace)  # the budgets expect the new scale
    return f"scale {kind}/{namespace}/{name} from {len(pods)} to {wanted}", gone, new


def new_replicas(cluster: Cluster, pods: list[Pod], kind: str, count: int, now: str) -> list[Pod]:
    """`count` new pending replicas copied from the first pod: StatefulSet ordinals after the
    highest, each with its own identity and claims (`stateful_replica`), generated names otherwise."""
    model = pods[0] if pods else None
    if model is None or count <= 0:
        return []
    names = taken_names(cluster, model.namespace)
    if kind == STATEFULSET:
        start = max(ordinal(p) for p in pods) + 1
        return [stateful_replica(cluster, model, start + i, now, names) for i in range(count)]
    return [recreated(model, now, names, f"scale/{i}") for i in range(count)]


POD_NAME_LABEL, POD_INDEX_LABEL = "statefulset.kubernetes.io/pod-name", "apps.kubernetes.io/pod-index"
_BINDING_ANNOTATIONS = ("pv.kubernetes.io/bind-completed", "pv.kubernetes.io/bound-by-controller",
                        "volume.kubernetes.io/selected-node")


def stateful_replica(cluster: Cluster, model: Pod, number: int, now: str, names: NameSet) -> Pod:
    """Replica `number` of the StatefulSet `model` belongs to, as stateful_set_utils.go
    newStatefulSetPod makes it from the set's template: `updateIdentity` (its name and its
    pod-name and pod-index labels) and `updateStorage` — each claim template's volume names the
    replica's own claim, `<template>-<set>-<ordinal>`, which the controller creates just before
    the pod (unbound: a copy of the model's claim, as the template made both). A copy of the model
    pod would take the model's identity and its claim (bound on the model's node)."""
    set_name, old = model.name.rsplit("-", 1)[0], ordinal(model)
    pod = recreated(model, now, names, "scale", name=f"{set_name}-{number}")
    labels = dict(pod.labels)
    for key, value in ((POD_NAME_LABEL, pod.name), (POD_INDEX_LABEL, str(number))):
        if key in labels:
            labels[key] = value
    volumes = []
    for volume in pod.volumes:
        source = volume.get("persistentVolumeClaim") or {}
        template = str(volume.get("name", ""))
        if source.get("claimName") != f"{template}-{set_name}-{old}":
            volumes.append(volume)
            continue
        claim = f"{template}-{set_name}-{number}"
        volumes.append({**volume, "persistentVolumeClaim": {**source, "claimName": claim}})
        _create_claim(cluster, pod.namespace, f"{template}-{set_name}-{old}", claim)
    return pod.evolve(labels=labels, volumes=tuple(volumes))


def _create_claim(cluster: Cluster, namespace: str, model: str, name: str) -> None:
    """The claim of a new StatefulSet replica, unless one of that name is there already (the
    controller reuses it: a set scaled down keeps its claims)."""
    source = cluster.pvcs.get((namespace, model))
    if source is None or (namespace, name) in cluster.pvcs:
        return
    add_claims(cluster, [source.evolve(
        name=name, uid=deterministic_uid("PersistentVolumeClaim", namespace, name), volume_name="", phase="Pending",
        creation_timestamp="", annotations={k: v for k, v in source.annotations.items() if k not in _BINDING_ANNOTATIONS})])


def scales_workload_file(text: str, cluster: Cluster) -> bool:
    """Whether `--scale` names a workload of the command's files rather than a snapshot controller."""
    kind, namespace, name, _ = parse_scale(text)
    return kind in FILE_SCALABLE and (kind, namespace, name) not in cluster.controllers


def scale_workloads(objects: Sequence[object], texts: Sequence[str]) -> list[object]:
    """The workload files' objects with spec.replicas set as each `--scale` asks (a
    HorizontalPodAutoscaler targeting the workload still decides its replicas); a target that is
    not among them is bad input."""
    wanted = {parse_scale(t)[:3]: (t, parse_scale(t)[3]) for t in texts}
    out: list[object] = []
    for obj in objects:
        key = (obj.kind, obj.namespace, obj.name) if isinstance(obj, Workload) else None
        if isinstance(obj, Workload) and key in wanted:
            manifest = copy.deepcopy(obj.obj)
            manifest.setdefault("spec", {})["replicas"] = wanted.pop(key)[1]
            obj = replace(obj, obj=manifest)
        out.append(obj)
    if wanted:
        text = next(iter(wanted.values()))[0]
        raise InputError(f"--scale {text}: no such workload in the snapshot or the workload files")
    return out
