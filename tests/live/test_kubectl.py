"""The promise of never touching a cluster unless asked, and then only reading it: one function
starts processes (`kwhatif/live/kubectl.py`), it refuses every verb that is not read-only, and no
other module of the package can start a process at all (an `ast` scan, like tests/test_layering.py)."""

from __future__ import annotations

import ast
import os
import stat
import time
from pathlib import Path

import pytest

from kwhatif.errors import InputError
from kwhatif.live.capture import served_resources
from kwhatif.live.kubectl import Kubectl, NotReadOnly, find_kubectl, last_line, read_only_argv
from tests.live.fake_apiserver import serving, write_kubeconfig
from tests.live.support import installed_kubectl, kubectl_env  # noqa: F401 - a fixture

PACKAGE = Path(__file__).parents[2] / "kwhatif"
THE_ONE_PLACE = PACKAGE / "live" / "kubectl.py"
# kwhatif's own worker processes for `kwhatif sweep --jobs N` (multiprocessing, never a program of
# the user's nor kubectl): tests/hostile/test_no_cluster_access.py says why they are allowed.
SWEEP_WORKERS = PACKAGE / "sweep" / "executors.py"
# And for `kwhatif check --jobs N`, a loss policy's scenarios (forked, see the module's docstring).
CHECK_WORKERS = PACKAGE / "check" / "workers.py"
# And a big input's second part decoded meanwhile by a fork of kwhatif itself (kwhatif.load.forked).
FORKED_DECODER = PACKAGE / "load" / "forked.py"

PROCESS_MODULES = {"subprocess", "pty", "multiprocessing"}
PROCESS_CALLS = {"system", "popen", "spawnl", "spawnlp", "spawnv", "spawnvp", "execv", "execve", "execvp",
                 "execl", "execlp", "posix_spawn", "posix_spawnp", "fork", "forkpty"}


@pytest.mark.parametrize("verb, args", [
    ("get", ["pods", "-A", "-o", "json"]),
    ("api-resources", ["-o", "name"]),
    ("version", ["-o", "json"]),
    ("config", ["current-context"]),
    ("config", ["view", "--minify"]),
    ("config", ["get-contexts"]),
])
def test_read_only_verbs_are_run(verb: str, args: list[str]) -> None:
    assert read_only_argv("kubectl", verb, args, ["--context=c"]) == ["kubectl", verb, *args, "--context=c"]


@pytest.mark.parametrize("verb, args", [
    ("delete", ["pod", "x"]), ("apply", ["-f", "x.yaml"]), ("patch", ["node", "n"]), ("edit", ["node", "n"]),
    ("cordon", ["n"]), ("drain", ["n"]), ("exec", ["p", "--", "sh"]), ("create", ["ns", "x"]),
    ("label", ["node", "n", "a=b"]), ("scale", ["deploy/x"]), ("proxy", []), ("port-forward", ["p", "80"]),
    ("config", ["use-context", "prod"]), ("config", ["set-context", "x"]), ("config", ["delete-context", "x"]),
    ("config", []),
])
def test_every_other_verb_is_refused_before_anything_runs(verb: str, args: list[str]) -> None:
    with pytest.raises(NotReadOnly):
        read_only_argv("kubectl", verb, args, [])


def _process_starts(path: Path) -> list[str]:
    """Imports of a process-starting module and uses of os.system/os.exec*/os.spawn*... in a file,
    in line order."""
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [f"line {node.lineno}: import {a.name}" for a in node.names if a.name in PROCESS_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.module in PROCESS_MODULES | {"os"}:
            names = [a.name for a in node.names]
            if node.module != "os" or set(names) & PROCESS_CALLS:
                found.append(f"line {node.lineno}: from {node.module} import {', '.join(names)}")
        elif isinstance(node, ast.Attribute) and node.attr in PROCESS_CALLS \
                and isinstance(node.value, ast.Name) and node.value.id == "os":
            found.append(f"line {node.lineno}: os.{node.attr}")
    return sorted(found, key=lambda f: int(f.split(":")[0].removeprefix("line ")))


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_other_module_starts_a_process(path: Path) -> None:
    starts = _process_starts(path)
    if path in (SWEEP_WORKERS, CHECK_WORKERS):
        assert starts and all(s.endswith("import multiprocessing") for s in starts), starts
    elif path == FORKED_DECODER:
        assert starts and all(s.endswith("os.fork") for s in starts), starts
    else:
        assert starts if path == THE_ONE_PLACE else not starts, starts


def test_the_scan_sees_every_way_to_start_a_process(tmp_path: Path) -> None:
    sample = tmp_path / "m.py"
    sample.write_text("import subprocess\nfrom os import system\nimport os\nos.execvp('x', [])\n"
                      "from multiprocessing import Pool\nimport os.path\n")
    assert _process_starts(sample) == ["line 1: import subprocess", "line 2: from os import system",
                                       "line 4: os.execvp", "line 5: from multiprocessing import Pool"]


def test_kubectl_missing_from_path_is_an_input_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(InputError, match="kubectl not found on PATH"):
        find_kubectl()


def _fake_kubectl(tmp_path: Path, script: str) -> str:
    """A stand-in kubectl (a shell script) to see the command line kwhatif gives it."""
    path = tmp_path / "kubectl"
    path.write_text(f"#!/bin/sh\n{script}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_context_and_kubeconfig_are_passed_to_kubectl(tmp_path: Path) -> None:
    kubectl = Kubectl(_fake_kubectl(tmp_path, 'echo "$@"'), context="prod", kubeconfig="/k/config")
    assert kubectl.run("get", "nodes") == b"get nodes --context=prod --kubeconfig=/k/config --request-timeout=60s\n"


def test_a_failing_kubectl_is_one_line_with_its_last_word(tmp_path: Path) -> None:
    kubectl = Kubectl(_fake_kubectl(tmp_path, 'echo "E1125 retrying" >&2; echo "error: forbidden" >&2; exit 1'))
    with pytest.raises(InputError) as raised:
        kubectl.run("get", "nodes")
    assert str(raised.value) == "`kubectl get nodes` failed (exit 1): error: forbidden"


def test_partial_output_is_taken_when_asked(tmp_path: Path) -> None:
    # api-resources prints what it discovered and fails when an aggregated API is down.
    kubectl = Kubectl(_fake_kubectl(tmp_path, 'echo pods; echo "error: metrics unavailable" >&2; exit 1'))
    assert kubectl.run_partial("api-resources") == (
        b"pods\n", "`kubectl api-resources` failed (exit 1): error: metrics unavailable")


DISCOVERY = "error: unable to retrieve the complete list of server APIs: {groups}"
DOWN = "the server is currently unable to handle the request"


@pytest.mark.parametrize("groups, needed", [
    (f"metrics.k8s.io/v1beta1: {DOWN}", None),
    (f"policy/v1: {DOWN}", "poddisruptionbudgets.policy"),
    (f"metrics.k8s.io/v1beta1: {DOWN}, apps/v1: {DOWN}", "deployments.apps, replicasets.apps, statefulsets.apps, daemonsets.apps"),
], ids=["an API kwhatif does not read: ignored", "PDBs' group: the run's error", "two groups, one read"])
def test_a_group_whose_discovery_failed_is_not_taken_as_not_served(tmp_path: Path, groups: str,
                                                                    needed: str | None) -> None:
    """client-go's ErrGroupDiscoveryFailed: kubectl lists what it discovered and fails. A group
    kwhatif captures from would be missing from the snapshot without a word: an error naming it."""
    script = f'echo pods; echo nodes; echo "{DISCOVERY.format(groups=groups)}" >&2; exit 1'
    kubectl = Kubectl(_fake_kubectl(tmp_path, script))
    if needed is None:
        assert served_resources(kubectl) == {"pods", "nodes"}
        return
    with pytest.raises(InputError) as raised:
        served_resources(kubectl)
    assert str(raised.value).startswith("`kubectl api-resources -o name` failed (exit 1): "
                                        "error: unable to retrieve the complete list of server APIs: ")
    assert f"; kwhatif captures {needed} from there" in str(raised.value)


@pytest.mark.parametrize("stderr, expected", [
    (b"", "no error message"),
    (b"a\n\nb  \n\n", "b"),
    (b"\xff bad bytes\n", "\ufffd bad bytes"),
])
def test_last_line(stderr: bytes, expected: str) -> None:
    assert last_line(stderr) == expected


def test_a_kubectl_that_cannot_start_is_an_input_error(tmp_path: Path) -> None:
    not_executable = tmp_path / "kubectl"
    not_executable.write_text("")
    with pytest.raises(InputError, match="cannot run .*: permission denied"):
        Kubectl(str(not_executable)).run("version")
    assert os.path.exists(not_executable)


def test_an_api_server_that_never_answers_is_one_line_not_a_hang(tmp_path: Path, kubectl_env: dict[str, str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The server answers discovery and then holds the nodes list for ever: kubectl gives up at
    its --request-timeout (60 s by default; 2 s here), and kwhatif says so in one line."""
    for name, value in kubectl_env.items():
        monkeypatch.setenv(name, value)
    with serving([], silent=frozenset({"/api/v1/nodes"})) as server:
        config = write_kubeconfig(tmp_path / "config", server.url)
        kubectl = Kubectl(installed_kubectl() or "kubectl", kubeconfig=str(config), request_timeout="2s")
        started = time.monotonic()
        with pytest.raises(InputError) as raised:
            kubectl.run("get", "nodes", "-o", "json")
    assert time.monotonic() - started < 30
    assert str(raised.value).startswith(f"`kubectl get nodes -o json --kubeconfig={config}` failed (exit 1): ")
