"""The DRA reference cases written at resource.k8s.io/v1beta1 — what a 1.32 server serves and
a 1.33 one prefers — must decide what kube-scheduler decided for them at v1: the API server
converts between the versions without loss (pkg/apis/resource/v1beta1/conversion.go), so the
scheduler sees the same objects."""

from __future__ import annotations

import json
from pathlib import Path
import pytest
import yaml
from click.testing import CliRunner

from kwhatif.cli.main import main
from tests.conformance.compare import differences
from tests.conformance.versions import as_v1beta1

CASES = Path(__file__).parent / "cases" / "dra"
NOW = "2026-01-01T00:00:00Z"


def _cases() -> list[Path]:
    return sorted(CASES.glob("*.expected.json"))


@pytest.mark.parametrize("expected_path", _cases(), ids=lambda p: p.name.split(".")[0])
def test_a_dra_case_at_v1beta1_decides_as_at_v1(tmp_path: Path, expected_path: Path) -> None:
    case = CASES / expected_path.name.replace(".expected.json", ".yaml")
    objects = [as_v1beta1(o) for o in yaml.safe_load_all(case.read_text()) if o]
    assert any(o["apiVersion"] == "resource.k8s.io/v1beta1" for o in objects)
    written = tmp_path / case.name
    written.write_text(yaml.safe_dump_all(objects))
    result = CliRunner().invoke(main, ["schedule", "-c", str(written), "-o", "json", "--now", NOW, "-q"])
    expected = json.loads(expected_path.read_text())
    if "error" in expected:
        assert result.exit_code == expected["exit"]
        return
    diffs = differences(expected, json.loads(result.stdout))
    assert not diffs, "\n".join(diffs)
