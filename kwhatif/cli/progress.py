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
        self.stream.write(f"\r{self.what}: {done}/{total}")
        if done == total:
            self.close()
        self.stream.flush()

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.shown = False
