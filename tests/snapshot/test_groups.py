"""PodGroups: per node row, the bound pods a selector matches. A selector asked with its hashable
form has its sum kept and kept current by the snapshot's changes (every replica of a template
asks the same one): after any assume, forget or restore it must equal the sum made afresh, and
it is handed out read-only, since it is shared."""

from __future__ import annotations

import numpy as np
import pytest

from kwhatif.api.cluster import Cluster
from kwhatif.snapshot import groups
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot
from tests.builders import make_node, make_pod


def _is_web(labels: dict[str, str]) -> bool:
    return labels.get("app") == "web"


def _snapshot() -> Snapshot:
    # n1: web-1, web-2, db-1; n2: web-3; n3: nothing.
    placed = [("web-1", "web", "n1"), ("web-2", "web", "n1"), ("db-1", "db", "n1"), ("web-3", "web", "n2")]
    pods = [make_pod(name, node_name=node, labels={"app": app}) for name, app, node in placed]
    cluster = Cluster(nodes=[make_node(n) for n in ("n1", "n2", "n3")], pods=pods)
    return Snapshot.build(cluster, pods)


def _counts(snap: Snapshot, kept: bool) -> dict[str, int]:
    total = snap.groups.counts("default", _is_web, selector=("app", "web") if kept else None)
    return {name: int(total[snap.table.index[name]]) for name in ("n1", "n2", "n3")}


def test_a_kept_sum_follows_assume_forget_and_restore() -> None:
    snap = _snapshot()
    assert _counts(snap, kept=True) == {"n1": 2, "n2": 1, "n3": 0}
    mark = snap.mark()
    snap.assume(PodInfo.of(make_pod("web-4", labels={"app": "web"})), "n3")  # n3: 0 → 1
    snap.forget("default/web-1")  # n1: 2 → 1
    snap.assume(PodInfo.of(make_pod("db-2", labels={"app": "db"})), "n2")  # not web: n2 stays 1
    assert _counts(snap, kept=True) == {"n1": 1, "n2": 1, "n3": 1} == _counts(snap, kept=False)
    snap.restore(mark)
    assert _counts(snap, kept=True) == {"n1": 2, "n2": 1, "n3": 0} == _counts(snap, kept=False)


def test_a_group_first_seen_after_the_sum_was_kept_is_added_to_it() -> None:
    snap = _snapshot()
    _counts(snap, kept=True)
    # A new label set (its own group, made after the sum): web with a version label.
    snap.assume(PodInfo.of(make_pod("web-5", labels={"app": "web", "v": "2"})), "n3")
    assert _counts(snap, kept=True) == {"n1": 2, "n2": 1, "n3": 1}


def test_a_kept_sum_is_read_only() -> None:
    total = _snapshot().groups.counts("default", _is_web, selector=("app", "web"))
    with pytest.raises(ValueError):
        total[0] = 7
    assert isinstance(total, np.ndarray)


def test_beyond_the_kept_sums_a_new_selector_is_summed_afresh_each_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Memory stays bounded (each kept sum is a row-sized array the groups keep current)."""
    monkeypatch.setattr(groups, "_MAX_KEPT_SUMS", 1)
    snap = _snapshot()
    snap.groups.counts("default", lambda labels: labels.get("app") == "db", selector=("app", "db"))  # the one kept
    assert _counts(snap, kept=True) == {"n1": 2, "n2": 1, "n3": 0}
    snap.assume(PodInfo.of(make_pod("web-4", labels={"app": "web"})), "n3")
    assert _counts(snap, kept=True) == {"n1": 2, "n2": 1, "n3": 1}
    assert len(snap.groups._totals) == 1  # noqa: SLF001 - the test looks at what is kept
