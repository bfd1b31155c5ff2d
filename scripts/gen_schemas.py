#!/usr/bin/env python3
"""Generate the trimmed, self-contained JSON Schemas in `kwhatif/schemas/k8s/` from `kubernetes-validate`.

kwhatif does not depend on kubernetes-validate at run time: the files this script writes are the
data. To regenerate (only when moving to another Kubernetes version or adding a kind):

    pip install kubernetes-validate      # a development tool only; 1.37.0 was used
    python3 scripts/gen_schemas.py       # writes kwhatif/schemas/k8s/*.json

The package ships, per Kubernetes minor version, OpenAPI-derived JSON Schemas (draft 2020-12) in a
"local" and a "local-strict" variant; strict adds `additionalProperties: false` to every object
type, which is what lets `kwhatif.load.schema` report unknown fields. We take the newest version that
is not newer than the target (v1.34.0 for the target 1.34) and, for each kind kwhatif reads:

- pull in, transitively, only the `$defs` the kind's schema refers to, and rewrite every `$ref` to
  the file-local `#/$defs/...`, so each output file loads alone (no registry, no network);
- drop descriptions, `$id` and the `x-kubernetes-*` annotations (size), keeping the
  group-version-kind of the top-level object;
- replace the `oneOf` of `IntOrString` and `Quantity` by a plain type union: kubectl accepts numbers
  and strings there, and `null` (which matched both branches of the `oneOf`, an error) is allowed
  like everywhere else in these schemas;
- write with sorted keys and one-space indentation, so regenerating gives identical bytes.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "kwhatif" / "schemas" / "k8s"

# (apiVersion, kind) of every object kwhatif reads.
KINDS: list[tuple[str, str]] = [
    ("v1", "Node"),
    ("v1", "Pod"),
    ("v1", "Namespace"),
    ("scheduling.k8s.io/v1", "PriorityClass"),
    ("node.k8s.io/v1", "RuntimeClass"),
    ("policy/v1", "PodDisruptionBudget"),
    ("v1", "LimitRange"),
    ("v1", "Service"),
    ("apps/v1", "ReplicaSet"),
    ("apps/v1", "StatefulSet"),
    ("v1", "ReplicationController"),
    ("apps/v1", "Deployment"),
    ("apps/v1", "DaemonSet"),
    ("batch/v1", "Job"),
    ("batch/v1", "CronJob"),
    ("v1", "PersistentVolumeClaim"),
    ("v1", "PersistentVolume"),
    ("storage.k8s.io/v1", "StorageClass"),
    ("storage.k8s.io/v1", "CSINode"),
    ("storage.k8s.io/v1", "CSIDriver"),
    # Dynamic Resource Allocation, at every version the loader accepts (`kwhatif.load.versions`).
    *((f"resource.k8s.io/{version}", kind) for version in ("v1", "v1beta2", "v1beta1")
      for kind in ("ResourceClaim", "ResourceClaimTemplate", "DeviceClass", "ResourceSlice")),
]

INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
REPLACED = {
    INT_OR_STRING: {"type": ["string", "integer", "null"]},
    QUANTITY: {"type": ["string", "number", "null"]},
}
DROP_KEYS = {"description", "$id"}


def schema_file_name(api_version: str, kind: str) -> str:
    """kubernetes-validate's (and kwhatif's) file name: `deployment-apps-v1.json`, `pod-v1.json`.

    The group loses its domain (`storage.k8s.io/v1` → `storage-v1`)."""
    group_version = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    return f"{kind.lower()}-{group_version}.json"


def _version_key(name: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", name)[:3])


def find_source(target: str, strict: bool = True) -> Path:
    """The kubernetes-validate schema folder of the newest version not newer than `target`."""
    try:
        import kubernetes_validate  # noqa: PLC0415 (a development-only dependency)
    except ImportError:
        sys.exit("gen_schemas: pip install kubernetes-validate first (a development tool only)")
    root = Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema"
    suffix = "-local-strict" if strict else "-local"
    want = _version_key(target)
    candidates = sorted(
        (p for p in root.iterdir() if p.name.endswith(suffix) and _version_key(p.name)[:2] <= want[:2]),
        key=lambda p: _version_key(p.name),
    )
    if not candidates:
        sys.exit(f"gen_schemas: kubernetes-validate has no schemas for {target} or older")
    return candidates[-1]


def _local_ref(ref: str) -> str:
    """`/api/_definitions.json#/$defs/X` or `#/$defs/X` → `#/$defs/X`."""
    _, _, fragment = ref.partition("#")
    if not fragment.startswith("/$defs/"):
        raise ValueError(f"unexpected $ref {ref!r}")
    return "#" + fragment


def _clean(node, refs: set[str]):
    """A copy of `node` without descriptions and annotations, with local refs; collects ref names."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key in DROP_KEYS or key.startswith("x-kubernetes-"):
                continue
            if key == "$ref":
                local = _local_ref(value)
                refs.add(local[len("#/$defs/"):])
                out[key] = local
            elif key in ("properties", "$defs"):
                # Names of properties are data, not keywords: never drop one called "description".
                out[key] = {name: _clean(sub, refs) for name, sub in value.items()}
            else:
                out[key] = _clean(value, refs)
        return out
    if isinstance(node, list):
        return [_clean(item, refs) for item in node]
    return node


def build(source: Path, api_version: str, kind: str) -> dict:
    """One self-contained schema for `kind`: the top-level object plus the `$defs` it needs."""
    definitions = json.loads((source / "_definitions.json").read_text())["$defs"]
    top = json.loads((source / schema_file_name(api_version, kind)).read_text())
    gvk = top.get("x-kubernetes-group-version-kind")
    refs: set[str] = set()
    schema = _clean(top, refs)
    defs: dict[str, dict] = {}
    pending = sorted(refs)
    while pending:
        name = pending.pop()
        if name in defs:
            continue
        if name in REPLACED:
            defs[name] = dict(REPLACED[name])
            continue
        more: set[str] = set()
        defs[name] = _clean(definitions[name], more)
        pending.extend(sorted(more - defs.keys()))
    schema["$defs"] = dict(sorted(defs.items()))
    if gvk:
        schema["x-kubernetes-group-version-kind"] = gvk
    schema["x-kwhatif-source"] = f"kubernetes-validate {source.name}"
    return schema


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", default="1.34", help="target Kubernetes version (default 1.34)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder")
    args = parser.parse_args(argv)
    source = find_source(args.version)
    args.out.mkdir(parents=True, exist_ok=True)
    written = set()
    total = 0
    for api_version, kind in KINDS:
        name = schema_file_name(api_version, kind)
        text = json.dumps(build(source, api_version, kind), indent=1, sort_keys=True) + "\n"
        (args.out / name).write_text(text)
        written.add(name)
        total += len(text)
    for stale in sorted(set(os.listdir(args.out)) - written):
        if stale.endswith(".json"):
            (args.out / stale).unlink()
    print(f"gen_schemas: {len(written)} schemas from {source.name} into {args.out} ({total // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
