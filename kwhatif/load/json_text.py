"""JSON text → values: one document with orjson, a `jq`-style stream of them, and the fast path
for a big `kubectl get -o json` List, whose items stay undecoded bytes."""

from __future__ import annotations

import json
import mmap
import re
from collections.abc import Iterator
from typing import Any

import msgspec
import orjson
from yaml.nodes import Node

from kwhatif.errors import InputError, Source
from kwhatif.load.documents import RawDoc
from kwhatif.load.refs import object_ref

NON_BLANK_B = re.compile(rb"[^ \t\r\n]")
NON_BLANK_S = re.compile(r"[^ \t\r\n]")


def _invalid_utf8(text: bytes, file: str) -> InputError | None:
    try:
        text.decode("utf-8")
    except UnicodeDecodeError as err:
        return _utf8_error(text, err, file)
    return None


def _utf8_error(text: bytes, err: UnicodeDecodeError, file: str) -> InputError:
    line = text.count(b"\n", 0, err.start) + 1
    return InputError(f"not a text file: invalid UTF-8 at byte {err.start}", Source(file, 0, line))


class _ListProbe(msgspec.Struct):
    kind: Any = None
    items: list[msgspec.Raw] | None = None


class _ItemProbe(msgspec.Struct):
    kind: Any = None


_LIST_DECODER = msgspec.json.Decoder(_ListProbe)
_ITEM_DECODER = msgspec.json.Decoder(_ItemProbe)


# kubectl (and the API server) write `apiVersion` then `kind` first: read the kind off the start.
_LEADING_KIND = re.compile(rb'\{\s*"apiVersion"\s*:\s*"[^"\\]*"\s*,\s*"kind"\s*:\s*"([A-Za-z0-9]+)"')


def _item_kind(raw: msgspec.Raw) -> object:
    """A List item's kind: from its first two keys when they are apiVersion and kind (kubectl's
    order), else by reading the item's top-level keys."""
    match = _LEADING_KIND.match(memoryview(raw))
    if match is not None:
        return match.group(1).decode()
    return _ITEM_DECODER.decode(raw).kind


def json_list_items(text: bytes | mmap.mmap, file: str) -> list[RawDoc] | None:
    """A JSON `kind: List` dump (`kubectl get -o json`), its items kept as undecoded bytes: the
    fast path for big dumps. None when the file is anything else, or is not plain valid JSON —
    the general path then reads it (and words any error)."""
    try:
        probe = _LIST_DECODER.decode(text)
        if not isinstance(probe.kind, str) or not probe.kind.endswith("List") or probe.items is None:
            return None
        docs = []
        for index, raw in enumerate(probe.items):
            kind = _item_kind(raw)
            if not isinstance(kind, str) or kind.endswith("List"):
                return None  # kindless items of typed lists, nested lists, odd items: general path
            docs.append(RawDoc(None, Source(file, 0, None, index), raw, kind))
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError, UnicodeDecodeError):
        return None  # msgspec raises UnicodeDecodeError on invalid UTF-8 inside a string
    return docs


def parse_json(text: bytes | str, file: str) -> Iterator[tuple[int, Any, int | None, Node | None]]:
    """(document index, value, line, None) for each top-level JSON value."""
    match = NON_BLANK_B.search(text) if isinstance(text, bytes) else NON_BLANK_S.search(text)
    if match is None:
        return iter(())
    newlines = text.count(b"\n", 0, match.start()) if isinstance(text, bytes) else text.count("\n", 0, match.start())
    start_line = newlines + 1
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError as err:
        if err.msg.startswith("unexpected content after document") or "parsed as double" in err.msg:
            # Several documents, or a number beyond a double (a 400-digit int) that Python's json
            # reads for the field holding it to be refused by name.
            return _parse_json_stream(text, file)
        if "UTF-8" in err.msg and isinstance(text, bytes):
            bad = _invalid_utf8(text, file)
            if bad is not None:
                raise bad from None
        raise _json_error(err.msg, err.lineno, err.colno, file, 0) from None
    if len(text) < DUPLICATE_CHECK_LIMIT:
        _refuse_duplicate_keys(text, match.start(), file, start_line)
    return iter([(0, value, start_line, None)])


DUPLICATE_CHECK_LIMIT = 1 << 20
"""JSON documents under 1 MiB — manifests to apply — are read a second time for duplicate keys,
which orjson takes silently, the last one winning, and `kubectl apply` refuses (strict decoding:
`json: duplicate field`); a bigger one is a dump the API server wrote, which holds none, and
reading it again with Python's decoder would cost more than the whole rest of its load."""


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _value in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return out


def _refuse_duplicate_keys(text: bytes | str, start: int, file: str, line: int) -> None:
    """As the YAML reader: a key twice in one object is the error (`start`: where the document
    starts, after blanks)."""
    try:
        json.loads(text, object_pairs_hook=_unique_pairs)
    except _DuplicateKey as dup:
        raise _duplicate_error(text.decode() if isinstance(text, bytes) else text, start, dup.key,
                               Source(file, 0, line)) from None


def _duplicate_error(text: str, pos: int, key: str, source: Source) -> InputError:
    """The error of a duplicate key in the document at `pos`, naming the object by the first of
    its duplicates, as the YAML reader does (orjson's value kept the last)."""
    first, _end = json.JSONDecoder(object_pairs_hook=lambda pairs: dict(reversed(pairs))).raw_decode(text, pos)
    named = isinstance(first, dict) and isinstance(first.get("metadata"), dict)
    return InputError(f'duplicate key "{key}"', source, obj=object_ref(first) if named else None)


def _parse_json_stream(text: bytes | str, file: str) -> Iterator[tuple[int, Any, int | None, Node | None]]:
    """Concatenated JSON values, as `jq` prints them (kubectl reads such a stream too)."""
    if isinstance(text, bytes):
        data = text
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise _utf8_error(data, err, file) from None
    decoder = json.JSONDecoder(parse_constant=_refuse_constant, object_pairs_hook=_unique_pairs)
    out = []
    match = NON_BLANK_S.search(text)
    index = 0
    line = 1
    prev = 0
    while match is not None:
        pos = match.start()
        line += text.count("\n", prev, pos)
        prev = pos
        try:
            value, end = decoder.raw_decode(text, pos)
        except _DuplicateKey as dup:
            raise _duplicate_error(text, pos, dup.key, Source(file, index, line)) from None
        except json.JSONDecodeError as err:
            raise _json_error(err.msg, err.lineno, err.colno, file, index) from None
        except RecursionError:
            raise InputError("JSON nesting is too deep", Source(file, index, line)) from None
        except ValueError as err:
            raise InputError(f"JSON syntax error: {err}", Source(file, index, line)) from None
        out.append((index, value, line, None))
        index += 1
        match = NON_BLANK_S.search(text, end)
    return iter(out)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _json_error(msg: str, line: int, column: int, file: str, doc: int) -> InputError:
    if "depth" in msg or "recursion" in msg:  # orjson ≥ 3.9.x stops at 1024 levels
        return InputError(f"JSON nesting is too deep ({msg})", Source(file, doc, line))
    return InputError(f"JSON syntax error: {msg} (column {column})", Source(file, doc, line))
