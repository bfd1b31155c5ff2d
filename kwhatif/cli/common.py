"""What every command shares: its options, the one preamble that loads its inputs, how warnings
and `--strict` are treated, how errors end the run, and how results are written."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import partial
from typing import Any, TypeVar

import click

from kwhatif.api.objects import Pod, RejectedPod
from kwhatif.api.timestamps import parse_rfc3339
from kwhatif.cli.exit_codes import UNWRITABLE, Exit, unwritable
from kwhatif.cli.progress import Progress
from kwhatif.cli.whatif import scenario, with_whatif
from kwhatif.config.profile import ProfileConfig, default_profile, without_plugin
from kwhatif.config.scheduler_config import ConfigError, SchedulerConfig, load_scheduler_config
from kwhatif.engine import Simulation
from kwhatif.errors import InputError
from kwhatif.framework.scheduler import Outcome
from kwhatif.live.capture import Snapshot, capture, write_snapshot
from kwhatif.live.kubectl import Kubectl, find_kubectl
from kwhatif.load.cluster import load_cluster
from kwhatif.load.schema import UNKNOWN_FIELDS
from kwhatif.memory import keep_for_the_run
from kwhatif.render.html import with_utilisation
from kwhatif.render.json import write_json_streamed
from kwhatif.render.results import pod_result_data, simulation_data, simulation_head
from kwhatif.render.text import grouped_warnings
from kwhatif.render.table import results_table
from kwhatif.render.writers import writer
from kwhatif.workloads import Origins, pods_to_place
from kwhatif.workloads.hpa import MODES
from kwhatif.api.cluster import Cluster

SAMPLES_EXAMPLES = "from the repository, on samples/"


def examples(*lines: str, where: str = SAMPLES_EXAMPLES) -> str:
    """A command's `--help` epilog: examples that run on `samples/` from the repository
    (tests/cli/test_help_examples.py runs every one), or `where` they run instead (a live
    cluster); `\\b` keeps click from rewrapping them."""
    return f"Examples ({where}):\n\n\b\n" + "\n".join(f"  {line}" for line in lines)


F = TypeVar("F", bound=Callable[..., Any])

# The -o values each command accepts (click refuses the others before any work).
FORMATS = ("table", "wide", "json", "yaml")
HTML_FORMATS = FORMATS + ("html",)  # schedule, explain and check (render/html)
CHECK_FORMATS = HTML_FORMATS + ("junit", "markdown", "github")
DATA_FORMATS = ("table", "json", "yaml")


def kubectl_options(**extra: Any) -> Callable[[F], F]:
    """kubectl's own --context and --kubeconfig, handed to it as given (`kwhatif.live.kubectl`)."""
    def add(command: F) -> F:
        command = click.option("--kubeconfig", metavar="FILE", help="The kubeconfig file kubectl uses "
                               "(--live, snapshot; default: kubectl's).", **extra)(command)
        return click.option("--context", metavar="NAME", help="The kubeconfig context kubectl reads "
                            "(--live, snapshot; default: its current one).", **extra)(command)
    return add


def _remember(ctx: click.Context, param: click.Parameter, value: object) -> object:
    """--live and its kubectl options are kept aside for `load_inputs`: the commands pass on -c alone."""
    ctx.meta[f"kwhatif.{param.name}"] = value
    return value


def cluster_option(command: F) -> F:
    """-c/--cluster, and --live (with --context, --kubeconfig): every command that reads a cluster
    reads a live one too, captured read-only through kubectl (`kwhatif.live`) on the fly."""
    command = kubectl_options(expose_value=False, callback=_remember)(command)
    command = click.option("--live", is_flag=True, expose_value=False, callback=_remember,
                           help="Read the cluster now through your kubectl (read-only, as `kwhatif snapshot`).")(command)
    return click.option("-c", "--cluster", "clusters", multiple=True,
                        help="Cluster dump or manifests: file, folder, .gz or - for stdin (repeatable).")(command)


namespace_option = click.option("-n", "--namespace", metavar="NAMESPACE",
                                help="The namespace of manifests that name none (kubectl apply -n); one naming "
                                     "another is refused.")
color_option = click.option("--color", "color", type=click.Choice(("auto", "always", "never")), default="auto",
                            show_default=True, help="Colour the outcomes in tables: auto (on a terminal, unless "
                                                    "NO_COLOR is set), always or never.")


def use_color(choice: str) -> bool:
    """`--color` as https://no-color.org asks: auto means a terminal, and NO_COLOR (any value)
    turns auto off; `always` wins over it."""
    if choice != "auto":
        return choice == "always"
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


no_headers_option = click.option("--no-headers", "no_headers", is_flag=True,
                                  help="Tables: the rows alone, without the header and the counts (as kubectl's).")
output_option = click.option("-o", "--output", type=click.Choice(FORMATS), default="table", show_default=True)
html_output_option = click.option("-o", "--output", type=click.Choice(HTML_FORMATS), default="table",
                                  show_default=True)
node_detail_option = click.option(
    "--node-detail/--no-node-detail", default=True, show_default=True,
    help="JSON/YAML: each pod's feasible nodes, per-node filter results and per-node scores (on thousands "
         "of nodes they are most of the output; the table never shows them).")
now_option = click.option("--now", help="Simulation clock, RFC3339 (default: the current time).")
quiet_option = click.option("-q", "--quiet", is_flag=True, help="No progress or warning output.")
strict_option = click.option("--strict", is_flag=True,
                             help="Treat every warning (unknown fields, duplicates, pods bound to missing nodes...) "
                                  "as an input error: exit 2.")
replicas_option = click.option(
    "--replicas", "replicas_mode", type=click.Choice(MODES), default="spec", show_default=True,
    help="Replicas of workloads a HorizontalPodAutoscaler targets: spec (kept within min/max), min or max.")

validate_option = click.option(
    "--validate", type=click.Choice(UNKNOWN_FIELDS), default="strict", show_default=True,
    help="Unknown fields in the manifests to apply, as kubectl apply's --validate: strict refuses them "
         "(exit 2; the API server's strict decoding does), warn warns, ignore drops them silently. The "
         "cluster's own objects (-c) are only ever warned about.")
config_option = click.option("--config", "config_file", metavar="FILE",
                             help="KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) as kube-scheduler's "
                                  "--config; invalid files are refused with kube-scheduler's error.")
sample_option = click.option(
    "--sample-like-scheduler", "sample", is_flag=True,
    help="Examine only as many nodes as kube-scheduler would (percentageOfNodesToScore, adaptive by "
         "default, with its rotating start): results may then differ from the full scan, as in a real cluster.")


def run(action: Callable[[], int]) -> None:
    """Run a command: input errors become one line and exit 2; nothing shows a traceback. The
    output is flushed here, so that a disk too full to take it is told as such (exit 2: no
    verdict was delivered), not at the interpreter's exit or as an internal error."""
    try:
        code = action()
        sys.stdout.flush()
    except InputError as err:
        click.echo(f"kwhatif: error: {err}", err=True)
        code = Exit.BAD_INPUT
    except ConfigError as err:  # kube-scheduler's own text, as it would fail at start-up
        click.echo(str(err), err=True)
        code = Exit.BAD_INPUT
    except KeyboardInterrupt:
        click.echo("kwhatif: interrupted", err=True)
        code = Exit.INTERRUPTED
    except BrokenPipeError:
        code = Exit.BAD_INPUT
    except OSError as err:
        code = unwritable(err) if err.errno in UNWRITABLE else _internal_error(err)
    except Exception as err:  # noqa: BLE001 - the promise is: never a traceback
        code = _internal_error(err)
    sys.exit(int(code))


def _internal_error(err: BaseException) -> Exit:
    click.echo(f"kwhatif: internal error: {type(err).__name__}: {err} (please report this input)", err=True)
    return Exit.INTERNAL_ERROR


def clock(value: str | None) -> str:
    """The simulation clock: RFC3339 with a zone offset (times are compared with the dump's)."""
    if value is None:
        return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    try:
        parse_rfc3339(value)
    except ValueError:
        raise InputError(f"--now: {value!r} is not an RFC3339 time (e.g. 2026-01-01T00:00:00Z)") from None
    return value


@dataclass(frozen=True)
class Warnings:
    """How every command treats warnings: with `--strict` the first one is the run's one error line
    (exit 2, the others counted); otherwise each kind of problem goes to stderr once, as
    `kwhatif: warning: ...` with a count of the objects it concerns too, unless `-q` (every one of
    them stays in the JSON's `warnings`)."""

    quiet: bool = False
    strict: bool = False

    def check(self, warnings: Sequence[str]) -> None:
        """--strict: the first warning becomes the error."""
        if self.strict and warnings:
            more = len(warnings) - 1
            rest = f" (and {more} more warning{'s' if more > 1 else ''})" if more else ""
            raise InputError(f"--strict: {warnings[0]}{rest}")

    def report(self, warnings: Sequence[str]) -> None:
        """Checked against --strict, then printed (unless -q)."""
        self.check(warnings)
        if not self.quiet:
            for w in grouped_warnings(warnings):
                click.echo(f"kwhatif: warning: {w}", err=True)


def scheduler_config(config_file: str | None) -> SchedulerConfig | None:
    """The --config file, decoded, defaulted and validated (ConfigError otherwise)."""
    return load_scheduler_config(config_file) if config_file else None


def _named_config(config_file: str | None, given: int) -> SchedulerConfig | None:
    """`scheduler_config`; of two configurations (diff --against-config), a refused one is named:
    kube-scheduler's text alone would not say which file it is about. One --config gets that
    text alone, byte for byte, as kube-scheduler prints it at start-up: the reference cases
    (config/inv-*) match it exactly, and users search for it."""
    try:
        return scheduler_config(config_file)
    except ConfigError as err:
        if given < 2:
            raise
        raise InputError(f"{config_file}: {err}") from None


def profiles(config: SchedulerConfig | None, no_preemption: bool = False) -> list[ProfileConfig]:
    """The profiles to schedule with: the configuration's, or kube-scheduler's default one;
    `--no-preemption` takes DefaultPreemption out of each."""
    chosen = list(config.profiles) if config else [default_profile()]
    return [without_plugin(p, "DefaultPreemption") for p in chosen] if no_preemption else chosen


@dataclass(frozen=True)
class Inputs:
    """What a command starts from, loaded by `load_inputs` in the one order every command
    follows: the configurations (--config), the clock (--now), the cluster (-c); then the
    configurations' and the cluster's warnings against --strict. They are printed with the run's
    warnings (`finish`), which repeat the cluster's."""

    configs: tuple[SchedulerConfig | None, ...]
    now: str
    cluster: Cluster
    warnings: Warnings

    @property
    def config(self) -> SchedulerConfig | None:
        return self.configs[0]

    @property
    def config_warnings(self) -> list[str]:
        return [w for c in self.configs if c is not None for w in c.warnings]

    def finish(self, run_warnings: Sequence[str]) -> None:
        """The run's warnings against --strict (the configurations' were checked by `load_inputs`),
        then printed with the configurations' (unless -q)."""
        self.warnings.report(self.config_warnings + list(run_warnings))


def load_inputs(clusters: Sequence[str], config_files: Sequence[str | None], now: str | None,
                quiet: bool, strict: bool) -> Inputs:
    """The preamble of every command (see `Inputs`). The cluster lives for the whole run (see
    `kwhatif.memory`)."""
    given = sum(1 for f in config_files if f)
    configs = tuple(_named_config(f, given) for f in config_files)
    when = clock(now)
    with live_cluster(clusters, quiet) as live:
        cluster = scenario(load_cluster([*clusters, *live], progress=Progress("loading objects", quiet),
                                        for_the_run=True), when, profiles(configs[0]) if configs else None)
    keep_for_the_run()  # the loaded cluster is frozen already; this keeps what `scenario` made of it
    inputs = Inputs(configs, when, cluster, Warnings(quiet, strict))
    inputs.warnings.check(inputs.config_warnings + cluster.warnings)
    return inputs


def placing(paths: Sequence[str], inputs: Inputs, namespace: str | None = None,
            validate: str = "strict", replicas_mode: str = "spec") -> tuple[Cluster, list[Pod], Origins]:
    """Pods and workloads to place (`kwhatif.workloads.pods_to_place`): the cluster with what the
    workloads bring along (their warnings among its own, for the run to report), the pods, and the
    workloads that make them;
    `namespace` (-n) for the manifests that name none; `validate` (--validate) what their
    unknown fields are; `replicas_mode` (--replicas) the replicas of the workloads an autoscaler targets."""
    cluster, pods, found, origins = pods_to_place(paths, inputs.cluster, inputs.now, namespace, validate,
                                                  replicas_mode)
    inputs.warnings.check(found)  # --strict refuses them before any scheduling
    cluster.warnings.extend(found)  # the run's: printed once with them, and in -o json's `warnings`
    return cluster, pods, origins


def keys_to_place(cluster: Cluster, inputs: Inputs, pods: Sequence[Pod]) -> set[str]:
    """The pods a command places, as its output lists them and its exit status counts them: those
    of its files, the ones the API server would reject among them."""
    return {p.key for p in pods} | {r.key for r in rejected_to_place(cluster, inputs)}


def rejected_to_place(cluster: Cluster, inputs: Inputs) -> list[RejectedPod]:
    """The pods of the command's files the API server would reject (`placing` adds them to the
    cluster after the snapshot's own): a run compared with another carries them on both sides."""
    return cluster.rejected_pods[len(inputs.cluster.rejected_pods):]


def kind_progress(quiet: bool) -> Callable[[str, int], None]:
    """A line per kind captured, on a terminal (unless -q): a big cluster takes a while."""
    def report(resource: str, count: int) -> None:
        if not quiet and sys.stderr.isatty():
            click.echo(f"kwhatif: captured {resource}: {count}", err=True)
    return report


def captured(kubectl: Kubectl, keep_all: bool, quiet: bool) -> Snapshot:
    """The live cluster through kubectl, with one note naming the kinds the server does not serve
    (unless -q): they are skipped, not an error (no DRA, an older cluster)."""
    snapshot = capture(kubectl, keep_all, on_kind=kind_progress(quiet))
    if snapshot.skipped and not quiet:
        click.echo(f"kwhatif: note: not served by this cluster, skipped: {', '.join(snapshot.skipped)}", err=True)
    return snapshot


@contextmanager
def live_cluster(clusters: Sequence[str], quiet: bool) -> Iterator[list[str]]:
    """With --live, the cluster captured through kubectl into a temporary file, read like any -c
    (and gone once loaded); without it, nothing, and -c is then required."""
    context = click.get_current_context(silent=True)
    meta = context.meta if context is not None else {}
    if not meta.get("kwhatif.live"):
        if meta.get("kwhatif.context") or meta.get("kwhatif.kubeconfig"):
            raise InputError("--context and --kubeconfig tell kubectl where to read: they go with --live")
        if not clusters:
            raise InputError("no cluster given: pass -c/--cluster FILE (repeatable), or --live to read it "
                             "through kubectl")
        yield []
        return
    kubectl = Kubectl(find_kubectl(), meta.get("kwhatif.context"), meta.get("kwhatif.kubeconfig"))
    with tempfile.TemporaryDirectory(prefix="kwhatif-live-") as folder:
        path = os.path.join(folder, "live.json")
        write_snapshot(captured(kubectl, False, quiet), path)
        yield [path]


def cluster_label(clusters: Sequence[str]) -> str:
    """How the run's cluster is named: its -c files, or with --live the cluster kubectl reads
    (its context when given)."""
    if clusters:
        return ", ".join(clusters)
    context = click.get_current_context(silent=True)
    named = context.meta.get("kwhatif.context") if context is not None else None
    return f"the live cluster (context {named})" if named else "the live cluster (kubectl's current context)"


def exit_code(sim: Simulation, keys: set[str] | None = None) -> int:
    """0 when every pod (of `keys`, if given) is bound, else 1."""
    relevant = [r for r in sim.results if keys is None or r.pod.key in keys]
    return Exit.ALL_PLACED if all(r.outcome == Outcome.BOUND for r in relevant) else Exit.NOT_ALL_PLACED


def emit(text: str) -> None:
    """Results to stdout as written: colour is decided by `--color` (`use_color`), never by
    click, which would strip it whenever stdout is not a terminal (`--color always | less -R`)."""
    click.echo(text, nl=False, color=True)


def emit_json_results(sim: Simulation, node_detail: bool, tail: dict[str, Any]) -> None:
    """A run's JSON document, written one pod at a time (`write_json_streamed`): its head, the
    results, then `tail`."""
    records = (pod_result_data(r, node_detail) for r in sim.results)
    write_json_streamed(with_whatif(simulation_head(sim)), "results", records, tail, sys.stdout.buffer.write)
    sys.stdout.buffer.flush()


def detail_kept(output: str, node_detail: bool) -> bool:
    """Whether a run keeps each attempt's per-node detail: only JSON and YAML with `--node-detail`
    show it, and kept while the run goes it is some 300 KB a pod at 5,000 nodes: three zones
    removed from the 5,000-node benchmark dump (106,000 pods to place, 38,278 left pending)
    held 7.8 GB of it."""
    return node_detail and output in ("json", "yaml")


def emit_simulation(sim: Simulation, output: str, node_detail: bool, headers: bool = True,
                    color: bool = False, only: Collection[str] | None = None) -> None:
    """Tables show one line a pod: the per-node detail is built for JSON and YAML alone, and JSON
    is written one pod at a time (with node detail, 1,000 pods on 5,000 nodes are 1.4 GB).
    `headers=False`: the table's rows alone (`--no-headers`); `only`: the pods the table lists
    (`place`: those placed; the rest of the queue is counted)."""
    if output == "json":
        emit_json_results(sim, node_detail, {"warnings": sim.warnings})
    else:
        data = with_whatif(simulation_data(sim, node_detail=node_detail and output == "yaml"))
        if output == "html":
            data = with_utilisation(data, sim)
        emit(writer(output, partial(results_table, headers=headers, color=color, only=only))(data))
