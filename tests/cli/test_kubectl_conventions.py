"""kubectl's habits work: `-o=json` as well as `-o json`, `place -f FILE` (with `-R`, which
changes nothing: folders are always read recursively) as well as `place FILE`."""

from __future__ import annotations

import subprocess

import pytest

from kwhatif.cli.main import split_short_equals
from tests.cli.conftest import REPO, executable, invoke

SAMPLES = ["--now", "2026-01-01T00:00:00Z"]
CLUSTER = str(REPO / "samples" / "cluster.yaml")
WEB = str(REPO / "samples" / "pods" / "web.yaml")


@pytest.mark.parametrize("args, expected", [
    (["-o=json"], ["-o", "json"]),
    (["-c=a.yaml", "-o", "wide"], ["-c", "a.yaml", "-o", "wide"]),
    (["--output=json"], ["--output=json"]),  # long options: click's own business
    (["-o=", "x"], ["-o", "", "x"]),
    (["place", "--", "-o=json"], ["place", "--", "-o=json"]),  # after --, an argument as written
])
def test_short_option_values_after_an_equals_sign_are_split(args: list[str], expected: list[str]) -> None:
    assert split_short_equals(args) == expected


def test_o_equals_json_gives_the_json_of_o_json() -> None:
    assert invoke(["schedule", "-c", CLUSTER, "-o=json", *SAMPLES]).stdout == \
        invoke(["schedule", "-c", CLUSTER, "-o", "json", *SAMPLES]).stdout


def test_place_takes_f_and_r_as_kubectl_does() -> None:
    plain = invoke(["place", WEB, "-c", CLUSTER, "-o", "json", *SAMPLES])
    kubectl_like = invoke(["place", "-R", "-f", WEB, "-c", CLUSTER, "-o", "json", *SAMPLES])
    assert plain.exit_code == kubectl_like.exit_code and plain.stdout == kubectl_like.stdout


def test_place_without_pods_is_a_usage_error() -> None:
    result = invoke(["place", "-c", CLUSTER, *SAMPLES])
    assert result.exit_code == 2 and "no pods to place: give POD_FILES or -f/--filename" in result.stderr


NAMELESS = "apiVersion: v1\nkind: Pod\nmetadata: {name: nons}\nspec:\n  containers: [{name: c, image: x}]\n"


@pytest.mark.parametrize("command", [["place"], ["check"], ["explain", "shop/nons", "-f"]])
def test_n_gives_manifests_without_a_namespace_theirs(tmp_path, command: list[str]) -> None:
    path = tmp_path / "pod.yaml"
    path.write_text(NAMELESS)
    result = invoke([*command, str(path), "-n", "shop", "-c", CLUSTER, "-o", "json", *SAMPLES])
    assert result.exit_code in (0, 1), result.stderr
    assert '"shop/nons"' in result.stdout and "default/nons" not in result.stdout


def test_n_refuses_a_manifest_of_another_namespace_in_kubectls_words() -> None:
    # cli-runtime resource/visitor.go SetNamespace's text; web.yaml's object starts on line 3 (two
    # comment lines first), document 0.
    result = invoke(["place", WEB, "-n", "ml", "-c", CLUSTER, *SAMPLES])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f'kwhatif: error: {WEB}#0:3: Pod/shop/web: metadata.namespace: the namespace from the provided object '
        '"shop" does not match the namespace "ml". You must pass \'--namespace=shop\' to perform this operation.')


def test_no_headers_leaves_one_line_a_pod_for_scripts() -> None:
    # samples/README.md: 4 pending pods; -o wide keeps each on one line.
    result = invoke(["schedule", "-c", CLUSTER, "--no-headers", "-o", "wide", *SAMPLES])
    lines = result.stdout.splitlines()
    assert len(lines) == 4 and not any(line.startswith("POD") for line in lines)


@pytest.mark.parametrize("choice, terminal, no_color, expected", [
    ("always", False, "1", True),   # asked for: wins over NO_COLOR and pipes
    ("never", True, None, False),
    ("auto", True, None, True),
    ("auto", True, "1", False),     # https://no-color.org: any value turns it off
    ("auto", False, None, False),   # a pipe or a file: no codes
])
def test_color_follows_the_option_the_terminal_and_no_color(monkeypatch, choice: str, terminal: bool,
                                                           no_color: str | None, expected: bool) -> None:
    import sys

    from kwhatif.cli.common import use_color

    monkeypatch.setattr(sys.stdout, "isatty", lambda: terminal)
    if no_color is None:
        monkeypatch.delenv("NO_COLOR", raising=False)
    else:
        monkeypatch.setenv("NO_COLOR", no_color)
    assert use_color(choice) is expected


def test_color_always_paints_the_outcomes_and_keeps_the_columns() -> None:
    painted = invoke(["schedule", "-c", CLUSTER, "--color", "always", *SAMPLES]).stdout
    plain = invoke(["schedule", "-c", CLUSTER, "--color", "never", *SAMPLES]).stdout
    assert "\x1b[31munschedulable\x1b[0m" in painted and "\x1b[32mbound\x1b[0m" in painted
    assert "\x1b[" not in plain
    assert painted.replace("\x1b[31m", "").replace("\x1b[32m", "").replace("\x1b[0m", "") == plain


def test_check_paints_its_verdicts_too() -> None:
    # samples/pods/ all fit (tutorial: only --no-evictions fails them): four green "ok"
    painted = invoke(["check", str(REPO / "samples" / "pods"), "-c", CLUSTER, "--color", "always", *SAMPLES]).stdout
    assert painted.count("\x1b[32mok\x1b[0m") == 4


@pytest.mark.parametrize("args, told", [
    # the cluster given as an argument, as `kubectl apply -f` users would: said how to give it
    (["schedule", CLUSTER], f"Got unexpected extra argument ({CLUSTER}); a cluster is given with -c/--cluster "
                            "FILE; see kwhatif schedule --help"),
    (["schedule", "--bogus"], "No such option '--bogus'; see kwhatif schedule --help"),
    (["evict"], "Missing argument 'NODE'; see kwhatif evict --help"),
    (["nosuch"], "No such command 'nosuch'; see kwhatif --help"),
])
def test_a_mistyped_command_line_is_one_error_line(args: list[str], told: str) -> None:
    """Click's usage errors take three lines (usage, hint, error); kwhatif's bad input takes one.
    The installed command, as people type it (its name is in the hint)."""
    done = subprocess.run([executable("kwhatif"), *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"kwhatif: error: {told}\n"
