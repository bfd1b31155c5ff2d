"""The preemption flow of DefaultPreemption (preemption.go:Evaluator.Preempt): eligibility, potential nodes, a
dry run per node on copies, and the choice among candidates. Nothing here mutates the snapshot: carrying out
the preemption is the scheduling loop's job."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Sequence

from kwhatif.api.objects import PodDisruptionBudget
from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.diagnosis import Diagnosis, NodeToStatus, fit_error_message
from kwhatif.framework.runtime import Framework
from kwhatif.framework.status import Code, Status, error, unresolvable
from kwhatif.preemption.candidates import Candidate, pick_candidate
from kwhatif.preemption.ordering import importance_key
from kwhatif.preemption.pdb import split_by_pdb_violation
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot

NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never."
NOT_ELIGIBLE_TERMINATING = "not eligible due to a terminating pod on the nominated node."
NO_VICTIMS = "No preemption victims found for incoming pod"
NOT_HELPFUL = "Preemption is not helpful for scheduling"
_NO_VICTIMS = unresolvable(NO_VICTIMS)  # one Status for every such node: most nodes, for each failing pod


@dataclass
class PreemptionReport:
    """What the dry runs found, for explanations: per node its candidate or why it is none."""

    potential: list[str] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    node_results: dict[str, Status] = field(default_factory=dict)
    chosen: Candidate | None = None
    decided_by: str = ""
    tied: list[str] = field(default_factory=list)
    not_eligible: str = ""


def _terminating_by_preemption(info: PodInfo) -> bool:
    if not info.pod.deletion_timestamp:
        return False
    for cond in info.pod.conditions:
        if cond.type == "DisruptionTarget":
            return cond.status == "True" and cond.reason == "PreemptionByScheduler"
    return False


def eligibility(pod: PodInfo, nominated: str, statuses: NodeToStatus, snapshot: Snapshot) -> str:
    """'' when the pod may preempt, else the not-eligible text
    (default_preemption.go:PodEligibleToPreemptOthers). `nominated` is the pod's current nominated node
    name."""
    if pod.pod.preemption_policy == "Never":
        return NOT_ELIGIBLE_NEVER
    if nominated:
        if statuses.get(nominated).code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
            return ""
        node = snapshot.by_name.get(nominated)
        priority = pod.pod.effective_priority
        if node is not None and any(
            p.pod.effective_priority < priority and _terminating_by_preemption(p) for p in node.pods
        ):
            return NOT_ELIGIBLE_TERMINATING
    return ""


def potential_nodes(statuses: NodeToStatus, snapshot: Snapshot) -> list[NodeInfo]:
    """Nodes whose status is exactly Unschedulable: only there can evictions help
    (preemption.go:nodesWherePreemptionMightHelp)."""
    known = statuses.statuses
    if statuses.absent.code == Code.UNSCHEDULABLE:
        absent = statuses.absent
        return [n for n in snapshot.node_infos if known.get(n.name, absent).code == Code.UNSCHEDULABLE]
    return [snapshot.by_name[name] for name, s in known.items()
            if s.code == Code.UNSCHEDULABLE and name in snapshot.by_name]


def has_lower_priority_pods(priority: int, node: NodeInfo) -> bool:
    """Whether `node` holds a pod a preemptor of `priority` could evict, on the node's lowest pod
    priority alone: most nodes of a failing pod have none (its peers share its priority), and
    then the dry run ends before it starts."""
    lowest = node.lowest_priority()
    return lowest is not None and lowest < priority


def lower_priority_pods(pod: PodInfo, node: NodeInfo) -> list[PodInfo]:
    """The pods a preemption on `node` could evict: those of lower priority than the preemptor."""
    priority = pod.pod.effective_priority
    if not has_lower_priority_pods(priority, node):
        return []
    return [p for p in node.pods if p.pod.effective_priority < priority]


class Evaluator:
    """Runs the dry runs through the profile's framework (filters with nominated pods, AddPod /
    RemovePod extensions) on clones of one node and of the cycle state."""

    def __init__(self, framework: Framework, snapshot: Snapshot, pdbs: Sequence[PodDisruptionBudget],
                 now: datetime) -> None:
        self.framework = framework
        self.snapshot = snapshot
        self.pdbs = pdbs
        self.now = now

    def select_victims(self, state: CycleState, pod: PodInfo, node: NodeInfo
                       ) -> tuple[Candidate, None] | tuple[None, Status]:
        """default_preemption.go:SelectVictimsOnNode: remove every lower-priority pod, check the pod fits,
        then reprieve pods back — PDB-violating ones first — while it still fits."""
        fwk = self.framework
        potential = lower_priority_pods(pod, node)
        if not potential:
            return None, _NO_VICTIMS
        for victim in potential:
            node.remove_pod(victim.key)
            fwk.run_remove_pod(state, pod, victim, node)
        status = fwk.run_filter_with_nominated(state, pod, node)
        if status is not None:
            return None, status
        potential.sort(key=lambda p: importance_key(p.pod, self.now))
        violating, non_violating, broken = split_by_pdb_violation(potential, self.pdbs)
        victims: list[PodInfo] = []
        reprieved: list[PodInfo] = []
        violations = 0
        for group_violates, group in ((True, violating), (False, non_violating)):
            for info in group:
                node.add_pod(info)
                fwk.run_add_pod(state, pod, info, node)
                if fwk.run_filter_with_nominated(state, pod, node) is None:
                    reprieved.append(info)
                    continue
                node.remove_pod(info.key)
                fwk.run_remove_pod(state, pod, info, node)
                victims.append(info)
                violations += group_violates
        if violating and non_violating:
            victims.sort(key=lambda p: importance_key(p.pod, self.now))
        if not victims:
            return None, error(f'expected at least one victim pod on node "{node.name}"')
        return Candidate(node.name, victims, violations, reprieved,
                         {k: v for k, v in broken.items() if any(x.key == k for x in victims)}), None

    def preempt(self, state: CycleState, pod: PodInfo, statuses: NodeToStatus
                ) -> tuple[str | None, Status, PreemptionReport]:
        """Returns (nominated node or '' to clear or None to leave unchanged, status, report).
        The status message is without the `preemption: ` prefix."""
        report = PreemptionReport()
        nominated = self.framework.nominator.node_of(pod.key)
        report.not_eligible = eligibility(pod, nominated, statuses, self.snapshot)
        if report.not_eligible:
            return None, Status(Code.UNSCHEDULABLE, (report.not_eligible,)), report
        errors: list[str] = []
        potential = potential_nodes(statuses, self.snapshot)
        priority = pod.pod.effective_priority
        for node in potential:
            if not has_lower_priority_pods(priority, node):  # select_victims' first answer, without copies
                report.node_results[node.name] = _NO_VICTIMS
                continue
            candidate, status = self.select_victims(state.clone(), pod, node.clone())
            if candidate is not None:
                report.candidates.append(candidate)
                continue
            assert status is not None
            report.node_results[node.name] = status
            if status.code == Code.ERROR and status.message not in errors:
                errors.append(status.message)
        report.potential = [n.name for n in potential]
        if not report.candidates:
            if errors:
                text = errors[0] if len(errors) == 1 else f"[{', '.join(errors)}]"
                return None, Status(Code.ERROR, (text,)), report
            diagnosis = Diagnosis(node_to_status=NodeToStatus(dict(report.node_results), unresolvable(NOT_HELPFUL)))
            return "", Status(Code.UNSCHEDULABLE, (fit_error_message(self.snapshot.num_nodes, diagnosis),)), report
        report.chosen, report.decided_by, report.tied = pick_candidate(report.candidates, self.now)
        return report.chosen.node, Status(Code.SUCCESS), report


