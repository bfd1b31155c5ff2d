"""Two runs of the same queue under two profiles, side by side (e.g. default vs bin packing)."""

from __future__ import annotations

from typing import Any

from tabulate import tabulate

from kwhatif.engine import Simulation


def comparison_data(left_label: str, left: Simulation, right_label: str, right: Simulation) -> dict[str, Any]:
    """Per pod (in the left run's scheduling order): outcome and node under each profile."""
    right_by_pod = {r.pod.key: r for r in right.results}
    rows = []
    for r in left.results:
        other = right_by_pod.get(r.pod.key)
        rows.append({
            "pod": r.pod.key,
            left_label: {"outcome": r.outcome.value, "node": r.final.node if r.final else None},
            right_label: {"outcome": other.outcome.value if other else None,
                          "node": other.final.node if other and other.final else None},
        })
    changed = sum(1 for row in rows if row[left_label] != row[right_label])
    return {"profiles": [left_label, right_label], "changed": changed, "pods": rows,
            "nodes_used": {left_label: _nodes_used(left), right_label: _nodes_used(right)}}


def _nodes_used(sim: Simulation) -> int:
    """Nodes holding at least one pod after the run (bin packing should use fewer)."""
    return sum(1 for n in sim.snapshot.node_infos if n.pods)


def comparison_table(data: dict[str, Any]) -> str:
    left, right = data["profiles"]
    rows = []
    for row in data["pods"]:
        a, b = row[left], row[right]
        rows.append([row["pod"], a["node"] or a["outcome"], b["node"] or b["outcome"],
                     "" if a == b else "changed"])
    used = data["nodes_used"]
    summary = (f"{data['changed']} of {len(rows)} pods placed differently; nodes in use afterwards: "
               f"{used[left]} ({left}) vs {used[right]} ({right})")
    return tabulate(rows, headers=["POD", left.upper(), right.upper(), ""], tablefmt="plain") + "\n\n" + summary + "\n"
