"""`kwhatif sweep SWEEP.yaml`: many scenarios at once, here, on local workers or on Dask.

The command reads the sweep (`kwhatif.sweep.spec`: every input checked before any scenario
runs; an unreadable snapshot fails its scenarios' rows), picks the executor (`kwhatif.sweep.executors`) and writes the rows
(`kwhatif.sweep.report`). Exit 0 when every scenario ran, 1 when a scenario's row holds an
error (the others still ran), 2 on bad input."""

from __future__ import annotations

import os
import sys
import time
from dataclasses import replace
from functools import partial
from typing import TextIO

import click

from kwhatif.cli.common import (
    Warnings, clock, color_option, emit, examples, no_headers_option, now_option, quiet_option, run, strict_option,
    use_color, validate_option,
)
from kwhatif.cli.exit_codes import Exit
from kwhatif.cli.progress import Progress
from kwhatif.load.forked import cores_to_use
from kwhatif.sweep.executors import DaskTLS, Row, failed_row, run_dask, run_here, run_local_pool
from kwhatif.render.table import painted, terminal_width
from kwhatif.sweep.report import FORMATS, as_table, sweep_data
from kwhatif.sweep.spec import Sweep, read_sweep
from kwhatif.workloads import workload_refs
from kwhatif.errors import InputError


class SweepProgress(Progress):
    """`sweep: 12/600 scenarios, ETA 4m05s` on a terminal (see `Progress`)."""

    def __init__(self, quiet: bool, stream: TextIO | None = None, delay: float = 1.0) -> None:
        super().__init__("sweep", quiet, stream)
        self.delay = delay

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or time.monotonic() - self.started < self.delay:
            return
        self.shown = True
        elapsed = time.monotonic() - self.started
        left = int(elapsed / done * (total - done)) if done else 0
        self.stream.write(f"\rsweep: {done}/{total} scenarios, ETA {left // 60}m{left % 60:02d}s ")
        if done == total:
            self.close()
        self.stream.flush()


def tls_settings(ca: str | None, cert: str | None, key: str | None) -> DaskTLS | None:
    if ca is None and cert is None and key is None:
        return None
    if ca is None or cert is None:
        raise InputError("--dask-tls-ca and --dask-tls-cert go together (and --dask-tls-key unless the "
                         "certificate file holds the key)")
    for option, path in (("--dask-tls-ca", ca), ("--dask-tls-cert", cert), ("--dask-tls-key", key)):
        if path is not None and not os.path.isfile(path):
            raise InputError(f"{option} {path}: no such file")
    return DaskTLS(ca, cert, key)


def execute(sweep: Sweep, jobs: int | None, dask: str | None, dask_timeout: float, tls: DaskTLS | None,
            quiet: bool) -> list[Row]:
    """Every scenario's row in order: those of an unreadable snapshot say why, the rest run."""
    failed = [failed_row(s, sweep.unreadable[s.snapshot]) for s in sweep.scenarios if s.snapshot in sweep.unreadable]
    runnable = replace(sweep, scenarios=[s for s in sweep.scenarios if s.snapshot not in sweep.unreadable])
    return sorted(failed + run_scenarios(runnable, jobs, dask, dask_timeout, tls, quiet), key=lambda row: int(row["scenario"]))


def run_scenarios(sweep: Sweep, jobs: int | None, dask: str | None, dask_timeout: float, tls: DaskTLS | None,
                  quiet: bool) -> list[Row]:
    if not sweep.scenarios:
        return []
    progress = SweepProgress(quiet)
    if dask is not None:
        return run_dask(sweep, dask, tls, progress, dask_timeout)
    workers = min(jobs or cores_to_use(), len(sweep.scenarios))
    return run_here(sweep, progress) if workers <= 1 else run_local_pool(sweep, workers, progress)


@click.command(name="sweep", epilog=examples(
    "kwhatif sweep samples/sweep.yaml",
    "kwhatif sweep samples/sweep.yaml --jobs 2 -o csv",
))
@click.argument("sweep_file")
@click.option("-o", "--output", type=click.Choice(tuple(FORMATS)), default="table", show_default=True)
@no_headers_option
@color_option
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Local worker processes (default: the cores this process may use, by its CPU affinity and "
                   "cgroup quota); 1 runs here.")
@click.option("--dask", "dask", metavar="ADDRESS",
              help="Run the scenarios on this dask.distributed scheduler (tcp://host:8786, tls://...).")
@click.option("--dask-timeout", type=click.FloatRange(min=0.1), default=30.0, show_default=True, metavar="SECONDS",
              help="How long to wait for the Dask scheduler to answer, then for a first worker.")
@click.option("--dask-tls-ca", metavar="FILE", help="CA certificate the Dask scheduler's is signed by.")
@click.option("--dask-tls-cert", metavar="FILE", help="This client's certificate for the Dask cluster.")
@click.option("--dask-tls-key", metavar="FILE", help="Its private key (if not in the certificate file).")
@now_option
@quiet_option
@strict_option
@validate_option
def sweep_cmd(sweep_file: str, output: str, no_headers: bool, color: str, jobs: int | None, dask: str | None, dask_timeout: float, dask_tls_ca: str | None,
              dask_tls_cert: str | None, dask_tls_key: str | None, now: str | None, quiet: bool,
              strict: bool = False, validate: str = "strict") -> None:
    """Run every scenario of SWEEP_FILE (snapshots × workloads × node templates × counts × node
    removals × scheduler configs, or a list) and print one row each: pods bound / pending /
    evicted, the check's verdict, failing workloads and policies, utilisation, and a message:
    why the check fails (the first failing workload's FailedScheduling text), or without
    workloads the queue's first FailedScheduling message. Exit 0 when every scenario ran, whatever
    its verdict (a sweep maps what fits, it gates nothing: a gate is `kwhatif check`); 1 when a
    scenario could not run (its row says why); 2 on bad input (with --strict, a scenario's
    warning too)."""
    def action() -> int:
        if dask is not None and jobs is not None:
            raise InputError("--jobs and --dask are exclusive (Dask's workers are the jobs)")
        tls = tls_settings(dask_tls_ca, dask_tls_cert, dask_tls_key)
        if dask is not None and dask.startswith("tls://") and tls is None:
            raise InputError(f"--dask {dask}: a TLS scheduler needs --dask-tls-ca and --dask-tls-cert")
        warnings = Warnings(quiet, strict)
        sweep = read_sweep(sweep_file, clock(now), validate)
        if now is not None and now != sweep.plan.now:
            warnings.report([f"--now {now}: the sweep file's own now: {sweep.plan.now} is its scenarios' clock"])
        warnings.report(sweep.warnings)
        rows = execute(sweep, jobs, dask, dask_timeout, tls, quiet)
        warnings.check([f"scenario {r['scenario']}: {w}" for r in rows for w in r["warnings"]])
        table = partial(as_table, headers=not no_headers, paint=partial(painted, color=use_color(color)),
                        width=terminal_width() if output == "table" else None)
        refs = {name: workload_refs(objects) for name, objects in sweep.plan.workloads.items()}
        emit((table if output in ("table", "wide") else FORMATS[output])(sweep_data(sweep_file, sweep.plan.now, rows,
                                                                                     refs)))
        sys.stdout.flush()
        return Exit.NOT_ALL_PLACED if any(r["error"] for r in rows) else Exit.ALL_PLACED
    run(action)
