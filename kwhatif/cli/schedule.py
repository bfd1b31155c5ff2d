"""`kwhatif schedule` and `kwhatif place`: the cluster's pending pods, and pods to add, scheduled
in queue order."""

from __future__ import annotations

import click

from kwhatif.cli.common import (
    cluster_option, color_option, config_option, detail_kept, emit_simulation, examples, exit_code, html_output_option,
    keys_to_place, load_inputs, namespace_option, no_headers_option, node_detail_option, now_option, output_option, placing, profiles,
    quiet_option, replicas_option, run, sample_option, strict_option, use_color, validate_option,
)
from kwhatif.cli.progress import Progress
from kwhatif.cli.whatif import whatif_options
from kwhatif.engine import simulate


@whatif_options
@click.command(epilog=examples(
    "kwhatif schedule -c samples/cluster.yaml",
    "kwhatif schedule -c samples/cluster.yaml --config samples/bin-packing.config.yaml",
    "kwhatif schedule -c samples/cluster.yaml -o json --no-node-detail",
))
@cluster_option
@html_output_option
@now_option
@quiet_option
@config_option
@sample_option
@strict_option
@validate_option
@node_detail_option
@no_headers_option
@color_option
def schedule(clusters: tuple[str, ...], output: str, now: str | None, quiet: bool, config_file: str | None,
             sample: bool, strict: bool = False, validate: str = "strict", node_detail: bool = True,
             no_headers: bool = False, color: str = "auto") -> None:
    """Schedule every pending pod of the cluster in queue order (--validate: unknown fields of an
    --add-node template); exit 1 when one stays pending."""
    def action() -> int:
        inputs = load_inputs(clusters, [config_file], now, quiet, strict)
        sim = simulate(inputs.cluster, inputs.now, profiles=profiles(inputs.config), sample=sample,
                       progress=Progress("scheduling", quiet), for_the_run=True,
                       node_detail=detail_kept(output, node_detail))
        inputs.finish(sim.warnings)
        emit_simulation(sim, output, node_detail, headers=not no_headers, color=use_color(color))
        return exit_code(sim)
    run(action)


@whatif_options
@click.command(epilog=examples(
    "kwhatif place samples/pods/ -c samples/cluster.yaml",
    "kwhatif place samples/pods/critical.yaml -c samples/cluster.yaml --no-preemption",
    "kwhatif place -R -f samples/pods/ -c samples/cluster.yaml -o=yaml",
))
@click.argument("pod_files", nargs=-1)
@click.option("-f", "--filename", "filenames", multiple=True, metavar="PATH",
              help="Pods or workloads to place, as kubectl takes them (repeatable; the same as POD_FILES).")
@click.option("-R", "--recursive", is_flag=True, expose_value=False,
              help="Accepted for kubectl's sake: folders are always read recursively.")
@namespace_option
@cluster_option
@output_option
@now_option
@quiet_option
@config_option
@click.option("--no-preemption", is_flag=True,
              help="Turn DefaultPreemption off: would the pods fit without evicting anyone?")
@strict_option
@validate_option
@replicas_option
@sample_option
@node_detail_option
@no_headers_option
@color_option
def place(pod_files: tuple[str, ...], filenames: tuple[str, ...], namespace: str | None, clusters: tuple[str, ...],
          output: str, now: str | None, quiet: bool, config_file: str | None, no_preemption: bool, strict: bool = False,
          validate: str = "strict", replicas_mode: str = "spec", sample: bool = False, node_detail: bool = True,
          no_headers: bool = False, color: str = "auto") -> None:
    """Add these pods (or the pods of these workloads: POD_FILES and -f) as pending and schedule
    them (with the cluster's own pending pods); exit 1 when one of them (not of the cluster's)
    stays pending or is refused."""
    if not pod_files and not filenames:
        raise click.UsageError("no pods to place: give POD_FILES or -f/--filename")

    def action() -> int:
        inputs = load_inputs(clusters, [config_file], now, quiet, strict)
        cluster, pods, _ = placing((*pod_files, *filenames), inputs, namespace, validate, replicas_mode)
        sim = simulate(cluster, inputs.now, new_pods=pods, profiles=profiles(inputs.config, no_preemption),
                       sample=sample, progress=Progress("scheduling", quiet), for_the_run=True,
                       node_detail=detail_kept(output, node_detail))
        inputs.finish(sim.warnings)
        placed = keys_to_place(cluster, inputs, pods)
        emit_simulation(sim, output, node_detail, headers=not no_headers, color=use_color(color), only=placed)
        return exit_code(sim, placed)
    run(action)
