"""Deployment (apps/v1): the ReplicaSet the deployment controller creates for a new Deployment —
named `<deployment>-<pod-template-hash>`, its template and selector carrying the
`pod-template-hash` label — and that ReplicaSet's pods `<deployment>-<hash>-<5 chars>`."""

from __future__ import annotations

import copy

from kwhatif.errors import InputError
from kwhatif.load.selectors import controller_selector
from kwhatif.workloads import replicaset
from kwhatif.workloads.common import (
    Context,
    Expanded,
    Workload,
    deterministic_uid,
    template_hash,
    template_of,
    wanted_replicas,
)

KIND = "Deployment"
HASH_LABEL = "pod-template-hash"


def replica_set_manifest(w: Workload, count: int) -> dict:
    """The ReplicaSet as deployment/sync.go getNewReplicaSet builds it."""
    spec = w.spec
    f = w.fields
    template = template_of(w, spec, "spec")
    collision = f.int(f.map(w.obj, "status", ""), "collisionCount", "status", 0) or 0
    pod_hash = template_hash(template, collision)
    controller_selector(f, KIND, spec)
    meta = template.setdefault("metadata", {})
    if not isinstance(meta, dict):
        f.map(template, "metadata", "spec.template")  # raises, naming the field
    meta["labels"] = {**(meta.get("labels") or {}), HASH_LABEL: pod_hash}
    selector = copy.deepcopy(f.opt_map(spec, "selector", "spec") or {})
    selector["matchLabels"] = {**(selector.get("matchLabels") or {}), HASH_LABEL: pod_hash}
    labels = {**dict(f.str_map(w.metadata, "labels", "metadata")), HASH_LABEL: pod_hash}
    return {
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": f"{w.name}-{pod_hash}", "namespace": w.namespace, "labels": labels,
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": KIND, "name": w.name, "uid": w.uid,
                                          "controller": True, "blockOwnerDeletion": True}]},
        "spec": {"replicas": count, "selector": selector, "template": template},
    }


def expand(w: Workload, ctx: Context) -> Expanded:
    count = wanted_replicas(w, ctx)
    manifest = replica_set_manifest(w, count)
    rs = Workload("ReplicaSet", "apps/v1", w.namespace, manifest["metadata"]["name"],
                  _rs_uid(w, manifest["metadata"]["name"]), manifest, w.source)
    try:
        inner = replicaset.expand(rs, Context(ctx.nodes, ctx.now))
    except InputError as err:  # the ReplicaSet's fields are the Deployment's: name the Deployment
        raise InputError(err.message, w.source, w.ref, err.field) from None
    return Expanded(w, inner.pods, inner.controllers, inner.pvcs, inner.warnings)


def _rs_uid(w: Workload, rs_name: str) -> str:
    return deterministic_uid("ReplicaSet", w.namespace, rs_name)
