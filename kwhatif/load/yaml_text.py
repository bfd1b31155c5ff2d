"""YAML text → values with libyaml: documents composed to nodes once and built by a direct walk,
with the nesting limit, strict keys and alias-bomb checks described in `kwhatif.load.reader`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from kwhatif.errors import InputError, Source
from kwhatif.load.documents import shape
from kwhatif.load.refs import object_ref

MAX_DEPTH = 200
"""Deepest nesting of YAML collections accepted (Kubernetes objects are far shallower than 30)."""

_YAML_TAG = "tag:yaml.org,2002:"
_MERGE_TAG = "tag:yaml.org,2002:merge"
_STR_TAG = "tag:yaml.org,2002:str"
_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"


class _Loader(yaml.CSafeLoader):
    """libyaml's safe loader, plus: a nesting limit while composing, refused duplicate keys, JSON-like
    scalars (timestamps stay strings, keys become strings), one-line errors naming the document."""

    def __init__(self, stream: bytes | str, file: str) -> None:
        super().__init__(stream)
        self.file = file
        self.doc = 0
        self._depth = 0
        self._root: Node | None = None

    # The C composer calls these (Python) hooks around every node it composes.
    def descend_resolver(self, current_node: Node | None, current_index: Any) -> None:
        self._depth += 1  # counts scalars too: a scalar in the 200th collection is at 201
        if self._depth > MAX_DEPTH + 1:
            line = current_node.start_mark.line + 1 if current_node is not None else None
            raise InputError(f"nesting deeper than {MAX_DEPTH} levels", Source(self.file, self.doc, line))

    def ascend_resolver(self) -> None:
        self._depth -= 1

    def construct_mapping(self, node: ScalarNode | SequenceNode | MappingNode, deep: bool = False) -> dict:
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
            f"a mapping key must be a string, not {shape(key)}",
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
        obj, path = _object_and_path(self._root, key_node)
        return InputError(
            f'duplicate key "{key}"{where}', Source(self.file, self.doc, key_node.start_mark.line + 1),
            obj=object_ref(_named_by(obj)) if obj is not None and _has_metadata(obj) else None,
            field=_dotted(path) if path else None,
        )

    def build(self, node: Node) -> Any:
        """The document's value, built directly from its nodes: same result as
        `construct_document` (whose overrides above it falls back to for anything unusual) at a
        third of the cost, because plain strings, maps and lists skip the generic machinery.
        Recursion is safe: the composer refused nesting deeper than MAX_DEPTH (and
        `_check_aliases`, nesting through aliases)."""
        memo: dict[int, Any] = {}
        constructors = self.yaml_constructors
        self._root = node  # what an error names: the object, the field

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
                        memo[key] = value = self._construct_merged(cast(MappingNode, node), True)  # cls above
                        return value
                    else:
                        name = build(key_node)
                        if type(name) is not str:
                            name = self._key_string(name, key_node)
                    if name in mapping:
                        raise self._duplicate(name, key_node, cast(MappingNode, node))  # cls above
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
            self._root = None
            self.constructed_objects = {}
            self.recursive_objects = {}
            memo.clear()
            del build  # the recursive closure refers to itself through its cell, a cycle: break it

    # An explicit tag (`!!timestamp [1]`) can put any node here: construct_scalar refuses a
    # sequence itself (ConstructorError), which the stubs, typed for scalars and mappings, cannot
    # say; the casts only tell them, nothing is checked or converted.
    def construct_plain_text(self, node: Node) -> str:
        return self.construct_scalar(cast(ScalarNode, node))

    def construct_binary_text(self, node: Node) -> str:
        return "".join(self.construct_scalar(cast(ScalarNode, node)).split())

    def refuse_collection_tag(self, node: Node) -> Any:
        raise yaml.constructor.ConstructorError(
            None, None, f"YAML tag {_short_tag(node.tag)} is not supported in Kubernetes objects", node.start_mark
        )


_Loader.add_constructor(_YAML_TAG + "timestamp", _Loader.construct_plain_text)
_Loader.add_constructor(_YAML_TAG + "value", _Loader.construct_plain_text)
_Loader.add_constructor(_YAML_TAG + "binary", _Loader.construct_binary_text)
for _tag in ("set", "omap", "pairs"):
    _Loader.add_constructor(_YAML_TAG + _tag, _Loader.refuse_collection_tag)


def parse_yaml(text: bytes | str, file: str) -> Iterator[tuple[int, Any, int | None, Node | None]]:
    """(document index, value, line, node) for each YAML document, empty ones included."""
    # else no document can hold an alias
    may_alias = b"&" in text and b"*" in text if isinstance(text, bytes) else "&" in text and "*" in text
    loader = _Loader(text, file)
    out = []
    try:
        while loader.check_node() and (node := loader.get_node()) is not None:  # None only at the end
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


def _path_to(node: Node, target: Node) -> list[str] | None:
    """The keys and indexes from `node` down to the key node `target` (None: not below it)."""
    if isinstance(node, MappingNode):
        for key_node, value_node in node.value:
            name = key_node.value if isinstance(key_node, ScalarNode) else "?"
            if key_node is target:
                return [name]
            below = _path_to(value_node, target)
            if below is not None:
                return [name, *below]
    elif isinstance(node, SequenceNode):
        for i, child in enumerate(node.value):
            below = _path_to(child, target)
            if below is not None:
                return [f"[{i}]", *below]
    return None


def _object_and_path(root: Node | None, key_node: Node) -> tuple[MappingNode | None, list[str] | None]:
    """The object a key belongs to — the document, or the item of a `kind: List` (or of the
    sequence a big file's items are read in) — and the key's path in it."""
    path = _path_to(root, key_node) if root is not None else None
    node = root
    while path and node is not None:
        if isinstance(node, SequenceNode) and path[0].startswith("["):
            node, path = node.value[int(path[0][1:-1])], path[1:]
        elif isinstance(node, MappingNode) and _named_by(node)["kind"] == "List" and path[0] == "items" and len(path) > 2:
            items = next(v for k, v in node.value if isinstance(k, ScalarNode) and k.value == "items")
            node, path = items, path[1:]
        else:
            break
    return (node if isinstance(node, MappingNode) else None), path


def _dotted(path: list[str]) -> str:
    return "".join(part if part.startswith("[") or i == 0 else f".{part}" for i, part in enumerate(path))


def _named_by(root: MappingNode) -> dict[str, Any]:
    """The document's kind, name and namespace, as far as plain scalars give them (for object_ref)."""
    def scalars(node: Node) -> dict[str, str]:
        if not isinstance(node, MappingNode):
            return {}
        found: dict[str, str] = {}
        for k, v in node.value:  # the first of duplicates, as the error says it
            if isinstance(k, ScalarNode) and isinstance(v, ScalarNode):
                found.setdefault(k.value, v.value)
        return found
    metadata = next((v for k, v in root.value if isinstance(k, ScalarNode) and k.value == "metadata"), None)
    return {"kind": scalars(root).get("kind"), "metadata": scalars(metadata) if metadata is not None else {}}


def _has_metadata(node: MappingNode) -> bool:
    """A Kubernetes object (named by its metadata), not another YAML file (a sweep's)."""
    return any(isinstance(k, ScalarNode) and k.value == "metadata" for k, _v in node.value)
