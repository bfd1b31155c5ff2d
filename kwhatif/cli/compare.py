"""`kwhatif compare`: the same queue under two scheduler configurations, side by side."""

from __future__ import annotations

import click

from kwhatif.cli.main import (
    _load_cluster,
    _now, _read_pods, _run, _scheduler_config, cluster_option, main, now_option, quiet_option,
)
from kwhatif.cli.exit_codes import Exit
from kwhatif.engine import simulate
from kwhatif.render.compare import comparison_data, comparison_table
from kwhatif.render.writers import to_json, to_yaml


@main.command()
@click.argument("pod_files", nargs=-1)
@cluster_option
@click.option("--config", "config_file", required=True, metavar="FILE",
              help="The KubeSchedulerConfiguration to try.")
@click.option("--against", "against_file", metavar="FILE",
              help="The configuration to compare with (default: kube-scheduler's default profile).")
@click.option("-o", "--output", type=click.Choice(("table", "json", "yaml")), default="table", show_default=True)
@now_option
@quiet_option
def compare(pod_files: tuple[str, ...], clusters: tuple[str, ...], config_file: str, against_file: str | None,
            output: str, now: str | None, quiet: bool) -> None:
    """Schedule the pending pods (and POD_FILES) twice: under --config and under the default
    profile (or --against), and show where each pod lands in each run."""
    def action() -> int:
        config, against = _scheduler_config(config_file), _scheduler_config(against_file)
        cluster = _load_cluster(clusters, quiet)
        pods = _read_pods(pod_files) if pod_files else []
        clock = _now(now)
        baseline = simulate(cluster, clock, new_pods=pods, profiles=against.profiles if against else None)
        tried = simulate(cluster, clock, new_pods=pods, profiles=config.profiles)
        data = comparison_data(against_file or "default", baseline, config_file, tried)
        text = {"json": to_json, "yaml": to_yaml}.get(output, comparison_table)(data)
        click.echo(text, nl=False)
        return Exit.ALL_PLACED
    _run(action)
