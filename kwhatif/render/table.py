"""Human tables (tabulate) for schedule results and explanations."""

from __future__ import annotations

from typing import Any

from tabulate import tabulate

from kwhatif.explain.pod import Explanation

_MESSAGE_WIDTH = 90


def _short(text: str | None, wide: bool) -> str:
    if not text:
        return ""
    return text if wide or len(text) <= _MESSAGE_WIDTH else text[: _MESSAGE_WIDTH - 3] + "..."


def results_table(data: dict[str, Any], wide: bool = False) -> str:
    """One row per pending pod in scheduling order, then the counts."""
    rows = []
    for r in data["results"]:
        tied = r.get("tied_nodes") or []
        row = [r["pod"], r["priority"], r["outcome"], r["node"] or "", len(tied) if len(tied) > 1 else "",
               _short(r.get("message"), wide)]
        if wide:
            pre = r.get("preemption") or {}
            row.insert(5, ", ".join(pre.get("victims") or []))
        rows.append(row)
    headers = ["POD", "PRIORITY", "OUTCOME", "NODE", "TIED", "MESSAGE"]
    if wide:
        headers.insert(5, "VICTIMS")
    counts = ", ".join(f"{n} {k}" for k, n in data["counts"].items()) or "no pending pods"
    cluster = data["cluster"]
    summary = f"{cluster['nodes']} nodes, {cluster['bound_pods']} bound pods, {cluster['pending_pods']} pods to place: {counts}"
    return tabulate(rows, headers=headers, tablefmt="plain") + "\n\n" + summary + "\n"


def explanation_table(exp: Explanation) -> str:
    lines = [f"Pod {exp.pod}: {exp.outcome}" + (f" on {exp.node}" if exp.node else "")]
    if exp.message:
        lines.append(f"Message (as kube-scheduler words it): {exp.message}")
    if len(exp.tied_nodes) > 1:
        lines.append(f"kwhatif: {len(exp.tied_nodes)} nodes tied for the top score ({', '.join(exp.tied_nodes)}); "
                     "kube-scheduler picks one at random, kwhatif the smallest name")
    if exp.attempts > 1:
        lines.append("kwhatif: placed on the second attempt, after preemption")
    plugins = sorted({p for v in exp.verdicts for p in v.scores})
    rows = []
    for v in exp.verdicts:
        if v.feasible:
            mark = "chosen" if v.chosen else ("tied" if v.tied else "feasible")
            rows.append([v.node, mark, "", ""] + [v.scores.get(p, "-") for p in plugins] + [v.total if v.total is not None else ""])
        else:
            rows.append([v.node, "rejected", v.plugin, "; ".join(v.reasons)] + [""] * len(plugins) + [""])
    if rows:
        lines.append("")
        lines.append(tabulate(rows, headers=["NODE", "VERDICT", "PLUGIN", "REASONS"] + plugins + ["TOTAL"],
                              tablefmt="plain"))
    if exp.preemption:
        lines.append("")
        lines.extend(_preemption_lines(exp.preemption))
    return "\n".join(lines) + "\n"


def _preemption_lines(pre: dict[str, Any]) -> list[str]:
    lines = ["Preemption:"]
    if pre.get("not_eligible"):
        lines.append(f"  not eligible: {pre['not_eligible']}")
        return lines
    if "potential_nodes" in pre:
        lines.append(f"  potential nodes (status Unschedulable): {', '.join(pre['potential_nodes']) or 'none'}")
    for node, reasons in pre.get("node_results", {}).items():
        lines.append(f"  {node}: no candidate: {'; '.join(reasons)}")
    for c in pre.get("candidates", []):
        victims = ", ".join(
            f"{v['pod']} (priority {v['priority']}" + (f", breaks PDB {', '.join(v['breaks_pdb'])}" if v["breaks_pdb"] else "") + ")"
            for v in c["victims"])
        lines.append(f"  {c['node']}: candidate, victims {victims}" + (f"; reprieved {', '.join(c['reprieved'])}" if c["reprieved"] else ""))
    if pre.get("chosen"):
        lines.append(f"  chosen: {pre['chosen']} (decided by: {pre['decided_by']})")
    return lines
