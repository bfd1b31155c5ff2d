"""A loss policy's scenarios on several cores (`kwhatif check --jobs N`).

Each scenario of a node- or zone-loss policy is independent of the others, and one can take a
minute at 5,000 nodes (a lost zone sends tens of thousands of pods back to the queue), so they
can run side by side. Workers are forked from the command's process: they inherit the loaded
cluster, the workloads and the policy's scenario engine as they are (nothing is pickled but each
scenario's index and its few figures), each builds its own base snapshot once, and they only
ever read the cluster. Each worker costs the memory of one scenario (~0.6 GB at 5,000 nodes), so
`--jobs` trades memory for time; by default (`default_jobs`) a policy takes a worker per core
where the cluster is big enough for them to pay and the memory available holds them. Where fork
is not available, or a worker is lost (out of memory), the scenarios without a result run here,
one after the other: the result is the same whatever ran it, in scenario order.
"""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar, cast

from kwhatif.load.forked import cores_to_use, memory_available

T = TypeVar("T")

_WORK: list[Callable[[int], object]] = []  # what the forked workers run (set before they start)


PARALLEL_FROM_PODS = 1000
"""Below this many pods a cluster's scenario takes milliseconds: starting workers would cost
more than they save."""
WORKER_BYTES_PER_POD = 4096
"""A worker's own memory per pod of the cluster, with a margin: its scenario's snapshot and
recreated pods, and its copies of the pages it touches (0.46 GB measured as proportional set
size at 150,000 pods and 5,000 nodes)."""


def default_jobs(pods: int, scenarios: int) -> int:
    """The workers a loss policy takes when `--jobs` is not given: one per core this process may
    use, no more than there are scenarios, nor than the memory available holds; none for a small
    cluster, nor off Linux (macOS has fork, but a process forked there after its system libraries
    started threads may crash: `--jobs N` asks for it knowingly)."""
    if scenarios < 2 or pods < PARALLEL_FROM_PODS or not sys.platform.startswith("linux"):
        return 1
    jobs = min(cores_to_use(), scenarios)
    available = memory_available()
    if available is not None:
        jobs = min(jobs, available // (pods * WORKER_BYTES_PER_POD))
    return max(1, jobs)


def _run(index: int) -> object:
    return _WORK[0](index)


def each(work: Callable[[int], T], count: int, jobs: int,
         progress: Callable[[int, int], None] | None = None) -> list[T]:
    """`work(i)` for i in range(count), in that order, on up to `jobs` forked workers;
    `progress` hears (done, count) as results come."""
    results: dict[int, T] = {}

    def done(index: int, value: T) -> None:
        results[index] = value
        if progress is not None:
            progress(len(results), count)

    if jobs > 1 and count > 1 and "fork" in multiprocessing.get_all_start_methods():
        _WORK[:] = [work]
        try:
            with ProcessPoolExecutor(min(jobs, count), mp_context=multiprocessing.get_context("fork")) as pool:
                futures: dict[Future[object], int] = {pool.submit(_run, i): i for i in range(count)}
                for future in as_completed(futures):
                    done(futures[future], cast(T, future.result()))
        except BrokenProcessPool:
            pass  # a worker was lost: what it did not finish runs here, below
        finally:
            _WORK.clear()
    for index in range(count):
        if index not in results:
            done(index, work(index))
    return [results[i] for i in range(count)]
