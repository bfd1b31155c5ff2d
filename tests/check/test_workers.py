"""`kwhatif check --jobs N` runs a loss policy's scenarios in forked workers (check/workers.py):
the same results, in order, whatever ran them; a lost worker's scenarios run here."""

from __future__ import annotations

import os

import pytest

from kwhatif.check import workers
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


GB = 1 << 30


@pytest.mark.parametrize(("pods", "scenarios", "cores", "memory", "want"), [
    (150_000, 4, 2, 16 * GB, 2),  # the benchmark's zone loss on this machine: a worker per core
    (150_000, 4, 8, 16 * GB, 4),  # no more workers than scenarios
    (150_000, 1, 8, 16 * GB, 1),  # one scenario runs here
    (999, 500, 8, 16 * GB, 1),    # a small cluster's scenarios take milliseconds: here
    (1000, 500, 8, 16 * GB, 8),
    # 150,000 pods × 4 KiB = 0.57 GiB a worker: 1.5 GiB available holds two of them.
    (150_000, 4, 8, int(1.5 * GB), 2),
    (150_000, 4, 8, GB // 4, 1),  # not even one: this process runs them
    (150_000, 4, 2, None, 2),     # memory unknown: the cores decide
])
def test_default_jobs(monkeypatch: pytest.MonkeyPatch, pods: int, scenarios: int, cores: int,
                      memory: int | None, want: int) -> None:
    monkeypatch.setattr(workers.sys, "platform", "linux")
    monkeypatch.setattr(workers, "cores_to_use", lambda: cores)
    monkeypatch.setattr(workers, "memory_available", lambda: memory)
    assert workers.default_jobs(pods, scenarios) == want


def test_off_linux_the_scenarios_run_here_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workers.sys, "platform", "darwin")
    monkeypatch.setattr(workers, "cores_to_use", lambda: 8)
    assert workers.default_jobs(150_000, 4) == 1
