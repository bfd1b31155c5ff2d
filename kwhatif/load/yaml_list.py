"""Big YAML Lists, item by item: a `kubectl get -o yaml` dump split into its items' texts, each
parsed only when decoded."""

from __future__ import annotations

import mmap
import re
from typing import Any

from kwhatif.errors import InputError, Source
from kwhatif.load.documents import RawDoc, is_list, shape
from kwhatif.load.yaml_text import parse_yaml

# kubectl's YAML List: top-level keys at column 0, `items:` among them, each item a `- ` line at
# column 0 followed by its indented lines. Any other line at column 0 (a key, a document marker)
# ends the items.
_COLUMN_0 = re.compile(rb"\n[^ \t\r\n]")
_YAML_KIND_VALUE = re.compile(rb"[ \t]*([\"']?)([A-Za-z0-9]+)\1[ \t]*\r?")
_ANCHOR_BEFORE = frozenset(b" \t\r\n[{,")
_ANCHOR_NOT_AFTER = frozenset(b" \t\r\n,[]{}")
_AT_BYTE = re.compile(r"( at byte )(\d+)")
_ON_LINE = re.compile(r"( on line )(\d+)")


def yaml_list_items(text: mmap.mmap, file: str) -> list[RawDoc] | None:
    """The items of a big YAML List laid out as kubectl prints it, each kept as its text and parsed
    only when decoded: memory then holds one item's YAML nodes at a time instead of the whole
    document's (ten times the text: 2 GB for a 60 MB dump). None for anything else, which the
    whole-document parse takes. Items parsed apart cannot share anchors, so a file that may define
    one (an `&` opening a word) takes the whole parse too. Items get no line (as JSON items), but
    an error inside one names its line."""
    if text[:1] in (b"\xef", b"\xff", b"\xfe") or text.find(b"\0") >= 0 or _may_define_anchor(text):
        return None  # BOMs and NULs: the plain path decodes or refuses them
    items_key = 0 if text[:6] == b"items:" else text.find(b"\nitems:") + 1
    key_end = text.find(b"\n", items_key) if items_key or text[:6] == b"items:" else -1
    if key_end < 0 or text[items_key + 6:key_end].strip():
        return None  # no `items:` at column 0 alone on its line, followed by its block sequence
    starts, end = _yaml_item_starts(text, key_end)
    if not starts or not _only_comments(text[key_end:starts[0]]):
        return None
    try:
        header = list(parse_yaml(text[:items_key] + text[end:], file))
    except InputError:
        return None
    if len(header) != 1 or not isinstance(header[0][1], dict) or not is_list({**header[0][1], "items": []}):
        return None
    listing = header[0][1]
    item_kind = listing["kind"][: -len("List")] if listing["kind"] != "List" else None
    docs = []
    view = memoryview(text)
    for index, (start, stop) in enumerate(zip(starts, starts[1:] + [end])):
        parse = _YamlItem(view[start:stop], text, start, file, index, item_kind, listing.get("apiVersion"))
        doc = RawDoc(None, Source(file, 0, None, index), kind=_yaml_item_kind(text, start, stop), parse=parse)
        if doc.kind is None:
            doc.kind = doc.obj.get("kind")
            doc.release()
        if isinstance(doc.kind, str) and doc.kind.endswith("List"):
            return None  # a List in the List: the whole parse expands it
        docs.append(doc)
    return docs


def _yaml_item_starts(text: mmap.mmap, after: int) -> tuple[list[int], int]:
    """Where each item starts (its `-` at column 0), and where the items end."""
    starts = []
    for match in _COLUMN_0.finditer(text, after):
        at = match.start() + 1
        head = text[at:at + 2]
        if head[:1] == b"#":
            continue
        if head[:1] == b"-" and head[1:2] in (b" ", b"\t", b"\r", b"\n", b""):
            starts.append(at)
            continue
        return starts, at
    return starts, len(text)


def _yaml_item_kind(text: mmap.mmap, start: int, stop: int) -> str | None:
    """The item's `kind` as written on its own line right under the item (a hint for counting
    kinds; decoding reads the parsed item)."""
    if text[start:start + 7] == b"- kind:":
        value = start + 7
    else:
        found = text.find(b"\n  kind:", start, stop)
        if found < 0:
            return None
        value = found + 9
    line_end = text.find(b"\n", value, stop)
    match = _YAML_KIND_VALUE.fullmatch(text[value:line_end if line_end >= 0 else stop])
    return match.group(2).decode() if match else None


def _may_define_anchor(text: mmap.mmap) -> bool:
    """Whether an `&` opens a word somewhere (an anchor, or text that looks like one)."""
    at = text.find(b"&")
    while at >= 0:
        before = text[at - 1] if at else ord("\n")
        after = text[at + 1] if at + 1 < len(text) else ord(" ")
        if before in _ANCHOR_BEFORE and after not in _ANCHOR_NOT_AFTER:
            return True
        at = text.find(b"&", at + 1)
    return False


def _only_comments(text: bytes) -> bool:
    return all(not line.strip() or line.lstrip().startswith(b"#") for line in text.splitlines())


class _YamlItem:
    """Parses one item of a big YAML List from its text (see `yaml_list_items`)."""

    __slots__ = ("text", "whole", "offset", "file", "index", "item_kind", "api_version")

    def __init__(self, text: memoryview, whole: mmap.mmap, offset: int, file: str, index: int,
                 item_kind: str | None, api_version: Any) -> None:
        self.text, self.whole, self.offset, self.file, self.index = text, whole, offset, file, index
        self.item_kind, self.api_version = item_kind, api_version

    def __call__(self) -> dict:
        try:
            documents = list(parse_yaml(bytes(self.text), self.file))
        except InputError as err:
            raise self._placed(err) from None
        value = documents[0][1] if len(documents) == 1 else None
        item = value[0] if isinstance(value, list) and len(value) == 1 else value
        if not isinstance(item, dict):
            raise InputError(f"List item must be an object, not {shape(item)}", self._source(1))
        if self.item_kind and "kind" not in item:
            item["kind"] = self.item_kind
            if "apiVersion" not in item and isinstance(self.api_version, str):
                item["apiVersion"] = self.api_version
        return item

    def _source(self, line: int | None) -> Source:
        first = self._first_line()
        return Source(self.file, 0, first + line - 1 if line is not None else first, self.index)

    def _placed(self, err: InputError) -> InputError:
        """An error of the item's own parse, placed in the file: its line, and its byte offset."""
        first = self._first_line()
        message = _AT_BYTE.sub(lambda m: f"{m.group(1)}{int(m.group(2)) + self.offset}", err.message)
        message = _ON_LINE.sub(lambda m: f"{m.group(1)}{int(m.group(2)) + first - 1}", message)
        return InputError(message, self._source(err.source.line if err.source else None), err.obj, err.field)

    def _first_line(self) -> int:
        return self.whole[:self.offset].count(b"\n") + 1
