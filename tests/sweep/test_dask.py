"""Sweeps on a real dask.distributed LocalCluster (2 worker processes on 127.0.0.1, started once
for the module): the same JSON as the local executor, and a worker killed mid-sweep costs only a
retry of its scenarios (every row once)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

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
                                       dashboard_address=":0", silence_logs=50)
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


@pytest.mark.parametrize("address", ["dask-scheduler", "tcp://[::1", "http://127.0.0.1:8786", "inproc://x"])
def test_an_address_without_a_port_is_one_line_at_once(address: str) -> None:
    # Refused before a Client exists: one built from it waited out its close on exit, then printed a
    # traceback after the error line.
    done = kwhatif("sweep", SAMPLE_SWEEP, "--dask", address, timeout=120)
    assert done.returncode == 2
    assert done.stderr.startswith(f"kwhatif: error: --dask {address}: not a Dask scheduler address")
    assert len(done.stderr.splitlines()) == 1


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    return done.stderr


def test_a_port_that_never_answers_is_one_line_within_the_timeout() -> None:
    """A port that accepts and says nothing (a dead proxy, an HTTP server waiting for a request):
    a Client's handshake waited there for ever, --dask-timeout or not — a CI job hung."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
        started = time.monotonic()
        done = kwhatif("sweep", SAMPLE_SWEEP, "--dask", address, "--dask-timeout", "1", timeout=120)
    assert f"--dask {address}: no answer within 1 s (--dask-timeout)" in one_line(done)
    assert time.monotonic() - started < 30


def test_a_workers_address_is_named_as_one(scheduler: str) -> None:
    with distributed.Client(scheduler, set_as_default=False) as client:
        worker = sorted(client.scheduler_info()["workers"])[0]
    done = kwhatif("sweep", SAMPLE_SWEEP, "--dask", worker, "--dask-timeout", "5", timeout=120)
    assert f"--dask {worker}: a Dask Worker, not the scheduler" in one_line(done)


def test_a_scheduler_without_workers_is_one_line_after_the_timeout() -> None:
    """It was an internal error (exit 3): the snapshots' scatter found no worker."""
    with distributed.LocalCluster(n_workers=0, processes=True, host="127.0.0.1", dashboard_address=":0",
                                  silence_logs=50) as cluster:
        done = kwhatif("sweep", SAMPLE_SWEEP, "--dask", cluster.scheduler_address, "--dask-timeout", "1", timeout=120)
    assert "the Dask scheduler has no worker (none joined within 1 s, --dask-timeout)" in one_line(done)


def openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command to make certificates")
def test_a_tls_cluster_is_used_with_the_dask_tls_options(tmp_path: Path) -> None:
    """A CA and one certificate it signs (scheduler, workers and client alike), as a shared
    cluster's operator would hand out; without the options, a tls:// address is refused up front."""
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "1",
            "-subj", "/CN=kwhatif-test-ca", cwd=tmp_path)
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "node.key", "-out", "node.csr", "-subj",
            "/CN=127.0.0.1", cwd=tmp_path)
    openssl("x509", "-req", "-in", "node.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
            "node.pem", "-days", "1", cwd=tmp_path)
    ca, cert, key = (str(tmp_path / n) for n in ("ca.pem", "node.pem", "node.key"))
    security = distributed.security.Security(
        tls_ca_file=ca, tls_scheduler_cert=cert, tls_scheduler_key=key, tls_worker_cert=cert, tls_worker_key=key,
        tls_client_cert=cert, tls_client_key=key, require_encryption=True)
    local = kwhatif("sweep", SAMPLE_SWEEP, "-o", "json", "--jobs", "1")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=":0", silence_logs=50, security=security,
                                  protocol="tls://") as cluster:
        address = str(cluster.scheduler_address)
        assert address.startswith("tls://")
        remote = kwhatif("sweep", SAMPLE_SWEEP, "-o", "json", "--dask", address, "--dask-tls-ca", ca,
                         "--dask-tls-cert", cert, "--dask-tls-key", key)
        refused = kwhatif("sweep", SAMPLE_SWEEP, "--dask", address)
    assert remote.returncode == 0, remote.stderr
    assert remote.stdout == local.stdout
    assert refused.returncode == 2
    assert refused.stderr == (f"kwhatif: error: --dask {address}: a TLS scheduler needs --dask-tls-ca and "
                              "--dask-tls-cert\n")
