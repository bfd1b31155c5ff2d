"""Every reference case: `kwhatif schedule -c CASE -o json --now 2026-01-01T00:00:00Z` must decide
what kube-scheduler v1.34.1 decided (outcome, node, ties, messages, nomination, victims)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from kwhatif.cli.main import main
from tests.conformance.compare import differences
from tests.conformance.known_gaps import KNOWN_GAPS

CASES = Path(__file__).parent / "cases"
NOW = "2026-01-01T00:00:00Z"
OUTPUT_SCHEMA = json.loads((Path(__file__).parents[2] / "schemas" / "schedule-output.schema.json").read_text())


def _cases() -> list:
    params = []
    for expected in sorted(CASES.glob("*/*.expected.json")):
        name = expected.name[: -len(".expected.json")]
        marks = []
        if name in KNOWN_GAPS:
            marks.append(pytest.mark.xfail(reason=KNOWN_GAPS[name], strict=True))
        params.append(pytest.param(expected, id=f"{expected.parent.name}/{name}", marks=marks))
    return params


def _run(case: Path) -> tuple[int, str, str]:
    args = ["schedule", "-c", str(case.with_suffix(".yaml")), "-o", "json", "--now", NOW, "-q"]
    config = case.parent / f"{case.name}.config.yaml"
    if config.exists():
        args += ["--config", str(config)]
    result = CliRunner().invoke(main, args)
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("expected_path", _cases())
def test_case_matches_kube_scheduler(expected_path: Path) -> None:
    expected = json.loads(expected_path.read_text())
    case = expected_path.with_name(expected_path.name[: -len(".expected.json")])
    code, out, err = _run(case)
    if "error" in expected:  # an invalid configuration: refused with the scheduler's own text
        assert code == expected["exit"]
        assert err.strip() == expected["error"]
        return
    actual = json.loads(out)
    jsonschema.validate(actual, OUTPUT_SCHEMA)
    diffs = differences(expected, actual)
    assert not diffs, "\n".join(diffs)
