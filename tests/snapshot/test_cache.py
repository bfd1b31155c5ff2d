"""for_snapshot: a value derived from a snapshot is served for that snapshot only."""

from __future__ import annotations

import gc
from typing import Any

from kwhatif.snapshot.cache import for_snapshot

class Snap:
    """Stands for a Snapshot: for_snapshot only needs an object it can weakly refer to."""

def test_the_same_snapshot_gets_the_value_built_once() -> None:
    store: dict[str, Any] = {}
    snap = Snap()
    built: list[int] = []
    first = for_snapshot(store, "k", snap, lambda: built.append(1) or [1])
    again = for_snapshot(store, "k", snap, lambda: built.append(2) or [2])
    assert first is again and built == [1]

def test_another_snapshot_gets_a_value_of_its_own() -> None:
    store: dict[str, Any] = {}
    one, two = Snap(), Snap()
    assert for_snapshot(store, "k", one, lambda: "one") == "one"
    assert for_snapshot(store, "k", two, lambda: "two") == "two"
    assert for_snapshot(store, "k", one, lambda: "one again") == "one again"

def test_a_freed_snapshot_is_not_kept_alive_and_its_value_is_never_served_again() -> None:
    """A new snapshot may reuse a freed one's id(); the weak tag tells them apart."""
    store: dict[str, Any] = {}
    snap = Snap()
    for_snapshot(store, "k", snap, lambda: "old")
    del snap
    gc.collect()
    assert for_snapshot(store, "k", Snap(), lambda: "new") == "new"

def test_drop_with_snapshot_removes_the_entry_when_the_snapshot_is_freed() -> None:
    store: dict[int, Any] = {}
    snap = Snap()
    for_snapshot(store, id(snap), snap, lambda: "value", drop_with_snapshot=True)
    assert len(store) == 1
    del snap
    gc.collect()
    assert store == {}
