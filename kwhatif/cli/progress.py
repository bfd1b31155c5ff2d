"""Progress on stderr for long runs: shown on a terminal once a run has taken a second, silenced
by `--quiet`, never mixed into results (stdout) nor into logs (stderr that is not a terminal)."""

from __future__ import annotations

import sys
import time
from typing import TextIO

_DELAY = 1.0


class Progress:
    def __init__(self, what: str, quiet: bool, stream: TextIO | None = None) -> None:
        self.what = what
        self.stream = stream or sys.stderr
        self.enabled = not quiet and self.stream.isatty()
        self.started = time.monotonic()
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or time.monotonic() - self.started < _DELAY:
            return
        self.shown = True
        self.stream.write(f"\r{self.what}: {done}/{total}{eta(time.monotonic() - self.started, done, total)}")
        if done == total:
            self.close()
        self.stream.flush()

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.shown = False


def eta(elapsed: float, done: int, total: int) -> str:
    """`, about 42 s left` at the pace so far (nothing before the first item is done, nor after
    the last); padded so that a shorter line overwrites a longer one."""
    if done <= 0 or done >= total:
        return " " * 24
    left = elapsed / done * (total - done)
    text = f"{left / 60:.0f} min" if left >= 120 else f"{left:.0f} s"
    return f", about {text} left".ljust(24)

