"""Helpers for the workload expansion tests: manifests as YAML text, nodes as builders.

Every expected value is written by hand from the Kubernetes documentation of each controller
(names, labels, ownerReferences, default tolerations); generated suffixes and hashes use the
alphabet of k8s.io/apimachinery/pkg/util/rand ("bcdfghjklmnpqrstvwxz2456789")."""

from __future__ import annotations

import re
from collections.abc import Sequence

import yaml

from kwhatif.api.objects import Node, Pod
from kwhatif.errors import Source
from kwhatif.load.decode import decode
from kwhatif.workloads import WORKLOAD_KINDS, Expansion, expand_objects
from kwhatif.workloads.common import decode_workload

NOW = "2026-01-01T00:00:00Z"
ALPHABET = "[bcdfghjklmnpqrstvwxz2456789]"
SUFFIX = f"{ALPHABET}{{5}}"
HASH = f"{ALPHABET}{{1,10}}"


def objects(text: str) -> list[object]:
    out = []
    for i, doc in enumerate(d for d in yaml.safe_load_all(text) if d):
        source = Source("test.yaml", i, 1)
        out.append(decode_workload(doc, source) if doc["kind"] in WORKLOAD_KINDS else decode(doc, source))
    return out


def expand_text(text: str, nodes: Sequence[Node] = (), replicas_mode: str = "spec") -> Expansion:
    return expand_objects(objects(text), nodes, NOW, replicas_mode)


def pods_of(text: str, nodes: Sequence[Node] = (), replicas_mode: str = "spec") -> list[Pod]:
    return expand_text(text, nodes, replicas_mode).pods


def matches(pattern: str, text: str) -> bool:
    return re.fullmatch(pattern, text) is not None


def replica_set(name: str, template_hash: str) -> dict:
    """A ReplicaSet a Deployment made, as a dump has it: its selector holds the pod-template-hash."""
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "web", "pod-template-hash": template_hash}},
                     "template": {"metadata": {"labels": {"app": "web", "pod-template-hash": template_hash}},
                                  "spec": {"containers": [{"name": "app", "image": "app:v1"}]}}}}
