"""DefaultBinder: binding is the simulation's commit (the scheduler assumes the pod on its node)."""

from __future__ import annotations

from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.interfaces import BindPlugin
from kwhatif.framework.status import Status
from kwhatif.snapshot.pod_info import PodInfo

NAME = "DefaultBinder"


class DefaultBinder(BindPlugin):
    name = NAME

    def bind(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None:
        return None
