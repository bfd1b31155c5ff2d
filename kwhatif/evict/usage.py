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
from typing import Any

from kwhatif.api.quantity import parse_quantity, value
from kwhatif.errors import InputError
from kwhatif.load.reader import read_side_text
from kwhatif.evict.ranking import NodeStats

Usage = dict[str, dict[str, int]]  # pod key -> resource -> amount (bytes, or a count of pids)


def read_usage(path: str) -> tuple[Usage, NodeStats]:
    """`path`'s readings; `-` is stdin (`kubectl top pods -A --no-headers | kwhatif evict ... --usage -`)."""
    text = read_side_text(path, f"--usage {path}")
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
    """A usage reading written as a quantity: never negative (and never too big to be one)."""
    try:
        found = value(parse_quantity(str(text)))
    except (ValueError, ArithmeticError, InputError):
        raise InputError(f"--usage {path}: {where}: {text!r} is not a quantity") from None
    if found < 0:
        raise InputError(f"--usage {path}: {where}: {text!r} is negative: a usage reading never is")
    if found > INT64_MAX:
        raise InputError(f"--usage {path}: {where}: {text!r} is not a quantity a kubelet reports (beyond int64)")
    return found


INT64_MAX = 2**63 - 1


def count(path: str, where: str, raw: Any) -> int | None:
    """A stats summary figure: a JSON integer, not negative (null: not reported)."""
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0:
        raise InputError(f"--usage {path}: {where}: expected a count of bytes (an integer, not negative), "
                         f"got {json.dumps(raw)[:40]}")
    return raw


def mapping(path: str, where: str, raw: Any) -> dict[str, Any]:
    """A JSON object of a usage file (null: empty)."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise InputError(f"--usage {path}: {where}: expected an object, got {json.dumps(raw)[:40]}")
    return raw


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
    if not out:  # `kubectl top ... | kwhatif evict --usage -` when metrics-server does not answer
        raise InputError(f"--usage {path}: no reading in it (kubectl top pods prints NAMESPACE NAME CPU MEMORY "
                         "lines; an empty file would rank every pod as one without stats, against a guessed "
                         "memory.available)")
    return out


def metrics_usage(path: str, data: Any) -> Usage:
    """A PodMetricsList: each pod's containers' memory, summed."""
    items = data.get("items") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise InputError(f"--usage {path}: expected a PodMetricsList (items) or a kubelet stats summary")
    out: Usage = {}
    for i, raw in enumerate(items):
        item = mapping(path, f"items[{i}]", raw)
        meta = mapping(path, f"items[{i}].metadata", item.get("metadata"))
        key = f"{meta.get('namespace', 'default')}/{meta.get('name', '')}"
        containers = item.get("containers") or []
        if not isinstance(containers, list):
            raise InputError(f"--usage {path}: items[{i}].containers: expected a list")
        out[key] = {"memory": sum(
            amount(path, f"items[{i}].containers[{j}]", mapping(path, f"items[{i}].containers[{j}].usage", mapping(
                path, f"items[{i}].containers[{j}]", c).get("usage")).get("memory", "0"))
            for j, c in enumerate(containers))}
    return out


def summary_usage(path: str, data: dict[str, Any]) -> tuple[Usage, NodeStats]:
    """The kubelet's stats summary: the pods' and the node's figures."""
    out: Usage = {}
    pods = data.get("pods") or []
    if not isinstance(pods, list):
        raise InputError(f"--usage {path}: pods: expected a list")
    for i, raw in enumerate(pods):
        at = f"pods[{i}]"
        pod = mapping(path, at, raw)
        ref = mapping(path, f"{at}.podRef", pod.get("podRef"))
        figures = {"memory": count(path, f"{at}.memory.workingSetBytes",
                                   mapping(path, f"{at}.memory", pod.get("memory")).get("workingSetBytes")),
                   "ephemeral-storage": count(path, f"{at}.ephemeral-storage.usedBytes", mapping(
                       path, f"{at}.ephemeral-storage", pod.get("ephemeral-storage")).get("usedBytes")),
                   "pids": count(path, f"{at}.process_stats.process_count", mapping(
                       path, f"{at}.process_stats", pod.get("process_stats")).get("process_count"))}
        out[f"{ref.get('namespace', 'default')}/{ref.get('name', '')}"] = \
            {k: v for k, v in figures.items() if v is not None}
    node = mapping(path, "node", data.get("node"))
    memory, fs, rlimit = (mapping(path, f"node.{key}", node.get(key)) for key in ("memory", "fs", "rlimit"))
    maxpid, curproc = count(path, "node.rlimit.maxpid", rlimit.get("maxpid")), \
        count(path, "node.rlimit.curproc", rlimit.get("curproc"))
    available = {"memory": count(path, "node.memory.availableBytes", memory.get("availableBytes")),
                 "ephemeral-storage": count(path, "node.fs.availableBytes", fs.get("availableBytes")),
                 "pids": maxpid - curproc if maxpid is not None and curproc is not None else None}
    working_set = count(path, "node.memory.workingSetBytes", memory.get("workingSetBytes"))
    # makeMemoryAvailableSignalObservation: the capacity a percentage threshold is of is
    # available + working set, not the node's allocatable.
    capacity = {"memory": available["memory"] + working_set
                if available["memory"] is not None and working_set is not None else None,
                "ephemeral-storage": count(path, "node.fs.capacityBytes", fs.get("capacityBytes")), "pids": maxpid}
    return out, NodeStats({k: v for k, v in available.items() if v is not None},
                          {k: v for k, v in capacity.items() if v is not None})
