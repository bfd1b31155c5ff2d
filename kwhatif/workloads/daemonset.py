"""DaemonSet (apps/v1): one pod per node that should run it (daemon controller
NodeShouldRunDaemonPod): the node matches the pod's required node affinity and nodeSelector, and
the pod (with the DaemonSet default tolerations) tolerates every NoSchedule and NoExecute taint.

Each pod is `<daemonset>-<5 chars>`, labelled `controller-revision-hash` and
`pod-template-generation`, carries the default tolerations (AddOrUpdateDaemonPodTolerations) and
is pinned to its node by required node affinity `matchFields metadata.name In [<node>]`, which
replaces any required node selector terms of the template (ReplaceDaemonSetPodNodeNameNodeAffinity).
Nodes are taken in name order."""

from __future__ import annotations

import copy
from typing import Any, NamedTuple

from kwhatif.api.objects import Node, Pod
from kwhatif.api.tolerations import first_untolerated_taint
from kwhatif.load.selectors import controller_selector
from kwhatif.workloads.common import (
    REVISION_LABEL,
    Context,
    Expanded,
    NameSet,
    Workload,
    make_pod,
    owner_reference,
    template_hash,
    template_labels,
    template_of,
)

KIND = "DaemonSet"
GENERATION_LABEL = "pod-template-generation"

DEFAULT_TOLERATIONS: tuple[dict[str, str], ...] = (
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
)
HOST_NETWORK_TOLERATION = {"key": "node.kubernetes.io/network-unavailable", "operator": "Exists", "effect": "NoSchedule"}


def _same_toleration(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """v1helper MatchToleration: key, operator, value and effect equal."""
    return all((a.get(k) or "") == (b.get(k) or "") for k in ("key", "operator", "value", "effect"))


def with_default_tolerations(spec: dict[str, Any]) -> None:
    """AddOrUpdateDaemonPodTolerations: add (or replace in place) each default toleration."""
    tolerations = [t for t in (spec.get("tolerations") or [])]
    defaults = list(DEFAULT_TOLERATIONS) + ([HOST_NETWORK_TOLERATION] if spec.get("hostNetwork") is True else [])
    for default in defaults:
        for i, existing in enumerate(tolerations):
            if isinstance(existing, dict) and _same_toleration(existing, default):
                tolerations[i] = dict(default)
                break
        else:
            tolerations.append(dict(default))
    spec["tolerations"] = tolerations


def pin_to_node(spec: dict[str, Any], node_name: str) -> None:
    """ReplaceDaemonSetPodNodeNameNodeAffinity."""
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}
    affinity = spec.get("affinity")
    if not isinstance(affinity, dict):
        affinity = {}
    node_affinity = affinity.get("nodeAffinity")
    if not isinstance(node_affinity, dict):
        node_affinity = {}
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [term]}
    affinity["nodeAffinity"] = node_affinity
    spec["affinity"] = affinity


def _selects(pod: Pod, node: Node) -> bool:
    """The node matches the pod's nodeSelector and required node affinity."""
    if pod.node_selector and any(node.labels.get(k) != v for k, v in pod.node_selector.items()):
        return False
    required = pod.affinity.node_affinity.required if pod.affinity and pod.affinity.node_affinity else None
    return required is None or required.matches(node.labels, node.name)


def should_run(pod: Pod, node: Node) -> bool:
    """NodeShouldRunDaemonPod's predicates for a node without a pod of the set."""
    if pod.node_name and pod.node_name != node.name:
        return False
    return _selects(pod, node) and first_untolerated_taint(node.taints, pod.tolerations) is None


def keeps_running(pod: Pod, node: Node) -> bool:
    """NodeShouldRunDaemonPod's shouldContinueRunning: the node still matches the pod's selector
    and affinity, and the pod tolerates its NoExecute taints (a NoSchedule taint added later
    keeps a running daemon pod)."""
    return _selects(pod, node) and first_untolerated_taint(node.taints, pod.tolerations, ("NoExecute",)) is None


class _Template(NamedTuple):
    template: dict[str, Any]
    labels: dict[str, str]
    owner: dict[str, Any]
    spec: dict[str, Any]
    probe: Pod
    """The pod as NewPod builds it, before pinning: what the controller's predicates read."""


def _template(w: Workload) -> _Template:
    f = w.fields
    spec = w.spec
    template = template_of(w, spec, "spec")
    controller_selector(f, KIND, spec)
    labels = template_labels(w, template, "spec.template")
    generation = f.int(w.metadata, "generation", "metadata", 1, bits=64) or 1
    pod_labels = {**labels, REVISION_LABEL: template_hash(template), GENERATION_LABEL: str(generation)}
    base_spec = copy.deepcopy(template.get("spec") or {})
    if isinstance(base_spec, dict):
        with_default_tolerations(base_spec)
    owner = owner_reference("apps/v1", KIND, w.name, w.uid)
    probe = make_pod(w, template, "spec.template", f"{w.name}-", pod_labels, owner, spec=base_spec)
    return _Template(template, pod_labels, owner, base_spec, probe)


def probe(w: Workload) -> Pod:
    """The DaemonSet's pod before it is pinned to a node (`should_run`, `keeps_running` read it)."""
    return _template(w).probe


def expand(w: Workload, ctx: Context) -> Expanded:
    t = _template(w)
    names = NameSet(ctx.taken_names)
    out = Expanded(w)
    keeps = []
    for node in sorted(ctx.nodes, key=lambda n: n.name):
        if not should_run(t.probe, node):
            if keeps_running(t.probe, node):
                keeps.append(node.name)
            continue
        pod_spec = copy.deepcopy(t.spec)
        pin_to_node(pod_spec, node.name)
        name = names.generate(f"{w.name}-", f"{w.uid}/{node.name}")
        pod = make_pod(w, t.template, "spec.template", name, t.labels, t.owner, spec=pod_spec)
        out.pods.append(pod)
        out.pinned[pod.key] = node.name
    out.keeps = frozenset(keeps)
    return out
