"""DefaultPreemption tests (reference §2.1, §8, §9, §10.1, §12) and their shared helpers.

Expected values come from the reference, from the Go tests of
`pkg/scheduler/framework/plugins/defaultpreemption/default_preemption_test.go`
(ported with the same names where possible), or from hand calculation written beside each case;
never from running kwhatif.

`Env` builds a snapshot, a nominator and the default profile's framework on it, so a dry run
(`select_victims`), a whole preemption (`preempt`) or the PostFilter runner (`post_filter`) can be
driven the way the scheduling loop drives them: PreFilter first (it writes the cycle state that
the filters and AddPod/RemovePod read), then Filter on every node to obtain the node statuses.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kwhatif.api.objects import Pod, PodCondition, PodDisruptionBudget
from kwhatif.api.selectors import LabelSelector, Requirement
from kwhatif.config.profile import default_profile
from kwhatif.engine import build_framework
from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.diagnosis import NodeToStatus
from kwhatif.framework.scheduler import NominatedPods
from kwhatif.framework.status import Code, Status
from kwhatif.preemption.evaluator import Evaluator
from kwhatif.preemption.ordering import parse_time
from kwhatif.api.cluster import Cluster
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot
from tests.builders import make_pod

NOW = "2026-01-01T00:00:00Z"
NOW_DT = parse_time(NOW)
DELETING = "2025-12-31T23:59:00Z"  # a deletionTimestamp

NO_VICTIMS = "No preemption victims found for incoming pod"
NOT_HELPFUL = "Preemption is not helpful for scheduling"
NEVER = "not eligible due to preemptionPolicy=Never."
TERMINATING = "not eligible due to a terminating pod on the nominated node."
NO_CLAIMS = "no new claims to deallocate"


def day(n: int, hour: int = 0) -> str:
    """A start time: 2025-01-<n> at <hour>:00 UTC (metav1.Time has second precision)."""
    return f"2025-01-{n:02d}T{hour:02d}:00:00Z"


def sel(**labels: str) -> LabelSelector:
    """A matchLabels selector."""
    return LabelSelector(tuple(Requirement(k, "In", (v,)) for k, v in sorted(labels.items())))


def pdb(name: str, selector: LabelSelector | None, allowed: int = 0, ns: str = "default",
        disrupted: Iterable[str] = ()) -> PodDisruptionBudget:
    return PodDisruptionBudget(namespace=ns, name=name, selector=selector, disruptions_allowed=allowed,
                               disrupted_pods=frozenset(disrupted))


def preempted_condition(status: str = "True", reason: str = "PreemptionByScheduler") -> PodCondition:
    return PodCondition(type="DisruptionTarget", status=status, reason=reason)


def on(node: str, name: str, cpu: str | None = "1", priority: int | None = 0, start: str | None = None,
       **kw: object) -> Pod:
    """A pod bound to `node` (priority kept as given, as for pods read from a cluster dump)."""
    return make_pod(name, cpu=cpu, node_name=node, priority=priority, start_time=start, **kw)


def incoming(name: str = "p", cpu: str | None = "1", priority: int | None = 100, **kw: object) -> Pod:
    """A pending pod with its priority already resolved (for unit tests that skip admission)."""
    return make_pod(name, cpu=cpu, priority=priority, **kw)


def names(infos: Sequence[PodInfo]) -> list[str]:
    return [i.pod.name for i in infos]


class Env:
    """A snapshot with the default profile's framework, as the scheduling loop would build it."""

    def __init__(self, nodes: Sequence, pods: Sequence[Pod] = (), pdbs: Sequence[PodDisruptionBudget] = (),
                 nominated: Sequence[Pod] = ()) -> None:
        cluster = Cluster(nodes=list(nodes), pods=list(pods), pdbs=list(pdbs))
        self.snapshot = Snapshot.build(cluster, [p for p in pods if p.node_name])
        self.nominator = NominatedPods()
        for pod in nominated:
            self.nominator.nominate(PodInfo.of(pod), pod.nominated_node_name)
        self.fwk = build_framework(default_profile(), self.snapshot, self.nominator, NOW)
        self.evaluator = Evaluator(self.fwk, self.snapshot, list(pdbs), NOW_DT)

    def prefilter(self, pod: Pod) -> tuple[CycleState, PodInfo, Status | None]:
        info = PodInfo.of(pod)
        state = CycleState()
        _, status = self.fwk.run_pre_filter(state, info, self.snapshot.node_infos)
        return state, info, status

    def statuses(self, pod: Pod) -> tuple[CycleState, PodInfo, NodeToStatus]:
        """The node statuses of a failed attempt: every node filtered (with nominated pods)."""
        state, info, pre = self.prefilter(pod)
        statuses = NodeToStatus()
        if pre is not None and pre.is_rejected:
            statuses.absent = pre
            return state, info, statuses
        for node in self.snapshot.node_infos:
            status = self.fwk.run_filter_with_nominated(state, info, node)
            if status is not None:
                statuses.set(node.name, status)
        return state, info, statuses

    def select_victims(self, pod: Pod, node_name: str):
        """§9.4 on a copy of one node and of the cycle state."""
        state, info, _ = self.prefilter(pod)
        node = self.snapshot.by_name[node_name].clone()
        return self.evaluator.select_victims(state.clone(), info, node)

    def preempt(self, pod: Pod, statuses: NodeToStatus | None = None):
        """Evaluator.preempt with the statuses of a real attempt unless others are given."""
        state, info, real = self.statuses(pod)
        return self.evaluator.preempt(state, info, statuses if statuses is not None else real)

    def post_filter(self, pod: Pod, statuses: NodeToStatus | None = None):
        """The PostFilter runner (DynamicResources, then DefaultPreemption). A pod carrying
        status.nominatedNodeName is registered with the nominator, as the scheduling loop does."""
        state, info, real = self.statuses(pod)
        if pod.nominated_node_name:
            self.nominator.nominate(info, pod.nominated_node_name)
        return self.fwk.run_post_filter(state, info, statuses if statuses is not None else real)


def all_unschedulable(env: Env) -> NodeToStatus:
    """Every node Unschedulable, absent U&U: how the Go tests hand nodes to preemption."""
    statuses = NodeToStatus()
    for node in env.snapshot.node_infos:
        statuses.set(node.name, Status(Code.UNSCHEDULABLE))
    return statuses
