"""The runner: one profile's plugins per extension point, run by the rules of §5.0, §6.0 and §8.2."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.diagnosis import NodeToStatus
from kwhatif.framework.interfaces import (
    MAX_NODE_SCORE, FilterPlugin, NodeExplainer, PostFilterPlugin, PostFilterResult, PreEnqueuePlugin,
    PreFilterPlugin, PreFilterResult, PreScorePlugin, QueueSortPlugin, ReservePlugin, ScorePlugin,
)
from kwhatif.framework.status import Code, SchedulingError, Status, unresolvable
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo


class Nominator(Protocol):
    def nominated_for(self, node_name: str) -> list[PodInfo]: ...

    def node_of(self, key: str) -> str: ...


@dataclass
class PluginSet:
    """A profile's plugins per extension point, in execution order, and the score weights."""

    pre_enqueue: list[PreEnqueuePlugin] = field(default_factory=list)
    queue_sort: list[QueueSortPlugin] = field(default_factory=list)
    pre_filter: list[PreFilterPlugin] = field(default_factory=list)
    filter: list[FilterPlugin] = field(default_factory=list)
    post_filter: list[PostFilterPlugin] = field(default_factory=list)
    pre_score: list[PreScorePlugin] = field(default_factory=list)
    score: list[ScorePlugin] = field(default_factory=list)
    reserve: list[ReservePlugin] = field(default_factory=list)
    weights: dict[str, int] = field(default_factory=dict)


@dataclass
class Scores:
    """Weighted normalized scores per node and plugin, and the totals (§6.0 step 5)."""

    by_node: dict[str, dict[str, int]] = field(default_factory=dict)
    totals: dict[str, int] = field(default_factory=dict)


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
        """§5.0: Skip disables the Filter; U&U stops at once; Unschedulable is remembered;
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
        for pl in self.plugins.pre_filter:
            ext = pl.pre_filter_extensions()
            if ext is None or pl.name in state.skip_filter:
                continue
            status = ext.add_pod(state, pod, to_add, node)
            if status is not None and status.code != Code.SUCCESS:
                raise SchedulingError(f'running AddPod on PreFilter plugin "{pl.name}": {status.message}')

    def run_remove_pod(self, state: CycleState, pod: PodInfo, to_remove: PodInfo, node: NodeInfo) -> None:
        for pl in self.plugins.pre_filter:
            ext = pl.pre_filter_extensions()
            if ext is None or pl.name in state.skip_filter:
                continue
            status = ext.remove_pod(state, pod, to_remove, node)
            if status is not None and status.code != Code.SUCCESS:
                raise SchedulingError(f'running RemovePod on PreFilter plugin "{pl.name}": {status.message}')

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

    def run_filter_with_nominated(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        """§2.1: with nominated pods of priority ≥ the pod's added, then again without them."""
        priority = pod.pod.effective_priority
        nominated = [
            p for p in self.nominator.nominated_for(node.name)
            if p.key != pod.key and p.pod.effective_priority >= priority
        ]
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
    def run_pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> None:
        for pl in self.plugins.pre_score:
            status = pl.pre_score(state, pod, nodes)
            if status is None or status.code == Code.SUCCESS:
                continue
            if status.code == Code.SKIP:
                state.skip_score.add(pl.name)
                continue
            raise SchedulingError(f'running PreScore plugin "{pl.name}": {status.message}')

    def run_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Scores:
        """Score, NormalizeScore, range check and weighting over the feasible nodes."""
        scores = Scores({n.name: {} for n in nodes}, {n.name: 0 for n in nodes})
        for pl in self.plugins.score:
            if pl.name in state.skip_score:
                continue
            raw = {n.name: pl.score(state, pod, n) for n in nodes}
            status = pl.normalize_score(state, pod, raw)
            if status is not None and status.code != Code.SUCCESS:
                raise SchedulingError(f'running Normalize on Score plugins: {status.message}')
            weight = self.plugins.weights.get(pl.name, 1)
            for node_name, value in raw.items():
                if not 0 <= value <= MAX_NODE_SCORE:
                    raise SchedulingError(
                        f'plugin "{pl.name}" returns an invalid score {value}, it should in the range of '
                        f'[0, {MAX_NODE_SCORE}] after normalizing')
                scores.by_node[node_name][pl.name] = value * weight
                scores.totals[node_name] += value * weight
        return scores

    # PostFilter -----------------------------------------------------------------------------
    def run_post_filter(
        self, state: CycleState, pod: PodInfo, statuses: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status]:
        """§8.2: Success or U&U end the runner; an error ends it with its text; Unschedulable
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
