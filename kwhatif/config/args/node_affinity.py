"""NodeAffinityArgs: validation of `addedAffinity` (component-helpers nodeaffinity.NewNodeSelector /
NewPreferredSchedulingTerms, as labels.NewRequirement words it) and its parsing into api selectors."""

from __future__ import annotations

from typing import Any, Mapping

from kwhatif.api.names import is_qualified_name, is_valid_label_value
from kwhatif.api.affinity import NodeAffinity, NodeSelector, NodeSelectorTerm, PreferredSchedulingTerm
from kwhatif.api.selectors import Requirement
from kwhatif.api.field import child, index, invalid, key, not_supported
from kwhatif.golang import go_strings
from kwhatif.config.types import INT32, STRING, TYPE_META, ListOf, Struct, named
from kwhatif.plugins.node_affinity import NodeAffinityArgs

_NODE_SELECTOR_REQUIREMENT = Struct("NodeSelectorRequirement", "v1.NodeSelectorRequirement", {
    "key": STRING, "operator": named("v1.NodeSelectorOperator"), "values": ListOf(STRING)})
_NODE_SELECTOR_TERM = Struct("NodeSelectorTerm", "v1.NodeSelectorTerm", {
    "matchExpressions": ListOf(_NODE_SELECTOR_REQUIREMENT), "matchFields": ListOf(_NODE_SELECTOR_REQUIREMENT)})
SCHEMA = Struct("NodeAffinityArgs", "v1.NodeAffinityArgs", {
    **TYPE_META,
    "addedAffinity": Struct("NodeAffinity", "v1.NodeAffinity", {
        "requiredDuringSchedulingIgnoredDuringExecution": Struct("NodeSelector", "v1.NodeSelector", {
            "nodeSelectorTerms": ListOf(_NODE_SELECTOR_TERM)}),
        "preferredDuringSchedulingIgnoredDuringExecution": ListOf(Struct(
            "PreferredSchedulingTerm", "v1.PreferredSchedulingTerm",
            {"weight": INT32, "preference": _NODE_SELECTOR_TERM})),
    })})


def set_defaults(args: dict[str, Any]) -> None:
    """NodeAffinityArgs has no defaults."""


# Node selectors (component-helpers nodeaffinity.NewNodeSelector / NewPreferredSchedulingTerms).
_NODE_OPERATORS = ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]


def _parse_int64(text: str) -> bool:
    body = text[1:] if text[:1] in "+-" else text
    return body.isascii() and body.isdigit() and -(2**63) <= int(text) < 2**63


def _requirement_errors(req: Mapping[str, Any], path: str) -> list[str]:
    """labels.NewRequirement for one matchExpressions entry."""
    op, k, values = req.get("operator", ""), req.get("key", ""), req.get("values")
    if op not in _NODE_OPERATORS:
        return [not_supported(child(path, "operator"), op, _NODE_OPERATORS)]
    errs = []
    key_errs = is_qualified_name(k)
    if key_errs:
        errs.append(invalid(child(path, "key"), k, "; ".join(key_errs)))
    vals = list(values or [])
    values_path = child(path, "values")
    if op in ("In", "NotIn") and not vals:
        errs.append(invalid(values_path, go_strings(values), "for 'in', 'notin' operators, values set can't be empty"))
    elif op in ("Exists", "DoesNotExist") and vals:
        errs.append(invalid(values_path, go_strings(values), "values set must be empty for exists and does not exist"))
    elif op in ("Gt", "Lt"):
        if len(vals) != 1:
            errs.append(invalid(values_path, go_strings(values), "for 'Gt', 'Lt' operators, exactly one value is required"))
        for i, v in enumerate(vals):
            if not _parse_int64(v):
                errs.append(invalid(index(values_path, i), v, "for 'Gt', 'Lt' operators, the value must be an integer"))
    for i, v in enumerate(vals):
        value_errs = is_valid_label_value(v)
        if value_errs:
            errs.append(invalid(key(index(values_path, i), k), v, "; ".join(value_errs)))
    return list(dict.fromkeys(errs))


def _field_requirement_errors(req: Mapping[str, Any], path: str) -> list[str]:
    op, values = req.get("operator", ""), req.get("values")
    if op in ("In", "NotIn"):
        if len(values or []) != 1:
            return [invalid(child(path, "values"), go_strings(values), "must have one element")]
        return []
    return [not_supported(child(path, "operator"), op, ["In", "NotIn"])]


def _term_errors(term: Mapping[str, Any], path: str) -> list[str]:
    errs = []
    for i, req in enumerate(term.get("matchExpressions") or []):
        errs.extend(_requirement_errors(req, index(child(path, "matchExpressions"), i)))
    for i, req in enumerate(term.get("matchFields") or []):
        errs.extend(_field_requirement_errors(req, index(child(path, "matchFields"), i)))
    return errs


def _is_empty_term(term: Mapping[str, Any]) -> bool:
    return not term.get("matchExpressions") and not term.get("matchFields")


def validate(path: str, args: Mapping[str, Any]) -> list[str]:
    affinity = args.get("addedAffinity")
    if affinity is None:
        return []
    errs = []
    selector = affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if selector is not None:
        terms_path = child(path, "addedAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
        for i, term in enumerate(selector.get("nodeSelectorTerms") or []):
            if not _is_empty_term(term):
                errs.extend(_term_errors(term, index(terms_path, i)))
    preferred_path = child(path, "addedAffinity", "preferredDuringSchedulingIgnoredDuringExecution")
    for i, pref in enumerate(affinity.get("preferredDuringSchedulingIgnoredDuringExecution") or []):
        term = pref.get("preference") or {}
        if pref.get("weight", 0) != 0 and not _is_empty_term(term):
            errs.extend(_term_errors(term, index(preferred_path, i)))
    return errs


# The plugins the configuration validator checks (NodeResourcesFit is missing on purpose: see


def _term(raw: Mapping[str, Any]) -> NodeSelectorTerm:
    def reqs(items: Any) -> tuple[Requirement, ...]:
        return tuple(Requirement(r.get("key", ""), r.get("operator", ""), tuple(r.get("values") or ()))
                     for r in items or ())
    return NodeSelectorTerm(reqs(raw.get("matchExpressions")), reqs(raw.get("matchFields")))


def build(args: Mapping[str, Any]) -> NodeAffinityArgs:
    """`addedAffinity` (validated) as selectors; empty terms never match, terms with weight 0 are
    dropped, as in kube-scheduler."""
    raw = args.get("addedAffinity")
    if not raw:
        return NodeAffinityArgs()
    required_raw = raw.get("requiredDuringSchedulingIgnoredDuringExecution")
    required_sel = None
    if required_raw is not None:
        required_sel = NodeSelector(tuple(_term(t) for t in required_raw.get("nodeSelectorTerms") or ()))
    preferred_raw = raw.get("preferredDuringSchedulingIgnoredDuringExecution") or []
    preferred = None
    if preferred_raw:
        preferred = tuple(PreferredSchedulingTerm(int(p.get("weight", 0)), _term(p.get("preference") or {}))
                          for p in preferred_raw
                          if p.get("weight", 0) != 0 and not _is_empty_term(p.get("preference") or {}))
    return NodeAffinityArgs(NodeAffinity(required_sel, preferred))
