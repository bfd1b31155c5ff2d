"""Two pieces of work at once: the second in a forked child process while this process does the
first, the child's result sent back pickled.

Decoding a 150,000-pod dump is pure Python work (~13 µs a pod) that one core does in two seconds;
pickling a decoded pod costs about as much again, and unpickling it a quarter, so a child given a
bit over a third of the items finishes with this process's share and decoding takes a quarter
less. Only where `fork` exists and a second core is there to use (the CPU affinity and the
cgroup's quota tell; `KWHATIF_NO_FORK=1` turns it off); anything else — no fork, one core, no
process to spare, a child that dies or sends back garbage — runs the second piece here too, so
the result never depends on the shortcut. An `InputError` the child meets is sent back and raised
only once the first piece succeeded: the error reported is the one a sequential run would meet
first."""

from __future__ import annotations

import io
import math
import os
import pickle
import signal
import threading
from typing import Callable, NoReturn, TypeVar, cast

from kwhatif.errors import InputError
from kwhatif.load.prepared import SnapshotPickler
from kwhatif.memory import collector_paused

CPU_MAX = "/sys/fs/cgroup/cpu.max"
MEMORY_MAX, MEMORY_CURRENT, MEMINFO = "/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current", "/proc/meminfo"

R = TypeVar("R")


def cores_to_use() -> int:
    """The cores this process may use: those of its CPU affinity, no more than its cgroup's CPU
    quota allows (a pod with `limits.cpu: 1` on a 16-core node has one)."""
    affinity = getattr(os, "sched_getaffinity", None)
    cores = len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)
    quota = _cgroup_cpu_quota()
    return max(1, min(cores, math.ceil(quota))) if quota is not None else cores


def _cgroup_cpu_quota() -> float | None:
    """cgroup v2's `cpu.max` ("QUOTA PERIOD", or "max PERIOD" without a limit) as cores."""
    try:
        with open(CPU_MAX) as stream:
            quota, period = stream.read().split()[:2]
        return None if quota == "max" else int(quota) / int(period)
    except (OSError, ValueError, ZeroDivisionError):
        return None


def memory_available() -> int | None:
    """Bytes this process may still take: the system's MemAvailable, no more than its cgroup
    (v2) leaves under its limit; None where neither can be read."""
    found = [amount for amount in (_meminfo_available(), _cgroup_memory_left()) if amount is not None]
    return min(found) if found else None


def _meminfo_available() -> int | None:
    try:
        with open(MEMINFO) as stream:
            for line in stream:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _cgroup_memory_left() -> int | None:
    try:
        with open(MEMORY_MAX) as limit, open(MEMORY_CURRENT) as current:
            text = limit.read().strip()
            return None if text == "max" else max(0, int(text) - int(current.read().strip()))
    except (OSError, ValueError):
        return None


def can_fork() -> bool:
    """Whether a forked child can work beside this process: `fork` exists, no other Python
    thread runs (a child forked from several threads may inherit a lock held for ever), a second
    core is there, and `KWHATIF_NO_FORK` is not set (the way to keep every load in one process)."""
    return (hasattr(os, "fork") and threading.active_count() == 1 and not os.environ.get("KWHATIF_NO_FORK")
            and cores_to_use() > 1)


def both(first: Callable[[], R], second: Callable[[], R], second_here: Callable[[], R] | None = None) -> tuple[R, R]:
    """(first(), second()), the second worked out in a forked child when that can help;
    `second_here` does the second's work when this process has to (e.g. with progress told)."""
    here = second if second_here is None else second_here
    if not can_fork():
        return first(), here()
    try:
        read_end, write_end = os.pipe()
    except OSError:
        return first(), here()
    try:
        pid = os.fork()
    except OSError:  # no process to spare (a pod's PID limit, memory overcommit refused)
        os.close(read_end)
        os.close(write_end)
        return first(), here()
    if pid == 0:
        os.close(read_end)
        _child(second, write_end)
    os.close(write_end)
    stream = os.fdopen(read_end, "rb")
    try:
        mine = first()
        payload = stream.read()
        _, status = os.waitpid(pid, 0)
        pid = 0
    finally:
        stream.close()
        if pid:  # interrupted, or the first part failed: the child is stopped and reaped
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    outcome, value = _message(payload) if status == 0 else ("lost", None)
    if outcome == "error":
        assert isinstance(value, InputError)
        raise value
    return (mine, cast(R, value)) if outcome == "ok" else (mine, here())


def _message(payload: bytes) -> tuple[str, object]:
    """The child's (outcome, value); ("lost", None) for anything unreadable."""
    try:
        with collector_paused():
            outcome, value = pickle.loads(payload)
    except Exception:  # noqa: BLE001 - whatever the child sent, this process can do the work
        return "lost", None
    return (outcome, value) if outcome in ("ok", "error") else ("lost", None)


def _child(work: Callable[[], R], write_end: int) -> NoReturn:
    """Work, send (outcome, value) and exit at once (no atexit handlers, no buffers of the
    parent flushed twice); any failure but an InputError exits non-zero, and the parent then does
    the work itself, so that a bug shows its own traceback."""
    code = 1
    try:
        try:
            message: tuple[str, object] = ("ok", work())
        except InputError as err:
            message = ("error", err)
        buffer = io.BytesIO()
        SnapshotPickler(buffer, protocol=5).dump(message)
        with os.fdopen(write_end, "wb") as stream:
            stream.write(buffer.getbuffer())
        code = 0
    finally:
        os._exit(code)
