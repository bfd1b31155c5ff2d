"""NodeResourcesFit: does the pod's request vector fit the node's free allocatable (fit.go:fitsRequest), and
how full would the node be (resource_allocation.go:score, by the configured scoring strategy)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
import numpy as np

from kwhatif.api.quantity import format_amount
from kwhatif.api.resources import Resources, pod_requests
from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.interfaces import (
    BatchFilter, BatchScore, FilterPlugin, Handle, NodeExplainer, PreFilterPlugin, PreFilterResult, PreScorePlugin, RowVerdicts,
    ScorePlugin,
)
from kwhatif.framework.status import Code, Status, error
from kwhatif.plugins.node_resources.resource_allocation import (
    DEFAULT_RESOURCES, ResourceSpec, node_pairs, pod_request_vector, pre_scored_request, table_pairs,
)
from kwhatif.plugins.node_resources.strategies import (
    Strategy, least_allocated, most_allocated, requested_to_capacity_ratio,
)
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo, template_cache
from kwhatif.snapshot.table import NodeTable

NAME = "NodeResourcesFit"
LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO = "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"
SCORING_STRATEGY_TYPES = (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)
TOO_MANY_PODS = "Too many pods"
_PRE_FILTER_KEY = "PreFilter" + NAME
_PRE_SCORE_KEY = "PreScore" + NAME
MISSING_PRE_FILTER = f'error reading "{_PRE_FILTER_KEY}" from cycleState: not found'
"""Filter without PreFilter's state (PreFilter disabled): an error (fit.go getPreFilterState)."""


@dataclass(frozen=True)
class ScoringStrategy:
    """v1 ScoringStrategy: the strategy type, the resources it weighs, and for
    RequestedToCapacityRatio its shape as (utilization, score) points."""

    type: str = LEAST_ALLOCATED
    resources: tuple[ResourceSpec, ...] = DEFAULT_RESOURCES
    shape: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class NodeResourcesFitArgs:
    """NodeResourcesFitArgs with kube-scheduler's defaults (defaults.go:SetDefaults_*Args): LeastAllocated over cpu and
    memory, weight 1 each; nothing ignored."""

    ignored_resources: tuple[str, ...] = ()
    ignored_resource_groups: tuple[str, ...] = ()
    scoring_strategy: ScoringStrategy = ScoringStrategy()


def insufficient(resource: str) -> str:
    return f"Insufficient {resource}"


@dataclass(frozen=True, slots=True)
class Shortfall:
    """One resource that does not fit: the reason text and the numbers behind it."""

    resource: str
    reason: str
    requested: int
    used: int
    capacity: int

    @property
    def unresolvable(self) -> bool:
        """The pod alone asks for more than the node has: no eviction can help."""
        return self.resource != "pods" and self.requested > self.capacity


def shortfalls(request: Resources, node: NodeInfo, ignored: frozenset[str] = frozenset(),
               ignored_groups: frozenset[str] = frozenset()) -> list[Shortfall]:
    """Every failing check of fit.go:fitsRequest, in the scheduler's order."""
    out: list[Shortfall] = []
    if len(node.pods) + 1 > node.allowed_pods:
        out.append(Shortfall("pods", TOO_MANY_PODS, 1, len(node.pods), node.allowed_pods))
    if request.is_zero():
        return out
    alloc, used = node.allocatable, node.requested
    for name, want, have, taken in (("cpu", request.milli_cpu, alloc.milli_cpu, used.milli_cpu),
                                    ("memory", request.memory, alloc.memory, used.memory),
                                    ("ephemeral-storage", request.ephemeral_storage, alloc.ephemeral_storage,
                                     used.ephemeral_storage)):
        if want > 0 and want > have - taken:
            out.append(Shortfall(name, insufficient(name), want, taken, have))
    for name, want in sorted(request.scalars.items()):
        if want == 0 or _is_ignored(name, ignored, ignored_groups):
            continue
        have, taken = alloc.scalars.get(name, 0), used.scalars.get(name, 0)
        if want > have - taken:
            out.append(Shortfall(name, insufficient(name), want, taken, have))
    return out


def _is_ignored(name: str, ignored: frozenset[str], groups: frozenset[str]) -> bool:
    """ignoredResources / ignoredResourceGroups apply to extended resources only."""
    if "/" not in name or "kubernetes.io/" in name:
        return False
    return name in ignored or name.split("/", 1)[0] in groups


def build_scorer(strategy: ScoringStrategy) -> Strategy:
    """The configured strategy's scorer."""
    if strategy.type == MOST_ALLOCATED:
        return most_allocated(strategy.resources)
    if strategy.type == REQUESTED_TO_CAPACITY_RATIO:
        return requested_to_capacity_ratio(strategy.resources, list(strategy.shape))
    return least_allocated(strategy.resources)


def _amount(resource: str, value: int) -> str:
    return format_amount(resource, value, exact=False)


def describe_shortfall(s: Shortfall) -> str:
    """What would have to change for this resource to fit, in the scheduler's own units."""
    if s.resource == "pods":
        return f"pods: {s.used} of {s.capacity} pod slots taken, the pod needs one more"
    free = s.capacity - s.used
    text = (f"{s.resource}: pod requests {_amount(s.resource, s.requested)}, node has "
            f"{_amount(s.resource, max(free, 0))} free of {_amount(s.resource, s.capacity)} allocatable")
    if s.unresolvable:
        return text + " (more than the whole node: no eviction can help)"
    return text + f" (short by {_amount(s.resource, s.requested - free)})"


class NodeResourcesFit(PreFilterPlugin, FilterPlugin, BatchFilter, PreScorePlugin, ScorePlugin, BatchScore,
                       NodeExplainer):
    name = NAME
    reads_node_pods = True

    def __init__(self, args: NodeResourcesFitArgs | None, handle: Handle) -> None:
        super().__init__(args, handle)
        self.args = args or NodeResourcesFitArgs()
        self.ignored = frozenset(self.args.ignored_resources)
        self.ignored_groups = frozenset(self.args.ignored_resource_groups)
        self.resources = self.args.scoring_strategy.resources
        self.scorer = build_scorer(self.args.scoring_strategy)
        self._reasons: dict[tuple[object, ...], list[str]] = {}

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        """The Filter vector ignores status resources and honours pod-level requests."""
        state.write(_PRE_FILTER_KEY, fit_request(pod))
        return None, None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        request = state.get(_PRE_FILTER_KEY)
        if request is None:
            return error(MISSING_PRE_FILTER)
        found = shortfalls(request, node, self.ignored, self.ignored_groups)
        if not found:
            return None
        code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE if any(s.unresolvable for s in found) else Code.UNSCHEDULABLE
        return Status(code, tuple(s.reason for s in found))

    def explain_node(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> list[str]:
        request = state.get(_PRE_FILTER_KEY) or fit_request(pod)
        return [describe_shortfall(s) for s in shortfalls(request, node, self.ignored, self.ignored_groups)]

    def measure_node(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> dict[str, int]:
        """Per resource short, in the scheduler's units: what the pod requests beyond the node's
        free amount (pods: the one slot missing)."""
        request = state.get(_PRE_FILTER_KEY) or fit_request(pod)
        return {s.resource: s.requested - max(s.capacity - s.used, 0) if s.resource != "pods" else 1
                for s in shortfalls(request, node, self.ignored, self.ignored_groups)}

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> Status | None:
        state.write(_PRE_SCORE_KEY, pod_request_vector(pod, self.resources, use_requested=False))
        return None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        """The per-node reference: the strategy's one-node form over this NodeInfo."""
        request = pre_scored_request(state, _PRE_SCORE_KEY, pod, self.resources, use_requested=False)
        allocs, reqs = node_pairs(node, self.resources, request, use_requested=False)
        return self.scorer.node(reqs, allocs)

    def score_rows(self, state: CycleState, pod: PodInfo, table: NodeTable, rows: np.ndarray) -> np.ndarray:
        request = pre_scored_request(state, _PRE_SCORE_KEY, pod, self.resources, use_requested=False)

        def work_out(stale: np.ndarray) -> np.ndarray:
            allocs, reqs = table_pairs(table, stale, self.resources, request, use_requested=False)
            return self.scorer(reqs, allocs)
        return table.remembered((NAME, self.args.scoring_strategy, request), rows, work_out)

    def filter_rows(self, state: CycleState, pod: PodInfo, table: NodeTable, rows: np.ndarray) -> RowVerdicts:
        """fit.go:fitsRequest over many nodes: each failing check sets a bit; nodes with the same bits share
        one Status (reasons in the scheduler's order)."""
        request = state.get(_PRE_FILTER_KEY)
        if request is None:
            return RowVerdicts.same(np.ones(rows.size, dtype=bool), error(MISSING_PRE_FILTER))
        question = (NAME, self.ignored, self.ignored_groups, request.milli_cpu, request.memory,
                    request.ephemeral_storage, tuple(sorted(request.scalars.items())))
        reasons = self._reasons.get(question)
        if reasons is None:  # the checks a request makes, in order: the same for all its replicas
            reasons = self._reasons[question] = [reason for reason, _, _ in self._checks(request, table, rows[:0])]

        def work_out(stale: np.ndarray) -> np.ndarray:
            """Per row: a bit per failing check, shifted over one for "the pod alone is too big"."""
            code = np.zeros(stale.size, dtype=np.int64)
            unresolvable = np.zeros(stale.size, dtype=bool)
            for i, (_, fails, alone_too_big) in enumerate(self._checks(request, table, stale)):
                code |= fails.astype(np.int64) << (i + 1)
                unresolvable |= fails & alone_too_big
            return code | unresolvable

        codes = table.remembered(question, rows, work_out)
        failed = codes != 0
        # One Status per distinct code, each rejected row pointing at its own.
        kinds, which = _distinct(codes[failed], len(reasons) + 1)
        distinct = [Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE if k & 1 else Code.UNSCHEDULABLE,
                           tuple(reasons[i] for i in range(len(reasons)) if k >> (i + 1) & 1))
                    for k in kinds.tolist()]
        return RowVerdicts(failed, distinct, which)

    def _checks(self, request: Resources, table: NodeTable, rows: np.ndarray
                ) -> list[tuple[str, np.ndarray, np.ndarray]]:
        """(reason, failing rows, rows where the request alone exceeds allocatable) per check,
        in the order of `shortfalls`."""
        never = np.zeros(rows.size, dtype=bool)
        checks = [(TOO_MANY_PODS, table.at(table.free_pods, rows) < 1, never)]  # pods + 1 > allowed
        if request.is_zero():
            return checks
        for name, want, alloc, free in (("cpu", request.milli_cpu, table.alloc_cpu, table.free_cpu),
                                        ("memory", request.memory, table.alloc_mem, table.free_mem),
                                        ("ephemeral-storage", request.ephemeral_storage, table.alloc_eph,
                                         table.free_eph)):
            if want > 0:
                checks.append((insufficient(name), want > table.at(free, rows), want > table.at(alloc, rows)))
        for name, want in sorted(request.scalars.items()):
            if want == 0 or _is_ignored(name, self.ignored, self.ignored_groups):
                continue
            alloc, used = table.scalar(name)
            have = table.at(alloc, rows)
            checks.append((insufficient(name), want > have - table.at(used, rows), want > have))
        return checks


def _distinct(codes: np.ndarray, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """(the distinct codes, sorted; each code's index among them): `np.unique(codes,
    return_inverse=True)`, by counting instead of sorting while the codes (`bits` wide) are few."""
    if bits > 12:
        return np.unique(codes, return_inverse=True)
    kinds = np.flatnonzero(np.bincount(codes, minlength=1 << bits))
    index = np.zeros(1 << bits, dtype=np.intp)
    index[kinds] = np.arange(kinds.size)
    return kinds, index[codes]


def fit_request(pod: PodInfo) -> Resources:
    """The pod's Filter vector (read only). It comes from the spec alone (containers, overhead,
    pod-level requests; no status), so it is worked out once per template, not once per pod."""
    cached = pod.derived.get(NAME)
    if cached is None:
        cached = pod.derived[NAME] = template_cache(pod, NAME, lambda: Resources.from_list(pod_requests(pod.pod)))
    return cached
