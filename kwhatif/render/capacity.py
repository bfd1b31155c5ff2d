"""`kwhatif capacity` tables."""

from __future__ import annotations

from collections import Counter
from typing import Any

from tabulate import tabulate


def _workload_lines(w: dict[str, Any]) -> list[str]:
    """`N more fit (M in total)`, or how many of its own replicas fit; the nodes; the stop reason."""
    own = f", with its {w['replicas']} replicas" if w["replicas"] > 1 else ""
    if w["copies"] < w["replicas"]:
        head = f"{w['workload']}: only {w['copies']} of its {w['replicas']} replicas fit"
        if not w["nodes"]:  # every node removed: nothing to land on, nothing to preempt
            head += " (the cluster has no node)"
        elif not w["preemption"] and w["stopped_by"] == "unschedulable":  # kube-scheduler would let them preempt
            head += " (with preemption off; --allow-preemption lets them preempt, as kube-scheduler would)"
    else:
        head = f"{w['workload']}: {w['more']} more fit ({w['copies']} in total{own})"
    if w["reached_max"]:
        head += f" (stopped at the --max of {w['max']})"
    lines = [head]
    if w["distribution"]:
        lines += ["", *_distribution_lines(w["distribution"])]
    if w["evictions"]:
        lines += ["", f"evicting {len(w['evictions'])} pod(s): {', '.join(w['evictions'])}"]
    if w["stop_reason"]:
        lines += ["", f"the next copy does not fit: {w['stop_reason']}"]
    return lines


NODES_LISTED = 20
"""Nodes the table names per workload: on 5,000 nodes a thousand copies land on hundreds."""


def _distribution_lines(distribution: dict[str, int]) -> list[str]:
    """The nodes the pods placed by the run — the workload's replicas that were not running yet,
    then the copies — went to, by name; past NODES_LISTED, the nodes holding the most (then by
    name), how many the others hold, and how they spread over nodes (a workload's running pods
    are counted in its total, not here). The column says PODS, not copies: it counts both."""
    if len(distribution) <= NODES_LISTED:
        return tabulate(sorted(distribution.items()), headers=["NODE", "PODS"], tablefmt="plain").split("\n")
    busiest = sorted(distribution.items(), key=lambda item: (-item[1], item[0]))
    shown, rest = busiest[:NODES_LISTED], busiest[NODES_LISTED:]
    spread = Counter(distribution.values())
    return [*tabulate(shown, headers=["NODE", "PODS"], tablefmt="plain").split("\n"),
            f"... and {len(rest)} more node(s) with {sum(n for _, n in rest)} pods (-o json lists every node)",
            f"the {sum(distribution.values())} placed here on {len(distribution)} nodes: "
            + ", ".join(f"{count} node(s) with {copies}" for copies, count in sorted(spread.items(), reverse=True))]


def capacity_table(data: dict[str, Any]) -> str:
    return "\n\n".join("\n".join(_workload_lines(w)) for w in data["workloads"]) + "\n"


def add_node_table(data: dict[str, Any]) -> str:
    tried = ", ".join(f"{t['nodes']} -> {t['pending']} pending" for t in data["tried"])
    if data["nodes_to_add"] is None:
        most = max(t["nodes"] for t in data["tried"])
        head = f"even {data['max_nodes']} nodes like {data['template']} are not enough" + "".join(
            f"\n  with {most}, {w['workload']} still leaves {w['pod']} pending: {w['message']}"
            for w in data["still_pending"])
    elif data["nodes_to_add"] == 0:
        head = "the workloads fit without adding a node"
    else:
        head = f"add {data['nodes_to_add']} node(s) like {data['template']} for every workload pod to fit"
    return f"{head}\ntried (nodes added -> new pods left pending): {tried}\n"
