"""The snapshot file: one `kind: List` with its header in `metadata.annotations`, gzip when the
name ends in `.gz`, written whole or not at all."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from kwhatif.errors import InputError
from kwhatif.live.capture import CAPTURED, Snapshot, write_snapshot

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}


def test_the_header_says_what_the_file_holds_and_lacks() -> None:
    snapshot = Snapshot(keep_all=False, items=[NODE], counts={"nodes": 1, "pods": 0}, skipped=["resourceclaims.resource.k8s.io"])
    document = snapshot.document()
    assert (document["apiVersion"], document["kind"], document["items"]) == ("v1", "List", [NODE])
    header = document["metadata"]["annotations"]
    assert header["kwhatif.snapshot/captured"] == "nodes=1, pods=0"
    assert header["kwhatif.snapshot/not-served"] == "resourceclaims.resource.k8s.io"
    assert header["kwhatif.snapshot/content"].endswith("Secrets and ConfigMaps are never captured")


def test_keep_all_says_so() -> None:
    header = Snapshot(keep_all=True).document()["metadata"]["annotations"]
    assert header["kwhatif.snapshot/content"].startswith("everything kubectl returned (--keep-all)")
    assert "kwhatif.snapshot/not-served" not in header


def test_secrets_and_config_maps_are_not_captured_kinds() -> None:
    assert not [r for r in CAPTURED if r.split(".")[0] in ("secrets", "configmaps")]


@pytest.mark.parametrize("name", ["snap.json", "snap.json.gz"])
def test_the_file_reads_back_as_the_list(tmp_path: Path, name: str) -> None:
    snapshot = Snapshot(keep_all=False, items=[NODE], counts={"nodes": 1})
    write_snapshot(snapshot, str(tmp_path / name))
    data = (tmp_path / name).read_bytes()
    assert json.loads(gzip.decompress(data) if name.endswith(".gz") else data) == snapshot.document()
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # no partial file left behind


def test_a_file_that_cannot_be_written_is_one_error_naming_it(tmp_path: Path) -> None:
    target = tmp_path / "missing-folder" / "snap.json"
    with pytest.raises(InputError) as raised:
        write_snapshot(Snapshot(keep_all=False), str(target))
    assert str(raised.value) == f"{target}: cannot write the snapshot: no such file or directory"


def test_the_same_cluster_gives_the_same_gzip_bytes(tmp_path: Path) -> None:
    # gzip stamps the time in its header unless told otherwise: a snapshot committed twice would differ.
    for name in ("a.json.gz", "b.json.gz"):
        write_snapshot(Snapshot(keep_all=False, items=[NODE], counts={"nodes": 1}), str(tmp_path / name))
    first = (tmp_path / "a.json.gz").read_bytes()
    assert first[:2] == b"\x1f\x8b" and first == (tmp_path / "b.json.gz").read_bytes()


def test_dash_writes_the_snapshot_to_standard_output(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # As `-c -` reads standard input, `-o -` writes standard output: no file named "-".
    monkeypatch.chdir(tmp_path)
    snapshot = Snapshot(keep_all=False, items=[NODE], counts={"nodes": 1})
    write_snapshot(snapshot, "-")
    assert json.loads(capsysbinary.readouterr().out) == snapshot.document()
    assert list(tmp_path.iterdir()) == []
