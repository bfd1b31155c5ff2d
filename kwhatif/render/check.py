"""`kwhatif check` results → plain data (the `schedule -o json` document plus `workloads`,
`policies` and `ok`) and the human table."""

from __future__ import annotations

from typing import Any

from tabulate import tabulate

from kwhatif.check import CheckResult
from kwhatif.errors import Source
from kwhatif.render.results import simulation_data
from kwhatif.render.table import results_table


def _source(source: object) -> dict[str, Any] | None:
    if not isinstance(source, Source):
        return None
    return {"file": source.file, "line": source.line}


def check_data(result: CheckResult) -> dict[str, Any]:
    data = simulation_data(result.simulation)
    data["warnings"] = list(result.warnings)
    data["workloads"] = [{**w.data(), "source": _source(w.source)} for w in result.workloads]
    data["policies"] = [p.data() for p in result.policies]
    data["ok"] = result.ok
    return data


def workload_ref(w: dict[str, Any]) -> str:
    return f"{w['kind']}/{w['namespace']}/{w['name']}"


def verdict(data: dict[str, Any]) -> str:
    fits = sum(1 for w in data["workloads"] if w["ok"])
    failed = [p["policy"] for p in data["policies"] if not p["ok"]]
    text = f"{fits}/{len(data['workloads'])} workloads fit"
    if failed:
        text += f"; policies failed: {', '.join(failed)}"
    return ("PASS: " if data["ok"] else "FAIL: ") + text


def check_table(data: dict[str, Any], wide: bool = False) -> str:
    rows = [[workload_ref(w), w["pods"], w["bound"], w["pending"], w["evictions"] or "", "ok" if w["ok"] else "FAIL"]
            for w in data["workloads"]]
    out = [results_table(data, wide), tabulate(rows, headers=["WORKLOAD", "PODS", "BOUND", "PENDING", "EVICTS", "RESULT"],
                                               tablefmt="plain")]
    for p in data["policies"]:
        out.append(f"policy {p['policy']}: {'ok' if p['ok'] else 'FAIL'}"
                   + "".join(f"\n  {m}" for m in p["messages"] if m))
    out.append(verdict(data))
    return "\n\n".join(o.rstrip("\n") for o in out) + "\n"
