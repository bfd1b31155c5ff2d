"""VolumeBindingArgs: defaults, validation and the typed arguments."""

from __future__ import annotations

from typing import Any, Mapping

from kwhatif.config.args.resources import SHAPE_POINT, go_shape
from kwhatif.api.field import child, invalid
from kwhatif.config.types import INT64, TYPE_META, ListOf, Struct
from kwhatif.plugins.volume_binding import VolumeBindingArgs

SCHEMA = Struct("VolumeBindingArgs", "v1.VolumeBindingArgs", {
    **TYPE_META, "bindTimeoutSeconds": INT64, "shape": ListOf(SHAPE_POINT)})


def set_defaults(args: dict[str, Any]) -> None:
    args.setdefault("bindTimeoutSeconds", VolumeBindingArgs().bind_timeout_seconds)


def validate(path: str, args: Mapping[str, Any]) -> list[str]:
    errs = []
    timeout = args.get("bindTimeoutSeconds", 0)
    if timeout < 0:
        errs.append(invalid(child(path, "bindTimeoutSeconds"), timeout,
                            "invalid BindTimeoutSeconds, should not be a negative value"))
    if args.get("shape") is not None:  # StorageCapacityScoring is off in 1.34
        errs.append(invalid(child(path, "shape"), go_shape(args["shape"]),
                            "unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring"))
    return errs


def build(args: Mapping[str, Any]) -> VolumeBindingArgs:
    return VolumeBindingArgs(int(args["bindTimeoutSeconds"]))
