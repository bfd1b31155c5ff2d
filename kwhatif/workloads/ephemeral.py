"""The ephemeral volume controller (pkg/controller/volume/ephemeral): for each generic ephemeral
volume of a pod, the PersistentVolumeClaim `<pod>-<volume>` made from its `volumeClaimTemplate`,
controlled by the pod. A pod kwhatif creates (a workload's, one to place) gets its claims at once:
the controller makes them within moments, and the claim's arrival requeues the pod, which
kube-scheduler first tried without them (`waiting for ephemeral volume controller to create the
persistentvolumeclaim`). A pod of the snapshot has the claims the snapshot has."""

from __future__ import annotations

import copy
from collections.abc import Sequence

from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import Pod
from kwhatif.api.storage import PersistentVolumeClaim
from kwhatif.errors import InputError
from kwhatif.load.storage import decode_pvc
from kwhatif.workloads.pv_controller import add_claims


def add_ephemeral_claims(cluster: Cluster, pods: Sequence[Pod]) -> None:
    """Each pod's ephemeral claims into `cluster`, unless a claim of that name is there already
    (the controller leaves it, and VolumeBinding says whether it belongs to the pod); the PV
    controller binds those of an Immediate class at once."""
    add_claims(cluster, [claim for pod in pods for claim in ephemeral_claims(pod)])


def ephemeral_claims(pod: Pod) -> list[PersistentVolumeClaim]:
    """ephemeral controller handleVolume: name `<pod>-<volume>`, the template's labels,
    annotations and spec, the pod as controller owner."""
    out = []
    for index, volume in enumerate(pod.volumes):
        template = volume.get("ephemeral", {}).get("volumeClaimTemplate") if isinstance(volume, dict) else None
        if not isinstance(template, dict):
            continue
        meta = template.get("metadata")
        meta = meta if isinstance(meta, dict) else {}
        manifest = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                    "metadata": {"name": f"{pod.name}-{volume.get('name')}", "namespace": pod.namespace,
                                 "labels": dict(meta.get("labels") or {}),
                                 "annotations": dict(meta.get("annotations") or {}),
                                 "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": pod.name,
                                                      "uid": pod.uid, "controller": True}]},
                    "spec": copy.deepcopy(template.get("spec") or {}), "status": {"phase": "Pending"}}
        try:
            out.append(decode_pvc(manifest, pod.source))
        except InputError as err:
            path = f"spec.volumes[{index}].ephemeral.volumeClaimTemplate"
            raise InputError(err.message, pod.source, f"Pod/{pod.namespace}/{pod.name}",
                             f"{path}.{err.field}" if err.field else path) from None
    return out
