"""Reading manifests: files, folders, stdin, YAML and JSON, Lists, and every way input can be bad.

Expected sources read `file#doc:line` (see `kwhatif.errors.Source`); expected messages are the
behaviour the reader promises (one line, naming the file, document, line and problem).
"""

from __future__ import annotations

import io
import json
import os
import re
import time

import orjson
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kwhatif.errors import InputError
from kwhatif.load import reader
from kwhatif.load.documents import RawDoc
from kwhatif.load.reader import parse_bytes, read_inputs
from kwhatif.load.yaml_text import MAX_DEPTH, _Loader
from tests.unreadable import make_unreadable

POD_A = b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n"
POD_B = b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: b\n"


def summary(docs: list[RawDoc]) -> list[tuple[str, str]]:
    """(kind/name, source) of each document, the shape most tables compare."""
    return [(f"{d.obj.get('kind')}/{d.obj['metadata']['name']}", str(d.source)) for d in docs]


def write(root, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


# ------------------------------------------------------------------------------ reading well ----

READS = [
    # (case, {file: bytes}, paths (relative to tmp), [(Kind/name, source)])
    ("a multi-document YAML file gives one object per document, in order",
     {"m.yaml": POD_A + b"---\n" + POD_B},
     ["m.yaml"], [("Pod/a", "m.yaml#0:1"), ("Pod/b", "m.yaml#1:6")]),
    ("empty and comment-only documents are skipped but keep their place in the count",
     {"m.yaml": b"---\n# nothing here\n---\n---\n" + POD_A + b"---\n"},
     ["m.yaml"], [("Pod/a", "m.yaml#2:5")]),
    ("a leading comment and document marker do not make a document",
     {"m.yaml": b"# header\n---\n" + POD_A},
     ["m.yaml"], [("Pod/a", "m.yaml#0:3")]),
    ("a v1 List in YAML expands to its items, each with its own line",
     {"l.yaml": b"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: a}\n"
                b"- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n1\n"},
     ["l.yaml"], [("Pod/a", "l.yaml#0.items[0]:4"), ("Node/n1", "l.yaml#0.items[1]:7")]),
    ("a List in the second YAML document keeps that document's index",
     {"l.yaml": POD_A + b"---\nkind: List\napiVersion: v1\nitems:\n- kind: Pod\n  metadata: {name: b}\n"},
     ["l.yaml"], [("Pod/a", "l.yaml#0:1"), ("Pod/b", "l.yaml#1.items[0]:9")]),
    ("a v1 List in JSON expands to its items, without item lines",
     {"l.json": b'{"apiVersion": "v1", "kind": "List", "items": [\n'
                b'  {"kind": "Pod", "metadata": {"name": "a"}},\n  {"kind": "Pod", "metadata": {"name": "b"}}]}'},
     ["l.json"], [("Pod/a", "l.json#0.items[0]"), ("Pod/b", "l.json#0.items[1]")]),
    ("a List without items gives nothing, and other files still count",
     {"e.yaml": b"apiVersion: v1\nkind: List\nitems: []\n", "p.yaml": POD_A},
     ["e.yaml", "p.yaml"], [("Pod/a", "p.yaml#0:1")]),
    ("a typed NodeList from the API gives its items their kind and apiVersion",
     {"n.json": b'{"kind": "NodeList", "apiVersion": "v1", "items": [{"metadata": {"name": "n1"}}]}'},
     ["n.json"], [("Node/n1", "n.json#0.items[0]")]),
    ("a List nested in a List is expanded too",
     {"l.yaml": b"kind: List\nitems:\n- kind: List\n  items:\n  - kind: Pod\n    metadata: {name: deep}\n"},
     ["l.yaml"], [("Pod/deep", "l.yaml#0.items[0]:5")]),
    ("concatenated JSON objects, as jq prints them, are a stream of documents",
     {"s.json": b'{"kind": "Pod", "metadata": {"name": "a"}}\n{"kind": "Pod",\n "metadata": {"name": "b"}}\n'},
     ["s.json"], [("Pod/a", "s.json#0:1"), ("Pod/b", "s.json#1:2")]),
    ("JSON in a file with a .yaml name is recognised by its first brace",
     {"j.yaml": b'\n\n  {"kind": "Pod", "metadata": {"name": "a"}}'},
     ["j.yaml"], [("Pod/a", "j.yaml#0:3")]),
    ("flow-style YAML starting with a brace is read as YAML when it is not JSON",
     {"f.yaml": b"{kind: Pod, metadata: {name: a}}\n---\n{kind: Pod, metadata: {name: b}}\n"},
     ["f.yaml"], [("Pod/a", "f.yaml#0:1"), ("Pod/b", "f.yaml#1:3")]),
    ("a UTF-8 file with a byte order mark is read",
     {"bom.yaml": b"\xef\xbb\xbf" + POD_A},
     ["bom.yaml"], [("Pod/a", "bom.yaml#0:1")]),
    ("a UTF-8 JSON file with a byte order mark is read",
     {"bom.json": b'\xef\xbb\xbf{"kind": "Pod", "metadata": {"name": "a"}}'},
     ["bom.json"], [("Pod/a", "bom.json#0:1")]),
    ("a UTF-16 little-endian file with a byte order mark is read",
     {"u16.yaml": POD_A.decode().encode("utf-16-le").join([b"\xff\xfe", b""])},
     ["u16.yaml"], [("Pod/a", "u16.yaml#0:1")]),
    ("a UTF-16 big-endian file with a byte order mark is read",
     {"u16.yaml": b"\xfe\xff" + (POD_A + b"---\n" + POD_B).decode().encode("utf-16-be")},
     ["u16.yaml"], [("Pod/a", "u16.yaml#0:1"), ("Pod/b", "u16.yaml#1:6")]),
    ("a UTF-16 JSON file with a byte order mark is read",
     {"u16.json": '{"kind": "Pod", "metadata": {"name": "é"}}'.encode("utf-16")},
     ["u16.json"], [("Pod/é", "u16.json#0:1")]),
    ("a folder is read recursively, in path order, only its .yaml, .yml and .json files",
     {"d/b.yaml": POD_B, "d/a/z.yml": b"kind: Pod\nmetadata: {name: z}\n",
      "d/a/y.json": b'{"kind": "Pod", "metadata": {"name": "y"}}', "d/a.yaml": POD_A,
      "d/notes.txt": b"not: [a manifest", "d/README.md": b"# hi", "d/x.yaml.bak": b"{{broken",
      "d/UPPER.YAML": b"{{broken"},
     ["d"], [("Pod/y", "d/a/y.json#0:1"), ("Pod/z", "d/a/z.yml#0:1"), ("Pod/a", "d/a.yaml#0:1"),
             ("Pod/b", "d/b.yaml#0:1")]),
    ("paths are read in the order given, not sorted",
     {"b.yaml": POD_B, "a.yaml": POD_A},
     ["b.yaml", "a.yaml"], [("Pod/b", "b.yaml#0:1"), ("Pod/a", "a.yaml#0:1")]),
    ("a file named explicitly is read whatever its extension",
     {"pods.txt": POD_A},
     ["pods.txt"], [("Pod/a", "pods.txt#0:1")]),
    ("an empty file among others is not an error",
     {"empty.yaml": b"", "p.yaml": POD_A},
     ["empty.yaml", "p.yaml"], [("Pod/a", "p.yaml#0:1")]),
    ("a document of only a comment after a real one is skipped",
     {"m.yaml": POD_A + b"---\n# trailing comment\n"},
     ["m.yaml"], [("Pod/a", "m.yaml#0:1")]),
    ("Windows line endings are fine",
     {"crlf.yaml": POD_A.replace(b"\n", b"\r\n") + b"---\r\n" + POD_B.replace(b"\n", b"\r\n")},
     ["crlf.yaml"], [("Pod/a", "crlf.yaml#0:1"), ("Pod/b", "crlf.yaml#1:6")]),
]


@pytest.mark.parametrize("case, files, paths, expected", READS, ids=[r[0] for r in READS])
def test_reads(tmp_path, monkeypatch, case, files, paths, expected):
    write(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    assert summary(read_inputs(paths)) == expected


def test_the_same_input_gives_the_same_output_twice(tmp_path, monkeypatch):
    write(tmp_path, {f"d/{n}.yaml": b"kind: Pod\nmetadata: {name: p%d}\n" % n for n in (3, 1, 2, 10)})
    monkeypatch.chdir(tmp_path)
    first = read_inputs(["d"])
    assert first == read_inputs(["d"])
    assert [d.source.file for d in first] == ["d/1.yaml", "d/10.yaml", "d/2.yaml", "d/3.yaml"]


MAPPED = [
    # (case, file bytes): JSON files read memory-mapped, as big dumps are, and read whole
    ("a kubectl List", orjson.dumps({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}},
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}]})),
    ("a typed list whose items lack their kind",
     b'{"apiVersion": "v1", "kind": "PodList", "items": [{"metadata": {"name": "a"}}]}'),
    ("a UTF-8 BOM", b"\xef\xbb\xbf" + orjson.dumps({"kind": "List", "items": [{"kind": "Pod", "metadata": {"name": "a"}}]})),
    ("UTF-16", '{"kind": "List", "items": [{"kind": "Pod", "metadata": {"name": "a"}}]}'.encode("utf-16")),
    ("a single object", b'{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}}'),
    ("broken JSON", b'{"kind": "List", "items": [{"kind": "Pod", "metadata": {"name": "a"}},'),
    ("an empty file", b""),
]


def test_a_big_json_list_is_memory_mapped(tmp_path, monkeypatch):
    (tmp_path / "dump.json").write_bytes(orjson.dumps({"kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}}]}))
    monkeypatch.setattr(reader, "MAP_THRESHOLD", 0)
    monkeypatch.setattr(reader, "_read_file", lambda file: pytest.fail(f"{file} was read, not mapped"))
    docs = read_inputs([str(tmp_path / "dump.json")])
    assert [(d.kind, d.obj["metadata"]["name"]) for d in docs] == [("Pod", "a")]


STDIN = [
    # (case, stdin bytes, expected)
    ("YAML on standard input is named stdin",
     POD_A + b"---\n" + POD_B, [("Pod/a", "stdin#0:1"), ("Pod/b", "stdin#1:6")]),
    ("JSON on standard input is recognised by its content",
     b' {"kind": "List", "items": [{"kind": "Pod", "metadata": {"name": "a"}}]}', [("Pod/a", "stdin#0.items[0]")]),
]


@pytest.mark.parametrize("case, data, expected", STDIN, ids=[s[0] for s in STDIN])
def test_stdin(case, data, expected):
    assert summary(read_inputs(["-"], stdin=io.BytesIO(data))) == expected


def test_stdin_mixes_with_files_in_the_order_given(tmp_path, monkeypatch):
    write(tmp_path, {"a.yaml": POD_A})
    monkeypatch.chdir(tmp_path)
    docs = read_inputs(["-", "a.yaml"], stdin=io.BytesIO(POD_B))
    assert summary(docs) == [("Pod/b", "stdin#0:1"), ("Pod/a", "a.yaml#0:1")]


VALUES = [
    # (case, YAML text, the object it must give)
    ("unquoted timestamps stay strings, as kubectl sends them",
     "metadata:\n  creationTimestamp: 2024-05-01T10:00:00Z\n",
     {"metadata": {"creationTimestamp": "2024-05-01T10:00:00Z"}}),
    ("integer, boolean and null keys become strings like sigs.k8s.io/yaml makes them",
     "data:\n  1: one\n  true: yes\n  ~: nothing\n",
     {"data": {"1": "one", "true": True, "null": "nothing"}}),
    ("quantities keep their YAML types: numbers stay numbers, strings stay strings",
     "cpu: 1\nmem: 1Gi\nhalf: 0.5\nquoted: '2'\n",
     {"cpu": 1, "mem": "1Gi", "half": 0.5, "quoted": "2"}),
    ("a merge key copies a mapping and explicit keys override it",
     "base: &b {cpu: 1, mem: 2}\nuse:\n  <<: *b\n  mem: 3\n",
     {"base": {"cpu": 1, "mem": 2}, "use": {"cpu": 1, "mem": 3}}),
    ("an anchor reused a few times is fine",
     "a: &x [1, 2]\nb: *x\nc: *x\n", {"a": [1, 2], "b": [1, 2], "c": [1, 2]}),
    ("a plain = is a string, not a YAML value tag",
     "op: =\n", {"op": "="}),
    ("a !!binary value stays its base64 text",
     "data: !!binary |\n  aGVs\n  bG8=\n", {"data": "aGVsbG8="}),
    ("nesting exactly as deep as the limit is fine (the top mapping counts as one level)",
     "a: " + "[" * (MAX_DEPTH - 1) + "x" + "]" * (MAX_DEPTH - 1) + "\n",
     {"a": json.loads("[" * (MAX_DEPTH - 1) + '"x"' + "]" * (MAX_DEPTH - 1))}),
]


@pytest.mark.parametrize("case, text, expected", VALUES, ids=[v[0] for v in VALUES])
def test_values(case, text, expected):
    [doc] = parse_bytes(text.encode(), "v.yaml")
    assert doc.obj == expected


# -------------------------------------------------------------------------------- bad input ----

ERRORS = [
    # (case, {file: bytes}, paths, expected str(InputError))
    ("an empty file is 'no objects passed', kubectl's words",
     {"empty.yaml": b""}, ["empty.yaml"], "no objects passed (read: empty.yaml)"),
    ("a file of only comments and blank lines is 'no objects passed'",
     {"c.yaml": b"# one\n\n# two\n---\n# three\n"}, ["c.yaml"], "no objects passed (read: c.yaml)"),
    ("several files without objects are 'no objects passed' on the total",
     {"a.yaml": b"", "b.json": b"  \n", "c.yml": b"---\n"}, ["a.yaml", "b.json", "c.yml"], "no objects passed (read: a.yaml, b.json, c.yml)"),
    ("a folder without manifests is 'no objects passed'",
     {"d/notes.txt": POD_A}, ["d"], "no objects passed (read: d)"),
    ("a missing path is named",
     {}, ["nope.yaml"], "nope.yaml: no such file or directory"),
    ("a missing path after good ones is still an error",
     {"a.yaml": POD_A}, ["a.yaml", "gone/"], "gone/: no such file or directory"),
    # A duplicate key names the key's field, and its object when the document has metadata (as far
    # as its kind, name and namespace are read: object_ref's `?` and `default` otherwise).
    ("a duplicate key names the key, its line and the first one's line",
     {"d.yaml": b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  labels: {}\n  name: b\n"},
     ["d.yaml"], 'd.yaml#0:6: Pod/default/a: metadata.name: duplicate key "name" (first on line 4)'),
    ("a duplicate key in a later document names that document",
     {"d.yaml": POD_A + b"---\nkind: Pod\nkind: Node\n"},
     ["d.yaml"], 'd.yaml#1:7: kind: duplicate key "kind" (first on line 6)'),
    ("a duplicate key in a flow mapping is found too",
     {"d.yaml": b"metadata: {name: a, name: b}\n"},
     ["d.yaml"], 'd.yaml#0:1: ?/default/a: metadata.name: duplicate key "name" (first on line 1)'),
    ("a quoted and a plain spelling of the same key are duplicates",
     {"d.yaml": b"kind: Pod\n'kind': Node\n"},
     ["d.yaml"], 'd.yaml#0:2: kind: duplicate key "kind" (first on line 1)'),
    ("a key repeated beside a merge key is a duplicate",
     {"d.yaml": b"b: &b {x: 1}\nm:\n  <<: *b\n  y: 1\n  y: 2\n"},
     ["d.yaml"], 'd.yaml#0:5: m.y: duplicate key "y" (first on line 4)'),
    # JSON as kubectl apply's strict decoding reads it (`json: duplicate field`): not orjson's last-wins.
    ("a duplicate key in a JSON manifest is refused, its object named by the first of the duplicates",
     {"d.json": b'{"apiVersion": "v1", "kind": "Node", "kind": "Pod", "metadata": {"name": "n1"}}'},
     ["d.json"], 'd.json#0:1: Node/n1: duplicate key "kind"'),
    ("a duplicate key deep in a JSON manifest is refused",
     {"d.json": b'\n{"kind": "Pod", "metadata": {"name": "a", "namespace": "s"},\n'
                b' "spec": {"nodeSelector": {"disk": "ssd"}, "nodeSelector": {}}}'},
     ["d.json"], 'd.json#0:2: Pod/s/a: duplicate key "nodeSelector"'),
    ("a duplicate key in a later document of a JSON stream names that document",
     {"d.json": b'{"kind": "Node", "metadata": {"name": "a"}}\n{"kind": "Node", "metadata": {"name": "b", "name": "c"}}'},
     ["d.json"], 'd.json#1:2: Node/b: duplicate key "name"'),
    ("a truncated JSON file reports the line and column",
     {"t.json": b'{"kind": "Pod",\n "metadata": {"name": '},
     ["t.json"], "t.json#0:2: JSON syntax error: unexpected end of data (column 23)"),
    ("a top-level JSON array is refused, as kubectl does",
     {"a.json": b'[{"kind": "Pod", "metadata": {"name": "a"}}]'},
     ["a.json"], "a.json#0:1: top-level JSON array: write the objects as the items of a `kind: List` instead"),
    ("a top-level JSON array in a .yaml file is refused the same way",
     {"a.yaml": b'[{"kind": "Pod"}]'},
     ["a.yaml"], "a.yaml#0:1: top-level JSON array: write the objects as the items of a `kind: List` instead"),
    ("a YAML document that is a list is refused",
     {"l.yaml": POD_A + b"---\n- a\n- b\n"}, ["l.yaml"], "l.yaml#1:6: document is a list, not an object"),
    ("a YAML document that is a scalar is refused",
     {"s.yaml": b"just some words\n"}, ["s.yaml"], "s.yaml#0:1: document is a scalar, not an object"),
    ("a JSON document that is a scalar is refused",
     {"s.json": b'"a string"'}, ["s.json"], "s.json#0:1: document is a scalar, not an object"),
    ("List items that are not a list are refused",
     {"l.yaml": b"kind: List\nitems: {a: 1}\n"}, ["l.yaml"],
     "l.yaml#0:1: items: must be a list of objects, not an object"),
    ("a List item that is not an object is refused with its index and line",
     {"l.yaml": b"kind: List\nitems:\n- kind: Pod\n  metadata: {name: a}\n- 42\n"},
     ["l.yaml"], "l.yaml#0.items[1]:5: List item must be an object, not a scalar"),
    ("a JSON List item that is not an object is refused with its index",
     {"l.json": b'{"kind": "PodList", "items": [[]]}'},
     ["l.json"], "l.json#0.items[0]: List item must be an object, not a list"),
    ("a NUL byte makes the file not a text file",
     {"bin.yaml": b"kind: Pod\n\x00\x01\x02"}, ["bin.yaml"], "bin.yaml#0:2: not a text file: NUL byte at byte 10"),
    ("bytes that are not UTF-8 make a YAML file not a text file",
     {"latin1.yaml": b"kind: Pod\nmetadata:\n  name: caf\xe9\n"},
     ["latin1.yaml"], "latin1.yaml#0:3: not a text file: invalid UTF-8 at byte 31"),
    ("bytes that are not UTF-8 make a JSON file not a text file",
     {"latin1.json": b'{"kind": "Pod",\n "x": "caf\xe9"}'},
     ["latin1.json"], "latin1.json#0:2: not a text file: invalid UTF-8 at byte 26"),
    ("a control character in YAML is refused with its byte",
     {"c.yaml": b"kind: Pod\nname: a\x07b\n"},
     ["c.yaml"], "c.yaml#0:2: not a text file: control characters are not allowed (#x0007 at byte 17)"),
    ("a file with a UTF-16 mark but odd bytes is not a text file",
     {"u.yaml": b"\xff\xfek\x00i\x00n"}, ["u.yaml"], "u.yaml#0: not a text file: invalid UTF-16 at byte 6"),
    ("a Python object tag is refused on one line",
     {"p.yaml": b"kind: Pod\nspec: !!python/object:os.system {}\n"},
     ["p.yaml"], "p.yaml#0:2: YAML error: YAML tag !!python/object:os.system is refused: "
                 "it would build a Python object (column 7)"),
    ("a Python call tag is refused too",
     {"p.yaml": b"- !!python/object/apply:os.system ['true']\n"},
     ["p.yaml"], "p.yaml#0:1: YAML error: YAML tag !!python/object/apply:os.system is refused: "
                 "it would build a Python object (column 3)"),
    ("an unknown local tag is refused",
     {"t.yaml": b"kind: Pod\nx: !Ref thing\n"}, ["t.yaml"], "t.yaml#0:2: YAML error: unknown YAML tag !Ref (column 4)"),
    ("a !!set, which JSON cannot hold, is refused",
     {"t.yaml": b"kind: Pod\nx: !!set {a, b}\n"},
     ["t.yaml"], "t.yaml#0:2: YAML error: YAML tag !!set is not supported in Kubernetes objects (column 4)"),
    ("a mapping used as a key is refused",
     {"k.yaml": b"kind: Pod\n? {a: 1}\n: x\n"},
     ["k.yaml"], "k.yaml#0:2: a mapping key must be a string, not an object"),
    ("an anchor used inside itself is refused",
     {"r.yaml": b"kind: Pod\nspec: &s\n  self: *s\n"},
     ["r.yaml"], "r.yaml#0:2: recursive alias: an anchor is used inside itself"),
    ("an alias to an undefined anchor is a YAML error with its line",
     {"u.yaml": b"kind: Pod\nspec: *nowhere\n"},
     ["u.yaml"], "u.yaml#0:2: YAML syntax error: found undefined alias (column 7)"),
    ("aliases nesting deeper than the limit are refused",
     {"n.yaml": ("d0: &d0 [x]\n" + "".join(f"d{i}: &d{i} [*d{i - 1}]\n" for i in range(1, MAX_DEPTH + 5))).encode()},
     ["n.yaml"], f"n.yaml#0:{MAX_DEPTH + 1}: nesting deeper than {MAX_DEPTH} levels (through aliases)"),
]


@pytest.mark.parametrize("case, files, paths, expected", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(tmp_path, monkeypatch, case, files, paths, expected):
    write(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError) as info:
        read_inputs(paths)
    assert str(info.value) == expected
    assert "\n" not in str(info.value)


SYNTAX = [
    # (case, file, bytes, the start every such message has, the problem it names)
    ("a bad indentation names the line and column",
     "b.yaml", b"kind: Pod\nmetadata:\n  name: a\n   labels: x\n", "b.yaml#0:4: YAML syntax error:",
     "mapping values are not allowed"),
    ("an unclosed flow sequence names where it failed",
     "b.yaml", POD_A + b"---\nkind: Pod\nspec: [a, b\n", "b.yaml#1:", "expected ',' or ']'"),
    ("a tab used for indentation is a YAML error",
     "b.yaml", b"kind: Pod\nmetadata:\n\tname: a\n", "b.yaml#0:3: YAML syntax error:",
     "found character that cannot start any token (column 1)"),
    ("an unterminated quoted string is a YAML error",
     "b.yaml", b'kind: Pod\nname: "abc\n', "b.yaml#0:", "unexpected end of stream"),
    ("a JSON syntax error names line and column",
     "b.json", b'{"kind": "Pod",\n\n "metadata" {}}', "b.json#0:3: JSON syntax error:", "(column 13)"),
    ("broken JSON in a .yaml file reports the JSON error",
     "b.yaml", b'{"kind": "Pod", "metadata": ', "b.yaml#0:1: JSON syntax error:", "unexpected end of data"),
    ("a broken later object of a JSON stream names its document",
     "s.json", b'{"kind": "Pod"}\n{"kind": }\n', "s.json#1:2: JSON syntax error:", "(column 10)"),
    ("NaN is not JSON",
     "n.json", b'{"kind": "Pod", "x": NaN}', "n.json#0:1: JSON syntax error:", "(column"),
]


@pytest.mark.parametrize("case, name, data, start, problem", SYNTAX, ids=[s[0] for s in SYNTAX])
def test_syntax_errors_are_one_line_with_where(tmp_path, case, name, data, start, problem):
    (tmp_path / name).write_bytes(data)
    with pytest.raises(InputError) as info:
        read_inputs([str(tmp_path / name)])
    text = str(info.value).replace(str(tmp_path) + os.sep, "")
    assert text.startswith(start)
    assert problem in text
    assert "\n" not in text and "Traceback" not in text


def billion_laughs() -> bytes:
    lines = ['lol0: &lol0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"lol{i}: &lol{i} [" + ", ".join([f"*lol{i - 1}"] * 9) + "]" for i in range(1, 10)]
    return ("\n".join(lines) + "\n").encode()


def merge_bomb() -> bytes:
    lines = ["m0: &m0 {a: 1, b: 2}"]
    lines += [f"m{i}: &m{i} {{<<: [" + ", ".join([f"*m{i - 1}"] * 4) + "]}" for i in range(1, 40)]
    return ("\n".join(lines) + "\n").encode()


BOMBS = [
    # (case, bytes)
    ("a billion-laughs alias bomb", billion_laughs()),
    ("a bomb built from merge keys", merge_bomb()),
]


@pytest.mark.parametrize("case, data", BOMBS, ids=[b[0] for b in BOMBS])
def test_alias_bombs_are_refused_quickly(case, data):
    start = time.perf_counter()
    with pytest.raises(InputError) as info:
        parse_bytes(data, "bomb.yaml")
    assert time.perf_counter() - start < 2.0
    assert str(info.value).startswith("bomb.yaml#0:1: document contains excessive aliasing (")


DEEP = [
    # (case, file, bytes, expected start of the message)
    ("deeply nested flow sequences are refused before libyaml's composer could overflow",
     "deep.yaml", b"a: " + b"[" * 100_000 + b"]" * 100_000 + b"\n",
     f"deep.yaml#0:1: nesting deeper than {MAX_DEPTH} levels"),
    ("one level deeper than the limit is refused",
     "deep.yaml", b"a: " + b"[" * MAX_DEPTH + b"x" + b"]" * MAX_DEPTH + b"\n",
     f"deep.yaml#0:1: nesting deeper than {MAX_DEPTH} levels"),
    ("deeply nested block mappings are refused with the line",
     "deep.yaml", "".join(" " * i + f"k{i}:\n" for i in range(300)).encode() + b" " * 300 + b"v\n",
     f"deep.yaml#0:{MAX_DEPTH + 1}: nesting deeper than {MAX_DEPTH} levels"),
    ("deeply nested JSON is refused",
     "deep.json", b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "deep.json#0:1: JSON nesting is too deep"),
]


@pytest.mark.parametrize("case, name, data, expected", DEEP, ids=[d[0] for d in DEEP])
def test_deep_nesting_is_refused(case, name, data, expected):
    start = time.perf_counter()
    with pytest.raises(InputError) as info:
        parse_bytes(data, name, is_json=True if name.endswith(".json") else None)
    assert time.perf_counter() - start < 2.0
    assert str(info.value).startswith(expected)


def test_a_binary_file_is_not_a_text_file(tmp_path):
    (tmp_path / "img.yaml").write_bytes(bytes(range(256)) * 4)
    with pytest.raises(InputError) as info:
        read_inputs([str(tmp_path / "img.yaml")])
    assert str(info.value) == f"{tmp_path / 'img.yaml'}#0:1: not a text file: NUL byte at byte 0"


def test_an_unreadable_file_is_named(tmp_path):
    path = tmp_path / "secret.yaml"
    make_unreadable(path, POD_A)
    with pytest.raises(InputError) as info:
        read_inputs([str(path)])
    assert str(info.value) == f"{path}: cannot read file: permission denied"


def test_a_directory_that_cannot_be_opened_as_a_file_is_walked_not_read(tmp_path):
    (tmp_path / "d.yaml").mkdir()  # a folder whose name looks like a manifest
    (tmp_path / "d.yaml" / "p.yml").write_bytes(POD_A)
    assert summary(read_inputs([str(tmp_path / "d.yaml")])) == [("Pod/a", f"{tmp_path / 'd.yaml' / 'p.yml'}#0:1")]


def test_a_fifo_in_a_folder_is_refused_not_waited_on(tmp_path):
    # Reading a FIFO blocks until someone writes to it: a folder's one is refused at once. A FIFO
    # given by name (`-c <(kubectl get ...)`) is read as any file.
    (tmp_path / "a.yaml").write_bytes(POD_A)
    os.mkfifo(tmp_path / "b.yaml")
    with pytest.raises(InputError) as info:
        read_inputs([str(tmp_path)])
    assert str(info.value) == (f"{tmp_path / 'b.yaml'}: not a regular file (a FIFO, socket or device in the "
                               "folder): kwhatif reads the folder's files only")


def test_a_side_file_that_is_not_utf8_is_said_as_a_manifest_would_be(tmp_path):
    (tmp_path / "top.txt").write_bytes(b"shop a 1m 10Mi\n\xff")  # 15 bytes of text, then 0xff at byte 15
    with pytest.raises(InputError) as info:
        reader.read_side_text(str(tmp_path / "top.txt"), "--usage top.txt")
    assert str(info.value) == "--usage top.txt: not a text file: invalid UTF-8 at byte 15"


# ----------------------------------------------------------------------- YAML and JSON agree ----

# YAML 1.1 folds its extra line breaks (NEL, LS, PS) and has no control characters: leave them out.
text = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), max_size=12)
json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**53), 2**53), text)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
    max_leaves=20,
)
objects = st.fixed_dictionaries(
    {"apiVersion": st.just("v1"), "kind": st.sampled_from(["Pod", "Node"])},
    optional={"spec": st.dictionaries(text, json_values, max_size=5)},
)


@settings(max_examples=150, deadline=None)
@given(objects)
def test_yaml_and_json_of_the_same_object_read_the_same(obj):
    from_yaml = parse_bytes(yaml.safe_dump(obj, allow_unicode=True).encode(), "o.yaml")
    from_json = parse_bytes(orjson.dumps(obj), "o.json", is_json=True)
    from_stdlib_json = parse_bytes(json.dumps(obj, indent=2).encode(), "o.txt")
    assert [d.obj for d in from_yaml] == [d.obj for d in from_json] == [d.obj for d in from_stdlib_json] == [obj]


def built_and_constructed(text: str) -> tuple[list, list]:
    """Every document of `text` as the reader's fast builder makes it and as PyYAML's constructor
    (with the reader's overrides) does."""
    out: tuple[list, list] = ([], [])
    for index, fast in enumerate((True, False)):
        loader = _Loader(text, "t.yaml")
        try:
            while loader.check_node():
                node = loader.get_node()
                out[index].append(loader.build(node) if fast else loader.construct_document(node))
        finally:
            loader.dispose()
    return out


TRICKY = [
    # (case, YAML text)
    ("YAML 1.1 scalars: hex and octal integers, yes/no booleans, ~ and infinities",
     "a: 0x1F\nb: 017\nc: yes\nd: No\ne: ~\nf: .inf\ng: -1_000\nh: 1.5e3\ni: 2024-01-01\n"),
    ("explicit tags on scalars", "a: !!str 1\nb: !!int '7'\nc: !!float 1\nd: !!binary aGk=\n"),
    ("merge keys, single and listed", "x: &x {a: 1}\ny: &y {b: 2}\nm: {<<: [*x, *y], c: 3}\nn: {<<: *x, a: 9}\n"),
    ("anchored lists and scalars reused", "l: &l [1, 2]\ns: &s text\nr: [*l, *s, *l]\n"),
    ("non-string keys", "1: a\n1.5: b\ntrue: c\n~: d\n2001-01-01: e\n"),
    ("several documents with empty ones", "a: 1\n---\n---\n- 1\n- [2, {b: 3}]\n---\nplain\n"),
]


@pytest.mark.parametrize("case, text", TRICKY, ids=[t[0] for t in TRICKY])
def test_the_fast_builder_agrees_with_pyyaml_construction(case, text):
    built, constructed = built_and_constructed(text)
    assert built == constructed


@settings(max_examples=100, deadline=None)
@given(objects, st.booleans())
def test_the_fast_builder_agrees_with_pyyaml_on_random_objects(obj, share):
    if share and "spec" in obj:
        obj = {**obj, "status": obj["spec"]}  # the same dict twice: safe_dump writes an anchor
    built, constructed = built_and_constructed(yaml.safe_dump(obj, allow_unicode=True))
    assert built == constructed == [obj]


YAML_LIST = (b'apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: a\n'
             b'  spec:\n    containers:\n    - name: c\n      image: app\n      args:\n      - |\n        line one\n        - not an item\n'
             b'# a comment at column 0\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n\n'
             b'kind: List\nmetadata:\n  resourceVersion: ""\n')

MAPPED_YAML = [
    # (case, file bytes): a big YAML List is read item by item; the outcome is the whole parse's
    ("kubectl's -o yaml List", YAML_LIST),
    ("a typed list whose items lack their kind", b"apiVersion: v1\nkind: PodList\nitems:\n- metadata:\n    name: a\n"),
    ("items sharing an anchor take the whole parse",
     b"kind: List\nitems:\n- kind: Pod\n  metadata: &m {name: a}\n- kind: Node\n  metadata: *m\n"),
    ("a syntax error in an item", YAML_LIST.replace(b"    name: n\n", b"    name: n: m\n")),
    ("a duplicate key in an item", YAML_LIST.replace(b"    name: n\n", b"    name: n\n    name: m\n")),
    ("invalid UTF-8 in an item", YAML_LIST.replace(b"name: n", b"name: \xff")),
    ("a NUL byte", YAML_LIST.replace(b"name: n", b"name: \x00")),
    ("an item that is not a mapping", b"kind: List\nitems:\n- just a string\n"),
    ("a second document after the List", YAML_LIST + b"---\nkind: Pod\nmetadata: {name: b}\n"),
    ("not a List", b"kind: ConfigMap\nitems:\n- a\n- b\nmetadata: {name: c}\n"),
    ("a List in the List", b"kind: List\nitems:\n- kind: Node\n  metadata: {name: n}\n- kind: List\n  items:\n"
                           b"  - kind: Pod\n    metadata: {name: a}\n"),
]


@pytest.mark.parametrize("name, case, data", [("dump.json", *m) for m in MAPPED] + [("dump.yaml", *m) for m in MAPPED_YAML],
                         ids=[f"json: {m[0]}" for m in MAPPED] + [f"yaml: {m[0]}" for m in MAPPED_YAML])
def test_a_big_file_reads_as_a_small_one(tmp_path, monkeypatch, name, case, data):
    # Memory-mapped (every file counts as big) or read whole: the same objects, the same errors.
    # YAML items read apart carry no line (as JSON items never do); an error inside one names its
    # line, and the item too (`.items[N]`, which the whole parse cannot tell).
    (tmp_path / name).write_bytes(data)
    monkeypatch.chdir(tmp_path)

    def outcome():
        try:
            return [(d.kind, d.obj, d.source.file, d.source.doc, d.source.item) for d in read_inputs([name])]
        except InputError as err:
            return re.sub(r"\.items\[\d+\]", "", str(err))

    whole = outcome()
    monkeypatch.setattr(reader, "MAP_THRESHOLD", 0)
    assert outcome() == whole


def test_a_big_yaml_list_is_parsed_item_by_item(tmp_path, monkeypatch):
    (tmp_path / "dump.yaml").write_bytes(YAML_LIST)
    monkeypatch.setattr(reader, "MAP_THRESHOLD", 0)
    docs = read_inputs([str(tmp_path / "dump.yaml")])
    assert [(d.kind, d.source.item) for d in docs] == [("Pod", 0), ("Node", 1)]
    assert all(d._obj is None for d in docs)  # nothing parsed until decoded
    assert docs[0].obj["spec"]["containers"][0]["args"] == ["line one\n- not an item\n"]
    docs[0].release()
    assert docs[0]._obj is None


def test_parsing_leaves_no_reference_cycles():
    # A load pauses the cyclic collector (kwhatif.memory): a cycle made while parsing would keep
    # every parsed document alive until the end of the run (a 60 MB YAML List: 2 GB).
    import gc

    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        parse_bytes(YAML_LIST, "dump.yaml")
        parse_bytes(b"a: &x [1, 2]\nb: *x\n---\n{c: 3}\n", "anchors.yaml")
        assert gc.collect() == 0
    finally:
        if was_enabled:
            gc.enable()


def test_a_load_and_a_simulation_leave_the_collector_as_they_found_it(tmp_path):
    # They pause it while they allocate; freezing is the CLI's call alone (kwhatif.memory): a
    # library caller simulating many times would otherwise keep each run's garbage for ever.
    import gc

    from kwhatif.engine import simulate
    from kwhatif.load.cluster import load_cluster

    (tmp_path / "c.yaml").write_bytes(YAML_LIST)
    frozen, enabled = gc.get_freeze_count(), gc.isenabled()
    simulate(load_cluster([str(tmp_path / "c.yaml")]), "2026-01-01T00:00:00Z")
    assert gc.isenabled() == enabled
    assert gc.get_freeze_count() <= frozen  # objects frozen by an earlier CLI test may be freed meanwhile
