"""`schedule -o html` and `check -o html`: the run's summary, the utilisation heat map before and
after it, and the pods left pending; for `check`, the verdict per workload and the policies
first. Drawn from `render.results.simulation_data` / `render.check.check_data` with the
`utilisation` that `render.html.with_utilisation` adds."""

from __future__ import annotations

from typing import Any

from kwhatif.render.check import verdict, workload_ref
from kwhatif.render.html.page import (
    heat_map, page, paragraph, pending_section, section, summary_section, table, warnings_section,
)

HEAT_MAP_TITLE = "Node utilisation before and after the run"


def schedule_page(data: dict[str, Any]) -> str:
    return page("kwhatif schedule", [
        summary_section(data),
        section(HEAT_MAP_TITLE, heat_map(data["utilisation"])),
        pending_section(data["results"]),
        warnings_section(data["warnings"]),
    ])


def check_page(data: dict[str, Any]) -> str:
    """The CI gate's verdict first (PASS/FAIL, as the table's last line), then per workload."""
    rows = [(workload_ref(w), w["pods"], w["bound"], w["pending"], w["evictions"], "ok" if w["ok"] else "FAIL",
             w["message"]) for w in data["workloads"]]
    policies = [(p["policy"], "ok" if p["ok"] else "FAIL", "; ".join(m for m in p["messages"] if m))
                for p in data["policies"]]
    parts = [table(["workload", "pods", "bound", "pending", "evicts", "result", "first pending pod's message"], rows)]
    if policies:
        parts.append(table(["policy", "result", "messages"], policies))
    return page("kwhatif check", [
        paragraph(verdict(data), "ok" if data["ok"] else "fail"),
        section("Workloads", *parts),
        summary_section(data),
        section(HEAT_MAP_TITLE + " (the workloads placed)", heat_map(data["utilisation"])),
        pending_section(data["results"]),
        warnings_section(data["warnings"]),
    ])
