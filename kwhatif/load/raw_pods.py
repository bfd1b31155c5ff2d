"""Pods of a big JSON dump (`kubectl get -o json`), decoded from their bytes: the loader's fast path.

A dump's pods are mostly replicas. Their specs are the same text but for `spec.nodeName` (env
values a pod's own come through the downward API, the same text too), and the
replicas of one ReplicaSet share their labels and owner references as well. So each distinct spec
text (without its nodeName), labels text, annotations text, owner-references text and container
status resources is decoded once, by the general path's own functions (same checks, same errors,
naming the first pod that has it), and every other pod costs one msgspec pass over its bytes and
the assembly of a `Pod`: about 5 µs instead of 50.

Whatever this reader cannot take (a field of an unexpected JSON type, a missing name) makes it
answer None: the general path then decodes that pod, and words the error.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any, Callable

import msgspec
import orjson

from kwhatif.api.names import is_dns1123_subdomain
from kwhatif.api.objects import SCHEDULING_VOLUME_SOURCES, Pod, PodCondition
from kwhatif.api.timestamps import is_rfc3339
from kwhatif.errors import Source
from kwhatif.load.pods import (
    TEMPLATE_PARTS, kept_condition, container_statuses, owner_references, pod_annotations, pod_labels,
    resource_claim_statuses,
)
from kwhatif.load.fields import Fields
from kwhatif.load.pod_spec_checks import check_host_names
from kwhatif.load.schema import pod_names_valid

_NULL = msgspec.Raw(b"null")
_plain_name = re.compile(r"[a-z0-9](?:[-a-z0-9]{0,251}[a-z0-9])?").fullmatch
"""The names almost every pod has (an RFC 1123 subdomain without dots): accepted in one step;
any other is judged by `pod_names_valid`."""
_plain_label = re.compile(r"[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?").fullmatch
"""An RFC 1123 label: a hostname or subdomain accepted in one step."""


class _Meta(msgspec.Struct):
    name: str | None = None
    namespace: str | None = None
    uid: str | None = None
    creationTimestamp: str | None = None
    deletionTimestamp: str | None = None
    labels: msgspec.Raw = _NULL
    annotations: msgspec.Raw = _NULL
    ownerReferences: msgspec.Raw = _NULL


class _ContainerStatus(msgspec.Struct):
    name: str | None = None
    resources: msgspec.Raw = _NULL
    allocatedResources: msgspec.Raw = _NULL
    restartCount: int | None = None


class _Condition(msgspec.Struct):
    type: str | None = None
    status: str | None = None
    reason: str | None = None
    lastTransitionTime: str | None = None


class _Status(msgspec.Struct):
    phase: str | None = None
    startTime: str | None = None
    nominatedNodeName: str | None = None
    conditions: list[_Condition] | None = None
    containerStatuses: list[_ContainerStatus] | None = None
    initContainerStatuses: list[_ContainerStatus] | None = None
    resourceClaimStatuses: msgspec.Raw = _NULL


class _Container(msgspec.Struct, omit_defaults=True):
    """The container fields a template reads (pods._container): not its mounts, probes..."""
    name: msgspec.Raw = _NULL
    image: msgspec.Raw = _NULL
    resources: msgspec.Raw = _NULL
    ports: msgspec.Raw = _NULL
    restartPolicy: msgspec.Raw = _NULL
    env: msgspec.Raw = _NULL
    envFrom: msgspec.Raw = _NULL
    command: msgspec.Raw = _NULL
    args: msgspec.Raw = _NULL


_PER_POD = ("nodeName", "hostname", "subdomain")
"""Spec fields read per pod, outside the template: each StatefulSet pod is its own hostname."""
_SPEC_FIELDS = tuple(dict.fromkeys(name for names, _part in TEMPLATE_PARTS for name in names))
_LISTS = {"containers": list[_Container] | None, "initContainers": list[_Container] | None,
          "volumes": list[msgspec.Raw] | None}
if TYPE_CHECKING:
    class _Spec(msgspec.Struct):
        """What mypy sees of the struct built below (it cannot see a defstruct's fields): the
        fields read by name."""
        nodeName: str | None
        hostname: str | None
        subdomain: str | None
        volumes: list[msgspec.Raw] | None
else:
    _Spec = msgspec.defstruct(
        "_Spec", [(name, str | None, None) for name in _PER_POD] + [
            (name, _LISTS[name], None) if name in _LISTS else (name, msgspec.Raw, _NULL) for name in _SPEC_FIELDS],
        omit_defaults=True)
"""The spec fields a template reads, with the per-pod ones. Encoded again without these and without
the volumes scheduling does not read, they are the template's key: the same text for every
replica, although each replica's service-account token volume and mounts have a name of its own."""

_SpecParts = msgspec.defstruct("_SpecParts", [(name, msgspec.Raw, _NULL) for name in _SPEC_FIELDS])
"""The spec fields the template parts read, each as its text."""


class _Pod(msgspec.Struct):
    apiVersion: str | None = None
    kind: str | None = None
    metadata: _Meta | None = None
    spec: _Spec | None = None
    status: _Status | None = None


_VOLUME_SOURCES = tuple(f'"{name}"'.encode() for name in SCHEDULING_VOLUME_SOURCES)


def template_key(spec: _Spec) -> bytes | None:
    """The spec's text as a template decides it: the fields a template reads, without nodeName,
    and only the volumes that may have a source scheduling reads (decoding keeps those alone; a
    volume with an escape in its text is kept, as its keys may be spelled with one).
    None when a volume is not an object (the general path words that)."""
    volumes = spec.volumes
    if volumes:
        texts = [bytes(v) for v in volumes]
        if not all(text.startswith(b"{") for text in texts):
            return None
        volumes = [v for v, text in zip(volumes, texts)
                   if b"\\u" in text or any(source in text for source in _VOLUME_SOURCES)] or None
    return _ENCODER.encode(msgspec.structs.replace(spec, nodeName=None, hostname=None, subdomain=None,
                                                   volumes=volumes))


_POD_FIELDS = tuple(f.name for f in dataclasses.fields(Pod))
_TEMPLATE_FIELDS = _POD_FIELDS[_POD_FIELDS.index("scheduler_name"):_POD_FIELDS.index("phase")]
"""The Pod fields a template decides, in their order: they sit together between node_name and
phase, so a Pod is made positionally, the per-pod values around the template's (the loader's
tests check the result against the general path's, field by field)."""

_POD = msgspec.json.Decoder(_Pod)
_SPEC_PARTS = msgspec.json.Decoder(_SpecParts)
_ENCODER = msgspec.json.Encoder()
_NO_STATUS = _Status()
_UNDECODABLE = (msgspec.DecodeError, msgspec.ValidationError, RecursionError, UnicodeDecodeError)


class PodReader:
    """Decodes the pods of one load from their bytes, remembering each distinct part it decoded
    (a part's cache maps its text to its decoded value)."""

    __slots__ = ("_specs", "_template_parts", "_labels", "_annotations", "_owners", "_statuses", "_pod", "_namespaces_valid",
                 "_node_names_valid")

    def __init__(self) -> None:
        self._specs: dict[bytes, tuple] = {}
        self._template_parts: dict[tuple, dict[str, Any]] = {}
        self._labels: dict[bytes, dict[str, str]] = {}
        self._annotations: dict[bytes, dict[str, str]] = {}
        self._owners: dict[bytes, tuple] = {}
        self._statuses: dict[tuple, tuple] = {}
        self._pod: tuple[Source | None, str, str] = (None, "", "")
        self._namespaces_valid: set[str] = set()
        self._node_names_valid: set[str] = set()

    def read(self, raw: bytes | memoryview | msgspec.Raw, source: Source | None) -> Pod | None:
        """The pod, or None when the general path must decode it."""
        try:
            pod = _POD.decode(raw)
        except _UNDECODABLE:
            return None
        meta, spec = pod.metadata, pod.spec
        if pod.apiVersion != "v1" or pod.kind != "Pod" or meta is None or not meta.name or spec is None:
            return None
        key = template_key(spec)
        if key is None:
            return None
        status = pod.status if pod.status is not None else _NO_STATUS
        if not (_zoned(meta.creationTimestamp) and _zoned(meta.deletionTimestamp) and _zoned(status.startTime)):
            return None
        namespace = meta.namespace or "default"
        if namespace not in self._namespaces_valid or not _plain_name(meta.name):
            if not pod_names_valid(namespace, meta.name):
                return None
            self._namespaces_valid.add(namespace)
        node = spec.nodeName or ""
        if node and node not in self._node_names_valid:
            if is_dns1123_subdomain(node):  # not a node's name: the general path words it
                return None
            self._node_names_valid.add(node)
        self._pod = (source, namespace, meta.name)
        try:  # the parts in the general path's order, so that a pod with several faults gets its error
            labels = self._metadata_part(self._labels, meta.labels, "labels", pod_labels)
            annotations = self._metadata_part(self._annotations, meta.annotations, "annotations", pod_annotations)
            owners = self._metadata_part(self._owners, meta.ownerReferences, "ownerReferences", owner_references)
            statuses = self._container_statuses("containerStatuses", status.containerStatuses)
            init_statuses = self._container_statuses("initContainerStatuses", status.initContainerStatuses)
            claims = self._claim_statuses(status.resourceClaimStatuses)
            template = self._specs.get(key)
            if template is None:
                template = self._specs[key] = self._template(key)
            self._check_host_names(spec)
        except orjson.JSONDecodeError:  # a number orjson cannot hold (400 digits): the general path words it
            return None
        # mypy takes a *tuple of unknown length to fill every later parameter (python/mypy#14648).
        return Pod(  # type: ignore[call-arg]  # positional: keywords cost 3 µs a pod (see _TEMPLATE_FIELDS)
            namespace, meta.name, meta.uid or "", labels, annotations, meta.creationTimestamp or "",
            meta.deletionTimestamp, owners, node, *template,
            status.phase or "", status.startTime, status.nominatedNodeName or "", _read_conditions(status.conditions),
            statuses, init_statuses, source, claims, _ready_since(status.conditions),
            max((s.restartCount or 0 for s in status.containerStatuses or ()), default=0),
        )

    def _fields(self) -> Fields:
        """The current pod's `Fields`, for the errors of a part decoded for the first time."""
        source, namespace, name = self._pod
        return Fields(source, f"Pod/{namespace}/{name}")

    def _check_host_names(self, spec: _Spec) -> None:
        """The hostname and subdomain: a plain RFC 1123 label (what a StatefulSet's pod has) is taken in
        one step, any other judged by the general path's check."""
        for name in (spec.hostname, spec.subdomain):
            if name is not None and not _plain_label(name):
                check_host_names(self._fields(), {"hostname": spec.hostname, "subdomain": spec.subdomain})

    def _metadata_part(self, cache: dict[bytes, Any], raw: msgspec.Raw, field: str,
                       decode: Callable[[Fields, dict], Any]) -> Any:
        """A metadata field decoded by `decode(fields, metadata)` once per distinct text."""
        text = bytes(raw)
        found = cache.get(text)
        if found is None:
            found = cache[text] = decode(self._fields(), {field: orjson.loads(text)})
        return found

    def _template(self, spec: bytes) -> tuple:
        """A template seen for the first time (`spec` is its key): its parts are decoded once per
        distinct text of the fields each reads, so DaemonSet pods (whose specs differ in their
        affinity's node name) share everything else."""
        parts = _SPEC_PARTS.decode(spec)
        parsed: dict | None = None
        template: dict[str, Any] = {}
        for index, (names, decode) in enumerate(TEMPLATE_PARTS):
            key = (index, *(bytes(getattr(parts, name)) for name in names))
            fragment = self._template_parts.get(key)
            if fragment is None:
                parsed = orjson.loads(spec) if parsed is None else parsed
                fragment = self._template_parts[key] = decode(self._fields(), parsed)
            template.update(fragment)
        return tuple(template[name] for name in _TEMPLATE_FIELDS)

    def _claim_statuses(self, raw: msgspec.Raw) -> tuple[tuple[str, str | None], ...]:
        """status.resourceClaimStatuses, through the general path's reader (only DRA pods have it)."""
        if raw is _NULL or bytes(raw) == b"null":
            return ()
        return resource_claim_statuses(self._fields(), {"resourceClaimStatuses": orjson.loads(bytes(raw))})

    def _container_statuses(self, field: str, items: list[_ContainerStatus] | None) -> tuple:
        """Container statuses that report resources (in-place resize, resource helpers.go:PodRequests
        (UseStatusResources)), decoded once per distinct (name, resources, allocatedResources); the rest of a
        status differs per pod and scheduling does not read it."""
        if not items:
            return ()
        parts = [(s.name, bytes(s.resources), bytes(s.allocatedResources)) for s in items]
        key = (field, *parts)
        found = self._statuses.get(key)
        if found is None:
            found = self._statuses[key] = container_statuses(self._fields(), {field: [
                {"name": name, "resources": orjson.loads(resources), "allocatedResources": orjson.loads(allocated)}
                for name, resources, allocated in parts]}, field)
        return found


def _read_conditions(conditions: list[_Condition] | None) -> tuple[PodCondition, ...]:
    """The conditions kwhatif reads (`pods.kept_condition`), as the general path keeps them."""
    if not conditions:
        return ()
    return tuple(PodCondition(c.type or "", c.status or "", c.reason or "") for c in conditions
                 if kept_condition(c.type, c.status))


def _ready_since(conditions: list[_Condition] | None) -> str:
    """`pods.ready_since`, from the conditions this reader decoded."""
    return next((c.lastTransitionTime or "" for c in conditions or () if c.type == "Ready" and c.status == "True"), "")


def _zoned(time: str | None) -> bool:
    """Whether a metav1.Time is absent or RFC 3339 with its zone (`is_rfc3339`): any other goes
    to the general path, which refuses it in its words (`Fields.time`). About 0.25 µs a field."""
    return not time or is_rfc3339(time)
