"""The pieces every HTML page shares: the self-contained page around a body, tables, the
utilisation heat map, the grouped pending pods.

Self-contained means it opens from a file with no network: the CSS is inline, bars and cells are
plain HTML coloured by inline styles, no script, no font, no image, no URL. Every text that comes
from the input (names, messages, reasons) goes through `html.escape`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape
from typing import Any

from kwhatif.api.quantity import format_amount
from kwhatif.render.html.utilisation import percent

MAX_PODS_A_GROUP = 20  # pod names listed per pending group; the count says how many there are
MAX_WARNINGS = 20

STYLE = """
body { font: 14px/1.4 sans-serif; margin: 1.5em; color: #222; background: #fff; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { border: 1px solid #ccc; padding: 2px 6px; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
td.num { text-align: right; }
td.heat { text-align: right; font-size: 12px; min-width: 3.5em; }
td.na { background: #eee; color: #999; text-align: center; }
pre { white-space: pre-wrap; background: #f6f6f6; padding: .6em; border: 1px solid #ddd; }
.ok { color: #176f2c; font-weight: bold; } .fail { color: #b00020; font-weight: bold; }
.bar { height: 12px; display: inline-block; vertical-align: middle; }
.winner { background: #3465a4; } .runner-up { background: #f57900; }
.note { color: #555; }
"""


def page(title: str, body: Iterable[str]) -> str:
    """The whole document around `body` (already escaped HTML)."""
    return "".join([
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>\n",
        f"<h1>{escape(title)}</h1>\n", *body, "</body></html>\n",
    ])


def section(title: str, *parts: str) -> str:
    return f"<section><h2>{escape(title)}</h2>\n" + "".join(parts) + "</section>\n"


def paragraph(text: str, css: str = "") -> str:
    attr = f' class="{css}"' if css else ""
    return f"<p{attr}>{escape(text)}</p>\n"


def cell(value: object) -> str:
    """A table cell: numbers right-aligned, None empty, everything else escaped text."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"<td class=\"num\">{value}</td>"
    return f"<td>{'' if value is None else escape(str(value))}</td>"


def table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(cell(v) for v in row) + "</tr>\n" for row in rows)
    return f"<table><tr>{head}</tr>\n{body}</table>\n"


def summary_section(data: dict[str, Any]) -> str:
    """The run in numbers: the cluster, the queue and how each pod ended."""
    cluster = data["cluster"]
    rows = [("nodes", cluster["nodes"]), ("pods bound before the run", cluster["bound_pods"]),
            ("pods in the queue", cluster["pending_pods"]),
            *((f"outcome: {outcome}", count) for outcome, count in data["counts"].items())]
    return section("Summary", paragraph(f"Simulated as {data['version']} (kwhatif)."), table(["", "count"], rows))


def heat_colour(value: int) -> str:
    """Green (empty) through yellow to red (full or over): the hue falls with the percentage."""
    hue = 120 * (100 - min(value, 100)) // 100
    return f"hsl({hue},75%,{80 - min(value, 100) // 5}%)"


def heat_cell(resource: str, phase: str, numbers: dict[str, Any], bucket: bool) -> str:
    """One cell: the node's (or bucket's) requested/allocatable as a percentage, coloured; its
    title says the amounts (and a bucket's fullest node). `data-*` attributes carry the figures
    for programs and tests."""
    requested, offered = numbers["requested"], numbers["allocatable"]
    attrs = f'data-resource="{escape(resource)}" data-phase="{phase}"'
    if offered == 0:
        return f'<td class="heat na" {attrs} title="no node here offers {escape(resource)}">–</td>'
    value = percent(requested, offered)
    title = (f"{resource} {phase}: {format_amount(resource, requested, exact=False)} requested of "
             f"{format_amount(resource, offered, exact=False)} ({value}%)"
             + (f"; fullest node {numbers['max_percent']}%" if bucket else ""))
    return (f'<td class="heat" {attrs} data-percent="{value}" style="background:{heat_colour(value)}" '
            f'title="{escape(title)}">{value}%</td>')


def row_label(row: dict[str, Any]) -> str:
    if row["nodes"] == 1:
        return str(row["first"])
    return f"{row['first']} … {row['last']} ({row['nodes']} nodes)"


def heat_map(utilisation: dict[str, Any], phases: Sequence[str] = ("before", "after")) -> str:
    """Nodes (or buckets of nodes, see render.html.utilisation) down, each resource's phases across."""
    names = utilisation["resources"]
    per = utilisation["nodes_per_row"]
    note = (f"{utilisation['nodes']} nodes, sorted by name" +
            (f", {per} to a row (a row's figure is its requests over its allocatable; hover for its fullest node)"
             if per > 1 else "") + ". Requests over allocatable, as the scheduler counts them.")
    head = "<tr><th rowspan=\"2\">nodes</th>" + "".join(
        f'<th colspan="{len(phases)}">{escape(n)}</th>' for n in names) + "</tr>\n<tr>" + "".join(
        f"<th>{p}</th>" for _ in names for p in phases) + "</tr>\n"
    body = "".join(
        f"<tr><td>{escape(row_label(row))}</td>"
        + "".join(heat_cell(n, p, row[p][n], per > 1) for n in names for p in phases) + "</tr>\n"
        for row in utilisation["rows"])
    return paragraph(note, "note") + f'<table class="heatmap">\n{head}{body}</table>\n'


def pending_section(results: Sequence[dict[str, Any]]) -> str:
    """The pods that did not bind, grouped by outcome and message (the same message says the
    same thing about every pod that got it), biggest group first."""
    groups: dict[tuple[str, str], list[str]] = {}
    for result in results:
        if result["outcome"] != "bound":
            groups.setdefault((result["outcome"], result["message"] or ""), []).append(result["pod"])
    if not groups:
        return section("Pending pods", paragraph("Every pod of the queue is bound."))
    ordered = sorted(groups.items(), key=lambda item: (-len(item[1]), item[0]))
    parts = [paragraph(f"{sum(len(p) for p in groups.values())} pod(s) not bound, in {len(groups)} group(s) "
                       "by their FailedScheduling message (verbatim).")]
    for (outcome, message), pods in ordered:
        shown = ", ".join(pods[:MAX_PODS_A_GROUP]) + (f", … ({len(pods)} in all)" if len(pods) > MAX_PODS_A_GROUP else "")
        parts.append(f"<div class=\"pending\"><p><b>{len(pods)}</b> {escape(outcome)}: {escape(shown)}</p>"
                     f"<pre>{escape(message)}</pre></div>\n")
    return section("Pending pods", *parts)


def warnings_section(warnings: Sequence[str]) -> str:
    if not warnings:
        return ""
    more = len(warnings) - MAX_WARNINGS
    items = "".join(f"<li>{escape(w)}</li>" for w in warnings[:MAX_WARNINGS])
    return section("Warnings", f"<ul>{items}</ul>\n", paragraph(f"… and {more} more", "note") if more > 0 else "")
