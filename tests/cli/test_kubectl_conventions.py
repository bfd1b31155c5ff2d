"""kubectl's habits work: `-o=json` as well as `-o json`, `place -f FILE` (with `-R`, which
changes nothing: folders are always read recursively) as well as `place FILE`."""

from __future__ import annotations

import pytest

from kwhatif.cli.main import split_short_equals
from tests.cli.conftest import REPO, invoke

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
