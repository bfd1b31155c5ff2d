"""PodTopologySpreadArgs: defaults, validation and the typed arguments (its default constraints
as api TopologySpreadConstraints)."""

from __future__ import annotations

from typing import Any, Mapping

from kwhatif.api.affinity import TopologySpreadConstraint
from kwhatif.api.field import (
    child, duplicate, forbidden, index, invalid, not_supported, required, validate_label_name,
)
from kwhatif.config.types import INT32, STRING, TYPE_META, ListOf, MapOf, Struct, named
from kwhatif.plugins.pod_topology_spread import PodTopologySpreadArgs
from kwhatif.plugins.pod_topology_spread.common import (
    DO_NOT_SCHEDULE, LIST_DEFAULTING, SCHEDULE_ANYWAY, SYSTEM_DEFAULTING,
)

_LABEL_SELECTOR = Struct("LabelSelector", "v1.LabelSelector", {
    "matchLabels": MapOf(STRING),
    "matchExpressions": ListOf(Struct("LabelSelectorRequirement", "v1.LabelSelectorRequirement", {
        "key": STRING, "operator": named("v1.LabelSelectorOperator"), "values": ListOf(STRING)})),
})
_TOPOLOGY_SPREAD_CONSTRAINT = Struct("TopologySpreadConstraint", "v1.TopologySpreadConstraint", {
    "maxSkew": INT32, "topologyKey": STRING, "whenUnsatisfiable": named("v1.UnsatisfiableConstraintAction"),
    "labelSelector": _LABEL_SELECTOR, "minDomains": INT32, "nodeAffinityPolicy": named("v1.NodeInclusionPolicy"),
    "nodeTaintsPolicy": named("v1.NodeInclusionPolicy"), "matchLabelKeys": ListOf(STRING),
})
SCHEMA = Struct("PodTopologySpreadArgs", "v1.PodTopologySpreadArgs", {
    **TYPE_META, "defaultConstraints": ListOf(_TOPOLOGY_SPREAD_CONSTRAINT),
    "defaultingType": named("v1.PodTopologySpreadConstraintsDefaulting")})


def set_defaults(args: dict[str, Any]) -> None:
    args["defaultingType"] = args.get("defaultingType") or PodTopologySpreadArgs().defaulting_type


def validate(path: str, args: Mapping[str, Any]) -> list[str]:
    errs = []
    constraints = args.get("defaultConstraints") or []
    defaulting = args.get("defaultingType", "")
    defaulting_path = child(path, "defaultingType")
    if defaulting not in (SYSTEM_DEFAULTING, LIST_DEFAULTING):
        errs.append(not_supported(defaulting_path, defaulting, [SYSTEM_DEFAULTING, LIST_DEFAULTING]))
    elif defaulting == SYSTEM_DEFAULTING and constraints:
        errs.append(invalid(defaulting_path, defaulting, "when .defaultConstraints are not empty"))
    constraints_path = child(path, "defaultConstraints")
    for i, c in enumerate(constraints):
        p = index(constraints_path, i)
        max_skew = c.get("maxSkew", 0)
        if max_skew <= 0:
            errs.append(invalid(child(p, "maxSkew"), max_skew, "not in valid range (0, inf)"))
        topology_key = c.get("topologyKey", "")
        if not topology_key:
            errs.append(required(child(p, "topologyKey"), "can not be empty"))
        else:
            errs.extend(validate_label_name(topology_key, child(p, "topologyKey")))
        when = c.get("whenUnsatisfiable", "")
        if not when:
            errs.append(required(child(p, "whenUnsatisfiable"), "can not be empty"))
        elif when not in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
            errs.append(not_supported(child(p, "whenUnsatisfiable"), when, [DO_NOT_SCHEDULE, SCHEDULE_ANYWAY]))
        if c.get("labelSelector") is not None:
            errs.append(forbidden(child(p, "labelSelector"),
                                  "constraint must not define a selector, as they deduced for each pod"))
        for other in constraints[:i]:
            if other.get("topologyKey", "") == topology_key and other.get("whenUnsatisfiable", "") == when:
                errs.append(duplicate(index(constraints_path, i), f"{{{topology_key}, {when}}}"))
                break
    return errs


def build(args: Mapping[str, Any]) -> PodTopologySpreadArgs:
    """The default constraints: shaped like a pod's topologySpreadConstraints, without labelSelector."""
    constraints = tuple(TopologySpreadConstraint(
        max_skew=int(item.get("maxSkew", 0)),
        topology_key=str(item.get("topologyKey", "")),
        when_unsatisfiable=str(item.get("whenUnsatisfiable", "")),
        label_selector=None,
        min_domains=int(item["minDomains"]) if item.get("minDomains") is not None else None,
        node_affinity_policy=item.get("nodeAffinityPolicy"),
        node_taints_policy=item.get("nodeTaintsPolicy"),
        match_label_keys=tuple(item.get("matchLabelKeys") or ()),
    ) for item in args.get("defaultConstraints") or ())
    return PodTopologySpreadArgs(constraints, args.get("defaultingType") or PodTopologySpreadArgs().defaulting_type)
