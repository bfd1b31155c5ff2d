"""Label selectors and node selector terms from manifests, refused where the API server would
refuse them: label keys and values checked as apimachinery does, operators and values checked per
operator."""

from __future__ import annotations

import json

from kwhatif.api.affinity import NodeSelectorTerm
from kwhatif.api.names import is_qualified_name, is_valid_label_value
from kwhatif.api.selectors import LABEL_OPERATORS, NODE_OPERATORS, LabelSelector, Requirement
from kwhatif.load.fields import Fields


def _check_label_key(f: Fields, key: str, path: str) -> None:
    problems = is_qualified_name(key)
    if problems:
        raise f.error(path, f"Invalid value: {json.dumps(key)}: {problems[0]}")


def _check_label_value(f: Fields, value: str, path: str) -> None:
    problems = is_valid_label_value(value)
    if problems:
        raise f.error(path, f"Invalid value: {json.dumps(value)}: {problems[0]}")


def checked_labels(f: Fields, parent: dict, key: str = "labels", path: str = "metadata") -> dict[str, str]:
    """An object's metadata.labels (or a pod's nodeSelector), refused where the API server refuses
    them (ValidateLabels)."""
    labels = f.str_map(parent, key, path)
    for name, value in labels.items():
        _check_label_key(f, name, f"{path}.{key}")
        _check_label_value(f, value, f"{path}.{key}")
    return labels


def checked_annotations(f: Fields, meta: dict) -> dict[str, str]:
    """An object's metadata.annotations, refused where the API server refuses them
    (ValidateAnnotations: each key a qualified name, case aside)."""
    annotations = f.str_map(meta, "annotations", "metadata")
    for key in annotations:
        problems = is_qualified_name(key.lower())
        if problems:
            raise f.error("metadata.annotations", f"Invalid value: {json.dumps(key)}: {problems[0]}")
    return annotations


def _label_requirement(f: Fields, raw: dict, path: str) -> Requirement:
    """A metav1.LabelSelectorRequirement, validated as the API server does (ValidateLabelSelector)."""
    req = _requirement(f, raw, path, LABEL_OPERATORS)
    _check_label_key(f, req.key, f"{path}.key")
    for i, value in enumerate(req.values):
        _check_label_value(f, value, f"{path}.values[{i}]")
    return req


def _requirement(f: Fields, raw: dict, path: str, operators: tuple[str, ...]) -> Requirement:
    key = f.str(raw, "key", path)
    op = f.str(raw, "operator", path)
    values = f.str_list(raw, "values", path)
    if not key:
        raise f.error(f"{path}.key", "key is required")
    if op not in operators:
        raise f.error(f"{path}.operator", f"{op!r} is not a valid selector operator")
    if op in ("In", "NotIn") and not values:
        raise f.error(f"{path}.values", "must be specified when `operator` is 'In' or 'NotIn'")
    if op in ("Exists", "DoesNotExist") and values:
        raise f.error(f"{path}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
    if op in ("Gt", "Lt") and len(values) != 1:
        raise f.error(f"{path}.values", "must be specified single value when `operator` is 'Lt' or 'Gt'")
    return Requirement(key, op, values)


def label_selector(f: Fields, parent: dict, key: str, path: str) -> LabelSelector | None:
    """A metav1.LabelSelector; None when the field is absent or null (matches nothing)."""
    raw = f.opt_map(parent, key, path)
    if raw is None:
        return None
    sel_path = f"{path}.{key}" if path else key
    match_labels = f.str_map(raw, "matchLabels", sel_path)
    for k, v in match_labels.items():
        _check_label_key(f, k, f"{sel_path}.matchLabels")
        _check_label_value(f, v, f"{sel_path}.matchLabels")
    reqs = [Requirement(k, "In", (v,)) for k, v in sorted(match_labels.items())]
    reqs += f.items(raw, "matchExpressions", sel_path, lambda e, p: _label_requirement(f, e, p))
    return LabelSelector(tuple(reqs))


def node_term(f: Fields, raw: dict, path: str) -> NodeSelectorTerm:
    exprs = f.items(raw, "matchExpressions", path, lambda e, p: _requirement(f, e, p, NODE_OPERATORS))
    fields = f.items(raw, "matchFields", path, lambda e, p: _field_requirement(f, e, p))
    return NodeSelectorTerm(exprs, fields, valid=all(r.parses_as_label_selector for r in exprs))


def _field_requirement(f: Fields, raw: dict, path: str) -> Requirement:
    req = _requirement(f, raw, path, ("In", "NotIn"))
    if req.key != "metadata.name":
        raise f.error(f"{path}.key", f"{req.key!r} is not a valid field selector key")
    if len(req.values) != 1:
        raise f.error(f"{path}.values", "must be only one value when `operator` is 'In' or 'NotIn' for node field selector")
    return req
