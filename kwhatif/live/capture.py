"""Capture every kind kwhatif reads from a live cluster into one `kind: List`, through kubectl.

One `kubectl get RESOURCE -A -o json` a kind (`CAPTURED`), after one `kubectl api-resources -o
name` that says which the server serves: a kind it does not serve (no DRA, an old cluster) is
skipped and named, not an error. Each object is redacted (`redact.py`) unless the user keeps all.
The file says what it holds in its List's `metadata.annotations` (the header: a JSON file has no
comments)."""

from __future__ import annotations

import gzip
import re
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import orjson

from kwhatif.errors import InputError
from kwhatif.files import write_whole
from kwhatif.live.kubectl import Kubectl
from kwhatif.live.redact import KEEP_ALL_NOTE, REDACTION_NOTE, cluster_salt, redact

CAPTURED = (
    "namespaces",
    "priorityclasses.scheduling.k8s.io",
    "runtimeclasses.node.k8s.io",
    "limitranges",
    "resourcequotas",
    "storageclasses.storage.k8s.io",
    "csidrivers.storage.k8s.io",
    "csinodes.storage.k8s.io",
    "csistoragecapacities.storage.k8s.io",
    "volumeattachments.storage.k8s.io",
    "persistentvolumes",
    "persistentvolumeclaims",
    "deviceclasses.resource.k8s.io",
    "resourceslices.resource.k8s.io",
    "resourceclaims.resource.k8s.io",
    "resourceclaimtemplates.resource.k8s.io",
    "nodes",
    "services",
    "poddisruptionbudgets.policy",
    "deployments.apps",
    "horizontalpodautoscalers.autoscaling",
    "replicasets.apps",
    "statefulsets.apps",
    "daemonsets.apps",
    "replicationcontrollers",
    "jobs.batch",
    "cronjobs.batch",
    "pods",
)
"""Resources as `kubectl api-resources -o name` prints them (group-qualified, so a custom resource
with the same short name is never picked), in the order the file holds them. Secrets and
ConfigMaps are deliberately absent."""

KUBECTL_AT_ONCE = 6
"""kubectl calls run side by side: each pays its own start-up, discovery and, with an exec auth
plugin (cloud logins), a token; 25 of them one after the other would take that many times as long.
Results are still taken in `CAPTURED` order."""

HEADER = "kwhatif.snapshot/"
"""Prefix of the List annotations that describe the snapshot."""


@dataclass
class Snapshot:
    """What was captured: the objects, how many of each resource, and what the server lacked."""

    keep_all: bool
    items: list[dict[str, Any]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)

    def document(self) -> dict[str, Any]:
        """The `kind: List` written to the file, its header in `metadata.annotations`."""
        header = {f"{HEADER}content": KEEP_ALL_NOTE if self.keep_all else REDACTION_NOTE,
                  f"{HEADER}captured": ", ".join(f"{r}={n}" for r, n in self.counts.items())}
        if self.skipped:
            header[f"{HEADER}not-served"] = ", ".join(self.skipped)
        return {"apiVersion": "v1", "kind": "List", "metadata": {"annotations": header}, "items": self.items}


DISCOVERY_FAILED = re.compile(r"(?:complete list of server APIs: |, )((?:[a-z0-9.-]+/)?v\d\w*): ")
"""The group versions client-go's ErrGroupDiscoveryFailed names (`unable to retrieve the complete
list of server APIs: metrics.k8s.io/v1beta1: ..., policy/v1: ...`)."""


def served_resources(kubectl: Kubectl) -> set[str]:
    """The resources the server serves, as `kubectl api-resources -o name` names them. A group
    whose discovery failed (its aggregated API down: metrics.k8s.io, often) is not "not served":
    when kwhatif captures a resource of it, the snapshot would lack those objects without a word
    — every PodDisruptionBudget, say, and with them what preemption and drains respect —, so
    that is the run's error, in kubectl's words."""
    out, failed = kubectl.run_partial("api-resources", "-o", "name")
    served = set(out.decode("utf-8", "replace").split())
    groups = {gv.rpartition("/")[0] for gv in DISCOVERY_FAILED.findall(failed)}
    needed = [r for r in CAPTURED if r not in served and r.partition(".")[2] in groups]
    if needed:
        raise InputError(f"{failed}; kwhatif captures {', '.join(needed)} from there: try again once the API server "
                         "answers for it")
    return served


def capture(kubectl: Kubectl, keep_all: bool = False,
            on_kind: Callable[[str, int], None] | None = None) -> Snapshot:
    """Every `CAPTURED` resource the server serves (the others named in `skipped`);
    `on_kind(resource, count)` hears each one as it is read."""
    served = served_resources(kubectl)
    snapshot = Snapshot(keep_all, skipped=[r for r in CAPTURED if r not in served])
    wanted = [r for r in CAPTURED if r in served]
    salt = cluster_salt([])
    with ThreadPoolExecutor(max_workers=KUBECTL_AT_ONCE) as pool:
        for resource, found in zip(wanted, pool.map(lambda r: list_readable(kubectl, r), wanted)):
            if found is None:
                snapshot.skipped.append(f"{resource} (not at {' nor '.join(DRA_VERSIONS)}, the versions kwhatif reads)")
                continue
            items = found
            if resource == "namespaces":  # the first taken: the salt is the cluster's before anything is sealed
                salt = cluster_salt(items)
            snapshot.items.extend(items if keep_all else (redact(item, salt) for item in items))
            snapshot.counts[resource] = len(items)
            if on_kind is not None:
                on_kind(resource, len(items))
    return snapshot


DRA_VERSIONS = ("v1", "v1beta2", "v1beta1")
"""The resource.k8s.io versions kwhatif reads (`load.versions.SERVED`), the newest first: a 1.33
server prefers v1beta1 and serves v1beta2 beside it, a 1.32 server serves v1beta1 alone."""
NOT_SERVED = "the server doesn't have a resource type"


def list_readable(kubectl: Kubectl, resource: str) -> list[dict[str, Any]] | None:
    """`list_items`, a DRA resource at the first version kwhatif reads that the server serves
    (`deviceclasses.v1.resource.k8s.io`, then `.v1beta2.`, then `.v1beta1.`); None when it serves none."""
    plural, _, group = resource.partition(".")
    if group != "resource.k8s.io":
        return list_items(kubectl, resource)
    for version in DRA_VERSIONS:
        try:
            return list_items(kubectl, f"{plural}.{version}.{group}")
        except InputError as err:
            if NOT_SERVED not in str(err):
                raise
    return None


def list_items(kubectl: Kubectl, resource: str) -> list[dict[str, Any]]:
    """The objects of one resource in every namespace (`kubectl get RESOURCE -A -o json`)."""
    out = kubectl.run("get", resource, "--all-namespaces", "--output=json")
    try:
        listed = orjson.loads(out)
    except orjson.JSONDecodeError as err:
        raise InputError(f"`kubectl get {resource}` printed no JSON: {err}") from None
    items = listed.get("items") if isinstance(listed, dict) else None
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise InputError(f"`kubectl get {resource} -o json` printed no List of objects")
    return items


def write_snapshot(snapshot: Snapshot, path: str) -> None:
    """The List as indented JSON (readable in a pull request), gzip-compressed when `path` ends in
    `.gz` (with no timestamp in the gzip header: the same cluster gives the same bytes). Written
    whole or not at all (`kwhatif.files.write_whole`: a failed run never leaves half a file). `-`: standard
    output (a pipe into `kwhatif ... -c -`, gzip, a file of the user's), never a file named `-`."""
    data = orjson.dumps(snapshot.document(), option=orjson.OPT_INDENT_2) + b"\n"
    if path == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    if path.endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    try:
        write_whole(path, data)
    except OSError as err:
        raise InputError(f"{path}: cannot write the snapshot: {(err.strerror or str(err)).lower()}") from None
