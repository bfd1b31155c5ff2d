"""SchedulingGates (reference §3.3, Appendix A). Cases ported from kubernetes
`schedulinggates/scheduling_gates_test.go` (TestPreEnqueue)."""

from __future__ import annotations


import pytest

from kwhatif.framework.runtime import Framework, PluginSet
from kwhatif.framework.status import Code
from kwhatif.plugins.scheduling_gates import SchedulingGates
from kwhatif.framework.scheduler import NominatedPods
from kwhatif.snapshot.pod_info import PodInfo
from tests.builders import Handle, make_pod


@pytest.mark.parametrize("gates, expected", [
    pytest.param((), None, id="a pod without scheduling gates is enqueued"),
    pytest.param(("foo", "bar"), (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "waiting for scheduling gates: [foo bar]"),
                 id="a pod with scheduling gates is blocked and the gates are listed in spec order"),
    pytest.param(("example.com/one",), (Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                        "waiting for scheduling gates: [example.com/one]"),
                 id="a single gate is listed alone in brackets"),
])
def test_pre_enqueue(gates, expected):
    status = SchedulingGates(None, Handle()).pre_enqueue(PodInfo.of(make_pod("p", scheduling_gates=gates)))
    assert (None if status is None else (status.code, status.message)) == expected


def test_the_runner_stamps_the_blocking_plugin():
    fwk = Framework("default-scheduler", PluginSet(pre_enqueue=[SchedulingGates(None, Handle())]), NominatedPods())
    status = fwk.run_pre_enqueue(PodInfo.of(make_pod("p", scheduling_gates=("g",))))
    assert (status.plugin, status.message) == ("SchedulingGates", "waiting for scheduling gates: [g]")
    assert fwk.run_pre_enqueue(PodInfo.of(make_pod("q"))) is None
