"""`kwhatif capacity` tables."""

from __future__ import annotations

from typing import Any

from tabulate import tabulate


def _workload_lines(w: dict[str, Any]) -> list[str]:
    """`N more fit (M in total)`, or how many of its own replicas fit; the nodes; the stop reason."""
    own = f", with its {w['replicas']} replicas" if w["replicas"] > 1 else ""
    if w["copies"] < w["replicas"]:
        head = f"{w['workload']}: only {w['copies']} of its {w['replicas']} replicas fit"
    else:
        head = f"{w['workload']}: {w['more']} more fit ({w['copies']} in total{own})"
    if w["reached_max"]:
        head += f" (stopped at the --max of {w['max']})"
    lines = [head]
    if w["distribution"]:
        lines += ["", tabulate(sorted(w["distribution"].items()), headers=["NODE", "COPIES"], tablefmt="plain")]
    if w["evictions"]:
        lines += ["", f"evicting {len(w['evictions'])} pod(s): {', '.join(w['evictions'])}"]
    if w["stop_reason"]:
        lines += ["", f"the next copy does not fit: {w['stop_reason']}"]
    return lines


def capacity_table(data: dict[str, Any]) -> str:
    return "\n\n".join("\n".join(_workload_lines(w)) for w in data["workloads"]) + "\n"


def add_node_table(data: dict[str, Any]) -> str:
    tried = ", ".join(f"{t['nodes']} -> {t['pending']} pending" for t in data["tried"])
    if data["nodes_to_add"] is None:
        head = f"even {data['max_nodes']} nodes like {data['template']} are not enough"
    elif data["nodes_to_add"] == 0:
        head = "the workloads fit without adding a node"
    else:
        head = f"add {data['nodes_to_add']} node(s) like {data['template']} for every workload pod to fit"
    return f"{head}\ntried (nodes added -> new pods left pending): {tried}\n"
