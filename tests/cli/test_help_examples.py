"""Every command's --help ends with examples that run on samples/, and each runs: the exit status
is 0 or 1 (an answer), never 2 (bad input) or 3 (an internal error)."""

from __future__ import annotations

import shlex
import subprocess

import click
import pytest

from kwhatif.cli.common import SAMPLES_EXAMPLES
from kwhatif.cli.main import main
from tests.cli.conftest import REPO, executable, invoke


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command path, asked as click asks a group (its commands are imported lazily)."""
    out: list[tuple[str, ...]] = []
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        if isinstance(command, click.Group):
            out += _commands(command, (*prefix, name))
        else:
            out.append((*prefix, name))
    return out


COMMANDS = _commands(main)
assert len(COMMANDS) > 10, COMMANDS  # the walk found the commands


def _examples(path: tuple[str, ...]) -> tuple[bool, list[str]]:
    """(whether they run on samples/, the example lines) of a command's --help."""
    text = invoke([*path, "--help"]).stdout
    tail = text.split("\n  Examples (", 1)
    assert len(tail) == 2, f"kwhatif {' '.join(path)} --help has no examples"
    on_samples = tail[1].startswith(f"{SAMPLES_EXAMPLES}):")
    return on_samples, [line.strip() for line in tail[1].splitlines() if line.strip().startswith("kwhatif ")]


@pytest.mark.parametrize("path", COMMANDS, ids=[" ".join(p) for p in COMMANDS])
def test_help_ends_with_examples(path: tuple[str, ...]) -> None:
    on_samples, found = _examples(path)
    assert 2 <= len(found) <= 4
    assert on_samples or path == ("snapshot",)  # only the live capture needs a real cluster
    assert any(line.split()[1:1 + len(path)] == list(path) for line in found)


EXAMPLES = [line for path in COMMANDS for on_samples, lines in [_examples(path)] if on_samples for line in lines]


@pytest.mark.parametrize("line", EXAMPLES)
def test_each_example_runs(line: str) -> None:
    args = shlex.split(line)
    pinned = ["--now", "2026-01-01T00:00:00Z"] if _takes_now(args) else []
    done = subprocess.run([executable(args[0]), *args[1:], *pinned], cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode in (0, 1), done.stderr


def _takes_now(args: list[str]) -> bool:
    """The commands that schedule take --now: pinned, so that the examples run the same every day."""
    return "-c" in args
