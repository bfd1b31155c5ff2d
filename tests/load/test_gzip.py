"""Gzip-compressed input (`kwhatif snapshot -o dump.json.gz`): every `-c` reads it, named, in a
folder or on stdin, as it reads the same text uncompressed; a broken one is one error line naming
the file."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pytest

from kwhatif.errors import InputError
from kwhatif.load import reader
from kwhatif.load.reader import read_inputs

POD_YAML = b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n"
NODE_LIST_JSON = json.dumps({"apiVersion": "v1", "kind": "List", "items": [
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}},
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"}}]}).encode()


def names(paths: list[str], stdin: io.BytesIO | None = None) -> list[tuple[str, str]]:
    return [(d.obj["metadata"]["name"], str(d.source)) for d in read_inputs(paths, stdin)]


@pytest.mark.parametrize("name, data, expected", [
    pytest.param("dump.json.gz", NODE_LIST_JSON, [("n1", "{f}#0.items[0]"), ("n2", "{f}#0.items[1]")],
                 id="a .json.gz List is read as JSON, item by item"),
    pytest.param("pod.yaml.gz", POD_YAML, [("a", "{f}#0:1")], id="a .yaml.gz file is read as YAML, with lines"),
    pytest.param("snapshot", NODE_LIST_JSON, [("n1", "{f}#0.items[0]"), ("n2", "{f}#0.items[1]")],
                 id="a gzip file is told by its content, whatever its name"),
])
def test_a_named_gzip_file_reads_like_its_text(tmp_path: Path, name: str, data: bytes,
                                               expected: list[tuple[str, str]]) -> None:
    path = tmp_path / name
    path.write_bytes(gzip.compress(data))
    assert names([str(path)]) == [(n, s.format(f=path)) for n, s in expected]


def test_a_folder_reads_gzipped_manifests_beside_plain_ones(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_bytes(POD_YAML)
    (tmp_path / "b.json.gz").write_bytes(gzip.compress(NODE_LIST_JSON))
    (tmp_path / "c.yml.gz").write_bytes(gzip.compress(POD_YAML.replace(b"name: a", b"name: c")))
    (tmp_path / "notes.txt.gz").write_bytes(gzip.compress(POD_YAML))  # not a manifest's extension: skipped
    assert [n for n, _s in names([str(tmp_path)])] == ["a", "n1", "n2", "c"]


def test_gzipped_stdin_is_read(tmp_path: Path) -> None:
    assert names(["-"], io.BytesIO(gzip.compress(POD_YAML))) == [("a", "stdin#0:1")]


def test_a_big_plain_list_is_still_memory_mapped_beside_a_gzipped_one(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "MAP_THRESHOLD", 0)
    (tmp_path / "big.json").write_bytes(NODE_LIST_JSON)
    (tmp_path / "big.json.gz").write_bytes(gzip.compress(NODE_LIST_JSON))
    read = []
    monkeypatch.setattr(reader, "_read_file", lambda file: read.append(file) or Path(file).read_bytes())
    assert len(read_inputs([str(tmp_path / "big.json"), str(tmp_path / "big.json.gz")])) == 4
    assert read == [str(tmp_path / "big.json.gz")]  # the plain one was mapped, not read


@pytest.mark.parametrize("data, message", [
    pytest.param(gzip.compress(POD_YAML)[:20], "not a readable gzip file: compressed file ended before the "
                                               "end-of-stream marker was reached", id="truncated"),
    pytest.param(b"\x1f\x8b\x08garbage", "not a readable gzip file: ", id="a gzip header over garbage"),
])
def test_a_broken_gzip_file_is_one_error_naming_it(tmp_path: Path, data: bytes, message: str) -> None:
    path = tmp_path / "dump.json.gz"
    path.write_bytes(data)
    with pytest.raises(InputError) as raised:
        read_inputs([str(path)])
    assert str(raised.value).startswith(f"{path}#0: {message}")
