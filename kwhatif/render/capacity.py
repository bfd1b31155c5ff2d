"""`kwhatif capacity` tables."""

from __future__ import annotations

from typing import Any

from tabulate import tabulate


def capacity_table(data: dict[str, Any]) -> str:
    more = "the --max" if data["reached_max"] else ""
    lines = [f"{data['copies']} more copies of {data['pod']} ({data['workload']}) fit"
             + (f" (stopped at {more} of {data['max']})" if more else "")]
    if data["distribution"]:
        lines += ["", tabulate(sorted(data["distribution"].items()), headers=["NODE", "COPIES"], tablefmt="plain")]
    if data["evictions"]:
        lines += ["", f"evicting {len(data['evictions'])} pod(s): {', '.join(data['evictions'])}"]
    if data["stop_reason"]:
        lines += ["", f"the next copy does not fit: {data['stop_reason']}"]
    return "\n".join(lines) + "\n"


def add_node_table(data: dict[str, Any]) -> str:
    tried = ", ".join(f"{t['nodes']} -> {t['pending']} pending" for t in data["tried"])
    if data["nodes_to_add"] is None:
        head = f"even {data['max_nodes']} nodes like {data['template']} are not enough"
    elif data["nodes_to_add"] == 0:
        head = "the workloads fit without adding a node"
    else:
        head = f"add {data['nodes_to_add']} node(s) like {data['template']} for every workload pod to fit"
    return f"{head}\ntried (nodes added -> new pods left pending): {tried}\n"
