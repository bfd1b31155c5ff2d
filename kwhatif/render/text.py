"""Text for a terminal: kwhatif's own sentences wrapped to its width."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence


# A taint as kube-scheduler writes it, `{key: value}` — the value may be empty:
# `{node-role.kubernetes.io/control-plane: }` —, with what it is glued to (`},`). Broken at its
# space, a line ends in `control-plane:` and the next starts with `}`: text searched for or copied
# from the page no longer matches the event.
_TAINT = re.compile(r"\S*\{[^{}\s]*: [^{}\s]*\}\S*")
_UNBROKEN = "\x00"  # stands for a taint's space while textwrap looks for breaks: never in a message


def wrap(text: str, width: int, indent: str, first: str = "", hanging: str | None = None) -> list[str]:
    """`text` wrapped to the terminal; continuation lines indented by `hanging` (default: two
    more than the first). Never inside a taint's `{key: value}` that fits a line: one longer than
    a line (a 40-column table cell) breaks at its space rather than run past the edge."""
    width = max(width, 40)
    hanging = indent + "  " if hanging is None else hanging
    room = width - max(len(indent), len(hanging))
    kept = first + text
    if "{" in kept:  # most cells hold no taint: no regex pass over the wide table's 150,000 rows
        kept = _TAINT.sub(lambda m: m.group().replace(" ", _UNBROKEN) if len(m.group()) <= room else m.group(), kept)
    lines = textwrap.wrap(kept, width=width, initial_indent=indent, subsequent_indent=hanging,
                          break_long_words=False, break_on_hyphens=False)
    return [line.replace(_UNBROKEN, " ") for line in lines]


# `file#doc:line` (`.items[i]` too): where a warning was found, which differs between the
# warnings of one kind of problem.
_WHERE = re.compile(r"\S+#\d+(?:\.items\[\d+\])?(?::\d+)?")
_OBJECT = re.compile(r"^[A-Z][A-Za-z]*/(?:[^/:\s]+/)?[^/:\s]+: ")


def grouped_warnings(warnings: Sequence[str], shown: int = 1) -> list[str]:
    """One line a kind of problem: warnings that say the same thing of other objects or places
    (a dump with 300 duplicated pods) become the first one and a count, in order of first
    appearance. Where and of what is left out of the comparison, nothing else."""
    groups: dict[str, list[str]] = {}
    for warning in warnings:
        groups.setdefault(_problem(warning), []).append(warning)
    out: list[str] = []
    for same in groups.values():
        out += same[:shown]
        if len(same) > shown:
            out[-1] += f" (and {len(same) - shown} more like it)"
    return out


def _problem(warning: str) -> str:
    rest = _WHERE.sub("#", warning)
    rest = rest.removeprefix("#: ")
    return _OBJECT.sub("", rest, count=1)
