"""Plugin arguments of a KubeSchedulerConfiguration: their v1 shapes, defaulting
(`pkg/scheduler/apis/config/v1/defaults.go`) and validation (`validation_pluginargs.go`), with
kube-scheduler's own error texts.

The first half holds the Go-flavoured building blocks the configuration module shares:
apimachinery's field errors (`field.Error`, error aggregates), the label-name checks, Go value
formatting, Go durations and the type descriptors the strict decoder walks. Arguments stay plain
v1-shaped dicts (what `kwhatif config show` prints and what plugins read); only NodeAffinity's
`addedAffinity` is turned into typed selectors, by `added_affinity` below.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from kwhatif.api.affinity import NodeSelector, NodeSelectorTerm, PreferredSchedulingTerm
from kwhatif.api.selectors import Requirement

# -- Go value formatting --------------------------------------------------------------------


def go_quote(text: str) -> str:
    """Go's strconv.Quote (also `%q` and `%#v` of a string)."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch in "\a\b\f\n\r\t\v":
            out.append({"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}[ch])
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        elif not ch.isprintable():
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


@dataclass(frozen=True)
class GoText:
    """A bad value already printed the way Go prints it (`%#v` of a struct, a Stringer...)."""

    text: str


def go_strings(values: Sequence[str] | None) -> GoText:
    """`%#v` of a []string: nil and empty print differently."""
    if values is None:
        return GoText("[]string(nil)")
    return GoText("[]string{" + ", ".join(go_quote(v) for v in values) + "}")


def go_float(value: float) -> str:
    """`%v` of a float64 (strconv 'g' with the shortest representation)."""
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" in text:
        mantissa, exp = text.split("e")
        sign = "-" if exp.startswith("-") else "+"
        text = f"{mantissa}e{sign}{abs(int(exp)):02d}"
    return text


def _value_text(value: Any) -> str:
    if isinstance(value, GoText):
        return value.text
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_float(value)
    return go_quote(str(value))


# -- apimachinery field errors (util/validation/field) --------------------------------------


def child(path: str, *names: str) -> str:
    for name in names:
        path = f"{path}.{name}" if path else name
    return path


def index(path: str, i: int) -> str:
    return f"{path}[{i}]"


def key(path: str, k: str) -> str:
    return f"{path}[{k}]"


def invalid(path: str, value: Any, detail: str) -> str:
    text = f"{path}: Invalid value: {_value_text(value)}"
    return f"{text}: {detail}" if detail else text


def required(path: str, detail: str = "") -> str:
    return f"{path}: Required value: {detail}" if detail else f"{path}: Required value"


def forbidden(path: str, detail: str) -> str:
    return f"{path}: Forbidden: {detail}" if detail else f"{path}: Forbidden"


def duplicate(path: str, value: Any) -> str:
    return f"{path}: Duplicate value: {_value_text(value)}"


def not_supported(path: str, value: Any, supported: Sequence[str]) -> str:
    text = f"{path}: Unsupported value: {_value_text(value)}"
    if supported:
        text += ": supported values: " + ", ".join(go_quote(s) for s in supported)
    return text


def aggregate(messages: Iterable[str]) -> str | None:
    """utilerrors.Aggregate.Error(): messages de-duplicated; one alone as is, several as `[a, b]`."""
    seen: list[str] = []
    for msg in messages:
        if msg not in seen:
            seen.append(msg)
    if not seen:
        return None
    return seen[0] if len(seen) == 1 else "[" + ", ".join(seen) + "]"


# -- names (util/validation) ------------------------------------------------------------------

_QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_QUALIFIED_NAME_MSG = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                       "alphanumeric character")
_QUALIFIED_NAME = re.compile(f"^{_QUALIFIED_NAME_FMT}$")
_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN = re.compile(f"^{_DNS1123_SUBDOMAIN_FMT}$")
_DNS1123_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
                          "'.', and must start and end with an alphanumeric character")
_LABEL_VALUE_FMT = f"({_QUALIFIED_NAME_FMT})?"
_LABEL_VALUE = re.compile(f"^{_LABEL_VALUE_FMT}$")
_LABEL_VALUE_MSG = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
                    "and must start and end with an alphanumeric character")


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    return msg + " (e.g. " + "".join(("" if i == 0 else " or ") + f"'{e}', " for i, e in enumerate(examples)) + \
        f"regex used for validation is '{fmt}')"


def _max_len_error(length: int) -> str:
    return f"must be no more than {length} characters"


def _fullmatch(pattern: re.Pattern[str], text: str) -> bool:
    return pattern.match(text) is not None and "\n" not in text


def is_dns1123_subdomain(value: str) -> list[str]:
    errs = []
    if len(value.encode()) > 253:
        errs.append(_max_len_error(253))
    if not _fullmatch(_DNS1123_SUBDOMAIN, value):
        errs.append(_regex_error(_DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def is_qualified_name(value: str) -> list[str]:
    """validation.IsQualifiedName: an optional DNS subdomain prefix and a name."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in is_dns1123_subdomain(prefix))
    else:
        return ["a qualified name " + _regex_error(_QUALIFIED_NAME_MSG, _QUALIFIED_NAME_FMT, "MyName", "my.name",
                                                   "123-abc")
                + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name.encode()) > 63:
        errs.append("name part " + _max_len_error(63))
    if not _fullmatch(_QUALIFIED_NAME, name):
        errs.append("name part " + _regex_error(_QUALIFIED_NAME_MSG, _QUALIFIED_NAME_FMT, "MyName", "my.name",
                                                "123-abc"))
    return errs


def is_valid_label_value(value: str) -> list[str]:
    errs = []
    if len(value.encode()) > 63:
        errs.append(_max_len_error(63))
    if not _fullmatch(_LABEL_VALUE, value):
        errs.append(_regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


def validate_label_name(name: str, path: str) -> list[str]:
    """metav1validation.ValidateLabelName: one error per failed rule."""
    return [invalid(path, name, msg) for msg in is_qualified_name(name)]


def is_extended_resource_name(name: str) -> bool:
    """v1helper.IsExtendedResourceName."""
    native = "/" not in name or "kubernetes.io/" in name
    if native or name.startswith("requests."):
        return False
    return not is_qualified_name("requests." + name)


# -- Go durations (time.ParseDuration / Duration.String) --------------------------------------

_UNITS = {"ns": 1, "us": 1_000, "µs": 1_000, "μs": 1_000, "ms": 1_000_000, "s": 1_000_000_000,
          "m": 60_000_000_000, "h": 3_600_000_000_000}
_DURATION_PART = re.compile(r"([0-9]*(?:\.[0-9]*)?)([^0-9.]*)")


class DurationError(ValueError):
    pass


def parse_duration(text: str) -> int:
    """time.ParseDuration, in nanoseconds; errors carry Go's text."""
    quoted = go_quote(text)
    rest, sign = text, 1
    if rest[:1] in "+-" and rest:
        sign = -1 if rest[0] == "-" else 1
        rest = rest[1:]
    if rest == "0":
        return 0
    if not rest:
        raise DurationError(f"time: invalid duration {quoted}")
    total = 0.0
    while rest:
        m = _DURATION_PART.match(rest)
        number, unit = (m.group(1), m.group(2)) if m else ("", "")
        if not number or number == ".":
            raise DurationError(f"time: invalid duration {quoted}")
        if not unit:
            raise DurationError(f"time: missing unit in duration {quoted}")
        if unit not in _UNITS:
            raise DurationError(f"time: unknown unit {go_quote(unit)} in duration {quoted}")
        total += float(number) * _UNITS[unit]
        rest = rest[len(number) + len(unit):]
    if total > 2**63 - 1:
        raise DurationError(f"time: invalid duration {quoted}")
    return sign * round(total)


def format_duration(ns: int) -> str:
    """time.Duration.String."""
    if ns == 0:
        return "0s"
    neg, u = ns < 0, abs(ns)
    if u < 1_000_000_000:
        for unit, size in (("ns", 1), ("µs", 1_000), ("ms", 1_000_000)):
            if u < size * 1000:
                text = _fraction(u, size) + unit
                break
    else:
        hours, rem = divmod(u, 3_600_000_000_000)
        minutes, rem = divmod(rem, 60_000_000_000)
        text = _fraction(rem, 1_000_000_000) + "s"
        if hours or minutes:
            text = f"{minutes}m" + text
        if hours:
            text = f"{hours}h" + text
    return ("-" if neg else "") + text


def _fraction(value: int, size: int) -> str:
    whole, frac = divmod(value, size)
    if not frac:
        return str(whole)
    digits = str(frac).rjust(len(str(size)) - 1, "0").rstrip("0")
    return f"{whole}.{digits}"


# -- type descriptors for the strict decoder --------------------------------------------------


@dataclass(frozen=True)
class Scalar:
    """A Go scalar: `kind` is int32/int64/float/string/bool/duration; `go` its Go type name."""

    kind: str
    go: str


@dataclass(frozen=True)
class Struct:
    """A Go struct with its JSON fields in declaration order (`name` as reflect.Type.Name())."""

    name: str
    go: str
    fields: Mapping[str, Any]


@dataclass(frozen=True)
class ListOf:
    item: Any

    @property
    def go(self) -> str:
        return "[]" + self.item.go


@dataclass(frozen=True)
class MapOf:
    value: Any

    @property
    def go(self) -> str:
        return "map[string]" + self.value.go


@dataclass(frozen=True)
class Raw:
    """runtime.RawExtension: any JSON, kept as is (plugin args, decoded later by plugin name)."""

    go: str = "runtime.RawExtension"


INT32, INT64 = Scalar("int32", "int32"), Scalar("int64", "int64")
STRING, BOOL = Scalar("string", "string"), Scalar("bool", "bool")
FLOAT32 = Scalar("float", "float32")
DURATION = Scalar("duration", "v1.Duration")  # metav1.Duration: null fails to parse ("")
OPTIONAL_DURATION = Scalar("duration", "*v1.Duration")  # *metav1.Duration: null is nil


def _named(go: str) -> Scalar:
    return Scalar("string", go)


TYPE_META = {"apiVersion": STRING, "kind": STRING}
RESOURCE_SPEC = Struct("ResourceSpec", "v1.ResourceSpec", {"name": STRING, "weight": INT64})
SHAPE_POINT = Struct("UtilizationShapePoint", "v1.UtilizationShapePoint", {"utilization": INT32, "score": INT32})
_NODE_SELECTOR_REQUIREMENT = Struct("NodeSelectorRequirement", "v1.NodeSelectorRequirement", {
    "key": STRING, "operator": _named("v1.NodeSelectorOperator"), "values": ListOf(STRING)})
_NODE_SELECTOR_TERM = Struct("NodeSelectorTerm", "v1.NodeSelectorTerm", {
    "matchExpressions": ListOf(_NODE_SELECTOR_REQUIREMENT), "matchFields": ListOf(_NODE_SELECTOR_REQUIREMENT)})
_LABEL_SELECTOR = Struct("LabelSelector", "v1.LabelSelector", {
    "matchLabels": MapOf(STRING),
    "matchExpressions": ListOf(Struct("LabelSelectorRequirement", "v1.LabelSelectorRequirement", {
        "key": STRING, "operator": _named("v1.LabelSelectorOperator"), "values": ListOf(STRING)})),
})
_TOPOLOGY_SPREAD_CONSTRAINT = Struct("TopologySpreadConstraint", "v1.TopologySpreadConstraint", {
    "maxSkew": INT32, "topologyKey": STRING, "whenUnsatisfiable": _named("v1.UnsatisfiableConstraintAction"),
    "labelSelector": _LABEL_SELECTOR, "minDomains": INT32, "nodeAffinityPolicy": _named("v1.NodeInclusionPolicy"),
    "nodeTaintsPolicy": _named("v1.NodeInclusionPolicy"), "matchLabelKeys": ListOf(STRING),
})

ARG_SCHEMAS: dict[str, Struct] = {
    "DefaultPreemption": Struct("DefaultPreemptionArgs", "v1.DefaultPreemptionArgs", {
        **TYPE_META, "minCandidateNodesPercentage": INT32, "minCandidateNodesAbsolute": INT32}),
    "DynamicResources": Struct("DynamicResourcesArgs", "v1.DynamicResourcesArgs", {
        **TYPE_META, "filterTimeout": OPTIONAL_DURATION, "bindingTimeout": OPTIONAL_DURATION}),
    "InterPodAffinity": Struct("InterPodAffinityArgs", "v1.InterPodAffinityArgs", {
        **TYPE_META, "hardPodAffinityWeight": INT32, "ignorePreferredTermsOfExistingPods": BOOL}),
    "NodeAffinity": Struct("NodeAffinityArgs", "v1.NodeAffinityArgs", {
        **TYPE_META,
        "addedAffinity": Struct("NodeAffinity", "v1.NodeAffinity", {
            "requiredDuringSchedulingIgnoredDuringExecution": Struct("NodeSelector", "v1.NodeSelector", {
                "nodeSelectorTerms": ListOf(_NODE_SELECTOR_TERM)}),
            "preferredDuringSchedulingIgnoredDuringExecution": ListOf(Struct(
                "PreferredSchedulingTerm", "v1.PreferredSchedulingTerm",
                {"weight": INT32, "preference": _NODE_SELECTOR_TERM})),
        })}),
    "NodeResourcesBalancedAllocation": Struct("NodeResourcesBalancedAllocationArgs",
                                              "v1.NodeResourcesBalancedAllocationArgs",
                                              {**TYPE_META, "resources": ListOf(RESOURCE_SPEC)}),
    "NodeResourcesFit": Struct("NodeResourcesFitArgs", "v1.NodeResourcesFitArgs", {
        **TYPE_META, "ignoredResources": ListOf(STRING), "ignoredResourceGroups": ListOf(STRING),
        "scoringStrategy": Struct("ScoringStrategy", "v1.ScoringStrategy", {
            "type": _named("v1.ScoringStrategyType"), "resources": ListOf(RESOURCE_SPEC),
            "requestedToCapacityRatio": Struct("RequestedToCapacityRatioParam", "v1.RequestedToCapacityRatioParam",
                                               {"shape": ListOf(SHAPE_POINT)}),
        })}),
    "PodTopologySpread": Struct("PodTopologySpreadArgs", "v1.PodTopologySpreadArgs", {
        **TYPE_META, "defaultConstraints": ListOf(_TOPOLOGY_SPREAD_CONSTRAINT),
        "defaultingType": _named("v1.PodTopologySpreadConstraintsDefaulting")}),
    "VolumeBinding": Struct("VolumeBindingArgs", "v1.VolumeBindingArgs", {
        **TYPE_META, "bindTimeoutSeconds": INT64, "shape": ListOf(SHAPE_POINT)}),
}

# -- defaulting (SetDefaults_*Args) -----------------------------------------------------------

LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO = "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"
SCORING_STRATEGY_TYPES = (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)
MAX_CUSTOM_PRIORITY_SCORE = 10
DEFAULT_FILTER_TIMEOUT = "10s"  # DRASchedulerFilterTimeout is on in 1.34


def _default_resources() -> list[dict[str, Any]]:
    return [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]


def _weights_to_one(resources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**r, "weight": r.get("weight") or 1} for r in resources]


def default_args(plugin: str, args: Mapping[str, Any] | None) -> dict[str, Any]:
    """The v1 arguments of an in-tree plugin with kube-scheduler's defaults applied (reference §1.4);
    apiVersion/kind are dropped. The result is a new dict."""
    out = {k: v for k, v in (args or {}).items() if k not in ("apiVersion", "kind")}
    if plugin == "DefaultPreemption":
        out.setdefault("minCandidateNodesPercentage", 10)
        out.setdefault("minCandidateNodesAbsolute", 100)
    elif plugin == "InterPodAffinity":
        out.setdefault("hardPodAffinityWeight", 1)
        out.setdefault("ignorePreferredTermsOfExistingPods", False)
    elif plugin == "NodeResourcesBalancedAllocation":
        out["resources"] = _weights_to_one(out.get("resources") or []) or _default_resources()
    elif plugin == "NodeResourcesFit":
        strategy = dict(out.get("scoringStrategy") or {}) if out.get("scoringStrategy") is not None else None
        if strategy is None:
            strategy = {"type": LEAST_ALLOCATED, "resources": _default_resources()}
        strategy.setdefault("type", "")
        strategy["resources"] = _weights_to_one(strategy.get("resources") or []) or _default_resources()
        out["scoringStrategy"] = {k: strategy[k] for k in ("type", "resources", "requestedToCapacityRatio")
                                  if k in strategy}
    elif plugin == "PodTopologySpread":
        out["defaultingType"] = out.get("defaultingType") or "System"
    elif plugin == "VolumeBinding":
        out.setdefault("bindTimeoutSeconds", 600)
    elif plugin == "DynamicResources":
        out.setdefault("filterTimeout", DEFAULT_FILTER_TIMEOUT)
    return out


# -- validation (validation_pluginargs.go) ----------------------------------------------------


def _validate_default_preemption(path: str, args: Mapping[str, Any]) -> list[str]:
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


def _validate_inter_pod_affinity(path: str, args: Mapping[str, Any]) -> list[str]:
    weight = args.get("hardPodAffinityWeight", 0)
    if weight < 0 or weight > 100:
        return [invalid(child(path, "hardPodAffinityWeight"), weight, "not in valid range [0, 100]")]
    return []


def _validate_pod_topology_spread(path: str, args: Mapping[str, Any]) -> list[str]:
    errs = []
    constraints = args.get("defaultConstraints") or []
    defaulting = args.get("defaultingType", "")
    defaulting_path = child(path, "defaultingType")
    if defaulting not in ("System", "List"):
        errs.append(not_supported(defaulting_path, defaulting, ["System", "List"]))
    elif defaulting == "System" and constraints:
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
        elif when not in ("DoNotSchedule", "ScheduleAnyway"):
            errs.append(not_supported(child(p, "whenUnsatisfiable"), when, ["DoNotSchedule", "ScheduleAnyway"]))
        if c.get("labelSelector") is not None:
            errs.append(forbidden(child(p, "labelSelector"),
                                  "constraint must not define a selector, as they deduced for each pod"))
        for other in constraints[:i]:
            if other.get("topologyKey", "") == topology_key and other.get("whenUnsatisfiable", "") == when:
                errs.append(duplicate(index(constraints_path, i), f"{{{topology_key}, {when}}}"))
                break
    return errs


def _go_shape(shape: Sequence[Mapping[str, Any]]) -> GoText:
    points = ", ".join(f"config.UtilizationShapePoint{{Utilization:{p.get('utilization', 0)}, Score:{p.get('score', 0)}}}"
                       for p in shape)
    return GoText("[]config.UtilizationShapePoint{" + points + "}")


def _validate_function_shape(shape: Sequence[Mapping[str, Any]], path: str) -> list[str]:
    if not shape:
        return [required(path, "at least one point must be specified")]
    errs = []
    for i in range(1, len(shape)):
        if shape[i - 1].get("utilization", 0) >= shape[i].get("utilization", 0):
            errs.append(invalid(child(index(path, i), "utilization"), shape[i].get("utilization", 0),
                                "values must be sorted in increasing order"))
            break
    for i, point in enumerate(shape):
        utilization, score = point.get("utilization", 0), point.get("score", 0)
        if utilization < 0 or utilization > 100:
            errs.append(invalid(child(index(path, i), "utilization"), utilization, "not in valid range [0, 100]"))
        if score < 0 or score > MAX_CUSTOM_PRIORITY_SCORE:
            errs.append(invalid(child(index(path, i), "score"), score,
                                f"not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]"))
    return errs


def _validate_resources(resources: Sequence[Mapping[str, Any]], path: str) -> list[str]:
    errs = []
    for i, r in enumerate(resources):
        weight = r.get("weight", 0)
        if weight <= 0 or weight > 100:
            errs.append(invalid(child(index(path, i), "weight"), weight,
                                f"resource weight of {r.get('name', '')} not in valid range (0, 100]"))
    return errs


def _validate_balanced_allocation(path: str, args: Mapping[str, Any]) -> list[str]:
    errs, seen = [], set()
    for i, r in enumerate(args.get("resources") or []):
        name = r.get("name", "")
        if name in seen:
            errs.append(duplicate(child(index(child(path, "resources"), i), "name"), name))
        seen.add(name)
        if r.get("weight", 0) != 1:
            errs.append(invalid(child(index(child(path, "resources"), i), "weight"), r.get("weight", 0), "must be 1"))
    return errs


def validate_fit_args(args: Mapping[str, Any], path: str = "") -> list[str]:
    """ValidateNodeResourcesFitArgs. kube-scheduler runs it only when the plugin is created (the
    configuration validator looks the plugin up as "NodeResourcesFitArgs" and never finds it), with
    a nil path: the messages start at `scoringStrategy`."""
    errs: list[str] = []
    for i, res in enumerate(args.get("ignoredResources") or []):
        errs.extend(validate_label_name(res, index(child(path, "ignoredResources"), i)))
    for i, group in enumerate(args.get("ignoredResourceGroups") or []):
        p = index(child(path, "ignoredResourceGroups"), i)
        if "/" in group:
            errs.append(invalid(p, group, "resource group name can't contain '/'"))
        errs.extend(validate_label_name(group, p))
    strategy_path = child(path, "scoringStrategy")
    strategy = args.get("scoringStrategy")
    if strategy is None:
        errs.append(required(strategy_path, "ScoringStrategy field is required"))
        return errs
    kind = strategy.get("type", "")
    if kind not in SCORING_STRATEGY_TYPES:
        errs.append(not_supported(child(strategy_path, "type"), kind, sorted(SCORING_STRATEGY_TYPES)))
    errs.extend(_validate_resources(strategy.get("resources") or [], child(strategy_path, "resources")))
    ratio = strategy.get("requestedToCapacityRatio")
    if kind == REQUESTED_TO_CAPACITY_RATIO:
        if ratio is None:
            errs.append(required(child(strategy_path, "requestedToCapacityRatio"),
                                 "must be specified when type is RequestedToCapacityRatio"))
        else:
            errs.extend(_validate_function_shape(ratio.get("shape") or [],
                                                 child(strategy_path, "requestedToCapacityRatio", "shape")))
    elif ratio is not None:
        errs.append(forbidden(child(strategy_path, "requestedToCapacityRatio"),
                              "must be nil when type is not RequestedToCapacityRatio"))
    return errs


def _validate_volume_binding(path: str, args: Mapping[str, Any]) -> list[str]:
    errs = []
    timeout = args.get("bindTimeoutSeconds", 0)
    if timeout < 0:
        errs.append(invalid(child(path, "bindTimeoutSeconds"), timeout,
                            "invalid BindTimeoutSeconds, should not be a negative value"))
    if args.get("shape") is not None:  # StorageCapacityScoring is off in 1.34
        errs.append(invalid(child(path, "shape"), _go_shape(args["shape"]),
                            "unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring"))
    return errs


def _validate_dynamic_resources(path: str, args: Mapping[str, Any]) -> list[str]:
    errs = []
    timeout = args.get("filterTimeout")
    if timeout is not None and parse_duration(timeout) < 0:
        errs.append(invalid(child(path, "filterTimeout"), GoText(format_duration(parse_duration(timeout))),
                            "must be zero or positive"))
    if args.get("bindingTimeout") is not None:
        errs.append(forbidden(child(path, "bindingTimeout"),
                              "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled"))
    return errs


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


def _validate_node_affinity(path: str, args: Mapping[str, Any]) -> list[str]:
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
# validate_fit_args).
_VALIDATORS: dict[str, Callable[[str, Mapping[str, Any]], list[str]]] = {
    "DefaultPreemption": _validate_default_preemption,
    "InterPodAffinity": _validate_inter_pod_affinity,
    "NodeAffinity": _validate_node_affinity,
    "NodeResourcesBalancedAllocation": _validate_balanced_allocation,
    "PodTopologySpread": _validate_pod_topology_spread,
    "VolumeBinding": _validate_volume_binding,
    "DynamicResources": _validate_dynamic_resources,
}


def validate_args(plugin: str, path: str, args: Mapping[str, Any] | None) -> list[str]:
    """The configuration-time checks of one pluginConfig entry (already defaulted)."""
    check = _VALIDATORS.get(plugin)
    return check(path, args or {}) if check is not None and args is not None else []


# -- NodeAffinity addedAffinity as typed selectors --------------------------------------------


@dataclass(frozen=True)
class AddedAffinity:
    """The scheduler-enforced node affinity of a profile: `required` None when unset (an empty
    term list is set and matches no node); `preferred` None when the list is empty."""

    required: NodeSelector | None = None
    preferred: tuple[PreferredSchedulingTerm, ...] | None = None


def _term(raw: Mapping[str, Any]) -> NodeSelectorTerm:
    def reqs(items: Any) -> tuple[Requirement, ...]:
        return tuple(Requirement(r.get("key", ""), r.get("operator", ""), tuple(r.get("values") or ()))
                     for r in items or ())
    return NodeSelectorTerm(reqs(raw.get("matchExpressions")), reqs(raw.get("matchFields")))


def added_affinity(args: Mapping[str, Any] | None) -> AddedAffinity:
    """NodeAffinityArgs.addedAffinity (validated) as selectors; empty terms never match, terms
    with weight 0 are dropped, as in kube-scheduler."""
    raw = (args or {}).get("addedAffinity")
    if not raw:
        return AddedAffinity()
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
    return AddedAffinity(required_sel, preferred)

