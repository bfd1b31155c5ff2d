"""TaintToleration: tolerate the taint that alone keeps the pod off the most nodes."""

from __future__ import annotations

from typing import Any

from kwhatif.api.objects import Pod, is_node_state_taint
from kwhatif.api.resources import is_extended_resource_name, pod_requests
from kwhatif.api.tolerations import Taint, Toleration, tolerates
from kwhatif.explain.pod import NodeVerdict
from kwhatif.explain.suggest.model import (
    TAINTS, Candidate, NodeOf, Suggestion, Variant, key_domain_in, pod_change, rejected_alone,
)


NOT_TO_TOLERATE_DOMAINS = ("kubernetes.io", "k8s.io", "karpenter.sh", "cilium.io")
"""Taints that keep workloads off for the node's sake, never suggested: a node's state or
lifecycle (`is_node_state_taint`: conditions, an uninitialised cloud node, a node the cluster
autoscaler or Karpenter is removing), and any of Kubernetes' own (the control plane's, an Arm
node's `kubernetes.io/arch`, which only images built for it may tolerate), Karpenter's or a
network agent's not-ready taint. Tolerating one lands the pod on a node it should not run on.
(Taints a team or a provider puts for the pods to opt in — `dedicated=gpu`, `nvidia.com/gpu`, a
spot pool's — are suggested.)"""
_NODE_STATE = ("not-ready", "unreachable", "uninitialized", "unregistered", "disrupted", "disruption")
"""Words of a taint key that says the node is not ready for pods yet, or is going away (a
CSI driver's or CNI agent's startup taint, a provisioner's)."""


ROLE_PREFIX = "node-role.kubernetes.io/"
ROLES_NOT_TO_TOLERATE = ("node-role.kubernetes.io/control-plane", "node-role.kubernetes.io/master")
"""A node role's taint is a team's convention (`node-role.kubernetes.io/infra`, which the pods
meant for those nodes tolerate), but the control plane's."""


def never_tolerated(taint: Taint) -> bool:
    key = taint.key
    if key.startswith(ROLE_PREFIX):
        return key in ROLES_NOT_TO_TOLERATE
    return (is_node_state_taint(taint) or key_domain_in(key, NOT_TO_TOLERATE_DOMAINS)
            or any(word in key.lower() for word in _NODE_STATE))


def tolerate_taint(pod: Pod, verdicts: list[NodeVerdict], node_of: NodeOf) -> list[Candidate]:
    """The untolerated taint that alone (no other filter failing, no other taint untolerated)
    keeps the pod off the most nodes; tolerating exactly it (Equal, its effect) is the smallest
    change to the pod, and the nodes named are those it frees. Never one `never_tolerated`."""
    blocked: dict[Taint, list[str]] = {}
    for v in rejected_alone(verdicts, TAINTS):
        untolerated = [t for t in node_of(v.node).node.taints if t.effect in ("NoSchedule", "NoExecute")
                       and not tolerates(pod.tolerations, t)]
        if len(untolerated) == 1 and not never_tolerated(untolerated[0]):
            blocked.setdefault(untolerated[0], []).append(v.node)
    if not blocked:
        return []
    taint, nodes = min(blocked.items(), key=lambda kv: (-len(kv[1]), kv[0].key, kv[0].value, kv[0].effect))
    added = Toleration(taint.key, "Equal", taint.value, taint.effect)
    variant = pod.evolve(tolerations=(*pod.tolerations, added))
    value = [_toleration_manifest(t) for t in variant.tolerations]
    change = pod_change(pod, [{"op": "add", "path": "/spec/tolerations", "value": value}])
    where = f"{min(nodes)}" + (f" and {len(nodes) - 1} more node(s)" if len(nodes) > 1 else "")
    written = f"{taint.key}={taint.value}" if taint.value else taint.key  # as kubectl writes a taint
    summary = (f"tolerate the taint {written}:{taint.effect}: it then may land on {where}"
               + _kept_for(pod, nodes, node_of))
    return [(Suggestion(summary, [change]), Variant(variant))]


def _kept_for(pod: Pod, nodes: list[str], node_of: NodeOf) -> str:
    """The caveat when every node the toleration frees offers a device resource (nvidia.com/gpu)
    the pod does not ask for: the taint most likely keeps those nodes for pods that do — the fix
    works, and lands a web server on a GPU node."""
    asked = pod_requests(pod)
    offered = [{name for name, amount in node_of(n).node.allocatable.items()
                if amount > 0 and is_extended_resource_name(name) and not asked.get(name)} for n in nodes]
    kept = sorted(set.intersection(*offered)) if offered else []
    if not kept:
        return ""
    return (f" — nodes offering {', '.join(kept)}, which the pod does not request: the taint likely keeps them for "
            "pods that do")


def _toleration_manifest(t: Toleration) -> dict[str, Any]:
    """A toleration as a manifest writes it (fields left out when empty)."""
    out: dict[str, Any] = {k: v for k, v in (("key", t.key), ("operator", t.operator), ("value", t.value),
                                              ("effect", t.effect)) if v}
    if t.toleration_seconds is not None:
        out["tolerationSeconds"] = t.toleration_seconds
    return out
