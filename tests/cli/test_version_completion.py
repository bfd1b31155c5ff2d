"""`kwhatif version`, `kwhatif completion SHELL` (click's machinery: the script calls kwhatif back
with `_KWHATIF_COMPLETE`), pod names completed from the -c snapshot, and a pod named without its
namespace: `-n`, or a hint naming the namespaces where that name exists."""

from __future__ import annotations

import os
import platform
import subprocess

import pytest

from kwhatif import __version__
from tests.cli.conftest import REPO, executable, invoke, single_error_line

SAMPLES = ["-c", str(REPO / "samples" / "cluster.yaml"), "--now", "2026-01-01T00:00:00Z"]


def test_version_names_kwhatif_the_emulated_scheduler_and_python() -> None:
    result = invoke(["version"])
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [f"kwhatif {__version__}", "emulates kube-scheduler v1.34.1",
                                          f"Python {platform.python_version()} ({platform.python_implementation()})"]


@pytest.mark.parametrize("shell, marker", [("bash", "complete -o nosort -F"), ("zsh", "#compdef kwhatif"),
                                           ("fish", "complete --no-files --command kwhatif")])
def test_completion_scripts_call_kwhatif_back(shell: str, marker: str) -> None:
    result = invoke(["completion", shell])
    assert result.exit_code == 0 and marker in result.stdout
    assert f"_KWHATIF_COMPLETE={shell}_complete" in result.stdout.replace("=\"", "=").replace("'", "")


def _complete(words: str) -> list[str]:
    env = {**os.environ, "_KWHATIF_COMPLETE": "bash_complete", "COMP_WORDS": words,
           "COMP_CWORD": str(len(words.split()) - (0 if words.endswith(" ") else 1))}
    done = subprocess.run([executable("kwhatif")], env=env, capture_output=True, text=True, timeout=120)
    return [line.split(",", 1)[1] for line in done.stdout.splitlines()]


def test_commands_complete() -> None:
    assert _complete("kwhatif exp") == ["explain"]


def test_explain_completes_the_pods_of_the_snapshot() -> None:
    # samples/README.md: shop runs checkout x3 and has one pending (checkout-7d9f8-pending).
    found = _complete(f"kwhatif explain -c {REPO}/samples/cluster.yaml shop/checkout-")
    assert len(found) == 4 and "shop/checkout-7d9f8-pending" in found
    assert all(f.startswith("shop/checkout-") for f in found)


def test_a_pod_without_its_namespace_is_found_with_n() -> None:
    assert invoke(["explain", "checkout-7d9f8-pending", "-n", "shop", *SAMPLES]).stdout.startswith(
        "Pod shop/checkout-7d9f8-pending: unschedulable")


def test_a_pod_in_another_namespace_is_pointed_at() -> None:
    result = invoke(["explain", "checkout-7d9f8-pending", *SAMPLES])
    assert result.exit_code == 2
    assert single_error_line(result.stderr).endswith(
        "default/checkout-7d9f8-pending: no such pod in the snapshot (nor among the pods to place); a pod named "
        "checkout-7d9f8-pending is in namespace(s) shop (give NAMESPACE/NAME or -n)")
