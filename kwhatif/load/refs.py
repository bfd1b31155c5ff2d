"""How messages name objects and values: `Kind/namespace/name`, and "a string \"x\"" style."""

from __future__ import annotations

import json
from typing import Any

CLUSTER_SCOPED = frozenset({
    "Node", "Namespace", "PriorityClass", "RuntimeClass", "PersistentVolume", "StorageClass",
    "CSINode", "CSIDriver", "VolumeAttachment", "DeviceClass", "ResourceSlice",
})

_JSON_TYPES = (
    (bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"),
    (dict, "object"), (list, "array"), (type(None), "null"),
)


def object_ref(obj: dict) -> str:
    """`Kind/namespace/name`, or `Kind/name` for cluster-scoped kinds (`?` for what is missing)."""
    kind = obj.get("kind") if isinstance(obj.get("kind"), str) and obj.get("kind") else "?"
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        meta = {}
    name = meta.get("name") if isinstance(meta.get("name"), str) and meta.get("name") else None
    if name is None:
        generate = meta.get("generateName")
        name = f"{generate}*" if isinstance(generate, str) and generate else "?"
    if kind in CLUSTER_SCOPED:
        return f"{kind}/{name}"
    namespace = meta.get("namespace") if isinstance(meta.get("namespace"), str) and meta.get("namespace") else "default"
    return f"{kind}/{namespace}/{name}"


def json_type(value: Any) -> str:
    for python_type, name in _JSON_TYPES:
        if isinstance(value, python_type):
            return name
    return type(value).__name__


def describe_value(value: Any) -> str:
    kind = json_type(value)
    if isinstance(value, (dict, list)) or value is None:
        return "an " + kind if kind[0] in "aeiou" else "a " + kind
    text = json.dumps(value) if isinstance(value, (str, int, float, bool)) else repr(value)
    if len(text) > 40:
        text = text[:37] + "..."
    article = "an" if kind[0] in "aeiou" else "a"
    return f"{article} {kind} {text}"
