"""What both halves of PodTopologySpread share (upstream `common.go`, `plugin.go`, `helper/spread.go`).

- which constraints apply to a pod: its own (filtered by `whenUnsatisfiable`), or — only when it
  has none at all — the default constraints, whose selector is the pod's *default selector*
  (Services, ReplicationController, ReplicaSet, StatefulSet; podtopologyspread scoring.go:Score);
- the selector of a constraint, with `matchLabelKeys` merged in (podtopologyspread filtering.go:Filter);
- the node inclusion policies (`nodeAffinityPolicy`, `nodeTaintsPolicy`);
- counting the matching pods of a node (`countPodsMatchSelector`) through a per-node index that is
  rebuilt only when the node's pod list changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from kwhatif.api.affinity import RequiredNodeAffinity, TopologySpreadConstraint
from kwhatif.api.objects import Pod
from kwhatif.api.selectors import LabelSelector, Labels, Requirement, map_matches, selector_from_map
import numpy as np

from kwhatif.snapshot.cache import for_snapshot
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot
from kwhatif.snapshot.table import NodeTable

NAME = "PodTopologySpread"

ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"

PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME

LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_ZONE = "topology.kubernetes.io/zone"

DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
HONOR = "Honor"
IGNORE = "Ignore"

SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"

# plugin.go `systemDefaultConstraints` (podtopologyspread scoring.go:Score): both ScheduleAnyway, so pods without own
# constraints never get a DoNotSchedule one from the system defaults.
SYSTEM_DEFAULT_CONSTRAINTS: tuple[TopologySpreadConstraint, ...] = (
    TopologySpreadConstraint(max_skew=3, topology_key=LABEL_HOSTNAME, when_unsatisfiable=SCHEDULE_ANYWAY),
    TopologySpreadConstraint(max_skew=5, topology_key=LABEL_ZONE, when_unsatisfiable=SCHEDULE_ANYWAY),
)

Matcher = Callable[[Labels], bool]

# ownerReference (apiVersion, kind) → the controller kinds DefaultSelector reads.
_SPREAD_OWNERS = {
    ("v1", "ReplicationController"): "ReplicationController",
    ("apps/v1", "ReplicaSet"): "ReplicaSet",
    ("apps/v1", "StatefulSet"): "StatefulSet",
}


def _never(labels: Labels) -> bool:
    return False


def _always(labels: Labels) -> bool:
    return True


def compile_selector(selector: LabelSelector | None) -> Matcher:
    """A fast predicate equal to `selector.matches` (None → nothing, `{}` → everything). Selectors
    made only of `key = value` requirements (matchLabels, matchLabelKeys) become dict lookups."""
    if selector is None:
        return _never
    reqs = selector.requirements
    if not reqs:
        return _always
    if all(r.operator == "In" and len(r.values) == 1 for r in reqs):
        pairs = tuple((r.key, r.values[0]) for r in reqs)
        if len(pairs) == 1:
            key, value = pairs[0]
            return lambda labels: labels.get(key) == value
        return lambda labels: all(labels.get(k) == v for k, v in pairs)
    return selector.matches


@dataclass(frozen=True, slots=True, eq=False)
class Constraint:
    """upstream `topologySpreadConstraint`: a constraint with its selector parsed and defaults
    applied (minDomains 1, nodeAffinityPolicy Honor, nodeTaintsPolicy Ignore)."""

    max_skew: int
    topology_key: str
    selector: LabelSelector | None  # None matches nothing
    min_domains: int
    node_affinity_policy: str
    node_taints_policy: str
    matches: Matcher
    from_defaults: bool = False

    @property
    def counts_nothing(self) -> bool:
        """`countPodsMatchSelector` returns 0 for a selector without requirements (`{}`): the
        quirk of podtopologyspread filtering.go:Filter (a null selector is 'nothing', not empty, and counts 0
        anyway)."""
        return self.selector is not None and not self.selector.requirements


def merge_match_label_keys(selector: LabelSelector | None, keys: tuple[str, ...], labels: Labels) -> LabelSelector | None:
    """`mergeLabelSetWithSelector`: `key = pod's value` for every listed key the pod has, ANDed
    with the selector. A null selector has no requirements to merge with and stays 'nothing'."""
    return selector.with_label_keys(keys, labels) if selector is not None else None


def filter_constraints(
    constraints: tuple[TopologySpreadConstraint, ...], labels: Labels, action: str,
) -> list[Constraint]:
    """`filterTopologySpreadConstraints`: the constraints with `whenUnsatisfiable == action`."""
    out: list[Constraint] = []
    for c in constraints:
        if c.when_unsatisfiable != action:
            continue
        selector = merge_match_label_keys(c.label_selector, tuple(c.match_label_keys), labels)
        out.append(_constraint(c, selector, False))
    return out


def _constraint(c: TopologySpreadConstraint, selector: LabelSelector | None, from_defaults: bool) -> Constraint:
    return Constraint(
        max_skew=c.max_skew,
        topology_key=c.topology_key,
        selector=selector,
        min_domains=c.min_domains if c.min_domains is not None else 1,
        node_affinity_policy=c.node_affinity_policy or HONOR,
        node_taints_policy=c.node_taints_policy or IGNORE,
        matches=compile_selector(selector),
        from_defaults=from_defaults,
    )


def default_selector(pod: Pod, snapshot: Snapshot) -> LabelSelector:
    """`helper.DefaultSelector`: the union of the selectors of the Services of the pod's
    namespace that select it, then the controller's selector — an RC's map is merged into that
    label set, a ReplicaSet's/StatefulSet's requirements are ANDed in. Missing objects add
    nothing."""
    cluster = snapshot.cluster
    label_set: dict[str, str] = {}
    for svc in cluster.services:
        # services with nil selectors match nothing, not everything
        if svc.namespace == pod.namespace and svc.selector is not None and map_matches(svc.selector, pod.labels):
            label_set.update(svc.selector)
    requirements: tuple[Requirement, ...] = selector_from_map(label_set).requirements
    owner = pod.controller_ref
    if owner is None:
        return LabelSelector(requirements)
    kind = _SPREAD_OWNERS.get((owner.api_version, owner.kind))
    if kind is None:
        return LabelSelector(requirements)
    ctrl = cluster.controllers.get((kind, pod.namespace, owner.name))
    if ctrl is None:
        return LabelSelector(requirements)
    if kind == "ReplicationController":
        label_set.update(ctrl.map_selector or {})
        requirements = selector_from_map(label_set).requirements
    elif ctrl.selector is not None:  # a null selector is 'nothing': it has no requirements to add
        requirements = requirements + ctrl.selector.requirements
    return LabelSelector(requirements)


def build_default_constraints(
    defaults: tuple[TopologySpreadConstraint, ...], pod: Pod, snapshot: Snapshot, action: str,
) -> list[Constraint]:
    """`buildDefaultConstraints`: the default constraints for `action`, all with the pod's
    default selector; none when that selector has no requirements."""
    picked = [c for c in defaults if c.when_unsatisfiable == action]
    if not picked:
        return []
    selector = default_selector(pod, snapshot)
    if not selector.requirements:
        return []
    return [_constraint(c, selector, True) for c in picked]


def node_has_all_keys(labels: Labels, constraints: list[Constraint]) -> bool:
    """`nodeLabelsMatchSpreadConstraints`."""
    for c in constraints:
        if c.topology_key not in labels:
            return False
    return True


# Counting over all nodes at once ----------------------------------------------------------------

def inclusion_masks(pod: Pod, constraints: list[Constraint], table: NodeTable, rows: np.ndarray) -> list[np.ndarray]:
    """`matchNodeInclusionPolicies` for every row and constraint: nodeAffinityPolicy Honor keeps
    the nodes matching the pod's nodeSelector and required node affinity, nodeTaintsPolicy Honor
    the nodes without a NoSchedule/NoExecute taint the pod does not tolerate."""
    everywhere = np.ones(rows.size, dtype=bool)
    affinity_ok = taints_ok = everywhere
    if any(c.node_affinity_policy == HONOR for c in constraints):
        required = RequiredNodeAffinity.of(pod)
        if not required.is_empty:
            affinity_ok = table.affinity_rows(required, rows)
    if any(c.node_taints_policy == HONOR for c in constraints):
        taints_ok = ~table.untolerated_rows(pod.tolerations, rows)
    if affinity_ok is everywhere and taints_ok is everywhere:  # no policy excludes a node
        return [everywhere] * len(constraints)
    return [(affinity_ok | (c.node_affinity_policy != HONOR)) & (taints_ok | (c.node_taints_policy != HONOR))
            for c in constraints]


def has_all_keys(table: NodeTable, rows: np.ndarray, constraints: list[Constraint]) -> np.ndarray:
    """`nodeLabelsMatchSpreadConstraints` for every row."""
    ok = np.ones(rows.size, dtype=bool)
    for c in constraints:
        ok &= table.domains(c.topology_key)[0][rows] >= 0
    return ok


def matching_counts(snapshot: Snapshot, constraint: Constraint, namespace: str) -> np.ndarray:
    """`countPodsMatchSelector` for every node row: same namespace, not terminating, selector
    match — and 0 everywhere for an empty selector (the quirk of podtopologyspread filtering.go:Filter)."""
    if constraint.counts_nothing:
        return np.zeros(len(snapshot.table), dtype=np.int64)
    return snapshot.groups.counts(namespace, constraint.matches, selector=constraint.selector)


# Per-pod cache ---------------------------------------------------------------------------------

@dataclass(slots=True)
class PodConstraints:
    """The constraints of one pod for one plugin instance, cached in `PodInfo.derived` for the
    snapshot (the default constraints depend on the cluster's Services and controllers)."""

    pod: Pod
    hard: list[Constraint]
    soft: list[Constraint]


def pod_constraints(plugin: Any, info: PodInfo, defaults: tuple[TopologySpreadConstraint, ...],
                    snapshot: Snapshot) -> PodConstraints:
    """`getConstraints` (DoNotSchedule, for PreFilter) and the ScheduleAnyway ones (PreScore):
    the pod's own constraints when it has any, else the default constraints."""
    by_plugin: dict[Any, PodConstraints] = for_snapshot(info.derived, NAME, snapshot, dict)
    cached = by_plugin.get(plugin)
    if cached is not None and cached.pod is info.pod:
        return cached
    pod = info.pod
    if pod.topology_spread_constraints:
        own = tuple(pod.topology_spread_constraints)
        hard = filter_constraints(own, pod.labels, DO_NOT_SCHEDULE)
        soft = filter_constraints(own, pod.labels, SCHEDULE_ANYWAY)
    else:
        hard, soft = _default_constraints(defaults, pod, snapshot)
    result = by_plugin[plugin] = PodConstraints(pod, hard, soft)
    return result


_DEFAULTS: dict[int, Any] = {}


def _default_constraints(defaults: tuple[TopologySpreadConstraint, ...], pod: Pod, snapshot: Snapshot
                         ) -> tuple[list[Constraint], list[Constraint]]:
    """The (DoNotSchedule, ScheduleAnyway) default constraints, worked out once per snapshot for
    the replicas of a controller: they depend only on the pod's namespace, labels (replicas
    share one label map) and controller, and finding them reads every Service."""
    per_snapshot: dict[tuple, tuple[Labels, list[Constraint], list[Constraint]]] = for_snapshot(
        _DEFAULTS, id(snapshot), snapshot, dict, drop_with_snapshot=True)
    key = (defaults, pod.namespace, id(pod.labels), pod.controller_ref)
    found = per_snapshot.get(key)
    if found is None or found[0] is not pod.labels:
        found = per_snapshot[key] = (pod.labels, build_default_constraints(defaults, pod, snapshot, DO_NOT_SCHEDULE),
                                     build_default_constraints(defaults, pod, snapshot, SCHEDULE_ANYWAY))
    return found[1], found[2]


@dataclass(frozen=True)
class PodTopologySpreadArgs:
    """PodTopologySpreadArgs: `defaulting_type` System (the default, v1
    `SetDefaults_PodTopologySpreadArgs`) or List (then `default_constraints` apply; they carry no
    label selector)."""

    default_constraints: tuple[TopologySpreadConstraint, ...] = ()
    defaulting_type: str = SYSTEM_DEFAULTING


def resolve_args(args: PodTopologySpreadArgs) -> tuple[tuple[TopologySpreadConstraint, ...], bool]:
    """(default constraints, systemDefaulted): System replaces any list with the system defaults."""
    if args.defaulting_type == SYSTEM_DEFAULTING:
        return SYSTEM_DEFAULT_CONSTRAINTS, True
    return args.default_constraints, False
