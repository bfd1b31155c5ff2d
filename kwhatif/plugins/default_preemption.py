"""DefaultPreemption: when a pod fits nowhere, evict lower-priority pods to make room (preemption.go:Evaluator.Preempt).

The plugin is a thin adapter: the flow lives in `kwhatif.preemption`. Its messages carry the
`preemption: ` prefix, as kube-scheduler's do."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.diagnosis import NodeToStatus
from kwhatif.framework.interfaces import PostFilterPlugin, PostFilterResult
from kwhatif.framework.status import Code, Status
from kwhatif.preemption.evaluator import Evaluator
from kwhatif.api.timestamps import parse_time
from kwhatif.snapshot.pod_info import PodInfo

NAME = "DefaultPreemption"
PREFIX = "preemption: "


@dataclass(frozen=True)
class DefaultPreemptionArgs:
    """DefaultPreemptionArgs with kube-scheduler's defaults (defaults.go:SetDefaults_*Args). kwhatif dry-runs every
    candidate node, so the plugin does not read them; `explain` says how many kube-scheduler would."""

    min_candidate_nodes_percentage: int = 10
    min_candidate_nodes_absolute: int = 100

    def candidates_sought(self, potential: int) -> int:
        """preemption.go:GetOffsetAndNumCandidates: how many candidates kube-scheduler looks for
        among `potential` nodes before it stops (reference 9.3) — kwhatif's explanations say so."""
        return min(max(potential * self.min_candidate_nodes_percentage // 100, self.min_candidate_nodes_absolute),
                   potential)


class DefaultPreemption(PostFilterPlugin):
    name = NAME

    def post_filter(self, state: CycleState, pod: PodInfo, statuses: NodeToStatus
                    ) -> tuple[PostFilterResult | None, Status | None]:
        snapshot = self.handle.snapshot
        now = parse_time(self.handle.now) or datetime.now(timezone.utc)
        evaluator = Evaluator(self.handle.framework, snapshot, snapshot.cluster.pdbs, now)
        nominated, status, report = evaluator.preempt(state, pod, statuses)
        victims = list(report.chosen.victims) if report.chosen else []
        result = PostFilterResult(nominated, victims, report)
        if status.code == Code.SUCCESS or not status.message:
            return result, status
        return result, Status(status.code, (PREFIX + status.message,))
