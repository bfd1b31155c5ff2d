"""`kwhatif sweep` options: bad combinations are one error line (exit 2); formats are chosen with -o."""

from __future__ import annotations

import json

import csv
import io
from pathlib import Path

import pytest

from kwhatif.cli.sweep import SweepProgress
from tests.cli.conftest import single_error_line
from tests.sweep.conftest import SAMPLES, kwhatif, sweep_json

SAMPLE_SWEEP = str(SAMPLES / "sweep.yaml")


def test_tls_needs_a_ca_and_a_certificate() -> None:
    done = kwhatif("sweep", SAMPLE_SWEEP, "--dask", "tls://127.0.0.1:8786", "--dask-tls-ca", "ca.pem")
    assert done.returncode == 2
    assert "--dask-tls-ca and --dask-tls-cert go together" in single_error_line(done.stderr)


def test_jobs_and_dask_are_exclusive() -> None:
    done = kwhatif("sweep", SAMPLE_SWEEP, "--dask", "tcp://127.0.0.1:8786", "--jobs", "2")
    assert done.returncode == 2
    assert "--jobs and --dask are exclusive" in single_error_line(done.stderr)


def test_csv_has_a_header_and_one_line_a_scenario_with_no_progress_off_a_terminal() -> None:
    done = kwhatif("sweep", SAMPLE_SWEEP, "-o", "csv", "--jobs", "2")
    assert done.returncode == 0 and done.stderr == ""
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    # samples/sweep.yaml: 3 node counts x 3 removals, counts outermost
    assert [(r["node_count"], r["remove"]) for r in rows] == [
        (c, z) for c in ("0", "1", "2") for z in ("none", "zone-a", "zone-b")]
    assert all(r["verdict"] in ("pass", "fail") and r["error"] == "" for r in rows)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_sees_scenarios_done_and_the_time_left() -> None:
    stream = Terminal()
    progress = SweepProgress(quiet=False, stream=stream, delay=0.0)
    progress.started -= 10  # 10 s for the first of 4 scenarios: 3 more take 30 s
    progress(1, 4)
    progress(4, 4)
    assert stream.getvalue() == "\rsweep: 1/4 scenarios, ETA 0m30s \rsweep: 4/4 scenarios, ETA 0m00s \n"


def test_quiet_shows_no_progress() -> None:
    stream = Terminal()
    SweepProgress(quiet=True, stream=stream, delay=0.0)(1, 1)
    assert stream.getvalue() == ""


@pytest.mark.parametrize("prepared", [False, True], ids=["dump", "prepared snapshot"])
def test_a_snapshots_warnings_are_said_and_strict_makes_them_the_error(tmp_path, prepared: bool) -> None:
    """A pod bound to a node the snapshot lacks: load_cluster warns (kwhatif/load/cluster.py). A
    `.kws` keeps the warning; the sweep's process never decodes it (its workers do), so it reads
    it from the file's header: said, and refused with --strict, as `-c` of the file does."""
    (tmp_path / "cluster.yaml").write_text(
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '1', memory: 1Gi, pods: '10'}}\n"
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\n"
        "spec: {nodeName: gone, containers: [{name: c, image: x}]}\nstatus: {phase: Running}\n")
    snapshot = "cluster.yaml"
    if prepared:
        snapshot = "cluster.kws"
        done = kwhatif("snapshot", "prepare", str(tmp_path / "cluster.yaml"), "-o", str(tmp_path / snapshot), "-q")
        assert done.returncode == 0, done.stderr
    file = tmp_path / "sweep.yaml"
    file.write_text(f'kind: Sweep\nnow: "2026-01-01T00:00:00Z"\nsnapshots: [{snapshot}]\n')
    warned = kwhatif("sweep", str(file), "--jobs", "1", "-o", "json")
    assert warned.returncode == 0
    assert 'Pod/default/p: bound to node "gone", which is not in the snapshot' in warned.stderr
    strict = kwhatif("sweep", str(file), "--jobs", "1", "--strict")
    assert strict.returncode == 2 and strict.stdout == ""
    assert "--strict: " in single_error_line(strict.stderr)


def test_strict_makes_a_scenarios_own_warning_the_error(tmp_path) -> None:
    """A removal whose labels no node has warns in its row (scenario 1); --strict makes that the
    run's one error line, as every command's --strict does with its warnings."""
    (tmp_path / "cluster.yaml").write_text(
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {zone: a}}\n"
        "status: {allocatable: {cpu: '1', memory: 1Gi, pods: '10'}}\n")
    file = tmp_path / "sweep.yaml"
    file.write_text('kind: Sweep\nnow: "2026-01-01T00:00:00Z"\nsnapshots: [cluster.yaml]\n'
                    "remove:\n- {name: none}\n- {name: zone-b, labels: {zone: b}}\n")
    plain = kwhatif("sweep", str(file), "--jobs", "1", "-o", "json")
    assert plain.returncode == 0
    assert any("no node has these labels" in w for w in json.loads(plain.stdout)["rows"][1]["warnings"])
    strict = kwhatif("sweep", str(file), "--jobs", "1", "--strict")
    assert strict.returncode == 2 and strict.stdout == ""
    line = single_error_line(strict.stderr)
    assert "--strict: scenario 1: " in line and "no node has these labels" in line


def test_an_unreadable_snapshot_fails_its_own_rows_and_the_others_run(tmp_path) -> None:
    """A fleet check over a glob: one snapshot is no kwhatif file. Its scenarios' rows carry the
    load's error line, the good snapshot's scenario runs, and the sweep exits 1 (a row failed)."""
    (tmp_path / "fleet").mkdir()
    (tmp_path / "fleet" / "a.yaml").write_text(
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '1', memory: 1Gi, pods: '10'}}\n")
    (tmp_path / "fleet" / "b.kws").write_bytes(b"not a snapshot\n")
    file = tmp_path / "sweep.yaml"
    file.write_text('kind: Sweep\nnow: "2026-01-01T00:00:00Z"\nsnapshots: ["fleet/*"]\n')
    done = kwhatif("sweep", str(file), "--jobs", "1", "-o", "csv")
    assert done.returncode == 1
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    assert [(r["snapshot"], r["nodes"], r["error"].startswith("error: ")) for r in rows] == [
        ("fleet/a.yaml", "1", False), ("fleet/b.kws", "", True)]
    assert "b.kws: not a prepared snapshot (no KWHATIF-PREPARED header)" in rows[1]["error"]


def test_the_table_fits_a_terminal_and_wide_keeps_every_column() -> None:
    """samples/sweep.yaml at 150 columns: the axes every row shares (one snapshot, one workload
    set, one template, one config) are said once above the table; columns empty in every row
    (warnings, error) are left out; a scenario is one line, its message a reference `[n]` to a
    note below the table that holds it whole, wrapped to the width but for a word longer than a
    line (none here) — compared with `-o json`; `-o wide`: one line a scenario with every column
    and each message whole."""
    env = {"COLUMNS": "150"}
    table = kwhatif("sweep", SAMPLE_SWEEP, "--jobs", "1", env=env).stdout.splitlines()
    assert table[:4] == ["snapshot: cluster.yaml", "workloads: api", "node_template: sweep/node-m5.2xlarge.yaml",
                         "config: default"]
    header = table[4].split()
    assert header[:3] == ["#", "ADDED", "REMOVE"] and header[-1] == "MESSAGE"
    assert not {"WARNINGS", "ERROR", "SNAPSHOT", "WORKLOADS", "CONFIG"} & set(header)
    rows, notes = table[5:5 + 9], table[5 + 9:]
    assert [line.split()[0] for line in rows] == [str(i) for i in range(9)]
    assert notes[0] == "" and all(len(line) <= 150 for line in notes)
    texts: dict[str, str] = {}
    for line in notes[1:]:
        if line.startswith("["):
            ref, _, text = line.partition(" ")
            texts[ref] = text
        else:
            texts[ref] += " " + line.strip()
    messages = [r["message"] for r in sweep_json(Path(SAMPLE_SWEEP), "--jobs", "1")["rows"]]
    assert [texts.get(line.split()[-1]) for line in rows] == messages
    assert len(texts) == len({m for m in messages if m})  # each distinct message once
    bare = kwhatif("sweep", SAMPLE_SWEEP, "--jobs", "1", "--no-headers", env=env).stdout.splitlines()
    assert len(bare) == 9  # for scripts: a line a scenario, each text whole in its cell, no notes
    assert all(line.rstrip().endswith(m or "-") for line, m in zip(bare, messages))
    assert bare[0].split()[8:10] == ["Deployment/shop/api", "no-evictions"]  # whole references for scripts
    wide = kwhatif("sweep", SAMPLE_SWEEP, "--jobs", "1", "-o", "wide", env=env).stdout.splitlines()
    assert wide[0].split()[:3] == ["SCENARIO", "SNAPSHOT", "WORKLOADS"] and wide[0].split()[-2:] == ["WARNINGS", "ERROR"]
    assert len(wide) == 1 + 9  # the header, a line each of the 9 scenarios


def test_a_damaged_prepared_snapshot_fails_its_own_rows_whatever_the_jobs(tmp_path) -> None:
    """good.kws and damaged.kws (cut short of its last bytes) share one header: a worker that keyed what it
    decoded by the header's sha256 gave the damaged file the good one's figures. The payload is
    checked against that sha256 as the sweep reads it: the damaged file's row says so, under
    --jobs 1 and 2 alike (exit 1: a row failed)."""
    (tmp_path / "cluster.yaml").write_text(
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '1', memory: 1Gi, pods: '10'}}\n")
    assert kwhatif("snapshot", "prepare", str(tmp_path / "cluster.yaml"), "-o", str(tmp_path / "good.kws"),
                   "-q").returncode == 0
    whole = (tmp_path / "good.kws").read_bytes()
    (tmp_path / "damaged.kws").write_bytes(whole[:-10])
    file = tmp_path / "sweep.yaml"
    file.write_text('kind: Sweep\nnow: "2026-01-01T00:00:00Z"\nsnapshots: [good.kws, damaged.kws]\n')
    outputs = []
    for jobs in ("1", "2"):
        done = kwhatif("sweep", str(file), "--jobs", jobs, "-o", "csv")
        assert done.returncode == 1
        outputs.append(done.stdout)
    rows = list(csv.DictReader(io.StringIO(outputs[0])))
    assert [(r["snapshot"], r["nodes"]) for r in rows] == [("good.kws", "1"), ("damaged.kws", "")]
    assert "damaged.kws: damaged prepared snapshot (its content does not match its header's sha256)" \
        in rows[1]["error"]
    assert outputs[0] == outputs[1]


def test_a_node_template_is_validated_as_the_workloads_are(tmp_path) -> None:
    """A misspelt field (`taint:`) in a template added nodes without the taint, silently. By
    default (--validate strict, as for the workloads) kubectl apply's refusal stops the sweep;
    with --validate warn it is a warning and the sweep runs."""
    (tmp_path / "cluster.yaml").write_text(
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '1', memory: 1Gi, pods: '10'}}\n")
    (tmp_path / "big.yaml").write_text(
        "apiVersion: v1\nkind: Node\nmetadata: {name: big}\nspec: {taint: [{key: gpu, effect: NoSchedule}]}\n"
        "status: {allocatable: {cpu: '8', memory: 8Gi, pods: '110'}}\n")
    file = tmp_path / "sweep.yaml"
    file.write_text('kind: Sweep\nnow: "2026-01-01T00:00:00Z"\nsnapshots: [cluster.yaml]\n'
                    "nodes:\n- {template: big.yaml, counts: [1]}\n")
    strict = kwhatif("sweep", str(file), "--jobs", "1")
    assert strict.returncode == 2 and strict.stdout == ""
    assert 'Node/big: spec.taint: unknown field: kubectl apply refuses the object' in single_error_line(strict.stderr)
    warned = kwhatif("sweep", str(file), "--jobs", "1", "--validate", "warn", "-o", "csv")
    assert warned.returncode == 0
    assert 'Node/big: unknown field "spec.taint"' in warned.stderr


def test_now_beside_the_files_own_clock_is_said_and_the_files_wins(tmp_path) -> None:
    file = tmp_path / "sweep.yaml"
    file.write_text(f'kind: Sweep\nnow: "2026-01-01T00:00:00Z"\nsnapshots: [{SAMPLES / "cluster.yaml"}]\n')
    done = kwhatif("sweep", str(file), "--jobs", "1", "-o", "json", "--now", "2027-01-01T00:00:00Z")
    assert done.returncode == 0
    assert ("--now 2027-01-01T00:00:00Z: the sweep file's own now: 2026-01-01T00:00:00Z is its scenarios' clock"
            in done.stderr)
    assert json.loads(done.stdout)["now"] == "2026-01-01T00:00:00Z"


def test_one_snapshot_spelt_two_ways_runs_once(tmp_path) -> None:
    (tmp_path / "cluster.yaml").write_text((SAMPLES / "cluster.yaml").read_text())
    file = tmp_path / "sweep.yaml"
    file.write_text('kind: Sweep\nnow: "2026-01-01T00:00:00Z"\nsnapshots: [./cluster.yaml, cluster.yaml, "clu*.yaml"]\n')
    done = kwhatif("sweep", str(file), "--jobs", "1", "-o", "json")
    assert done.returncode == 0, done.stderr
    assert [r["snapshot"] for r in json.loads(done.stdout)["rows"]] == ["./cluster.yaml"]


def test_a_sweep_file_is_not_read_from_stdin() -> None:
    done = kwhatif("sweep", "-")
    assert done.returncode == 2
    assert single_error_line(done.stderr) == ("kwhatif: error: a sweep file is read from a path, not from stdin (its "
                                              "paths are relative to its folder)")
