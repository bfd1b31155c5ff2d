"""JSON: the structured results, indented by two (the contract in `schemas/`), whole or streamed."""

from __future__ import annotations

from typing import Any, Callable, Iterable

import orjson


def to_json(data: Any) -> str:
    return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n"


def write_json_streamed(head: dict[str, Any], key: str, items: Iterable[Any], tail: dict[str, Any],
                        write: Callable[[bytes], Any]) -> None:
    """Write `to_json({**head, key: list(items), **tail})` piece by piece: each item is serialized
    and dropped in turn, so a result of a gigabyte never sits whole in memory (1,000 pods with
    their per-node detail on 5,000 nodes: 1.4 GB of JSON, 6 GB as Python objects)."""
    members = [_member(k, v) for k, v in head.items()]
    write(b"{\n" + b"".join(m + b",\n" for m in members) + b"  " + orjson.dumps(key) + b": [")
    first = True
    for item in items:
        write((b"\n    " if first else b",\n    ") + _indented(orjson.dumps(item, option=orjson.OPT_INDENT_2), 4))
        first = False
    write(b"]" if first else b"\n  ]")
    write(b"".join(b",\n" + _member(k, v) for k, v in tail.items()) + b"\n}\n")


def _member(key: str, value: Any) -> bytes:
    return b"  " + orjson.dumps(key) + b": " + _indented(orjson.dumps(value, option=orjson.OPT_INDENT_2), 2)


def _indented(text: bytes, spaces: int) -> bytes:
    """orjson's indented text nested `spaces` deeper (a JSON string never holds a raw newline)."""
    return text.replace(b"\n", b"\n" + b" " * spaces)
