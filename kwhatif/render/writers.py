"""JSON and YAML writers for the structured results."""

from __future__ import annotations

from typing import Any

import orjson
import yaml


def to_json(data: Any) -> str:
    return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n"


def to_yaml(data: Any) -> str:
    return yaml.dump(data, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), sort_keys=False,
                     default_flow_style=False, allow_unicode=True)
