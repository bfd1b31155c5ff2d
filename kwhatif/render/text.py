"""Text for a terminal: kwhatif's own sentences wrapped to its width."""

from __future__ import annotations

import textwrap


def wrap(text: str, width: int, indent: str, first: str = "", hanging: str | None = None) -> list[str]:
    """`text` wrapped to the terminal; continuation lines indented by `hanging` (default: two
    more than the first)."""
    return textwrap.wrap(first + text, width=max(width, 40), initial_indent=indent,
                         subsequent_indent=indent + "  " if hanging is None else hanging,
                         break_long_words=False, break_on_hyphens=False)
