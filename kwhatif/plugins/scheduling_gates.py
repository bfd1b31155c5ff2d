"""SchedulingGates: a pod with gates is never attempted (scheduling_gates.go:PreEnqueue)."""

from __future__ import annotations

from kwhatif.framework.interfaces import PreEnqueuePlugin
from kwhatif.framework.status import Status, unresolvable
from kwhatif.snapshot.pod_info import PodInfo

NAME = "SchedulingGates"


class SchedulingGates(PreEnqueuePlugin):
    name = NAME

    def pre_enqueue(self, pod: PodInfo) -> Status | None:
        gates = pod.pod.scheduling_gates
        if not gates:
            return None
        return unresolvable(f"waiting for scheduling gates: [{' '.join(gates)}]")
