"""DynamicResources, modelled for its effect on messages (reference §5.13, §8.2, §13.3).

For pods without resource claims its PreFilter writes an empty state and returns Skip; its
PostFilter then says `no new claims to deallocate` (Unschedulable). When an earlier PreFilter
plugin rejected the pod with UnschedulableAndUnresolvable, its PreFilter never ran, reading the
state fails and PostFilter returns an Error `not found`.
"""

from __future__ import annotations


import pytest

from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.diagnosis import NodeToStatus
from kwhatif.framework.interfaces import PreFilterPlugin
from kwhatif.framework.runtime import Framework, PluginSet
from kwhatif.framework.status import Code, Status, unresolvable, unschedulable
from kwhatif.plugins.dynamic_resources import DynamicResources
from kwhatif.api.cluster import Cluster
from kwhatif.framework.scheduler import NominatedPods
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot
from tests.builders import Handle, make_node, make_pod


class EarlyPreFilter(PreFilterPlugin):
    """A PreFilter plugin placed before DynamicResources (like VolumeBinding)."""

    def __init__(self, status: Status | None) -> None:
        super().__init__(None, Handle())
        self.name = "Early"
        self.status = status

    def pre_filter(self, state, pod, nodes):
        return None, self.status


def _snapshot():
    return Snapshot.build(Cluster(nodes=[make_node("n1"), make_node("n2")]), [])


def test_pre_filter_skips_for_a_pod_without_claims():
    snap = _snapshot()
    result, status = DynamicResources(None, Handle(snap)).pre_filter(CycleState(), PodInfo.of(make_pod("p")),
                                                                     snap.node_infos)
    assert result is None and status.code == Code.SKIP


@pytest.mark.parametrize("early_status, expected", [
    pytest.param(None, (Code.UNSCHEDULABLE, "no new claims to deallocate"),
                 id="after its PreFilter ran PostFilter says no new claims to deallocate"),
    pytest.param(unschedulable("try later"), (Code.UNSCHEDULABLE, "no new claims to deallocate"),
                 id="a plain Unschedulable earlier PreFilter lets it run so PostFilter says no new claims"),
    pytest.param(unresolvable("pod has unbound immediate PersistentVolumeClaims"), (Code.ERROR, "not found"),
                 id="an unresolvable earlier PreFilter stops the loop before it so PostFilter fails with not found"),
])
def test_post_filter_after_the_pre_filter_runner(early_status, expected):
    snap = _snapshot()
    handle = Handle(snap)
    dra = DynamicResources(None, handle)
    fwk = Framework("default-scheduler", PluginSet(pre_filter=[EarlyPreFilter(early_status), dra]), NominatedPods())
    state = CycleState()
    pod = PodInfo.of(make_pod("p"))
    fwk.run_pre_filter(state, pod, snap.node_infos)
    _, status = dra.post_filter(state, pod, NodeToStatus())
    assert (status.code, status.message) == expected


def test_post_filter_without_any_pre_filter_state_is_not_found():
    _, status = DynamicResources(None, Handle(_snapshot())).post_filter(CycleState(), PodInfo.of(make_pod("p")),
                                                                        NodeToStatus())
    assert (status.code, status.message) == (Code.ERROR, "not found")
