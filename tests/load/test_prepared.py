"""Prepared snapshots (`.kws`): what a `-c` reads from one is what it reads from the dump, and a
foreign, stale, damaged or mixed input is refused with one line naming the file."""

from __future__ import annotations

import hashlib
import json
import pickle
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

from kwhatif import __version__
from kwhatif.api.cluster import Cluster
from kwhatif.load.cluster import load_cluster
from kwhatif.load.prepared import (
    FORMAT, MAGIC, changed_inputs, encode_prepared, header_warnings, input_digest, read_header,
)
from tests.cli.conftest import executable, single_error_line

REPO = Path(__file__).parents[2]
SAMPLE = REPO / "samples" / "cluster.yaml"
NOW = "2026-01-01T00:00:00Z"


def kwhatif(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([executable("kwhatif"), *args], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("kws") / "sample.kws"
    done = kwhatif("snapshot", "prepare", str(SAMPLE), "-o", str(target), "-q")
    assert done.returncode == 0, done.stderr
    return target


def test_a_prepared_snapshot_schedules_byte_for_byte_like_its_dump(prepared: Path) -> None:
    # The same cluster, read two ways: the whole JSON output must be identical.
    from_dump = kwhatif("schedule", "-c", str(SAMPLE), "--now", NOW, "-o", "json")
    from_kws = kwhatif("schedule", "-c", str(prepared), "--now", NOW, "-o", "json")
    assert from_kws.returncode == from_dump.returncode
    assert from_kws.stdout == from_dump.stdout
    assert from_kws.stderr == from_dump.stderr


def test_the_loaded_objects_are_equal(prepared: Path) -> None:
    assert load_cluster([str(prepared)]) == load_cluster([str(SAMPLE)])


def test_the_header_names_the_version_and_the_inputs_sha256(prepared: Path) -> None:
    header, _start = read_header(prepared.read_bytes(), str(prepared))
    # sha256 over each file: its name, a NUL, then its bytes (kwhatif.load.prepared.input_digest).
    expected = hashlib.sha256(str(SAMPLE).encode() + b"\0" + SAMPLE.read_bytes()).hexdigest()
    assert header["kwhatif"] == __version__
    assert {k: header["input"][k] for k in ("files", "sha256")} == {"files": [str(SAMPLE)], "sha256": expected}
    stat = SAMPLE.stat()
    assert header["input"]["seen"] == {"paths": [str(SAMPLE.resolve())],
                                       "files": [[str(SAMPLE.resolve()), stat.st_size, stat.st_mtime_ns]]}
    assert input_digest([str(SAMPLE)])["sha256"] == expected


def test_a_foreign_file_is_refused(tmp_path: Path) -> None:
    foreign = tmp_path / "foreign.kws"
    foreign.write_bytes(b"\x80\x05 not ours")
    done = kwhatif("schedule", "-c", str(foreign))
    assert done.returncode == 2
    line = single_error_line(done.stderr)
    assert str(foreign) in line and "not a prepared snapshot" in line


def test_a_file_of_another_version_is_stale(prepared: Path, tmp_path: Path) -> None:
    data = prepared.read_bytes()
    head, _, payload = data.partition(b"\n")
    header = json.loads(head[len(MAGIC):])
    header["kwhatif"] = "0.0.1"
    stale = tmp_path / "stale.kws"
    stale.write_bytes(MAGIC + json.dumps(header).encode() + b"\n" + payload)
    done = kwhatif("schedule", "-c", str(stale))
    assert done.returncode == 2
    line = single_error_line(done.stderr)
    assert f"stale prepared snapshot: written by kwhatif 0.0.1, this is kwhatif {__version__}" in line
    assert str(SAMPLE) in line  # where to prepare it from


@pytest.mark.parametrize("inputs, said", [
    ("x", "not a prepared snapshot (its header is not kwhatif's)"),
    ({"files": 5}, "stale prepared snapshot: written by kwhatif 0.0.1"),  # its input unnamed: "?"
])
def test_a_header_with_a_foreign_input_record_is_refused_in_one_line(prepared: Path, tmp_path: Path, inputs: object,
                                                                     said: str) -> None:
    head, _, payload = prepared.read_bytes().partition(b"\n")
    header = json.loads(head[len(MAGIC):])
    header.update(kwhatif="0.0.1", input=inputs)
    crafted = tmp_path / "crafted.kws"
    crafted.write_bytes(MAGIC + json.dumps(header).encode() + b"\n" + payload)
    done = kwhatif("schedule", "-c", str(crafted))
    assert done.returncode == 2
    assert said in single_error_line(done.stderr)


@pytest.mark.parametrize("change, said", [
    ({"kwhatif": None}, "not a prepared snapshot (its header is not kwhatif's)"),  # not "written by kwhatif None"
    # the warnings a sweep's process says from the header alone: no internal error
    ({"warnings": None}, "not a prepared snapshot (its header is not kwhatif's)"),
    ({"more_warnings": "3"}, "not a prepared snapshot (its header is not kwhatif's)"),
    ({"format": 99}, f"stale prepared snapshot: its format is 99, this kwhatif's is {FORMAT}; prepare it again"),
])
def test_a_header_of_another_shape_says_what_differs(prepared: Path, tmp_path: Path, change: dict[str, object],
                                                     said: str) -> None:
    head, _, payload = prepared.read_bytes().partition(b"\n")
    header = {**json.loads(head[len(MAGIC):]), **change}
    crafted = tmp_path / "crafted.kws"
    crafted.write_bytes(MAGIC + json.dumps(header).encode() + b"\n" + payload)
    done = kwhatif("schedule", "-c", str(crafted))
    assert done.returncode == 2 and said in single_error_line(done.stderr)


def test_a_file_cut_inside_its_header_is_damaged(prepared: Path, tmp_path: Path) -> None:
    cut = tmp_path / "cut.kws"
    cut.write_bytes(prepared.read_bytes()[:len(MAGIC) + 20])
    assert "damaged prepared snapshot (its header is cut short)" in single_error_line(kwhatif("schedule", "-c", str(cut)).stderr)


def test_a_file_of_another_object_model_is_stale(prepared: Path, tmp_path: Path) -> None:
    head, _, payload = prepared.read_bytes().partition(b"\n")
    header = json.loads(head[len(MAGIC):])
    header["model"] = "0" * 64
    stale = tmp_path / "model.kws"
    stale.write_bytes(MAGIC + json.dumps(header).encode() + b"\n" + payload)
    line = single_error_line(kwhatif("schedule", "-c", str(stale)).stderr)
    assert f"stale prepared snapshot: written by another build of kwhatif {__version__}, whose object model differs" in line


def test_a_damaged_file_is_refused(prepared: Path, tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.kws"
    damaged.write_bytes(prepared.read_bytes()[:-10])
    done = kwhatif("schedule", "-c", str(damaged))
    assert done.returncode == 2
    assert "damaged prepared snapshot" in single_error_line(done.stderr)


def test_a_prepared_snapshot_is_the_only_cluster_input(prepared: Path) -> None:
    done = kwhatif("schedule", "-c", str(prepared), "-c", str(SAMPLE))
    assert done.returncode == 2
    assert "must be the only -c input" in single_error_line(done.stderr)


def test_the_output_must_be_named_kws(tmp_path: Path) -> None:
    done = kwhatif("snapshot", "prepare", str(SAMPLE), "-o", str(tmp_path / "x.json"))
    assert done.returncode == 2
    assert "ends with .kws" in single_error_line(done.stderr)
    assert not (tmp_path / "x.json").exists()


class _Planted:
    """What a crafted payload would hold: unpickling it calls Path.touch on the mark."""

    def __init__(self, mark: Path) -> None:
        self.mark = mark

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return Path.touch, (self.mark,)


def test_a_payload_naming_anything_but_the_object_model_runs_nothing(prepared: Path, tmp_path: Path) -> None:
    """A valid header with a re-computed sha256 (anyone can compute it) over a pickle that
    would call a function: refused before the call — the mark is never made."""
    mark = tmp_path / "PLANTED"
    head, _, _ = prepared.read_bytes().partition(b"\n")
    header = json.loads(head[len(MAGIC):])
    payload = pickle.dumps(_Planted(mark), protocol=5)
    header["payload_sha256"] = hashlib.sha256(payload).hexdigest()
    crafted = tmp_path / "crafted.kws"
    crafted.write_bytes(MAGIC + json.dumps(header).encode() + b"\n" + payload)
    done = kwhatif("schedule", "-c", str(crafted), "--now", NOW)
    assert done.returncode == 2
    assert not mark.exists()
    assert "not a prepared snapshot: it names pathlib.Path.touch" in single_error_line(done.stderr)


class _Number:
    """A payload calling Fraction with a text (Fraction reads `1e2000000000` for minutes)."""

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return Fraction, ("1e2000000000",)


@pytest.mark.parametrize("payload, said", [
    (pickle.dumps(_Number(), protocol=5), "it holds the number ('1e2000000000',)"),
    (b"\xff\x00garbage", "invalid load key"),
    (pickle.dumps(Fraction(1, 3), protocol=5)[:-4], "pickle data was truncated"),
])
def test_a_crafted_payload_is_no_snapshot_and_no_crash(prepared: Path, tmp_path: Path, payload: bytes,
                                                       said: str) -> None:
    head, _, _ = prepared.read_bytes().partition(b"\n")
    header = json.loads(head[len(MAGIC):])
    header["payload_sha256"] = hashlib.sha256(payload).hexdigest()
    crafted = tmp_path / "crafted.kws"
    crafted.write_bytes(MAGIC + json.dumps(header).encode() + b"\n" + payload)
    done = subprocess.run([executable("kwhatif"), "schedule", "-c", str(crafted), "--now", NOW],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    line = single_error_line(done.stderr)
    assert "not a prepared snapshot: " in line and said in line


@pytest.mark.parametrize("shape, said", [
    ({"nodes": "garbage"}, "its nodes is str, not list"),
    ({"pods": ["garbage"]}, "its pods holds a str, not a Pod"),
    ({"namespaces": {1: None}}, "its namespaces holds a int, not a str"),
    ({"controllers": {("ReplicaSet", "shop", "web"): Fraction(1, 2)}}, "its controllers holds a Fraction, not a Controller"),
])
def test_a_cluster_of_the_object_model_in_the_wrong_shape_is_no_snapshot(prepared: Path, tmp_path: Path,
                                                                          shape: dict, said: str) -> None:
    """Cluster(nodes="garbage"), made of kwhatif's own classes (the unpickler lets it through),
    is refused by its collections' declared classes (a crash, exit 3, before)."""
    cluster = load_cluster([str(prepared)])
    for name, value in shape.items():
        setattr(cluster, name, value)
    head, _, _ = prepared.read_bytes().partition(b"\n")
    header = json.loads(head[len(MAGIC):])
    payload = encode_prepared(cluster, header["input"]).partition(b"\n")[2]
    header["payload_sha256"] = hashlib.sha256(payload).hexdigest()
    crafted = tmp_path / "crafted.kws"
    crafted.write_bytes(MAGIC + json.dumps(header).encode() + b"\n" + payload)
    done = kwhatif("schedule", "-c", str(crafted), "--now", NOW)
    assert done.returncode == 2, done.stderr
    line = single_error_line(done.stderr)
    assert f"crafted.kws: not a prepared snapshot: {said}" in line


OVERCOMMITTED = """apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: big, namespace: default}
  spec:
    nodeName: n1
    containers: [{name: c, image: x, resources: {requests: {cpu: "3"}}}]
  status: {phase: Running}
"""


def test_prepare_says_the_warnings_a_run_says_and_strict_refuses_them(tmp_path: Path) -> None:
    """A node its bound pods overcommit (3 cpu requested of 2) is said by every run of the dump:
    `prepare` says it too, and its --strict refuses it, as a run's --strict would."""
    dump = tmp_path / "dump.yaml"
    dump.write_text(OVERCOMMITTED)
    said = "Node/n1: its bound pods request more than it has (cpu 3 requested, 2 allocatable)"
    run = kwhatif("schedule", "-c", str(dump), "--now", NOW)
    assert said in run.stderr
    warned = kwhatif("snapshot", "prepare", str(dump), "-o", str(tmp_path / "a.kws"))
    assert warned.returncode == 0 and said in warned.stderr
    refused = kwhatif("snapshot", "prepare", str(dump), "-o", str(tmp_path / "b.kws"), "--strict")
    assert refused.returncode == 2 and said in single_error_line(refused.stderr)
    assert not (tmp_path / "b.kws").exists()


def test_the_header_repeats_the_clusters_warnings_as_many_as_fit() -> None:
    """A reader that never decodes the payload (a sweep's process) says them from the header,
    which is read within its first 64 KB: 16,384 characters of them at most, then how many more.
    Here 100-character warnings: 163 fit (16,300 characters), 37 more are counted."""
    cluster = Cluster()
    cluster.warnings = [f"w{i:03d}".ljust(100, ".") for i in range(200)]
    data = encode_prepared(cluster, {})
    header, _ = read_header(data, "c.kws")
    said = header_warnings(header, "c.kws")
    assert said[:163] == cluster.warnings[:163] and len(said) == 164
    assert said[-1] == "c.kws: and 37 more warnings (`kwhatif schedule -c c.kws` says them all)"


def _prepared_from(inputs: list[Path], target: Path) -> Path:
    done = kwhatif("snapshot", "prepare", *map(str, inputs), "-o", str(target), "-q")
    assert done.returncode == 0, done.stderr
    return target


def test_a_snapshot_whose_dump_changed_since_says_so_and_strict_refuses_it(tmp_path: Path) -> None:
    """The dump fetched again but not prepared again: every -c of the .kws says the snapshot
    holds the cluster as it was, and how to prepare it again; --strict refuses it (exit 2)."""
    dump = tmp_path / "dump.yaml"
    dump.write_bytes(SAMPLE.read_bytes())
    kws = _prepared_from([dump], tmp_path / "c.kws")
    quiet = kwhatif("schedule", "-c", str(kws), "--now", NOW)
    assert "changed since" not in quiet.stderr
    dump.write_bytes(SAMPLE.read_bytes() + b"\n")  # one byte more: the size differs
    said = (f"{kws}: {dump} changed since this snapshot was prepared: it holds the cluster as it was then "
            f"(prepare it again: kwhatif snapshot prepare {dump} -o {kws})")
    run = kwhatif("schedule", "-c", str(kws), "--now", NOW)
    assert run.returncode == quiet.returncode and run.stdout == quiet.stdout
    assert f"kwhatif: warning: {said}" in run.stderr.splitlines()
    strict = kwhatif("schedule", "-c", str(kws), "--now", NOW, "--strict")
    assert strict.returncode == 2 and said in single_error_line(strict.stderr)


def test_a_folder_with_a_file_more_is_a_change_and_a_dump_deleted_is_none(tmp_path: Path) -> None:
    folder = tmp_path / "dump"
    folder.mkdir()
    (folder / "a.yaml").write_bytes(SAMPLE.read_bytes())
    kws = _prepared_from([folder], tmp_path / "c.kws")
    (folder / "b.yaml").write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: extra}\n")
    header, _ = read_header(kws.read_bytes(), str(kws))
    assert changed_inputs(header, "c.kws") == [
        f"c.kws: {folder / 'b.yaml'} changed since this snapshot was prepared: it holds the cluster as it was then "
        f"(prepare it again: kwhatif snapshot prepare {folder} -o c.kws)"]
    assert header_warnings(header, "c.kws")[0] == changed_inputs(header, "c.kws")[0]  # a sweep's parent says it too
    (folder / "a.yaml").unlink()
    (folder / "b.yaml").unlink()
    folder.rmdir()
    assert changed_inputs(header, "c.kws") == []  # gone once prepared: nothing to compare with
