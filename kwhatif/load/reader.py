"""Read manifests — files, folders, stdin — into plain API object mappings with their provenance.

`read_inputs(paths, stdin)` returns one `RawDoc` per Kubernetes object, in a deterministic order:
paths in the order given, a folder's files sorted by path, documents in file order, List items in
order. Everything wrong with the input is an `InputError` naming the file, the document and (when
known) the line; nothing here prints a traceback.

What is read, and how (kubectl's behaviour is the reference):

- A path is a file, a folder (walked recursively; only `.yaml`, `.yml` and `.json` files are read,
  like `kubectl apply -R -f`; symlinked folders are not followed), or `-` for standard input, named
  `stdin` in sources. A file named explicitly is read whatever its extension.
- Text is UTF-8, UTF-8 with a BOM, or UTF-16/UTF-32 with a BOM. A NUL byte or bytes that are not
  UTF-8 make the file "not a text file".
- JSON (a `.json` file, or any input whose first non-blank character is `{` or `[`) is parsed with
  orjson: a 400 MB dump takes seconds, and no line numbers are computed for its items. A `.json`
  file of `MAP_THRESHOLD` bytes or more that is a List (a `kubectl get -o json` dump) is read
  through a memory map, its items kept as undecoded bytes for the decoders. Several
  concatenated JSON objects (`jq` output) are accepted, like kubectl's JSON stream decoder. Input
  that only looks like JSON (no `.json` extension) and fails to parse is retried as YAML when it is
  smaller than 16 MiB (flow-style YAML starts with `{` too). A top-level JSON array is refused, as
  kubectl does. JSON nesting is limited by orjson (1024 levels since orjson 3.9.x; 3.9.0 had no
  limit and crashes on absurd depths, so require a recent orjson); duplicate JSON keys are not
  detected (the last one wins, as in orjson).
- YAML is parsed with libyaml (`yaml.CSafeLoader`), documents composed to nodes once and then
  built into values by a direct walk (30 % faster than PyYAML's generic construction, same result),
  so each document's and List item's line is known without parsing twice. Only plain data is built:
  unknown or Python tags are refused; timestamps stay strings (as kubectl sends them); non-string
  keys become strings like sigs.k8s.io/yaml does (`true`, `1`). Duplicate keys are refused (kubectl
  strict decoding does too). Nesting deeper than `MAX_DEPTH` levels is refused while composing, so
  libyaml's recursive composer cannot overflow the C stack. Documents using anchors are checked for
  alias bombs with go-yaml's rule ("excessive aliasing": more than 99 % of the expanded nodes come
  from aliases below 400,000 nodes, 10 % above 4,000,000) and for recursive aliases.
- A big (`MAP_THRESHOLD`) `.yaml`/`.yml` List laid out as `kubectl get -o yaml` prints it is read
  item by item from a memory map (`_yaml_list_items`): composing the whole document would take ten
  times the file in memory. Its items get no line unless an error names one; a file whose text
  may define an anchor is parsed whole, as items parsed apart cannot share anchors.
- Each document must be a mapping; empty documents are skipped. `kind: List`, and `kind: XxxList`
  with an `items` key (`PodList`, `NodeList`...), expand to their items; items of a typed list that
  lack `kind`/`apiVersion` get them from the list (API server dumps omit them). A List item keeps
  its document's index in `source.doc` and, in YAML, its own line.
- No object at all across every path is an error: "no objects passed" (kubectl's words).
"""

from __future__ import annotations

import json
import mmap
import os
import re
import stat
import sys
from collections.abc import Iterator, Sequence
from typing import Any, BinaryIO, Callable

import msgspec
import orjson
import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from kwhatif.errors import InputError, Source
from kwhatif.memory import collector_paused

MAX_DEPTH = 200
"""Deepest nesting of YAML collections accepted (Kubernetes objects are far shallower than 30)."""

EXTENSIONS = (".yaml", ".yml", ".json")
"""Files read from a folder (kubectl's list; case-sensitive like kubectl)."""

MAP_THRESHOLD = 16 << 20
"""JSON and YAML files from this size (bytes) are memory-mapped, and read item by item when they
are a List (see `_mapped_list`)."""

YAML_RETRY_LIMIT = 16 << 20
"""Input that looks like JSON but is not is retried as YAML only below this size (bytes)."""

STDIN_NAME = "stdin"

_NON_BLANK_B = re.compile(rb"[^ \t\r\n]")
_NON_BLANK_S = re.compile(r"[^ \t\r\n]")
_YAML_TAG = "tag:yaml.org,2002:"
_MERGE_TAG = "tag:yaml.org,2002:merge"
_STR_TAG = "tag:yaml.org,2002:str"
_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"
_BOMS = (  # longest first: the UTF-32-LE BOM starts with the UTF-16-LE one
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)


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
            self._obj = self._parse() if self._parse is not None else orjson.loads(memoryview(self.raw))
        return self._obj

    def release(self) -> None:
        """Drop the decoded item if it can be decoded again (a List item read from its text)."""
        if self.raw is not None or self._parse is not None:
            self._obj = None

    def __repr__(self) -> str:
        return f"RawDoc({self.kind!r}, {self.source})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RawDoc) and (self.obj, self.source) == (other.obj, other.source)


def read_inputs(paths: Sequence[str], stdin: BinaryIO | None = None) -> list[RawDoc]:
    """Every object in `paths` (files, folders, `-` for `stdin` or `sys.stdin.buffer`), in order."""
    docs: list[RawDoc] = []
    for path in map(os.fspath, paths):
        if path == "-":
            stream = stdin if stdin is not None else sys.stdin.buffer
            try:
                data = stream.read()
            except OSError as err:
                raise InputError(f"cannot read standard input: {_os_reason(err)}", Source(STDIN_NAME)) from None
            if isinstance(data, str):  # a text stream was passed: it is already decoded
                data = data.encode("utf-8", "surrogatepass")
            docs.extend(parse_bytes(data, STDIN_NAME))
            continue
        for file in _expand_path(path):
            mapped, probed = _mapped_list(file)
            if mapped is None:
                mapped = parse_bytes(_read_file(file), file, is_json=True if file.endswith(".json") else None,
                                     list_probed=probed)
            docs.extend(mapped)
    if not docs:
        names = ", ".join(STDIN_NAME if p == "-" else p for p in paths)
        raise InputError(f"no objects passed (read: {names})")
    return docs


def parse_bytes(data: bytes, file: str, is_json: bool | None = None, list_probed: bool = False) -> list[RawDoc]:
    """The objects in one file's bytes; `file` names it in sources. `is_json=None` sniffs the content.

    Unlike `read_inputs`, an input without objects gives an empty list. The cyclic garbage collector
    is paused meanwhile (see `kwhatif.memory`)."""
    with collector_paused():
        return _parse_bytes(data, file, is_json, list_probed)


def _parse_bytes(data: bytes, file: str, is_json: bool | None, list_probed: bool) -> list[RawDoc]:
    text = _decode(data, file)
    sniffed = is_json is None
    if sniffed:
        match = (_NON_BLANK_B if isinstance(text, bytes) else _NON_BLANK_S).search(text)
        first = text[match.start():match.start() + 1] if match else ""
        is_json = first in (b"{", b"[", "{", "[")
    if not is_json:
        return list(_expand_documents(_parse_yaml(text, file), file, from_json=False))
    listed = _json_list_items(text, file) if isinstance(text, bytes) and not list_probed else None
    if listed is not None:
        return listed
    try:
        return list(_expand_documents(_parse_json(text, file), file, from_json=True))
    except InputError as json_error:
        if not sniffed or len(text) >= YAML_RETRY_LIMIT:
            raise
        try:
            return list(_expand_documents(_parse_yaml(text, file), file, from_json=False))
        except InputError:
            raise json_error from None


# --------------------------------------------------------------------------------------- paths ----

def _expand_path(path: str) -> list[str]:
    """A file → itself; a folder → its .yaml/.yml/.json files, recursively, sorted by path."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError("no such file or directory", Source(path)) from None
    except OSError as err:
        raise InputError(_os_reason(err), Source(path)) from None
    if not stat.S_ISDIR(st.st_mode):
        return [path]

    def fail(err: OSError) -> None:
        raise InputError(f"cannot read folder: {_os_reason(err)}", Source(err.filename or path))

    found: list[tuple[tuple[str, ...], str]] = []
    for folder, _dirs, files in os.walk(path, onerror=fail):
        for name in files:
            if name.endswith(EXTENSIONS):
                full = os.path.join(folder, name)
                found.append((tuple(os.path.relpath(full, path).split(os.sep)), full))
    found.sort()
    return [full for _key, full in found]


def _mapped_list(file: str) -> tuple[list[RawDoc] | None, bool]:
    """The items of a big List file (`kubectl get -o json` or `-o yaml`), read through a read-only
    memory map rather than copied into memory: its pages stay the kernel's (page cache, given back
    under memory pressure) and are read as the parser reaches them; each item keeps pointing into
    them until it is decoded. None for a small file or anything but a List these readers take,
    which the plain read then takes (and words any error); with whether a JSON List probe ran."""
    is_json = file.endswith(".json")
    if not is_json and not file.endswith((".yaml", ".yml")):
        return None, False
    try:
        with open(file, "rb") as handle:
            if os.fstat(handle.fileno()).st_size < MAP_THRESHOLD:
                return None, False
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None, False
    with collector_paused():
        return (_json_list_items(mapped, file), True) if is_json else (_yaml_list_items(mapped, file), False)


def _read_file(file: str) -> bytes:
    try:
        with open(file, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        raise InputError("no such file or directory", Source(file)) from None
    except OSError as err:
        raise InputError(f"cannot read file: {_os_reason(err)}", Source(file)) from None


def _os_reason(err: OSError) -> str:
    return (err.strerror or str(err)).lower()


# ------------------------------------------------------------------------------------ decoding ----

def _decode(data: bytes, file: str) -> bytes | str:
    """UTF-8 stays bytes (the parsers check it); a BOM'd UTF-16/32 file becomes str; NULs fail."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            if codec == "utf-8-sig":
                data = data[len(bom):]
                break
            try:
                return data.decode(codec)
            except UnicodeDecodeError as err:
                raise InputError(
                    f"not a text file: invalid {codec.upper()} at byte {err.start}", Source(file)
                ) from None
    nul = data.find(b"\0")
    if nul >= 0:
        raise InputError(f"not a text file: NUL byte at byte {nul}", Source(file, 0, data.count(b"\n", 0, nul) + 1))
    return data


def _invalid_utf8(text: bytes, file: str) -> InputError | None:
    try:
        text.decode("utf-8")
    except UnicodeDecodeError as err:
        line = text.count(b"\n", 0, err.start) + 1
        return InputError(f"not a text file: invalid UTF-8 at byte {err.start}", Source(file, 0, line))
    return None


# ---------------------------------------------------------------------------------------- JSON ----

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


def _json_list_items(text: bytes | mmap.mmap, file: str) -> list[RawDoc] | None:
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


def _parse_json(text: bytes | str, file: str) -> Iterator[tuple[int, Any, int | None, Node | None]]:
    """(document index, value, line, None) for each top-level JSON value."""
    pattern = _NON_BLANK_B if isinstance(text, bytes) else _NON_BLANK_S
    match = pattern.search(text)
    if match is None:
        return iter(())
    start_line = text.count(b"\n" if isinstance(text, bytes) else "\n", 0, match.start()) + 1
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError as err:
        if err.msg.startswith("unexpected content after document"):
            return _parse_json_stream(text, file)
        if "UTF-8" in err.msg and isinstance(text, bytes):
            bad = _invalid_utf8(text, file)
            if bad is not None:
                raise bad from None
        raise _json_error(err.msg, err.lineno, err.colno, file, 0) from None
    return iter([(0, value, start_line, None)])


def _parse_json_stream(text: bytes | str, file: str) -> Iterator[tuple[int, Any, int | None, Node | None]]:
    """Concatenated JSON values, as `jq` prints them (kubectl reads such a stream too)."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise _invalid_utf8(text, file) from None  # type: ignore[misc]
    decoder = json.JSONDecoder(parse_constant=_refuse_constant)
    out = []
    match = _NON_BLANK_S.search(text)
    index = 0
    line = 1
    prev = 0
    while match is not None:
        pos = match.start()
        line += text.count("\n", prev, pos)
        prev = pos
        try:
            value, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as err:
            raise _json_error(err.msg, err.lineno, err.colno, file, index) from None
        except RecursionError:
            raise InputError("JSON nesting is too deep", Source(file, index, line)) from None
        except ValueError as err:
            raise InputError(f"JSON syntax error: {err}", Source(file, index, line)) from None
        out.append((index, value, line, None))
        index += 1
        match = _NON_BLANK_S.search(text, end)
    return iter(out)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _json_error(msg: str, line: int, column: int, file: str, doc: int) -> InputError:
    if "depth" in msg or "recursion" in msg:  # orjson ≥ 3.9.x stops at 1024 levels
        return InputError(f"JSON nesting is too deep ({msg})", Source(file, doc, line))
    return InputError(f"JSON syntax error: {msg} (column {column})", Source(file, doc, line))


# ---------------------------------------------------------------------------------------- YAML ----

class _Loader(yaml.CSafeLoader):  # type: ignore[misc]
    """libyaml's safe loader, plus: a nesting limit while composing, refused duplicate keys, JSON-like
    scalars (timestamps stay strings, keys become strings), one-line errors naming the document."""

    def __init__(self, stream: bytes | str, file: str) -> None:
        super().__init__(stream)
        self.file = file
        self.doc = 0
        self._depth = 0

    # The C composer calls these (Python) hooks around every node it composes.
    def descend_resolver(self, current_node: Node | None, current_index: Any) -> None:
        self._depth += 1  # counts scalars too: a scalar in the 200th collection is at 201
        if self._depth > MAX_DEPTH + 1:
            line = current_node.start_mark.line + 1 if current_node is not None else None
            raise InputError(f"nesting deeper than {MAX_DEPTH} levels", Source(self.file, self.doc, line))

    def ascend_resolver(self) -> None:
        self._depth -= 1

    def construct_mapping(self, node: Node, deep: bool = False) -> dict:
        if not isinstance(node, MappingNode):
            raise yaml.constructor.ConstructorError(
                None, None, f"expected a mapping node, but found {node.id}", node.start_mark
            )
        mapping: dict = {}
        construct = self.construct_object
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG:
                return self._construct_merged(node, deep)
            key = construct(key_node, deep=deep)
            if type(key) is not str:
                key = self._key_string(key, key_node)
            if key in mapping:
                raise self._duplicate(key, key_node, node)
            mapping[key] = construct(value_node, deep=deep)
        return mapping

    def _construct_merged(self, node: MappingNode, deep: bool) -> dict:
        """`<<` merge keys: explicit keys may override merged ones, but not each other."""
        seen: set[tuple[str, str]] = set()
        for key_node, _value in node.value:
            if key_node.tag != _MERGE_TAG and isinstance(key_node, ScalarNode):
                ident = (key_node.tag, key_node.value)
                if ident in seen:
                    raise self._duplicate(key_node.value, key_node, node)
                seen.add(ident)
        self.flatten_mapping(node)
        mapping: dict = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=deep)
            if type(key) is not str:
                key = self._key_string(key, key_node)
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping

    def _key_string(self, key: Any, key_node: Node) -> str:
        """Non-string keys as sigs.k8s.io/yaml turns them into JSON keys."""
        if key is None:
            return "null"
        if isinstance(key, bool):
            return "true" if key else "false"
        if isinstance(key, (int, float)):
            return str(key)
        raise InputError(
            f"a mapping key must be a string, not {_shape(key)}",
            Source(self.file, self.doc, key_node.start_mark.line + 1),
        )

    def _duplicate(self, key: str, key_node: Node, node: MappingNode) -> InputError:
        first = None
        for other, _value in node.value:
            if other is key_node:
                break
            if isinstance(other, ScalarNode) and other.value == key_node.value:
                first = other.start_mark.line + 1
                break
        where = f" (first on line {first})" if first is not None else ""
        return InputError(
            f'duplicate key "{key}"{where}', Source(self.file, self.doc, key_node.start_mark.line + 1)
        )

    def build(self, node: Node) -> Any:
        """The document's value, built directly from its nodes: same result as
        `construct_document` (whose overrides above it falls back to for anything unusual) at a
        third of the cost, because plain strings, maps and lists skip the generic machinery.
        Recursion is safe: the composer refused nesting deeper than MAX_DEPTH (and
        `_check_aliases`, nesting through aliases)."""
        memo: dict[int, Any] = {}
        constructors = self.yaml_constructors

        def build(node: Node) -> Any:
            cls = node.__class__
            tag = node.tag
            if cls is ScalarNode:
                if tag == _STR_TAG:
                    return node.value
                constructor = constructors.get(tag)
                if constructor is None:
                    return self.construct_undefined(node)
                return constructor(self, node)
            key = id(node)
            if key in memo:
                return memo[key]
            if cls is MappingNode and tag == _MAP_TAG:
                mapping: dict = {}
                memo[key] = mapping
                for key_node, value_node in node.value:
                    if key_node.__class__ is ScalarNode and key_node.tag == _STR_TAG:
                        name = key_node.value
                    elif key_node.tag == _MERGE_TAG:
                        memo[key] = value = self._construct_merged(node, True)
                        return value
                    else:
                        name = build(key_node)
                        if type(name) is not str:
                            name = self._key_string(name, key_node)
                    if name in mapping:
                        raise self._duplicate(name, key_node, node)
                    mapping[name] = build(value_node)
                return mapping
            if cls is SequenceNode and tag == _SEQ_TAG:
                items: list = []
                memo[key] = items
                items.extend(build(child) for child in node.value)
                return items
            memo[key] = value = self.construct_object(node, deep=True)
            return value

        try:
            return build(node)
        finally:
            self.constructed_objects = {}
            self.recursive_objects = {}
            memo.clear()
            build = None  # type: ignore[assignment]  # the recursive closure is a cycle: break it

    def construct_plain_text(self, node: Node) -> str:
        return self.construct_scalar(node)

    def construct_binary_text(self, node: Node) -> str:
        return "".join(self.construct_scalar(node).split())

    def refuse_collection_tag(self, node: Node) -> Any:
        raise yaml.constructor.ConstructorError(
            None, None, f"YAML tag {_short_tag(node.tag)} is not supported in Kubernetes objects", node.start_mark
        )


_Loader.add_constructor(_YAML_TAG + "timestamp", _Loader.construct_plain_text)
_Loader.add_constructor(_YAML_TAG + "value", _Loader.construct_plain_text)
_Loader.add_constructor(_YAML_TAG + "binary", _Loader.construct_binary_text)
for _tag in ("set", "omap", "pairs"):
    _Loader.add_constructor(_YAML_TAG + _tag, _Loader.refuse_collection_tag)


def _parse_yaml(text: bytes | str, file: str) -> Iterator[tuple[int, Any, int | None, Node | None]]:
    """(document index, value, line, node) for each YAML document, empty ones included."""
    anchor, alias = (b"&", b"*") if isinstance(text, bytes) else ("&", "*")
    may_alias = anchor in text and alias in text  # else no document can hold an alias
    loader = _Loader(text, file)
    out = []
    try:
        while loader.check_node():
            node = loader.get_node()
            if may_alias:
                _check_aliases(node, file, loader.doc)
            value = loader.build(node)
            out.append((loader.doc, value, node.start_mark.line + 1, node))
            loader.doc += 1
    except yaml.reader.ReaderError as err:
        raise _reader_error(err, text, file, loader.doc) from None
    except yaml.MarkedYAMLError as err:
        raise _yaml_error(err, file, loader.doc) from None
    except yaml.YAMLError as err:
        raise InputError(f"YAML error: {err}", Source(file, loader.doc)) from None
    except RecursionError:
        raise InputError("nesting is too deep", Source(file, loader.doc)) from None
    finally:
        loader.dispose()
    return iter(out)


def _reader_error(err: yaml.reader.ReaderError, text: bytes | str, file: str, doc: int) -> InputError:
    pos = err.position
    if isinstance(text, bytes):
        line = text.count(b"\n", 0, pos) + 1
        if "UTF-8" in err.reason:
            return InputError(f"not a text file: invalid UTF-8 at byte {pos}", Source(file, doc, line))
    else:
        line = text.encode("utf-8", "surrogatepass").count(b"\n", 0, pos) + 1
    return InputError(f"not a text file: {err.reason} (#x{err.character:04x} at byte {pos})", Source(file, doc, line))


def _yaml_error(err: yaml.MarkedYAMLError, file: str, doc: int) -> InputError:
    mark = err.problem_mark or err.context_mark
    problem = err.problem or ""
    if "exceeded maximum nesting depth" in problem:
        # The libyaml bundled with recent PyYAML wheels stops at 1,000 levels in its scanner, which
        # reads flow collections ahead of the events our composer counts: same refusal, one wording.
        return InputError(f"nesting deeper than {MAX_DEPTH} levels",
                          Source(file, doc, mark.line + 1 if mark is not None else None))
    prefix = "YAML syntax error"
    if problem.startswith("could not determine a constructor for the tag"):
        tag = problem.rsplit(" ", 1)[-1].strip("'\"")
        if tag.startswith(_YAML_TAG + "python/"):
            problem = f"YAML tag {_short_tag(tag)} is refused: it would build a Python object"
        else:
            problem = f"unknown YAML tag {_short_tag(tag)}"
        prefix = "YAML error"
    elif isinstance(err, yaml.constructor.ConstructorError):
        prefix = "YAML error"
    message = "; ".join(part for part in (err.context, problem) if part)
    if mark is not None:
        message += f" (column {mark.column + 1})"
    return InputError(f"{prefix}: {message}", Source(file, doc, mark.line + 1 if mark is not None else None))


def _short_tag(tag: str) -> str:
    return "!!" + tag[len(_YAML_TAG):] if tag.startswith(_YAML_TAG) else tag


def _check_aliases(root: Node, file: str, doc: int) -> None:
    """Refuse alias bombs, recursive aliases and aliases nesting deeper than `MAX_DEPTH`.

    Counts, without expanding anything, how many nodes the document would have once every alias is
    replaced by a copy of its anchor, then applies go-yaml's "excessive aliasing" rule."""
    sizes: dict[int, tuple[int, int]] = {}  # id(node) → (expanded node count, depth)
    active: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, leaving = stack.pop()
        key = id(node)
        if leaving:
            active.discard(key)
            total, depth = 1, 0
            children = node.value if isinstance(node, SequenceNode) else [c for pair in node.value for c in pair]
            for child in children:
                size, child_depth = sizes[id(child)]
                total += size
                if child_depth > depth:
                    depth = child_depth
            if depth + 1 > MAX_DEPTH + 1:  # depth counts the scalars at the bottom
                raise InputError(
                    f"nesting deeper than {MAX_DEPTH} levels (through aliases)",
                    Source(file, doc, node.start_mark.line + 1),
                )
            sizes[key] = (total, depth + 1)
            continue
        if key in sizes:
            continue
        if key in active:
            raise InputError(
                "recursive alias: an anchor is used inside itself", Source(file, doc, node.start_mark.line + 1)
            )
        if isinstance(node, ScalarNode):
            sizes[key] = (1, 1)
            continue
        active.add(key)
        stack.append((node, True))
        if isinstance(node, SequenceNode):
            stack.extend((child, False) for child in node.value)
        else:
            for key_node, value_node in node.value:
                stack.append((key_node, False))
                stack.append((value_node, False))
    expanded = sizes[id(root)][0]
    aliased = expanded - len(sizes)
    if aliased > 100 and expanded > 1000 and aliased / expanded > _allowed_alias_ratio(expanded):
        raise InputError(
            f"document contains excessive aliasing ({expanded} nodes once aliases are expanded, "
            f"from {len(sizes)} written)",
            Source(file, doc, root.start_mark.line + 1),
        )


def _allowed_alias_ratio(decoded: int) -> float:
    """go-yaml v2/v3's allowedAliasRatio, which kubectl's YAML decoding inherits."""
    low, high = 400_000, 4_000_000
    if decoded <= low:
        return 0.99
    if decoded >= high:
        return 0.10
    return 0.99 - 0.89 * (decoded - low) / (high - low)


# ----------------------------------------------------------------- big YAML Lists, item by item ----

# kubectl's YAML List: top-level keys at column 0, `items:` among them, each item a `- ` line at
# column 0 followed by its indented lines. Any other line at column 0 (a key, a document marker)
# ends the items.
_COLUMN_0 = re.compile(rb"\n[^ \t\r\n]")
_YAML_KIND_VALUE = re.compile(rb"[ \t]*([\"']?)([A-Za-z0-9]+)\1[ \t]*\r?")
_ANCHOR_BEFORE = frozenset(b" \t\r\n[{,")
_ANCHOR_NOT_AFTER = frozenset(b" \t\r\n,[]{}")
_AT_BYTE = re.compile(r"( at byte )(\d+)")
_ON_LINE = re.compile(r"( on line )(\d+)")


def _yaml_list_items(text: mmap.mmap, file: str) -> list[RawDoc] | None:
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
        header = list(_parse_yaml(text[:items_key] + text[end:], file))
    except InputError:
        return None
    if len(header) != 1 or not isinstance(header[0][1], dict) or not _is_list({**header[0][1], "items": []}):
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
    """Parses one item of a big YAML List from its text (see `_yaml_list_items`)."""

    __slots__ = ("text", "whole", "offset", "file", "index", "item_kind", "api_version")

    def __init__(self, text: memoryview, whole: mmap.mmap, offset: int, file: str, index: int,
                 item_kind: str | None, api_version: Any) -> None:
        self.text, self.whole, self.offset, self.file, self.index = text, whole, offset, file, index
        self.item_kind, self.api_version = item_kind, api_version

    def __call__(self) -> dict:
        try:
            documents = list(_parse_yaml(bytes(self.text), self.file))
        except InputError as err:
            raise self._placed(err) from None
        value = documents[0][1] if len(documents) == 1 else None
        item = value[0] if isinstance(value, list) and len(value) == 1 else value
        if not isinstance(item, dict):
            raise InputError(f"List item must be an object, not {_shape(item)}", self._source(1))
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


# --------------------------------------------------------------------------- documents → docs ----

def _shape(value: Any) -> str:
    """`an object`, `a list`, `a scalar` or `null`, for messages."""
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "a list"
    return "a scalar"


def _expand_documents(
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
            raise InputError(f"document is {_shape(value)}, not an object", Source(file, doc, line))
        yield from _expand_object(value, node, file, doc, line)


def _is_list(obj: dict) -> bool:
    kind = obj.get("kind")
    return isinstance(kind, str) and (kind == "List" or (kind.endswith("List") and "items" in obj))


def _expand_object(obj: dict, node: Node | None, file: str, doc: int, line: int | None,
                   item: int | None = None) -> Iterator[RawDoc]:
    if not _is_list(obj):
        yield RawDoc(obj, Source(file, doc, line, item))
        return
    kind = obj["kind"]
    items = obj.get("items")
    if items is None:
        return
    if not isinstance(items, list):
        raise InputError(f"must be a list of objects, not {_shape(items)}", Source(file, doc, line), field="items")
    item_nodes = _item_nodes(node, len(items))
    item_kind = kind[: -len("List")] if kind != "List" else None
    api_version = obj.get("apiVersion")
    for index, item in enumerate(items):
        item_node = item_nodes[index] if item_nodes is not None else None
        item_line = item_node.start_mark.line + 1 if item_node is not None else None
        if not isinstance(item, dict):
            raise InputError(
                f"List item must be an object, not {_shape(item)}",
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
