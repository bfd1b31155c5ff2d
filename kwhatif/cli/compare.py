"""`kwhatif compare`: `kwhatif diff` with two scheduler configurations on one snapshot — the name
kept for those who know it (`--against` is the configuration before, as it always was)."""

from __future__ import annotations

import click

from kwhatif.cli.common import cluster_option, examples, run
from kwhatif.cli.diff import compare_runs, diff_output_options, styled_diff_table


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
@diff_output_options
def compare(pod_files: tuple[str, ...], clusters: tuple[str, ...], config_file: str, against_file: str | None,
            output: str, no_headers: bool, color: str, now: str | None, quiet: bool, strict: bool = False,
            validate: str = "strict") -> None:
    """`diff --config FILE --against-config AGAINST`: schedule the pending pods (and POD_FILES) under
    the default profile (or --against) and under --config, and show the pods that move, become
    pending or get placed, and each node's utilisation before and after. Exit 1 when some pod
    is evicted or becomes pending under --config, or a pod of POD_FILES is never scheduled
    (skipped: the API server refuses it), else 0."""
    table = styled_diff_table(no_headers, color)
    run(lambda: compare_runs(pod_files, clusters, (), config_file, against_file, output, table, now, quiet, strict,
                             validate))
