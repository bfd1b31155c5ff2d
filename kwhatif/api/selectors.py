"""Label selectors and node selector requirements, with kube-scheduler's matching semantics
(nodeaffinity.go:GetRequiredNodeAffinity).

A `None` selector matches nothing and an empty one matches everything; plain label maps
(nodeSelector, Service selectors) require every key with the same value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from kwhatif.api.names import is_valid_label_value

Labels = Mapping[str, str]

LABEL_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
NODE_OPERATORS = LABEL_OPERATORS + ("Gt", "Lt")


@dataclass(frozen=True, slots=True)
class Requirement:
    """One `key operator values` requirement of a label or node selector."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    @property
    def parses_as_label_selector(self) -> bool:
        """Whether apimachinery's labels.NewRequirement accepts it: every value a valid label
        value, and Gt/Lt values integers. The scheduler drops node selector terms that fail."""
        if any(is_valid_label_value(v) for v in self.values):
            return False
        return self.operator not in ("Gt", "Lt") or all(parse_int64(v) is not None for v in self.values)

    def matches(self, labels: Labels) -> bool:
        """Whether a label map satisfies this requirement (Gt/Lt compare base-10 int64 values)."""
        op = self.operator
        if op == "In":
            return self.key in labels and labels[self.key] in self.values
        if op == "NotIn":
            return self.key not in labels or labels[self.key] not in self.values
        if op == "Exists":
            return self.key in labels
        if op == "DoesNotExist":
            return self.key not in labels
        if op in ("Gt", "Lt"):
            return _compare_int(labels.get(self.key), self.values, op)
        return False


def parse_int64(text: str | None) -> int | None:
    """A base-10 int64 as Go's strconv.ParseInt reads it, or None."""
    if text is None or not text or text.strip() != text:
        return None
    body = text[1:] if text[0] in "+-" else text
    if not body.isdigit() or not body.isascii():
        return None
    number = int(text)
    return number if -(2**63) <= number < 2**63 else None


def _compare_int(label: str | None, values: tuple[str, ...], op: str) -> bool:
    """Gt/Lt: both the label and the single requirement value must parse as int64."""
    if label is None or len(values) != 1:
        return False
    left, right = parse_int64(label), parse_int64(values[0])
    if left is None or right is None:
        return False
    return left > right if op == "Gt" else left < right


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """A metav1.LabelSelector: matchLabels AND matchExpressions (all requirements ANDed)."""

    requirements: tuple[Requirement, ...] = ()

    @property
    def is_empty(self) -> bool:
        """An empty selector (`{}`) matches every label set."""
        return not self.requirements

    def matches(self, labels: Labels) -> bool:
        """Whether every requirement holds for the label set."""
        for req in self.requirements:
            if not req.matches(labels):
                return False
        return True

    def with_requirements(self, extra: tuple[Requirement, ...]) -> LabelSelector:
        """This selector ANDed with more requirements."""
        return LabelSelector(self.requirements + extra) if extra else self

    def with_label_keys(self, keys: tuple[str, ...], labels: Labels, operator: str = "In") -> LabelSelector:
        """matchLabelKeys (`In`) / mismatchLabelKeys (`NotIn`) merging: for each listed key the
        pod has, `key operator (pod's value)` ANDed with the selector (pod strategy.go:PrepareForCreate,
        podtopologyspread filtering.go:Filter)."""
        return self.with_requirements(tuple(Requirement(k, operator, (labels[k],)) for k in keys if k in labels))

    def describe(self) -> str:
        """The selector in kubectl's string form, for explanations."""
        parts = []
        for req in self.requirements:
            if req.operator == "In" and len(req.values) == 1:
                parts.append(f"{req.key}={req.values[0]}")
            elif req.operator == "Exists":
                parts.append(req.key)
            elif req.operator == "DoesNotExist":
                parts.append(f"!{req.key}")
            else:
                parts.append(f"{req.key} {req.operator.lower()} ({','.join(req.values)})")
        return ",".join(parts) or "<all>"


def selector_from_map(labels: Labels) -> LabelSelector:
    """A selector equivalent to a plain label map (every key equal)."""
    return LabelSelector(tuple(Requirement(k, "In", (v,)) for k, v in sorted(labels.items())))


def map_matches(selector: Labels, labels: Labels) -> bool:
    """A plain map selector: every key present with the same value; `{}` matches everything."""
    for key, wanted in selector.items():
        if labels.get(key) != wanted:
            return False
    return True


def written_form(raw: object) -> dict[str, object] | None:
    """A metav1.LabelSelector as written, for the API server's equality of immutable fields
    (apiequality.Semantic.DeepEqual: the form counts — matchLabels is not an equivalent
    matchExpressions, nor is the order of expressions or values —, but an empty list or map is
    no different from an absent one). None for what is not a selector object."""
    if not isinstance(raw, dict):
        return None
    out: dict[str, object] = {}
    if raw.get("matchLabels"):
        out["matchLabels"] = raw["matchLabels"]
    expressions = raw.get("matchExpressions")
    if expressions:
        out["matchExpressions"] = [{k: v for k, v in e.items() if not (k == "values" and not v)}
                                   if isinstance(e, dict) else e for e in expressions]
    return out
