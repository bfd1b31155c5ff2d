"""`-o yaml`: the JSON document in YAML, plainly written."""

from __future__ import annotations

import yaml

from kwhatif.render.yaml import to_yaml


def test_a_list_the_data_holds_twice_is_written_twice_not_as_an_alias() -> None:
    """A pod's tied nodes are one list in its attempt and its result: JSON writes it twice, and so
    does YAML (no `&id001` / `*id001` for a consumer to resolve)."""
    tied = ["node-a", "node-b"]
    text = to_yaml({"attempt": {"tied_nodes": tied}, "result": {"tied_nodes": tied}})
    assert "&" not in text and "*" not in text
    assert yaml.safe_load(text) == {"attempt": {"tied_nodes": tied}, "result": {"tied_nodes": tied}}
