"""`kwhatif snapshot -o FILE`: the live cluster, read-only through the user's kubectl, into one
`kind: List` file that every `-c` reads (gzip-compressed when FILE ends in `.gz`)."""

from __future__ import annotations

import click

from kwhatif.cli.common import captured, examples, kubectl_options, quiet_option, run
from kwhatif.cli.exit_codes import Exit
from kwhatif.cli.prepare import prepare_cmd
from kwhatif.live.capture import write_snapshot
from kwhatif.live.kubectl import Kubectl, find_kubectl


@click.group("snapshot", invoke_without_command=True, epilog=examples(
    "kwhatif snapshot -o cluster.json.gz",
    "kwhatif snapshot -o cluster.json --context prod-eu --kubeconfig ~/.kube/config",
    "kwhatif explain shop/checkout-7d9f8-pending --live",
    where="against your kubectl's cluster; read-only",
))
@click.option("-o", "--output", "output", metavar="FILE",
              help="Where to write the snapshot (JSON `kind: List`; gzip-compressed when FILE ends in .gz; "
                   "- for standard output).")
@click.option("--keep-all", is_flag=True,
              help="Keep what scheduling never reads too, as it is (container env, command, args, probes, "
                   "managedFields, every annotation). Secrets and ConfigMaps are never captured.")
@kubectl_options()
@quiet_option
@click.pass_context
def snapshot_cmd(ctx: click.Context, output: str | None, keep_all: bool, quiet: bool, context: str | None,
                 kubeconfig: str | None) -> None:
    """Capture the cluster kwhatif needs through your kubectl (`kubectl get ... -o json`, read-only).

    By default only what scheduling reads is kept: snapshots end up in CI artifacts and pull
    requests, so probes, lifecycle hooks, managedFields and annotations the scheduler never reads
    are dropped, and container env values, envFrom, commands and args (and pod annotations) are
    kept only as sha256 digests (`check` tells a template changed by them); Secrets and
    ConfigMaps are never read.

    `kwhatif snapshot prepare DUMP -o FILE.kws` instead writes a dump, loaded and checked once,
    that every -c loads in a fraction of the time."""
    if ctx.invoked_subcommand is not None:
        return
    if output is None:
        raise click.UsageError("Missing option '-o' / '--output'.")
    target = output

    def action() -> int:
        kubectl = Kubectl(find_kubectl(), context, kubeconfig)
        taken = captured(kubectl, keep_all, quiet)
        write_snapshot(taken, target)
        if not quiet:
            click.echo(f"kwhatif: wrote {len(taken.items)} objects to {'standard output' if target == '-' else target}",
                       err=True)
        return Exit.ALL_PLACED
    run(action)


snapshot_cmd.add_command(prepare_cmd)
