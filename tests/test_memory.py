"""`kwhatif.memory`: the collector paused while big loads allocate, and what lives for the run
frozen out of its generations as it is made (`keep=True`)."""

from __future__ import annotations

import gc
import os
import platform
import subprocess
import sys

import pytest

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
gc.freeze()  # what the imports made: the count below is then this test's own
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


@pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc",
                    reason="malloc's trim and mmap thresholds are glibc settings (mallopt); elsewhere nothing is changed")
def test_a_dask_workers_eager_trimming_is_turned_off_for_scenarios():
    """Dask's nanny starts workers with MALLOC_TRIM_THRESHOLD_=65536; the worker running kwhatif's
    scenarios sets glibc's thresholds back to keeping freed memory for reuse (once a process).
    Run in a fresh interpreter, with the nanny's environment."""
    code = """
from kwhatif.memory import keep_freed_memory
assert keep_freed_memory() is True
assert keep_freed_memory() is True  # once a process: the second call is the first's answer
print("ok")
"""
    env = {**os.environ, "MALLOC_TRIM_THRESHOLD_": "65536"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert done.stdout.strip() == "ok", done.stderr
