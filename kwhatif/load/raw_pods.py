"""Pods of a big JSON dump, read from their bytes (the fast path of `kubectl get -o json` dumps).

Only the fields `decode_pod` reads are extracted; sub-objects that replicas share are parsed once
per distinct text through the interner, so `decode_pod` decodes each template once. Whatever this
reader cannot take (a field of an unexpected JSON type) goes back to the general path, which
words the error."""

from __future__ import annotations

from typing import Any

import msgspec

from kwhatif.load.interning import Interner

_NULL = msgspec.Raw(b"null")


class _Meta(msgspec.Struct):
    name: Any = None
    generateName: Any = None
    namespace: Any = None
    uid: Any = None
    creationTimestamp: Any = None
    deletionTimestamp: Any = None
    labels: msgspec.Raw = _NULL
    annotations: msgspec.Raw = _NULL
    ownerReferences: msgspec.Raw = _NULL


class _Spec(msgspec.Struct):
    nodeName: Any = None
    schedulerName: Any = None
    priority: Any = None
    priorityClassName: Any = None
    preemptionPolicy: Any = None
    runtimeClassName: Any = None
    hostNetwork: Any = None
    containers: msgspec.Raw = _NULL
    initContainers: msgspec.Raw = _NULL
    overhead: msgspec.Raw = _NULL
    resources: msgspec.Raw = _NULL
    nodeSelector: msgspec.Raw = _NULL
    affinity: msgspec.Raw = _NULL
    tolerations: msgspec.Raw = _NULL
    topologySpreadConstraints: msgspec.Raw = _NULL
    schedulingGates: msgspec.Raw = _NULL
    volumes: msgspec.Raw = _NULL
    resourceClaims: msgspec.Raw = _NULL


class _ContainerStatus(msgspec.Struct):
    name: Any = None
    resources: msgspec.Raw = _NULL
    allocatedResources: msgspec.Raw = _NULL


class _Condition(msgspec.Struct):
    type: Any = None
    status: Any = None
    reason: Any = None


class _Status(msgspec.Struct):
    phase: Any = None
    startTime: Any = None
    nominatedNodeName: Any = None
    conditions: list[_Condition] | None = None
    containerStatuses: list[_ContainerStatus] | None = None
    initContainerStatuses: list[_ContainerStatus] | None = None


class _Pod(msgspec.Struct):
    apiVersion: Any = None
    kind: Any = None
    metadata: _Meta | None = None
    spec: _Spec | None = None
    status: _Status | None = None


_DECODER = msgspec.json.Decoder(_Pod)
_SHARED_META = ("labels", "annotations", "ownerReferences")
_SHARED_SPEC = ("containers", "initContainers", "overhead", "resources", "nodeSelector", "affinity", "tolerations",
                "topologySpreadConstraints", "schedulingGates", "volumes", "resourceClaims")


def _fields(struct: msgspec.Struct, scalars: tuple[str, ...], shared: tuple[str, ...], interner: Interner) -> dict:
    out = {name: value for name in scalars if (value := getattr(struct, name)) is not None}
    for name in shared:
        raw = bytes(getattr(struct, name))
        if raw != b"null":
            out[name] = interner.parse(raw)
    return out


# The only pod conditions scheduling reads: an Infeasible resize (§4.7) and a preemption in
# progress (§9.1); the others (Ready, Initialized...) differ per pod and are not kept.
_READ_CONDITIONS = ("PodResizePending", "DisruptionTarget")


def _statuses(items: list[_ContainerStatus] | None, interner: Interner) -> list[dict] | None:
    """Container statuses that report resources (in-place resize, §4.7); the others change
    nothing and are not kept."""
    if items is None:
        return None
    kept = tuple((s.name, bytes(s.resources), bytes(s.allocatedResources)) for s in items
                 if bytes(s.resources) != b"null" or bytes(s.allocatedResources) != b"null")
    return interner.shared(("statuses", kept), lambda: [
        _fields(s, ("name",), ("resources", "allocatedResources"), interner) for s in items
        if bytes(s.resources) != b"null" or bytes(s.allocatedResources) != b"null"])


def pod_manifest(raw: bytes, interner: Interner) -> dict | None:
    """The pod as the dict `decode_pod` reads (only its fields), or None to use the general path."""
    try:
        pod = _DECODER.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None
    obj: dict[str, Any] = {"apiVersion": pod.apiVersion, "kind": pod.kind}
    if pod.metadata is not None:
        obj["metadata"] = _fields(pod.metadata, ("name", "generateName", "namespace", "uid", "creationTimestamp",
                                                 "deletionTimestamp"), _SHARED_META, interner)
    if pod.spec is not None:
        obj["spec"] = _fields(pod.spec, ("nodeName", "schedulerName", "priority", "priorityClassName",
                                         "preemptionPolicy", "runtimeClassName", "hostNetwork"), _SHARED_SPEC, interner)
    if pod.status is not None:
        status = _fields(pod.status, ("phase", "startTime", "nominatedNodeName"), (), interner)
        if pod.status.conditions is not None:
            read = tuple((c.type, c.status, c.reason) for c in pod.status.conditions if c.type in _READ_CONDITIONS)
            status["conditions"] = interner.shared(("conditions", read), lambda: [
                {k: v for k, v in zip(("type", "status", "reason"), c) if v is not None} for c in read])
        for key, items in (("containerStatuses", pod.status.containerStatuses),
                           ("initContainerStatuses", pod.status.initContainerStatuses)):
            decoded = _statuses(items, interner)
            if decoded is not None:
                status[key] = decoded
        obj["status"] = status
    return obj
