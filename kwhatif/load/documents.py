"""Parsed documents → `RawDoc`s, one per Kubernetes object: Lists expanded to their items, each
with its provenance (see `kwhatif.load.reader` for what is accepted)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, Callable

import msgspec
import orjson
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from kwhatif.errors import InputError, Source
from kwhatif.load.refs import CLUSTER_SCOPED, object_ref


class RawDoc:
    """One Kubernetes object as decoded from a manifest, and where it came from.

    Items of a big List arrive undecoded, with the `kind` the List probe read: a JSON item as its
    bytes (`raw`; decoders that know the kind read only the fields they need from them), a YAML
    item with the `parse` that builds it. `obj` decodes the whole item when something asks for it,
    and `release` forgets that decoding again, so a big load holds one item's dict at a time."""

    __slots__ = ("_obj", "source", "raw", "kind", "_parse")

    def __init__(self, obj: dict | None, source: Source, raw: bytes | msgspec.Raw | None = None,
                 kind: str | None = None, parse: Callable[[], dict] | None = None) -> None:
        self._obj = obj
        self.source = source
        self.raw = raw
        self.kind = kind if kind is not None else (obj.get("kind") if isinstance(obj, dict) else None)
        self._parse = parse

    @property
    def obj(self) -> dict:
        if self._obj is None:
            if self._parse is not None:
                self._obj = self._parse()
            elif self.raw is not None:
                self._obj = _item_object(self.raw, self.source)
            else:  # the constructor's callers always give one of the three
                raise TypeError("a RawDoc needs its object, its bytes or a parse")
        return self._obj

    def release(self) -> None:
        """Drop the decoded item if it can be decoded again (a List item read from its text)."""
        if self.raw is not None or self._parse is not None:
            self._obj = None

    def __repr__(self) -> str:
        return f"RawDoc({self.kind!r}, {self.source})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RawDoc) and (self.obj, self.source) == (other.obj, other.source)


def _item_object(raw: bytes | msgspec.Raw, source: Source) -> dict:
    """A List item's object from its bytes. The List split them already, so orjson fails only on
    a number beyond a double (a 400-digit int): Python's json reads it, and the field that holds
    it is then refused by name, as anywhere else."""
    try:
        obj: dict = orjson.loads(memoryview(raw))
    except orjson.JSONDecodeError as err:
        try:
            obj = json.loads(bytes(raw))
        except ValueError:
            raise InputError(f"JSON syntax error: {err.msg}", source) from None
    return obj


def shape(value: Any) -> str:
    """`an object`, `a list`, `a scalar` or `null`, for messages."""
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "a list"
    return "a scalar"


def expand_documents(
    documents: Iterator[tuple[int, Any, int | None, Node | None]], file: str, from_json: bool
) -> Iterator[RawDoc]:
    for doc, value, line, node in documents:
        if value is None:
            continue  # an empty document (`---` alone, only comments, `null`)
        if not isinstance(value, dict):
            if from_json and isinstance(value, list):
                raise InputError(
                    "top-level JSON array: write the objects as the items of a `kind: List` instead",
                    Source(file, doc, line),
                )
            raise InputError(f"document is {shape(value)}, not an object", Source(file, doc, line))
        yield from _expand_object(value, node, file, doc, line)


def is_list(obj: dict) -> bool:
    kind = obj.get("kind")
    return isinstance(kind, str) and (kind == "List" or (kind.endswith("List") and "items" in obj))


def _expand_object(obj: dict, node: Node | None, file: str, doc: int, line: int | None,
                   item: int | None = None) -> Iterator[RawDoc]:
    if not is_list(obj):
        yield RawDoc(obj, Source(file, doc, line, item))
        return
    kind = obj["kind"]
    items = obj.get("items")
    if items is None:
        return
    if not isinstance(items, list):
        raise InputError(f"must be a list of objects, not {shape(items)}", Source(file, doc, line), field="items")
    item_nodes = _item_nodes(node, len(items))
    item_kind = kind[: -len("List")] if kind != "List" else None
    api_version = obj.get("apiVersion")
    for index, item in enumerate(items):
        item_node = item_nodes[index] if item_nodes is not None else None
        item_line = item_node.start_mark.line + 1 if item_node is not None else None
        if not isinstance(item, dict):
            raise InputError(
                f"List item must be an object, not {shape(item)}",
                Source(file, doc, item_line, index),
            )
        if item_kind and "kind" not in item:
            item["kind"] = item_kind
            if "apiVersion" not in item and isinstance(api_version, str):
                item["apiVersion"] = api_version
        yield from _expand_object(item, item_node, file, doc, item_line, index)


def _item_nodes(node: Node | None, count: int) -> list[Node] | None:
    """The YAML nodes of a List's items, for their lines (None for JSON or when unclear)."""
    if not isinstance(node, MappingNode):
        return None
    for key_node, value_node in node.value:
        if isinstance(key_node, ScalarNode) and key_node.value == "items":
            if isinstance(value_node, SequenceNode) and len(value_node.value) == count:
                return value_node.value
            return None
    return None


def in_namespace(docs: Iterable[RawDoc], namespace: str) -> None:
    """`-n NAMESPACE` as `kubectl apply -n` takes it: the namespace of every namespaced object
    that has none; an object naming another one is refused with kubectl's words."""
    for doc in docs:
        meta = doc.obj.get("metadata")
        if doc.kind in CLUSTER_SCOPED or not isinstance(meta, dict):
            continue
        have = meta.get("namespace")
        if not have:
            meta["namespace"] = namespace
        elif have != namespace:
            raise InputError(f'the namespace from the provided object "{have}" does not match the namespace '
                             f'"{namespace}". You must pass \'--namespace={have}\' to perform this operation.',
                             doc.source, obj=object_ref(doc.obj), field="metadata.namespace")

