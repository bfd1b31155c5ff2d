"""Validate objects against the Kubernetes v1.34 OpenAPI schemas, as kubectl's client-side validation.

The schemas are data committed in `schemas/k8s/` (one self-contained JSON Schema, draft 2020-12,
per kind), trimmed by `scripts/gen_schemas.py` from the `kubernetes-validate` package's
**v1.34.0 "local-strict"** set (package version 1.37.0, which ships 1.25 to 1.37; 1.34 is the target).
kwhatif does not import kubernetes-validate. Kinds with a schema: Node, Pod, Namespace, PriorityClass,
RuntimeClass, PodDisruptionBudget, LimitRange, Service, ReplicaSet, StatefulSet,
ReplicationController, Deployment, DaemonSet, Job, CronJob, PersistentVolumeClaim, PersistentVolume,
StorageClass, CSINode, CSIDriver — each at the apiVersion Kubernetes 1.34 serves it (`v1`, `apps/v1`,
`batch/v1`, `policy/v1`, `scheduling.k8s.io/v1`, `node.k8s.io/v1`, `storage.k8s.io/v1`) — and
ResourceClaim, ResourceClaimTemplate, DeviceClass, ResourceSlice at each `resource.k8s.io` version
the loader reads (v1, v1beta2, v1beta1: a v1beta1 device's fields under `basic`, a v1 one's not).
Other kinds, or these kinds at another apiVersion, are not validated.

- `validate_object(doc)` returns warnings for unknown fields, worded like kubectl's
  (`unknown field "spec.foo"`), and raises `InputError` for the first real violation (a wrong type,
  a missing required field), naming the object (`Kind/namespace/name`, `Kind/name` when
  cluster-scoped) and the field (`spec.containers[0].resources.requests.cpu`; keys that are not
  plain names go in brackets: `metadata.labels[app.kubernetes.io/name]`). "First" means first in
  the object's own key order (document order), so the answer does not depend on jsonschema's
  traversal order. Quantities and int-or-string fields accept numbers and strings, and `null` is
  accepted wherever the schemas allow it (everywhere: kubectl drops nulls). It runs
  `validate_light` first, so a nameless object is reported the same way with or without schemas.
- `validate_light(doc)` is the structural check for big dumps: `apiVersion` and `kind` are non-empty
  strings, `metadata` a mapping with a non-empty string `name` (and a string `namespace` if any).

Cost, measured on the project's 2-core machine (Python 3.11, jsonschema 4.26, compiled validators
cached per schema file, `$ref`s inlined at load): a running Pod as `kubectl get -o json` prints it
(one container with resources, env and ports, a projected service-account volume, affinity,
tolerations, managedFields and status; ~2.2 KB of JSON) takes **0.8–1.0 ms** to validate fully, so
about 2.5 minutes for a 150,000-pod dump, while `validate_light` takes **~0.5 µs** (0.08 s for
150,000 pods). Loading one kind's schema the first time costs ~2-4 ms (all 32: ~50 ms). Full
validation suits hand-written manifests and the handful of objects a what-if adds; dumps should
get `validate_light`.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kwhatif.api.names import is_dns1035_label, is_dns1123_label, is_dns1123_subdomain
from kwhatif.errors import InputError, one_line
from kwhatif.load.documents import RawDoc
from kwhatif.load.refs import describe_value, object_ref

if TYPE_CHECKING:  # jsonschema is imported when a schema is first used (`_validator`): 50 ms a run
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas" / "k8s"
"""Where the committed schemas live (the repository's `schemas/k8s/`)."""


_validators: dict[str, Draft202012Validator | None] = {}
_schema_files: frozenset[str] | None = None


# ------------------------------------------------------------------------------------- public ----

def validate_light(doc: RawDoc) -> None:
    """Raise InputError unless `doc` has string apiVersion/kind and metadata with a string name."""
    _api_version_and_kind(doc)
    obj = doc.obj
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        what = "missing" if "metadata" not in obj else f"must be an object, not {describe_value(meta)}"
        raise InputError(what, doc.source, obj=object_ref(obj), field="metadata")
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        what = "missing" if "name" not in meta else f"must be a non-empty string, not {describe_value(name)}"
        raise InputError(what, doc.source, obj=object_ref(obj), field="metadata.name")
    namespace = meta.get("namespace")
    if namespace is not None and not isinstance(namespace, str):
        raise InputError(
            f"must be a string, not {describe_value(namespace)}",
            doc.source,
            obj=object_ref(obj),
            field="metadata.namespace",
        )
    wrong = is_dns1123_label(namespace) if namespace else ()
    if wrong:
        raise InputError(f"Invalid value: {namespace!r}: {wrong[0]}", doc.source, obj=object_ref(obj),
                         field="metadata.namespace")
    kind = obj.get("kind")
    wrong = is_dns1123_subdomain(name) if kind in SUBDOMAIN_NAMED else is_dns1035_label(name) if kind == "Service" else ()
    if wrong:
        raise InputError(f"Invalid value: {name!r}: {wrong[0]}", doc.source, obj=object_ref(obj), field="metadata.name")


SUBDOMAIN_NAMED = frozenset({"Pod", "Node", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob",
                             "ReplicationController", "PriorityClass", "RuntimeClass"})
"""Kinds named by RFC 1123 subdomains (ValidatePodName, ValidateNodeName...); a namespace is a
label, a Service a DNS-1035 label (ValidateServiceName). (Not PodDisruptionBudget: its validation checks the spec alone, and the server takes any
name.)"""


def pod_names_valid(namespace: str, name: str) -> bool:
    """Whether a pod's namespace and name pass `validate_light`'s rules (a reader that skips it
    leaves a pod that does not to the path that says why)."""
    return not is_dns1123_label(namespace) and not is_dns1123_subdomain(name)


UNKNOWN_FIELDS = ("strict", "warn", "ignore")
"""What unknown fields of a manifest to apply are, as kubectl apply's `--validate`: an error
(kubectl's default: the API server's strict decoding refuses the object), a warning, nothing."""


def validate_object(doc: RawDoc, unknown_fields: str = "warn") -> list[str]:
    """Unknown-field warnings for `doc`; InputError for its first schema violation, then (with
    `unknown_fields="strict"`) for its unknown fields, all named on the line as kubectl's
    strict decoding error names them. "ignore": no warning.

    Objects of a kind (at an apiVersion) without a schema are not validated: `[]`."""
    obj = doc.obj
    api_version, kind = _api_version_and_kind(doc)
    validator = _validator(schema_file_name(api_version, kind))
    if validator is None:
        return []
    validate_light(doc)
    warnings: list[tuple[tuple, str]] = []
    violations: list[tuple[tuple, ValidationError]] = []
    for error in validator.iter_errors(obj):
        unknown = _unknown_fields(obj, error)
        if unknown is None and not _defaulted_or_dropped(error, kind):
            violations.append((_order_key(obj, list(error.absolute_path)), error))
        elif unknown is not None:
            warnings.extend(unknown)
    if violations:
        violations.sort(key=lambda pair: (pair[0], _rank(pair[1]), pair[1].message))
        error = violations[0][1]
        field, message = _describe_violation(error)
        raise InputError(message, doc.source, obj=object_ref(obj), field=field or None)
    warnings.sort()
    texts = [_unknown_text(path) for _key, path in warnings]
    if texts and unknown_fields == "strict":
        raise InputError(f"unknown field: kubectl apply refuses the object (strict decoding error: {', '.join(texts)}); "
                         "--validate=warn reads it with a warning instead", doc.source, obj=object_ref(obj),
                         field=warnings[0][1])
    return texts if unknown_fields != "ignore" else []


def unknown_field_warnings(doc: RawDoc) -> list[str]:
    """Only the unknown-field warnings of `validate_object`, never an error: for cluster inputs,
    whose types the decoder checks for the fields kwhatif reads (a dump may hold values in fields
    kwhatif ignores that an older or newer API server accepted)."""
    obj = doc.obj
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return []
    validator = _validator(schema_file_name(api_version, kind))
    if validator is None:
        return []
    warnings: list[tuple[tuple, str]] = []
    for error in validator.iter_errors(obj):
        warnings.extend(_unknown_fields(obj, error) or ())
    warnings.sort()
    return [_unknown_text(path) for _key, path in warnings]


DEFAULTED_REQUIRED = frozenset({
    ("onPodConditions", "status"),
    ("DeviceClass", "spec"), ("ResourceClaim", "spec"), ("ResourceClaimTemplate", "spec"), ("spec", "spec"),
    ("pool", "generation"),
})
"""(list or object the field is in — the kind at the top —, field) the OpenAPI schemas mark
required although the API server defaults them: a Job's podFailurePolicy onPodConditions
`status` (True, batch v1 SetDefaults_Job); the `+required` specs of resource.k8s.io objects whose
zero value is valid (a DeviceClass or claim asking for nothing, a template's empty claim spec:
resource validation.go checks their fields, not their presence) and a ResourceSlice pool's
`generation` (0 is valid). A manifest without them is accepted."""


def _defaulted_or_dropped(error: ValidationError, kind: str) -> bool:
    """A missing "required" field the API server does not require: one it defaults
    (`DEFAULTED_REQUIRED`), or anything under `status`, which it drops on create and apply (the
    status subresource). The schemas' `required` is OpenAPI's, not the server's validation."""
    if error.validator != "required":
        return False
    path = [p for p in error.absolute_path if isinstance(p, str)]
    if path[:1] == ["status"]:
        return True
    missing = error.message.split("'")[1] if error.message.count("'") >= 2 else ""
    return (path[-1] if path else kind, missing) in DEFAULTED_REQUIRED


def _unknown_text(path: str) -> str:
    """kubectl's words (and the API server's strict decoding error's) for an unknown field, the
    path one line (`errors.one_line`: a key may hold a newline or a terminal escape)."""
    return f'unknown field "{one_line(path)}"'


def _unknown_fields(obj: dict, error: ValidationError) -> list[tuple[tuple, str]] | None:
    """The unknown fields (with their order keys) an `additionalProperties: false` error
    stands for; None for any other error, which is a violation."""
    if error.validator != "additionalProperties" or error.validator_value is not False:
        return None
    warnings = []
    for key in _unknown_keys(error):
        path = list(error.absolute_path) + [key]
        warnings.append((_order_key(obj, path), _field_path(path)))
    return warnings


def schema_file_name(api_version: str, kind: str) -> str:
    """`deployment-apps-v1.json` for apps/v1 Deployment (the group loses its domain)."""
    group, _, version = api_version.rpartition("/")
    group = group.split(".", 1)[0]
    return f"{kind.lower()}-{group}-{version}.json" if group else f"{kind.lower()}-{version}.json"


# ----------------------------------------------------------------------------------- internals ----

_RANK = {"type": 0, "required": 1, "enum": 2}
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def _api_version_and_kind(doc: RawDoc) -> tuple[str, str]:
    """apiVersion and kind; InputError naming the first that is not a non-empty string."""
    if "apiVersion" not in doc.obj and "kind" not in doc.obj:
        raise InputError("missing, and kind too: not a Kubernetes object (a kustomization, Helm values or a "
                         "tool's config? kwhatif reads manifests)", doc.source, obj=object_ref(doc.obj),
                         field="apiVersion")
    return _non_empty_string(doc, "apiVersion"), _non_empty_string(doc, "kind")


def _non_empty_string(doc: RawDoc, key: str) -> str:
    value = doc.obj.get(key)
    if not isinstance(value, str) or not value:
        what = "missing" if key not in doc.obj else f"must be a non-empty string, not {describe_value(value)}"
        raise InputError(what, doc.source, obj=object_ref(doc.obj), field=key)
    return value


def _rank(error: ValidationError) -> int:
    """Among violations at one field: a wrong type first, then a missing field, then an enum."""
    validator = error.validator  # a str on every error iter_errors yields (the stubs allow Unset)
    return _RANK.get(validator, 9) if isinstance(validator, str) else 9


def _files() -> frozenset[str]:
    global _schema_files
    if _schema_files is None:
        try:
            _schema_files = frozenset(n for n in os.listdir(SCHEMA_DIR) if n.endswith(".json"))
        except OSError:
            _schema_files = frozenset()
    return _schema_files


def _validator(name: str) -> Draft202012Validator | None:
    if name in _validators:
        return _validators[name]
    from jsonschema import Draft202012Validator  # here, not at the top: see the TYPE_CHECKING import
    validator = None
    if name in _files():
        with open(SCHEMA_DIR / name, "rb") as handle:
            schema = json.load(handle)
        validator = Draft202012Validator(_inline_refs(schema))
    _validators[name] = validator
    return validator


def _unknown_keys(error: ValidationError) -> Iterable[str]:
    """The keys that made an `additionalProperties: false` fail, in the object's own order."""
    # iter_errors sets both on every error (the stubs also allow jsonschema's Unset): the
    # additionalProperties schema is an object, and so is the instance it failed; JSON values.
    schema: Any = error.schema
    instance: Any = error.instance
    known = schema.get("properties", {})
    return [key for key in instance if key not in known]


def _order_key(obj: Any, path: list) -> tuple:
    """Sort key placing a path in document order: each step's position in its parent."""
    key = []
    node = obj
    for step in path:
        if isinstance(node, dict):
            position = next((i for i, k in enumerate(node) if k == step), len(node))
            key.append(position)
            node = node.get(step)
        elif isinstance(node, list) and isinstance(step, int):
            key.append(step)
            node = node[step] if 0 <= step < len(node) else None
        else:
            key.append(0)
            node = None
    return tuple(key)


def _field_path(path: Iterable) -> str:
    """`spec.containers[0].resources.requests.cpu`: keys that are not plain names go in brackets, as
    in `metadata.labels[app.kubernetes.io/name]` or `resources.limits[nvidia.com/gpu]`."""
    out = ""
    for step in path:
        if isinstance(step, int):
            out += f"[{step}]"
        elif _PLAIN_KEY.fullmatch(step):
            out += f".{step}" if out else step
        else:
            out += f"[{step}]"
    return out


def _inline_refs(schema: dict) -> dict:
    """The schema with every (non-recursive) local `$ref` replaced by its target: jsonschema then
    skips reference resolution, a quarter of its time on a pod. Recursive references stay."""
    defs = schema.get("$defs", {})
    done: dict[str, Any] = {}

    def inline(node: Any, active: tuple[str, ...]) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/") and len(node) == 1:
                name = ref[len("#/$defs/"):]
                if name in active or name not in defs:
                    return node
                if name not in done:
                    done[name] = inline(defs[name], active + (name,))
                return done[name]
            return {k: (v if k == "$defs" else inline(v, active)) for k, v in node.items()}
        if isinstance(node, list):
            return [inline(item, active) for item in node]
        return node

    return inline(schema, ())


def _describe_violation(error: ValidationError) -> tuple[str, str]:
    """(field path, one-line message) for a schema violation."""
    path = list(error.absolute_path)
    # iter_errors sets both on every error (the stubs also allow jsonschema's Unset); JSON values.
    value: Any = error.validator_value
    instance: Any = error.instance
    if error.validator == "required":
        missing = [name for name in value if name not in instance]
        name = missing[0] if missing else "?"
        return _field_path(path + [name]), "required field is missing"
    field = _field_path(path)
    if error.validator == "type":
        expected: list[str] = value if isinstance(value, list) else [value]
        expected = [t for t in expected if t != "null"] or ["null"]
        return field, f"expected {' or '.join(expected)}, got {describe_value(instance)}"
    if error.validator == "enum":
        allowed = ", ".join(json.dumps(v) for v in value if v is not None)
        return field, f"unsupported value {describe_value(instance)}: supported values: {allowed}"
    return field, error.message
