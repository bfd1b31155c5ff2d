"""`kwhatif compare`: the same queue under two scheduler configurations, side by side."""

from __future__ import annotations

import click

from kwhatif.cli.common import (
    DATA_FORMATS, cluster_option, emit, examples, load_inputs, now_option, placing, profiles, quiet_option, run,
    strict_option,
)
from kwhatif.cli.exit_codes import Exit
from kwhatif.engine import simulate
from kwhatif.render.compare import comparison_data, comparison_table
from kwhatif.render.writers import writer


@click.command(epilog=examples(
    "kwhatif compare -c samples/cluster.yaml --config samples/bin-packing.config.yaml",
    "kwhatif compare samples/pods/ -c samples/cluster.yaml --config samples/bin-packing.config.yaml -o json",
))
@click.argument("pod_files", nargs=-1)
@cluster_option
@click.option("--config", "config_file", required=True, metavar="FILE",
              help="The KubeSchedulerConfiguration to try.")
@click.option("--against", "against_file", metavar="FILE",
              help="The configuration to compare with (default: kube-scheduler's default profile).")
@click.option("-o", "--output", type=click.Choice(DATA_FORMATS), default="table", show_default=True)
@now_option
@quiet_option
@strict_option
def compare(pod_files: tuple[str, ...], clusters: tuple[str, ...], config_file: str, against_file: str | None,
            output: str, now: str | None, quiet: bool, strict: bool = False) -> None:
    """Schedule the pending pods (and POD_FILES) twice: under --config and under the default
    profile (or --against), and show where each pod lands in each run."""
    def action() -> int:
        inputs = load_inputs(clusters, [config_file, against_file], now, quiet, strict)
        config, against = inputs.configs
        cluster, pods = placing(pod_files, inputs) if pod_files else (inputs.cluster, [])
        baseline = simulate(cluster, inputs.now, new_pods=pods, profiles=profiles(against))
        tried = simulate(cluster, inputs.now, new_pods=pods, profiles=profiles(config))
        inputs.finish(baseline.warnings)  # the cluster's, the same in both runs
        data = comparison_data(against_file or "default", baseline, config_file, tried)
        emit(writer(output, comparison_table)(data))
        return Exit.ALL_PLACED
    run(action)
