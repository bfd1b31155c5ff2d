"""The sweep's terminal table (kwhatif.sweep.report.as_table) from rows written by hand."""

from __future__ import annotations

from typing import Any

from kwhatif.sweep.report import as_markdown, as_table


def _row(index: int, failed: list[str], policies: list[tuple[str, bool]], message: str | None) -> dict[str, Any]:
    return {"scenario": index, "snapshot": "s.yaml", "workloads": "w", "node_template": None, "node_count": None,
            "remove": None, "config": "default", "nodes": 3, "bound": 2, "pending": len(failed), "evicted": 0,
            "verdict": "fail" if failed or not all(ok for _, ok in policies) else "pass", "failed_workloads": failed,
            "policies": [{"policy": p, "ok": ok} for p, ok in policies], "utilisation": {"cpu": 50.0},
            "message": message, "warnings": [], "error": None}


def _failing(table: str) -> list[str]:
    """The FAILING cell of each row (between the verdict and the cpu column)."""
    lines = table.splitlines()
    header = next(line for line in lines if line.lstrip().startswith("#"))
    start, end = header.index("FAILING"), header.index("CPU%")
    return [line[start:end].strip() for line in lines[lines.index(header) + 1:] if line.strip()[:1].isdigit()]


def test_failing_names_the_workloads_by_name_when_unambiguous_then_the_failing_policies() -> None:
    rows = [_row(0, ["Deployment/shop/api"], [("no-evictions", False)], "m1"),
            _row(1, [], [("no-evictions", True)], None),
            _row(2, ["Deployment/shop/api", "StatefulSet/shop/db"], [("no-evictions", True)], "m2")]
    table = as_table({"rows": rows}, width=200)
    assert _failing(table) == ["api no-evictions", "-", "api db"]


def test_failing_keeps_whole_references_when_two_workloads_share_a_name() -> None:
    rows = [_row(0, ["Deployment/shop/api"], [], "m1"), _row(1, ["Deployment/payments/api"], [], "m1")]
    assert _failing(as_table({"rows": rows}, width=200)) == ["Deployment/shop/api", "Deployment/payments/api"]


def test_failing_keeps_whole_references_when_a_passing_workload_shares_the_name() -> None:
    """Only shop's api fails, but the sweep also checks default's api: `api` alone would not say
    which (the rows name failing workloads only; the data names them all)."""
    rows = [_row(0, ["Deployment/shop/api"], [], "m1"), _row(1, [], [], None)]
    data = {"workloads": {"w": ["Deployment/shop/api", "Deployment/default/api"]}, "rows": rows}
    assert _failing(as_table(data, width=200)) == ["Deployment/shop/api", "-"]


def test_texts_are_notes_below_each_once() -> None:
    rows = [_row(0, ["Deployment/shop/api"], [], "the same"), _row(1, ["Deployment/shop/api"], [], "the same"),
            _row(2, [], [], None)]
    lines = as_table({"rows": rows}, width=200).splitlines()
    assert [line.split()[-1] for line in lines if line.strip()[:1].isdigit()] == ["[1]", "[1]", "-"]
    assert lines[-2:] == ["", "[1] the same"]


def test_markdown_cells_escape_what_github_would_render() -> None:
    """A snapshot file named `<b>x.yaml` would turn the rest of the row bold, a `|` would split
    the cell, `&amp;` would read `&`; an empty cell reads `-`, as a missing one does."""
    row = {**_row(0, [], [], "a | b"), "snapshot": "<b>x&amp;y.yaml", "policies": []}
    line = next(line for line in as_markdown({"rows": [row]}).splitlines() if "y.yaml" in line)
    assert "&lt;b>x&amp;amp;y.yaml" in line and "a \\| b" in line and "<b>" not in line
