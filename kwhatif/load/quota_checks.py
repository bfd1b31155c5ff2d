"""What the API server refuses of LimitRanges and ResourceQuotas (core validation.go:
ValidateLimitRange, ValidateResourceQuotaSpec, with core helper/helpers.go's resource names), in its
words. LimitRanger and the quota plugin act on what these objects say, so one that `kubectl apply`
refuses must fail `check` as bad input, not decide which pods are admitted.

Every error is reported, aggregated as the API server aggregates them (`[a, b]`); where upstream
walks a ResourceList (a Go map, in random order) kwhatif takes the names sorted. Bad values print
as field errors print them: quantities and resource names (Stringers) bare, other strings quoted,
lists and the scope selector as Go's `%#v` of the internal (`core.`) types."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from typing import TypeVar

from kwhatif.api.field import child, duplicate, forbidden, index, invalid, key, required
from kwhatif.api.names import is_qualified_name
from kwhatif.api.quantity import milli_value, value
from kwhatif.api.quota import (
    BEST_EFFORT, CROSS_NAMESPACE_POD_AFFINITY, NOT_BEST_EFFORT, NOT_TERMINATING, PRIORITY_CLASS, TERMINATING,
    VOLUME_ATTRIBUTES_CLASS, Amount,
)
from kwhatif.api.resources import is_extended_resource_name
from kwhatif.golang import GoText, go_quote, go_strings
from kwhatif.load.fields import Fields
from kwhatif.load.pods import overcommit_allowed

T = TypeVar("T")

# -- resource names (core helper/helpers.go) --------------------------------------------------

_QUOTA_RESOURCES = frozenset((
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.storage",
    "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods",
    "resourcequotas", "services", "replicationcontrollers", "secrets", "persistentvolumeclaims", "configmaps",
    "services.nodeports", "services.loadbalancers",
))
"""standardQuotaResources; standardResources is these and `storage`."""
_QUOTA_HUGEPAGES = ("hugepages-", "requests.hugepages-")
_CONTAINER_RESOURCES = frozenset(("cpu", "memory", "ephemeral-storage"))
_INTEGER_RESOURCES = frozenset(("pods", "resourcequotas", "services", "replicationcontrollers", "secrets",
                                "configmaps", "persistentvolumeclaims", "services.nodeports", "services.loadbalancers"))


def is_standard_quota_resource(name: str) -> bool:
    """IsStandardQuotaResourceName: the quota names without a domain, hugepages included."""
    return name in _QUOTA_RESOURCES or name.startswith(_QUOTA_HUGEPAGES)


def _resource_name_problems(name: str) -> list[str]:
    """validateResourceName: a qualified name; without a domain, one the API knows."""
    problems = list(is_qualified_name(name))
    if not problems and "/" not in name and not (is_standard_quota_resource(name) or name == "storage"):
        problems.append("must be a standard resource type or fully qualified")
    return problems


def _container_resource_name_problems(name: str) -> list[str]:
    """validateContainerResourceName (a Pod or Container item's names): on top of the above, a
    container resource without a domain; with one, native (kubernetes.io) or a valid extended name."""
    problems = _resource_name_problems(name)
    if "/" not in name:
        if name not in _CONTAINER_RESOURCES and not name.startswith("hugepages-"):
            problems.append("must be a standard resource for containers")
    elif "kubernetes.io/" not in name and not is_extended_resource_name(name):
        problems.append("doesn't follow extended resource name standard")
    return problems


def _quota_resource_name_problems(name: str) -> list[str]:
    """ValidateResourceQuotaResourceName: without a domain, also a name quota tracks
    (`count/deployments.apps`, `<class>.storageclass.storage.k8s.io/requests.storage` have one)."""
    problems = _resource_name_problems(name)
    if "/" not in name and not is_standard_quota_resource(name):
        problems.append("must be a standard resource for quota")
    return problems


def _names(path: str, names: Sequence[str], problems: Callable[[str], list[str]]) -> list[str]:
    """The name errors of one ResourceList (`path[name]`); a ResourceName prints bare (a Stringer)."""
    return [invalid(key(path, n), GoText(n), p) for n in sorted(names) for p in problems(n)]


def _quantity(amount: Amount) -> GoText:
    """A resource.Quantity as field errors print it: its String(), bare."""
    return GoText(str(amount))


# -- LimitRange (ValidateLimitRange) -----------------------------------------------------------

LIMIT_TYPES = ("Pod", "Container", "PersistentVolumeClaim")
_LISTS = ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio")


def default_container_item(default: MutableMapping[str, T], request: MutableMapping[str, T],
                           low: Mapping[str, T], high: Mapping[str, T]) -> None:
    """core v1 defaults.go:SetDefaults_LimitRangeItem for a Container item: a default limit from
    the max, a default request from the default limit, else from the min. Shared by the decoder
    (values) and the validation, which judges the defaulted object (quantities, for its texts)."""
    for name, q in high.items():
        default.setdefault(name, q)
    for name, q in default.items():
        request.setdefault(name, q)
    for name, q in low.items():
        request.setdefault(name, q)


def limit_range_problems(f: Fields, spec: dict) -> list[str]:
    """Each item: its type (a known one, or a qualified name of one's own), not twice, then
    its lists (`_item_problems`)."""
    out: list[str] = []
    seen: set[str] = set()
    for i, raw in enumerate(f.items(spec, "limits", "spec", lambda e, p: e)):
        path = index("spec.limits", i)
        kind = f.str(raw, "type", path)
        out += _type_problems(kind, child(path, "type"))
        if kind in seen:
            out.append(duplicate(child(path, "type"), kind))
        seen.add(kind)
        out += _item_problems(f, raw, kind, path)
    return out


def _type_problems(kind: str, path: str) -> list[str]:
    """validateLimitRangeTypeName; a LimitType prints quoted (`%#v` of a string type)."""
    problems = list(is_qualified_name(kind))
    if not problems and "/" not in kind and kind not in LIMIT_TYPES:
        problems.append("must be a standard limit type or fully qualified")
    return [invalid(path, kind, p) for p in problems]


def _item_problems(f: Fields, raw: dict, kind: str, path: str) -> list[str]:
    """The resource names of each list (container names for Pod and Container items), no
    defaults on a Pod item, a storage bound on a PersistentVolumeClaim item, then each resource's
    bounds (`_bound_problems`)."""
    lists = {name: f.amounts(raw, name, path) or {} for name in _LISTS}
    if kind == "Container":
        default_container_item(lists["default"], lists["defaultRequest"], lists["min"], lists["max"])
    problems = _container_resource_name_problems if kind in ("Pod", "Container") else _resource_name_problems

    def named(name: str) -> list[str]:
        return _names(child(path, name), list(lists[name]), problems)

    out = named("max") + named("min")
    if kind == "Pod":
        out += [forbidden(child(path, name), "may not be specified when `type` is 'Pod'")
                for name in ("default", "defaultRequest") if lists[name]]
        lists["default"], lists["defaultRequest"] = {}, {}  # nor bounded
    else:
        out += named("default") + named("defaultRequest")
    if kind == "PersistentVolumeClaim" and "storage" not in lists["min"] and "storage" not in lists["max"]:
        out.append(required(child(path, "limits"),
                            "either minimum or maximum storage value is required, but neither was provided"))
    out += named("maxLimitRequestRatio")
    for resource in sorted(set().union(*lists.values())):
        out += _bound_problems(path, resource, {name: amounts[resource] for name, amounts in lists.items()
                                                if resource in amounts})
    return out


_ORDER = (
    ("min", "max", "min", "min", "min value {min} is greater than max value {max}"),
    ("min", "defaultRequest", "defaultRequest", "defaultRequest",
     "min value {min} is greater than default request value {defaultRequest}"),
    ("defaultRequest", "max", "defaultRequest", "defaultRequest",
     "default request value {defaultRequest} is greater than max value {max}"),
    ("defaultRequest", "default", "defaultRequest", "defaultRequest",
     "default request value {defaultRequest} is greater than default limit value {default}"),
    ("min", "default", "default", "min", "min value {min} is greater than default value {default}"),
    ("default", "max", "default", "max", "default value {default} is greater than max value {max}"),
)
"""ValidateLimitRange's comparisons, in its order: (the list that may not be greater, than
which, the field named, the quantity shown — upstream's choice, not always the field's —, text)."""


def _bound_problems(path: str, resource: str, q: Mapping[str, Amount]) -> list[str]:
    """One resource's quantities (`q`: the lists that name it): min <= defaultRequest <= default
    <= max, a ratio of at least 1 and at most max/min, and default = defaultRequest where they
    cannot differ (hugepages, extended resources)."""
    def at(name: str) -> str:
        return key(child(path, name), resource)

    out = [invalid(at(field), _quantity(q[shown]), text.format(**q)) for bigger, smaller, field, shown, text in _ORDER
           if bigger in q and smaller in q and q[bigger].value > q[smaller].value]
    ratio = q.get("maxLimitRequestRatio")
    if ratio is not None and ratio.value < 1:
        out.append(invalid(at("maxLimitRequestRatio"), _quantity(ratio), f"ratio {ratio} is less than 1"))
    if ratio is not None and "min" in q and "max" in q:
        out += _ratio_problem(at("maxLimitRequestRatio"), ratio, q["min"], q["max"])
    default, request = q.get("default"), q.get("defaultRequest")
    if (not overcommit_allowed(resource) and default is not None and request is not None
            and default.value != request.value):
        out.append(invalid(at("defaultRequest"), _quantity(request),
                           f"default value {default} must equal to defaultRequest value {request} in {resource}"))
    return out


_MAX_MILLI_VALUE = ((1 << 63) - 1) // 1000


def _ratio_problem(path: str, ratio: Amount, low: Amount, high: Amount) -> list[str]:
    """A ratio above max/min, computed as upstream does: in milli-units when all three fit, else
    in whole units, in float64; printed with `%f`."""
    if max(value(ratio.value), value(low.value), value(high.value)) < _MAX_MILLI_VALUE:
        wanted = float(milli_value(ratio.value)) / 1000
        lowest, highest = milli_value(low.value), milli_value(high.value)
    else:
        wanted, lowest, highest = float(value(ratio.value)), value(low.value), value(high.value)
    limit = float(highest) / float(lowest) if lowest else math.copysign(math.inf, highest) if highest else math.nan
    if not wanted > limit:
        return []
    shown = f"{limit:.6f}" if math.isfinite(limit) else "-Inf"
    return [invalid(path, _quantity(ratio), f"ratio {ratio} is greater than max/min = {shown}")]


# -- ResourceQuota (ValidateResourceQuotaSpec) --------------------------------------------------

STANDARD_SCOPES = (TERMINATING, NOT_TERMINATING, BEST_EFFORT, NOT_BEST_EFFORT, PRIORITY_CLASS,
                   CROSS_NAMESPACE_POD_AFFINITY, VOLUME_ATTRIBUTES_CLASS)
"""IsStandardResourceQuotaScope."""
_EXISTS_ONLY = (BEST_EFFORT, NOT_BEST_EFFORT, TERMINATING, NOT_TERMINATING, CROSS_NAMESPACE_POD_AFFINITY)
_EXISTS_ONLY_TEXT = ("must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, "
                     "ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, "
                     "ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity")
_POD_RESOURCES = frozenset(("pods", "cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu", "requests.memory"))
_CONFLICTS = ((BEST_EFFORT, NOT_BEST_EFFORT), (TERMINATING, NOT_TERMINATING))
_SCOPE_TYPE = "core.ResourceQuotaScope"


def scope_fits(scope: str, resource: str) -> bool:
    """IsResourceQuotaScopeValidForResource: the pod scopes limit pod counts and compute (only
    the count under BestEffort); other scopes (VolumeAttributesClass) anything."""
    if scope == BEST_EFFORT:
        return resource == "pods"
    if scope in (TERMINATING, NOT_TERMINATING, NOT_BEST_EFFORT, PRIORITY_CLASS, CROSS_NAMESPACE_POD_AFFINITY):
        return resource in _POD_RESOURCES
    return True


def resource_quota_problems(f: Fields, spec: dict) -> list[str]:
    """spec.hard's names and quantities (non-negative; whole for counts and extended
    resources), then spec.scopes and spec.scopeSelector."""
    hard = f.amounts(spec, "hard", "spec") or {}
    out: list[str] = []
    for name in sorted(hard):
        out += _names("spec.hard", [name], _quota_resource_name_problems) + _quantity_problems(name, hard[name])
    scopes = None if spec.get("scopes") is None else f.str_list(spec, "scopes", "spec")
    limited = [name for name in sorted(hard) if is_standard_quota_resource(name)]
    out += _scopes_problems(scopes or (), limited, go_strings(scopes, _SCOPE_TYPE))
    selector = f.opt_map(spec, "scopeSelector", "spec")
    if selector is not None:
        out += _selector_problems(f, selector, limited, go_strings(scopes, _SCOPE_TYPE))
    return out


def _quantity_problems(name: str, amount: Amount) -> list[str]:
    """ValidateResourceQuantityValue (a negative one prints quoted: its String() is passed)."""
    path = key("spec.hard", name)
    out = [invalid(path, str(amount), "must be greater than or equal to 0")] if amount.value < 0 else []
    if (name in _INTEGER_RESOURCES or is_extended_resource_name(name)) and milli_value(amount.value) % 1000:
        out.append(invalid(path, _quantity(amount), "must be an integer"))
    return out


def _scopes_problems(scopes: Sequence[str], limited: Sequence[str], shown: GoText) -> list[str]:
    """validateResourceQuotaScopes: known scopes, each fitting every resource limited, no pair
    that contradicts itself; every error shows the whole list."""
    out: list[str] = []
    for scope in scopes:
        if scope not in STANDARD_SCOPES:
            out.append(invalid("spec.scopes", shown, "unsupported scope"))
        out += [invalid("spec.scopes", shown, "unsupported scope applied to resource")
                for name in limited if not scope_fits(scope, name)]
    return out + _conflicts("spec.scopes", set(scopes), shown)


def _conflicts(path: str, scopes: set[str], shown: GoText) -> list[str]:
    return [invalid(path, shown, "conflicting scopes") for pair in _CONFLICTS if scopes.issuperset(pair)]


_SELECTOR = "spec.scopeSelector.matchExpressions"
"""Upstream's path for every expression's errors: no index."""


def _selector_problems(f: Fields, selector: dict, limited: Sequence[str], scopes: GoText) -> list[str]:
    """validateScopedResourceSelectorRequirement: per expression, a known scope fitting every
    resource limited, Exists for the yes/no scopes, values for In and NotIn only, a known
    operator; then no contradicting pair (shown, as upstream does, with spec.scopes)."""
    expressions = f.items(selector, "matchExpressions", "spec.scopeSelector", lambda e, p: (
        f.str(e, "scopeName", p), f.str(e, "operator", p),
        None if e.get("values") is None else f.str_list(e, "values", p)))
    out: list[str] = []
    for scope, operator, values in expressions:
        if scope not in STANDARD_SCOPES:
            out.append(invalid(child(_SELECTOR, "scopeName"), scope, "unsupported scope"))
        out += [invalid(_SELECTOR, _selector_text(expressions), "unsupported scope applied to resource")
                for name in limited if not scope_fits(scope, name)]
        if scope in _EXISTS_ONLY and operator != "Exists":
            out.append(invalid(child(_SELECTOR, "operator"), operator, _EXISTS_ONLY_TEXT))
        out += _operator_problems(operator, values)
    return out + _conflicts(_SELECTOR, {scope for scope, _, _ in expressions}, scopes)


def _operator_problems(operator: str, values: Sequence[str] | None) -> list[str]:
    if operator in ("In", "NotIn"):
        return [] if values else [required(child(_SELECTOR, "values"), "must be at least one value when "
                                           "`operator` is 'In' or 'NotIn' for scope selector")]
    if operator in ("Exists", "DoesNotExist"):
        return [invalid(child(_SELECTOR, "values"), go_strings(values), "must be no value when `operator` is "
                        "'Exist' or 'DoesNotExist' for scope selector")] if values else []
    return [invalid(child(_SELECTOR, "operator"), operator, "not a valid selector operator")]


def _selector_text(expressions: Sequence[tuple[str, str, Sequence[str] | None]]) -> GoText:
    """`%#v` of the *core.ScopeSelector (dereferenced: not a Stringer)."""
    kind = "core.ScopedResourceSelectorRequirement"
    listed = ", ".join(f"{kind}{{ScopeName:{go_quote(scope)}, Operator:{go_quote(op)}, "
                       f"Values:{go_strings(values).text}}}" for scope, op, values in expressions)
    return GoText(f"core.ScopeSelector{{MatchExpressions:[]{kind}{{{listed}}}}}")
