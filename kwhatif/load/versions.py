"""The apiVersions at which Kubernetes 1.34 serves the kinds kwhatif reads.

A kind is known by its name and its API group together: `Job` in `batch.volcano.sh` is Volcano's,
`Service` in `serving.knative.dev` Knative's, and neither is read as Kubernetes' own (they are
ignored kinds, counted in the load's warning). A Kubernetes group that does not serve the kind at
that version — a Pod at `apps/v1`, a PodDisruptionBudget at the removed `policy/v1beta1` — is
refused as `kubectl apply` refuses it.
"""

from __future__ import annotations

from typing import Any

from kwhatif.errors import InputError, Source
from kwhatif.load.refs import object_ref

_CORE = ("Pod", "Node", "Namespace", "Service", "ReplicationController", "LimitRange", "ResourceQuota",
         "PersistentVolumeClaim", "PersistentVolume")
_STORAGE = ("StorageClass", "CSINode", "CSIDriver", "CSIStorageCapacity", "VolumeAttachment")
_DRA = ("ResourceSlice", "DeviceClass", "ResourceClaim", "ResourceClaimTemplate")

SERVED: dict[str, tuple[str, ...]] = {
    **{kind: ("v1",) for kind in _CORE},
    **{kind: ("apps/v1",) for kind in ("ReplicaSet", "StatefulSet", "DaemonSet", "Deployment", "ControllerRevision")},
    **{kind: ("batch/v1",) for kind in ("Job", "CronJob")},
    "PodDisruptionBudget": ("policy/v1",),
    "PriorityClass": ("scheduling.k8s.io/v1",),
    "RuntimeClass": ("node.k8s.io/v1",),
    "HorizontalPodAutoscaler": ("autoscaling/v2", "autoscaling/v1"),
    **{kind: ("storage.k8s.io/v1",) for kind in _STORAGE},
    # v1beta2 has v1's shape; v1beta1's is converted as the API server does (`kwhatif.load.dra`).
    **{kind: ("resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1beta1") for kind in _DRA},
}


GROUP_KINDS: dict[str, frozenset[str]] = {
    "": frozenset({"Binding", "ComponentStatus", "ConfigMap", "Endpoints", "Event", "LimitRange", "Namespace", "Node",
                   "PersistentVolume", "PersistentVolumeClaim", "Pod", "PodTemplate", "ReplicationController",
                   "ResourceQuota", "Secret", "Service", "ServiceAccount"}),
    "apps": frozenset({"ControllerRevision", "DaemonSet", "Deployment", "ReplicaSet", "StatefulSet"}),
    "batch": frozenset({"CronJob", "Job"}),
    "policy": frozenset({"Eviction", "PodDisruptionBudget"}),
    "scheduling.k8s.io": frozenset({"PriorityClass"}),
    "node.k8s.io": frozenset({"RuntimeClass"}),
}
"""Every kind Kubernetes 1.34 serves in the groups whose objects scheduling reads most: a kind
outside its group's list is a typo (`Deploymnet`) that `kubectl apply` refuses, not a custom kind."""


def api_group(api_version: object) -> str:
    return str(api_version or "").rpartition("/")[0]


def is_kubernetes_group(group: str) -> bool:
    """Kubernetes' own groups: the core group (""), the plain names (apps, batch, policy...) and *.k8s.io."""
    return "." not in group or group.endswith(".k8s.io")


def kubernetes_kind(obj: dict[str, Any], source: Source | None) -> bool:
    """Whether `obj` is the Kubernetes kind kwhatif reads under its name: False for another
    group's kind of the same name (or a kind kwhatif does not read); InputError for a Kubernetes
    group at a version that does not serve it."""
    kind, api_version = str(obj.get("kind")), str(obj.get("apiVersion") or "")
    served = SERVED.get(kind)
    if served is not None and api_version in served:
        return True
    group = api_group(api_version)
    if not is_kubernetes_group(group):
        return False
    if served is None:
        if kind not in GROUP_KINDS.get(group, {kind}):
            raise InputError(f'no matches for kind "{kind}" in version "{api_version}"', source, object_ref(obj), "kind")
        return False
    raise InputError(f'no matches for kind "{kind}" in version "{api_version}" (Kubernetes 1.34 serves it at '
                     f"{_listed(served)})", source, object_ref(obj), "apiVersion")


def _listed(versions: tuple[str, ...]) -> str:
    return versions[0] if len(versions) == 1 else f"{', '.join(versions[:-1])} and {versions[-1]}"
