"""YAML: the same documents as JSON, block style, keys in the order the data gives them."""

from __future__ import annotations

from typing import Any

import yaml


class _PlainDumper(yaml.CSafeDumper):
    """libyaml's safe dumper without anchors and aliases: a list the data holds twice (a pod's
    tied nodes, shared by its attempt and its result) is written out twice, as JSON has it — a
    consumer need not resolve `*id001`, and a diff of two runs reads plainly."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def to_yaml(data: Any) -> str:
    """Written with libyaml's safe dumper (libyaml is required: kwhatif.load.yaml_text parses
    with it); the data is plain, as render builds it (enums already their values)."""
    return yaml.dump(data, Dumper=_PlainDumper, sort_keys=False, default_flow_style=False, allow_unicode=True)
