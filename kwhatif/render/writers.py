"""The one registry of output formats: `-o NAME` → the writer that turns a command's plain data
into text. Commands look their writer up here (`writer`); which names a command accepts is its
own `click.Choice`, so an unknown name never reaches the registry.

Two paths deliberately go around it:
- `schedule`/`place -o json` (kwhatif.cli.common.emit_simulation) stream the results with
  `write_json_streamed`, one pod at a time, because the whole document with per-node detail can
  run to gigabytes (1,000 pods on 5,000 nodes: 1.4 GB) and must never be held as one string.
- `explain -o table|wide` (kwhatif.cli.explain) prints `explanation_table`, which is drawn from
  the structured `Explanation` rather than from the plain data the other formats get, and keeps
  every message whole, so `table` and `wide` are the same text.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable

from kwhatif.render.github import to_github
from kwhatif.render.html import to_html
from kwhatif.render.json import to_json
from kwhatif.render.junit import to_junit
from kwhatif.render.markdown import to_markdown
from kwhatif.render.yaml import to_yaml

Writer = Callable[[Any], str]

# The formats whose writer is the same for every command's data; `junit`, `markdown` and
# `github` read `check` data; `html` reads schedule's, explain's and check's (render/html). `table` and `wide` are each command's own table (its columns).
WRITERS: dict[str, Writer] = {
    "json": to_json, "yaml": to_yaml, "junit": to_junit, "markdown": to_markdown, "github": to_github,
    "html": to_html,
}


def writer(output: str, table: Callable[..., str] | None = None, quiet: bool = False) -> Writer:
    """The writer of `-o output`: the command's `table` for `table`, the table with whole
    messages on one line for `wide`, else the registered format. `quiet` (`-q`) leaves out the
    warnings a format prints itself (github's `::warning` lines)."""
    if output == "table" and table is not None:
        return table
    if output == "wide" and table is not None:
        return partial(table, wide=True)
    if output == "github" and quiet:
        return partial(to_github, warnings=False)
    return WRITERS[output]
