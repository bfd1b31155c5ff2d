"""The ReplicaSet controller's deletion order (controller_utils.go ActivePodsWithRanks.Less), one
key at a time. NOW is 2026-01-01; by LogarithmicScaleDown (GA since 1.31) a pod's age counts by
int(log2(age in ns)): a year (3.15e16 ns) is bucket 54, 364 days 54 too, a day (8.64e13 ns) 46,
an hour (3.6e12 ns) 41."""

from __future__ import annotations

import pytest

from kwhatif.api.objects import PodCondition
from kwhatif.workloads.deletion import deletion_order
from tests.builders import make_pod

NOW = "2026-01-01T00:00:00Z"
YEAR = "2025-01-01T00:00:00Z"      # bucket 54
YEAR_LESS_A_DAY = "2025-01-02T00:00:00Z"  # bucket 54 as well
DAY = "2025-12-31T00:00:00Z"       # bucket 46
HOUR = "2025-12-31T23:00:00Z"      # bucket 41
NOT_READY = (PodCondition("Ready", "False"),)


def pod(name: str, node: str = "n1", phase: str = "Running", created: str = YEAR, **kw: object):
    return make_pod(name, node_name=node, phase=phase, creation_timestamp=created, **kw)


CASES = [
    pytest.param([pod("bound"), pod("unassigned", node="", phase="Pending")], None, ["unassigned", "bound"],
                 id="1. an unassigned pod first"),
    pytest.param([pod("running"), pod("unknown", phase="Unknown"), pod("pending", phase="Pending")], None,
                 ["pending", "unknown", "running"], id="2. Pending < Unknown < Running"),
    pytest.param([pod("ready", created=HOUR), pod("unready", conditions=NOT_READY)], None, ["unready", "ready"],
                 id="3. a pod that is not Ready first, however old"),
    pytest.param([pod("cheap", created=HOUR, annotations={"controller.kubernetes.io/pod-deletion-cost": "10"}),
                  pod("cheaper", annotations={"controller.kubernetes.io/pod-deletion-cost": "-1000"}),
                  pod("default")], None, ["cheaper", "default", "cheap"],
                 id="4. a lower pod-deletion-cost first (none is 0), before age"),
    pytest.param([pod("alone", node="n2", created=HOUR), pod("crowded-a"), pod("crowded-b")], None,
                 ["crowded-a", "crowded-b", "alone"], id="5. more pods of the set on its node first, before age"),
    pytest.param([pod("alone", node="n2", created=HOUR), pod("beside-new")],
                 [pod("alone", node="n2", created=HOUR), pod("beside-new"), pod("new-rs-pod")],
                 ["beside-new", "alone"], id="5. the related ReplicaSets' pods count on the node too"),
    pytest.param([pod("ready-a-year", created=HOUR, ready_since=YEAR), pod("ready-an-hour", ready_since=HOUR)], None,
                 ["ready-an-hour", "ready-a-year"], id="6. Ready the shorter time first (by bucket), before age"),
    pytest.param([pod("b", ready_since=YEAR_LESS_A_DAY, uid="uid-2", restarts=9), pod("a", ready_since=YEAR, uid="uid-1")],
                 None, ["a", "b"], id="6. two Ready times in one bucket: the UID decides, before restarts"),
    pytest.param([pod("steady", created=HOUR, ready_since=YEAR), pod("crashing", restarts=12, ready_since=YEAR),
                  pod("flaky", restarts=2, ready_since=YEAR)], None, ["crashing", "flaky", "steady"],
                 id="7. more restarts first, before age (equal Ready times skip key 6)"),
    pytest.param([pod("year"), pod("day", created=DAY), pod("hour", created=HOUR)], None, ["hour", "day", "year"],
                 id="8. the younger age bucket first"),
    pytest.param([pod("b-newer", created=YEAR_LESS_A_DAY, uid="uid-2"), pod("a-older", uid="uid-1")], None,
                 ["a-older", "b-newer"], id="8. one bucket: by UID, not by the day between them"),
    pytest.param([pod("no-time", created=""), pod("hour", created=HOUR)], None, ["no-time", "hour"],
                 id="8. no creation time first (afterOrZero)"),
]


@pytest.mark.parametrize("pods, related, expected", CASES)
def test_deletion_order(pods, related, expected) -> None:
    assert [p.name for p in deletion_order(pods, NOW, related)] == expected


def test_a_deletion_cost_the_api_server_would_refuse_reads_0() -> None:
    # GetDeletionCostFromPodAnnotations fails on it, and Less ignores the error: 0, as no annotation.
    pods = [pod("bad", created=HOUR, annotations={"controller.kubernetes.io/pod-deletion-cost": "x"}),
            pod("plain", uid="uid-0")]
    assert [p.name for p in deletion_order(pods, NOW)] == ["bad", "plain"]
