"""`kwhatif.memory`: the collector paused while big loads allocate, and what lives for the run
frozen out of its generations as it is made (`keep=True`)."""

from __future__ import annotations

import gc
import subprocess
import sys

from kwhatif.memory import collector_paused


def test_the_collector_is_paused_inside_and_back_after():
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():  # nested: the outer one turns it back on
            pass
        assert not gc.isenabled()
    assert gc.isenabled()


def test_keep_freezes_what_was_made_before_the_collector_is_back():
    """Run in a fresh interpreter: a freeze lasts as long as the process (the test process's
    collector must not keep the test's garbage for ever)."""
    code = """
import gc
from kwhatif.memory import collector_paused
before = gc.get_freeze_count()
with collector_paused(keep=True):
    kept = [[i] for i in range(10_000)]
assert gc.isenabled()
assert gc.get_freeze_count() >= before + 10_000, (before, gc.get_freeze_count())
with collector_paused():
    other = [[i] for i in range(10_000)]
assert gc.get_freeze_count() < before + 20_000  # without keep, nothing more is frozen
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "ok", done.stderr
