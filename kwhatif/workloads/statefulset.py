"""StatefulSet (apps/v1): pods `<set>-<ordinal>` for ordinals `spec.ordinals.start` (default 0)
to start + replicas - 1, created in ordinal order, with the labels the controller adds
(`statefulset.kubernetes.io/pod-name`, `apps.kubernetes.io/pod-index`,
`controller-revision-hash: <set>-<hash>`), hostname/subdomain, and one PersistentVolumeClaim per
volumeClaimTemplate (`<template>-<set>-<ordinal>`) mounted as the template's volume.

kwhatif creates every replica at once: with `podManagementPolicy: OrderedReady` the controller
waits for each pod to be Running and Ready first (a replica that does not fit blocks the next
ones; kwhatif still tries them and reports each)."""

from __future__ import annotations

import copy

from kwhatif.api.storage import PersistentVolumeClaim
from kwhatif.errors import InputError
from kwhatif.load.decode import decode_controller
from kwhatif.load.storage import decode_pvc
from kwhatif.workloads.common import (
    REVISION_LABEL,
    Context,
    Expanded,
    Workload,
    make_pod,
    owner_reference,
    template_hash,
    template_labels,
    template_of,
    wanted_replicas,
)

KIND = "StatefulSet"
POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"


def _claims(w: Workload, spec: dict) -> list[dict]:
    f = w.fields
    return [dict(c) for c in f.items(spec, "volumeClaimTemplates", "spec", lambda e, p: e)]


def _claim(w: Workload, template: dict, index: int, ordinal: int, selector_labels: dict[str, str]) -> PersistentVolumeClaim:
    """getPersistentVolumeClaims: the template's spec, labels plus the set's matchLabels."""
    f = w.fields
    path = f"spec.volumeClaimTemplates[{index}]"
    meta = f.map(template, "metadata", path)
    claim_name = f.str(meta, "name", f"{path}.metadata")
    if not claim_name:
        raise f.error(f"{path}.metadata.name", "Required value")
    labels = {**f.str_map(meta, "labels", f"{path}.metadata"), **selector_labels}
    manifest = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                "metadata": {"name": f"{claim_name}-{w.name}-{ordinal}", "namespace": w.namespace, "labels": labels},
                "spec": copy.deepcopy(template.get("spec") or {}), "status": {"phase": "Pending"}}
    try:
        return decode_pvc(manifest, w.source)
    except InputError as err:
        raise InputError(err.message, w.source, w.ref, f"{path}.{err.field}" if err.field else path) from None


def expand(w: Workload, ctx: Context) -> Expanded:
    f = w.fields
    spec = w.spec
    template = template_of(w, spec, "spec")
    controller = decode_controller(w.obj, w.source)  # the selector judged there
    labels = template_labels(w, template, "spec.template")
    count = wanted_replicas(w, ctx)
    start = f.int(f.map(spec, "ordinals", "spec"), "start", "spec.ordinals", 0) or 0
    if start < 0:  # ValidateStatefulSetSpec (before the pods' names and labels could say it otherwise)
        raise f.error("spec.ordinals.start", f"Invalid value: {start}: must be greater than or equal to 0")
    revision = f"{w.name}-{template_hash(template)}"
    selector_labels = dict(f.str_map(f.map(spec, "selector", "spec"), "matchLabels", "spec.selector"))
    claim_templates = _claims(w, spec)
    service = f.str(spec, "serviceName", "spec")
    owner = owner_reference("apps/v1", KIND, w.name, w.uid)
    out = Expanded(w, controllers=[controller])
    for ordinal in range(start, start + count):
        name = f"{w.name}-{ordinal}"
        pod_labels = {**labels, POD_NAME_LABEL: name, POD_INDEX_LABEL: str(ordinal), REVISION_LABEL: revision}
        pod_spec = copy.deepcopy(template.get("spec") or {})
        if isinstance(pod_spec, dict):
            pod_spec["hostname"] = name
            if service:
                pod_spec["subdomain"] = service
            volumes = [v for v in (pod_spec.get("volumes") or []) if isinstance(v, dict)]
            for index, claim_template in enumerate(claim_templates):
                claim = _claim(w, claim_template, index, ordinal, selector_labels)
                volume_name = claim.name[: -len(f"-{w.name}-{ordinal}")]
                volumes = [v for v in volumes if v.get("name") != volume_name]
                volumes.append({"name": volume_name, "persistentVolumeClaim": {"claimName": claim.name}})
                out.pvcs.append(claim)
            if claim_templates:
                pod_spec["volumes"] = volumes
        out.pods.append(make_pod(w, template, "spec.template", name, pod_labels, owner, spec=pod_spec))
    return out
