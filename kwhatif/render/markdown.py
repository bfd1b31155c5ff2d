"""A Markdown summary for a pull-request comment."""

from __future__ import annotations

from typing import Any

from kwhatif.render.check import result_word, rollout_lines, verdict, workload_ref
from kwhatif.text import counted, markdown_cell


def _result(w: dict[str, Any]) -> str:
    if not w["ok"]:
        return "❌ " + markdown_cell(w["message"] or "does not fit")
    return "⚠️ " + markdown_cell(w["message"]) if result_word(w) == "no node" else "✅ fits"


def to_markdown(data: dict[str, Any]) -> str:
    mark = "✅" if data["ok"] else "❌"
    lines = [f"### {mark} kwhatif check: {verdict(data).split(': ', 1)[1]}", "",
             "| Workload | Change | Pods | Bound | Pending | Evictions | Result |",
             "|---|---|---:|---:|---:|---:|---|"]
    for w in data["workloads"]:
        lines.append(f"| `{workload_ref(w)}` | {w['change']} | {w['pods']} | {w['bound']} | {w['pending']} | "
                     f"{w['evictions']} | {_result(w)} |")
    fixes = [f"- 🔧 `{w['suggestion']['pod']}` (`{workload_ref(w)}`) would fit if: "
             f"{markdown_cell(w['suggestion']['summary'])} "
             "(verified for that pod alone by a re-run: re-run the check after the change)"
             for w in data["workloads"] if w.get("suggestion")]
    if fixes:
        lines += ["", *fixes]
    rollouts = rollout_lines(data)
    if rollouts:
        lines += ["", *(f"- {line}" for line in rollouts)]
    if data["policies"]:
        lines += ["", "| Policy | Result |", "|---|---|"]
        for p in data["policies"]:
            detail = "; ".join(m for m in p["messages"] if m)
            lines.append(f"| `{p['policy']}` | {' '.join(t for t in ('✅' if p['ok'] else '❌', markdown_cell(detail)) if t)} |")
    if data["warnings"]:
        lines += ["", "<details><summary>⚠️ " + f"{len(data['warnings'])} warning(s)</summary>", "",
                  *(f"- {markdown_cell(w)}" for w in data["warnings"]), "", "</details>"]
    cluster = data["cluster"]
    lines += ["", (f"<sub>{cluster['nodes']} nodes, {cluster['bound_pods']} bound pods, "
                  f"{counted(cluster['pending_pods'], 'pod')} scheduled ({data['version']} decisions, by kwhatif)</sub>")]
    return "\n".join(lines) + "\n"
