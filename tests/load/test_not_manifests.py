"""Input that is not (yet) Kubernetes manifests, as found in real repositories: a folder holding a
kustomization or Helm values beside the manifests, an unrendered Helm template, a tab in the
indentation, standard input named twice, a hand-written Node without status. Each is either
skipped with one warning (not an object at all, found in a folder) or an error saying its cause."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from kwhatif.errors import InputError
from kwhatif.load.cluster import load_cluster, load_objects
from kwhatif.load.reader import read_inputs

POD = b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\nspec:\n  containers:\n  - name: c\n    image: x\n"
KUSTOMIZATION = b"resources:\n- pod.yaml\n"
VALUES = b"replicaCount: 2\nimage:\n  tag: v1\n"


def _folder(root: Path, files: dict[str, bytes]) -> str:
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return str(root)


def test_files_of_a_folder_without_any_object_are_skipped_with_one_warning(tmp_path: Path) -> None:
    folder = _folder(tmp_path, {"kustomization.yaml": KUSTOMIZATION, "pod.yaml": POD, "chart/values.yaml": VALUES})
    objects, warnings = load_objects([folder])
    assert [type(o).__name__ for o in objects] == ["Pod"]
    assert warnings == [f"skipped 2 file(s) holding no Kubernetes object (no apiVersion or kind; a kustomization, "
                        f"Helm values or a tool's config?): {folder}/chart/values.yaml, {folder}/kustomization.yaml"]


def test_a_folder_of_nothing_but_such_files_is_no_input(tmp_path: Path) -> None:
    folder = _folder(tmp_path, {"kustomization.yaml": KUSTOMIZATION})
    with pytest.raises(InputError) as err:
        load_objects([folder])
    assert str(err.value) == (f"no objects passed (read: {folder}; skipped, as no Kubernetes objects: "
                              f"{folder}/kustomization.yaml)")


def test_a_prepared_snapshot_in_a_folder_is_skipped_with_a_warning_that_says_how_to_read_it(tmp_path: Path) -> None:
    """A .kws is read only as the one -c input: found in a folder beside manifests it is not
    read, and said so (kubectl would skip it silently, as any other file not named .yaml/.json)."""
    folder = _folder(tmp_path, {"pod.yaml": POD, "b.kws": b"KWHATIF-PREPARED {}\n", "a.kws": b"", "notes.txt": b""})
    objects, warnings = load_objects([folder])
    assert [type(o).__name__ for o in objects] == ["Pod"]
    assert warnings == [f"skipped 2 prepared snapshot(s) found in a folder: {folder}/a.kws, {folder}/b.kws: a "
                        f"prepared snapshot is read only as the one -c input (-c {folder}/a.kws)"]


def test_a_folder_holding_only_a_prepared_snapshot_says_so(tmp_path: Path) -> None:
    folder = _folder(tmp_path, {"cluster.kws": b"", "kustomization.yaml": KUSTOMIZATION})
    with pytest.raises(InputError) as err:
        load_objects([folder])
    assert str(err.value) == (f"no objects passed (read: {folder}; skipped, as no Kubernetes objects: "
                              f"{folder}/kustomization.yaml; skipped 1 prepared snapshot(s) found in a folder: "
                              f"{folder}/cluster.kws: a prepared snapshot is read only as the one -c input "
                              f"(-c {folder}/cluster.kws))")


@pytest.mark.parametrize("text, expected", [
    # Named explicitly, a file that is no object is an error, not a skip: the user meant it.
    (KUSTOMIZATION, "{f}#0:1: ?/default/?: apiVersion: missing, and kind too: not a Kubernetes object (a "
                    "kustomization, Helm values or a tool's config? kwhatif reads manifests)"),
    # A kind but no apiVersion is a broken manifest: still the plain error.
    (b"kind: Pod\nmetadata:\n  name: a\n", "{f}#0:1: Pod/default/a: apiVersion: missing"),
    # a field given as null is not a missing one: said as what it is
    (b"apiVersion: v1\nkind: Pod\nmetadata: null\n", "{f}#0:1: Pod/default/?: metadata: must be an object, not a null"),
    (b"apiVersion: v1\nkind: Pod\nmetadata: {name: null}\n",
     "{f}#0:1: Pod/default/?: metadata.name: must be a non-empty string, not a null"),
    # `{{ .Values.name }}` is a YAML flow mapping used as a key: what libyaml says, then why.
    (b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Values.name }}\n",
     "{f}#0:4: a mapping key must be a string, not an object (this looks like an unrendered Helm template: "
     "render it first, e.g. `helm template RELEASE CHART`)"),
    (b"apiVersion: v1\nkind: Pod\nmetadata:\n\tname: a\n",
     "{f}#0:4: YAML syntax error: while scanning for the next token; found character that cannot start any token "
     "(column 1) (line 4 is indented with a tab: YAML indents with spaces only)"),
])
def test_errors_say_their_known_cause(tmp_path: Path, text: bytes, expected: str) -> None:
    path = tmp_path / "in.yaml"
    path.write_bytes(text)
    with pytest.raises(InputError) as err:
        load_objects([str(path)])
    assert str(err.value) == expected.format(f=path)


def test_standard_input_named_twice_is_refused_rather_than_read_empty() -> None:
    stdin = io.BytesIO(POD)
    read_inputs(["-"], stdin)
    with pytest.raises(InputError) as err:
        read_inputs(["-"], stdin)  # e.g. `check - -c -`: the second read would find nothing
    assert "standard input (-) is given more than once" in str(err.value)


def test_a_node_without_allocatable_or_capacity_is_warned_about(tmp_path: Path) -> None:
    path = tmp_path / "node.yaml"
    path.write_bytes(b"apiVersion: v1\nkind: Node\nmetadata:\n  name: bare\n")
    assert load_cluster([str(path)]).warnings == [
        f"{path}#0:1: Node/bare: neither status.allocatable nor status.capacity is set: it holds no pods "
        "(add status.allocatable: cpu, memory, pods)"]


def test_a_volume_without_phase_is_warned_about(tmp_path: Path) -> None:
    """pv_helpers.go FindMatchingVolume skips a volume that is not Available: a hand-written PV
    without status is never bound, where the PV controller would have made it Available at once."""
    path = tmp_path / "pv.yaml"
    path.write_bytes(b"apiVersion: v1\nkind: PersistentVolume\nmetadata:\n  name: pv1\nspec:\n"
                     b"  capacity: {storage: 1Gi}\n  accessModes: [ReadWriteOnce]\n  hostPath: {path: /d}\n---\n"
                     b"apiVersion: v1\nkind: PersistentVolume\nmetadata:\n  name: pv2\nspec:\n"
                     b"  capacity: {storage: 1Gi}\n  accessModes: [ReadWriteOnce]\n  hostPath: {path: /e}\n"
                     b"status: {phase: Available}\n")
    assert load_cluster([str(path)]).warnings == [
        f"{path}#0:1: PersistentVolume/pv1: no status.phase: kube-scheduler binds claims only to Available volumes, "
        "which the PV controller makes a new one at once; as written it is never picked (add status: {phase: "
        "Available}, or Bound with its claimRef)"]
