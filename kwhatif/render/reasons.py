"""`kwhatif reasons`: the catalogue as a list, or the entries for one text with what to do."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from kwhatif.explain.reasons import Reason
from kwhatif.render.table import plain_table
from kwhatif.render.text import wrap


def reasons_data(reasons: list[Reason]) -> list[dict[str, Any]]:
    return [asdict(r) for r in reasons]


def reasons_table(data: list[dict[str, Any]], width: int, detail: bool, headers: bool = True) -> str:
    """One line an entry (without the header line when not `headers`: `--no-headers`), or
    (`detail`, for a looked-up text) each entry's meaning and fix."""
    if not detail:
        table = plain_table([(r["plugin"], r["example"]) for r in data], ["PLUGIN", "REASON (EXAMPLE)"], headers)
        return table + "\n" if table else ""
    lines: list[str] = []
    for r in data:
        lines.append(f"{r['plugin']}: {r['example']}")
        lines.extend(wrap(f"What it means: {r['meaning']}", width, "  "))
        lines.extend(wrap(f"How to fix it: {r['fix']}", width, "  "))
        lines.append("")
    return "\n".join(lines)
