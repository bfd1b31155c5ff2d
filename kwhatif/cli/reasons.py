"""`kwhatif reasons [TEXT]`: every reason kube-scheduler can give, what it means, how to fix it."""

from __future__ import annotations

import shutil
from functools import partial

import click

from kwhatif.cli.common import DATA_FORMATS, emit, examples, no_headers_option, run
from kwhatif.cli.exit_codes import Exit
from kwhatif.errors import InputError
from kwhatif.explain.reasons import CATALOGUE, lookup
from kwhatif.render.reasons import reasons_data, reasons_table
from kwhatif.render.writers import writer


@click.command(epilog=examples(
    "kwhatif reasons",
    'kwhatif reasons "Insufficient cpu"',
))
@click.argument("text", required=False)
@click.option("-o", "--output", type=click.Choice(DATA_FORMATS), default="table", show_default=True)
@no_headers_option
def reasons(text: str | None, output: str, no_headers: bool) -> None:
    """The catalogue of reasons; with TEXT (a reason as printed, or a word of it), the matching
    entries with what they mean and how to fix them."""
    def action() -> int:
        if text is not None and not text.strip():
            raise InputError("an empty TEXT matches nothing: give a reason as printed, or a word of it (kwhatif reasons "
                             "lists them all)")
        found = list(CATALOGUE) if text is None else lookup(text)
        if not found:
            raise InputError(f"no reason matches {text!r} (kwhatif reasons lists them all)")
        width = shutil.get_terminal_size((100, 24)).columns
        table = partial(reasons_table, width=width, detail=text is not None, headers=not no_headers)
        emit(writer(output, table)(reasons_data(found)))
        return Exit.ALL_PLACED
    run(action)
