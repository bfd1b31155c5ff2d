"""PreFilter's topologyToMatchedTermCount (interpodaffinity filtering.go): a count per
(topology key, value), held per key as an array over the node table's value ids of that key.

The map kube-scheduler keeps is filled from every node of the cluster; with a hostname key it
has one entry per node, and a dict of 5,000 pairs built and then read a node at a time cost more
than the rest of the pod's cycle. An array per key is filled in one `bincount` and read for all
nodes in one step; single pairs are still looked up for the per-node paths (preemption's
AddPod/RemovePod, explanations). An entry at 0 is absent, as the map deletes it."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from kwhatif.snapshot.table import NodeTable

Pair = tuple[str, str]


class TopologyCounts:
    """(topology key, value) → count, an array per key over the value ids of `table.domains`.
    Copies share their arrays until one of them writes (preemption clones the state for each
    node it tries: copying 5,000 hostname counts each time would cost more than the map did)."""

    __slots__ = ("table", "by_key", "_owned")

    def __init__(self, table: NodeTable) -> None:
        self.table = table
        self.by_key: dict[str, np.ndarray] = {}
        self._owned: set[str] = set()
        """The keys whose array this object alone holds (may write in place)."""

    def copy(self) -> TopologyCounts:
        """An independent copy: from now on, each side copies an array before its first write."""
        other = TopologyCounts(self.table)
        other.by_key = dict(self.by_key)
        self._owned.clear()
        return other

    def _writable(self, key: str) -> np.ndarray:
        found = self.by_key.get(key)
        if found is None:
            found = np.zeros(len(self.table.domains(key)[1]), dtype=np.int64)
        elif key not in self._owned:
            found = found.copy()
        self.by_key[key] = found
        self._owned.add(key)
        return found

    def add_rows(self, key: str, rows: np.ndarray, per_row: np.ndarray) -> None:
        """Each row's count added at its node's value of `key` (rows whose node lacks the key
        count nowhere, as topologyToMatchedTermCount.update skips them)."""
        ids, values = self.table.domains(key)
        at = ids[rows]
        take = (at >= 0) & (per_row != 0)
        if take.any():
            self._writable(key)[:] += np.bincount(at[take], weights=per_row[take], minlength=len(values)).astype(np.int64)

    def update(self, labels: Mapping[str, str], key: str, delta: int) -> None:
        """topologyToMatchedTermCount.update for one node's labels (a node of the table: its
        value has an id)."""
        if key in labels:
            self._writable(key)[self.table.value_index(key)[labels[key]]] += delta

    def get(self, pair: Pair) -> int:
        """The count of (key, value); 0 when absent."""
        key, value = pair
        counts = self.by_key.get(key)
        if counts is None:
            return 0
        value_id = self.table.value_index(key).get(value)
        return 0 if value_id is None else int(counts[value_id])

    def __bool__(self) -> bool:
        """Whether any entry is left (the map is not empty)."""
        return any(counts.any() for counts in self.by_key.values())

    def keys(self) -> list[str]:
        """The topology keys with a positive count somewhere."""
        return [key for key, counts in self.by_key.items() if (counts > 0).any()]

    def positive_at(self, key: str, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(rows having label `key`, rows whose value of `key` has a positive count)."""
        at = self.table.domains(key)[0][rows]
        counts = self.by_key.get(key)
        if counts is None:
            return at >= 0, np.zeros(rows.size, dtype=bool)
        positive = np.append(counts > 0, False)  # at = -1 reads the extra False slot
        return at >= 0, positive[at]
