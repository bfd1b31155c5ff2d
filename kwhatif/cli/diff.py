"""`kwhatif diff`: the same scenario before and after — two snapshots (`-c A --against B`), one
snapshot with and without what-if operations, or two scheduler configurations — and the pods
that move, become pending, get placed or get evicted, with the per-node utilisation."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import click

from kwhatif.cli.common import (
    cluster_label, cluster_option, color_option, emit, examples, load_inputs, no_headers_option, now_option, profiles, placing,
    keys_to_place, quiet_option, rejected_to_place, run, strict_option, use_color, validate_option,
)
from kwhatif.cli.exit_codes import Exit
from kwhatif.cli.whatif import applied_scenario, baseline, whatif_options
from kwhatif.diff import diff_runs
from kwhatif.engine import simulate
from kwhatif.load.cluster import load_cluster
from kwhatif.render.diff import diff_markdown, diff_table
from kwhatif.render.writers import writer

DIFF_FORMATS = ("table", "wide", "json", "yaml", "markdown")


def diff_output_options(command: Callable[..., None]) -> Callable[..., None]:
    """The options diff and compare share after their own: the format, the table's habits and the
    run's clock, quietness, strictness and the POD_FILES' validation (in this order in --help)."""
    options = (click.option("-o", "--output", type=click.Choice(DIFF_FORMATS), default="table", show_default=True),
               no_headers_option, color_option, now_option, quiet_option, strict_option, validate_option)
    for option in reversed(options):
        command = option(command)
    return command


def styled_diff_table(no_headers: bool, color: str) -> Callable[..., str]:
    """diff's and compare's table with their --no-headers and --color."""
    return partial(diff_table, headers=not no_headers, color=use_color(color))


@whatif_options
@click.command(name="diff", epilog=examples(
    "kwhatif diff -c samples/cluster.yaml --drain worker-a1",
    "kwhatif diff -c samples/cluster.yaml --cordon worker-b3 -o markdown",
    "kwhatif diff -c samples/cluster.yaml --config samples/bin-packing.config.yaml",
))
@click.argument("pod_files", nargs=-1)
@cluster_option
@click.option("--against", "against", multiple=True, metavar="SNAPSHOT",
              help="The snapshot before (files, folders, repeatable); default: -c without the what-if operations.")
@click.option("--config", "config_file", metavar="FILE", help="The KubeSchedulerConfiguration after.")
@click.option("--against-config", "against_config", metavar="FILE",
              help="The KubeSchedulerConfiguration before (default: kube-scheduler's default profile).")
@diff_output_options
def diff_cmd(pod_files: tuple[str, ...], clusters: tuple[str, ...], against: tuple[str, ...],
             config_file: str | None, against_config: str | None, output: str, no_headers: bool, color: str,
             now: str | None, quiet: bool, strict: bool = False, validate: str = "strict") -> None:
    """Schedule the pending pods (and POD_FILES) before and after, and show what changed. Exit 1
    when some pod is evicted or becomes pending, or a pod of POD_FILES is never scheduled
    (skipped: the API server refuses it), else 0."""
    table = styled_diff_table(no_headers, color)
    run(lambda: compare_runs(pod_files, clusters, against, config_file, against_config, output, table, now, quiet,
                             strict, validate))


def compare_runs(pod_files: tuple[str, ...], clusters: tuple[str, ...], against: tuple[str, ...],
                 config_file: str | None, against_config: str | None, output: str, table: Callable[..., str],
                 now: str | None, quiet: bool, strict: bool, validate: str) -> int:
    """`diff`, and `compare` (two configurations on one snapshot): both runs, what changed, the
    table drawn by `table` (diff_table with the command's --no-headers and --color)."""
    inputs = load_inputs(clusters, [config_file, against_config], now, quiet, strict)
    after_config, before_config = inputs.configs
    cluster, pods, _ = placing(pod_files, inputs, validate=validate) if pod_files else (inputs.cluster, [], {})
    before_cluster = (load_cluster(against) if against else baseline(inputs.cluster)).copy()
    before_cluster.rejected_pods.extend(rejected_to_place(cluster, inputs))  # rejected alike on both sides
    inputs.warnings.check(before_cluster.warnings if against else [])
    # A diff reads each pod's outcome, node, its score and message: no per-node detail is kept.
    before = simulate(before_cluster, inputs.now, new_pods=pods, profiles=profiles(before_config), node_detail=False)
    after = simulate(cluster, inputs.now, new_pods=pods, profiles=profiles(after_config), node_detail=False)
    inputs.finish(after.warnings)
    done = applied_scenario()
    labels = (label(against or clusters, against_config),
              label(clusters, config_file) + (" with the what-if operations" if done else ""))
    result = diff_runs(before, after, labels, done.notes() if done else {},
                       keys_to_place(cluster, inputs, pods) if pod_files else ())
    if done:
        result.whatif = done.data()
    data = result.data()
    emit(diff_markdown(data) if output == "markdown" else writer(output, table)(data))
    return Exit.NOT_ALL_PLACED if result.worse else Exit.ALL_PLACED


def label(snapshot: tuple[str, ...], config: str | None) -> str:
    """How a side is named: its snapshot files and its configuration."""
    return f"{cluster_label(snapshot)} ({config or 'default profile'})"
