"""Every command treats warnings alike: printed on stderr as `kwhatif: warning: ...`, silenced by
`-q`, and with `--strict` the first one is the run's one error line (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import DATA, NOW, invoke, single_error_line

HOSTILE = Path(__file__).parents[1] / "hostile" / "files"
SAMPLES = Path(__file__).parents[2] / "samples"
OVERCOMMITTED = ["-c", str(HOSTILE / "overcommitted-node.yaml"), "--now", NOW]
# node-1 holds more than it has: the run warns about it, whatever the command.
WARNING = "Node/node-1: its bound pods request more than it has"

COMMANDS = {
    "schedule": ["schedule", *OVERCOMMITTED],
    "place": ["place", str(DATA / "fits.yaml"), *OVERCOMMITTED],
    "check": ["check", str(DATA / "fits.yaml"), *OVERCOMMITTED],
    "capacity": ["capacity", str(DATA / "fits.yaml"), *OVERCOMMITTED, "--max", "2"],
    "capacity --add-node": ["capacity", str(DATA / "fits.yaml"), *OVERCOMMITTED, "--max", "2",
                            "--add-node", str(DATA / "check" / "pool-node.yaml")],
    "compare": ["compare", *OVERCOMMITTED, "--config", str(SAMPLES / "bin-packing.config.yaml")],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_the_run_warning_goes_to_stderr(command):
    result = invoke(COMMANDS[command])
    assert result.exit_code in (0, 1), result.stderr
    assert any(line.startswith("kwhatif: warning: ") and WARNING in line for line in result.stderr.splitlines())


@pytest.mark.parametrize("command", COMMANDS)
def test_quiet_silences_every_warning(command):
    result = invoke([*COMMANDS[command], "-q"])
    assert result.exit_code in (0, 1) and result.stderr == ""


@pytest.mark.parametrize("command", COMMANDS)
def test_strict_makes_the_warning_the_error(command):
    result = invoke([*COMMANDS[command], "--strict"])
    assert result.exit_code == 2 and result.stdout == ""
    assert single_error_line(result.stderr).startswith("kwhatif: error: --strict: ")


def test_quiet_silences_the_warnings_about_pods_to_place():
    args = ["place", str(HOSTILE / "unknown-field.yaml"), "-c", str(HOSTILE / "no-allocatable.yaml"), "--now", NOW,
            "--validate=warn"]
    assert 'unknown field "spec.nodeSelectr"' in invoke(args).stderr
    assert invoke([*args, "-q"]).stderr == ""


EXTENDER = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
extenders:
- urlPrefix: http://127.0.0.1:1/
  filterVerb: filter
"""


def test_config_show_treats_its_warning_like_every_command(tmp_path):
    """An extender is the configuration's one warning (kwhatif never calls extenders)."""
    config = tmp_path / "extender.yaml"
    config.write_text(EXTENDER)
    args = ["config", "show", "--config", str(config)]
    loud = invoke(args)
    assert loud.exit_code == 0
    assert "kwhatif: warning: " in loud.stderr and "1 scheduler extender(s) configured" in loud.stderr
    assert invoke([*args, "-q"]).stderr == ""
    strict = invoke([*args, "--strict"])
    assert strict.exit_code == 2 and strict.stdout == ""
    assert single_error_line(strict.stderr).startswith("kwhatif: error: --strict: ")
