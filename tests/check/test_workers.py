"""`kwhatif check --jobs N` runs a loss policy's scenarios in forked workers (check/workers.py):
the same results, in order, whatever ran them; a lost worker's scenarios run here."""

from __future__ import annotations

import os

from kwhatif.check.workers import each

PARENT = os.getpid()


def _square_elsewhere(index: int) -> tuple[int, bool]:
    return index * index, os.getpid() != PARENT


def test_results_come_in_order_from_the_workers() -> None:
    heard: list[tuple[int, int]] = []
    got = each(_square_elsewhere, 5, 2, lambda done, total: heard.append((done, total)))
    assert [value for value, _ in got] == [0, 1, 4, 9, 16]
    assert all(elsewhere for _, elsewhere in got)  # none ran in this process
    assert heard == [(i, 5) for i in range(1, 6)]


def test_one_job_runs_here() -> None:
    assert each(_square_elsewhere, 3, 1) == [(0, False), (1, False), (4, False)]


def _dies_in_a_worker(index: int) -> int:
    """Index 2 kills the worker running it (as the kernel's OOM killer would); here it returns."""
    if index == 2 and os.getpid() != PARENT:
        os._exit(9)
    return index


def test_a_lost_worker_costs_a_rerun_here_and_nothing_else() -> None:
    assert each(_dies_in_a_worker, 6, 2) == [0, 1, 2, 3, 4, 5]
