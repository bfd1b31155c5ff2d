"""Issue 7: every hostile input gets a clear answer from the real CLI, never a traceback.

The table is `cases.yaml` (file → exit code, the error or warning text, the first result); the files
are under `files/`; big files and bombs are generated here in tmp_path (GENERATORS), never committed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import orjson
import pytest
import yaml
from click.testing import CliRunner

from kwhatif.cli.main import main
from kwhatif.load import reader
from tests.unreadable import make_unreadable

HERE = Path(__file__).parent
FILES = HERE / "files"
CASES = yaml.safe_load((HERE / "cases.yaml").read_text())["cases"]
NOW = "2026-01-01T00:00:00Z"

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def _pod(name: str, cpu: str = "100m") -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "app", "image": "app:1", "resources": {"requests": {"cpu": cpu}}}]}}


def _good_yaml() -> str:
    return yaml.safe_dump_all([NODE, _pod("p")])


# ----------------------------------------------------------------------------------- generators ----

def _folder_with_dangling_link(tmp: Path) -> Path:
    folder = tmp / "cluster"
    folder.mkdir()
    (folder / "a-node.yaml").write_text(yaml.safe_dump(NODE))
    os.symlink(tmp / "nowhere" / "gone.yaml", folder / "gone.yaml")
    return folder


def _utf16_bom(tmp: Path) -> Path:
    path = tmp / "utf16.yaml"
    path.write_bytes(_good_yaml().encode("utf-16"))  # Python writes the BOM
    assert path.read_bytes()[:2] in (b"\xff\xfe", b"\xfe\xff")
    return path


def _utf8_bom(tmp: Path) -> Path:
    path = tmp / "utf8bom.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + _good_yaml().encode())
    return path


def _deep_yaml(tmp: Path) -> Path:
    path = tmp / "deep.yaml"
    path.write_text("- " * 50_000 + "x\n")  # block sequences nested on one line
    return path


def _deep_json(tmp: Path) -> Path:
    path = tmp / "deep.json"
    path.write_text('{"a":' * 100_000 + "1" + "}" * 100_000)
    return path


def _alias_bomb_wide(tmp: Path) -> Path:
    """Billion laughs, 12 levels of 10 (10^12 nodes once expanded), a few hundred bytes written."""
    lines = ['l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 12):
        lines.append(f"l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * 10) + "]")
    path = tmp / "bomb.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def _same_name_5000(tmp: Path) -> Path:
    path = tmp / "same.yaml"
    path.write_text(yaml.safe_dump_all([NODE] + [_pod("same") for _ in range(5000)]))
    return path


def _big_json_list(tmp: Path) -> Path:
    """A 17 MB `kubectl get -o json` List (memory-mapped, pods read from their bytes), whose last
    pod has a bad quantity."""
    pods = [_pod(f"p-{i}") for i in range(110_000)] + [_pod("bad", cpu="1.5.3")]
    path = tmp / "big.json"
    path.write_bytes(orjson.dumps({"apiVersion": "v1", "kind": "List", "items": [NODE, *pods]}))
    assert path.stat().st_size > reader.MAP_THRESHOLD
    return path


def _big_yaml_list(tmp: Path) -> Path:
    """A 17 MB `kubectl get -o yaml` List (read item by item), whose third item is broken on its
    line 16: `metadata: {name: [bad}` never closes its flow sequence."""
    head = ("apiVersion: v1\nitems:\n"
            "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: node-1\n  status:\n"
            "    allocatable: {cpu: '4', memory: 8Gi, pods: '110'}\n")
    pod = ("- apiVersion: v1\n  kind: Pod\n  metadata: {{name: p-{i}, namespace: default}}\n  spec:\n"
           "    containers: [{{name: app, image: 'app:1'}}]\n")
    items = [pod.format(i=1), "- apiVersion: v1\n  kind: Pod\n  metadata: {name: [bad}\n"]
    items += [pod.format(i=i) for i in range(2, 160_000)]
    path = tmp / "big.yaml"
    path.write_text(head + "".join(items) + "kind: List\nmetadata: {resourceVersion: ''}\n")
    assert path.stat().st_size > reader.MAP_THRESHOLD
    return path


GENERATORS: dict[str, Callable[[Path], Path]] = {
    "big-json-list": _big_json_list,
    "big-yaml-list": _big_yaml_list,
    "folder-with-dangling-link": _folder_with_dangling_link,
    "utf16-bom": _utf16_bom,
    "utf8-bom": _utf8_bom,
    "deep-yaml": _deep_yaml,
    "deep-json": _deep_json,
    "alias-bomb-wide": _alias_bomb_wide,
    "same-name-5000": _same_name_5000,
}

# ------------------------------------------------------------------------------------- running ----


def _run(args: list[str], cwd: Path, real: bool) -> tuple[int, str, str]:
    if real:
        proc = subprocess.run([sys.executable, "-c", "from kwhatif.cli.main import main; main()", *args],
                              cwd=cwd, capture_output=True, text=True, timeout=120)
        return proc.returncode, proc.stdout, proc.stderr
    old = os.getcwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(main, args, catch_exceptions=False)
    finally:
        os.chdir(old)
    return result.exit_code, result.stdout, result.stderr


def _target(case: dict, tmp_path: Path) -> tuple[str, Path]:
    """(the -c argument, the folder to run in): files by their plain name, so messages show it."""
    if "generate" in case:
        path = GENERATORS[case["generate"]](tmp_path)
        return path.name, path.parent
    return case["file"], FILES


def _case_id(case: dict) -> str:
    return case.get("file") or case["generate"]


def test_every_file_has_a_case():
    listed = {c["file"] for c in CASES if "file" in c}
    on_disk = {p.name for p in FILES.iterdir()}
    assert on_disk <= listed, on_disk - listed
    assert set(GENERATORS) == {c["generate"] for c in CASES if "generate" in c}


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_hostile_input(case, tmp_path):
    target, cwd = _target(case, tmp_path)
    start = time.monotonic()
    code, out, err = _run(["schedule", "-c", target, "-o", "json", "--now", NOW], cwd, case.get("subprocess", False))
    elapsed = time.monotonic() - start
    assert "Traceback" not in out + err
    assert "internal error" not in err
    assert elapsed < 30, f"took {elapsed:.1f}s"  # bombs and 5,000 duplicates are refused/read in seconds
    assert code == case["exit"], (out, err)
    lines = err.splitlines()
    if code == 2:
        assert out == ""
        assert len(lines) == 1, lines
        prefix = "kwhatif: error: "
        assert lines[0].startswith(prefix + case["where"]), lines[0]
        assert case["message"] in lines[0], lines[0]
        return
    warnings = [line for line in lines if line.startswith("kwhatif: warning: ")]
    assert len(warnings) == len(lines), lines  # stderr holds warnings only
    if case.get("warning"):
        assert any(case["message"] in w for w in warnings), warnings
    else:
        assert warnings == []
    first = json.loads(out)["results"][0]
    assert case["result"] == first["outcome"] or case["result"] in (first.get("message") or ""), first


@pytest.mark.parametrize("case", [c for c in CASES if c.get("warning")], ids=_case_id)
def test_strict_turns_the_warning_into_an_error(case, tmp_path):
    target, cwd = _target(case, tmp_path)
    code, out, err = _run(["schedule", "-c", target, "-o", "json", "--now", NOW, "--strict"], cwd, False)
    assert code == 2, err
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("kwhatif: error: --strict: "), lines
    assert case["message"] in lines[0]
    assert "Traceback" not in err


def test_same_name_5000_warns_once_per_duplicate(tmp_path):
    path = _same_name_5000(tmp_path)
    code, out, err = _run(["schedule", "-c", path.name, "-o", "json", "--now", NOW], tmp_path, False)
    assert code == 0
    # stderr: one line for the kind of problem, and how many more objects it concerns
    [line] = [line for line in err.splitlines() if "duplicate of the object" in line]
    assert line.endswith("the last one wins (and 4998 more like it)")
    # the JSON keeps every one; the last wins: document 5000 replaces 4999, naming both places
    warnings = [w for w in json.loads(out)["warnings"] if "duplicate of the object" in w]
    assert len(warnings) == 4999
    assert "same.yaml#5000:" in warnings[-1] and "at same.yaml#4999:" in warnings[-1]
    assert [r["pod"] for r in json.loads(out)["results"]] == ["default/same"]


def test_strict_in_place_refuses_unknown_field_of_a_pod_to_place():
    code, out, err = _run(["place", "unknown-field.yaml", "-c", "zero-nodes.yaml", "--now", NOW, "--validate=warn",
                           "--strict"], FILES, False)
    assert code == 2 and out == ""
    assert err.splitlines() == [err.strip()]
    assert 'unknown field "spec.nodeSelectr"' in err and err.startswith("kwhatif: error: --strict: ")


def test_strict_in_explain_refuses_a_duplicate():
    code, out, err = _run(["explain", "default/p", "-c", "duplicate-object.yaml", "--now", NOW, "--strict"],
                          FILES, False)
    assert code == 2 and out == ""
    assert "--strict: duplicate-object.yaml#2:21: Pod/default/p: duplicate of the object" in err


def test_without_strict_explain_goes_on_with_a_warning():
    code, _out, err = _run(["explain", "default/p", "-c", "duplicate-object.yaml", "--now", NOW], FILES, False)
    assert code == 0
    assert "kwhatif: warning: duplicate-object.yaml#2:21" in err


def test_bad_yaml_on_stdin_is_named_stdin():
    proc = subprocess.run([sys.executable, "-c", "from kwhatif.cli.main import main; main()",
                           "schedule", "-c", "-", "--now", NOW],
                          input=(FILES / "tabs.yaml").read_bytes(), capture_output=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.decode().startswith("kwhatif: error: stdin#0:4: YAML syntax error")


def test_unreadable_file_in_a_folder(tmp_path):
    folder = tmp_path / "c"
    folder.mkdir()
    make_unreadable(folder / "secret.yaml", yaml.safe_dump(NODE).encode())
    code, out, err = _run(["schedule", "-c", "c"], tmp_path, False)
    assert code == 2 and out == ""
    assert err == "kwhatif: error: c/secret.yaml: cannot read file: permission denied\n"


def test_a_good_object_next_to_a_bad_one_is_not_lost_silently(tmp_path):
    """kwhatif stops on the first bad object rather than dropping it: the run never goes on without it."""
    (tmp_path / "a.yaml").write_text(_good_yaml())
    (tmp_path / "b.yaml").write_text((FILES / "quantity-10Q.yaml").read_text())
    code, out, err = _run(["schedule", "-c", ".", "-o", "json"], tmp_path, False)
    assert code == 2 and out == ""
    assert "b.yaml#1:" in err and "'10Q'" in err


def test_a_label_key_with_a_newline_is_named_on_one_line(tmp_path):
    """Found by the loader fuzz test: the key is part of the field path, and a raw newline in it
    split the error in two. Expected text: the path `metadata.labels.` + the key escaped as `\\n`."""
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a", "labels": {"\n": None}},
           "spec": {"containers": [{"name": "c", "image": "i"}]}}
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(pod))
    code, out, err = _run(["schedule", "-c", "p.yaml"], tmp_path, False)
    assert (code, out) == (2, "")
    assert err == "kwhatif: error: p.yaml#0:1: Pod/default/a: metadata.labels.\\n: expected a string, got a null\n"
