"""Keep only what scheduling reads: snapshots end up in CI artifacts and pull requests, so a value
the scheduler never looks at must not leave the cluster.

Removed from every object: `metadata.managedFields` and every annotation but `KEPT_ANNOTATIONS`
— those of pods and pod templates are kept as digests of their values instead; a workload's
`kubectl.kubernetes.io/last-applied-configuration` (the whole manifest as applied, env values
included) is cut down to what `check` reads of its pod template (`redacted_last_applied`),
another object's goes.
Removed from every container of a pod spec (a Pod's own, and the pod template of each workload
kind): the fields in `DROPPED_CONTAINER_FIELDS` — probe and hook commands may carry credentials,
and no scheduler plugin reads them; env values and sources, envFrom, command and args are kept
as digests (`kwhatif.api.settings`): `check` tells a template changed by them alone, and no value
leaves the cluster. A pod's container statuses lose their states' messages: with
`terminationMessagePolicy: FallbackToLogsOnError` the kubelet copies the last log lines there
(a connection string in a panic). A StatefulSet's claim templates and a CronJob's job template
lose their annotations as any object's metadata does. Secrets and ConfigMaps are never captured at all (`capture.py` does not list
them)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from kwhatif.api.meta import LAST_APPLIED, last_applied, sealed_digest, value_digest
from kwhatif.api.settings import LISTS, redacted_env_from, redacted_env_var, redacted_list

KEPT_ANNOTATIONS = frozenset({
    # Volume binding (volume_binding.go and the PV controller's annotations it honours).
    "pv.kubernetes.io/bind-completed",
    "pv.kubernetes.io/bound-by-controller",
    "pv.kubernetes.io/provisioned-by",
    "volume.kubernetes.io/selected-node",
    "volume.kubernetes.io/storage-provisioner",
    "volume.beta.kubernetes.io/storage-provisioner",
    "volume.beta.kubernetes.io/storage-class",
    # The default StorageClass a claim without a class gets.
    "storageclass.kubernetes.io/is-default-class",
    "storageclass.beta.kubernetes.io/is-default-class",
    # CSINode: in-tree plugins migrated to CSI (volume limits count them as CSI volumes).
    "storage.alpha.kubernetes.io/migrated-plugins",
    # Indexed Jobs: the completion index their pods carry.
    "batch.kubernetes.io/job-completion-index",
    # A Deployment's ReplicaSets: its replica count (what a manifest without spec.replicas keeps).
    "deployment.kubernetes.io/desired-replicas",
    # Which replica a ReplicaSet deletes first (controller_utils.go ActivePodsWithRanks).
    "controller.kubernetes.io/pod-deletion-cost",
})
"""Annotations kwhatif reads (the scheduler reads no other)."""


DROPPED_CONTAINER_FIELDS = ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe")

CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")

STATUS_LISTS = ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses")

POD_TEMPLATE_PATHS: dict[str, tuple[str, ...]] = {
    "Pod": (),
    "ReplicaSet": ("spec", "template"),
    "ReplicationController": ("spec", "template"),
    "StatefulSet": ("spec", "template"),
    "DaemonSet": ("spec", "template"),
    "Deployment": ("spec", "template"),
    "Job": ("spec", "template"),
    "CronJob": ("spec", "jobTemplate", "spec", "template"),
}
"""Where each kind keeps the pod (or pod template: metadata and spec) whose containers are redacted."""

REDACTION_NOTE = ("only what scheduling reads: container probes and lifecycle hooks, managedFields and "
                  "annotations the scheduler never reads were removed (those of pods and pod templates kept as "
                  "salted sha256 digests of their values, as container env, envFrom, command and args are, and a "
                  "workload's last-applied manifest cut down to its pod template's names and digests), and so were "
                  "the messages of container states (log lines); Secrets and ConfigMaps are never captured")
KEEP_ALL_NOTE = "everything kubectl returned (--keep-all); Secrets and ConfigMaps are never captured"


def cluster_salt(namespaces: list[dict[str, Any]]) -> str:
    """The salt of a snapshot's sealed digests: from its cluster's namespaces' UIDs, so that one
    cluster captured again gives the same bytes and another cluster another salt — no table
    of digests made once serves every snapshot (a guessable value can still be tried against
    its digest: the salt is in the snapshot)."""
    uids = sorted(str((ns.get("metadata") or {}).get("uid", "")) for ns in namespaces if isinstance(ns, dict))
    return hashlib.sha256("\n".join(["kwhatif-salt", *uids]).encode()).hexdigest()[:16]


def redact(obj: dict[str, Any], salt: str) -> dict[str, Any]:
    """The object with what scheduling never reads removed (changed in place, and returned). A
    pod's and a pod template's other annotations keep their keys with their values' digests,
    sealed with `salt` (`api.meta.sealed_digest`, `cluster_salt`): `check` tells a template that
    changed by them."""
    kind = str(obj.get("kind"))
    path = POD_TEMPLATE_PATHS.get(kind)
    applied = redacted_last_applied(obj.get("metadata"), path, salt) if path else None
    strip_metadata(obj.get("metadata"), salt if path == () else None)
    if applied is not None:
        obj["metadata"].setdefault("annotations", {})[LAST_APPLIED] = applied
    pod = _walk(obj, path) if path is not None else None
    if pod is not None:
        if path:
            strip_metadata(pod.get("metadata"), salt)
        strip_containers(pod.get("spec"), salt)
    if kind == "Pod":
        strip_state_messages(obj.get("status"))
    for inner in _inner_metadata(obj, kind):
        strip_metadata(inner)
    return obj


def redacted_last_applied(meta: Any, path: tuple[str, ...], salt: str) -> str | None:
    """A workload's last-applied-configuration as a redacted snapshot keeps it: only the pod
    template at `path` of the manifest it holds, and of that only what `check` reads to know
    which fields the last `kubectl apply` wrote (a three-way merge removes only those, and keeps
    what another hand set: `apply.applied_spec`) — labels, the scheduling fields
    (`APPLIED_SPEC_KEPT`) and containers' images, resources and ports as the live template shows
    them anyway, annotation values and containers' env, envFrom, command and args as digests —,
    and the spec.replicas it wrote (one the manifest leaves out is deleted, and defaults to 1).
    Nothing else of it is kept: the annotation holds whatever was applied, credentials
    included. None without one."""
    applied = last_applied(meta)
    template = _walk(applied, path) if applied is not None else None
    if template is None:
        return None
    written_spec = template.get("spec")
    spec: dict[str, Any] = written_spec if isinstance(written_spec, dict) else {}
    kept: dict[str, Any] = {k: spec[k] for k in APPLIED_SPEC_KEPT if k in spec}
    for name in CONTAINER_LISTS[:2]:
        containers = spec.get(name)
        if isinstance(containers, list):
            kept[name] = [_kept_container(c, salt) for c in containers if isinstance(c, dict)]
    template_meta = {"metadata": template["metadata"]} if isinstance(template.get("metadata"), dict) else {}
    strip_metadata(template_meta.get("metadata"), salt)
    minimal: dict[str, Any] = {**template_meta, "spec": kept}
    for key in reversed(path):
        minimal = {key: minimal}
    written = applied.get("spec") if applied is not None else None
    if path[0] == "spec" and isinstance(written, dict) and "replicas" in written:
        minimal["spec"]["replicas"] = written["replicas"]
    return json.dumps(minimal, separators=(",", ":"))


APPLIED_SPEC_KEPT = ("nodeSelector", "tolerations", "volumes", "affinity", "topologySpreadConstraints",
                     "priorityClassName", "runtimeClassName", "schedulerName", "hostNetwork")
"""The pod spec fields a redacted last-applied template keeps as written: what `check` compares
(none a credential: the live template shows them all)."""


def _kept_container(container: dict[str, Any], salt: str) -> dict[str, Any]:
    """A container of a last-applied template: its name, image, resources and ports, its
    settings as digests."""
    kept: dict[str, Any] = {k: container[k] for k in ("name", "image", "resources", "ports", "env", "envFrom",
                                                      "command", "args") if k in container}
    _digest_settings(kept, salt)
    return kept


def strip_metadata(meta: Any, salt: str | None = None) -> None:
    """managedFields and the annotations kwhatif does not read, gone — or, given a `salt`, their
    values replaced by sealed digests (last-applied-configuration, a whole manifest, always gone)."""
    if not isinstance(meta, dict):
        return
    meta.pop("managedFields", None)
    annotations = meta.get("annotations")
    if isinstance(annotations, dict):
        kept = {k: v if k in KEPT_ANNOTATIONS or salt is None else sealed_digest(value_digest(str(v)), salt)
                for k, v in annotations.items() if k in KEPT_ANNOTATIONS or (salt is not None and k != LAST_APPLIED)}
        if kept:
            meta["annotations"] = kept
        else:
            del meta["annotations"]


def strip_containers(spec: Any, salt: str) -> None:
    """Every container of a pod spec without `DROPPED_CONTAINER_FIELDS`, its env values, command
    and args as sealed digests."""
    if not isinstance(spec, dict):
        return
    for name in CONTAINER_LISTS:
        containers = spec.get(name)
        if isinstance(containers, list):
            for container in containers:
                if isinstance(container, dict):
                    for field in DROPPED_CONTAINER_FIELDS:
                        container.pop(field, None)
                    _digest_settings(container, salt)


def strip_state_messages(status: Any) -> None:
    """Every container status without its states' messages (`state` and `lastState`, whatever
    the state): the kubelet may have copied log lines there."""
    if not isinstance(status, dict):
        return
    for name in STATUS_LISTS:
        statuses = status.get(name)
        for entry in statuses if isinstance(statuses, list) else ():
            for key in ("state", "lastState"):
                states = entry.get(key) if isinstance(entry, dict) else None
                for state in states.values() if isinstance(states, dict) else ():
                    if isinstance(state, dict):
                        state.pop("message", None)


def _inner_metadata(obj: dict[str, Any], kind: str) -> list[Any]:
    """The metadata of objects a workload holds beside its pod template: a StatefulSet's claim
    templates, a CronJob's job template."""
    if kind == "StatefulSet":
        claims = _walk(obj, ("spec",)) or {}
        templates = claims.get("volumeClaimTemplates")
        return [t.get("metadata") for t in templates if isinstance(t, dict)] if isinstance(templates, list) else []
    if kind == "CronJob":
        job = _walk(obj, ("spec", "jobTemplate"))
        return [job.get("metadata")] if job is not None else []
    return []


def _digest_settings(container: dict[str, Any], salt: str) -> None:
    env = container.get("env")
    if isinstance(env, list):
        container["env"] = [redacted_env_var(v, salt) if isinstance(v, dict) else v for v in env]
    for key in LISTS:
        if container.get(key):
            container[key] = redacted_list(container[key], salt)
    if container.get("envFrom"):
        container["envFrom"] = redacted_env_from(container["envFrom"], salt)


def _walk(obj: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any] | None:
    here: Any = obj
    for key in path:
        here = here.get(key) if isinstance(here, dict) else None
    return here if isinstance(here, dict) else None
