"""Sweeps on a real dask.distributed LocalCluster (2 worker processes on 127.0.0.1, started once
for the module): the same JSON as the local executor, and a worker killed mid-sweep costs only a
retry of its scenarios (every row once)."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest

from kwhatif.sweep.executors import run_dask, run_here
from kwhatif.sweep.spec import read_sweep
from tests.cli.conftest import NOW
from tests.sweep.conftest import SAMPLES, kwhatif

distributed = pytest.importorskip("distributed")

SAMPLE_SWEEP = str(SAMPLES / "sweep.yaml")


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=None, silence_logs=50)
    try:
        yield str(cluster.scheduler_address)
    finally:
        cluster.close()


def test_dask_gives_the_json_of_the_local_executor(scheduler: str) -> None:
    local = kwhatif("sweep", SAMPLE_SWEEP, "-o", "json", "--jobs", "1")
    remote = kwhatif("sweep", SAMPLE_SWEEP, "-o", "json", "--dask", scheduler)
    assert local.returncode == remote.returncode == 0, local.stderr + remote.stderr
    assert remote.stdout == local.stdout


def test_a_worker_killed_mid_sweep_costs_a_retry_only(scheduler: str) -> None:
    sweep = read_sweep(SAMPLE_SWEEP, NOW)
    reference = run_here(sweep)
    with distributed.Client(scheduler, set_as_default=False) as client:
        pids = sorted(client.run(os.getpid).values())
    killed: list[int] = []

    def kill_a_worker(done: int, total: int) -> None:
        if not killed and done < total:  # rows remain: their worker may be this one
            killed.append(pids[0])
            os.kill(pids[0], signal.SIGKILL)

    rows = run_dask(sweep, scheduler, progress=kill_a_worker)
    assert killed
    assert [r["scenario"] for r in rows] == list(range(len(sweep.scenarios)))
    assert rows == reference


def test_an_unreachable_scheduler_is_one_error_line() -> None:
    done = kwhatif("sweep", SAMPLE_SWEEP, "--dask", "tcp://127.0.0.1:1", "--dask-timeout", "1",
                   timeout=120)
    assert done.returncode == 2
    assert "--dask tcp://127.0.0.1:1: cannot reach the Dask scheduler" in done.stderr
    assert len(done.stderr.splitlines()) == 1
