"""`kwhatif config show`: the scheduler configuration kwhatif schedules with."""

from __future__ import annotations

import click

from kwhatif.cli.common import (
    DATA_FORMATS, Warnings, config_option, emit, examples, quiet_option, run, scheduler_config, strict_option,
)
from kwhatif.cli.exit_codes import Exit
from kwhatif.config.scheduler_config import default_scheduler_config
from kwhatif.render.config import config_data, config_table
from kwhatif.render.writers import writer


@click.group(name="config")
def config_group() -> None:
    """The scheduler configuration kwhatif schedules with."""


@config_group.command(name="show", epilog=examples(
    "kwhatif config show",
    "kwhatif config show --config samples/bin-packing.config.yaml -o yaml",
))
@config_option
@click.option("-o", "--output", type=click.Choice(DATA_FORMATS), default="table", show_default=True)
@quiet_option
@strict_option
def config_show(config_file: str | None, output: str, quiet: bool, strict: bool) -> None:
    """The effective profiles: plugins per extension point in order, score weights, plugin
    arguments (kube-scheduler's defaults without --config)."""
    def action() -> int:
        config = scheduler_config(config_file) or default_scheduler_config()
        Warnings(quiet, strict).report(config.warnings)
        emit(writer(output, lambda _: config_table(config))(config_data(config)))
        return Exit.ALL_PLACED
    run(action)
