"""YAML: the same documents as JSON, block style, keys in the order the data gives them."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import yaml


class _Dumper(yaml.CSafeDumper):
    """libyaml's safe dumper (libyaml is required: kwhatif.load.yaml_text parses with it), writing
    a string enum (an `Outcome`) as its value, as orjson does for JSON: `explain` turns its
    attempts into plain data whole, outcome included."""


_Dumper.add_multi_representer(StrEnum, lambda dumper, value: dumper.represent_str(value.value))


def to_yaml(data: Any) -> str:
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, default_flow_style=False, allow_unicode=True)
