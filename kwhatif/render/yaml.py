"""YAML: the same documents as JSON, block style, keys in the order the data gives them."""

from __future__ import annotations

from typing import Any

import yaml


def to_yaml(data: Any) -> str:
    """Written with libyaml's safe dumper (libyaml is required: kwhatif.load.yaml_text parses
    with it); the data is plain, as render builds it (enums already their values)."""
    return yaml.dump(data, Dumper=yaml.CSafeDumper, sort_keys=False, default_flow_style=False, allow_unicode=True)
