"""Filter's rejections on the fast path: thousands of nodes a pod, named only when something reads
them (a bound pod's rejections are never read). Whatever the order of reading, the map must hold
what the plain path would: the rejections by name first, then those by row, each with its status,
and a later `set` wins."""

from __future__ import annotations

import numpy as np
import pytest

from kwhatif.framework.diagnosis import NodeToStatus
from kwhatif.framework.interfaces import RowVerdicts
from kwhatif.framework.runtime import Rejected
from kwhatif.framework.status import unresolvable, unschedulable
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.table import NodeTable, RowNames
from tests.builders import make_node

CPU = unschedulable("Insufficient cpu")
TAINT = unresolvable("node(s) had untolerated taint {dedicated: gpu}")


def _table() -> NodeTable:
    return NodeTable([NodeInfo.of(make_node(f"n{i}")) for i in range(5)])


def test_rejections_by_row_are_named_in_order_after_those_by_name() -> None:
    rejected = Rejected()
    rejected.add("n4", TAINT)
    rejected.add_rows(_table(), np.array([2, 0]), [CPU], np.array([0, 0]))
    assert rejected.names == ["n4", "n2", "n0"]
    assert rejected.statuses == [TAINT, CPU, CPU]


def test_each_plugins_rows_follow_the_previous_plugins_with_their_own_distinct_statuses() -> None:
    rejected = Rejected()
    table = _table()
    rejected.add_rows(table, np.array([4, 1, 2]), [CPU, TAINT], np.array([1, 0, 1]))
    rejected.add_rows(table, np.array([0]), [TAINT], np.array([0]))
    assert rejected.names == ["n4", "n1", "n2", "n0"]
    assert rejected.statuses == [TAINT, CPU, TAINT, TAINT]


def test_deferred_rejections_appear_when_the_map_is_read_and_a_later_set_wins() -> None:
    rejected = Rejected()
    rejected.add_rows(_table(), np.array([1, 3]), [CPU, TAINT], np.array([0, 1]))
    statuses = NodeToStatus()
    rejected.defer_into(statuses)
    statuses.set("n3", CPU)  # after the deferred ones: it replaces n3's
    assert statuses.statuses == {"n1": CPU, "n3": CPU}
    assert statuses.get("n0") == statuses.absent


def test_row_names_look_up_single_names_and_whole_lists() -> None:
    names = RowNames(_table(), np.array([3, 1, 4]))
    assert len(names) == 3
    assert names[0] == "n3" and names[-1] == "n4"
    assert names.picked(np.array([2, 0])) == ["n4", "n3"]
    assert list(names) == ["n3", "n1", "n4"] and names[1:] == ["n1", "n4"]


@pytest.mark.parametrize("verdicts, expected", [
    # one status for every rejected row
    (RowVerdicts.same(np.array([True, False, True]), CPU), [CPU, CPU]),
    # a choice among fixed options, given over the rejected rows
    (RowVerdicts.pick(np.array([True, True, False]), np.array([1, 0]), (CPU, TAINT)), [TAINT, CPU]),
    # one status per rejected row (the per-node path): equal objects shared, order kept
    (RowVerdicts.listed(np.array([True, True, True]), [TAINT, CPU, TAINT]), [TAINT, CPU, TAINT]),
    # nothing rejected
    (RowVerdicts.same(np.zeros(2, dtype=bool), CPU), []),
])
def test_row_verdicts_expand_to_one_status_per_rejected_row(verdicts: RowVerdicts, expected: list) -> None:
    assert verdicts.statuses() == expected
    assert len(verdicts.which) == int(verdicts.fails.sum())


def test_listed_verdicts_keep_each_distinct_status_once() -> None:
    verdicts = RowVerdicts.listed(np.ones(4, dtype=bool), [CPU, CPU, TAINT, CPU])
    assert list(verdicts.distinct) == [CPU, TAINT]
    assert verdicts.which.tolist() == [0, 0, 1, 0]


def test_node_rows_hand_their_rows_over_and_name_nodes_only_when_read() -> None:
    table = _table()
    nodes = table.node_rows(np.array([3, 1, 4]))
    assert len(nodes) == 3
    assert table.rows_of(nodes) is nodes.rows  # the next step takes the rows as they are
    assert nodes[0].name == "n3" and nodes[-1].name == "n4"
    assert [n.name for n in nodes] == ["n3", "n1", "n4"] and [n.name for n in nodes[1:]] == ["n1", "n4"]
