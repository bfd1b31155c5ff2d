"""Pod (anti-)affinity terms as kube-scheduler processes them (interpodaffinity filtering.go:Filter,
interpodaffinity scoring.go:Score).

A term is parsed once per pod (`pod_terms`, cached in `PodInfo.derived`) into an `AffinityTerm`:
label selector (None matches nothing, `{}` everything), topology key, namespace set and namespace
selector. Identical terms of different pods (the replicas of one workload) are interned into one
object, so a cycle can remember whether a term matches the incoming pod and evaluate it once.

Two ways of matching, as in Go:

* an **existing pod's term** against the incoming pod (`AffinityTerm.matches`): the pod's
  namespace is in the set, or the namespace selector matches the labels of the incoming pod's
  Namespace object;
* the **incoming pod's term** against existing pods (`IncomingTerm`, built per cycle by
  `resolve_incoming`): a non-empty namespace selector is resolved against the Namespace objects and
  the names are added to the set; the selector is then evaluated against an *empty* label set
  (v1.34.1 merges the names into a copy of the term, so the selector is not replaced by
  "nothing": `{}` or a selector such as `team NotIn (x)` matches every namespace — the quirk of
  interpodaffinity filtering.go:Filter).

`NodeIndexCache` stands in for kube-scheduler's per-node `PodsWithAffinity` /
`PodsWithRequiredAntiAffinity` lists: per node (rebuilt when the node's generation moves) it keeps
the required anti-affinity terms, the terms that score, and the pods grouped by namespace and
labels, so PreFilter/PreScore touch each distinct term or label set once per node.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from kwhatif.api.affinity import PodAffinityTerm
from kwhatif.api.objects import Namespace, Pod
from kwhatif.api.selectors import LabelSelector
import numpy as np

from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot

NAME = "InterPodAffinity"
_EMPTY: Mapping[str, str] = {}

GroupKey = tuple[str, frozenset]


@dataclass(frozen=True, slots=True, eq=False)
class AffinityTerm:
    """A processed PodAffinityTerm of one pod (framework.AffinityTerm). Compared by identity;
    equal terms are interned by `_term`."""

    selector: LabelSelector | None
    topology_key: str
    namespaces: frozenset[str]
    namespace_selector: LabelSelector | None

    def matches(self, pod: Pod, ns_labels: Mapping[str, str]) -> bool:
        """AffinityTerm.Matches: namespace (set or selector over `ns_labels`), then labels."""
        if pod.namespace in self.namespaces or (
            self.namespace_selector is not None and self.namespace_selector.matches(ns_labels)
        ):
            return self.selector is not None and self.selector.matches(pod.labels)
        return False

    def describe(self) -> str:
        """`app=web on kubernetes.io/hostname`, plus the namespaces when they are not implicit."""
        sel = self.selector.describe() if self.selector is not None else "<no selector: matches nothing>"
        text = f"{sel} on {self.topology_key}"
        extra = []
        if self.namespace_selector is not None:
            extra.append(f"namespaceSelector {self.namespace_selector.describe()}")
        if self.namespaces and (self.namespace_selector is not None or len(self.namespaces) > 1):
            extra.append("namespaces " + ",".join(sorted(self.namespaces)))
        return f"{text} ({'; '.join(extra)})" if extra else text


@dataclass(frozen=True, slots=True, eq=False)
class WeightedTerm:
    term: AffinityTerm
    weight: int


_INTERNED: dict[tuple, AffinityTerm] = {}


def _term(owner: Pod, term: PodAffinityTerm) -> AffinityTerm:
    """getNamespacesFromPodAffinityTerm + LabelSelectorAsSelector, interned."""
    if not term.namespaces and term.namespace_selector is None:
        namespaces = frozenset((owner.namespace,))
    else:
        namespaces = frozenset(term.namespaces)
    key = (term.label_selector, term.topology_key, namespaces, term.namespace_selector)
    found = _INTERNED.get(key)
    if found is None:
        found = _INTERNED[key] = AffinityTerm(term.label_selector, term.topology_key, namespaces,
                                              term.namespace_selector)
    return found


@dataclass(frozen=True, slots=True, eq=False)
class PodTerms:
    """Everything this plugin derives from one pod, once."""

    required_affinity: tuple[AffinityTerm, ...]
    required_anti_affinity: tuple[AffinityTerm, ...]
    preferred_affinity: tuple[WeightedTerm, ...]
    preferred_anti_affinity: tuple[WeightedTerm, ...]
    group_key: GroupKey



ParsedTerms = tuple[tuple[AffinityTerm, ...], tuple[AffinityTerm, ...], tuple[WeightedTerm, ...],
                    tuple[WeightedTerm, ...]]
"""(required affinity, required anti-affinity, preferred affinity, preferred anti-affinity)."""

_BY_AFFINITY: dict[tuple[int, str], tuple[object, ParsedTerms]] = {}


def parsed_terms(pod: Pod) -> ParsedTerms:
    """The four term lists, remembered per (affinity object, namespace): replicas decoded from a
    dump share their affinity object, and the terms depend only on it and the namespace."""
    aff = pod.affinity
    key = (id(aff), pod.namespace)
    cached = _BY_AFFINITY.get(key)
    if cached is not None and cached[0] is aff:
        return cached[1]
    pa = aff.pod_affinity if aff is not None else None
    paa = aff.pod_anti_affinity if aff is not None else None
    parts: ParsedTerms = (
        tuple(_term(pod, t) for t in pa.required) if pa is not None else (),
        tuple(_term(pod, t) for t in paa.required) if paa is not None else (),
        tuple(WeightedTerm(_term(pod, w.term), w.weight) for w in pa.preferred) if pa is not None else (),
        tuple(WeightedTerm(_term(pod, w.term), w.weight) for w in paa.preferred) if paa is not None else (),
    )
    if len(_BY_AFFINITY) < 65536:
        _BY_AFFINITY[key] = (aff, parts)
    return parts


def pod_terms(info: PodInfo) -> PodTerms:
    cached = info.derived.get(NAME)
    if cached is None:
        pod = info.pod
        cached = info.derived[NAME] = PodTerms(*parsed_terms(pod), (pod.namespace, frozenset(pod.labels.items())))
    return cached


@dataclass(frozen=True, slots=True, eq=False)
class IncomingTerm:
    """One of the incoming pod's terms for this cycle, its namespace selector resolved."""

    term: AffinityTerm
    namespaces: frozenset[str]
    any_namespace: bool  # the selector matches the empty label set (`{}`, or the interpodaffinity filtering.go:Filter quirk)
    weight: int = 0

    @property
    def topology_key(self) -> str:
        return self.term.topology_key

    def matches(self, namespace: str, labels: Mapping[str, str]) -> bool:
        """AffinityTerm.Matches(pod, nil) on the resolved term."""
        if self.any_namespace or namespace in self.namespaces:
            selector = self.term.selector
            return selector is not None and selector.matches(labels)
        return False

    def matches_pod(self, pod: Pod) -> bool:
        return self.matches(pod.namespace, pod.labels)

    def describe(self) -> str:
        return self.term.describe()


def resolve_incoming(term: AffinityTerm, namespaces: Mapping[str, Namespace], weight: int = 0) -> IncomingTerm:
    """mergeAffinityTermNamespacesIfNotEmpty on a copy of the term (v1.34.1)."""
    names = term.namespaces
    sel = term.namespace_selector
    if sel is not None and not sel.is_empty:
        names = names | frozenset(ns.name for ns in namespaces.values() if sel.matches(ns.labels))
    return IncomingTerm(term, names, sel is not None and sel.matches(_EMPTY), weight)


def matching_pods(snapshot: Snapshot, terms: tuple[IncomingTerm, ...]) -> np.ndarray:
    """Per node row, the existing pods (terminating ones included) that match every term."""
    groups = snapshot.groups
    total = np.zeros(len(snapshot.table), dtype=np.int64)
    if not terms:
        return total
    selectors = tuple(t.term.selector for t in terms)
    if any(s is None for s in selectors):  # a term without a label selector matches no pod
        return total
    kept = tuple(s for s in selectors if s is not None)

    def matches(labels: Mapping[str, str]) -> bool:
        """In a namespace every term covers, a term matches by its label selector alone."""
        return all(s.matches(labels) for s in kept)
    for namespace in groups.by_namespace:
        if all(t.any_namespace or namespace in t.namespaces for t in terms):
            total += groups.counts(namespace, matches, terminating=True, selector=("every one of", kept))
    return total


def namespace_labels(namespaces: Mapping[str, Namespace], name: str) -> Mapping[str, str]:
    """GetNamespaceLabelsSnapshot: the Namespace object's labels, or none when it is missing."""
    ns = namespaces.get(name)
    return ns.labels if ns is not None else _EMPTY


# Per-node indexes ----------------------------------------------------------------------------

class NodeIndex:
    """What one node contributes, derived from its pods; valid for one node generation."""

    __slots__ = ("node_info", "generation", "_anti", "_groups")

    def __init__(self, node_info: NodeInfo) -> None:
        self.node_info = node_info
        self.generation = node_info.generation
        self._anti: list[tuple[AffinityTerm, list[str]]] | None = None
        self._groups: list[tuple[GroupKey, str, Mapping[str, str], list[str]]] | None = None

    def required_anti_affinity(self) -> list[tuple[AffinityTerm, list[str]]]:
        """Distinct required anti-affinity terms of the node's pods, each with the pods having it
        (a pod listed once per occurrence of the term, as each occurrence counts)."""
        if self._anti is None:
            by_term: dict[AffinityTerm, list[str]] = {}
            for info in self.node_info.pods:
                if info.with_required_anti_affinity:
                    for t in pod_terms(info).required_anti_affinity:
                        by_term.setdefault(t, []).append(info.key)
            self._anti = list(by_term.items())
        return self._anti

    def groups(self) -> list[tuple[GroupKey, str, Mapping[str, str], list[str]]]:
        """The node's pods grouped by (namespace, labels): (key, namespace, labels, pod keys)."""
        if self._groups is None:
            by_key: dict[GroupKey, tuple[GroupKey, str, Mapping[str, str], list[str]]] = {}
            for info in self.node_info.pods:
                key = pod_terms(info).group_key
                entry = by_key.get(key)
                if entry is None:
                    entry = by_key[key] = (key, info.pod.namespace, info.pod.labels, [])
                entry[3].append(info.key)
            self._groups = list(by_key.values())
        return self._groups


class NodeIndexCache:
    """Node name → index, rebuilt when the NodeInfo object or its generation changes."""

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: dict[str, NodeIndex] = {}

    def get(self, node_info: NodeInfo) -> NodeIndex:
        entry = self._entries.get(node_info.node.name)
        if entry is None or entry.node_info is not node_info or entry.generation != node_info.generation:
            entry = self._entries[node_info.node.name] = NodeIndex(node_info)
        return entry


class TermMemo(dict):
    """Per-cycle memo: does an (interned) existing pod's term match the incoming pod?"""

    __slots__ = ("pod", "ns_labels")

    def __init__(self, pod: Pod, ns_labels: Mapping[str, str]) -> None:
        super().__init__()
        self.pod = pod
        self.ns_labels = ns_labels

    def __missing__(self, term: AffinityTerm) -> bool:
        result = self[term] = term.matches(self.pod, self.ns_labels)
        return result


def pod_list(keys: list[str], total: int | None = None) -> str:
    """`pod a/b`, `pods a/b, a/c`, `pods a/b, a/c and 3 more`."""
    total = len(keys) if total is None else total
    if total <= 0:
        return "no pod"
    shown = ", ".join(keys)
    more = total - len(keys)
    noun = "pod" if total == 1 else "pods"
    return f"{noun} {shown} and {more} more" if more > 0 and keys else (
        f"{noun} {shown}" if keys else f"{total} {noun}")
