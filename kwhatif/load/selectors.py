"""Label selectors and node selector terms from manifests, refused where the API server would
refuse them: label keys and values checked as apimachinery does, operators and values checked per
operator."""

from __future__ import annotations

import json
import re
from functools import lru_cache

from kwhatif.api.affinity import NodeSelectorTerm
from kwhatif.api.selectors import LABEL_OPERATORS, NODE_OPERATORS, LabelSelector, Requirement
from kwhatif.load.fields import Fields


_NAME_PART = r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_NAME_RE = re.compile(_NAME_PART)
_LABEL_VALUE_RE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
_DNS1123_SUBDOMAIN_RE = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_NAME_FMT = ("consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
             "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
             f"'{_NAME_PART}')")


@lru_cache(maxsize=4096)
def qualified_name_error(key: str) -> str | None:
    """apimachinery's IsQualifiedName (label keys, selector keys): the API server's first complaint."""
    parts = key.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            return "prefix part must be non-empty"
        if len(prefix) > 253:
            return "prefix part must be no more than 253 characters"
        if not _DNS1123_SUBDOMAIN_RE.fullmatch(prefix):
            return ("prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                    "'-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
                    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
    else:
        return f"a qualified name must {_NAME_FMT} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
    if not name:
        return "name part must be non-empty"
    if len(name) > 63:
        return "name part must be no more than 63 characters"
    if not _NAME_RE.fullmatch(name):
        return f"name part must {_NAME_FMT}"
    return None


@lru_cache(maxsize=4096)
def label_value_error(value: str) -> str | None:
    """apimachinery's IsValidLabelValue."""
    if len(value) > 63:
        return "must be no more than 63 characters"
    if not _LABEL_VALUE_RE.fullmatch(value):
        return ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
                "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
                "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
    return None


def _check_label_key(f: Fields, key: str, path: str) -> None:
    problem = qualified_name_error(key)
    if problem:
        raise f.error(path, f"Invalid value: {json.dumps(key)}: {problem}")


def _check_label_value(f: Fields, value: str, path: str) -> None:
    problem = label_value_error(value)
    if problem:
        raise f.error(path, f"Invalid value: {json.dumps(value)}: {problem}")


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
