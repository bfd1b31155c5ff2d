"""Progress lines: only on a terminal, only after a second, never with --quiet."""

from __future__ import annotations

import io

from kwhatif.cli import progress as progress_module
from kwhatif.cli.progress import Progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_sees_progress_once_a_run_takes_a_second(monkeypatch) -> None:
    stream = _Terminal()
    monkeypatch.setattr(progress_module, "_DELAY", 0.0)
    p = Progress("scheduling", quiet=False, stream=stream)
    p(1, 2)
    p(2, 2)
    # each update overwrites the line; the first says how long is left (at once: about 0 s),
    # the last pads that away and ends the line
    first, last = stream.getvalue().split("\r")[1:]
    assert first.startswith("scheduling: 1/2, about ") and first.rstrip().endswith(" s left")
    assert last == "scheduling: 2/2" + " " * 24 + "\n"


def test_a_short_run_shows_nothing() -> None:
    stream = _Terminal()
    p = Progress("scheduling", quiet=False, stream=stream)
    p(1, 1)  # well within the first second
    assert stream.getvalue() == ""


def test_quiet_and_non_terminals_show_nothing(monkeypatch) -> None:
    monkeypatch.setattr(progress_module, "_DELAY", 0.0)
    quiet, log = _Terminal(), io.StringIO()
    Progress("scheduling", quiet=True, stream=quiet)(1, 1)
    Progress("scheduling", quiet=False, stream=log)(1, 1)
    assert quiet.getvalue() == "" and log.getvalue() == ""
