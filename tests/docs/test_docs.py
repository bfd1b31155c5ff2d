"""Every command the docs show is run as written, and exits as the page says.

A command is a `$ kwhatif ...` line in a ```console block of docs/*.md; the line after it,
`# exit N`, is the status the page promises. They run from the repository root with the
`kwhatif` installed beside the interpreter running the tests (the project's .venv), never one
found on PATH. What the page says of the results is checked where it can be worked out by hand
(samples/README.md): the explained pod's FailedScheduling counts, the policy that fails."""

from __future__ import annotations

import json
import re
import shlex
import subprocess

import pytest

from tests.cli.conftest import REPO, executable

DOCS = REPO / "docs"
COMMAND = re.compile(r"^\$ (kwhatif .+)\n# exit (\d+)$", re.MULTILINE)


def _commands() -> list[tuple[str, str, int]]:
    found = []
    for page in sorted(DOCS.glob("*.md")):
        for block in re.findall(r"```console\n(.*?)```", page.read_text(), re.DOTALL):
            found += [(page.name, line, int(code)) for line, code in COMMAND.findall(block)]
    return found


COMMANDS = _commands()


def _run(line: str) -> subprocess.CompletedProcess[str]:
    args = shlex.split(line)
    return subprocess.run([executable(args[0]), *args[1:]], cwd=REPO, capture_output=True, text=True, timeout=300)


def test_the_docs_show_commands() -> None:
    assert len(COMMANDS) >= 8 and {page for page, _, _ in COMMANDS} >= {"tutorial.md"}


@pytest.mark.parametrize("page, line, code", COMMANDS, ids=[f"{p}: {c}" for p, c, _ in COMMANDS])
def test_each_command_exits_as_the_page_says(page: str, line: str, code: int) -> None:
    done = _run(line)
    assert done.returncode == code, done.stderr


def test_the_tutorial_pod_is_stopped_as_samples_readme_says() -> None:
    """checkout asks 3 CPUs; the 7 schedulable workers have less free (samples/README.md); cp-1 and
    the 3 GPU nodes are tainted, worker-c2 cordoned: 7 + 3 + 1 + 1 = 12 nodes."""
    done = _run("kwhatif explain shop/checkout-7d9f8-pending -c samples/cluster.yaml --now 2026-01-01T00:00:00Z")
    flat = " ".join(done.stdout.split())
    assert ("0/12 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, "
            "1 node(s) were unschedulable, 3 node(s) had untolerated taint {nvidia.com/gpu: present}, 7 "
            "Insufficient cpu.") in flat


def test_the_tutorial_check_fails_on_the_eviction_policy() -> None:
    """critical.yaml (payments/ledger-reconcile: 4 CPUs, high-priority) fits only by preemption
    (samples/README.md): with --no-evictions it fails, and so does the policy; the others fit."""
    done = _run("kwhatif check samples/pods/ -c samples/cluster.yaml --now 2026-01-01T00:00:00Z --no-evictions -o json")
    data = json.loads(done.stdout)
    assert [w["name"] for w in data["workloads"] if not w["ok"]] == ["ledger-reconcile"]
    assert [(p["policy"], p["ok"]) for p in data["policies"]] == [("no-evictions", False)]
