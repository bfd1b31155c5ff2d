"""InterPodAffinityArgs: defaults, validation and the typed arguments."""

from __future__ import annotations

from typing import Any, Mapping

from kwhatif.api.field import child, invalid
from kwhatif.config.types import BOOL, INT32, TYPE_META, Struct
from kwhatif.plugins.inter_pod_affinity import InterPodAffinityArgs

SCHEMA = Struct("InterPodAffinityArgs", "v1.InterPodAffinityArgs", {
    **TYPE_META, "hardPodAffinityWeight": INT32, "ignorePreferredTermsOfExistingPods": BOOL})
_DEFAULTS = InterPodAffinityArgs()


def set_defaults(args: dict[str, Any]) -> None:
    args.setdefault("hardPodAffinityWeight", _DEFAULTS.hard_pod_affinity_weight)
    args.setdefault("ignorePreferredTermsOfExistingPods", _DEFAULTS.ignore_preferred_terms_of_existing_pods)


def validate(path: str, args: Mapping[str, Any]) -> list[str]:
    weight = args.get("hardPodAffinityWeight", 0)
    if weight < 0 or weight > 100:
        return [invalid(child(path, "hardPodAffinityWeight"), weight, "not in valid range [0, 100]")]
    return []


def build(args: Mapping[str, Any]) -> InterPodAffinityArgs:
    return InterPodAffinityArgs(int(args["hardPodAffinityWeight"]), bool(args["ignorePreferredTermsOfExistingPods"]))
