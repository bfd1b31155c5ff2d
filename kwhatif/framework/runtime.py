"""The runner: one profile's plugins per extension point, run by the rules of framework.go:RunFilterPlugins,
framework.go:RunScorePlugins and preemption.go:Evaluator.Preempt."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Protocol

import numpy as np

from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.diagnosis import NodeToStatus
from kwhatif.framework.interfaces import (
    MAX_NODE_SCORE, BatchFilter, BatchScore, ExtensionPoint, FilterPlugin, NodeExplainer, Plugin, PostFilterPlugin,
    PostFilterResult, PreEnqueuePlugin, PreFilterPlugin, PreFilterResult, PreScorePlugin, QueueSortPlugin, ReservePlugin,
    RowVerdicts, ScorePlugin,
)
from kwhatif.api.tolerations import first_untolerated_taint, untolerated_taint_reason
from kwhatif.framework.status import Code, SchedulingError, ScoreFailure, Status, unresolvable
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.table import NodeTable, RowNames


KUBELET_CHECKS = frozenset({"NodeResourcesFit", "NodeName", "NodePorts", "NodeAffinity"})
"""The filters whose predicates a kubelet's admission runs (scheduler's AdmissionCheck)."""


class Nominator(Protocol):
    def nominated_for(self, node_name: str, pod: PodInfo | None = None) -> list[PodInfo]: ...

    def nominated_nodes(self) -> list[str]: ...

    def node_of(self, key: str) -> str: ...


@dataclass
class PluginSet:
    """A profile's plugins per extension point, in execution order, and the score weights: one
    list per ExtensionPoint with a `runner_field` (interfaces.POINTS)."""

    pre_enqueue: list[PreEnqueuePlugin] = field(default_factory=list)
    queue_sort: list[QueueSortPlugin] = field(default_factory=list)
    pre_filter: list[PreFilterPlugin] = field(default_factory=list)
    filter: list[FilterPlugin] = field(default_factory=list)
    post_filter: list[PostFilterPlugin] = field(default_factory=list)
    pre_score: list[PreScorePlugin] = field(default_factory=list)
    score: list[ScorePlugin] = field(default_factory=list)
    reserve: list[ReservePlugin] = field(default_factory=list)
    weights: dict[str, int] = field(default_factory=dict)

    def add(self, point: ExtensionPoint, plugin: Plugin) -> None:
        """Place a plugin at an extension point the runner calls (one with a `runner_field`)."""
        if point.runner_field is None:
            raise ValueError(f"the runner does not call {point.name} plugins")
        getattr(self, point.runner_field).append(plugin)


class Rejected:
    """The nodes Filter rejected, each with the status of the first plugin that did, and those
    plugins. The fast path rejects thousands of nodes a pod by their rows, each plugin's with a
    few distinct statuses: names and statuses are expanded only if asked for (`names`,
    `statuses`, `defer_into`) — a pod that is bound needs none of them."""

    def __init__(self) -> None:
        self._names: list[str] = []
        self._statuses: list[Status] = []
        self.plugins: set[str] = set()
        self._parts: list[tuple[NodeTable, np.ndarray, Sequence[Status], np.ndarray]] = []

    def add(self, name: str, status: Status) -> None:
        self._expand()
        self._names.append(name)
        self._statuses.append(status)
        self.plugins.add(status.plugin)

    def add_rows(self, table: NodeTable, rows: np.ndarray, distinct: Sequence[Status], which: np.ndarray) -> None:
        """One plugin's rejections by row (row i's status: `distinct[which[i]]`), after those there are."""
        self._parts.append((table, rows, distinct, which))

    def _expand(self) -> None:
        for table, rows, distinct, which in self._parts:
            self._names.extend(table.names_at(rows))
            self._statuses.extend([distinct[i] for i in which.tolist()])
        self._parts = []

    @property
    def names(self) -> list[str]:
        self._expand()
        return self._names

    @property
    def statuses(self) -> list[Status]:
        self._expand()
        return self._statuses

    def defer_into(self, statuses: NodeToStatus) -> None:
        """Into `statuses`, the rejections to be expanded when that map is read."""
        if not self._parts:
            statuses.statuses.update(zip(self._names, self._statuses))
            return
        statuses.add_later(lambda: zip(self.names, self.statuses))


class Scores:
    """Weighted normalized scores per plugin over the feasible nodes, and the totals (framework.go:RunScorePlugins
    step 5). Held as arrays; the per-node dictionaries are built only when asked for."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = names
        self.per_plugin: dict[str, np.ndarray] = {}
        self.total = np.zeros(len(names), dtype=np.int64)

    def add(self, plugin: str, weighted: np.ndarray) -> None:
        self.per_plugin[plugin] = weighted
        self.total += weighted

    def best(self) -> int:
        """The highest total (that of every node `top` names)."""
        return int(self.total.max())

    def top(self) -> list[str]:
        """Every node sharing the highest total, sorted by name."""
        if not self.names:
            return []
        tied = np.flatnonzero(self.total == self.total.max())
        if isinstance(self.names, RowNames):
            return sorted(self.names.picked(tied))
        return sorted(self.names[i] for i in tied.tolist())

    @cached_property
    def by_node(self) -> dict[str, dict[str, int]]:
        return self.node_scores()

    @cached_property
    def totals(self) -> dict[str, int]:
        return self.node_totals()

    def node_scores(self) -> dict[str, dict[str, int]]:
        """Per node, per plugin (not kept: writing 1,000 pods' scores on 5,000 nodes would
        otherwise hold them all; `by_node` keeps them for repeated lookups)."""
        columns = {p: a.tolist() for p, a in self.per_plugin.items()}
        return {name: {p: col[i] for p, col in columns.items()} for i, name in enumerate(self.names)}

    def node_totals(self) -> dict[str, int]:
        return dict(zip(self.names, self.total.tolist()))


@lru_cache(maxsize=4096)
def _stamped(status: Status, plugin: str) -> Status:
    """A Filter's status with its plugin's name; an error ends the cycle (framework.go:RunFilterPlugins).
    Statuses are values: the few a plugin rejects with are stamped once, not once a pod."""
    if not status.is_rejected:
        raise SchedulingError(f'running "{plugin}" filter plugin: {status.message}')
    return status.with_plugin(plugin)


def _all_stamped(distinct: Sequence[Status], plugin: str) -> list[Status]:
    """A batch Filter's distinct statuses, each stamped with its plugin once (not once a node)."""
    return [_stamped(status, plugin) for status in distinct]


def _per_node_verdicts(plugin: FilterPlugin, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> RowVerdicts:
    """A Filter without a batch form, node by node, as verdicts over the nodes' rows."""
    fails = np.zeros(len(nodes), dtype=bool)
    failing: list[Status] = []
    for i, node in enumerate(nodes):
        status = plugin.filter(state, pod, node)
        if status is not None and status.code != Code.SUCCESS:
            fails[i] = True
            failing.append(status)
    return RowVerdicts.listed(fails, failing)


_IN_RANGE = np.zeros(0, dtype=np.intp)


def _out_of_range(raw: np.ndarray) -> np.ndarray:
    """The positions of scores outside [0, MAX_NODE_SCORE]. Read as unsigned, a negative int64
    is huge: one pass over the scores tells whether both ends hold, as they nearly always do."""
    if raw.dtype == np.int64 and (not raw.size or int(raw.view(np.uint64).max()) <= MAX_NODE_SCORE):
        return _IN_RANGE
    return np.flatnonzero((raw < 0) | (raw > MAX_NODE_SCORE))


def _normalizes(plugin: ScorePlugin) -> bool:
    """Whether the plugin has a NormalizeScore (the base class's is a no-op)."""
    cls = type(plugin)
    return cls.normalize_score is not ScorePlugin.normalize_score or cls.normalize_rows is not ScorePlugin.normalize_rows


def _node_set_message(contributors: list[str]) -> str:
    if len(contributors) == 1:
        return f"node(s) didn't satisfy plugin {contributors[0]}"
    return f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(contributors))}] simultaneously"


class Framework:
    """One profile. Plugins never see each other; the runner applies the extension-point rules."""

    def __init__(self, name: str, plugins: PluginSet, nominator: Nominator,
                 percentage_of_nodes_to_score: int | None = None) -> None:
        self.name = name
        self.plugins = plugins
        self.nominator = nominator
        self.percentage_of_nodes_to_score = percentage_of_nodes_to_score

    def explainers(self) -> dict[str, NodeExplainer]:
        """Plugins that can put their view of a node into sentences (kwhatif's insight)."""
        found: dict[str, NodeExplainer] = {}
        for pl in self.plugins.filter + self.plugins.score:
            if isinstance(pl, NodeExplainer):
                found.setdefault(pl.name, pl)
        return found

    # PreEnqueue -----------------------------------------------------------------------------
    def run_pre_enqueue(self, pod: PodInfo) -> Status | None:
        for pl in self.plugins.pre_enqueue:
            status = pl.pre_enqueue(pod)
            if status is not None and status.code != Code.SUCCESS:
                return status.with_plugin(pl.name)
        return None

    # PreFilter ------------------------------------------------------------------------------
    def run_pre_filter(
        self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        """framework.go:RunFilterPlugins: Skip disables the Filter; U&U stops at once; Unschedulable is remembered;
        node-name sets are intersected."""
        result: PreFilterResult | None = None
        contributors: list[str] = []
        remembered: Status | None = None
        for pl in self.plugins.pre_filter:
            res, status = pl.pre_filter(state, pod, nodes)
            if status is not None and status.code == Code.SKIP:
                state.skip_filter.add(pl.name)
                continue
            if status is not None and status.code != Code.SUCCESS:
                if status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                    return None, status.with_plugin(pl.name)
                if status.code == Code.UNSCHEDULABLE:
                    remembered = status.with_plugin(pl.name)
                    continue
                raise SchedulingError(f'running PreFilter plugin "{pl.name}": {status.message}')
            if res is not None and res.node_names is not None:
                contributors.append(pl.name)
                merged = res.node_names if result is None or result.node_names is None \
                    else result.node_names & res.node_names
                result = PreFilterResult(merged, tuple(contributors))
                if not merged:
                    return result, unresolvable(_node_set_message(contributors)).with_plugin(pl.name)
        return result, remembered

    def run_add_pod(self, state: CycleState, pod: PodInfo, to_add: PodInfo, node: NodeInfo) -> None:
        self._run_extensions(state, pod, to_add, node, "AddPod")

    def run_remove_pod(self, state: CycleState, pod: PodInfo, to_remove: PodInfo, node: NodeInfo) -> None:
        self._run_extensions(state, pod, to_remove, node, "RemovePod")

    def _run_extensions(self, state: CycleState, pod: PodInfo, other: PodInfo, node: NodeInfo, which: str) -> None:
        """AddPod/RemovePod of the PreFilter extensions that were not skipped."""
        for pl in self.plugins.pre_filter:
            ext = pl.pre_filter_extensions()
            if ext is None or pl.name in state.skip_filter:
                continue
            run = ext.add_pod if which == "AddPod" else ext.remove_pod
            status = run(state, pod, other, node)
            if status is not None and status.code != Code.SUCCESS:
                raise SchedulingError(f'running {which} on PreFilter plugin "{pl.name}": {status.message}')

    # Filter ---------------------------------------------------------------------------------
    def run_filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        """The first non-success status wins (stamped with its plugin); an error aborts."""
        skip = state.skip_filter
        for pl in self.plugins.filter:
            if pl.name in skip:
                continue
            status = pl.filter(state, pod, node)
            if status is not None and status.code != Code.SUCCESS:
                if not status.is_rejected:
                    raise SchedulingError(f'running "{pl.name}" filter plugin: {status.message}')
                return status.with_plugin(pl.name)
        return None

    def kubelet_refusals(self, pod: PodInfo, node: NodeInfo) -> list[str]:
        """What the node's kubelet refuses a pod that names it (spec.nodeName: kube-scheduler never
        sees it) for, in the filters' words: its admission runs the scheduler's general
        predicates — resources, node name, host ports, required node affinity — and of the
        taints only the NoExecute ones count (lifecycle/predicate.go)."""
        state = CycleState()
        for pl in self.plugins.pre_filter:
            if pl.name in KUBELET_CHECKS:
                _, status = pl.pre_filter(state, pod, [node])
                if status is not None and status.code == Code.SKIP:
                    state.skip_filter.add(pl.name)
        out = [reason for pl in self.plugins.filter if pl.name in KUBELET_CHECKS and pl.name not in state.skip_filter
               for reason in (pl.filter(state, pod, node) or Status(Code.SUCCESS)).reasons]
        untolerated = first_untolerated_taint(node.node.taints, pod.pod.tolerations, ("NoExecute",))
        if untolerated is not None:
            out.append(untolerated_taint_reason(untolerated))
        return out

    def later_filter_failures(self, state: CycleState, pod: PodInfo, node: NodeInfo, first: str) -> list[Status]:
        """kwhatif's "also fails": the filters after `first` (the one that rejected the node; those
        before it passed) run anyway, on the node as lifting that rejection leaves it
        (`node_once_passed`), for explanations only, so a fix for the first reason is not mistaken
        for a fix. Errors are reported as statuses here, never raised."""
        names = [pl.name for pl in self.plugins.filter]
        if first not in names:
            return []
        node = self.plugins.filter[names.index(first)].node_once_passed(node)
        out = []
        for pl in self.plugins.filter[names.index(first) + 1:]:
            if pl.name in state.skip_filter:
                continue
            status = pl.filter(state, pod, node)
            if status is not None and status.code != Code.SUCCESS:
                out.append(status.with_plugin(pl.name))
        return out

    def filter_nodes(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo], table: NodeTable
                     ) -> tuple[Sequence[NodeInfo], Rejected]:
        """Filter many nodes at once (the fast path): each node still meets the plugins in order
        and stops at its first rejection, but a plugin that can judge all nodes from the node
        table does so in one step. Nodes with nominated pods that matter take the per-node path."""
        rejected = Rejected()
        passed: set[str] = set()
        reserved = {name for name in self.nominator.nominated_nodes() if self.nominator.nominated_for(name, pod)}
        batch_nodes = nodes
        if reserved:
            batch_nodes = []
            for node in nodes:
                if node.name not in reserved:
                    batch_nodes.append(node)
                    continue
                status = self.run_filter_with_nominated(state, pod, node)
                if status is None:
                    passed.add(node.name)
                else:
                    rejected.add(node.name, status)
        infos = table.infos
        rows = table.all_rows if batch_nodes is infos else table.rows_of(batch_nodes)
        for pl in self.plugins.filter:
            if not rows.size:
                break
            if pl.name in state.skip_filter:
                continue
            if isinstance(pl, BatchFilter):
                verdicts = pl.filter_rows(state, pod, table, rows)
            else:
                verdicts = _per_node_verdicts(pl, state, pod, [infos[r] for r in rows.tolist()])
            if verdicts.which.size:
                rejected.add_rows(table, rows[verdicts.fails], _all_stamped(verdicts.distinct, pl.name), verdicts.which)
                rejected.plugins.add(pl.name)
                rows = rows[~verdicts.fails]
        if batch_nodes is infos:
            return table.node_rows(rows), rejected
        passed.update(table.names[r] for r in rows.tolist())
        return [n for n in nodes if n.name in passed], rejected

    def run_filter_with_nominated(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        """framework.go:RunFilterPluginsWithNominatedPods: with nominated pods of priority ≥ the pod's added,
        then again without them."""
        nominated = self.nominator.nominated_for(node.name, pod)
        if not nominated:
            return self.run_filter(state, pod, node)
        state_with = state.clone()
        node_with = node.clone()
        for other in nominated:
            node_with.add_pod(other)
            self.run_add_pod(state_with, pod, other, node_with)
        status = self.run_filter(state_with, pod, node_with)
        if status is not None:
            return status
        return self.run_filter(state, pod, node)

    # Score ----------------------------------------------------------------------------------
    def run_pre_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> None:
        for pl in self.plugins.pre_score:
            status = pl.pre_score(state, pod, nodes)
            if status is None or status.code == Code.SUCCESS:
                continue
            if status.code == Code.SKIP:
                state.skip_score.add(pl.name)
                continue
            raise SchedulingError(f'running PreScore plugin "{pl.name}": {status.message}')

    def run_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo],
                  table: NodeTable | None = None) -> Scores:
        """Score, NormalizeScore, range check and weighting over the feasible nodes. With a node
        table, plugins that can score all nodes at once do so (the fast path)."""
        rows = table.rows_of(nodes) if table is not None else None
        names: Sequence[str]
        if table is not None and rows is not None:
            names = RowNames(table, rows)  # looked up only if read
        else:
            names = [n.name for n in nodes]
        scores = Scores(names)
        for pl in self.plugins.score:
            if pl.name in state.skip_score:
                continue
            try:
                if rows is not None and table is not None and isinstance(pl, BatchScore):
                    raw = pl.score_rows(state, pod, table, rows)
                else:
                    raw = np.fromiter((pl.score(state, pod, n) for n in nodes), dtype=np.int64, count=len(nodes))
            except ScoreFailure as failed:
                raise SchedulingError(f'running Score plugins: plugin "{pl.name}" failed with: {failed}') from None
            if _normalizes(pl):
                raw, status = pl.normalize_rows(state, pod, names, raw)
                if status is not None and status.code != Code.SUCCESS:
                    raise SchedulingError(f'running Normalize on Score plugins: plugin "{pl.name}" failed with: '
                                          f'{status.message}')
            bad = _out_of_range(raw)
            if bad.size:
                raise SchedulingError(
                    f'plugin "{pl.name}" returns an invalid score {int(raw[bad[0]])}, it should in the range of '
                    f'[0, {MAX_NODE_SCORE}] after normalizing')
            weight = self.plugins.weights.get(pl.name, 1)
            scores.add(pl.name, raw if weight == 1 else raw * weight)
        return scores

    # PostFilter -----------------------------------------------------------------------------
    def run_post_filter(
        self, state: CycleState, pod: PodInfo, statuses: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status]:
        """preemption.go:Evaluator.Preempt: Success or U&U end the runner; an error ends it with its text; Unschedulable
        reasons accumulate."""
        result: PostFilterResult | None = None
        reasons: list[str] = []
        rejector = ""
        for pl in self.plugins.post_filter:
            res, status = pl.post_filter(state, pod, statuses)
            if status is None or status.code == Code.SUCCESS:
                return res, Status(Code.SUCCESS, plugin=pl.name)
            if status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return res, status.with_plugin(pl.name)
            if not status.is_rejected:
                return None, Status(Code.ERROR, (status.message,), pl.name)
            if res is not None:
                result = res
            reasons.extend(status.reasons)
            rejector = rejector or pl.name
        return result, Status(Code.UNSCHEDULABLE, tuple(reasons), rejector)

    # Reserve --------------------------------------------------------------------------------
    def run_reserve(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None:
        for pl in self.plugins.reserve:
            status = pl.reserve(state, pod, node_name)
            if status is not None and status.code != Code.SUCCESS:
                return status.with_plugin(pl.name)
        return None
