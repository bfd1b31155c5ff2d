"""`kwhatif snapshot prepare DUMP... -o FILE.kws`: load, check and write a cluster once, as a
prepared snapshot every `-c` accepts (`kwhatif.load.prepared`).

`kwhatif snapshot` (kwhatif/cli/snapshot.py, the live capture) holds it as its subcommand."""

from __future__ import annotations

import click

from kwhatif.cli.common import Warnings, examples, quiet_option, run, strict_option
from kwhatif.cli.exit_codes import Exit
from kwhatif.cli.progress import Progress
from kwhatif.engine import built_snapshot
from kwhatif.errors import InputError
from kwhatif.load.cluster import load_cluster
from kwhatif.load.prepared import input_digest, is_prepared, write_prepared
from kwhatif.load.reader import PREPARED_SUFFIX


@click.command(name="prepare", epilog=examples(
    "kwhatif snapshot prepare samples/cluster.yaml -o /tmp/samples.kws",
    "kwhatif snapshot prepare samples/cluster.yaml samples/pods/ -o /tmp/samples-and-pods.kws -q",
))
@click.argument("inputs", nargs=-1, required=True)
@click.option("-o", "--output", "target", required=True, metavar="FILE.kws",
              help="Where to write the prepared snapshot (a .kws file).")
@quiet_option
@strict_option
def prepare_cmd(inputs: tuple[str, ...], target: str, quiet: bool, strict: bool = False) -> None:
    """Read the cluster INPUTS (files, folders: what -c takes) once, check them as every command
    does (their warnings, a node its bound pods overcommit included, said as a run says them), and
    write FILE.kws, which any -c then loads in a fraction of the time. Its header names
    this kwhatif's version and the inputs' sha256; another version refuses it (prepare it again)."""
    def action() -> int:
        if not is_prepared(target):
            raise InputError(f"-o: {target!r}: a prepared snapshot's name ends with {PREPARED_SUFFIX}")
        if any(p == "-" or is_prepared(p) for p in inputs):
            raise InputError("snapshot prepare: the inputs are dump files or folders (not - nor a .kws file)")
        warnings = Warnings(quiet, strict)
        cluster = load_cluster(inputs, progress=Progress("loading objects", quiet))
        warnings.report(built_snapshot(cluster)[1])
        write_prepared(cluster, input_digest(inputs), target)
        if not quiet:
            click.echo(f"kwhatif: wrote {target}: {len(cluster.nodes)} nodes, {len(cluster.pods)} pods", err=True)
        return Exit.ALL_PLACED
    run(action)
