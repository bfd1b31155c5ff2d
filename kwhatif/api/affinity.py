"""Node selectors, node and pod (anti-)affinity terms and topology spread constraints: the parts of
a pod spec that say where it may (or would rather) run (nodeaffinity.go:GetRequiredNodeAffinity)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping

from kwhatif.api.selectors import LabelSelector, Labels, Requirement, map_matches

if TYPE_CHECKING:
    from kwhatif.api.objects import Pod


@dataclass(frozen=True, slots=True)
class NodeSelectorTerm:
    """One nodeSelectorTerm. `valid` is False when a requirement is malformed: such a term never
    matches (kube-scheduler drops it) while other terms are still evaluated."""

    match_expressions: tuple[Requirement, ...] = ()
    match_fields: tuple[Requirement, ...] = ()
    valid: bool = True

    @property
    def is_empty(self) -> bool:
        return not self.match_expressions and not self.match_fields

    def matches(self, labels: Labels, node_name: str) -> bool:
        """All expressions against the node labels and all fields against `metadata.name`."""
        if not self.valid or self.is_empty:
            return False
        for req in self.match_expressions:
            if not req.matches(labels):
                return False
        if self.match_fields:
            fields = {"metadata.name": node_name}
            for req in self.match_fields:
                if not req.matches(fields):
                    return False
        return True


@dataclass(frozen=True, slots=True)
class NodeSelector:
    """Required node affinity: the OR of its non-empty terms."""

    terms: tuple[NodeSelectorTerm, ...] = ()

    def matches(self, labels: Labels, node_name: str) -> bool:
        for term in self.terms:
            if term.matches(labels, node_name):
                return True
        return False


@dataclass(frozen=True, slots=True)
class RequiredNodeAffinity:
    """What a pod requires of a node (upstream `GetRequiredNodeAffinity`): its nodeSelector (only
    when non-empty) AND its required node affinity (when set). Used by NodeAffinity and by
    PodTopologySpread's nodeAffinityPolicy."""

    node_selector: Mapping[str, str] | None
    required: NodeSelector | None

    @classmethod
    def of(cls, pod: Pod) -> RequiredNodeAffinity:
        aff = pod.affinity.node_affinity if pod.affinity else None
        return cls(dict(pod.node_selector) if pod.node_selector else None, aff.required if aff else None)

    @property
    def is_empty(self) -> bool:
        return self.node_selector is None and self.required is None

    def matches(self, labels: Labels, node_name: str) -> bool:
        if self.node_selector is not None and not map_matches(self.node_selector, labels):
            return False
        return self.required is None or self.required.matches(labels, node_name)


@dataclass(frozen=True, slots=True)
class PreferredSchedulingTerm:
    weight: int
    term: NodeSelectorTerm


@dataclass(frozen=True, slots=True)
class NodeAffinity:
    required: NodeSelector | None = None
    preferred: tuple[PreferredSchedulingTerm, ...] | None = None


@dataclass(frozen=True, slots=True)
class PodAffinityTerm:
    label_selector: LabelSelector | None
    topology_key: str
    namespaces: tuple[str, ...] = ()
    namespace_selector: LabelSelector | None = None
    match_label_keys: tuple[str, ...] = ()
    mismatch_label_keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class WeightedPodAffinityTerm:
    weight: int
    term: PodAffinityTerm


@dataclass(frozen=True, slots=True)
class PodAffinityRules:
    """podAffinity or podAntiAffinity: required and preferred terms."""

    required: tuple[PodAffinityTerm, ...] = ()
    preferred: tuple[WeightedPodAffinityTerm, ...] = ()


@dataclass(frozen=True, slots=True)
class Affinity:
    node_affinity: NodeAffinity | None = None
    pod_affinity: PodAffinityRules | None = None
    pod_anti_affinity: PodAffinityRules | None = None


@dataclass(frozen=True, slots=True)
class TopologySpreadConstraint:
    max_skew: int
    topology_key: str
    when_unsatisfiable: str
    label_selector: LabelSelector | None = None
    min_domains: int | None = None
    node_affinity_policy: str | None = None
    node_taints_policy: str | None = None
    match_label_keys: tuple[str, ...] = ()
