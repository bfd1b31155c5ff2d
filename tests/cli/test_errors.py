"""Bad input: exit 2 and ONE stderr line `kwhatif: error: ...` naming the file, the object
(`Kind/namespace/name`) and the field where there is one; never a traceback, nothing on stdout.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.cli.conftest import DATA, NOW, REPO, executable, single_error_line

# (files given with -c, texts the one error line must contain)
CASES = {
    "broken-yaml": (["errors/broken.yaml"], ["errors/broken.yaml", "YAML"]),
    "bad-quantity": (["errors/bad-quantity.yaml"],
                     ["errors/bad-quantity.yaml", "Pod/shop/badqty", "spec.containers[0].resources.requests.cpu",
                      "1.5.3"]),
    "wrong-type": (["errors/wrong-type.yaml"], ["errors/wrong-type.yaml", "Pod/shop/typed", "spec.priority"]),
    "missing-file": (["errors/no-such-file.yaml"], ["errors/no-such-file.yaml"]),
    "empty-file": (["errors/empty.yaml"], ["no objects passed"]),
    # Kubernetes validation: `value must be empty when operator is Exists`, on spec.tolerations[0].
    "exists-with-value": (["errors/exists-with-value.yaml"],
                          ["errors/exists-with-value.yaml", "Pod/shop/tolerant", "spec.tolerations[0]"]),
    # a bad object among good ones still stops the run
    "bad-among-good": (["cluster", "errors/bad-quantity.yaml"],
                       ["errors/bad-quantity.yaml", "Pod/shop/badqty", "spec.containers[0].resources.requests.cpu"]),
}


@pytest.fixture(autouse=True)
def _in_data(monkeypatch):
    monkeypatch.chdir(DATA)


def _assert_bad_input(result_exit: int, stdout: str, stderr: str, must_contain: list[str]) -> str:
    assert result_exit == 2, (stdout, stderr)
    assert "Traceback" not in stdout and "Traceback" not in stderr
    assert stdout == ""
    line = single_error_line(stderr)
    for text in must_contain:
        assert text in line, f"{text!r} not in {line!r}"
    return line


@pytest.mark.parametrize("case", sorted(CASES))
def test_schedule_bad_input(cli, case):
    files, must_contain = CASES[case]
    args = ["schedule", *[a for f in files for a in ("-c", f)], "--now", NOW]
    result = cli(args)
    _assert_bad_input(result.exit_code, result.stdout, result.stderr, must_contain)


def test_empty_file_error_names_the_file(cli):
    # README: bad input is "one line naming the file"; an empty file is named too.
    result = cli(["schedule", "-c", "errors/empty.yaml", "--now", NOW])
    _assert_bad_input(result.exit_code, result.stdout, result.stderr, ["no objects passed", "errors/empty.yaml"])


def test_a_pod_file_that_is_no_yaml_is_bad_input_in_place(cli):
    files, must_contain = CASES["broken-yaml"]
    result = cli(["place", *files, "-c", "cluster", "--now", NOW])
    _assert_bad_input(result.exit_code, result.stdout, result.stderr, must_contain)


@pytest.mark.parametrize("case", ["bad-quantity", "exists-with-value"])
def test_a_pod_the_api_server_would_reject_is_reported_and_the_rest_placed(cli, case):
    # The brief: a pod the API server would reject is reported as such, the rest of the run goes
    # on. fits.yaml's pod binds beside it; the rejected one is a result of its own (skipped, with
    # the API server's words), its error line a warning naming file, object and field; exit 1.
    files, must_contain = CASES[case]
    result = cli(["place", *files, "fits.yaml", "-c", "cluster", "--now", NOW, "-o", "json"])
    assert result.exit_code == 1, result.stderr
    outcomes = {r["pod"]: (r["outcome"], r["message"]) for r in json.loads(result.stdout)["results"]}
    rejected = must_contain[1].removeprefix("Pod/")
    assert outcomes[rejected][0] == "skipped"
    assert outcomes[rejected][1].startswith(f"rejected by the API server: {must_contain[2]}")
    assert outcomes["default/fits"][0] == "bound"
    warning = next(line for line in result.stderr.splitlines() if must_contain[1] in line)
    assert warning.startswith("kwhatif: warning: ") and all(text in warning for text in must_contain)
    # the same warning, once, in the JSON a program reads
    assert [w for w in json.loads(result.stdout)["warnings"] if must_contain[1] in w] == [
        warning.removeprefix("kwhatif: warning: ")]


def test_place_without_pods(cli):
    result = cli(["place", "cluster/nodes.yaml", "-c", "cluster", "--now", NOW])
    _assert_bad_input(result.exit_code, result.stdout, result.stderr, ["cluster/nodes.yaml"])


def test_bad_yaml_on_stdin_names_stdin(cli):
    text = (DATA / "errors" / "broken.yaml").read_text()
    result = cli(["schedule", "-c", "-", "--now", NOW], input=text)
    _assert_bad_input(result.exit_code, result.stdout, result.stderr, ["stdin", "YAML"])


def test_bad_quantity_on_stdin_names_object_and_field(cli):
    text = (DATA / "errors" / "bad-quantity.yaml").read_text()
    result = cli(["schedule", "-c", "-", "--now", NOW], input=text)
    _assert_bad_input(result.exit_code, result.stdout, result.stderr,
                      ["stdin", "Pod/shop/badqty", "spec.containers[0].resources.requests.cpu"])


def test_broken_json(cli, tmp_path):
    bad = tmp_path / "dump.json"
    bad.write_text('{"apiVersion": "v1", "kind": "List", "items": [\n  {"kind": "Node",}\n]}\n')
    result = cli(["schedule", "-c", str(bad), "--now", NOW])
    _assert_bad_input(result.exit_code, result.stdout, result.stderr, [str(bad)])


def test_invalid_now_in_schedule(cli):
    result = cli(["schedule", "-c", "cluster", "--now", "2026-13-45"])
    _assert_bad_input(result.exit_code, result.stdout, result.stderr, ["--now", "2026-13-45"])


@pytest.mark.parametrize("args", [
    ["schedule"],                                   # -c is required
    ["schedule", "-c", "cluster", "-o", "xml"],     # unknown output format
    ["frobnicate"],                                 # unknown command
])
def test_bad_usage_exits_2(cli, args):
    result = cli(args)
    assert result.exit_code == 2
    assert "Traceback" not in result.stdout + result.stderr


@pytest.mark.parametrize("case", ["broken-yaml", "bad-quantity", "wrong-type", "missing-file", "empty-file",
                                  "exists-with-value"])
def test_real_executable_bad_input(case):
    files, must_contain = CASES[case]
    cmd = [executable("kwhatif"), "schedule", *[a for f in files for a in ("-c", f)], "--now", NOW]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=DATA, timeout=120)
    _assert_bad_input(proc.returncode, proc.stdout, proc.stderr, must_contain)


@pytest.mark.parametrize("now", ["2026-01-01", "2026-01-01T00:00:00"], ids=["date-only", "no-offset"])
@pytest.mark.parametrize("command", [
    ["schedule", "-c", "cluster"],
    ["place", "place/web.yaml", "-c", "cluster"],
    ["explain", "default/web", "-f", "place/web.yaml", "-c", "cluster"],
], ids=["schedule", "place", "explain"])
def test_now_that_is_not_rfc3339_is_bad_input(cli, command, now):
    # RFC 3339 requires a full time and an offset (`Z` or `+hh:mm`). Such a value is bad input
    # (exit 2, one line naming --now), never an internal error.
    result = cli([*command, "--now", now])
    _assert_bad_input(result.exit_code, result.stdout, result.stderr, ["--now", now])


def test_now_with_an_offset_is_accepted(cli):
    # 2025-06-01T12:00:00+02:00 = 10:00Z: web is created after big (2025-06-01T00:00Z) and before
    # small (2025-06-02), so it is scheduled between them:
    #   web 100m / 128Mi after urgent and big (node-b 2800m / 2.25Gi):
    #     node-a: 419 (as in test_place.py: Fit 45, Balanced 74)
    #     node-b: Fit cpu 1100*100 div 4000 = 27, mem (8-2.375)/8 -> 70 -> 48;
    #             Balanced |0.725-0.296875|/2 = 0.2140625 -> 78; total 426 -> node-b.
    result = cli(["place", "place/web.yaml", "-c", "cluster", "--now", "2025-06-01T12:00:00+02:00", "-o", "json"])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert [r["pod"] for r in data["results"]] == ["default/urgent", "default/big", "default/web", "default/small"]
    assert data["results"][2]["node"] == "node-b"


def test_a_rejected_pod_is_rejected_alike_on_both_sides_of_a_diff(cli):
    # errors/bad-quantity.yaml's pod is rejected before and after a cordon that changes nothing
    # for fits.yaml's pod: it is no change between the sides (it read as "becomes pending" when
    # only the after side carried the rejection), yet a pod of the files that is never scheduled
    # is named "skipped", with the API server's words, and fails the diff (exit 1).
    result = cli(["diff", "errors/bad-quantity.yaml", "fits.yaml", "-c", "cluster", "--now", NOW, "-o", "json",
                  "--cordon", "node-a"])
    data = json.loads(result.stdout)
    assert result.exit_code == 1, result.stderr
    assert "becomes pending" not in data["counts"] and data["counts"]["skipped"] == 1
    [bad] = [p for p in data["pods"] if p["pod"] == "shop/badqty"]
    assert bad["change"] == "skipped" and bad["reason"].startswith("rejected by the API server: ")


def test_an_interrupted_run_says_so_and_exits_130(capsys) -> None:
    """Ctrl-C is no verdict and no bad input: 130 (128 + SIGINT, as a shell reports it), one line."""
    from kwhatif.cli.common import run

    def interrupted() -> int:
        raise KeyboardInterrupt

    with pytest.raises(SystemExit) as done:
        run(interrupted)
    assert done.value.code == 130
    assert capsys.readouterr().err == "kwhatif: interrupted\n"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux) to stand for a full disk")
@pytest.mark.parametrize("args", [
    ["schedule", "-c", str(REPO / "samples" / "cluster.yaml"), "-o", "json"],
    ["schedule", "-c", str(REPO / "samples" / "cluster.yaml")],
    ["--help"],
    ["check", "--help"],
], ids=["json", "table", "help", "a command's help"])
def test_a_full_disk_is_one_error_line_not_an_internal_error(args: list[str]) -> None:
    """Output that cannot be written (ENOSPC: /dev/full takes no byte) is no bug of kwhatif's:
    one line saying so, exit 2 (no verdict was delivered), not `internal error ... please
    report`, nor a traceback when click writes a help text."""
    with open("/dev/full", "w") as full:
        done = subprocess.run([executable("kwhatif"), *args, "--now", NOW] if args[0] == "schedule"
                              else [executable("kwhatif"), *args], stdout=full, stderr=subprocess.PIPE, text=True,
                              timeout=120)
    assert done.returncode == 2
    assert single_error_line(done.stderr) == "kwhatif: error: cannot write the output: No space left on device"
