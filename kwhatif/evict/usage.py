"""Pod usage for the eviction ranking, from what an operator can get out of a cluster:
- `kubectl top pods -A --no-headers`: `NAMESPACE NAME CPU MEMORY` lines (memory only; without
  -A, `NAME CPU MEMORY` in the default namespace);
- metrics-server's JSON (`kubectl get --raw /apis/metrics.k8s.io/v1beta1/pods`, a PodMetricsList):
  the containers' memory summed;
- the kubelet's stats summary (`kubectl get --raw /api/v1/nodes/NODE/proxy/stats/summary`): per
  pod memory.workingSetBytes, ephemeral-storage.usedBytes and process_stats.process_count, and the
  node's own memory.availableBytes, fs.availableBytes/capacityBytes and rlimit — the values the
  kubelet's signals are computed from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kwhatif.api.quantity import parse_quantity, value
from kwhatif.errors import InputError
from kwhatif.evict.ranking import NodeStats

Usage = dict[str, dict[str, int]]  # pod key -> resource -> amount (bytes, or a count of pids)


def read_usage(path: str) -> tuple[Usage, NodeStats]:
    try:
        text = Path(path).read_text()
    except OSError as err:
        raise InputError(f"--usage {path}: {err.strerror or err}") from None
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise InputError(f"--usage {path}: not JSON: {err}") from None
        if isinstance(data, dict) and "pods" in data and "node" in data:
            return summary_usage(path, data)
        return metrics_usage(path, data), NodeStats()
    return top_usage(path, text), NodeStats()


def amount(path: str, where: str, text: Any) -> int:
    try:
        return value(parse_quantity(str(text)))
    except (ValueError, InputError):
        raise InputError(f"--usage {path}: {where}: {text!r} is not a quantity") from None


def top_usage(path: str, text: str) -> Usage:
    """`kubectl top pods` lines: the last column is memory."""
    out: Usage = {}
    lines: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields or fields[0] in ("NAMESPACE", "NAME"):
            continue  # a blank or header line
        if len(fields) not in (3, 4):
            raise InputError(f"--usage {path}: line {number}: expected NAMESPACE NAME CPU MEMORY (kubectl top pods -A)")
        namespace, name = (fields[0], fields[1]) if len(fields) == 4 else ("default", fields[0])
        key = f"{namespace}/{name}"
        if key in lines:  # kubectl top lists a pod once: two lines are two readings, and which one holds?
            raise InputError(f"--usage {path}: line {number}: {key} is listed again (first on line {lines[key]})")
        lines[key] = number
        amount(path, f"line {number}", fields[-2])  # the CPU column: a line that has none is not kubectl top's
        out[key] = {"memory": amount(path, f"line {number}", fields[-1])}
    return out


def metrics_usage(path: str, data: Any) -> Usage:
    """A PodMetricsList: each pod's containers' memory, summed."""
    items = data.get("items") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise InputError(f"--usage {path}: expected a PodMetricsList (items) or a kubelet stats summary")
    out: Usage = {}
    for i, item in enumerate(items):
        meta = item.get("metadata", {}) if isinstance(item, dict) else {}
        key = f"{meta.get('namespace', 'default')}/{meta.get('name', '')}"
        total = sum(amount(path, f"items[{i}]", c.get("usage", {}).get("memory", "0"))
                    for c in item.get("containers", []) or [])
        out[key] = {"memory": total}
    return out


def summary_usage(path: str, data: dict[str, Any]) -> tuple[Usage, NodeStats]:
    """The kubelet's stats summary: the pods' and the node's figures."""
    out: Usage = {}
    for pod in data.get("pods") or []:
        ref = pod.get("podRef", {})
        figures = {"memory": (pod.get("memory") or {}).get("workingSetBytes"),
                   "ephemeral-storage": (pod.get("ephemeral-storage") or {}).get("usedBytes"),
                   "pids": (pod.get("process_stats") or {}).get("process_count")}
        out[f"{ref.get('namespace', 'default')}/{ref.get('name', '')}"] = \
            {k: int(v) for k, v in figures.items() if v is not None}
    node = data.get("node") or {}
    memory, fs, rlimit = node.get("memory") or {}, node.get("fs") or {}, node.get("rlimit") or {}
    available = {"memory": memory.get("availableBytes"), "ephemeral-storage": fs.get("availableBytes"),
                 "pids": (rlimit["maxpid"] - rlimit["curproc"]) if "maxpid" in rlimit and "curproc" in rlimit else None}
    capacity = {"ephemeral-storage": fs.get("capacityBytes"), "pids": rlimit.get("maxpid")}
    return out, NodeStats({k: int(v) for k, v in available.items() if v is not None},
                          {k: int(v) for k, v in capacity.items() if v is not None})
