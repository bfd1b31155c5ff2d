"""`kwhatif pending`: after the queue is scheduled, the pods that stay pending, grouped by root cause."""

from __future__ import annotations

import shutil

import click

from kwhatif.cli.common import (
    DATA_FORMATS, cluster_option, config_option, emit, examples, exit_code, load_inputs, now_option, profiles,
    quiet_option, run, strict_option,
)
from kwhatif.cli.progress import Progress
from kwhatif.engine import simulate
from kwhatif.explain.pending import best_suggestions, pending_groups
from kwhatif.render.pending import pending_data, pending_table
from kwhatif.render.writers import writer


@click.command(epilog=examples(
    "kwhatif pending -c samples/cluster.yaml",
    "kwhatif pending -c samples/cluster.yaml --no-suggest -o json",
))
@cluster_option
@click.option("-o", "--output", type=click.Choice(DATA_FORMATS), default="table", show_default=True)
@now_option
@quiet_option
@config_option
@strict_option
@click.option("--suggest/--no-suggest", default=True, show_default=True,
              help="For each group, the best change that a re-run proves makes its first pod fit.")
def pending(clusters: tuple[str, ...], output: str, now: str | None, quiet: bool, config_file: str | None,
            strict: bool = False, suggest: bool = True) -> None:
    """Schedule the queue, then group the pods that stay pending by what rejected them."""
    def action() -> int:
        inputs = load_inputs(clusters, [config_file], now, quiet, strict)
        sim = simulate(inputs.cluster, inputs.now, profiles=profiles(inputs.config),
                       progress=Progress("scheduling", quiet), for_the_run=True)
        inputs.finish(sim.warnings)
        width = shutil.get_terminal_size((100, 24)).columns
        groups = pending_groups(sim.results)
        best = best_suggestions(inputs.cluster, inputs.now, groups, profiles(inputs.config)) if suggest else {}
        data = pending_data(groups, len(sim.results), best)
        emit(writer(output, lambda d: pending_table(d, width))(data))
        return exit_code(sim)
    run(action)
