"""A sweep's rows as data (`json`) and as flat tables (`table`, `csv`, `markdown`, `html`).

Every format shows the same fields (`flat`; the terminal table merges the failing workloads and
policies into one column) and keeps a scenario on one line by moving the texts to notes below.
The rows carry no timing, so two runs of a sweep give the same bytes."""

from __future__ import annotations

import csv
import html
import io
import textwrap
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import orjson
from tabulate import tabulate

from kwhatif import __version__
from kwhatif.text import counted, markdown_cell

Row = dict[str, Any]


def sweep_data(file: str, now: str, rows: Sequence[Row], workloads: Mapping[str, Sequence[str]] | None = None
               ) -> dict[str, Any]:
    """`workloads`: each workload set's workloads (`Kind/namespace/name`), passing or not."""
    return {"version": __version__, "sweep": file, "now": now, "scenarios": len(rows),
            "workloads": {name: list(refs) for name, refs in (workloads or {}).items()}, "rows": list(rows)}


def resources(rows: Sequence[Row]) -> list[str]:
    """The utilisation columns: every resource of any row, in the rows' order."""
    names: dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row["utilisation"]))
    return list(names)


def flat(rows: Sequence[Row]) -> tuple[list[str], list[list[Any]]]:
    names = resources(rows)
    header = ["scenario", "snapshot", "workloads", "node_template", "node_count", "remove", "config", "nodes",
              "bound", "pending", "evicted", "verdict", "failed_workloads", "policies", *[f"{n} %" for n in names],
              "message", "warnings", "error"]
    body = []
    for row in rows:
        policies = " ".join(f"{p['policy']}={'ok' if p['ok'] else 'fail'}" for p in row["policies"])
        body.append([*(row[k] for k in header[:12]), " ".join(row["failed_workloads"]) or None, policies,
                     *(row["utilisation"].get(n) for n in names), row["message"], "; ".join(row["warnings"]) or None,
                     row["error"]])
    return header, body


AXES = ("snapshot", "workloads", "node_template", "remove", "config")
TEXTS = ("message", "warnings", "error")
MIN_TEXT_WIDTH = 40


def as_table(data: dict[str, Any], headers: bool = True, paint: Callable[[str], str] | None = None,
             width: int | None = None) -> str:
    """The rows for a terminal (`width`: its columns, to wrap the notes): the axes every row
    shares said once above the table, the columns empty in every row left out, and the texts
    (message, warnings, error) as references to notes below the table, each distinct text once
    and whole (one line a scenario). `width` None (`-o wide`): every column, one line a row,
    texts whole. `headers` False (`--no-headers`, for scripts): the rows alone, one line each,
    texts whole in their cells; `paint` colours the verdict (`--color`: the CLI hands in the
    renderer's painter, as this layer sits below render/)."""
    header, body = flat(data["rows"])
    shared: list[str] = []
    keep = list(range(len(header)))
    if width is not None:
        shared = [f"{header[i]}: {body[0][i]}" for i in keep if header[i] in AXES and len(body) > 1
                  and body[0][i] is not None and all(line[i] == body[0][i] for line in body)]
        hoisted = {name.split(":", 1)[0] for name in shared}
        keep = [i for i in keep if header[i] not in hoisted and any(line[i] not in (None, "") for line in body)]
    cells = [[line[i] for i in keep] for line in body]
    names = [header[i] for i in keep]
    if width is not None:
        every = {ref for refs in data.get("workloads", {}).values() for ref in refs}
        cells, names = _compact(cells, names, by_name=headers, every=every)
    if "verdict" in names:
        verdict = names.index("verdict")
        for line in cells:
            line[verdict] = paint(line[verdict]) if paint and line[verdict] else line[verdict]
    notes: list[str] = []
    if width is not None and headers:
        cells, notes = _footnoted(cells, names)
    # kubectl's look: upper-case headers, no rule; '-' for a value a row lacks.
    table = tabulate(cells, headers=[n.upper() for n in names], tablefmt="plain", missingval="-")
    if not headers:
        return "\n".join(table.split("\n")[1:]) + "\n"
    below = "\n" + _notes(notes, width) if width is not None and notes else ""
    return "".join(f"{line}\n" for line in shared) + table + "\n" + below


SHORT = {"scenario": "#", "node_template": "template", "node_count": "added", "evicted": "evicts", "cpu %": "cpu%",
         "memory %": "mem%", "pods %": "pods%"}


def _compact(cells: list[list[Any]], names: list[str], by_name: bool, every: frozenset[str] | set[str] = frozenset()
             ) -> tuple[list[list[Any]], list[str]]:
    """Short headers for a terminal (an extended resource by its last name segment, when that
    is unambiguous), and one `failing` column: the workloads that do not fit (`by_name`, for a
    person: by name when no two of the sweep's — `every`, failing or not, and those failing —
    share one; else `Kind/namespace/name`, as scripts read them), then the policies that fail."""
    ends = [n.rsplit("/", 1)[-1].replace(" %", "%") for n in names]
    short = [SHORT.get(n) or (ends[i] if n.endswith(" %") and ends.count(ends[i]) == 1 else n)
             for i, n in enumerate(names)]
    parts = [names.index(n) for n in ("failed_workloads", "policies") if n in names]
    if parts:
        workloads = names.index("failed_workloads") if "failed_workloads" in names else None
        policies = names.index("policies") if "policies" in names else None
        refs = every | {w for line in cells for w in _words(line, workloads)}
        by_name = by_name and len({r.rsplit("/", 1)[-1] for r in refs}) == len(refs)
        for line in cells:
            failing = [w.rsplit("/", 1)[-1] if by_name else w for w in _words(line, workloads)]
            failing += [w.removesuffix("=fail") for w in _words(line, policies) if w.endswith("=fail")]
            line[parts[0]] = " ".join(failing) or None
        short[parts[0]] = "failing"
        for at in reversed(parts[1:]):
            del short[at]
            for line in cells:
                del line[at]
    return cells, short


def _words(line: list[Any], at: int | None) -> list[str]:
    """The space-separated words of a cell (none when the column is not there)."""
    return str(line[at] or "").split() if at is not None else []


def _footnoted(cells: list[list[Any]], names: list[str]) -> tuple[list[list[Any]], list[str]]:
    """The texts (message, warnings, error) as references `[n]` to notes below the table, each
    distinct text once: a scenario stays one line, so a sweep of hundreds reads down a screen,
    and every text is still whole (a FailedScheduling message is matched against events)."""
    texts = {i for i, name in enumerate(names) if name in TEXTS}
    notes: dict[str, int] = {}
    out = [[f"[{notes.setdefault(v, len(notes) + 1)}]" if i in texts and isinstance(v, str) else v
            for i, v in enumerate(line)] for line in cells]
    return out, list(notes)


def _notes(texts: Sequence[str], width: int) -> str:
    """`[n] text`, wrapped to `width` under its first line."""
    out = []
    for n, text in enumerate(texts, 1):
        mark = f"[{n}] "
        out.append(textwrap.fill(text, max(width, MIN_TEXT_WIDTH), initial_indent=mark,
                                 subsequent_indent=" " * len(mark), break_long_words=False,
                                 break_on_hyphens=False))
    return "".join(f"{line}\n" for line in out)


def as_markdown(data: dict[str, Any]) -> str:
    header, body = flat(data["rows"])
    cells = [["-" if v is None or v == "" else markdown_cell(str(v)) for v in line] for line in body]
    return tabulate(cells, headers=header, tablefmt="github") + "\n"


def as_csv(data: dict[str, Any]) -> str:
    header, body = flat(data["rows"])
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([["" if v is None else v for v in line] for line in body])
    return out.getvalue()


def as_json(data: dict[str, Any]) -> str:
    return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n"


CHART_W, CHART_H, PAD = 640, 260, 40


def series(rows: Sequence[Row]) -> dict[str, list[tuple[int, int]]]:
    """Pending pods by node count, one series per node template and the other axes' values."""
    out: dict[str, list[tuple[int, int]]] = {}
    for row in rows:
        if row["node_template"] is None or row["pending"] is None:
            continue
        name = " / ".join(str(row[k]) for k in ("node_template", "snapshot", "workloads", "remove", "config")
                          if row[k] is not None)
        out.setdefault(name, []).append((row["node_count"], row["pending"]))
    return out


def chart(rows: Sequence[Row]) -> str:
    """An SVG line chart of `series` (empty when no scenario adds nodes)."""
    lines = series(rows)
    points = [p for s in lines.values() for p in s]
    if not points:
        return ""
    x_max, y_max = max(1, max(x for x, _ in points)), max(1, max(y for _, y in points))

    def xy(x: int, y: int) -> tuple[str, str]:
        return f"{PAD + x * (CHART_W - 2 * PAD) / x_max:.1f}", f"{CHART_H - PAD - y * (CHART_H - 2 * PAD) / y_max:.1f}"

    def at(x: int, y: int) -> str:
        return ",".join(xy(x, y))
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{CHART_W}" height="{CHART_H + 20 * len(lines)}">',
             f'<text x="{PAD}" y="16">pending pods (0–{y_max}) by nodes added (0–{x_max})</text>',
             f'<polyline fill="none" stroke="#888" points="{at(0, y_max)} {at(0, 0)} {at(x_max, 0)}"/>']
    for i, (name, pts) in enumerate(lines.items()):
        color, dash = series_style(i)
        stroke = f'stroke="{color}" stroke-width="2"' + (f' stroke-dasharray="{dash}"' if dash else "")
        parts.append(f'<polyline fill="none" {stroke} points="{" ".join(at(x, y) for x, y in sorted(pts))}"/>')
        # A dot at each point: a series of one count (a single scenario) draws no line at all.
        parts.extend('<circle cx="{}" cy="{}" r="3" fill="{}"/>'.format(*xy(x, y), color) for x, y in sorted(pts))
        legend_y = CHART_H + 20 * i + 6
        parts.append(f'<line x1="{PAD}" y1="{legend_y}" x2="{PAD + 30}" y2="{legend_y}" {stroke}/>')
        parts.append(f'<text x="{PAD + 36}" y="{legend_y + 4}" fill="{color}">{html.escape(name)}</text>')
    return "\n".join(parts + ["</svg>"])


SERIES_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b")
SERIES_DASHES = ("", "8 4", "2 3")


def series_style(index: int) -> tuple[str, str]:
    """(colour, stroke-dasharray) of the chart's series `index`: six colours, then the same with
    dashes, then dotted — eighteen series told apart, line and legend alike (a 3 × 3 sweep with
    two snapshots already has more than six)."""
    return (SERIES_COLORS[index % len(SERIES_COLORS)],
            SERIES_DASHES[index // len(SERIES_COLORS) % len(SERIES_DASHES)])


def as_html(data: dict[str, Any]) -> str:
    header, body = flat(data["rows"])
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    count = counted(data["scenarios"], "scenario")
    cells = "\n".join("<tr>" + "".join(f"<td>{'' if v is None else html.escape(str(v))}</td>" for v in line)
                      + "</tr>" for line in body)
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>kwhatif sweep "
            f"{html.escape(data['sweep'])}</title><style>body{{font-family:sans-serif}}table{{border-collapse:"
            f"collapse}}td,th{{border:1px solid #ccc;padding:2px 6px;font-size:13px}}</style></head><body>\n"
            f"<h1>kwhatif sweep {html.escape(data['sweep'])}</h1><p>{count}, clock "
            f"{html.escape(data['now'])}</p>\n{chart(data['rows'])}\n<table><tr>{head}</tr>\n{cells}\n</table>"
            "</body></html>\n")


FORMATS = {"table": as_table, "wide": as_table, "json": as_json, "csv": as_csv, "markdown": as_markdown, "html": as_html}
