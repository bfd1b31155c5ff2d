"""Where the scenarios run: here (`--jobs 1`), in local worker processes (`--jobs N`) or on a
dask.distributed cluster (`--dask ADDRESS`). Whatever runs them, each scenario is run by
`run_scenario` on the same snapshot bytes with the same plan, so rows are identical; they are
returned in scenario order.

A worker receives the plan and each snapshot's prepared bytes once, and keeps the last few
snapshots it decoded (`SnapshotCache`): its next scenarios of the same snapshot start from the
loaded cluster through its scenario engine (`engine.Scenarios`: snapshots derived from one
built once), never from a reload.

A worker lost mid-sweep (killed, out of memory) costs a retry of the scenarios it was running:
every scenario yields exactly one row. After `MAX_TRIES` losses on the same scenario its row
says so, and the sweep goes on."""

from __future__ import annotations

import multiprocessing
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from kwhatif.engine import Scenarios
from kwhatif.errors import InputError
from kwhatif.load.prepared import decode_prepared, read_header
from kwhatif.memory import keep_freed_memory
from kwhatif.sweep.scenario import EMPTY, run_scenario
from kwhatif.sweep.spec import Plan, Scenario, Sweep

Row = dict[str, Any]
Progress = Callable[[int, int], None]
MAX_TRIES = 3
KEPT_SNAPSHOTS = 2


class SnapshotCache:
    """The clusters a worker decoded, by their payload's sha256, the least recently used
    dropped beyond KEPT_SNAPSHOTS (scenarios come snapshot by snapshot, so a worker rarely
    decodes one twice, and memory stays at about two snapshots). A decoded cluster is frozen
    out of the collector's generations as it is decoded, as the CLI does with its loaded cluster
    (`kwhatif.memory`): otherwise each full collection of a scenario's garbage walks all of it.
    A dropped one is still freed by reference counting (the loaded objects hold no cycles)."""

    def __init__(self) -> None:
        self.clusters: OrderedDict[str, Scenarios] = OrderedDict()

    def get(self, name: str, blob: bytes) -> Scenarios:
        """The scenario engine of the snapshot: its scenarios derive their snapshots from one."""
        header, _start = read_header(blob, name)
        digest = str(header["payload_sha256"])
        if digest not in self.clusters:
            self.clusters[digest] = Scenarios(decode_prepared(blob, name, for_the_run=True))
            while len(self.clusters) > KEPT_SNAPSHOTS:
                self.clusters.popitem(last=False)
        self.clusters.move_to_end(digest)
        return self.clusters[digest]


CACHE = SnapshotCache()


@dataclass
class LocalWork:
    plan: Plan
    snapshots: dict[str, bytes]


LOCAL: list[LocalWork] = []  # what this worker process was given (`start_local_worker`)


def start_local_worker(plan: Plan, snapshots: dict[str, bytes]) -> None:
    LOCAL[:] = [LocalWork(plan, snapshots)]


def run_local(scenario: Scenario) -> Row:
    work = LOCAL[0]
    engine = CACHE.get(scenario.snapshot, work.snapshots[scenario.snapshot])
    return run_scenario(engine, scenario, work.plan)


_ONE_AT_A_TIME = threading.Lock()
"""A Dask worker started with several threads runs several tasks at once; a scenario engine lends
its one snapshot to one scenario at a time (and the collector's pause is the process's), so a
worker process runs kwhatif's scenarios one after another — the GIL would anyway."""


def run_remote(plan: Plan, blob: bytes, scenario: Scenario) -> Row:
    """A Dask task: the plan and the snapshot arrive as scattered data (sent once a worker)."""
    keep_freed_memory()
    with _ONE_AT_A_TIME:
        return run_scenario(CACHE.get(scenario.snapshot, blob), scenario, plan)


def failed_row(scenario: Scenario, error: str) -> Row:
    """The row of a scenario that could not run to its end (its worker lost, its task failed)."""
    return {**scenario.data(), **EMPTY, "error": f"error: {error}"}


class Collector:
    """Rows by scenario index, each kept once, with the progress told as they come."""

    def __init__(self, scenarios: Sequence[Scenario], progress: Progress | None) -> None:
        self.rows: dict[int, Row] = {}
        self.total = len(scenarios)
        self.progress = progress

    def add(self, index: int, row: Row) -> None:
        if index in self.rows:
            return
        self.rows[index] = row
        if self.progress is not None:
            self.progress(len(self.rows), self.total)

    def ordered(self) -> list[Row]:
        return [self.rows[i] for i in sorted(self.rows)]


def run_here(sweep: Sweep, progress: Progress | None = None) -> list[Row]:
    """`--jobs 1`: in this process, through the same worker functions."""
    start_local_worker(sweep.plan, sweep.snapshots)
    rows = Collector(sweep.scenarios, progress)
    for scenario in sweep.scenarios:
        rows.add(scenario.index, run_local(scenario))
    return rows.ordered()


def worker_context() -> Any:
    """fork where the platform has it: workers inherit the plan and the snapshot bytes instead
    of receiving a pickled copy each."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def run_local_pool(sweep: Sweep, jobs: int, progress: Progress | None = None) -> list[Row]:
    """`--jobs N`: N worker processes; a pool broken by a lost worker is started again for the
    scenarios without a row."""
    rows = Collector(sweep.scenarios, progress)
    tries: dict[int, int] = {}
    todo = list(sweep.scenarios)
    while todo:
        with ProcessPoolExecutor(jobs, mp_context=worker_context(), initializer=start_local_worker,
                                 initargs=(sweep.plan, sweep.snapshots)) as pool:
            futures: dict[Future[Row], Scenario] = {pool.submit(run_local, s): s for s in todo}
            for future in as_completed(futures):
                scenario = futures[future]
                try:
                    rows.add(scenario.index, future.result())
                except BrokenProcessPool:
                    tries[scenario.index] = tries.get(scenario.index, 0) + 1
                    if tries[scenario.index] >= MAX_TRIES:
                        rows.add(scenario.index, failed_row(scenario, f"the worker running it was lost {MAX_TRIES} times"))
        todo = [s for s in todo if s.index not in rows.rows]
    return rows.ordered()


@dataclass(frozen=True)
class DaskTLS:
    """dask's TLS settings for a shared cluster (`distributed.security.Security`)."""

    ca_file: str
    cert: str
    key: str | None = None


NETWORK_SCHEMES = ("tcp", "tls", "ws", "wss")
"""distributed's address schemes of a scheduler elsewhere (inproc:// is in-process only, ucx://
needs ucx-py)."""


def dask_client(address: str, tls: DaskTLS | None, timeout: float) -> Any:
    """A Client of the Dask scheduler at `address`, once it is known to be one (`_scheduler_at`)
    and to have a worker (waited for up to `timeout`: an adaptive cluster starts them on demand)."""
    try:
        from distributed import Client
        from distributed.comm.addressing import parse_address, parse_host_port
        from distributed.security import Security
    except ImportError:
        raise InputError("--dask needs dask.distributed: pip install 'kwhatif[dask]'") from None
    try:  # before a Client exists: one refused by its address waits out its own close on exit
        scheme, location = parse_address(address)
        if scheme not in NETWORK_SCHEMES:
            raise ValueError(f"kwhatif reaches a scheduler over {', '.join(s + '://' for s in NETWORK_SCHEMES)}")
        parse_host_port(location)
    except ValueError as err:
        raise InputError(f"--dask {address}: not a Dask scheduler address (e.g. tcp://scheduler:8786): {err}") from None
    security = None
    if tls is not None:
        security = Security(tls_ca_file=tls.ca_file, tls_client_cert=tls.cert, tls_client_key=tls.key,
                            require_encryption=True)  # type: ignore[no-untyped-call]
    _scheduler_at(address, security, timeout)
    try:
        client = Client(address, security=security, timeout=timeout,  # type: ignore[no-untyped-call]
                        set_as_default=False)
    except (OSError, TimeoutError, ValueError, TypeError) as err:  # TypeError: TLS settings it cannot use
        raise InputError(f"--dask {address}: cannot reach the Dask scheduler: {err}") from None
    try:
        client.wait_for_workers(1, timeout=timeout)
    except TimeoutError:
        client.close()  # type: ignore[no-untyped-call]
        raise InputError(f"--dask {address}: the Dask scheduler has no worker (none joined within {timeout:g} s, "
                         "--dask-timeout): start some, e.g. `dask worker ADDRESS`") from None
    return client


def _scheduler_at(address: str, security: Any, timeout: float) -> None:
    """Ask what answers at `address` (its `identity`), all within `timeout`, before a Client
    exists: a Client's own handshake waits for ever on a port that accepts and never answers (an
    HTTP server, a dead proxy) — a CI job hung — and one that fails leaves tracebacks behind as
    it is collected. A Dask worker's address is named as one."""
    import asyncio

    from distributed.core import rpc

    async def identity() -> Any:
        args = security.get_connection_args("client") if security is not None else {}
        async with rpc(address, timeout=timeout, connection_args=args) as scheduler:  # type: ignore[no-untyped-call]
            return await scheduler.identity()

    try:
        found = asyncio.run(asyncio.wait_for(identity(), timeout + 1))  # a refused connection says so first
    except (TimeoutError, asyncio.TimeoutError):
        raise InputError(f"--dask {address}: no answer within {timeout:g} s (--dask-timeout): is it a Dask "
                         "scheduler's address?") from None
    except Exception as err:  # noqa: BLE001 - whatever the far end is, it is no scheduler to use: said in one line
        raise InputError(f"--dask {address}: cannot reach the Dask scheduler: {err or type(err).__name__}") from None
    kind = found.get("type") if isinstance(found, dict) else None
    if kind != "Scheduler":
        raise InputError(f"--dask {address}: a Dask {kind or 'peer'}, not the scheduler: give the scheduler's "
                         "address (tcp://scheduler:8786)")


def scatter_once(client: Any, sweep: Sweep) -> tuple[Any, dict[str, Any]]:
    """The plan and every snapshot's bytes on every worker, in one scatter: one call to each
    worker instead of one per object, ~0.35 s sooner to the first task on a local cluster
    (a sweep's head start over Dask is the local pool's fork). (plan's future, snapshot name → its
    bytes' future)."""
    names = list(sweep.snapshots)
    futures = client.scatter([sweep.plan, *(sweep.snapshots[n] for n in names)], broadcast=True, hash=False)
    return futures[0], dict(zip(names, futures[1:]))


def run_dask(sweep: Sweep, address: str, tls: DaskTLS | None = None, progress: Progress | None = None,
             timeout: float = 30.0) -> list[Row]:
    """`--dask ADDRESS`: one task a scenario on the Dask cluster. A task whose worker is lost is
    run again by Dask's scheduler (up to its `allowed-failures`), then reported in its row.
    `timeout`: seconds to wait for the scheduler to answer."""
    from distributed import as_completed as completed
    from distributed import KilledWorker

    client = dask_client(address, tls, timeout)
    rows = Collector(sweep.scenarios, progress)
    try:
        plan, blobs = scatter_once(client, sweep)
        run = uuid.uuid4().hex[:12]
        futures = {client.submit(run_remote, plan, blobs[s.snapshot], s, key=f"kwhatif-sweep-{run}-{s.index}",
                                 pure=False): s for s in sweep.scenarios}
        for future in completed(list(futures), loop=client.loop):  # type: ignore[no-untyped-call]
            scenario = futures[future]
            try:
                rows.add(scenario.index, future.result())
            except KilledWorker:
                rows.add(scenario.index, failed_row(scenario, "the Dask workers running it were lost "
                                                              "(distributed.scheduler.allowed-failures times)"))
            except Exception as err:  # noqa: BLE001 - the task could not run (its data lost): said in its row
                rows.add(scenario.index, failed_row(scenario, f"dask: {type(err).__name__}: {err}"))
    finally:
        client.close()
    return rows.ordered()
