"""Snapshot marks: `restore` goes back (or forward) to a mark exactly — the pods of each node in
the same order, the aggregates, the node-table rows and the label groups as they were — because a
what-if replayed from a mark must decide as the first run did, and the order of a node's pods
decides between equal preemption victims."""

from __future__ import annotations

from typing import Any

from kwhatif.api.cluster import Cluster
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot
from tests.builders import make_node, make_pod


def _snapshot() -> Snapshot:
    pods = [make_pod(name, cpu="100m", node_name="n1", labels={"app": name[0]}) for name in ("a1", "b1", "c1", "d1")]
    cluster = Cluster(nodes=[make_node("n1"), make_node("n2")], pods=pods)
    return Snapshot.build(cluster, pods)


def _state(snap: Snapshot) -> Any:
    rows = [(int(snap.table.req_cpu[r]), int(snap.table.free_cpu[r]), int(snap.table.free_pods[r]))
            for r in range(len(snap.table))]
    groups = sorted((ns, key, tuple(sorted(g.per_row.items())))
                    for ns, by_key in snap.groups.by_namespace.items() for key, g in by_key.items() if g.per_row)
    nodes = [([p.key for p in n.pods], n.requested.milli_cpu) for n in snap.node_infos]
    return nodes, dict(snap.placed), rows, groups


def test_restore_undoes_a_forget_and_an_assume_exactly() -> None:
    snap = _snapshot()
    before = _state(snap)
    mark = snap.mark()
    snap.forget("default/a1")  # kube-scheduler's NodeInfo moves the last pod (d1) into its slot
    assert [p.key for p in snap.by_name["n1"].pods] == ["default/d1", "default/b1", "default/c1"]
    snap.assume(PodInfo.of(make_pod("e1", cpu="1", labels={"app": "e"})), "n2")
    snap.restore(mark)
    assert _state(snap) == before  # d1 back at the end, a1 in slot 0, e1 gone, 400m on n1


def test_restore_goes_forward_to_a_later_mark() -> None:
    snap = _snapshot()
    start = snap.mark()
    snap.forget("default/b1")
    snap.assume(PodInfo.of(make_pod("e1", cpu="1", labels={"app": "e"})), "n2")
    later, expected = snap.mark(), _state(snap)
    snap.restore(start)
    snap.assume(PodInfo.of(make_pod("f1", cpu="2")), "n1")  # another branch from the start
    snap.restore(later)
    assert _state(snap) == expected


def test_an_index_following_the_journal_sees_the_undone_changes() -> None:
    """Plugins' indexes replay the journal: an undone change appears there as its inverse."""
    snap = _snapshot()
    mark = snap.mark()
    snap.forget("default/c1")
    snap.restore(mark)
    assert [(delta, info.key) for delta, info, _row in snap.journal] == [(-1, "default/c1"), (1, "default/c1")]
