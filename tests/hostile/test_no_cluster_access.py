"""Issue 7: kwhatif never writes to a cluster, because it never talks to one.

kwhatif reads files and standard input only, unless asked for a live capture (`kwhatif snapshot`,
`--live`), which runs the user's own kubectl with read-only verbs (`kwhatif/live/kubectl.py`, proven
in tests/live/test_kubectl.py). Two proofs: no other module of the package imports anything that
could reach a network or start a program, and every command runs to its answer with sockets and
subprocesses made to fail.

Two more modules are allowed, by name: `sweep/executors.py` starts local worker processes for
`kwhatif sweep --jobs N` and, with `--dask ADDRESS` only, connects to the Dask scheduler the user
names (`distributed`, imported there lazily, and `asyncio`, to bound the wait for its answer).
Neither reaches a Kubernetes API: workers receive
snapshot bytes and scenario specs, never a kubeconfig. And `check/workers.py` forks local workers
for `kwhatif check --jobs N`: they inherit the loaded cluster and only compute; `load/forked.py`
forks kwhatif itself (`os.fork`, no import to allow) to decode the second part of a big input.
"""

from __future__ import annotations

import ast
import socket
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from kwhatif.cli.main import main
from tests.cli.conftest import CLUSTER, DATA, NOW

REPO = Path(__file__).parent.parent.parent
PACKAGE = REPO / "kwhatif"
SAMPLES = REPO / "samples"

FORBIDDEN = ("socket", "ssl", "http", "urllib.request", "requests", "httpx", "aiohttp", "asyncio", "subprocess",
             "multiprocessing", "kubernetes", "pty", "ftplib", "smtplib", "telnetlib", "xmlrpc", "webbrowser")


ALLOWED = {"sweep/executors.py": {"multiprocessing", "asyncio"}, "check/workers.py": {"multiprocessing"}}  # see their docstrings


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_no_module_can_reach_a_network_or_run_a_program():
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        allowed = ALLOWED.get(str(path.relative_to(PACKAGE)), set())
        bad = sorted(n for n in _imports(path) - allowed if any(n == f or n.startswith(f + ".") for f in FORBIDDEN))
        if bad:
            found[str(path.relative_to(PACKAGE))] = bad
    assert found == {"live/kubectl.py": ["subprocess"]}  # the one process start: read-only kubectl
    assert PACKAGE.joinpath("cli", "main.py").exists()  # the walk did see the package


CHECK = DATA / "check"
COMMANDS = [
    ["schedule", "-c", str(CLUSTER), "-o", "json"],
    ["place", str(DATA / "place" / "web.yaml"), "-c", str(CLUSTER), "-o", "json"],
    ["explain", "default/big", "-c", str(CLUSTER)],
    ["check", str(CHECK / "web.yaml"), "-c", str(CLUSTER), "-o", "json"],
    ["capacity", str(CHECK / "copy.yaml"), "-c", str(CLUSTER), "-o", "json"],
    ["compare", "-c", str(CLUSTER), "--config", str(SAMPLES / "bin-packing.config.yaml")],
    ["config", "show"],
]


@pytest.mark.parametrize("args", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_every_command_answers_without_network_or_subprocess(monkeypatch, args):
    def refuse(*_args, **_kwargs):
        raise AssertionError("kwhatif tried to open a connection or start a program")

    # The commands are imported when first run; import them before socket.socket is replaced
    # (ssl, which some libraries import, subclasses it): running them is what is tested here.
    ctx = click.Context(main)
    assert all(main.get_command(ctx, name) is not None for name in main.list_commands(ctx))
    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(subprocess, "Popen", refuse)
    result = CliRunner().invoke(main, [*args, "--now", NOW, "-q"] if args[0] != "config" else args)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code in (0, 1), result.output


def test_importing_every_command_opens_no_connection():
    """Commands are imported when run; what they import must not connect either (in a fresh
    interpreter, where nothing is imported yet)."""
    code = """
import socket, subprocess
def refuse(*_args, **_kwargs):
    raise AssertionError("a connection or a program at import time")
socket.socket.connect = socket.socket.connect_ex = refuse
socket.create_connection = subprocess.Popen = refuse
import click
from kwhatif.cli.main import main
ctx = click.Context(main)
assert all(main.get_command(ctx, name) is not None for name in main.list_commands(ctx))
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr
