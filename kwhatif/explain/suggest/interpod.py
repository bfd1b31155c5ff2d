"""InterPodAffinity: drop a required (anti-)affinity term of the pod's own, or delete the
matching pods in the way of an anti-affinity.

Pods in the way of node N (interpodaffinity filtering.go:Filter): in N's domain of each of the
pod's required anti-affinity terms, the existing pods the term matches; and the existing pods in
N's domain of one of their own required anti-affinity terms that matches the pod. The node
rejected for anti-affinity alone with the fewest such pods (then the smallest name) is freed by
deleting them. Namespace selectors are read against an empty label set (the namespaces' labels
are not at hand here): a pod that one would match is missed, and the re-run then drops the
suggestion rather than show a wrong one."""

from __future__ import annotations

from dataclasses import replace
from collections.abc import Iterable, Sequence
from typing import Any, Mapping

from kwhatif.api.affinity import PodAffinityRules
from kwhatif.api.objects import Pod, PodDisruptionBudget
from kwhatif.explain.pod import NodeVerdict
from kwhatif.explain.suggest.model import (
    INTERPOD, Candidate, NodeOf, Size, Suggestion, Variant, budget_note, budgets_broken, comes_back, delete_change,
    pod_change, rejected_alone,
)
from kwhatif.plugins.inter_pod_affinity.filtering import (
    ERR_REASON_AFFINITY, ERR_REASON_ANTI_AFFINITY, ERR_REASON_EXISTING_ANTI_AFFINITY,
)
from kwhatif.plugins.inter_pod_affinity.terms import parsed_terms

# The pod's own required terms that can reject a node, per InterPodAffinity reason: the Affinity
# field holding them and its name in a manifest.
_POD_TERMS = {
    ERR_REASON_AFFINITY: ("pod_affinity", "podAffinity"),
    ERR_REASON_ANTI_AFFINITY: ("pod_anti_affinity", "podAntiAffinity"),
}
_ANTI = (ERR_REASON_ANTI_AFFINITY, ERR_REASON_EXISTING_ANTI_AFFINITY)
_NO_LABELS: Mapping[str, str] = {}
MAX_PODS_NAMED = 3

Domain = tuple[str, str]  # (topology key, value)
Placed = tuple[Pod, str]  # a bound pod and its node


def drop_pod_terms(pod: Pod, verdicts: list[NodeVerdict]) -> list[Candidate]:
    """When InterPodAffinity alone rejects some node because of the pod's own required
    podAffinity / podAntiAffinity: each of those terms dropped (the owner may keep it as a
    preferred term, which scoring weighs but never enforces)."""
    reasons = {r for v in rejected_alone(verdicts, INTERPOD) for r in v.reasons}
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
            summary = (f"drop the required {manifest_name} term {i} (topologyKey {term.topology_key}), or make "
                       "it preferred: a rule the cluster cannot meet now")
            out.append((Suggestion(summary, [pod_change(pod, [{"op": "remove", "path": path}])]), Variant(variant)))
    return out


def delete_pods_in_the_way(pod: Pod, verdicts: list[NodeVerdict], node_of: NodeOf,
                           pdbs: Sequence[PodDisruptionBudget] = ()) -> list[Candidate]:
    """The smallest set of pods whose deletion frees a node InterPodAffinity rejects alone for
    anti-affinity (the pod's or an existing pod's), among those breaking the fewest
    PodDisruptionBudgets (which the summary names)."""
    candidates = [v for v in rejected_alone(verdicts, INTERPOD) if set(v.reasons) & set(_ANTI)]
    if not candidates:
        return []
    repellers = _repellers(pod, verdicts, node_of)
    keys = sorted({k for k, _ in repellers})
    best: tuple[int, int, str, list[Placed], list[Domain], list[str]] | None = None
    for v in candidates:
        labels = node_of(v.node).node.labels
        domains = [(k, labels[k]) for k in keys if k in labels and (k, labels[k]) in repellers]
        found = {p.key: (p, on) for domain in domains for p, on in repellers[domain]}
        in_way = [found[k] for k in sorted(found)]
        if any(comes_back(p) or same_controller(p, pod) for p, _ in in_way):
            continue  # a DaemonSet's pod or a mirror would be back in the way; a sibling replica's
            # replacement would be one more copy of this pod, repelled as it is
        if not in_way:
            continue
        broken = budgets_broken([p for p, _ in in_way], pdbs)
        if best is None or (len(broken), len(in_way), v.node) < best[:3]:
            best = (len(broken), len(in_way), v.node, in_way, domains, broken)
    if best is None:
        return []
    _, _, name, in_way, domains, broken = best
    shown = ", ".join(f"{p.key} (on {on})" for p, on in in_way[:MAX_PODS_NAMED])
    more = f" and {len(in_way) - MAX_PODS_NAMED} more" if len(in_way) > MAX_PODS_NAMED else ""
    where = " and ".join(f"{k} {value}" for k, value in domains)
    summary = (f"delete (or move) {shown}{more}, in {where}: anti-affinity keeps them and the pod apart, "
               f"and {name} is then free{_replaced_note(p for p, _ in in_way)}{budget_note(broken)}")
    return [(Suggestion(summary, [delete_change(p) for p, _ in in_way], size=Size.DELETE_PODS),
             Variant(pod, removed=frozenset(p.key for p, _ in in_way)))]


def same_controller(other: Pod, pod: Pod) -> bool:
    """Whether `other` is a replica of the pod's own controller: deleting it frees nothing, as its
    controller makes another replica that anti-affinity keeps apart the same way."""
    mine, theirs = pod.controller_ref, other.controller_ref
    return mine is not None and theirs is not None and other.namespace == pod.namespace and \
        (mine.kind, mine.name) == (theirs.kind, theirs.name)


def _replaced_note(pods: Iterable[Pod]) -> str:
    """What becomes of a controller's pod deleted: its controller makes a new one at once, which
    queues behind this pod (newer) unless its priority is higher — it may land back in the way."""
    made = [p for p in pods if p.controller_ref is not None]
    if not made:
        return ""
    return (f" ({len(made)} of them come back from their controllers, as new pods scheduled after this one "
            "unless of higher priority)")


def _repellers(pod: Pod, verdicts: list[NodeVerdict], node_of: NodeOf) -> dict[Domain, list[Placed]]:
    """Per (topology key, value): the existing pods there that repel the pod — one pass over the
    bound pods (each node's domain of the pod's anti-affinity terms, and of theirs)."""
    own = parsed_terms(pod)[1]
    out: dict[Domain, list[Placed]] = {}
    for v in verdicts:
        info = node_of(v.node)
        labels = info.node.labels
        for p in info.pods:
            terms = [t for t in own if t.matches(p.pod, _NO_LABELS)]
            if p.with_required_anti_affinity:
                terms += [t for t in parsed_terms(p.pod)[1] if t.matches(pod, _NO_LABELS)]
            for t in terms:
                if t.topology_key in labels:
                    out.setdefault((t.topology_key, labels[t.topology_key]), []).append((p.pod, v.node))
    return out
