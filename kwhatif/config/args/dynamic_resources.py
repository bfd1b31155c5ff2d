"""DynamicResourcesArgs: defaults, validation and the typed arguments."""

from __future__ import annotations

from typing import Any, Mapping

from kwhatif.api.field import child, forbidden, invalid
from kwhatif.golang import GoText, format_duration, parse_duration
from kwhatif.config.types import OPTIONAL_DURATION, TYPE_META, Struct
from kwhatif.plugins.dynamic_resources import DynamicResourcesArgs

SCHEMA = Struct("DynamicResourcesArgs", "v1.DynamicResourcesArgs", {
    **TYPE_META, "filterTimeout": OPTIONAL_DURATION, "bindingTimeout": OPTIONAL_DURATION})


def set_defaults(args: dict[str, Any]) -> None:
    args.setdefault("filterTimeout", format_duration(DynamicResourcesArgs().filter_timeout))


def validate(path: str, args: Mapping[str, Any]) -> list[str]:
    errs = []
    timeout = args.get("filterTimeout")
    if timeout is not None and parse_duration(timeout) < 0:
        errs.append(invalid(child(path, "filterTimeout"), GoText(format_duration(parse_duration(timeout))),
                            "must be zero or positive"))
    if args.get("bindingTimeout") is not None:
        errs.append(forbidden(child(path, "bindingTimeout"),
                              "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled"))
    return errs


def build(args: Mapping[str, Any]) -> DynamicResourcesArgs:
    return DynamicResourcesArgs(parse_duration(args["filterTimeout"]))
