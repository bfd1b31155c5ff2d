"""`kwhatif reasons`: the catalogue, and one reason looked up with what to do."""

from __future__ import annotations

import json


def test_a_reason_as_printed_is_explained(cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")
    result = cli(["reasons", "Insufficient nvidia.com/gpu"])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "NodeResourcesFit: Insufficient nvidia.com/gpu"  # the entry, shown with the reason given
    assert lines[1].startswith("  What it means: ") and lines[2].startswith("  How to fix it: ")


def test_the_whole_catalogue_as_json(cli):
    data = json.loads(cli(["reasons", "-o", "json"]).stdout)
    assert {"plugin", "pattern", "example", "meaning", "fix"} == set(data[0])
    assert {"NodeResourcesFit", "TaintToleration", "DefaultPreemption"} <= {r["plugin"] for r in data}


def test_an_unknown_text_is_said_on_one_line(cli):
    result = cli(["reasons", "no such thing"])
    assert result.exit_code == 2
    assert result.stderr == "kwhatif: error: no reason matches 'no such thing' (kwhatif reasons lists them all)\n"


def test_an_empty_text_is_bad_input_not_the_first_entry(cli):
    result = cli(["reasons", " "])
    assert result.exit_code == 2
    assert result.stderr.startswith("kwhatif: error: an empty TEXT matches nothing")
