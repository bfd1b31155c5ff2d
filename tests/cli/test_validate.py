"""`--validate`, as kubectl apply's: an unknown field in a manifest to apply is an error by
default (the API server's strict decoding refuses the object: `strict decoding error: unknown
field "spec.nodeSelectr"`), a warning with `--validate=warn`, nothing with `--validate=ignore`.
The same object among the cluster's own objects (-c: what runs, dumped by a server of any
version) is only ever warned about."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import NOW, invoke, single_error_line

HOSTILE = Path(__file__).parents[1] / "hostile" / "files"
CLUSTER = HOSTILE / "no-allocatable.yaml"
TYPO = HOSTILE / "unknown-field.yaml"  # Pod/default/p with `spec.nodeSelectr` (and a Node)
REFUSED = (f"kwhatif: error: {TYPO}#1:9: Pod/default/p: spec.nodeSelectr: unknown field: kubectl apply refuses the "
           'object (strict decoding error: unknown field "spec.nodeSelectr"); --validate=warn reads it with a '
           "warning instead")
WARNED = f'kwhatif: warning: {TYPO}#1:9: Pod/default/p: unknown field "spec.nodeSelectr"'

MANIFEST_COMMANDS = {
    "place": ["place", str(TYPO)],
    "check": ["check", str(TYPO)],
    "capacity": ["capacity", str(TYPO), "--max", "1"],
    "explain -f": ["explain", "default/p", "-f", str(TYPO)],
    "diff": ["diff", str(TYPO)],
    "compare": ["compare", str(TYPO), "--config", str(Path(__file__).parents[2] / "samples" /
                                                      "bin-packing.config.yaml")],
}


@pytest.mark.parametrize("command", ["check", "capacity"])
def test_a_misspelt_field_is_refused_by_default(command: str) -> None:
    """A gate judges every manifest: one the API server refuses is the run's error."""
    result = invoke([*MANIFEST_COMMANDS[command], "-c", str(CLUSTER), "--now", NOW])
    assert result.exit_code == 2 and result.stdout == ""
    assert single_error_line(result.stderr) == REFUSED


@pytest.mark.parametrize("command", ["place", "explain -f", "diff", "compare"])
def test_a_pod_with_a_misspelt_field_is_rejected_by_default(command: str) -> None:
    """Pods to place: the pod the API server refuses is reported as rejected, with the same
    words, and the run goes on (the cluster's own pending default/p is placed beside it)."""
    result = invoke([*MANIFEST_COMMANDS[command], "-c", str(CLUSTER), "--now", NOW])
    assert result.exit_code in (0, 1), result.stderr
    warning = REFUSED.replace("kwhatif: error: ", "kwhatif: warning: ")
    assert any(line.startswith(warning) for line in result.stderr.splitlines())
    if command == "place":  # explain -f explains the cluster's own default/p; a diff shows what changed
        assert "rejected by the API server: spec.nodeSelectr: unknown field" in " ".join(result.stdout.split())


@pytest.mark.parametrize("command", MANIFEST_COMMANDS)
def test_validate_warn_reads_it_with_the_warning(command: str) -> None:
    result = invoke([*MANIFEST_COMMANDS[command], "-c", str(CLUSTER), "--now", NOW, "--validate=warn"])
    assert result.exit_code in (0, 1), result.stderr
    assert WARNED in result.stderr.splitlines()


def test_validate_ignore_says_nothing() -> None:
    # (The cluster runs its own default/p: the file's is refused as AlreadyExists, not for its field.)
    result = invoke(["place", str(TYPO), "-c", str(CLUSTER), "--now", NOW, "--validate=ignore"])
    assert "unknown field" not in result.stderr + result.stdout


def test_the_clusters_own_objects_are_only_warned_about() -> None:
    result = invoke(["schedule", "-c", str(TYPO), "--now", NOW])
    assert result.exit_code == 0
    assert WARNED in result.stderr.splitlines()


def test_a_sweeps_workload_files_are_refused_alike(tmp_path: Path) -> None:
    (tmp_path / "sweep.yaml").write_text(
        f"kind: Sweep\nnow: \"{NOW}\"\nsnapshots: [{CLUSTER}]\nworkloads:\n- name: p\n  files: [{TYPO}]\n")
    refused = invoke(["sweep", str(tmp_path / "sweep.yaml"), "--jobs", "1", "-q"])
    assert refused.exit_code == 2 and refused.stdout == ""
    assert "spec.nodeSelectr: unknown field: kubectl apply refuses the object" in single_error_line(refused.stderr)
    warned = invoke(["sweep", str(tmp_path / "sweep.yaml"), "--jobs", "1", "-q", "--validate=warn", "-o", "json"])
    assert warned.exit_code in (0, 1), warned.stderr
    assert len(json.loads(warned.stdout)["rows"]) == 1
