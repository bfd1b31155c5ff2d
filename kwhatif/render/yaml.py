"""YAML: the same documents as JSON, block style, keys in the order the data gives them."""

from __future__ import annotations

from typing import Any

import yaml


def to_yaml(data: Any) -> str:
    return yaml.dump(data, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), sort_keys=False,
                     default_flow_style=False, allow_unicode=True)
