"""`kwhatif` / `kubectl whatif`: schedule, place, explain. This module only wires the commands,
each defined in its own module over `kwhatif.cli.common`, into the one click group."""

from __future__ import annotations

import atexit
import importlib
import os
import re
import sys
import threading
from collections.abc import Sequence
from typing import Any

import click

from kwhatif import __version__
from kwhatif.cli.exit_codes import UNWRITABLE, unwritable

COMMANDS = {
    "schedule": ("kwhatif.cli.schedule", "schedule"),
    "place": ("kwhatif.cli.schedule", "place"),
    "explain": ("kwhatif.cli.explain", "explain_cmd"),
    "pending": ("kwhatif.cli.pending", "pending"),
    "reasons": ("kwhatif.cli.reasons", "reasons"),
    "config": ("kwhatif.cli.config", "config_group"),
    "compare": ("kwhatif.cli.compare", "compare"),
    "check": ("kwhatif.cli.check", "check"),
    "capacity": ("kwhatif.cli.check", "capacity_cmd"),
    "version": ("kwhatif.cli.version", "version"),
    "completion": ("kwhatif.cli.version", "completion"),
    "diff": ("kwhatif.cli.diff", "diff_cmd"),
    "evict": ("kwhatif.cli.evict", "evict_cmd"),
    "snapshot": ("kwhatif.cli.snapshot", "snapshot_cmd"),
    "sweep": ("kwhatif.cli.sweep", "sweep_cmd"),
}
"""Command name → (module, attribute) of its click command."""


class KubectlArgs(click.Group):
    """kubectl's spelling of a short option's value, `-o=json` (click reads `=json`), split into
    `-o json` before click parses; what follows `--` is left as it is. Commands are imported
    when they are run (click's lazy group): importing every command's dependencies (deepdiff,
    jsonschema, the HTML renderers...) costs a third of a second a run."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, split_short_equals(args))

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True, **extra: Any) -> Any:
        """click's own run, except that a mistyped command line is told in one line, as every
        other bad input is (`usage_line`), not in click's three (usage, hint, error)."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            done = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.UsageError as err:
            click.echo(usage_line(err), err=True)
            sys.exit(err.exit_code)
        except click.ClickException as err:
            err.show()
            sys.exit(err.exit_code)
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(1)
        except OSError as err:  # --help, --version: the commands' own output is `common.run`'s
            if err.errno not in UNWRITABLE:
                raise
            sys.exit(int(unwritable(err)))
        sys.exit(done if isinstance(done, int) else 0)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = COMMANDS.get(cmd_name)
        if found is None:
            return None
        module, attribute = found
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command) and command.name == cmd_name, (module, attribute)
        return command


def usage_line(err: click.UsageError) -> str:
    """`kwhatif: error: …; see kwhatif schedule --help`, in the words of every other bad input's
    line. An extra argument to a command that reads its cluster from -c (`kwhatif schedule
    dump.json`) is most likely that cluster: the line says how to give it."""
    command = err.ctx.command_path if err.ctx is not None else "kwhatif"
    message = err.format_message().rstrip(".")
    line = f"kwhatif: error: {message}"
    takes_cluster = err.ctx is not None and any(p.name == "clusters" for p in err.ctx.command.params)
    if takes_cluster and message.startswith("Got unexpected extra argument"):
        line += "; a cluster is given with -c/--cluster FILE"
    return f"{line}; see {command} --help"


def split_short_equals(args: list[str]) -> list[str]:
    out: list[str] = []
    for i, arg in enumerate(args):
        if arg == "--":
            return out + args[i:]
        match = re.fullmatch(r"(-[A-Za-z])=(.*)", arg)
        out += [match.group(1), match.group(2)] if match else [arg]
    return out


@click.group(cls=KubectlArgs, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kwhatif")
def main() -> None:
    """What-if analysis for Kubernetes scheduling, faithful to kube-scheduler v1.34.1."""


def entry(prog_name: str | None = None) -> None:
    """The console scripts (`kwhatif`, `kubectl-whatif`, `python -m kwhatif`): `main`, then a
    quick exit. A run that loaded a big cluster holds millions of objects that the interpreter
    would free one by one on its way out (0.2 s at 150,000 pods, after the answer is printed);
    once the output is flushed and the exit handlers have run, with no other thread left, the
    process ends at once instead. Anything unusual takes the normal way out."""
    try:
        main(prog_name=prog_name)
    except SystemExit as done:
        if not (done.code is None or isinstance(done.code, int)) or threading.active_count() > 1:
            raise
        atexit._run_exitfuncs()
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):  # a closed or broken stream: the normal way out says so
            raise done from None
        os._exit(done.code or 0)
