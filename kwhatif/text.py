"""Wording shared by every layer's messages."""

from __future__ import annotations

from collections.abc import Sequence


def listed(items: Sequence[str], limit: int = 3) -> str:
    """`a, b, c` or `a, b, c and 7 more`: a message naming thousands of objects stays one line."""
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def counted(count: int, noun: str) -> str:
    """`1 node`, `3 nodes`: a count with its noun, singular for one."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def markdown_cell(text: str) -> str:
    """A Markdown table cell: on one line, pipes escaped, and `<` as an entity (GitHub renders
    HTML in a cell: a file named `<b>x` would turn the rest of the row bold; `->` stays), and `&`
    as one too (`a&amp;b` would read `a&b`)."""
    return " ".join(text.replace("&", "&amp;").replace("<", "&lt;").replace("|", "\\|").split())
