"""NodeResourcesBalancedAllocationArgs: defaults, validation and the typed arguments."""

from __future__ import annotations

from typing import Any, Mapping

from kwhatif.config.args.resources import RESOURCE_SPEC, default_resources, resource_specs, weights_to_one
from kwhatif.api.field import child, duplicate, index, invalid
from kwhatif.config.types import TYPE_META, ListOf, Struct
from kwhatif.plugins.node_resources.balanced_allocation import NodeResourcesBalancedAllocationArgs

SCHEMA = Struct("NodeResourcesBalancedAllocationArgs", "v1.NodeResourcesBalancedAllocationArgs",
                {**TYPE_META, "resources": ListOf(RESOURCE_SPEC)})


def set_defaults(args: dict[str, Any]) -> None:
    args["resources"] = weights_to_one(args.get("resources") or []) or default_resources()


def validate(path: str, args: Mapping[str, Any]) -> list[str]:
    errs, seen = [], set()
    for i, r in enumerate(args.get("resources") or []):
        name = r.get("name", "")
        if name in seen:
            errs.append(duplicate(child(index(child(path, "resources"), i), "name"), name))
        seen.add(name)
        if r.get("weight", 0) != 1:
            errs.append(invalid(child(index(child(path, "resources"), i), "weight"), r.get("weight", 0), "must be 1"))
    return errs


def build(args: Mapping[str, Any]) -> NodeResourcesBalancedAllocationArgs:
    return NodeResourcesBalancedAllocationArgs(resource_specs(args.get("resources")))
