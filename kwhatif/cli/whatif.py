"""The what-if options every scenario command shares (`--cordon`, `--drain`, `--taint`... and
`--whatif FILE`), applied in the order given, before scheduling.

`whatif_options` is put above `@click.command()`: it adds the options to the command and records,
while click parses the command line, the operations in command-line order (click itself gathers
each option's values apart, which loses the order between `--cordon a --taint b ... --cordon c`).
The command's preamble (`kwhatif.cli.common.load_inputs`) then applies them to the loaded cluster
(`scenario`), and the output carries what each did: a `what-if:` line above a table, a `whatif`
list in JSON and YAML (`with_whatif`)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

import click

from kwhatif.api.cluster import Cluster
from kwhatif.config.profile import ProfileConfig
from kwhatif.engine import Settling
from kwhatif.whatif import Operation, Scenario, apply_operations, operations_from_file, parse_operation
from kwhatif.whatif.ops import OPERATIONS
from kwhatif.whatif.scale import scale_workloads

OPERATIONS_KEY = "kwhatif.whatif.operations"
SCENARIO_KEY = "kwhatif.whatif.scenario"
BASELINE_KEY = "kwhatif.whatif.baseline"
FILE_OPTION = "whatif_file"
FORCE_OPTION = "whatif_force"
TABLE_OUTPUTS = ("table", "wide")


def option_name(op: str) -> str:
    return "whatif_" + op.replace("-", "_")


def operation_options() -> list[click.Option]:
    """One repeatable option per operation, plus --whatif FILE and --force; their values reach the
    command through the context (`OPERATIONS_KEY`), never as arguments."""
    options = [click.Option([f"--{op}", option_name(op)], multiple=True, nargs=len(metavars), expose_value=False,
                            metavar=" ".join(metavars), help=f"What-if: {text}")
               for op, (metavars, text) in OPERATIONS.items()]
    options.append(click.Option(["--whatif", FILE_OPTION], multiple=True, expose_value=False, metavar="OPS.yaml",
                                help="What-if operations from a YAML list (`- cordon: node-a`, "
                                     "`- taint: [node-a, 'k=v:NoSchedule']`), in their place in the order."))
    options.append(click.Option(["--force", FORCE_OPTION], is_flag=True, expose_value=False,
                                help="--drain also deletes the pods no controller owns (kubectl drain --force)."))
    return options


class WhatifCommand(click.Command):
    """A command that keeps its what-if operations in command-line order (see the module docstring)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        opts, _rest, order = self.make_parser(ctx).parse_args(args=list(args))
        values = {name: list(v) for name, v in opts.items() if name is not None and isinstance(v, list)}
        # Read when the command runs, not here: a bad --whatif file is then an input error
        # reported in one line (exit 2), not a traceback out of click's parsing.
        ctx.meta[OPERATIONS_KEY] = partial(ordered_operations, order, values, bool(opts.get(FORCE_OPTION)))
        return super().parse_args(ctx, args)


def ordered_operations(order: Sequence[Any], values: dict[str, list[Any]], force: bool) -> list[Operation]:
    """The operations in the order their options appeared: each occurrence of an option in
    `order` takes the next of its values. A --whatif file's operations take its place."""
    out: list[Operation] = []
    for param in order:
        name = getattr(param, "name", None)
        if name is None or not values.get(name):
            continue
        value = values[name].pop(0)
        if name == FILE_OPTION:
            out.extend(operations_from_file(str(value)))
        elif name.startswith("whatif_") and name != FORCE_OPTION:
            op = name.removeprefix("whatif_").replace("_", "-")
            args = value if isinstance(value, (tuple, list)) else (value,)
            out.append(parse_operation(op, [str(a) for a in args], force))
    return out


def whatif_options(command: click.Command) -> click.Command:
    """Give a command the what-if options (put it above `@click.command()`). An option the
    command already has keeps the command's meaning (capacity's own `--add-node`); that operation
    is then given in a --whatif file."""
    taken = {flag for param in command.params for flag in param.opts}
    command.params.extend(o for o in operation_options() if not taken & set(o.opts))
    command.__class__ = WhatifCommand
    return command


def scenario(cluster: Cluster, now: str, profiles: Sequence[ProfileConfig] | None = None) -> Cluster:
    """The cluster after the command's what-if operations (itself when there are none); a table
    output gets the `what-if:` lines first. `profiles`: the --config's, which schedule what a drain
    waits for."""
    ctx = click.get_current_context(silent=True)
    read = ctx.meta.get(OPERATIONS_KEY) if ctx is not None else None
    operations = read() if read is not None else None
    if ctx is None or not operations:
        return cluster
    done = apply_operations(cluster, operations, now, workload_files="workload_files" in ctx.params,
                            settlers=lambda: Settling(now, profiles), validate=ctx.params.get("validate", "strict"))
    ctx.meta[SCENARIO_KEY] = done
    ctx.meta[BASELINE_KEY] = cluster
    done.cluster.warnings.extend(done.warnings)
    if ctx.params.get("output", "table") in TABLE_OUTPUTS:
        click.echo("\n".join(done.header) + "\n")
    return done.cluster


def baseline(cluster: Cluster) -> Cluster:
    """The cluster as loaded, before this command's operations (`cluster` itself without any)."""
    ctx = click.get_current_context(silent=True)
    found = ctx.meta.get(BASELINE_KEY) if ctx is not None else None
    return found if isinstance(found, Cluster) else cluster


def applied_scenario() -> Scenario | None:
    """The operations this command applied, with what each did (None without operations)."""
    ctx = click.get_current_context(silent=True)
    return ctx.meta.get(SCENARIO_KEY) if ctx is not None else None


def scaled(objects: list[object]) -> list[object]:
    """The workload files' objects with the command's `--scale` of them applied."""
    done = applied_scenario()
    return scale_workloads(objects, done.file_scales) if done is not None and done.file_scales else objects


def with_whatif(data: dict[str, Any]) -> dict[str, Any]:
    """JSON / YAML data with the run's `whatif` list first (unchanged without operations)."""
    done = applied_scenario()
    return {"whatif": done.data(), **data} if done is not None else data
