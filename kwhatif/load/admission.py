"""What the API server does to a pod before the scheduler sees it (admission plugins and SetDefaults_Pod).

Applied to pending pods: LimitRanger defaults, Priority, DefaultTolerationSeconds, RuntimeClass,
and the create strategy's matchLabelKeys merging. A pod the API server would refuse raises
`AdmissionRejected` carrying the API server's own words; the run goes on without it.
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from typing import Mapping, Sequence

from kwhatif.api.affinity import PodAffinityRules, PodAffinityTerm, TopologySpreadConstraint
from kwhatif.api.objects import Container, LimitRange, LimitRangeItem, Pod, PriorityClass, RuntimeClass
from kwhatif.api.quota import Amount, pod_amount
from kwhatif.api.tolerations import Toleration
from kwhatif.golang import go_quote
from kwhatif.load.pods import HUGEPAGES_ALONE, hugepages_alone
from kwhatif.text import counted, listed

SYSTEM_PRIORITY_CLASSES = {
    "system-cluster-critical": PriorityClass("system-cluster-critical", 2000000000),
    "system-node-critical": PriorityClass("system-node-critical", 2000001000),
}
DEFAULT_PREEMPTION_POLICY = "PreemptLowerPriority"
_DEFAULT_TOLERATION_KEYS = ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")


class AdmissionRejected(Exception):
    """The API server refuses the pod; `str()` is the text `kubectl apply` would print."""


def forbidden(pod: Pod, text: str) -> AdmissionRejected:
    """A refusal in admission.NewForbidden's words: `pods "<name>" is forbidden: <text>`."""
    return AdmissionRejected(f'pods "{pod.name}" is forbidden: {text}')


def _default_class(classes: Mapping[str, PriorityClass]) -> PriorityClass | None:
    """The globalDefault class with the lowest value, if any (priority admission.go:Admit)."""
    defaults = [c for c in classes.values() if c.global_default]
    return min(defaults, key=lambda c: (c.value, c.name)) if defaults else None


def admit_priority(pod: Pod, classes: Mapping[str, PriorityClass]) -> Pod:
    """Priority admission: resolve the class, refuse unknown names and contradicting values."""
    name = pod.priority_class_name
    if not name:
        found = _default_class(classes)
        value = found.value if found else 0
        policy = found.preemption_policy if found else DEFAULT_PREEMPTION_POLICY
        name = found.name if found else ""
    else:
        found = classes.get(name) or SYSTEM_PRIORITY_CLASSES.get(name)
        if found is None:
            raise forbidden(pod, f"no PriorityClass with name {name} was found")
        value, policy = found.value, found.preemption_policy
    if pod.priority is not None and pod.priority != value:
        raise forbidden(pod, f"the integer value of priority ({pod.priority}) must not be provided in pod spec; "
                              f"priority admission controller computed {value} from the given PriorityClass name")
    if pod.preemption_policy is not None and pod.preemption_policy != policy:
        raise forbidden(pod, f"the string value of PreemptionPolicy ({pod.preemption_policy}) must not be provided "
                              f"in pod spec; priority admission controller computed {policy} from the given "
                              f"PriorityClass name")
    return replace(pod, priority=value, priority_class_name=name, preemption_policy=policy)


def admit_default_tolerations(pod: Pod) -> Pod:
    """DefaultTolerationSeconds: 300 s not-ready/unreachable NoExecute tolerations (defaulttolerationseconds
    admission.go:Admit)."""
    extra = []
    for key in _DEFAULT_TOLERATION_KEYS:
        if not any(t.key in ("", key) and t.effect in ("", "NoExecute") for t in pod.tolerations):
            extra.append(Toleration(key, "Exists", "", "NoExecute", 300))
    return replace(pod, tolerations=pod.tolerations + tuple(extra)) if extra else pod


def _covers(t1: Toleration, t2: Toleration) -> bool:
    """Whether toleration t1 makes t2 redundant (RuntimeClass merging, runtimeclass admission.go:Admit)."""
    if t1 == t2:
        return True
    if not (t1.key == t2.key or (not t1.key and t1.operator == "Exists")):
        return False
    if t1.effect and t1.effect != t2.effect:
        return False
    if t1.effect == "NoExecute" and t1.toleration_seconds is not None:
        if t2.toleration_seconds is None or t2.toleration_seconds > t1.toleration_seconds:
            return False
    if t1.operator == "Exists":
        return True
    return t1.operator in ("", "Equal") and t2.operator == "Equal" and t1.value == t2.value


def merge_tolerations(first: tuple[Toleration, ...], second: tuple[Toleration, ...]) -> tuple[Toleration, ...]:
    """Pod tolerations then class tolerations, dropping any that another kept one covers."""
    merged: list[Toleration] = []
    for tol in first + second:
        if any(_covers(kept, tol) for kept in merged):
            continue
        merged = [kept for kept in merged if not _covers(tol, kept)]
        merged.append(tol)
    return tuple(merged)


def admit_runtime_class(pod: Pod, classes: Mapping[str, RuntimeClass]) -> Pod:
    """RuntimeClass admission: overhead, scheduling nodeSelector and tolerations (runtimeclass admission.go:Admit)."""
    if not pod.runtime_class_name:
        if pod.overhead:
            raise forbidden(pod, "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead")
        return pod
    rc = classes.get(pod.runtime_class_name)
    if rc is None:
        raise forbidden(pod, f'pod rejected: RuntimeClass "{pod.runtime_class_name}" not found')
    overhead = pod.overhead
    if rc.overhead:
        if overhead and dict(overhead) != dict(rc.overhead):
            raise forbidden(pod, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead")
        overhead = rc.overhead
    elif overhead:
        raise forbidden(pod, "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead")
    selector = pod.node_selector
    if rc.node_selector:
        selector = dict(selector or {})
        for key, val in rc.node_selector.items():
            if key in selector and selector[key] != val:
                raise forbidden(pod, f"conflict: runtimeClass.scheduling.nodeSelector[{key}] = {val}; "
                                      f"pod.spec.nodeSelector[{key}] = {selector[key]}")
            selector[key] = val
    tolerations = merge_tolerations(pod.tolerations, rc.tolerations) if rc.tolerations else pod.tolerations
    return replace(pod, overhead=overhead, node_selector=selector, tolerations=tolerations)


def admit_limit_ranges(pod: Pod, ranges: list[LimitRange]) -> Pod:
    """LimitRanger's mutating half (limitranger admission.go): the namespace's Container
    defaults for missing limits and requests."""
    items = [item for lr in ranges if lr.namespace == pod.namespace for item in lr.items if item.type == "Container"]
    if not items:
        return pod

    def fill(c: Container) -> Container:
        limits, requests = dict(c.limits), dict(c.requests)
        for item in items:
            for name, q in item.default.items():
                limits.setdefault(name, q)
            for name, q in item.default_request.items():
                requests.setdefault(name, q)
        return replace(c, limits=limits, requests=requests)

    return replace(pod, containers=tuple(map(fill, pod.containers)),
                   init_containers=tuple(map(fill, pod.init_containers)))


def validate_limit_ranges(pod: Pod, ranges: list[LimitRange]) -> None:
    """After every mutating plugin, for a pod being created: the API server's validation of what
    the defaults made (a request above the limit a default set: the pod is invalid), then
    LimitRanger's validating half — each range's min, max and maxLimitRequestRatio per Container
    and per Pod; the first range violated refuses the pod, with all its violations. (A pod the
    snapshot has passed them when it was created.)"""
    here = [lr for lr in ranges if lr.namespace == pod.namespace]
    if not here:
        return
    _refuse_requests_above_limits(pod)
    for lr in here:
        violations = [v for item in lr.items for v in _violations(item, pod)]
        if violations:
            raise forbidden(pod, violations[0] if len(violations) == 1 else f"[{', '.join(violations)}]")


def _refuse_requests_above_limits(pod: Pod) -> None:
    """validation.go:ValidateResourceRequirements on what the defaults made (the manifest's own
    pairs were checked when it was read): the first request above its limit, in the API's words."""
    for field_name, containers in (("containers", pod.containers), ("initContainers", pod.init_containers)):
        for i, c in enumerate(containers):
            for name in sorted(c.requests):
                if name in c.limits and c.requests[name] > c.limits[name]:
                    raise AdmissionRejected(
                        f'Pod "{pod.name}" is invalid: spec.{field_name}[{i}].resources.requests: Invalid value: '
                        f'"{pod_amount(name, c.requests[name])}": must be less than or equal to {name} limit of '
                        f"{pod_amount(name, c.limits[name])}")


def _violations(item: LimitRangeItem, pod: Pod) -> list[str]:
    """limitranger PodValidateLimitFunc for one item: per Container (init containers too), or
    per Pod (the containers' sums, each raised to an init container's if larger). Resources in
    name order (Go ranges over a map)."""
    if item.type == "Container":
        pairs = [(c.requests, c.limits) for c in (*pod.containers, *pod.init_containers)]
    elif item.type == "Pod":
        pairs = [_pod_totals(pod)]
    else:
        return []
    out: list[str] = []
    for requests, limits in pairs:
        out += [v for name, q in sorted(item.min.items()) if (v := _below_min(item.type, name, q, requests))]
        out += [v for name, q in sorted(item.max.items()) if (v := _above_max(item.type, name, q, requests, limits))]
        out += [v for name, q in sorted(item.max_limit_request_ratio.items())
                if (v := _above_ratio(item.type, name, q, requests, limits))]
    return out


def _pod_totals(pod: Pod) -> tuple[dict[str, Fraction], dict[str, Fraction]]:
    """limitranger `sum` (a resource some container lacks is left out), then max with each init
    container's."""
    totals = []
    for part in ("requests", "limits"):
        lists = [getattr(c, part) for c in pod.containers]
        total = {name: sum((r[name] for r in lists), Fraction(0)) for name in set().union(*lists)
                 if all(name in r for r in lists)}
        for c in pod.init_containers:
            for name, q in getattr(c, part).items():
                total[name] = max(total.get(name, q), q)
        totals.append(total)
    return totals[0], totals[1]


def _below_min(kind: str, name: str, enforced: Amount, requests: Mapping[str, Fraction]) -> str | None:
    if name not in requests:
        return f"minimum {name} usage per {kind} is {enforced}.  No request is specified."
    if requests[name] < enforced.value:
        return f"minimum {name} usage per {kind} is {enforced}, but request is {pod_amount(name, requests[name])}."
    return None


def _above_max(kind: str, name: str, enforced: Amount, requests: Mapping[str, Fraction],
               limits: Mapping[str, Fraction]) -> str | None:
    if name not in limits:
        return f"maximum {name} usage per {kind} is {enforced}.  No limit is specified."
    if limits[name] > enforced.value:
        return f"maximum {name} usage per {kind} is {enforced}, but limit is {pod_amount(name, limits[name])}."
    if name in requests and requests[name] > enforced.value:
        return f"maximum {name} usage per {kind} is {enforced}, but request is {pod_amount(name, requests[name])}."
    return None


def _above_ratio(kind: str, name: str, enforced: Amount, requests: Mapping[str, Fraction],
                 limits: Mapping[str, Fraction]) -> str | None:
    """limitRequestRatioConstraint, in its float arithmetic over milli-values."""
    request, limit = _milli(requests.get(name, Fraction(0))), _milli(limits.get(name, Fraction(0)))
    if not request:
        return f"{name} max limit to request ratio per {kind} is {enforced}, but no request is specified or request is 0."
    if not limit:
        return f"{name} max limit to request ratio per {kind} is {enforced}, but no limit is specified or limit is 0."
    ratio = float(limit) / float(request)
    if ratio * 1000 > float(_milli(enforced.value)):
        return f"{name} max limit to request ratio per {kind} is {enforced}, but provided ratio is {ratio:f}."
    return None


def _milli(value: Fraction) -> int:
    """Quantity.MilliValue(): rounded up."""
    return math.ceil(value * 1000)


def _merge_term_keys(term: PodAffinityTerm, labels: Mapping[str, str]) -> PodAffinityTerm:
    if term.label_selector is None or not (term.match_label_keys or term.mismatch_label_keys):
        return term
    selector = term.label_selector.with_label_keys(term.match_label_keys, labels)
    return replace(term, label_selector=selector.with_label_keys(term.mismatch_label_keys, labels, "NotIn"))


def _merge_rules(rules: PodAffinityRules | None, labels: Mapping[str, str]) -> PodAffinityRules | None:
    if rules is None:
        return None
    return PodAffinityRules(
        tuple(_merge_term_keys(t, labels) for t in rules.required),
        tuple(replace(w, term=_merge_term_keys(w.term, labels)) for w in rules.preferred),
    )


def _merge_spread_keys(c: TopologySpreadConstraint, labels: Mapping[str, str]) -> TopologySpreadConstraint:
    if c.label_selector is None or not c.match_label_keys:
        return c
    return replace(c, label_selector=c.label_selector.with_label_keys(c.match_label_keys, labels))


def merge_label_keys(pod: Pod) -> Pod:
    """The create strategy merges matchLabelKeys/mismatchLabelKeys into selectors (pod strategy.go:PrepareForCreate)."""
    affinity = pod.affinity
    if affinity is not None and (affinity.pod_affinity or affinity.pod_anti_affinity):
        affinity = replace(affinity, pod_affinity=_merge_rules(affinity.pod_affinity, pod.labels),
                           pod_anti_affinity=_merge_rules(affinity.pod_anti_affinity, pod.labels))
    spread = tuple(_merge_spread_keys(c, pod.labels) for c in pod.topology_spread_constraints)
    return replace(pod, affinity=affinity, topology_spread_constraints=spread)


def admit_pod(
    pod: Pod,
    priority_classes: Mapping[str, PriorityClass],
    runtime_classes: Mapping[str, RuntimeClass],
    limit_ranges: list[LimitRange],
    *,
    created: bool,
) -> Pod:
    """Run the admission chain in kube-apiserver order. `created` marks pods read from manifests
    (not yet through the API server), whose create-strategy merges must also be applied."""
    pod = admit_limit_ranges(pod, limit_ranges)
    pod = admit_priority(pod, priority_classes)
    pod = admit_default_tolerations(pod)
    pod = admit_runtime_class(pod, runtime_classes)
    if not created:
        return pod
    validate_limit_ranges(pod, limit_ranges)
    alone = hugepages_alone(pod)
    if alone is not None:
        raise AdmissionRejected(f'Pod "{pod.name}" is invalid: {alone}: {HUGEPAGES_ALONE}')
    problem = creation_problem(pod)
    if problem is not None:
        raise AdmissionRejected(f'Pod "{pod.name}" is invalid: {problem}')
    return merge_label_keys(pod)


MIRROR = "kubernetes.io/config.mirror"
DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"


def creation_problem(pod: Pod) -> str | None:
    """What ValidatePodCreate refuses of a Pod being created that a workload's template may
    carry all the same (the controller's creations then fail, and its pods never exist):
    validateContainersOnlyForPod's image without surrounding whitespace, a nodeName beside
    scheduling gates, and ValidatePodSpecificAnnotations' mirror annotation without a node
    and pod-deletion-cost that is no int32."""
    for key, containers in (("containers", pod.containers), ("initContainers", pod.init_containers)):
        for i, c in enumerate(containers):
            if c.image != c.image.strip():
                return (f"spec.{key}[{i}].image: Invalid value: {go_quote(c.image)}: must not have leading or trailing "
                        "whitespace")
    if pod.node_name and pod.scheduling_gates:
        return "spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared"
    if MIRROR in pod.annotations and not pod.node_name:
        return (f"metadata.annotations[{MIRROR}]: Invalid value: {go_quote(pod.annotations[MIRROR])}: must set "
                "spec.nodeName if mirror pod annotation is set")
    cost = pod.annotations.get(DELETION_COST)
    if cost is not None and not _int32(cost):
        return f"metadata.annotations[{DELETION_COST}]: Invalid value: {go_quote(cost)}: must be a 32bit integer"
    return None


def _int32(text: str) -> bool:
    """strconv.ParseInt(text, 10, 32) succeeds."""
    body = text[1:] if text[:1] in "+-" else text
    return body.isascii() and body.isdigit() and -2**31 <= int(text) < 2**31


def missing_classes(pods: Sequence[Pod], priority_classes: Mapping[str, PriorityClass],
                    runtime_classes: Mapping[str, RuntimeClass]) -> list[str]:
    """A warning per kind of class that pending pods of the snapshot name and the snapshot lacks.
    Admission refuses such a pod, as the API server would refuse to create it (the reference's
    semantics: every pending pod is admitted); a real cluster's pending pod passed admission when
    its class existed, so the likelier cause is a dump made without the classes (`kubectl get
    nodes,pods`) — then every such pod is skipped, and this says what to add."""
    said = (_missing("PriorityClass", "priorityclasses", [p.priority_class_name for p in pods],
                     {**SYSTEM_PRIORITY_CLASSES, **priority_classes}),
            _missing("RuntimeClass", "runtimeclasses", [p.runtime_class_name for p in pods], runtime_classes))
    return [warning for warning in said if warning]


def _missing(kind: str, resource: str, named: Sequence[str | None], known: Mapping[str, object]) -> str:
    lacking = [name for name in named if name and name not in known]
    if not lacking:
        return ""
    one = len(lacking) == 1
    them = "it" if one else "them"
    return (f"{counted(len(lacking), 'pending pod')} {'names' if one else 'name'} a {kind} the snapshot lacks "
            f"({listed(sorted(set(lacking)))}): admission refuses {them}, as the API server would refuse to create "
            f"{them} (skipped); if the dump left the classes out, add them (kubectl get {resource} -o yaml)")


def admit_existing(pod: Pod, priority_classes: Mapping[str, PriorityClass],
                   runtime_classes: Mapping[str, RuntimeClass]) -> Pod:
    """A pod the snapshot says exists (bound) but that never went through the API server: a
    hand-written manifest. What admission would have set when it was created — its priority
    from the class, RuntimeClass overhead, the default tolerations — is set now, since
    preemption compares priorities and nodes account overhead. A pod that has a priority went
    through admission already (the Priority plugin is always on) and is left alone."""
    if pod.priority is not None:
        return pod
    pod = admit_priority(pod, priority_classes)
    pod = admit_default_tolerations(pod)
    return admit_runtime_class(pod, runtime_classes)

