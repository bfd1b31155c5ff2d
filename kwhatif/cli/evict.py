"""`kwhatif evict`: which pods the kubelet evicts from a node under pressure, and where they go."""

from __future__ import annotations

from functools import partial

import click

from kwhatif.cli.common import (
    DATA_FORMATS, cluster_option, color_option, emit, examples, load_inputs, no_headers_option, now_option,
    quiet_option, run, strict_option, use_color,
)
from kwhatif.cli.exit_codes import Exit
from kwhatif.evict import SIGNALS, plan_eviction, read_usage
from kwhatif.api.quantity import parse_quantity, value
from kwhatif.errors import InputError
from kwhatif.render.evict import eviction_table
from kwhatif.render.writers import writer


def quantity(option: str, text: str | None, positive: bool = False) -> int | None:
    """An amount of the signal's resource: never negative (the kubelet's are unsigned), and more
    than zero where `positive`."""
    if text is None:
        return None
    try:
        amount = value(parse_quantity(text))
    except (ValueError, InputError):
        raise InputError(f"{option} {text}: not a quantity") from None
    if positive and amount <= 0:
        raise InputError(f"{option} {text}: must be positive")
    if amount < 0:
        raise InputError(f"{option} {text}: must not be negative")
    return amount


@click.command(name="evict", epilog=examples(
    "kwhatif evict worker-b2 -c samples/cluster.yaml --usage samples/top-worker-b2.txt",
    "kwhatif evict worker-b2 -c samples/cluster.yaml --usage samples/top-worker-b2.txt --available 80Mi -o json",
))
@click.argument("node")
@cluster_option
@click.option("--signal", type=click.Choice(sorted(SIGNALS)), default="memory.available", show_default=True)
@click.option("--usage", "usage_file", required=True, metavar="FILE",
              help="kubectl top pods -A --no-headers output, metrics-server JSON, or a kubelet stats summary (- for "
                   "stdin).")
@click.option("--threshold", metavar="QUANTITY|N%",
              help="The hard threshold (kubelet defaults: memory.available<100Mi, nodefs.available<10%).")
@click.option("--available", metavar="QUANTITY", help="The signal's value now (default: the stats summary's, or "
                                                      "the capacity minus the pods' usage).")
@click.option("--capacity", metavar="QUANTITY", help="The node's capacity (default: the stats summary's, else its "
                                                     "allocatable): what a percentage threshold is of, and what the "
                                                     "signal is estimated from without --available.")
@click.option("-o", "--output", type=click.Choice(DATA_FORMATS), default="table", show_default=True)
@no_headers_option
@color_option
@now_option
@quiet_option
@strict_option
def evict_cmd(node: str, clusters: tuple[str, ...], signal: str, usage_file: str, threshold: str | None,
              available: str | None, capacity: str | None, output: str, no_headers: bool, color: str,
              now: str | None, quiet: bool, strict: bool = False) -> None:
    """Rank NODE's pods as the kubelet does under node pressure, count how many go before the
    signal is back above its threshold, and schedule the pods their controllers recreate. Exit 1
    when some pod is evicted, else 0."""
    def action() -> int:
        inputs = load_inputs(clusters, [None], now, quiet, strict)
        usage, node_stats = read_usage(usage_file)
        plan = plan_eviction(inputs.cluster, node, signal, usage, node_stats, inputs.now, threshold,
                             quantity("--available", available), quantity("--capacity", capacity, positive=True))
        inputs.finish(plan.warnings)
        table = partial(eviction_table, headers=not no_headers, color=use_color(color))
        emit(writer(output, table)(plan.data()))
        return Exit.NOT_ALL_PLACED if plan.evicted else Exit.ALL_PLACED
    run(action)
