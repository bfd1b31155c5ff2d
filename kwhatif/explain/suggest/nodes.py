"""NodeUnschedulable and NodeAffinity: uncordon a node; label the node nearest to the pod's
nodeSelector and required node affinity; or change the pod's selector so that node matches.

"Nearest": among the nodes NodeAffinity alone rejects for the pod's own rule, the one that misses
the fewest nodeSelector labels plus failing match expressions of some required term (then the
smallest name, then the first term). Each failing expression is fixed on the node as follows:
In → the list's first value; Exists → the smallest value the key has on any node (else `true`);
NotIn, DoesNotExist → the label removed; Gt n → n+1; Lt n → n−1. On the pod instead: an `In`
list gains the value the node has, any other failing expression is dropped, and a nodeSelector
entry takes the node's value or is dropped."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from kwhatif.api.affinity import NodeSelector
from kwhatif.api.objects import CORDON_TAINT, Node, Pod, uncordoned
from kwhatif.api.selectors import Labels, Requirement
from kwhatif.api.tolerations import first_untolerated_taint
from kwhatif.explain.pod import NodeVerdict
from kwhatif.explain.suggest.model import (
    AFFINITY, CORDONED, TAINTS, Candidate, NodeOf, Size, Suggestion, Variant, key_domain_in, key_in, node_change,
    pod_change, pointer,
    rejected_alone,
)
from kwhatif.plugins.node_affinity import ERR_REASON_POD

REQUIRED = "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution"


def uncordon(pod: Pod, verdicts: list[NodeVerdict], node_of: NodeOf) -> list[Candidate]:
    """The first node (by name) that only its cordon keeps the pod off: NodeUnschedulable rejects
    it, and nothing else would once the cordon and its taint are gone."""
    for v in sorted(verdicts, key=lambda v: v.node):
        if v.feasible or v.plugin != CORDONED or set(v.also_fails) - {TAINTS}:
            continue
        node = node_of(v.node).node
        after = uncordoned(node)
        if first_untolerated_taint(after.taints, pod.tolerations) is not None:
            continue
        patch: list[dict[str, Any]] = [{"op": "replace", "path": "/spec/unschedulable", "value": False}]
        patch += [{"op": "remove", "path": f"/spec/taints/{i}"}
                  for i in reversed(range(len(node.taints))) if node.taints[i].key == CORDON_TAINT.key]
        summary = f"uncordon {node.name} (kubectl uncordon {node.name}): only its cordon keeps the pod off it"
        return [(Suggestion(summary, [node_change(node.name, patch)], size=Size.ONE_NODE), Variant(pod, (after,)))]
    return []


@dataclass(frozen=True)
class Miss:
    """What keeps one node from matching the pod's node rule: the nodeSelector entries it lacks,
    and — with required node affinity — the term closest to matching and its failing expressions
    (by index in the term)."""

    node: Node
    selector: dict[str, str]
    term: int | None
    failing: tuple[tuple[int, Requirement], ...]

    @property
    def size(self) -> int:
        return len(self.selector) + len(self.failing)


MACHINE_LABEL_DOMAINS = (
    "kubernetes.io", "k8s.io",                                  # the kubelet's, the node role, NFD's features
    "karpenter.sh", "karpenter.k8s.aws", "amazonaws.com", "aws.com", "aws",   # AWS, Karpenter, EKS node groups
    "google.com", "gke.io", "azure.com", "openshift.io",        # GKE node pools and sandboxes, AKS, OpenShift
    "nvidia.com", "amd.com", "intel.com",                       # GPU feature discovery: the device model
)
"""Label domains (a key's prefix before `/`, and their subdomains) that the kubelet, the cloud
provider, node provisioners and hardware discovery set to say what the machine is, where and in
which pool: relabelling a node's zone, architecture, role, capacity type, runtime sandbox, node
group or GPU model would make the scheduler believe a lie, so a fix that needs one is never
suggested as a node label (people's own labels — `disktype=ssd`, `team=ml` — are)."""

POD_MUST_MATCH = ("kubernetes.io/os", "kubernetes.io/arch", "beta.kubernetes.io/os", "beta.kubernetes.io/arch")
"""Node labels a pod's rule names because its images run only there: widening the pod's rule on
one would put it where its containers cannot start, so that change is never suggested."""


def affinity_fixes(pod: Pod, verdicts: list[NodeVerdict], node_of: NodeOf) -> list[Candidate]:
    """Change the pod's rule so that the nearest node matches it (unless that means running its
    images on another OS or architecture: POD_MUST_MATCH), and label that node (unless that means
    rewriting what the machine is: MACHINE_LABEL_DOMAINS)."""
    out: list[Candidate] = []
    nearest = _nearest_miss(pod, verdicts, node_of, labelling=False)
    if nearest is not None and not any(key_in(key, POD_MUST_MATCH) for key in _keys(nearest)):
        widened = _widen_pod_rule(pod, nearest)
        out += [widened] if widened is not None else []
    nearest = _nearest_miss(pod, verdicts, node_of, labelling=True)
    if nearest is not None and not any(key_domain_in(key, MACHINE_LABEL_DOMAINS) for key in _keys(nearest)):
        out.append(_label_node(pod, nearest, verdicts, node_of))
    return out


def _keys(miss: Miss) -> list[str]:
    return [*miss.selector, *(req.key for _, req in miss.failing)]


def _nearest_miss(pod: Pod, verdicts: list[NodeVerdict], node_of: NodeOf, labelling: bool) -> Miss | None:
    """The node closest to matching (to be labelled: by labels it lacks, `_miss`)."""
    best: Miss | None = None
    for v in rejected_alone(verdicts, AFFINITY):
        if ERR_REASON_POD not in v.reasons:  # the scheduler-enforced affinity is not the pod's to change
            continue
        miss = _miss(pod, node_of(v.node).node, labelling)
        if miss is None or not miss.size:
            continue
        if best is None or (miss.size, v.node) < (best.size, best.node.name):
            best = miss
    return best


def _addable(req: Requirement, labels: Labels) -> bool:
    """Whether a failing expression is met by a label the node does not have yet."""
    return req.key not in labels and req.operator in ("In", "Exists", "Gt", "Lt")


def _miss(pod: Pod, node: Node, labelling: bool) -> Miss | None:
    """The node's miss with the term that fails the fewest expressions; None when no term can be
    met by labels (every term invalid, empty, or failing a `metadata.name` field). `labelling`:
    the node is to be labelled, its nodeSelector labels set first — a term they satisfy needs
    nothing more (the terms are ORed; a change of the pod's rule leaves the node as it is) — and
    only by labels it lacks: a label it has is never changed nor removed, as other pods' rules,
    DaemonSets' selectors and people read it (`disktype=ssd` rewritten to `nvme` would strand the
    pods that need ssd, and lie about the disk)."""
    labels = node.labels
    selector = {k: want for k, want in (pod.node_selector or {}).items() if labels.get(k) != want}
    if labelling and any(k in labels for k in selector):
        return None
    required = _required(pod)
    if required is None:
        return Miss(node, selector, None, ())
    labelled = {**labels, **selector} if labelling else labels
    best: Miss | None = None
    for index, term in enumerate(required.terms):
        if not term.valid or term.is_empty or not all(f.matches({"metadata.name": node.name})
                                                      for f in term.match_fields):
            continue
        failing = tuple((i, r) for i, r in enumerate(term.match_expressions) if not r.matches(labelled))
        if labelling and not all(_addable(r, labels) for _, r in failing):
            continue
        if best is None or len(failing) < len(best.failing):
            best = Miss(node, selector, index, failing)
    return best


def _required(pod: Pod) -> NodeSelector | None:
    node_affinity = pod.affinity.node_affinity if pod.affinity else None
    return node_affinity.required if node_affinity else None


def _label_node(pod: Pod, miss: Miss, verdicts: list[NodeVerdict], node_of: NodeOf) -> Candidate:
    """The labels added to the nearest node (labels it lacks: `_miss`) so that it matches."""
    wanted = dict(miss.selector)
    for _, req in miss.failing:
        wanted[req.key] = _label_value(req, verdicts, node_of)
    patch = [{"op": "add", "path": f"/metadata/labels/{pointer(k)}", "value": v} for k, v in sorted(wanted.items())]
    name = miss.node.name
    args = " ".join(f"{k}={v}" for k, v in sorted(wanted.items()))
    summary = f"label {name} {', '.join(args.split())} (kubectl label node {name} {args})"
    return (Suggestion(summary, [node_change(name, patch)], size=Size.ONE_NODE),
            Variant(pod, (replace(miss.node, labels={**miss.node.labels, **wanted}),)))


def _label_value(req: Requirement, verdicts: list[NodeVerdict], node_of: NodeOf) -> str:
    """The label value that satisfies a failing In, Exists, Gt or Lt expression (`_addable`)."""
    if req.operator == "In":
        return req.values[0]
    if req.operator == "Exists":
        seen = {v for verdict in verdicts for v in [node_of(verdict.node).node.labels.get(req.key)] if v is not None}
        return min(seen) if seen else "true"
    return str(int(req.values[0]) + (1 if req.operator == "Gt" else -1))


def _widen_pod_rule(pod: Pod, miss: Miss) -> Candidate | None:
    """The pod's nodeSelector and nearest required term changed so the nearest node matches;
    None when no such change of that term works."""
    labels = miss.node.labels
    ops: list[dict[str, Any]] = []
    said: list[str] = []
    selector = dict(pod.node_selector or {})
    for key in sorted(miss.selector):
        path = f"/spec/nodeSelector/{pointer(key)}"
        if key in labels:
            ops.append({"op": "replace", "path": path, "value": labels[key]})
            selector[key] = labels[key]
            said.append(f"nodeSelector {key}={labels[key]}")
        else:
            ops.append({"op": "remove", "path": path})
            del selector[key]
            said.append(f"nodeSelector {key} dropped")
    affinity, required = pod.affinity, _required(pod)
    if required is not None and affinity is not None and affinity.node_affinity is not None and miss.failing:
        widened = _widened_required(required, miss)
        if widened is None:
            return None
        new_required, term_ops, term_said = widened
        ops += term_ops
        said += term_said
        affinity = replace(affinity, node_affinity=replace(affinity.node_affinity, required=new_required))
    variant = pod.evolve(node_selector=selector, affinity=affinity)
    summary = f"change the pod's node rule so {miss.node.name} matches: {', '.join(said)}"
    return Suggestion(summary, [pod_change(pod, ops)]), Variant(variant)


Widened = tuple[NodeSelector | None, list[dict[str, Any]], list[str]]


def _widened_required(required: NodeSelector, miss: Miss) -> Widened | None:
    """The required node affinity with the nearest term's failing expressions fixed: an `In` list
    gains the node's value, the others are dropped (with the patch operations and their words).
    A term left empty would match nothing: the whole requirement is dropped when it was the only
    term (the new requirement is then None); with other terms no such change works (None)."""
    assert miss.term is not None
    term = required.terms[miss.term]
    path = f"{REQUIRED}/nodeSelectorTerms/{miss.term}/matchExpressions"
    exprs: list[Requirement | None] = list(term.match_expressions)
    ops: list[dict[str, Any]] = []
    said: list[str] = []
    for i, req in miss.failing:
        value = miss.node.labels.get(req.key)
        if req.operator == "In" and value is not None:
            ops.append({"op": "add", "path": f"{path}/{i}/values/-", "value": value})
            exprs[i] = replace(req, values=(*req.values, value))
            said.append(f"{value} added to {req.key} In")
        else:
            exprs[i] = None
            said.append(f"{req.key} {req.operator} dropped")
    kept = tuple(e for e in exprs if e is not None)
    if not kept and not term.match_fields:
        if len(required.terms) > 1:
            return None
        return None, [{"op": "remove", "path": REQUIRED}], ["required node affinity dropped"]
    ops += [{"op": "remove", "path": f"{path}/{i}"} for i in reversed(range(len(exprs))) if exprs[i] is None]
    terms = list(required.terms)
    terms[miss.term] = replace(term, match_expressions=kept)
    return NodeSelector(tuple(terms)), ops, said
