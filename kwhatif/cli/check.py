"""`kwhatif check` and `kwhatif capacity`: the CI gate (do these workloads fit?) and capacity
answers (how many more copies fit, how many nodes of a template to add)."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from functools import partial

import click

from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import Node
from kwhatif.capacity import capacity, nodes_to_add
from kwhatif.check import CheckResult, parse_headroom, run_check
from kwhatif.cli.common import (
    CHECK_FORMATS, DATA_FORMATS, Warnings, cluster_option, color_option, config_option, detail_kept, emit,
    emit_json_results, examples, load_inputs, namespace_option, no_headers_option, node_detail_option, now_option,
    profiles, quiet_option, replicas_option, run, strict_option, use_color, validate_option,
)
from kwhatif.cli.exit_codes import Exit
from kwhatif.cli.progress import Progress
from kwhatif.cli.whatif import applied_scenario, scaled, whatif_options, with_whatif
from kwhatif.config.profile import ProfileConfig
from kwhatif.explain.run import explain_pod
from kwhatif.errors import InputError
from kwhatif.whatif.ops import like_node, template_node
from kwhatif.render.capacity import add_node_table, capacity_table
from kwhatif.render.check import check_data, check_table, check_tail
from kwhatif.render.html import with_utilisation
from kwhatif.render.writers import writer
from kwhatif.workloads import load_workloads

@whatif_options
@click.command(epilog=examples(
    "kwhatif check samples/pods/ -c samples/cluster.yaml",
    "kwhatif check samples/pods/ -c samples/cluster.yaml --no-evictions -o markdown",
    "kwhatif check samples/pods/web.yaml -c samples/cluster.yaml --headroom cpu=10%,memory=10% --tolerate-zone-loss",
))
@click.argument("workload_files", nargs=-1, required=True)
@namespace_option
@cluster_option
@click.option("-o", "--output", type=click.Choice(CHECK_FORMATS), default="table", show_default=True)
@node_detail_option
@no_headers_option
@color_option
@click.option("--no-evictions", is_flag=True, help="Fail when preemption would evict existing pods.")
@click.option("--headroom", metavar="cpu=10%,memory=15%",
              help="Each node that receives a new pod must keep this fraction of its allocatable free.")
@click.option("--tolerate-node-loss", "node_loss", type=click.IntRange(min=0), default=0, metavar="N",
              help="The workloads must still fit after losing any N nodes (N=1: each node is tried).")
@click.option("--tolerate-zone-loss", "zone_loss", is_flag=True,
              help="The workloads must still fit after losing any one zone (topology.kubernetes.io/zone).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Run the node/zone-loss scenarios on this many cores (each worker holds one scenario: "
                   "~0.6 GB at 5,000 nodes). Default on Linux: one per core, no more than the memory available "
                   "holds, on clusters of 1,000 pods or more (smaller ones run here: workers would cost more than "
                   "they save).")
@replicas_option
@click.option("--rollout/--as-new", "rollout", default=True, show_default=True,
              help="A workload that already runs (its object or its pods are in the snapshot) is updated as its "
                   "controller would, step by step, following its strategy (the default); --as-new adds every "
                   "workload beside what runs.")
@click.option("--suggest", is_flag=True,
              help="table, markdown, json, yaml: for the first 3 new workloads left pending, the first change a "
                   "re-run proves makes their first pending pod fit, that pod alone (as `kwhatif explain` finds "
                   "them: re-runs, ~8 s and 0.5 GB each at 5,000 nodes; policies not re-checked).")
@now_option
@quiet_option
@config_option
@strict_option
@validate_option
def check(workload_files: tuple[str, ...], namespace: str | None, clusters: tuple[str, ...], output: str,
          node_detail: bool, no_headers: bool, color: str, no_evictions: bool, headroom: str | None, node_loss: int,
          zone_loss: bool, jobs: int | None, replicas_mode: str, rollout: bool, suggest: bool, now: str | None,
          quiet: bool, config_file: str | None, strict: bool = False, validate: str = "strict") -> None:
    """Do these workloads fit? Expand WORKLOAD_FILES (files, folders, - for stdin) into the pods
    their controllers would create, schedule them with the cluster's pending pods, and exit 0 when
    every new pod is bound and every policy holds, 1 otherwise, 2 on bad input."""
    def action() -> int:
        limits = parse_headroom(headroom) if headroom is not None else None
        detail = detail_kept(output, node_detail)
        inputs = load_inputs(clusters, [config_file], now, quiet, strict)
        objects, found = load_workloads(workload_files, namespace=namespace, validate=validate)
        objects = scaled(objects)
        inputs.warnings.check(found)
        result = run_check(inputs.cluster, objects, inputs.now, profiles(inputs.config), replicas_mode=replicas_mode,
                           as_new=not rollout, no_evictions=no_evictions,
                           headroom=limits, node_loss=node_loss, zone_loss=zone_loss, warnings=found,
                           progress=Progress("losing nodes: scenarios", quiet), jobs=jobs, node_detail=detail)
        inputs.finish(result.warnings)
        if suggest and output in SUGGESTING:
            suggest_fixes(result, inputs.now, profiles(inputs.config))
        if output == "json":  # streamed, as `schedule -o json`: with node detail, gigabytes at 5,000 nodes
            emit_json_results(result.simulation, detail, check_tail(result))
        else:
            data = with_whatif(check_data(result, detail))
            if output == "html":
                data = with_utilisation(data, result.simulation)
            table = partial(check_table, color=use_color(color), headers=not no_headers,
                            explain_with=explain_arguments(result, replicas_mode, rollout))
            emit(writer(output, table, quiet)(data))
        return Exit.ALL_PLACED if result.ok else Exit.NOT_ALL_PLACED
    run(action)


def explain_arguments(result: CheckResult, replicas_mode: str, rollout: bool) -> list[str] | None:
    """What the `kwhatif explain POD -f FILE...` the check suggests repeats of its options (its
    what-if operations, in order, and --replicas), or None when `explain` cannot make the
    check's queue: it places the files' workloads beside what runs (no rollout of an update),
    unscaled (a --scale of a workload in the files)."""
    done = applied_scenario()
    if done is not None and done.file_scales:
        return None
    if rollout and any(w.change != "new" for w in result.workloads):
        return None
    replicas = ["--replicas", replicas_mode] if replicas_mode != "spec" else []
    return [arg for applied in (done.applied if done is not None else []) for arg in applied.operation.argv] + replicas


SUGGESTING = ("table", "wide", "markdown", "json", "yaml")
"""The outputs that show `--suggest`'s fixes (junit, github, html do not: not worth the re-runs)."""
MAX_FIXES = 3
"""New workloads left pending that get a fix: each costs re-runs (~8 s at 5,000 nodes), and more
failing at once usually share one cause."""


def suggest_fixes(result: CheckResult, now: str, chosen: Sequence[ProfileConfig] | None) -> None:
    """The first MAX_FIXES new workloads left pending get the first verified suggestion for their
    first pending pod, explained on the check's own first run (the cluster's queue and the new
    workloads' pods; an update's rollout says where it got stuck instead)."""
    run = result.run
    if run is None or run.cluster is None:
        return
    stuck = [w for w in result.workloads if w.change == "new" and w.first_pending is not None]
    for workload in stuck[:MAX_FIXES]:
        key = workload.first_pending
        done = explain_pod(run.cluster, now, key, run.fresh, chosen) if key is not None else None
        if done is not None and done.explanation.suggestions:
            first = done.explanation.suggestions[0]
            if workload.kind != "Pod":  # the fix goes to the pod template of the workload in the files
                first = first.on_template(workload.kind, workload.namespace, workload.name, say=False)
            workload.suggestion = {"pod": key, **first.data()}


def _template_node(spec: str, warnings: Warnings, cluster: Cluster, validate: str) -> Node:
    """capacity's --add-node: a Node manifest, or `like:NODE` (a node of the cluster as the
    template, as the what-if operation takes it); the count is what capacity finds."""
    if not os.path.exists(spec) and re.fullmatch(r".+:\d+", spec):
        raise InputError(f"--add-node {spec}: capacity finds how many nodes to add itself: give TEMPLATE.yaml or "
                         "like:NODE without a count (a fixed count of added nodes is the what-if operation: "
                         "--whatif FILE with `- add-node: ...`)")
    if spec.startswith("like:"):
        return like_node(cluster, spec)
    found: list[str] = []
    node = template_node(spec, found, validate)
    warnings.report(found)
    return node


@whatif_options
@click.command(name="capacity", epilog=examples(
    "kwhatif capacity samples/pods/web.yaml -c samples/cluster.yaml",
    "kwhatif capacity samples/pods/gpu-job.yaml -c samples/cluster.yaml --allow-preemption -o json",
))
@click.argument("workload_files", nargs=-1, required=True)
@namespace_option
@cluster_option
@click.option("-o", "--output", type=click.Choice(DATA_FORMATS), default="table", show_default=True)
@click.option("--max", "maximum", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Stop after this many copies beyond the workload's own replicas (or, with --add-node, this "
                   "many added nodes).")
@click.option("--add-node", "add_node", metavar="TEMPLATE.yaml|like:NODE",
              help="Instead: the smallest number of nodes like this Node (a manifest, or like:NODE, a node of "
                   "the cluster) that must be added for every pod of the workloads to fit.")
@click.option("--allow-preemption", is_flag=True,
              help="Copies may evict lower-priority pods (DefaultPreemption on); by default they may not, as "
                   "cluster-capacity counts.")
@replicas_option
@now_option
@quiet_option
@config_option
@strict_option
@validate_option
def capacity_cmd(workload_files: tuple[str, ...], namespace: str | None, clusters: tuple[str, ...], output: str, maximum: int,
                 add_node: str | None, allow_preemption: bool, replicas_mode: str, now: str | None, quiet: bool,
                 config_file: str | None, strict: bool = False, validate: str = "strict") -> None:
    """For each workload (or pod) of WORKLOAD_FILES: how many more copies of its pod fit beyond its
    replicas (placed one at a time until one does not, the other workloads placed first), where
    they land and why the next one does not (exit 1 when a workload's own replicas do not all
    fit). With --add-node: how many such nodes to add for the workloads to fit (exit 1 when even
    --max nodes are not enough)."""
    def action() -> int:
        inputs = load_inputs(clusters, [config_file], now, quiet, strict)
        chosen = profiles(inputs.config, no_preemption=not allow_preemption)
        objects, found = load_workloads(workload_files, namespace=namespace, validate=validate)
        objects = scaled(objects)
        inputs.warnings.check(found)
        if add_node:
            template = _template_node(add_node, inputs.warnings, inputs.cluster, validate)
            result = nodes_to_add(inputs.cluster, objects, template, inputs.now, chosen, maximum, replicas_mode)
            data = result.data()
            code = Exit.ALL_PLACED if result.nodes_to_add is not None else Exit.NOT_ALL_PLACED
            table = add_node_table
        else:
            found_capacity = capacity(inputs.cluster, objects, inputs.now, chosen, maximum, replicas_mode)
            data = found_capacity.data()
            fits = all(w.fits for w in found_capacity.workloads)
            code = Exit.ALL_PLACED if fits else Exit.NOT_ALL_PLACED  # some of its own replicas stay pending
            table = capacity_table
        data["warnings"] = found + data["warnings"]  # the files' own warnings, in every format
        inputs.finish(data["warnings"])
        emit(writer(output, table)(with_whatif(data)))
        return code
    run(action)
