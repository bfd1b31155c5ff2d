"""What would make a pending pod fit: changes, each proven by re-running the scheduler.

A suggestion is only shown when the same scenario — the queue up to and including this pod — run
again with the change applied binds the pod; one that does not is dropped, never hedged. Changes
follow a machine-readable contract (`-o json`, `explanation.suggestions`): RFC 6902 JSON Patch
operations on the object as it appears in the input, so a tool can apply them and check.

Kinds so far: lower a container's request to what the nearest node has free (NodeResourcesFit);
tolerate the taint that alone keeps the pod off the most nodes (TaintToleration); uncordon a node
that only its cordon keeps the pod off (NodeUnschedulable); add a node like one that is full
(NodeResourcesFit, when the pod would fit that node empty); label the node closest to the pod's
nodeSelector (NodeAffinity); delete the pods holding the host ports the pod wants (NodePorts);
the lowest existing PriorityClass with which preemption makes room (DefaultPreemption); a
DoNotSchedule topology spread constraint made ScheduleAnyway (PodTopologySpread); a required pod
(anti-)affinity term dropped (InterPodAffinity).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Callable, Sequence

from kwhatif.api.objects import Container, Node, Pod, PriorityClass, node_copies
from kwhatif.api.affinity import PodAffinityRules
from kwhatif.api.quantity import format_amount
from kwhatif.api.tolerations import Taint, Toleration, first_untolerated_taint
from kwhatif.explain.pod import Explanation, NodeVerdict
from kwhatif.framework.scheduler import Outcome, PodResult
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import wanted_host_ports

FIT = "NodeResourcesFit"
TAINTS = "TaintToleration"
CORDONED = "NodeUnschedulable"
AFFINITY = "NodeAffinity"
PORTS = "NodePorts"
SPREAD = "PodTopologySpread"
INTERPOD = "InterPodAffinity"
# The pod's own required terms that can reject a node, per InterPodAffinity reason: the Affinity
# field holding them and its name in a manifest.
_POD_TERMS = {
    "node(s) didn't match pod affinity rules": ("pod_affinity", "podAffinity"),
    "node(s) didn't match pod anti-affinity rules": ("pod_anti_affinity", "podAntiAffinity"),
}
CORDON_TAINT = "node.kubernetes.io/unschedulable"  # set with spec.unschedulable, removed with it
MAX_SUGGESTIONS = 5
# Scheduler units per unit of the API quantity: cpu is counted in millicores, the rest as is.
_SCALE = {"cpu": 1000}

MAX_NEW_NODES = 8  # add-node suggestions try 1, 2, 4, 8 nodes
MAX_PRIORITY_TRIES = 4  # PriorityClasses tried, lowest first


@dataclass(frozen=True)
class Variant:
    """What a suggestion changes, for its re-run: the pod as changed, nodes changed or added, and
    the keys of bound pods deleted."""

    pod: Pod
    nodes: tuple[Node, ...] = ()
    removed: frozenset[str] = frozenset()


Rerun = Callable[[Variant], PodResult | None]  # the scenario again with the variant applied
NodeOf = Callable[[str], NodeInfo]  # a node of the snapshot with its pods, by name
Candidate = tuple["Suggestion", Variant]


@dataclass(frozen=True)
class Suggestion:
    summary: str
    changes: list[dict[str, Any]] = field(default_factory=list)
    verified: bool = True

    def data(self) -> dict[str, Any]:
        return {"summary": self.summary, "verified": self.verified, "changes": self.changes}


def suggestions(pod: Pod, exp: Explanation, rerun: Rerun, node_of: NodeOf,
                classes: Sequence[PriorityClass] = ()) -> list[Suggestion]:
    """The verified suggestions for a pod that stays pending, smallest change first."""
    if exp.outcome != Outcome.UNSCHEDULABLE or not exp.attempts:
        return []
    verdicts = exp.attempts[0].verdicts
    candidates = _lower_requests(pod, verdicts) + _tolerate_taint(pod, verdicts, node_of) \
        + _uncordon(pod, verdicts, node_of) + _label_node(pod, verdicts, node_of) + _free_ports(pod, verdicts, node_of) \
        + _relax_spread(pod, verdicts) + _drop_pod_terms(pod, verdicts)
    verified = [s for s, variant in candidates if _binds(rerun(variant))]
    added = _add_nodes(pod, verdicts, node_of, rerun)
    return (verified + added + _raise_priority(pod, exp, classes, rerun))[:MAX_SUGGESTIONS]


def _binds(result: PodResult | None) -> bool:
    return result is not None and result.outcome == Outcome.BOUND


def _lower_requests(pod: Pod, verdicts: list[NodeVerdict]) -> list[Candidate]:
    """Per resource: the node short by the least of it, and nothing else (no other reason, no
    other filter failing); the one container asking for that resource asks that much less."""
    out: list[Candidate] = []
    for resource, (node, short) in sorted(_nearest_nodes(verdicts).items(), key=lambda kv: kv[1][1]):
        index = _only_container_asking(pod, resource)
        if index is None:
            continue
        container = pod.containers[index]
        lowered = container.requests[resource] - Fraction(short, _SCALE.get(resource, 1))
        if lowered <= 0:
            continue
        variant = _with_request(pod, index, resource, lowered)
        amount = _quantity(resource, lowered)
        summary = (f"lower container {container.name}'s {resource} request to {amount} "
                   f"(by {format_amount(resource, short)}): it then fits on {node}")
        # The whole requests map is set ("add" creates or replaces it): a container whose requests
        # were defaulted from its limits has no requests to replace one of.
        requests = {name: _quantity(name, value if name != resource else lowered)
                    for name, value in sorted(container.requests.items())}
        change = {"op": "patch", "target": {"kind": "Pod", "namespace": pod.namespace, "name": pod.name},
                  "patch": [{"op": "add", "path": f"/spec/containers/{index}/resources/requests", "value": requests}]}
        out.append((Suggestion(summary, [change]), Variant(variant)))
    return out


def _nearest_nodes(verdicts: list[NodeVerdict]) -> dict[str, tuple[str, int]]:
    """resource -> (node, shortfall) over the nodes NodeResourcesFit alone rejects for that one
    resource: the smallest shortfall, then the smallest node name."""
    best: dict[str, tuple[str, int]] = {}
    for v in verdicts:
        if v.feasible or v.plugin != FIT or v.also_fails or len(v.measures) != 1:
            continue
        [(resource, short)] = v.measures.items()
        if resource == "pods":
            continue
        if resource not in best or (short, v.node) < (best[resource][1], best[resource][0]):
            best[resource] = (v.node, short)
    return best


def _only_container_asking(pod: Pod, resource: str) -> int | None:
    """The index of the one regular container requesting `resource` (init containers and
    overhead also count towards the pod's request; with them, or with several containers, which
    one to lower is the owner's call)."""
    asking = [i for i, c in enumerate(pod.containers) if c.requests.get(resource)]
    others = any(c.requests.get(resource) for c in pod.init_containers) or (pod.overhead or {}).get(resource)
    return asking[0] if len(asking) == 1 and not others else None


def _with_request(pod: Pod, index: int, resource: str, amount: Fraction) -> Pod:
    container: Container = pod.containers[index]
    lowered = replace(container, requests={**container.requests, resource: amount})
    return pod.evolve(containers=pod.containers[:index] + (lowered,) + pod.containers[index + 1:])


def _tolerate_taint(pod: Pod, verdicts: list[NodeVerdict], node_of: NodeOf) -> list[Candidate]:
    """The untolerated taint that alone (no other filter failing) keeps the pod off the most
    nodes; tolerating exactly it (Equal, its effect) is the smallest change to the pod."""
    blocked: dict[Taint, list[str]] = {}
    for v in verdicts:
        if v.feasible or v.plugin != TAINTS or v.also_fails:
            continue
        taint = first_untolerated_taint(node_of(v.node).node.taints, pod.tolerations)
        if taint is not None:
            blocked.setdefault(taint, []).append(v.node)
    if not blocked:
        return []
    taint, nodes = min(blocked.items(), key=lambda kv: (-len(kv[1]), kv[0].key, kv[0].value, kv[0].effect))
    added = Toleration(taint.key, "Equal", taint.value, taint.effect)
    variant = pod.evolve(tolerations=(*pod.tolerations, added))
    value = [_toleration_manifest(t) for t in variant.tolerations]
    change = {"op": "patch", "target": {"kind": "Pod", "namespace": pod.namespace, "name": pod.name},
              "patch": [{"op": "add", "path": "/spec/tolerations", "value": value}]}
    where = f"{min(nodes)}" + (f" and {len(nodes) - 1} more node(s)" if len(nodes) > 1 else "")
    summary = f"tolerate the taint {taint.key}={taint.value}:{taint.effect}: it then may land on {where}"
    return [(Suggestion(summary, [change]), Variant(variant))]


def _uncordon(pod: Pod, verdicts: list[NodeVerdict], node_of: NodeOf) -> list[Candidate]:
    """The first node (by name) that only its cordon keeps the pod off: NodeUnschedulable rejects
    it, and nothing else would once the cordon and its taint are gone."""
    for v in sorted(verdicts, key=lambda v: v.node):
        if v.feasible or v.plugin != CORDONED or set(v.also_fails) - {TAINTS}:
            continue
        node = node_of(v.node).node
        kept = tuple(t for t in node.taints if t.key != CORDON_TAINT)
        if first_untolerated_taint(kept, pod.tolerations) is not None:
            continue
        patch: list[dict[str, Any]] = [{"op": "replace", "path": "/spec/unschedulable", "value": False}]
        patch += [{"op": "remove", "path": f"/spec/taints/{i}"}
                  for i in reversed(range(len(node.taints))) if node.taints[i].key == CORDON_TAINT]
        change = {"op": "patch", "target": {"kind": "Node", "namespace": None, "name": node.name}, "patch": patch}
        summary = f"uncordon {node.name} (kubectl uncordon {node.name}): only its cordon keeps the pod off it"
        return [(Suggestion(summary, [change]), Variant(pod, (replace(node, unschedulable=False, taints=kept),)))]
    return []


def _label_node(pod: Pod, verdicts: list[NodeVerdict], node_of: NodeOf) -> list[Candidate]:
    """The node that NodeAffinity alone rejects and that lacks the fewest of the pod's
    nodeSelector labels (then the smallest name), given them."""
    if not pod.node_selector:
        return []
    best: tuple[int, str, dict[str, str]] | None = None
    for v in verdicts:
        if v.feasible or v.plugin != AFFINITY or v.also_fails:
            continue
        labels = node_of(v.node).node.labels
        missing = {k: want for k, want in pod.node_selector.items() if labels.get(k) != want}
        if missing and (best is None or (len(missing), v.node) < best[:2]):
            best = (len(missing), v.node, missing)
    if best is None:
        return []
    _, name, missing = best
    node = node_of(name).node
    patch = [{"op": "add", "path": f"/metadata/labels/{_pointer(k)}", "value": v} for k, v in sorted(missing.items())]
    change = {"op": "patch", "target": {"kind": "Node", "namespace": None, "name": name}, "patch": patch}
    shown = ", ".join(f"{k}={v}" for k, v in sorted(missing.items()))
    summary = f"label {name} {shown} (kubectl label node {name} {shown.replace(', ', ' ')} --overwrite)"
    return [(Suggestion(summary, [change]), Variant(pod, (replace(node, labels={**node.labels, **missing}),)))]


def _free_ports(pod: Pod, verdicts: list[NodeVerdict], node_of: NodeOf) -> list[Candidate]:
    """On the node NodePorts alone rejects with the fewest pods in the way (then the smallest
    name): delete the pods holding a host port the pod wants (or move them elsewhere)."""
    wanted = {(protocol, port) for _ip, protocol, port in wanted_host_ports(pod)}
    best: tuple[int, str, list[Pod]] | None = None
    for v in verdicts:
        if v.feasible or v.plugin != PORTS or v.also_fails:
            continue
        holders = [p.pod for p in node_of(v.node).pods
                   if any((protocol, port) in wanted for _ip, protocol, port in p.host_ports)]
        if holders and (best is None or (len(holders), v.node) < best[:2]):
            best = (len(holders), v.node, holders)
    if best is None:
        return []
    _, name, holders = best
    changes = [{"op": "delete", "target": {"kind": "Pod", "namespace": p.namespace, "name": p.name}} for p in holders]
    ports = ", ".join(f"{port}/{protocol}" for protocol, port in sorted(wanted))
    summary = (f"delete (or move) {', '.join(p.key for p in holders)} on {name}, holding host port(s) {ports} "
               "the pod wants")
    return [(Suggestion(summary, changes), Variant(pod, removed=frozenset(p.key for p in holders)))]


def _raise_priority(pod: Pod, exp: Explanation, classes: Sequence[PriorityClass], rerun: Rerun) -> list[Suggestion]:
    """When some node could take the pod if lower-priority pods left (preemption found potential
    nodes), the lowest existing PriorityClass above the pod's priority with which the re-run
    preempts and binds it; the victims are named."""
    potential = (exp.preemption or {}).get("potential_nodes")
    if not potential or pod.preemption_policy == "Never":
        return []
    higher = sorted((c for c in classes if c.value > exp.priority), key=lambda c: (c.value, c.name))
    for cls in higher[:MAX_PRIORITY_TRIES]:
        result = rerun(Variant(pod.evolve(priority_class_name=cls.name, priority=cls.value)))
        if result is None or result.final is None or not _binds(result):
            continue
        victims = [v.pod.key for a in result.attempts if a.preemption for v in a.preemption.victims]
        patch = [{"op": "add", "path": "/spec/priorityClassName", "value": cls.name},
                 {"op": "add", "path": "/spec/priority", "value": cls.value}]
        change = {"op": "patch", "target": {"kind": "Pod", "namespace": pod.namespace, "name": pod.name},
                  "patch": patch}
        shown = ", ".join(victims[:2]) + (f" and {len(victims) - 2} more" if len(victims) > 2 else "")
        evicts = f", evicting {shown}" if victims else ""
        return [Suggestion(f"give the pod priorityClassName {cls.name} ({cls.value}): preemption then makes "
                           f"room on {result.final.node}{evicts}", [change])]
    return []


def _relax_spread(pod: Pod, verdicts: list[NodeVerdict]) -> list[Candidate]:
    """When PodTopologySpread alone rejects some node: each DoNotSchedule constraint of the pod's
    own made ScheduleAnyway (kept as a preference in scoring, no longer a rule)."""
    if not any(not v.feasible and v.plugin == SPREAD and not v.also_fails for v in verdicts):
        return []
    out: list[Candidate] = []
    for i, c in enumerate(pod.topology_spread_constraints):
        if c.when_unsatisfiable != "DoNotSchedule":
            continue
        relaxed = list(pod.topology_spread_constraints)
        relaxed[i] = replace(c, when_unsatisfiable="ScheduleAnyway")
        change = {"op": "patch", "target": {"kind": "Pod", "namespace": pod.namespace, "name": pod.name},
                  "patch": [{"op": "replace", "path": f"/spec/topologySpreadConstraints/{i}/whenUnsatisfiable",
                             "value": "ScheduleAnyway"}]}
        summary = (f"make the spread over {c.topology_key} (maxSkew {c.max_skew}) ScheduleAnyway: a preference "
                   "instead of a rule")
        out.append((Suggestion(summary, [change]), Variant(pod.evolve(topology_spread_constraints=tuple(relaxed)))))
    return out


def _drop_pod_terms(pod: Pod, verdicts: list[NodeVerdict]) -> list[Candidate]:
    """When InterPodAffinity alone rejects some node because of the pod's own required
    podAffinity / podAntiAffinity: each of those terms dropped (the owner may keep it as a
    preferred term, which scoring weighs but never enforces)."""
    reasons = {r for v in verdicts if not v.feasible and v.plugin == INTERPOD and not v.also_fails for r in v.reasons}
    out: list[Candidate] = []
    for reason, (field_name, manifest_name) in _POD_TERMS.items():
        rules: PodAffinityRules | None = getattr(pod.affinity, field_name, None) if pod.affinity else None
        if reason not in reasons or rules is None or pod.affinity is None:
            continue
        for i, term in enumerate(rules.required):
            kept = replace(rules, required=rules.required[:i] + rules.required[i + 1:])
            changes: dict[str, Any] = {field_name: kept}
            variant = pod.evolve(affinity=replace(pod.affinity, **changes))
            path = f"/spec/affinity/{manifest_name}/requiredDuringSchedulingIgnoredDuringExecution/{i}"
            change: dict[str, Any] = {"op": "patch", "target": {"kind": "Pod", "namespace": pod.namespace,
                                                                "name": pod.name},
                                      "patch": [{"op": "remove", "path": path}]}
            summary = (f"drop the required {manifest_name} term {i} (topologyKey {term.topology_key}), or make "
                       "it preferred: a rule the cluster cannot meet now")
            out.append((Suggestion(summary, [change]), Variant(variant)))
    return out


def _pointer(key: str) -> str:
    """A map key as one JSON Pointer token (RFC 6901): `~` and `/` escaped."""
    return key.replace("~", "~0").replace("/", "~1")


def _add_nodes(pod: Pod, verdicts: list[NodeVerdict], node_of: NodeOf, rerun: Rerun) -> list[Suggestion]:
    """The fewest nodes like the first (by name) that NodeResourcesFit alone rejects as full,
    not as too small (code Unschedulable: the pod fits the node empty). Earlier pods of the queue
    may take the new nodes first, so 1, 2, 4... are tried, each by a re-run."""
    full = sorted(v.node for v in verdicts
                  if not v.feasible and v.plugin == FIT and v.code == "Unschedulable" and not v.also_fails)
    if not full:
        return []
    template, names = node_of(full[0]).node, {v.node for v in verdicts}
    count = 1
    while count <= MAX_NEW_NODES and not _binds(rerun(Variant(pod, tuple(node_copies(template, count, names))))):
        count *= 2
    if count > MAX_NEW_NODES:
        return []
    # Between the last count that failed and the first that works, the smallest that works.
    count = next((k for k in range(count // 2 + 1, count)
                  if _binds(rerun(Variant(pod, tuple(node_copies(template, k, names)))))), count)
    added = node_copies(template, count, names)
    summary = f"add {count} node(s) like {template.name}: the pod then fits"  # their names: in the changes
    return [Suggestion(summary, [{"op": "add", "object": node_manifest(n)} for n in added])]


def node_manifest(node: Node) -> dict[str, Any]:
    """A Node as a manifest, with what scheduling reads: labels, taints, cordon, allocatable."""
    spec: dict[str, Any] = {}
    if node.unschedulable:
        spec["unschedulable"] = True
    if node.taints:
        spec["taints"] = [{k: v for k, v in (("key", t.key), ("value", t.value), ("effect", t.effect)) if v}
                          for t in node.taints]
    allocatable = {name: _quantity(name, amount) for name, amount in sorted(node.allocatable.items())}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": node.name, "labels": dict(node.labels)},
            "spec": spec, "status": {"capacity": allocatable, "allocatable": dict(allocatable)}}


def _quantity(name: str, amount: Fraction) -> str:
    """An API quantity as a manifest (and the summary) writes it: the scheduler's units through
    the one amount formatter (`500m`, `1Gi`, `110`)."""
    return format_amount(name, int(amount * _SCALE.get(name, 1)))


def _toleration_manifest(t: Toleration) -> dict[str, Any]:
    """A toleration as a manifest writes it (fields left out when empty)."""
    out: dict[str, Any] = {k: v for k, v in (("key", t.key), ("operator", t.operator), ("value", t.value),
                                              ("effect", t.effect)) if v}
    if t.toleration_seconds is not None:
        out["tolerationSeconds"] = t.toleration_seconds
    return out
