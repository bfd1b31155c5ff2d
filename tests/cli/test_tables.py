"""kubectl's table habits on every command that prints rows (schedule and place:
test_kubectl_conventions.py): `--no-headers` leaves the rows alone, aligned as under their
header; `--color always` paints the outcome/verdict column only; `auto` paints nothing off a
terminal or under NO_COLOR.

Each command runs on the samples; what its table must hold is read from the same command's JSON
(one row a record), so the table is checked against the data it draws, never against itself."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable

import pytest

from tests.cli.conftest import REPO, invoke

SAMPLES = str(REPO / "samples")
CLUSTER = ["-c", f"{SAMPLES}/cluster.yaml", "--now", "2026-01-01T00:00:00Z"]
PAINT = re.compile(r"\x1b\[(\d+)m(.*?)\x1b\[0m")
ANSI = re.compile(r"\x1b\[\d+m")


@dataclass(frozen=True)
class Table:
    name: str
    args: list[str]
    header: str  # how the (first) header line starts
    rows: Callable[[Any], int]  # the JSON's records: one table row each
    painted: Callable[[Any], list[str]]  # the JSON's verdict words the table paints, one a row


def _diff_painted(data: Any) -> list[str]:
    return [c["change"] for c in data["pods"]]


def _evict_painted(data: Any) -> list[str]:
    """yes (evicted) and `critical: skipped`, as the EVICTED column writes them."""
    return ["yes" if r["evicted"] else "critical: skipped" for r in data["ranking"] if r["evicted"] or r["critical"]]


def _check_painted(data: Any) -> list[str]:
    """The pods' outcomes (those with a colour: not `running`...), then a result a workload."""
    outcomes = [r["outcome"] for r in data["results"] if r["outcome"] in ("bound", "unschedulable", "gated", "error")]
    return outcomes + ["ok" if w["ok"] else "FAIL" for w in data["workloads"]]


BIN_PACKING = ["--config", f"{SAMPLES}/bin-packing.config.yaml"]
TABLES = [
    Table("diff", ["diff", *CLUSTER, *BIN_PACKING], "POD ",
          lambda d: len(d["pods"]) + len(d["nodes"]), _diff_painted),
    Table("compare", ["compare", *CLUSTER, *BIN_PACKING], "POD ",
          lambda d: len(d["pods"]) + len(d["nodes"]), _diff_painted),
    Table("evict", ["evict", "worker-b2", *CLUSTER, "--usage", f"{SAMPLES}/top-worker-b2.txt", "--available", "80Mi"],
          "  #  POD", lambda d: len(d["ranking"]), _evict_painted),
    Table("check", ["check", f"{SAMPLES}/pods", *CLUSTER], "POD ",
          lambda d: len(d["results"]) + len(d["workloads"]), _check_painted),
    Table("sweep", ["sweep", f"{SAMPLES}/sweep.yaml", "--now", "2026-01-01T00:00:00Z"], "  SCENARIO ",
          lambda d: len(d["rows"]), lambda d: [r["verdict"] for r in d["rows"] if r["verdict"]]),
    Table("reasons", ["reasons"], "PLUGIN ", len, lambda d: []),
]
COLOURED = [t for t in TABLES if t.name != "reasons"]  # reasons has no verdict column, so no --color


def _stdout(args: list[str]) -> str:
    result = invoke(args)
    assert result.exit_code in (0, 1), result.stderr
    return result.stdout


def _data(table: Table) -> Any:
    return json.loads(_stdout([*table.args, "-o", "json"]))


def _table(table: Table, *extra: str) -> str:
    """The table in one line a row (check, sweep, diff, compare: -o wide, so no message wraps)."""
    wide = ["-o", "wide"] if table.name in ("check", "sweep", "diff", "compare") else []
    return _stdout([*table.args, *wide, *extra])


@pytest.mark.parametrize("table", TABLES, ids=[t.name for t in TABLES])
def test_no_headers_leaves_the_rows_alone_aligned_as_under_the_header(table: Table) -> None:
    colour = [] if table.name == "reasons" else ["--color", "never"]
    headed = _table(table, *colour).splitlines()
    rows = _table(table, "--no-headers", *colour).splitlines()
    assert any(line.startswith(table.header) for line in headed)
    assert len(rows) == table.rows(_data(table)) > 0
    assert not any(line.startswith(table.header) or not line.strip() for line in rows)
    # Each row is the very line the headed table prints (same padding), in the same order.
    positions = [headed.index(row) for row in rows]
    assert positions == sorted(positions)


@pytest.mark.parametrize("table", COLOURED, ids=[t.name for t in COLOURED])
def test_color_always_paints_the_verdict_column_only(table: Table) -> None:
    painted = _table(table, "--color", "always")
    plain = _table(table, "--color", "never")
    expected = table.painted(_data(table))
    assert expected, "the sample run has verdicts to paint"
    assert sorted(word for _, word in PAINT.findall(painted)) == sorted(expected)
    assert ANSI.sub("", painted) == plain and "\x1b[" not in plain


@pytest.mark.parametrize("table", COLOURED, ids=[t.name for t in COLOURED])
def test_color_auto_paints_nothing_off_a_terminal_nor_under_no_color(table: Table,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert "\x1b[" not in _table(table)  # CliRunner's stdout is not a terminal
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in _table(table, "--color", "auto")
    assert "\x1b[" in _table(table, "--color", "always")  # asked for: wins over NO_COLOR


@pytest.mark.parametrize("table", COLOURED, ids=[t.name for t in COLOURED])
def test_no_headers_and_color_together_paint_the_same_rows(table: Table) -> None:
    painted = _table(table, "--no-headers", "--color", "always")
    assert ANSI.sub("", painted) == _table(table, "--no-headers", "--color", "never")
