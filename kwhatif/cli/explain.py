"""`kwhatif explain`: why one pod lands where it does, or stays pending."""

from __future__ import annotations

import shutil

import click

from kwhatif.cli.common import (
    cluster_option, config_option, emit, html_output_option, load_inputs, now_option, profiles,
    quiet_option, read_pods, run, strict_option,
)
from kwhatif.cli.exit_codes import Exit
from kwhatif.cli.whatif import whatif_options, with_whatif
from kwhatif.errors import InputError
from kwhatif.explain.run import explain_pod
from kwhatif.framework.scheduler import Outcome
from kwhatif.render.results import explained_pod_data
from kwhatif.render.explain import explanation_summary
from kwhatif.render.table import explanation_table, node_tables
from kwhatif.render.writers import writer


@whatif_options
@click.command(name="explain")
@click.argument("pod_ref")
@cluster_option
@click.option("-f", "--pod-file", "pod_files", multiple=True, help="Pods to place before explaining (repeatable).")
@click.option("--node", "nodes", multiple=True, metavar="NAME",
              help="After the summary, these nodes' verdicts, scores and insight (repeatable).")
@click.option("--all-nodes", is_flag=True, help="Every node's verdict, scores and insight, one line a node (as -o wide).")
@html_output_option
@now_option
@quiet_option
@config_option
@strict_option
def explain_cmd(pod_ref: str, clusters: tuple[str, ...], pod_files: tuple[str, ...], nodes: tuple[str, ...],
                all_nodes: bool, output: str, now: str | None, quiet: bool, config_file: str | None,
                strict: bool = False) -> None:
    """Why a pod NAMESPACE/NAME lands where it does, or stays pending (a bound pod: a re-run of its placement):
    the summary (nodes grouped by what stopped them), or every node with --all-nodes / -o wide."""
    def action() -> int:
        key = pod_ref if "/" in pod_ref else f"default/{pod_ref}"
        inputs = load_inputs(clusters, [config_file], now, quiet, strict)
        pods = read_pods(pod_files, inputs.warnings) if pod_files else []
        done = explain_pod(inputs.cluster, inputs.now, key, pods, profiles(inputs.config))
        if done is None:
            raise InputError(f"{key}: no such pod in the snapshot (nor among the pods to place)")
        inputs.finish(done.sim.warnings)
        unknown = sorted(set(nodes) - set(done.sim.snapshot.by_name))
        if unknown:
            raise InputError(f"--node {unknown[0]}: no such node in the cluster")
        exp = done.explanation
        if output == "wide" or (output == "table" and all_nodes):
            emit(explanation_table(exp))
        elif output == "table":
            page = explanation_summary(exp, shutil.get_terminal_size((100, 24)).columns, rerun=done.rerun)
            emit(page + ("\n" + node_tables(exp, frozenset(nodes)) if nodes else ""))
        else:
            emit(writer(output)(with_whatif(explained_pod_data(done.sim, exp))))
        return Exit.ALL_PLACED if done.result.outcome == Outcome.BOUND else Exit.NOT_ALL_PLACED
    run(action)
