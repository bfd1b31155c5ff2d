"""The scheduling loop: queue order, one attempt per pod (schedule_one.go:schedulingCycle), commit before the
next (schedule_one.go:ScheduleOne), and carrying out a preemption with one immediate retry
(preemption.go:prepareCandidate)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from contextlib import contextmanager
from typing import Callable, Iterator, Sequence

from kwhatif.api.objects import Pod
from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.diagnosis import NO_NODES_MESSAGE, Diagnosis, fit_error_message
from kwhatif.framework.interfaces import PostFilterResult, PreFilterResult
from kwhatif.framework.runtime import Framework, Rejected, Scores
from kwhatif.framework.status import Code, SchedulingError, Status, unresolvable
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Mark, Snapshot
from kwhatif.text import listed


class Outcome(StrEnum):
    """What became of a pod. A `str` enum: outputs (JSON, YAML, tables, messages) show the value."""

    BOUND = "bound"                  # a node was chosen and the pod assumed on it
    UNSCHEDULABLE = "unschedulable"  # no feasible node (preemption may have nominated one)
    ERROR = "error"                  # a SchedulingError (a plugin's internal error, Reserve failure)
    GATED = "gated"                  # PreEnqueue kept it out of the active queue
    SKIPPED = "skipped"              # not this scheduler's, being deleted, or refused by admission


GATED_MESSAGE = "Scheduling is blocked due to non-empty scheduling gates"


@dataclass
class Attempt:
    """One scheduling attempt, with everything an explanation needs."""

    outcome: Outcome
    node: str | None = None
    tied_nodes: list[str] = field(default_factory=list)
    message: str | None = None
    reason: str | None = None
    num_nodes: int = 0
    feasible: Sequence[NodeInfo] = field(default_factory=list)
    num_feasible: int = 0
    """len(feasible), kept when the run keeps no per-node detail (`Scheduler.keep_detail`)."""
    scored_by_scheduler: bool = False
    node_score: int | None = None
    """The chosen node's total score when the scheduler scored (more than one feasible node):
    kept when the run keeps no per-node detail, as `num_feasible` is."""
    nominated_fast_path: bool = False
    named_node: bool = False
    """Bound to the node its spec.nodeName names, by its kubelet: never scheduled (`_named_node`)."""
    diagnosis: Diagnosis = field(default_factory=Diagnosis)
    scores: Scores | None = None
    post_filter_status: Status | None = None
    preemption: PostFilterResult | None = None
    post_filter_ran: bool = False
    insights: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    measures: dict[str, dict[str, int]] = field(default_factory=dict)  # rejected node -> shortfalls
    also_fails: dict[str, list[Status]] = field(default_factory=dict)  # rejected node -> later filters' failures
    rejection_insight: list[str] = field(default_factory=list)
    """kwhatif's sentences on a PreFilter rejection (NodeExplainer.explain_rejection): every node
    shares them, so they are kept once."""
    node_set_plugins: tuple[str, ...] = ()
    """The PreFilter plugins whose node-name sets limited the nodes filtered (NodeAffinity's
    matchFields metadata.name In): the nodes left out carry the absent-node status, which names
    no plugin, and kube-scheduler counts these plugins among the pod's unschedulable plugins
    (framework.go:RunPreFilterPlugins returns them)."""

    @cached_property
    def feasible_nodes(self) -> list[str]:
        """The feasible nodes' names, sorted: made only when asked for (5,000 names a pod)."""
        return sorted(n.name for n in self.feasible)


@dataclass
class PodResult:
    """The outcome for one pending pod: the final attempt's fields; `attempts` when retried."""

    pod: Pod
    outcome: Outcome
    attempts: list[Attempt] = field(default_factory=list)
    message: str | None = None
    incomplete: list[str] = field(default_factory=list)  # unimplemented plugins this result may depend on
    held_by: str = ""
    """The PreEnqueue plugin that keeps a gated pod out of the active queue."""

    @property
    def final(self) -> Attempt | None:
        return self.attempts[-1] if self.attempts else None

    @property
    def first(self) -> Attempt | None:
        return self.attempts[0] if self.attempts else None


class NominatedPods:
    """Pods nominated to nodes (status.nominatedNodeName): they reserve room against pods of
    lower or equal priority (framework.go:RunFilterPluginsWithNominatedPods)."""

    def __init__(self) -> None:
        self._by_node: dict[str, list[PodInfo]] = {}
        self._node_of: dict[str, str] = {}

    def nominated_for(self, node_name: str, pod: PodInfo | None = None) -> list[PodInfo]:
        """The pods nominated to the node; given `pod`, only those that reserve room against it:
        other pods of greater or equal priority (framework.go:RunFilterPluginsWithNominatedPods)."""
        found = self._by_node.get(node_name, [])
        if pod is None:
            return found
        priority = pod.pod.effective_priority
        return [p for p in found if p.key != pod.key and p.pod.effective_priority >= priority]

    def nominated_nodes(self) -> list[str]:
        return [name for name, pods in self._by_node.items() if pods]

    def node_of(self, key: str) -> str:
        """The pod's current nomination ('' when none): the source of truth once scheduling
        starts, since preemption can clear the nomination a dumped pod carried."""
        return self._node_of.get(key, "")

    def nominate(self, info: PodInfo, node_name: str) -> None:
        self.forget(info.key)
        if node_name:
            self._by_node.setdefault(node_name, []).append(info)
            self._node_of[info.key] = node_name

    def forget(self, key: str) -> None:
        node = self._node_of.pop(key, None)
        if node is not None:
            left = [p for p in self._by_node[node] if p.key != key]
            if left:
                self._by_node[node] = left
            else:  # no empty entries: `nominated_nodes` is asked once a pod
                del self._by_node[node]

    def save(self) -> tuple[dict[str, list[PodInfo]], dict[str, str]]:
        return {node: list(pods) for node, pods in self._by_node.items()}, dict(self._node_of)

    def restore(self, state: tuple[dict[str, list[PodInfo]], dict[str, str]]) -> None:
        by_node, node_of = state
        self._by_node = {node: list(pods) for node, pods in by_node.items()}
        self._node_of = dict(node_of)

    def clear_lower(self, node_name: str, priority: int) -> list[str]:
        """Pods nominated to `node_name` with lower priority lose their nomination (preemption.go:prepareCandidate)."""
        lower = [p.key for p in self.nominated_for(node_name) if p.pod.effective_priority < priority]
        for key in lower:
            self.forget(key)
        return lower


def num_feasible_nodes_to_find(num_nodes: int, percentage: int | None) -> int:
    """schedule_one.go:numFeasibleNodesToFind: every node below 100; else the percentage (adaptive when 0: 50
    − n/125, at least 5) of the nodes, but at least 100."""
    if num_nodes < 100:
        return num_nodes
    pct = percentage or 0
    if pct == 0:
        pct = max(50 - num_nodes // 125, 5)
    return max(num_nodes * pct // 100, 100)


@dataclass(frozen=True)
class Checkpoint:
    """A moment of a run to come back to: the snapshot's mark, the nominations, the sampling
    offset. A what-if replays from one instead of building the snapshot again."""

    snapshot: Mark
    nominations: tuple[dict[str, list[PodInfo]], dict[str, str]]
    next_start_node_index: int


class Scheduler:
    """Schedules pending pods on a snapshot, committing each placement before the next pod."""

    def __init__(self, snapshot: Snapshot, profiles: dict[str, Framework], nominator: NominatedPods,
                 now: str, explain: frozenset[str] = frozenset(), fast: bool = True, sample: bool = False) -> None:
        self.snapshot = snapshot
        self.fast = fast
        self.sample = sample
        self.next_start_node_index = 0
        self.profiles = profiles
        self.nominator = nominator
        self.now = now
        self.explain = explain
        self.checkpoints: dict[str, Checkpoint] = {}
        self.ahead: dict[str, int] = {}
        """Pods scheduled before the rest of the queue, by rank (`Cluster.drain_bound`: bound
        earlier in the scenario's time than the others were created). Each is nominated only when
        its turn comes: one bound later in the scenario held no room when an earlier one went."""
        self.keep_detail = True
        """False: each attempt keeps its outcome, node, ties, message and preemption (its
        nomination and victims), not the per-node detail (feasible nodes, score arrays, per-node
        statuses, the preemption dry runs' report on every node), some 300 KB a pod at 5,000
        nodes: the runs of a scenario engine, where thousands of pods are decided and only
        their outcomes read. (Three zones lost from the 5,000-node benchmark dump leave 38,278
        pods pending, each with a preemption report on 1,250 nodes.)"""

    def checkpoint(self) -> Checkpoint:
        return Checkpoint(self.snapshot.mark(), self.nominator.save(), self.next_start_node_index)

    def restore(self, checkpoint: Checkpoint) -> None:
        self.snapshot.restore(checkpoint.snapshot)
        self.nominator.restore(checkpoint.nominations)
        self.next_start_node_index = checkpoint.next_start_node_index

    @contextmanager
    def deciding_only(self) -> Iterator[None]:
        """Schedule without the explanation's extra analysis: a what-if asks only for the outcome."""
        explain, self.explain = self.explain, frozenset()
        try:
            yield
        finally:
            self.explain = explain

    def same_place_in_queue(self, a: PodInfo, b: PodInfo) -> bool:
        """Whether two versions of a pod sort alike (same priority and queue timestamp)."""
        sorter = next(iter(self.profiles.values())).plugins.queue_sort[0]
        return bool(sorter.sort_key(a, 0) == sorter.sort_key(b, 0))

    # Queue ------------------------------------------------------------------------------------
    def queue_order(self, pods: list[PodInfo]) -> list[PodInfo]:
        """PrioritySort of the first profile (all profiles must share one QueueSort), after the
        pods `ahead` in their order."""
        fwk = next(iter(self.profiles.values()))
        sorter = fwk.plugins.queue_sort[0]
        last = len(self.ahead)
        keyed = (((self.ahead.get(p.key, last), sorter.sort_key(p, i)), p) for i, p in enumerate(pods))
        return [p for _, p in sorted(keyed, key=lambda t: t[0])]

    def in_queue_order(self, pending: list[tuple[Pod, str | None]]) -> list[tuple[Pod, str | None]]:
        """The queue's entries in the order `run` takes them."""
        infos = [PodInfo.of(pod) for pod, _ in pending]
        entry = {id(info): item for info, item in zip(infos, pending)}
        return [entry[id(info)] for info in self.queue_order(infos)]

    def run(self, pending: list[tuple[Pod, str | None]],
            progress: Callable[[int, int], None] | None = None,
            until: frozenset[str] | None = None, checkpoint_before: frozenset[str] = frozenset(),
            resumed: bool = False) -> list[PodResult]:
        """Schedule pods in queue order. A pod paired with a rejection text (admission refused
        it) keeps its place in the queue but is reported as skipped with that text. `progress`
        hears (pods done, pods in the queue) after each pod. The run stops once the pods `until`
        (default: the explained ones) are decided; a checkpoint is kept in `checkpoints` just
        before each pod of `checkpoint_before`. `resumed`: the rest of a queue from a checkpoint
        of its run — `pending` is in queue order already and the nominations made when that run
        started are in place."""
        infos = [PodInfo.of(pod) for pod, _ in pending]
        rejection = {id(info): msg for info, (_, msg) in zip(infos, pending) if msg}
        if not resumed:
            for info in infos:
                served = info.pod.scheduler_name in self.profiles  # other schedulers' pods reserve nothing
                if id(info) not in rejection and served and info.pod.nominated_node_name and info.key not in self.ahead:
                    self.nominator.nominate(info, info.pod.nominated_node_name)
            infos = self.queue_order(infos)
        results = []
        stop = self.explain if until is None else until
        waiting = set(stop)
        for info in infos:
            if info.key in checkpoint_before:
                self.checkpoints[info.key] = self.checkpoint()
            if id(info) in rejection:
                results.append(PodResult(info.pod, Outcome.SKIPPED, message=rejection[id(info)]))
            else:
                if info.key in self.ahead and info.pod.nominated_node_name:  # nominated when its turn comes
                    self.nominator.nominate(info, info.pod.nominated_node_name)
                results.append(self.schedule_pod(info))
            waiting.discard(info.key)
            if progress is not None:
                progress(len(results), len(infos))
            if stop and not waiting:
                break  # what comes later in the queue cannot change an explained pod's result
        return results

    # One pod ----------------------------------------------------------------------------------
    def schedule_pod(self, info: PodInfo) -> PodResult:
        pod = info.pod
        if pod.node_name:
            return self._named_node(info)
        fwk = self.profiles.get(pod.scheduler_name)
        if fwk is None:
            served = ", ".join(self.profiles)
            return PodResult(pod, Outcome.SKIPPED, message=f'spec.schedulerName is "{pod.scheduler_name}"; not handled by {served}')
        if pod.deletion_timestamp:
            return PodResult(pod, Outcome.SKIPPED, message=f"skip schedule deleting pod: {pod.key}")
        blocked = fwk.run_pre_enqueue(info)
        if blocked is not None:
            message = GATED_MESSAGE if blocked.plugin == "SchedulingGates" else blocked.message
            return PodResult(pod, Outcome.GATED, message=message, held_by=blocked.plugin)
        result = PodResult(pod, Outcome.UNSCHEDULABLE)
        attempt = self.attempt(fwk, info)
        result.attempts.append(attempt)
        preemption = attempt.preemption
        nominated = preemption.nominated_node if preemption else ""
        if attempt.outcome != Outcome.BOUND and preemption and nominated:
            info = self._carry_out_preemption(info, preemption.victims, nominated)
            attempt = self.attempt(fwk, info)
            result.attempts.append(attempt)
        result.outcome = attempt.outcome
        result.message = attempt.message
        return result

    def _named_node(self, info: PodInfo) -> PodResult:
        """A pod created with spec.nodeName is never scheduled: it is bound to that node, where
        its kubelet admits it or refuses it (`Framework.kubelet_refusals`: resources, ports,
        affinity, NoExecute taints — not a cordon, nor a NoSchedule taint)."""
        pod, name = info.pod, info.pod.node_name
        node = self.snapshot.by_name.get(name)
        if node is None:
            return PodResult(pod, Outcome.UNSCHEDULABLE, message=f'spec.nodeName is "{name}", a node the snapshot '
                             f"lacks: the pod waits for it (kube-scheduler never schedules a pod that names its node)")
        refusals = next(iter(self.profiles.values())).kubelet_refusals(info, node)
        if refusals:
            return PodResult(pod, Outcome.SKIPPED, message=f"spec.nodeName is {name}, whose kubelet refuses the pod: "
                             f"{'; '.join(refusals)} (kube-scheduler never schedules a pod that names its node)")
        self._assume(info, name)
        attempt = Attempt(Outcome.BOUND, node=name, tied_nodes=[name], num_nodes=self.snapshot.num_nodes,
                          feasible=[node], num_feasible=1, named_node=True)
        return PodResult(pod, Outcome.BOUND, [attempt])

    def _carry_out_preemption(self, info: PodInfo, victims: list[PodInfo], node: str) -> PodInfo:
        """Delete the victims, drop lower nominations on the node, nominate the preemptor."""
        for victim in victims:
            self.snapshot.forget(victim.key)
        self.nominator.clear_lower(node, info.pod.effective_priority)
        nominated = PodInfo.of(info.pod.evolve(nominated_node_name=node))
        self.nominator.nominate(nominated, node)
        return nominated

    def attempt(self, fwk: Framework, info: PodInfo) -> Attempt:
        """One scheduling cycle (schedule_one.go:schedulingCycle) followed by commit or failure handling."""
        try:
            attempt = self._schedule_cycle(fwk, info)
        except SchedulingError as err:
            self.nominator.forget(info.key)
            return Attempt(Outcome.ERROR, message=str(err), reason="SchedulerError", num_nodes=self.snapshot.num_nodes)
        if attempt.outcome == Outcome.BOUND and attempt.node:
            self._assume(info, attempt.node)
        elif attempt.preemption is not None and attempt.preemption.nominated_node is not None:
            self.nominator.nominate(info, attempt.preemption.nominated_node)
        elif not attempt.post_filter_ran:
            self.nominator.forget(info.key)
        if not self.keep_detail:
            attempt.feasible, attempt.scores = [], None
            attempt.diagnosis.node_to_status.statuses = {}
            if attempt.preemption is not None:
                attempt.preemption.explanation = None
        return attempt

    def _assume(self, info: PodInfo, node_name: str) -> None:
        bound = info.pod.evolve(node_name=node_name, start_time=self.now, nominated_node_name="")
        self.nominator.forget(info.key)
        self.snapshot.assume(PodInfo.of(bound), node_name)

    def _schedule_cycle(self, fwk: Framework, pod: PodInfo) -> Attempt:
        snap = self.snapshot
        attempt = Attempt(Outcome.UNSCHEDULABLE, num_nodes=snap.num_nodes)
        if snap.num_nodes == 0:
            attempt.message, attempt.reason = NO_NODES_MESSAGE, "Unschedulable"
            return attempt
        state = CycleState(explain=pod.key in self.explain)
        nodes = snap.node_infos
        pre_result, pre_status = fwk.run_pre_filter(state, pod, nodes)
        diagnosis = attempt.diagnosis
        if pre_status is not None and pre_status.is_rejected:
            diagnosis.node_to_status.absent = pre_status
            diagnosis.pre_filter_msg = pre_status.message
            explainer = fwk.explainers().get(pre_status.plugin) if state.explain else None
            if explainer is not None:
                attempt.rejection_insight = explainer.explain_rejection(state, pod)
            return self._fail(fwk, state, pod, attempt)
        feasible = self._nominated_node_fast_path(fwk, state, pod, attempt)
        if feasible is None:
            feasible = self._filter_nodes(fwk, state, pod, pre_result, attempt)
        attempt.feasible, attempt.num_feasible = feasible, len(feasible)
        if not feasible:
            if state.explain:
                self._insights(fwk, state, pod, [], attempt)
            return self._fail(fwk, state, pod, attempt)
        return self._select(fwk, state, pod, feasible, attempt)

    def _insights(self, fwk: Framework, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo],
                  attempt: Attempt) -> None:
        """kwhatif's per-node sentences, taken while the nodes are as the plugins saw them: the
        rejecting plugin's for a rejected node, every explainer's for the given feasible nodes."""
        explainers = fwk.explainers()
        placed = self._placed_in_this_run()
        reading_pods = {name for name, pl in explainers.items() if pl.reads_node_pods}
        for name, status in attempt.diagnosis.node_to_status.statuses.items():
            plugin = explainers.get(status.plugin)
            node = self.snapshot.by_name.get(name)
            also = fwk.later_filter_failures(state, pod, node, status.plugin) if node is not None else []
            if also:
                attempt.also_fails[name] = also
            if plugin is not None and node is not None:
                said = plugin.explain_node(state, pod, node)
                if status.plugin in reading_pods and placed.get(name):
                    said = [*said, f"kwhatif placed {listed(placed[name])} here earlier in this run (the snapshot "
                                   "has them elsewhere or pending)"]
                attempt.insights[name] = {status.plugin: said}
                measured = plugin.measure_node(state, pod, node)
                if measured:
                    attempt.measures[name] = measured
        for node in nodes:
            told = {n: pl.explain_node(state, pod, node) for n, pl in explainers.items()}
            attempt.insights[node.name] = {n: lines for n, lines in told.items() if lines}

    def _placed_in_this_run(self) -> dict[str, list[str]]:
        """Per node, the pods this run bound there (and that are still there), from the
        snapshot's history of changes: a rejection may come from them."""
        placed: dict[str, dict[str, None]] = {}
        for delta, info, node_name, _slot in self.snapshot.history:
            keys = placed.setdefault(node_name, {})
            if delta > 0:
                keys[info.pod.key] = None
            else:
                keys.pop(info.pod.key, None)
        return {node: list(keys) for node, keys in placed.items() if keys}

    def _nominated_node_fast_path(self, fwk: Framework, state: CycleState, pod: PodInfo,
                                  attempt: Attempt) -> Sequence[NodeInfo] | None:
        """schedule_one.go:schedulingCycle: a nominated node that passes the filters is chosen without scoring."""
        name = self.nominator.node_of(pod.key)
        node = self.snapshot.by_name.get(name) if name else None
        if node is None:
            return None
        status = fwk.run_filter_with_nominated(state, pod, node)
        if status is not None:
            attempt.diagnosis.node_to_status.set(name, status)
            return None
        attempt.nominated_fast_path = True
        return [node]

    def _filter_nodes(self, fwk: Framework, state: CycleState, pod: PodInfo, pre_result: PreFilterResult | None,
                      attempt: Attempt) -> Sequence[NodeInfo]:
        nodes = self.snapshot.node_infos
        statuses = attempt.diagnosis.node_to_status
        if pre_result is not None and pre_result.node_names is not None:
            nodes = [self.snapshot.by_name[n] for n in sorted(pre_result.node_names) if n in self.snapshot.by_name]
            statuses.absent = unresolvable(f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(pre_result.plugins))}]")
            attempt.node_set_plugins = tuple(sorted(pre_result.plugins))
            attempt.diagnosis.unschedulable_plugins.update(pre_result.plugins)
        if self.fast:
            feasible, rejected = fwk.filter_nodes(state, pod, nodes, self.snapshot.table)
        else:
            feasible, rejected = [], Rejected()
            for node in nodes:
                status = fwk.run_filter_with_nominated(state, pod, node)
                if status is None:
                    feasible.append(node)
                else:
                    rejected.add(node.name, status)
        if self.sample:
            feasible, rejected = self._sampled(fwk, nodes, feasible, rejected)
        rejected.defer_into(statuses)
        attempt.diagnosis.unschedulable_plugins.update(rejected.plugins)
        return feasible

    def _sampled(self, fwk: Framework, nodes: list[NodeInfo], feasible: Sequence[NodeInfo],
                 rejected: Rejected) -> tuple[list[NodeInfo], Rejected]:
        """What kube-scheduler would have examined (schedule_one.go:numFeasibleNodesToFind): nodes in rotation
        from the last start index until `numFeasibleNodesToFind` feasible ones; the start index then moves on
        by the number of nodes examined. (Sequential: the real scheduler's 16 workers may examine a few more
        nodes before noticing it has enough.)"""
        want = num_feasible_nodes_to_find(len(nodes), fwk.percentage_of_nodes_to_score)
        ok = {n.name for n in feasible}
        failed = dict(zip(rejected.names, rejected.statuses))
        start = self.next_start_node_index % len(nodes) if nodes else 0
        kept_feasible, kept_rejected = [], Rejected()
        for i in range(len(nodes)):
            node = nodes[(start + i) % len(nodes)]
            if node.name in ok:
                kept_feasible.append(node)
                if len(kept_feasible) == want:
                    break
            elif node.name in failed:
                kept_rejected.add(node.name, failed[node.name])
        examined = len(kept_feasible) + len(kept_rejected.names)
        self.next_start_node_index = (self.next_start_node_index + examined) % max(self.snapshot.num_nodes, 1)
        return kept_feasible, kept_rejected

    def _select(self, fwk: Framework, state: CycleState, pod: PodInfo, feasible: Sequence[NodeInfo],
                attempt: Attempt) -> Attempt:
        """One feasible node wins outright (scores are computed for display only); otherwise the
        top total wins and ties go to the smallest name (kwhatif's deterministic stand-in)."""
        attempt.scored_by_scheduler = len(feasible) > 1
        try:
            fwk.run_pre_score(state, pod, feasible)
            attempt.scores = fwk.run_score(state, pod, feasible, self.snapshot.table if self.fast else None)
        except SchedulingError:
            if attempt.scored_by_scheduler:
                raise
            attempt.scores = None
        # Scores are missing only when scoring failed for a single feasible node (above).
        if len(feasible) == 1 or attempt.scores is None:
            attempt.tied_nodes = [feasible[0].name]
        else:
            attempt.tied_nodes = attempt.scores.top()
            attempt.node_score = attempt.scores.best()
        attempt.node = attempt.tied_nodes[0]
        status = fwk.run_reserve(state, pod, attempt.node)
        if status is not None:
            raise SchedulingError(f'running Reserve plugin "{status.plugin}": {status.message}')
        attempt.outcome = Outcome.BOUND
        if state.explain:  # the chosen and tied nodes; a big cluster has too many feasible ones
            self._insights(fwk, state, pod, [self.snapshot.by_name[n] for n in attempt.tied_nodes], attempt)
        return attempt

    def _fail(self, fwk: Framework, state: CycleState, pod: PodInfo, attempt: Attempt) -> Attempt:
        """A FitError: run PostFilter and compose the FailedScheduling text (types.go:FitError.Error)."""
        diagnosis = attempt.diagnosis
        result, status = fwk.run_post_filter(state, pod, diagnosis.node_to_status)
        attempt.post_filter_ran = True
        attempt.post_filter_status = status
        attempt.preemption = result
        diagnosis.post_filter_msg = status.message if status.code != Code.SUCCESS else ""
        attempt.message = fit_error_message(self.snapshot.num_nodes, diagnosis)
        attempt.reason = "Unschedulable"
        return attempt
