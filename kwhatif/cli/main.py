"""`kwhatif` / `kubectl whatif`: schedule, place, explain. This module only wires the commands,
each defined in its own module over `kwhatif.cli.common`, into the one click group."""

from __future__ import annotations

import re

import click

from kwhatif import __version__
from kwhatif.cli.check import capacity_cmd, check
from kwhatif.cli.compare import compare
from kwhatif.cli.config import config_group
from kwhatif.cli.diff import diff_cmd
from kwhatif.cli.evict import evict_cmd
from kwhatif.cli.explain import explain_cmd
from kwhatif.cli.pending import pending
from kwhatif.cli.sweep import sweep_cmd
from kwhatif.cli.reasons import reasons
from kwhatif.cli.schedule import place, schedule
from kwhatif.cli.version import completion, version
from kwhatif.cli.snapshot import snapshot_cmd


class KubectlArgs(click.Group):
    """kubectl's spelling of a short option's value, `-o=json` (click reads `=json`), split into
    `-o json` before click parses; what follows `--` is left as it is."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, split_short_equals(args))


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


for _command in (schedule, place, explain_cmd, pending, reasons, config_group, compare, check, capacity_cmd, version,
                 completion, diff_cmd, evict_cmd, snapshot_cmd, sweep_cmd):
    main.add_command(_command)
