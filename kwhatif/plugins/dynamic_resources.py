"""DynamicResources: only its effect on messages is modelled (dynamicresources.go:Filter,
preemption.go:Evaluator.Preempt).

For pods without resource claims its PreFilter writes an empty state and skips; its PostFilter
then says `no new claims to deallocate`. When an earlier PreFilter rejected the pod with
UnschedulableAndUnresolvable, its state was never written and its PostFilter fails with
`not found` — the quirk that ends many real FailedScheduling messages."""

from __future__ import annotations

from dataclasses import dataclass

from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.diagnosis import NodeToStatus
from kwhatif.framework.interfaces import PostFilterPlugin, PostFilterResult, PreFilterPlugin, PreFilterResult
from kwhatif.framework.status import SKIP, Status, error, unschedulable
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo

NAME = "DynamicResources"
_STATE_KEY = "PreFilter" + NAME
NO_CLAIMS_TO_DEALLOCATE = "no new claims to deallocate"
STATE_NOT_FOUND = "not found"


@dataclass(frozen=True)
class DynamicResourcesArgs:
    """DynamicResourcesArgs with kube-scheduler's default: `filter_timeout` in nanoseconds
    (10s, DRASchedulerFilterTimeout is on in 1.34). Only the messages are modelled, so the
    plugin does not read it."""

    filter_timeout: int = 10_000_000_000


class DynamicResources(PreFilterPlugin, PostFilterPlugin):
    name = NAME

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        state.write(_STATE_KEY, ())
        return None, SKIP

    def post_filter(self, state: CycleState, pod: PodInfo, statuses: NodeToStatus
                    ) -> tuple[PostFilterResult | None, Status | None]:
        if state.get(_STATE_KEY) is None:
            return None, error(STATE_NOT_FOUND)
        return None, unschedulable(NO_CLAIMS_TO_DEALLOCATE)
