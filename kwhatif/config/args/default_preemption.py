"""DefaultPreemptionArgs: defaults, validation and the typed arguments."""

from __future__ import annotations

from typing import Any, Mapping

from kwhatif.api.field import child, invalid
from kwhatif.config.types import INT32, TYPE_META, Struct
from kwhatif.plugins.default_preemption import DefaultPreemptionArgs

SCHEMA = Struct("DefaultPreemptionArgs", "v1.DefaultPreemptionArgs", {
    **TYPE_META, "minCandidateNodesPercentage": INT32, "minCandidateNodesAbsolute": INT32})
_DEFAULTS = DefaultPreemptionArgs()


def set_defaults(args: dict[str, Any]) -> None:
    args.setdefault("minCandidateNodesPercentage", _DEFAULTS.min_candidate_nodes_percentage)
    args.setdefault("minCandidateNodesAbsolute", _DEFAULTS.min_candidate_nodes_absolute)


def validate(path: str, args: Mapping[str, Any]) -> list[str]:
    errs = []
    pct, absolute = args.get("minCandidateNodesPercentage", 0), args.get("minCandidateNodesAbsolute", 0)
    pct_path, abs_path = child(path, "minCandidateNodesPercentage"), child(path, "minCandidateNodesAbsolute")
    if pct < 0 or pct > 100:
        errs.append(invalid(pct_path, pct, "not in valid range [0, 100]"))
    if absolute < 0:
        errs.append(invalid(abs_path, absolute, "not in valid range [0, inf)"))
    if pct == 0 and absolute == 0:
        errs.append(invalid(pct_path, pct, "cannot be zero at the same time as minCandidateNodesAbsolute"))
        errs.append(invalid(abs_path, absolute, "cannot be zero at the same time as minCandidateNodesPercentage"))
    return errs


def build(args: Mapping[str, Any]) -> DefaultPreemptionArgs:
    return DefaultPreemptionArgs(int(args["minCandidateNodesPercentage"]), int(args["minCandidateNodesAbsolute"]))
