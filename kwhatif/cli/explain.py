"""`kwhatif explain`: why one pod lands where it does, or stays pending."""

from __future__ import annotations

import shutil
from collections.abc import Sequence

import click
from click.shell_completion import CompletionItem

from kwhatif.cli.common import (
    cluster_option, config_option, emit, examples, html_output_option, load_inputs, now_option, placing, profiles,
    quiet_option, replicas_option, run, strict_option, validate_option,
)
from kwhatif.check.targets import kubectl_ref, pod_for_workload, workload_ref
from kwhatif.cli.exit_codes import Exit
from kwhatif.api.objects import Pod
from kwhatif.cli.whatif import applied_scenario, whatif_options, with_whatif
from kwhatif.errors import InputError
from kwhatif.explain.run import explain_pod
from kwhatif.framework.scheduler import Outcome
from kwhatif.load.cluster import load_cluster
from kwhatif.render.results import explained_pod_data
from kwhatif.render.explain import explanation_summary
from kwhatif.render.table import explanation_table, node_tables
from kwhatif.render.writers import writer


def complete_pods(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Tab completion of POD_REF: the pods of the -c snapshot given before it (nothing when the
    snapshot cannot be read: completion never prints an error)."""
    clusters = ctx.params.get("clusters") or ()
    try:
        cluster = load_cluster(list(clusters)) if clusters else None
    except InputError:
        return []
    keys = sorted({p.key for p in cluster.pods}) if cluster is not None else []
    return [CompletionItem(key) for key in keys if key.startswith(incomplete)]


@whatif_options
@click.command(name="explain", epilog=examples(
    "kwhatif explain shop/checkout-7d9f8-pending -c samples/cluster.yaml",
    "kwhatif explain shop/checkout-7d9f8-pending -c samples/cluster.yaml --node worker-b2",
    "kwhatif explain deploy/shop/checkout -c samples/cluster.yaml",
    "kwhatif explain shop/web -f samples/pods/web.yaml -c samples/cluster.yaml -o json",
))
@click.argument("pod_ref", shell_complete=complete_pods)
@cluster_option
@click.option("-n", "--namespace", metavar="NAMESPACE",
              help="The namespace of a POD_REF given without one (default: default), and of -f manifests that "
                   "name none.")
@click.option("-f", "--pod-file", "pod_files", multiple=True, help="Pods to place before explaining (repeatable).")
@click.option("--node", "nodes", multiple=True, metavar="NAME",
              help="After the summary, these nodes' verdicts, scores and insight (repeatable).")
@click.option("--all-nodes", is_flag=True, help="Every node's verdict, scores and insight, one line a node (as -o wide).")
@html_output_option
@now_option
@quiet_option
@config_option
@strict_option
@validate_option
@replicas_option
def explain_cmd(pod_ref: str, clusters: tuple[str, ...], namespace: str | None, pod_files: tuple[str, ...],
                nodes: tuple[str, ...], all_nodes: bool, output: str, now: str | None, quiet: bool,
                config_file: str | None, strict: bool = False, validate: str = "strict",
                replicas_mode: str = "spec") -> None:
    """Why a pod NAMESPACE/NAME lands where it does, or stays pending (a bound pod: a re-run of its placement):
    the summary (nodes grouped by what stopped them), or every node with --all-nodes / -o wide.
    KIND/NAMESPACE/NAME (deploy/shop/frontend) explains the workload's first pod that does not fit,
    or its first replica."""
    def action() -> int:
        key = kubectl_ref(pod_ref, namespace)
        inputs = load_inputs(clusters, [config_file], now, quiet, strict)
        cluster, pods, origins = (placing(pod_files, inputs, namespace, validate, replicas_mode) if pod_files
                                  else (inputs.cluster, [], {}))
        workload = workload_ref(key)
        if workload is not None:
            key = pod_for_workload(cluster, inputs.now, pods, workload, profiles(inputs.config)) or ""
            if not key:
                raise InputError(f"{pod_ref}: no pod of this workload in the snapshot (nor among the pods to place)")
        done = explain_pod(cluster, inputs.now, key, pods, profiles(inputs.config))
        if done is None:
            raise InputError(f"{key}: no such pod in the snapshot (nor among the pods to place)"
                             + (_removed_by_whatif(key) or _elsewhere(key, [*cluster.pods, *pods])))
        inputs.finish(done.sim.warnings)
        unknown = sorted(set(nodes) - set(done.sim.snapshot.by_name))
        if unknown:
            raise InputError(f"--node {unknown[0]}: no such node in the cluster")
        exp = done.explanation
        if key in origins:  # a pod a workload of the files makes: the fixes go to its template
            exp.suggestions = [s.on_template(*origins[key]) for s in exp.suggestions]
        if output == "wide" or (output == "table" and all_nodes):
            emit(explanation_table(exp))
        elif output == "table":
            page = explanation_summary(exp, shutil.get_terminal_size((100, 24)).columns, running_on=done.running_on,
                                       node_hint=not nodes)
            emit(page + ("\n" + node_tables(exp, frozenset(nodes)) if nodes else ""))
        else:
            emit(writer(output)(with_whatif(explained_pod_data(done.sim, exp, done.running_on))))
        return Exit.ALL_PLACED if done.result.outcome == Outcome.BOUND else Exit.NOT_ALL_PLACED
    run(action)


def _removed_by_whatif(key: str) -> str:
    """The what-if operation that took the pod away, and the pod its controller made in its place."""
    scenario = applied_scenario()
    for applied in scenario.applied if scenario is not None else []:
        if key in applied.removed:
            base = key.rsplit("-", 1)[0]  # a generated name's `<owner>-`: its controller's new pods share it
            made = [c for c in applied.created if c.rsplit("-", 1)[0] == base]
            return f"; {applied.operation.text} removed it" + (
                f"; its controller recreated it as {' or '.join(made)}: explain that" if made else "")
    return ""


def _elsewhere(key: str, pods: Sequence[Pod]) -> str:
    """Where a pod of that name is, when the namespace was the miss (kubectl's commonest slip)."""
    name = key.rsplit("/", 1)[-1]
    found = sorted({p.namespace for p in pods if p.name == name})
    return f"; a pod named {name} is in namespace(s) {', '.join(found)} (give NAMESPACE/NAME or -n)" if found else ""

