"""`python -m kwhatif` is the `kwhatif` console script."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.cli.conftest import CLUSTER, NOW, executable


def test_python_dash_m_prints_the_same_help_as_the_console_script():
    module = subprocess.run([sys.executable, "-m", "kwhatif", "--help"], capture_output=True, text=True, timeout=60)
    script = subprocess.run([executable("kwhatif"), "--help"], capture_output=True, text=True, timeout=60)
    assert module.returncode == 0, module.stderr
    assert module.stdout == script.stdout
    assert module.stdout.startswith("Usage: kwhatif ")


def test_python_dash_m_schedules_like_the_console_script():
    # default/big stays pending on the 3-node folder (conftest: MSG_BIG_3), so both exit 1.
    args = ["schedule", "-c", str(CLUSTER), "--now", NOW, "-o", "json"]
    module = subprocess.run([sys.executable, "-m", "kwhatif", *args], capture_output=True, text=True, timeout=60)
    script = subprocess.run([executable("kwhatif"), *args], capture_output=True, text=True, timeout=60)
    assert (module.returncode, module.stdout, module.stderr) == (script.returncode, script.stdout, script.stderr)
    assert module.returncode == 1 and '"pod": "default/big"' in module.stdout


def test_the_quick_exit_flushes_the_output_and_runs_the_exit_handlers(tmp_path):
    """The console script ends the process at once after the answer (`entry`): the whole JSON
    document is out, the exit status is the command's (1: default/big stays pending, as above) and
    the exit handlers registered meanwhile have run."""
    marker = tmp_path / "handler-ran"
    code = ("import atexit, sys; from kwhatif.cli.main import entry; marker = sys.argv.pop(); "
            "atexit.register(lambda: open(marker, 'w').write('yes')); entry()")
    args = ["schedule", "-c", str(CLUSTER), "--now", NOW, "-o", "json"]
    done = subprocess.run([sys.executable, "-c", code, *args, str(marker)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["results"]
    assert marker.read_text() == "yes"
