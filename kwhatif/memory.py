"""The cyclic garbage collector, kept out of the way of big loads.

Loading a dump and building its snapshot allocate millions of objects and no reference cycles, so
the collector's passes over them are pure cost: a 400 MB dump parsed in 24 s instead of 5 to 10, a
snapshot of 150,000 pods built in 1.6 s instead of 0.9; both run with the collector paused. And
once a command has loaded its cluster, the first full collection would walk all of it (1 to 2 s)
although none of it is garbage: what lives for the whole run is frozen out of the collector's
generations (`keep_for_the_run`, or `collector_paused(keep=True)` as it is made, before the
collector's next pass walks it; reference counting still frees what is dropped). Only what
lives for the run is frozen — the CLI's loaded cluster and the snapshot of a command that
schedules once, a sweep worker's decoded snapshots (it keeps a few; one it drops is still freed
by reference counting, holding no cycles): a library caller that simulates many times
(capacity, compare) leaves garbage cycles behind that a freeze would keep for ever."""

from __future__ import annotations

import gc
from contextlib import contextmanager
from functools import cache
from typing import Iterator

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters
_KEEP_FREED = 128 << 20  # freed memory kept for reuse, bytes
_MMAP_ABOVE = 32 << 20  # glibc's own ceiling for the sizes it allocates outside the heap


@contextmanager
def collector_paused(keep: bool = False) -> Iterator[None]:
    """No cyclic collection meanwhile (reference counting still frees what is dropped). `keep`:
    what is alive at the end lives for the run (`keep_for_the_run`), and is frozen before the
    collector is turned back on — its next pass would otherwise walk every object allocated
    meanwhile (0.2 s after loading the benchmark dump, as much after building its snapshot)."""
    was_enabled = gc.isenabled()
    gc.disable()
    made = False
    try:
        yield
        made = True
    finally:
        if keep and made:  # a failed load's garbage is not kept
            gc.freeze()
        if was_enabled:
            gc.enable()


def keep_for_the_run() -> None:
    """Everything allocated so far (the loaded cluster) lives until the process ends."""
    gc.freeze()


@cache
def keep_freed_memory() -> bool:
    """Let this process's malloc keep what is freed for reuse, as glibc does by default. Dask's
    nanny starts its workers with MALLOC_TRIM_THRESHOLD_=65536, which hands freed memory back to
    the system at once and fixes the size above which blocks are mapped one by one: a scenario
    frees and makes arrays and objects by the hundred thousand, and on such a worker it took 2.5
    times the page faults and 8 % more time than in a local worker. Done once per process, for
    the process (glibc only; True when applied)."""
    import ctypes  # here: only a Dask worker needs them
    import platform
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    return bool(libc.mallopt(_M_TRIM_THRESHOLD, _KEEP_FREED)) and bool(libc.mallopt(_M_MMAP_THRESHOLD, _MMAP_ABOVE))
