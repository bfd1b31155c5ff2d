"""Two pieces of work at once: the second in a forked child process while this process does the
first, the child's result sent back pickled.

Decoding a 150,000-pod dump is pure Python work (~13 µs a pod) that one core does in two seconds;
pickling a decoded pod costs about as much again, and unpickling it a quarter, so a child given a
bit over a third of the items finishes with this process's share and the load takes ~30 % less.
Only where `fork` exists and a second core is there to use; anything else — no fork, one core, a
child that dies or sends back garbage — runs the second piece here too, so the result never
depends on the shortcut. An `InputError` the child meets is sent back and raised only once the
first piece succeeded: the error reported is the one a sequential run would meet first."""

from __future__ import annotations

import io
import os
import pickle
import signal
from typing import Callable, TypeVar

from kwhatif.errors import InputError
from kwhatif.load.prepared import SnapshotPickler
from kwhatif.memory import collector_paused

R = TypeVar("R")


def cores_to_use() -> int:
    """The cores this process may run on (its affinity where the platform tells it)."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)


def can_fork() -> bool:
    return hasattr(os, "fork") and cores_to_use() > 1


def both(first: Callable[[], R], second: Callable[[], R]) -> tuple[R, R]:
    """(first(), second()), the second worked out in a forked child when that can help."""
    if not can_fork():
        return first(), second()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_end)
        _child(second, write_end)
    os.close(write_end)
    try:
        mine = first()
    except BaseException:
        os.kill(pid, signal.SIGKILL)
        os.close(read_end)
        os.waitpid(pid, 0)
        raise
    with os.fdopen(read_end, "rb") as stream:
        payload = stream.read()
    _, status = os.waitpid(pid, 0)
    if status != 0 or not payload:
        return mine, second()
    with collector_paused():
        outcome, value = pickle.loads(payload)
    if outcome == "error":
        raise value
    return mine, value


def _child(work: Callable[[], R], write_end: int) -> None:
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
