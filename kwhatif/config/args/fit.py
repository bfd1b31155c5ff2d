"""NodeResourcesFitArgs: defaults, validation and the typed arguments."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from kwhatif.config.args.resources import (
    RESOURCE_SPEC, SHAPE_POINT, default_resources, resource_specs, validate_resources, weights_to_one,
)
from kwhatif.api.field import child, index, invalid, not_supported, required, validate_label_name
from kwhatif.config.types import STRING, TYPE_META, ListOf, Struct, named
from kwhatif.plugins.node_resources.fit import (
    LEAST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO, SCORING_STRATEGY_TYPES, NodeResourcesFitArgs, ScoringStrategy,
)
from kwhatif.plugins.node_resources.strategies import MAX_CUSTOM_PRIORITY_SCORE

SCHEMA = Struct("NodeResourcesFitArgs", "v1.NodeResourcesFitArgs", {
    **TYPE_META, "ignoredResources": ListOf(STRING), "ignoredResourceGroups": ListOf(STRING),
    "scoringStrategy": Struct("ScoringStrategy", "v1.ScoringStrategy", {
        "type": named("v1.ScoringStrategyType"), "resources": ListOf(RESOURCE_SPEC),
        "requestedToCapacityRatio": Struct("RequestedToCapacityRatioParam", "v1.RequestedToCapacityRatioParam",
                                           {"shape": ListOf(SHAPE_POINT)}),
    })})


def set_defaults(args: dict[str, Any]) -> None:
    strategy = dict(args.get("scoringStrategy") or {}) if args.get("scoringStrategy") is not None else None
    if strategy is None:
        strategy = {"type": LEAST_ALLOCATED, "resources": default_resources()}
    strategy.setdefault("type", "")
    strategy["resources"] = weights_to_one(strategy.get("resources") or []) or default_resources()
    args["scoringStrategy"] = {k: strategy[k] for k in ("type", "resources", "requestedToCapacityRatio")
                               if k in strategy}


def _validate_function_shape(shape: Sequence[Mapping[str, Any]], path: str) -> list[str]:
    if not shape:
        return [required(path, "at least one point must be specified")]
    errs = []
    for i in range(1, len(shape)):
        if shape[i - 1].get("utilization", 0) >= shape[i].get("utilization", 0):
            errs.append(invalid(child(index(path, i), "utilization"), shape[i].get("utilization", 0),
                                "values must be sorted in increasing order"))
            break
    for i, point in enumerate(shape):
        utilization, score = point.get("utilization", 0), point.get("score", 0)
        if utilization < 0 or utilization > 100:
            errs.append(invalid(child(index(path, i), "utilization"), utilization, "not in valid range [0, 100]"))
        if score < 0 or score > MAX_CUSTOM_PRIORITY_SCORE:
            errs.append(invalid(child(index(path, i), "score"), score,
                                f"not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]"))
    return errs


def validate_fit_args(args: Mapping[str, Any], path: str = "") -> list[str]:
    """ValidateNodeResourcesFitArgs of v1.34.1. kube-scheduler runs it only when the plugin is
    created (the configuration validator looks the plugin up as "NodeResourcesFitArgs" and never
    finds it), with a nil path: the messages start at `scoringStrategy`. A shape is checked
    whenever `requestedToCapacityRatio` is set, whatever the type, and its errors carry the path
    `scoringStrategy.shape` (v1.35 moved them under `requestedToCapacityRatio` and added the
    required/forbidden checks of the field)."""
    errs: list[str] = []
    for i, res in enumerate(args.get("ignoredResources") or []):
        errs.extend(validate_label_name(res, index(child(path, "ignoredResources"), i)))
    for i, group in enumerate(args.get("ignoredResourceGroups") or []):
        p = index(child(path, "ignoredResourceGroups"), i)
        if "/" in group:
            errs.append(invalid(p, group, "resource group name can't contain '/'"))
        errs.extend(validate_label_name(group, p))
    strategy_path = child(path, "scoringStrategy")
    strategy = args.get("scoringStrategy")
    if strategy is None:
        errs.append(required(strategy_path, "ScoringStrategy field is required"))
        return errs
    kind = strategy.get("type", "")
    if kind not in SCORING_STRATEGY_TYPES:
        errs.append(not_supported(child(strategy_path, "type"), kind, sorted(SCORING_STRATEGY_TYPES)))
    errs.extend(validate_resources(strategy.get("resources") or [], child(strategy_path, "resources")))
    ratio = strategy.get("requestedToCapacityRatio")
    if ratio is not None:
        errs.extend(_validate_function_shape(ratio.get("shape") or [], child(strategy_path, "shape")))
    return errs


def missing_shape_crash(args: Mapping[str, Any]) -> str | None:
    """kwhatif's words for what v1.34.1 does not validate: NewFit builds a RequestedToCapacityRatio
    scorer from `requestedToCapacityRatio.shape` without checking that the field is set, so
    kube-scheduler panics (nil pointer dereference) at startup. None when the arguments are usable."""
    strategy = args.get("scoringStrategy") or {}
    if strategy.get("type") == REQUESTED_TO_CAPACITY_RATIO and strategy.get("requestedToCapacityRatio") is None:
        return ("scoringStrategy.requestedToCapacityRatio is not set while type is RequestedToCapacityRatio: "
                "kube-scheduler v1.34.1 crashes on this configuration (nil pointer dereference)")
    return None


def build(args: Mapping[str, Any]) -> NodeResourcesFitArgs:
    strategy = args.get("scoringStrategy") or {}
    kind = strategy.get("type") or LEAST_ALLOCATED
    shape: tuple[tuple[int, int], ...] = ()
    if kind == REQUESTED_TO_CAPACITY_RATIO:
        shape = tuple((p["utilization"], p["score"]) for p in strategy["requestedToCapacityRatio"]["shape"])
    return NodeResourcesFitArgs(
        tuple(args.get("ignoredResources") or ()), tuple(args.get("ignoredResourceGroups") or ()),
        ScoringStrategy(kind, resource_specs(strategy.get("resources")), shape))
