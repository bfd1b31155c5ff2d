"""`kwhatif` / `kubectl whatif`: schedule, place, explain."""

from __future__ import annotations

import re
import sys
from dataclasses import asdict
from datetime import datetime, timezone
from typing import Any, Callable, Sequence

import click

from kwhatif import __version__
from kwhatif.cli.exit_codes import Exit
from kwhatif.cli.progress import Progress
from kwhatif.config.profile import default_profile, without_plugin
from kwhatif.config.scheduler_config import ConfigError, SchedulerConfig, default_scheduler_config, load_scheduler_config
from kwhatif.engine import Simulation, simulate
from kwhatif.errors import InputError
from kwhatif.explain.pod import explain
from kwhatif.framework.scheduler import Outcome
from kwhatif.load.cluster import load_cluster, load_objects
from kwhatif.memory import keep_for_the_run
from kwhatif.snapshot.cluster import Cluster
from kwhatif.api.objects import Pod
from kwhatif.render.config import config_data, config_table
from kwhatif.render.results import pod_result_data, simulation_data, simulation_head
from kwhatif.render.table import explanation_table, results_table
from kwhatif.render.writers import to_json, to_yaml, write_json_streamed

FORMATS = ("table", "wide", "json", "yaml")


_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


def _now(value: str | None) -> str:
    """The simulation clock: RFC3339 with a zone offset (times are compared with the dump's)."""
    if value is None:
        return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    try:
        valid = _RFC3339.match(value) is not None and datetime.fromisoformat(value.upper().replace("Z", "+00:00"))
    except ValueError:
        valid = False
    if not valid:
        raise InputError(f"--now: {value!r} is not an RFC3339 time (e.g. 2026-01-01T00:00:00Z)")
    return value


def _run(action: Callable[[], int]) -> None:
    """Run a command: input errors become one line and exit 2; nothing shows a traceback."""
    try:
        code = action()
    except InputError as err:
        click.echo(f"kwhatif: error: {err}", err=True)
        code = Exit.BAD_INPUT
    except ConfigError as err:  # kube-scheduler's own text, as it would fail at start-up
        click.echo(str(err), err=True)
        code = Exit.BAD_INPUT
    except (KeyboardInterrupt, BrokenPipeError):
        code = Exit.BAD_INPUT
    except Exception as err:  # noqa: BLE001 - the promise is: never a traceback
        click.echo(f"kwhatif: internal error: {type(err).__name__}: {err} (please report this input)", err=True)
        code = Exit.INTERNAL_ERROR
    sys.exit(int(code))


def _strict(warnings: Sequence[str], strict: bool) -> None:
    """--strict: the first warning becomes the one error line (exit 2), counting the others."""
    if strict and warnings:
        more = len(warnings) - 1
        rest = f" (and {more} more warning{'s' if more > 1 else ''})" if more else ""
        raise InputError(f"--strict: {warnings[0]}{rest}")


def _warn(warnings: Sequence[str], quiet: bool) -> None:
    for w in warnings:
        click.echo(f"kwhatif: warning: {w}", err=True)


def _exit_code(sim: Simulation, keys: set[str] | None = None) -> int:
    relevant = [r for r in sim.results if keys is None or r.pod.key in keys]
    return Exit.ALL_PLACED if all(r.outcome == Outcome.BOUND for r in relevant) else Exit.NOT_ALL_PLACED


def _emit_simulation(sim: Simulation, output: str, node_detail: bool) -> None:
    """Tables show one line a pod: the per-node detail is built for JSON and YAML alone, and JSON
    is written one pod at a time (with node detail, 1,000 pods on 5,000 nodes are 1.4 GB)."""
    if output == "json":
        write_json_streamed(simulation_head(sim), "results", (pod_result_data(r, node_detail) for r in sim.results),
                            {"warnings": sim.warnings}, sys.stdout.buffer.write)
        sys.stdout.buffer.flush()
    else:
        _emit(simulation_data(sim, node_detail=node_detail and output == "yaml"), output)


def _emit(data: dict[str, Any], output: str) -> None:
    if output == "json":
        click.echo(to_json(data), nl=False)
    elif output == "yaml":
        click.echo(to_yaml(data), nl=False)
    else:
        click.echo(results_table(data, wide=output == "wide"), nl=False)


cluster_option = click.option("-c", "--cluster", "clusters", multiple=True, required=True,
                              help="Cluster dump or manifests: file, folder or - for stdin (repeatable).")
output_option = click.option("-o", "--output", type=click.Choice(FORMATS), default="table", show_default=True)
node_detail_option = click.option(
    "--node-detail/--no-node-detail", default=True, show_default=True,
    help="JSON/YAML: each pod's feasible nodes, per-node filter results and per-node scores (on thousands "
         "of nodes they are most of the output; the table never shows them).")
now_option = click.option("--now", help="Simulation clock, RFC3339 (default: the current time).")
quiet_option = click.option("-q", "--quiet", is_flag=True, help="No progress or warning output.")
strict_option = click.option("--strict", is_flag=True,
                             help="Treat every warning (unknown fields, duplicates, pods bound to missing nodes...) "
                                  "as an input error: exit 2.")
config_option = click.option("--config", "config_file", metavar="FILE",
                             help="KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) as kube-scheduler's "
                                  "--config; invalid files are refused with kube-scheduler's error.")


def _scheduler_config(config_file: str | None) -> SchedulerConfig | None:
    """The --config file, decoded, defaulted and validated (ConfigError otherwise)."""
    return load_scheduler_config(config_file) if config_file else None


def _config_warnings(config: SchedulerConfig | None) -> list[str]:
    return list(config.warnings) if config else []


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kwhatif")
def main() -> None:
    """What-if analysis for Kubernetes scheduling, faithful to kube-scheduler v1.34.1."""


sample_option = click.option(
    "--sample-like-scheduler", "sample", is_flag=True,
    help="Examine only as many nodes as kube-scheduler would (percentageOfNodesToScore, adaptive by "
         "default, with its rotating start): results may then differ from the full scan, as in a real cluster.")


@main.command()
@cluster_option
@output_option
@now_option
@quiet_option
@config_option
@sample_option
@strict_option
@node_detail_option
def schedule(clusters: tuple[str, ...], output: str, now: str | None, quiet: bool, config_file: str | None,
             sample: bool, strict: bool = False, node_detail: bool = True) -> None:
    """Schedule every pending pod of the cluster in queue order."""
    def action() -> int:
        config = _scheduler_config(config_file)
        cluster = _load_cluster(clusters, quiet)
        _strict(_config_warnings(config) + cluster.warnings, strict)
        sim = simulate(cluster, _now(now), profiles=config.profiles if config else None, sample=sample,
                       progress=Progress("scheduling", quiet))
        _strict(sim.warnings, strict)
        _warn([] if quiet else _config_warnings(config) + sim.warnings, quiet)
        _emit_simulation(sim, output, node_detail)
        return _exit_code(sim)
    _run(action)


def _load_cluster(clusters: Sequence[str], quiet: bool) -> Cluster:
    """The cluster, which lives for the whole run (see `kwhatif.memory`)."""
    cluster = load_cluster(clusters, progress=Progress("loading objects", quiet))
    keep_for_the_run()
    return cluster


def _read_pods(paths: Sequence[str], strict: bool = False) -> list[Pod]:
    """Pods to place are hand-written manifests: validated in full against the schemas, unknown
    fields warned about as kubectl does."""
    objects, warnings = load_objects(paths, full_validation=True)
    _strict(warnings, strict)
    _warn(warnings, False)
    pods = [o for o in objects if isinstance(o, Pod)]
    if not pods:
        raise InputError(f"no Pod objects in {', '.join(paths)}")
    return pods


@main.command()
@click.argument("pod_files", nargs=-1, required=True)
@cluster_option
@output_option
@now_option
@quiet_option
@config_option
@click.option("--no-preemption", is_flag=True,
              help="Turn DefaultPreemption off: would the pods fit without evicting anyone?")
@strict_option
@sample_option
@node_detail_option
def place(pod_files: tuple[str, ...], clusters: tuple[str, ...], output: str, now: str | None, quiet: bool,
          config_file: str | None, no_preemption: bool, strict: bool = False, sample: bool = False,
          node_detail: bool = True) -> None:
    """Add these pods as pending and schedule them (with the cluster's own pending pods)."""
    def action() -> int:
        config = _scheduler_config(config_file)
        cluster = _load_cluster(clusters, quiet)
        _strict(_config_warnings(config) + cluster.warnings, strict)
        pods = _read_pods(pod_files, strict)
        profiles = list(config.profiles) if config else [default_profile()]
        if no_preemption:
            profiles = [without_plugin(p, "DefaultPreemption") for p in profiles]
        sim = simulate(cluster, _now(now), new_pods=pods, profiles=profiles, sample=sample,
                       progress=Progress("scheduling", quiet))
        _strict(sim.warnings, strict)
        _warn([] if quiet else _config_warnings(config) + sim.warnings, quiet)
        _emit_simulation(sim, output, node_detail)
        return _exit_code(sim, {p.key for p in pods})
    _run(action)


@main.command(name="explain")
@click.argument("pod_ref")
@cluster_option
@click.option("-f", "--pod-file", "pod_files", multiple=True, help="Pods to place before explaining (repeatable).")
@output_option
@now_option
@quiet_option
@config_option
@strict_option
def explain_cmd(pod_ref: str, clusters: tuple[str, ...], pod_files: tuple[str, ...], output: str,
                now: str | None, quiet: bool, config_file: str | None, strict: bool = False) -> None:
    """Why a pending (or just placed) pod NAMESPACE/NAME lands where it does, or stays pending."""
    def action() -> int:
        key = pod_ref if "/" in pod_ref else f"default/{pod_ref}"
        config = _scheduler_config(config_file)
        cluster = _load_cluster(clusters, quiet)
        _strict(_config_warnings(config) + cluster.warnings, strict)
        pods = _read_pods(pod_files, strict) if pod_files else []
        sim = simulate(cluster, _now(now), new_pods=pods, explain=frozenset({key}),
                       profiles=config.profiles if config else None)
        _strict(sim.warnings, strict)
        _warn([] if quiet else _config_warnings(config) + sim.warnings, quiet)
        result = next((r for r in sim.results if r.pod.key == key), None)
        if result is None:
            raise InputError(f"{key}: not a pending pod of the snapshot (nor of the pods to place)")
        exp = explain(result, [n.name for n in sim.snapshot.node_infos])
        if output in ("json", "yaml"):
            data = next(d for d in simulation_data(sim)["results"] if d["pod"] == key)
            data["explanation"] = {"attempts": [asdict(a) for a in exp.attempts], "preemption": exp.preemption}
            click.echo(to_json(data) if output == "json" else to_yaml(data), nl=False)
        else:
            click.echo(explanation_table(exp), nl=False)
        return Exit.ALL_PLACED if result.outcome == Outcome.BOUND else Exit.NOT_ALL_PLACED
    _run(action)


@main.group(name="config")
def config_group() -> None:
    """The scheduler configuration kwhatif schedules with."""


@config_group.command(name="show")
@config_option
@click.option("-o", "--output", type=click.Choice(("table", "json", "yaml")), default="table", show_default=True)
def config_show(config_file: str | None, output: str) -> None:
    """The effective profiles: plugins per extension point in order, score weights, plugin
    arguments (kube-scheduler's defaults without --config)."""
    def action() -> int:
        config = _scheduler_config(config_file) or default_scheduler_config()
        _warn(config.warnings, False)
        data = config_data(config)
        if output == "json":
            click.echo(to_json(data), nl=False)
        elif output == "yaml":
            click.echo(to_yaml(data), nl=False)
        else:
            click.echo(config_table(config), nl=False)
        return Exit.ALL_PLACED
    _run(action)


# Commands defined in their own modules register themselves on `main`.
from kwhatif.cli import compare as _compare  # noqa: E402,F401
from kwhatif.cli import check as _check  # noqa: E402,F401
