"""Fuzz target of issue 7: the loader over many generated documents must raise nothing but
kwhatif's own `InputError`.

A seeded random generator (reproducible: `--seed`) makes each document one of:
- a valid Pod/Node/PriorityClass/PDB/ReplicaSet with 1 to 4 fields replaced by random values
  (wrong types, bad quantities, bad selectors, deep or empty structures);
- random JSON/YAML values (scalars, lists, nested mappings) as whole documents;
and writes it as YAML or JSON, sometimes truncated, byte-flipped, BOM'd or multi-document.
Each input goes through `parse_bytes` then `decode_docs` (light and full validation).

Run: `python bench/fuzz_loader.py [--count 10000] [--seed 7]`. Prints the count, the time, how many
inputs were accepted / refused, and every exception that is not an InputError (exit 1 if any).
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
import time
import traceback

import yaml

from kwhatif.errors import InputError
from kwhatif.load.cluster import decode_docs
from kwhatif.load.reader import parse_bytes

TEMPLATES = [
    {"apiVersion": "v1", "kind": "Pod",
     "metadata": {"name": "p", "namespace": "default", "labels": {"app": "web"}},
     "spec": {"priority": 0, "priorityClassName": "high", "nodeName": "",
              "containers": [{"name": "app", "image": "app:1",
                              "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}, "limits": {"cpu": "1"}},
                              "ports": [{"containerPort": 80, "hostPort": 8080, "protocol": "TCP"}]}],
              "initContainers": [{"name": "init", "image": "i:1", "resources": {"requests": {"cpu": "1"}}}],
              "nodeSelector": {"disk": "ssd"},
              "tolerations": [{"key": "k", "operator": "Equal", "value": "v", "effect": "NoSchedule"}],
              "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                  {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}},
                  "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                      {"weight": 10, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname",
                                                         "labelSelector": {"matchLabels": {"app": "web"}}}}]}},
              "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                                             "labelSelector": {"matchExpressions": [{"key": "app", "operator": "Exists"}]}}],
              "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "c"}}]},
     "status": {"phase": "Pending"}},
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "labels": {"zone": "a"}},
     "spec": {"taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}], "unschedulable": False},
     "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                "images": [{"names": ["app:1"], "sizeBytes": 1000}]}},
    {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000,
     "preemptionPolicy": "Never"},
    {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "pdb", "namespace": "default"},
     "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}, "status": {"disruptionsAllowed": 1}},
    {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs", "namespace": "default"},
     "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}}},
]
NASTY_STRINGS = ["", "1.5.3", "10Q", "-1", "1e999", "0.0001m", "5Gim", "Equals", "a/b/c", "not valid!", "x" * 300,
                 "\u202e", "nul\x00", "~", "null", "yes", "3", "In", "Exists", "DoesNotExist", "Gt", "4.5"]


def _value(rng: random.Random, depth: int = 0):
    roll = rng.random()
    if depth > 4 or roll < 0.55:
        return rng.choice([None, True, False, 0, -1, 2 ** 63, 1.5, float("inf"), rng.randint(-10 ** 6, 10 ** 6),
                           rng.choice(NASTY_STRINGS), "".join(rng.choice("abc-./ 09Mi") for _ in range(rng.randint(0, 8)))])
    if roll < 0.75:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {rng.choice(["key", "operator", "values", "cpu", "name", "x", "matchLabels", "items"]): _value(rng, depth + 1)
            for _ in range(rng.randint(0, 3))}


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, prefix + (i,))


def document(rng: random.Random):
    if rng.random() < 0.15:
        return _value(rng)
    obj = copy.deepcopy(rng.choice(TEMPLATES))
    paths = [p for p in _paths(obj) if p]
    for _ in range(rng.randint(1, 4)):
        path = rng.choice(paths)
        parent = obj
        try:
            for step in path[:-1]:
                parent = parent[step]
            if rng.random() < 0.1 and isinstance(parent, dict):
                del parent[path[-1]]
            else:
                parent[path[-1]] = _value(rng)
        except (KeyError, IndexError, TypeError):
            pass
    return obj


def encode(rng: random.Random, docs: list) -> tuple[bytes, str]:
    if rng.random() < 0.5:
        try:
            data, name = "\n".join(json.dumps(d, allow_nan=True) for d in docs).encode(), "fuzz.json"
        except ValueError:
            data, name = b"{}", "fuzz.json"
    else:
        data, name = yaml.safe_dump_all(docs, allow_unicode=rng.random() < 0.5).encode(), "fuzz.yaml"
    roll = rng.random()
    if roll < 0.1 and data:
        data = data[: rng.randrange(len(data))]  # truncated
    elif roll < 0.2 and data:
        i = rng.randrange(len(data))  # one corrupted byte
        data = data[:i] + bytes([rng.randrange(256)]) + data[i + 1:]
    elif roll < 0.25:
        data = "\n".join(data.decode("utf-8", "replace").splitlines()).encode("utf-16")
    elif roll < 0.3:
        data = b"\xef\xbb\xbf" + data
    if rng.random() < 0.5:
        name = "fuzz"  # sniffed
    return data, name


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10_000, help="documents to generate (default 10,000)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    documents = inputs = accepted = refused = 0
    crashes: list[str] = []
    start = time.monotonic()
    while documents < args.count:
        docs = [document(rng) for _ in range(rng.choice([1, 1, 1, 2, 3]))]
        documents += len(docs)
        data, name = encode(rng, docs)
        inputs += 1
        try:
            parsed = parse_bytes(data, name)
            decode_docs(parsed)
            decode_docs(parsed, full_validation=True)
            accepted += 1
        except InputError as err:
            refused += 1
            if "\n" in str(err):
                crashes.append(f"input {inputs}: multi-line error message: {str(err)!r}")
        except Exception:  # noqa: BLE001 - what the fuzzer is looking for
            crashes.append(f"input {inputs}: {data[:200]!r}\n{traceback.format_exc()}")
    elapsed = time.monotonic() - start
    print(f"fuzz_loader: {documents} documents in {inputs} inputs, {elapsed:.1f} s "
          f"(seed {args.seed}): {accepted} accepted, {refused} refused with InputError, "
          f"{len(crashes)} other exceptions")
    for crash in crashes[:20]:
        print(crash, file=sys.stderr)
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
