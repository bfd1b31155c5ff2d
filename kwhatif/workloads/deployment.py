"""Deployment (apps/v1): the ReplicaSet the deployment controller creates for a new Deployment —
named `<deployment>-<pod-template-hash>`, its template and selector carrying the
`pod-template-hash` label — and that ReplicaSet's pods `<deployment>-<hash>-<5 chars>`."""

from __future__ import annotations

import copy
import re

from kwhatif.errors import InputError
from kwhatif.load.selectors import label_selector
from kwhatif.workloads import replicaset
from kwhatif.workloads.common import (
    Context,
    Expanded,
    Workload,
    deterministic_uid,
    replicas,
    template_hash,
    template_of,
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


def scaled(w: Workload, key: str, total: int, round_up: bool) -> int:
    """intstr.GetScaledValueFromIntOrPercent: an int, or a percent of `total` rounded up or down."""
    f = w.fields
    path = "spec.strategy.rollingUpdate"
    raw = f.map(f.map(w.spec, "strategy", "spec"), "rollingUpdate", "spec.strategy").get(key, "25%")
    if isinstance(raw, int) and not isinstance(raw, bool):
        value = raw
    elif isinstance(raw, str) and re.fullmatch(r"\d+%", raw):
        percent = int(raw[:-1])
        value = -(-total * percent // 100) if round_up else total * percent // 100
    else:
        raise f.error(f"{path}.{key}", f"Invalid value: {raw!r}: must be an integer or a percentage (e.g. '25%')")
    if value < 0:
        raise f.error(f"{path}.{key}", f"Invalid value: {value}: must be greater than or equal to 0")
    return value


def rollout_count(w: Workload, count: int) -> int:
    """New-template pods at the start of an update: maxSurge for RollingUpdate (when maxSurge and
    maxUnavailable are both 0, the API server refuses the Deployment), every replica for
    Recreate."""
    f = w.fields
    kind = f.str(f.map(w.spec, "strategy", "spec"), "type", "spec.strategy") or "RollingUpdate"
    if kind == "Recreate":
        return count
    if kind != "RollingUpdate":
        raise f.error("spec.strategy.type", f"Unsupported value: {kind!r}: supported values: \"Recreate\", \"RollingUpdate\"")
    surge = scaled(w, "maxSurge", count, True)
    if surge == 0 and scaled(w, "maxUnavailable", count, False) == 0:
        raise f.error("spec.strategy.rollingUpdate.maxUnavailable",
                      "Invalid value: 0: may not be 0 when `maxSurge` is 0")
    return min(surge, count) if count else 0


def expand(w: Workload, ctx: Context) -> Expanded:
    count = ctx.replicas_override.get((w.kind, w.namespace, w.name), replicas(w))
    recreate = False
    if ctx.rollout:
        f = w.fields
        recreate = f.str(f.map(w.spec, "strategy", "spec"), "type", "spec.strategy") == "Recreate"
        count = rollout_count(w, count)
    manifest = replica_set_manifest(w, count)
    rs = Workload("ReplicaSet", "apps/v1", w.namespace, manifest["metadata"]["name"],
                  _rs_uid(w, manifest["metadata"]["name"]), manifest, w.source)
    try:
        inner = replicaset.expand(rs, Context(ctx.nodes, ctx.now))
    except InputError as err:  # the ReplicaSet's fields are the Deployment's: name the Deployment
        raise InputError(err.message, w.source, w.ref, err.field) from None
    out = Expanded(w, inner.pods, inner.controllers, inner.pvcs, inner.warnings)
    if recreate:
        out.replaces.append((w.namespace, label_selector(w.fields, w.spec, "selector", "spec")))
    return out


def _rs_uid(w: Workload, rs_name: str) -> str:
    return deterministic_uid("ReplicaSet", w.namespace, rs_name)
