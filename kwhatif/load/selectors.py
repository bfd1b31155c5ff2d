"""Label selectors and node selector terms from manifests, refused where the API server would
refuse them: label keys and values checked as apimachinery does, operators and values checked per
operator."""

from __future__ import annotations

import json
from typing import Callable

from kwhatif.api.affinity import NodeSelectorTerm
from kwhatif.api.names import is_dns1123_subdomain, is_qualified_name, is_valid_label_value
from kwhatif.api.selectors import LABEL_OPERATORS, NODE_OPERATORS, LabelSelector, Requirement, map_matches
from kwhatif.errors import InputError
from kwhatif.golang import go_quote
from kwhatif.load.fields import Fields


def check_name(f: Fields, name: str, path: str, judge: Callable[[str], tuple[str, ...]]) -> None:
    """A name `judge` takes (validation.IsQualifiedName, IsDNS1123Label...); its first message
    is the error, `field.Invalid(path, name, msg)` as the API server words it."""
    wrong = judge(name)
    if wrong:
        raise f.error(path, f"Invalid value: {go_quote(name)}: {wrong[0]}")


def _check_label_key(f: Fields, key: str, path: str) -> None:
    """ValidateLabelName: a qualified name."""
    check_name(f, key, path, is_qualified_name)


def _check_label_value(f: Fields, value: str, path: str) -> None:
    check_name(f, value, path, is_valid_label_value)


def check_label_value(f: Fields, value: str, path: str) -> None:
    """A toleration's or a taint's value: a label value, every message of IsValidLabelValue joined
    by ";" as ValidateTolerations and validateNodeTaints word it (ValidateLabels reports each)."""
    wrong = is_valid_label_value(value)
    if wrong:
        raise f.error(path, f"Invalid value: {go_quote(value)}: {';'.join(wrong)}")


def checked_labels(f: Fields, parent: dict, key: str = "labels", path: str = "metadata") -> dict[str, str]:
    """An object's metadata.labels (or a pod's nodeSelector), refused where the API server refuses
    them (ValidateLabels)."""
    labels = f.str_map(parent, key, path)
    for name, value in labels.items():
        _check_label_key(f, name, f"{path}.{key}")
        _check_label_value(f, value, f"{path}.{key}")
    return labels


def checked_annotations(f: Fields, meta: dict, path: str = "metadata") -> dict[str, str]:
    """An object's metadata.annotations (or a pod template's, at `spec.template`), refused where
    the API server refuses them (ValidateAnnotations: each key a qualified name, case aside)."""
    annotations = f.str_map(meta, "annotations", path)
    for key in annotations:
        problems = is_qualified_name(key.lower())
        if problems:
            raise f.error(f"{path}.annotations", f"Invalid value: {go_quote(key)}: {problems[0]}")
    return annotations


SELECTOR_WORD = {"DaemonSet": "daemonset", "StatefulSet": "statefulset"}
"""How an empty selector's refusal names the kind: ValidateReplicaSetSpec says "deployment" too."""


def controller_selector(f: Fields, kind: str, spec: dict) -> LabelSelector | None:
    """A ReplicaSet's, Deployment's, StatefulSet's or DaemonSet's selector, refused as the API
    server refuses it (apps validation.go: ValidateReplicaSetSpec, ValidateDeploymentSpec,
    ValidateStatefulSetSpec, ValidateDaemonSetSpec with ValidatePodTemplateSpecFor*): required
    (a DaemonSet's missing one selects nothing, so its template does not match), valid, not empty,
    and selecting the template's labels. Values print as JSON, as v1.34's field errors do: an
    empty selector's omitted fields make it `{}`, labels not written `null`."""
    written = f.opt_map(spec, "selector", "spec")
    selector = label_selector(f, spec, "selector", "spec")
    empty = written is not None and not written.get("matchLabels") and not written.get("matchExpressions")
    refused = f.error("spec.selector", f"Invalid value: {{}}: empty selector is invalid for "
                                       f"{SELECTOR_WORD.get(kind, 'deployment')}")
    if written is None and kind != "DaemonSet":
        raise f.error("spec.selector", "Required value")
    if empty and kind != "DaemonSet":
        raise refused
    meta, labels = _template_labels(f, spec)
    if selector is None or not selector.matches(labels):
        raise template_mismatch(f, meta)
    if empty:
        raise refused
    return selector


def _template_labels(f: Fields, spec: dict) -> tuple[dict, dict[str, str]]:
    """The pod template's metadata and labels."""
    meta = f.map(f.map(spec, "template", "spec"), "metadata", "spec.template")
    return meta, f.str_map(meta, "labels", "spec.template.metadata")


def template_mismatch(f: Fields, meta: dict) -> InputError:
    """ValidatePodTemplateSpecFor*'s refusal of a template its controller's selector does not
    select, the labels printed as JSON (null when not written)."""
    shown = json.dumps(meta.get("labels"), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return f.error("spec.template.metadata.labels", f"Invalid value: {shown}: `selector` does not match template "
                                                    "`labels`")


def controller_map_selector(f: Fields, spec: dict) -> dict[str, str]:
    """A ReplicationController's map selector (ValidateReplicationControllerSpec): defaulted to the
    template's labels when not written (SetDefaults_ReplicationController), then required
    (ValidateNonEmptySelector) and selecting the template (ValidatePodTemplateSpecForRC)."""
    meta, labels = _template_labels(f, spec)
    selector = dict(f.str_map(spec, "selector", "spec")) if spec.get("selector") is not None else dict(labels)
    if not selector:
        raise f.error("spec.selector", "Required value")
    if not map_matches(selector, labels):
        raise template_mismatch(f, meta)
    return selector


def _label_requirement(f: Fields, raw: dict, path: str) -> Requirement:
    """A metav1.LabelSelectorRequirement as ValidateLabelSelectorRequirement judges it: the
    operator and its values, the key, then each value a label value."""
    req = _requirement(f, raw, path, LABEL_OPERATORS)
    for i, value in enumerate(req.values):
        _check_label_value(f, value, f"{path}.values[{i}]")
    return req


def _values_problem(op: str, count: int) -> str | None:
    """What is wrong with `count` values for the operator `op`: the switch of
    ValidateLabelSelectorRequirement and ValidateNodeSelectorRequirement, which share its texts.
    A Gt or Lt value is not parsed there: the scheduler matches no node by one that is no integer."""
    if op in ("In", "NotIn") and count == 0:
        return "Required value: must be specified when `operator` is 'In' or 'NotIn'"
    if op in ("Exists", "DoesNotExist") and count:
        return "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
    if op in ("Gt", "Lt") and count != 1:
        return "Required value: must be specified single value when `operator` is 'Lt' or 'Gt'"
    return None


def _requirement(f: Fields, raw: dict, path: str, operators: tuple[str, ...]) -> Requirement:
    """The operator (one of `operators`) with the number of values it takes, then the key
    (ValidateLabelName), in the API server's order."""
    key = f.str(raw, "key", path)
    op = f.str(raw, "operator", path)
    values = f.str_list(raw, "values", path)
    if op not in operators:
        raise f.error(f"{path}.operator", f"Invalid value: {go_quote(op)}: not a valid selector operator")
    wrong = _values_problem(op, len(values))
    if wrong:
        raise f.error(f"{path}.values", wrong)
    _check_label_key(f, key, f"{path}.key")
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
    """ValidateNodeSelectorTerm: each matchExpressions entry as ValidateNodeSelectorRequirement
    judges it (operator and values, then the key), each matchFields entry on `metadata.name`.
    The values are not judged as label values: upstream does for a required term on creation
    (AllowInvalidLabelValueInRequiredNodeAffinity, since v1.32), but the reference kube-scheduler
    runs (tests/conformance, t19: Gt "-1") take them, and kwhatif follows its reference."""
    exprs = f.items(raw, "matchExpressions", path, lambda e, p: _requirement(f, e, p, NODE_OPERATORS))
    fields = f.items(raw, "matchFields", path, lambda e, p: _field_requirement(f, e, p))
    return NodeSelectorTerm(exprs, fields, valid=all(r.parses_as_label_selector for r in exprs))


def _field_requirement(f: Fields, raw: dict, path: str) -> Requirement:
    """ValidateNodeFieldSelectorRequirement: In or NotIn with one value, the key metadata.name and
    the value a node's name (ValidateNodeName)."""
    key, op = f.str(raw, "key", path), f.str(raw, "operator", path)
    values = f.str_list(raw, "values", path)
    if op not in ("In", "NotIn"):
        raise f.error(f"{path}.operator", f"Invalid value: {go_quote(op)}: not a valid selector operator")
    if len(values) != 1:
        raise f.error(f"{path}.values", "Required value: must be only one value when `operator` is 'In' or 'NotIn' "
                                        "for node field selector")
    if key != "metadata.name":
        raise f.error(f"{path}.key", f"Invalid value: {go_quote(key)}: not a valid field selector key")
    check_name(f, values[0], f"{path}.values[0]", is_dns1123_subdomain)
    return Requirement(key, op, values)
