"""NodeTable.remembered: a per-row answer worked out again only for the rows that changed since
it was asked — a replica asks what its template's last replica asked, and one placement changes
one row — and never served stale: after any change it equals the answer made afresh."""

from __future__ import annotations

import numpy as np

from kwhatif.api.cluster import Cluster
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot
from tests.builders import make_node, make_pod


def _snapshot() -> Snapshot:
    return Snapshot.build(Cluster(nodes=[make_node(f"n{i}", cpu="4") for i in range(4)], pods=[]), [])


class _FreeCpu:
    """Free millicores per row, counting the rows it was asked for."""

    def __init__(self, snap: Snapshot) -> None:
        self.table, self.asked = snap.table, []

    def __call__(self, rows: np.ndarray) -> np.ndarray:
        self.asked.append(rows.tolist())
        return self.table.alloc_cpu[rows] - self.table.req_cpu[rows]


def test_only_changed_rows_are_worked_out_again() -> None:
    snap = _snapshot()
    free = _FreeCpu(snap)
    every = np.arange(4)
    assert snap.table.remembered("free cpu", every, free).tolist() == [4000, 4000, 4000, 4000]
    snap.assume(PodInfo.of(make_pod("a", cpu="1500m")), "n2")
    row = snap.table.index["n2"]
    got = snap.table.remembered("free cpu", every, free)
    assert got[row] == 2500 and free.asked[-1] == [row]  # 4000 − 1500, only n2's row again
    assert snap.table.remembered("free cpu", every[::-1], free).tolist() == got[::-1].tolist()
    assert len(free.asked) == 2  # nothing changed: nothing worked out


def test_an_undone_change_is_a_change() -> None:
    snap = _snapshot()
    free = _FreeCpu(snap)
    mark = snap.mark()
    snap.assume(PodInfo.of(make_pod("a", cpu="1")), "n0")
    row = snap.table.index["n0"]
    assert snap.table.remembered("free cpu", np.array([row]), free).tolist() == [3000]
    snap.restore(mark)
    assert snap.table.remembered("free cpu", np.array([row]), free).tolist() == [4000]


def test_questions_are_kept_apart() -> None:
    snap = _snapshot()
    rows = np.arange(4)
    assert snap.table.remembered(("double", 1), rows, lambda r: r * 2).tolist() == [0, 2, 4, 6]
    assert snap.table.remembered(("triple", 1), rows, lambda r: r * 3).tolist() == [0, 3, 6, 9]


def test_a_column_at_all_rows_is_the_column_itself_and_at_other_rows_their_values() -> None:
    table = _snapshot().table
    assert table.at(table.alloc_cpu, table.all_rows) is table.alloc_cpu  # no copy for the first Filters
    some = table.all_rows[1:]
    assert table.at(table.alloc_cpu, some).tolist() == table.alloc_cpu[1:].tolist()
    backwards = table.all_rows[::-1].copy()  # every row, in another order (a node set sorted by name)
    assert table.at(table.alloc_cpu, backwards).tolist() == table.alloc_cpu[::-1].tolist()


def test_what_is_left_of_each_node_follows_its_pods() -> None:
    """4 cpu nodes: a 1500m pod leaves 2500m and one pod slot fewer; undone, all is back."""
    snap = _snapshot()
    table, row = snap.table, snap.table.index["n1"]
    slots = int(table.allowed_pods[row])
    mark = snap.mark()
    snap.assume(PodInfo.of(make_pod("a", cpu="1500m")), "n1")
    assert (int(table.free_cpu[row]), int(table.free_pods[row])) == (2500, slots - 1)
    assert int(table.free_mem[row]) == int(table.alloc_mem[row] - table.req_mem[row])
    snap.restore(mark)
    assert (int(table.free_cpu[row]), int(table.free_pods[row])) == (4000, slots)


def test_more_changes_than_rows_are_worked_out_in_one_pass() -> None:
    snap = _snapshot()
    free = _FreeCpu(snap)
    every = np.arange(4)
    snap.table.remembered("free cpu", every, free)
    for i in range(5):  # five placements on a 4-row table: each row anew, once
        snap.assume(PodInfo.of(make_pod(f"p{i}", cpu="500m")), f"n{i % 4}")
    # n0 took two pods (p0, p4): 4000 − 1000; the others one: 4000 − 500.
    assert snap.table.remembered("free cpu", every, free).tolist() == [3000, 3500, 3500, 3500]
    assert free.asked[-1] == [0, 1, 2, 3]
