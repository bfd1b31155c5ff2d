"""Local executors: the same rows, in scenario order, whatever the number of worker processes;
a worker lost mid-sweep costs a retry, and every row comes once."""

from __future__ import annotations

import multiprocessing
import os
import signal
from concurrent.futures import ThreadPoolExecutor

from kwhatif.sweep.executors import run_here, run_local_pool, run_remote
from kwhatif.sweep.report import FORMATS, series_style, sweep_data
from kwhatif.sweep.spec import read_sweep
from tests.cli.conftest import NOW
from tests.sweep.conftest import SAMPLES, kwhatif

SAMPLE_SWEEP = str(SAMPLES / "sweep.yaml")


def test_jobs_1_and_jobs_2_give_identical_json() -> None:
    one = kwhatif("sweep", SAMPLE_SWEEP, "-o", "json", "--jobs", "1")
    two = kwhatif("sweep", SAMPLE_SWEEP, "-o", "json", "--jobs", "2")
    assert one.returncode == two.returncode == 0, one.stderr + two.stderr
    assert one.stdout == two.stdout


def test_a_lost_local_worker_costs_a_retry_only() -> None:
    sweep = read_sweep(SAMPLE_SWEEP, NOW)
    reference = run_here(sweep)
    killed: list[int] = []

    def kill_a_worker(done: int, total: int) -> None:
        if not killed:  # the first row is in: kill one worker while the others run
            child = multiprocessing.active_children()[0]
            assert child.pid is not None
            killed.append(child.pid)
            os.kill(child.pid, signal.SIGKILL)

    rows = run_local_pool(sweep, 2, kill_a_worker)
    assert killed
    assert [r["scenario"] for r in rows] == list(range(len(sweep.scenarios)))
    assert rows == reference


def test_every_format_shows_every_scenario() -> None:
    sweep = read_sweep(SAMPLE_SWEEP, NOW)
    data = sweep_data("sweep.yaml", NOW, run_here(sweep))
    scenarios = len(sweep.scenarios)
    assert scenarios == 9  # 3 node counts x 3 removals
    assert FORMATS["csv"](data).count("\n") == scenarios + 1  # header + one line a row
    assert FORMATS["markdown"](data).count("\n") == scenarios + 2  # header, rule, rows
    page = FORMATS["html"](data)
    assert page.count("<tr>") == scenarios + 1 and "<svg" in page
    # the chart: one series a removal (pending by nodes added), three points each, each a dot
    # (a series of one count would draw no line)
    assert page.count('stroke-width="2" points=') == 3 and page.count("<circle ") == 9
    assert page.count("<line ") == 3  # each series' sample in the legend, drawn as its line is


def test_eighteen_series_are_told_apart_by_colour_and_dash() -> None:
    """Six colours, then dashed, then dotted: a 3 x 3 sweep over two snapshots (18 series) has no
    two alike (a seventh series took the first one's colour, line and legend alike)."""
    styles = [series_style(i) for i in range(18)]
    assert len(set(styles)) == 18
    assert styles[0] == ("#1f77b4", "") and styles[6] == ("#1f77b4", "8 4") and styles[12] == ("#1f77b4", "2 3")


def test_tasks_run_by_threads_of_one_worker_give_the_rows_run_here() -> None:
    """A Dask worker started with `--nthreads 4` runs tasks at once in one process: they share its
    decoded snapshot, so they take turns (`run_remote`) and each row is the one run here."""
    sweep = read_sweep(SAMPLE_SWEEP, NOW)
    reference = run_here(sweep)
    with ThreadPoolExecutor(4) as threads:
        rows = list(threads.map(lambda s: run_remote(sweep.plan, sweep.snapshots[s.snapshot], s), sweep.scenarios))
    assert rows == reference
