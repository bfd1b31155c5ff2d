"""`kwhatif diff` as a table for the terminal and as Markdown for a pull-request comment, from
`Diff.data()` (JSON is that data as it is)."""

from __future__ import annotations

from typing import Any

from kwhatif.api.quantity import format_amount
from kwhatif.text import markdown_cell
from kwhatif.render.table import painted, plain_table, rows_alone, terminal_width, with_text_column

POD_HEADERS = ["POD", "CHANGE", "BEFORE", "AFTER", "REASON"]
NODE_HEADERS = ["NODE", "CPU BEFORE", "CPU AFTER", "MEMORY BEFORE", "MEMORY AFTER", "PODS"]


def usage(record: dict[str, int] | None, resource: str) -> str:
    """`1500m/4000m (38%)`; `-` for a node absent from that run."""
    if record is None:
        return "-"
    used, offered = record[resource], record[f"{resource}_allocatable"]
    share = f" ({(200 * used + offered) // (2 * offered)}%)" if offered else ""
    return f"{format_amount(resource, used, exact=False)}/{format_amount(resource, offered, exact=False)}{share}"


SEVERITY = ("skipped", "becomes pending", "evicted", "still pending", "gone", "placed", "moved")
"""The order of the pods' table: what an operator must act on first. A drain on 5,000 nodes
also moves hundreds of pending pods between nodes they were only going to land on; listed by
name, those came first."""


def pod_rows(data: dict[str, Any], color: bool = False, width: int | None = None) -> list[list[str]]:
    """A row a changed pod, the worst changes first (SEVERITY; by name within one, as in the
    data); `color` paints the change (`--color`); the reasons wrap into a terminal `width`
    columns wide (None: each on one line)."""
    changes = sorted(data["pods"], key=lambda c: SEVERITY.index(c["change"]))
    rows = [[c["pod"], painted(c["change"], color), c["before"] or "-", c["after"] or "-"] for c in changes]
    return with_text_column(rows, POD_HEADERS, [c["reason"] for c in changes], width)


def node_rows(data: dict[str, Any]) -> list[list[str]]:
    rows = []
    for name, pair in data["nodes"].items():
        old, new = pair["before"], pair["after"]
        pods = f"{old['pods'] if old else '-'} -> {new['pods'] if new else '-'}"
        rows.append([name, usage(old, "cpu"), usage(new, "cpu"), usage(old, "memory"), usage(new, "memory"), pods])
    return rows


def heading(data: dict[str, Any], whatif: bool = True) -> list[str]:
    """Both sides, the operations (the table's were echoed when they were applied) and the counts."""
    lines = [f"before: {data['before']}", f"after:  {data['after']}"]
    lines += [f"what-if: {w['summary']}" for w in data["whatif"]] if whatif else []
    counts = ", ".join(f"{n} {change}" for change, n in data["counts"].items()) or "no pod changes"
    return lines + [counts]


def diff_table(data: dict[str, Any], wide: bool = False, headers: bool = True, color: bool = False,
               width: int | None = None) -> str:
    """The heading, the pods that changed (their reasons wrapped into the terminal's `width`,
    whole with `wide`), the nodes whose usage did; `headers=False` (`--no-headers`): the pods'
    rows then the nodes' rows alone."""
    column = None if wide else width or terminal_width()
    pods = plain_table(pod_rows(data, color, column), POD_HEADERS, headers) if data["pods"] else ""
    nodes = plain_table(node_rows(data), NODE_HEADERS, headers) if data["nodes"] else ""
    if not headers:
        return rows_alone(pods, nodes)
    parts = ["\n".join(heading(data, whatif=False)), pods, nodes, f"{data['unchanged_nodes']} node(s) unchanged"]
    return "\n\n".join(p for p in parts if p) + "\n"


def markdown_table(headers: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)] + \
        ["| " + " | ".join(markdown_cell(c) for c in row) + " |" for row in rows]


def diff_markdown(data: dict[str, Any]) -> str:
    """For a pull-request comment: the heading as a list, then the two tables."""
    lines = ["### kwhatif diff", ""] + [f"- {line}" for line in heading(data)] + [""]
    if data["pods"]:
        lines += ["#### Pods", ""] + markdown_table(POD_HEADERS, pod_rows(data)) + [""]
    if data["nodes"]:
        lines += ["#### Nodes", ""] + markdown_table(NODE_HEADERS, node_rows(data)) + [""]
    lines.append(f"{data['unchanged_nodes']} node(s) unchanged.")
    return "\n".join(lines) + "\n"
