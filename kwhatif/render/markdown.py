"""A Markdown summary for a pull-request comment."""

from __future__ import annotations

from typing import Any

from kwhatif.render.check import verdict, workload_ref


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(data: dict[str, Any]) -> str:
    mark = "✅" if data["ok"] else "❌"
    lines = [f"### {mark} kwhatif check: {verdict(data).split(': ', 1)[1]}", "",
             "| Workload | Pods | Bound | Pending | Evictions | Result |",
             "|---|---:|---:|---:|---:|---|"]
    for w in data["workloads"]:
        lines.append(f"| `{workload_ref(w)}` | {w['pods']} | {w['bound']} | {w['pending']} | {w['evictions']} | "
                     f"{'✅ fits' if w['ok'] else '❌ ' + _cell(w['message'] or 'does not fit')} |")
    if data["policies"]:
        lines += ["", "| Policy | Result |", "|---|---|"]
        for p in data["policies"]:
            detail = "; ".join(m for m in p["messages"] if m)
            lines.append(f"| `{p['policy']}` | {'✅' if p['ok'] else '❌'} {_cell(detail)} |")
    cluster = data["cluster"]
    lines += ["", (f"<sub>{cluster['nodes']} nodes, {cluster['bound_pods']} bound pods, "
                  f"{cluster['pending_pods']} pods scheduled ({data['version']} decisions, by kwhatif)</sub>")]
    return "\n".join(lines) + "\n"
