"""Bound pods grouped by namespace and label set, with the number of such pods per node.

Selectors (topology spread, pod affinity) only look at a pod's namespace and labels, and replicas
share both, so a selector is evaluated once per distinct label set instead of once per pod; the
per-node counts come back as an array over node-table rows. Kept current by the snapshot on every
assume/forget."""

from __future__ import annotations

import itertools
from typing import Callable, Hashable, Iterable

import numpy as np

from kwhatif.api.selectors import Labels
from kwhatif.snapshot.pod_info import PodInfo


_MAX_KEPT_SUMS = 4096
"""Selector sums `PodGroups.counts` keeps current (40 KB each at 5,000 nodes); beyond, a new
selector's sum is worked out each time it is asked."""


class Group:
    """Pods with one (namespace, labels, terminating) combination: how many on each node row."""

    __slots__ = ("labels", "terminating", "per_row", "_arrays", "totals")

    def __init__(self, labels: Labels, terminating: bool) -> None:
        self.labels = labels
        self.terminating = terminating
        self.per_row: dict[int, int] = {}
        self._arrays: tuple[np.ndarray, np.ndarray] | None = None
        self.totals: list[np.ndarray] = []
        """The per-row sums of the selectors that match this group (`PodGroups.counts`), kept
        current with it."""

    def change(self, row: int, delta: int) -> None:
        n = self.per_row.get(row, 0) + delta
        if n:
            self.per_row[row] = n
        else:
            self.per_row.pop(row, None)
        self._arrays = None
        for total in self.totals:
            total[row] += delta

    def add_to(self, total: np.ndarray) -> None:
        if self.per_row:
            rows, counts = self.arrays()
            total[rows] += counts  # rows are distinct (the keys of `per_row`): no `np.add.at` needed

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(rows, counts), built once per change."""
        if self._arrays is None:
            rows = np.fromiter(self.per_row.keys(), dtype=np.int64, count=len(self.per_row))
            counts = np.fromiter(self.per_row.values(), dtype=np.int64, count=len(self.per_row))
            self._arrays = (rows, counts)
        return self._arrays


class PodGroups:
    def __init__(self, num_rows: int) -> None:
        self.num_rows = num_rows
        self.by_namespace: dict[str, dict[tuple, Group]] = {}
        self._label_keys: dict[int, tuple[Labels, tuple]] = {}
        self._group_of: dict[tuple[int, str, bool], tuple[Labels, Group]] = {}
        self._totals: dict[tuple[str, Hashable, bool], tuple[int, np.ndarray]] = {}

    def _labels_key(self, labels: Labels) -> tuple:
        """The sorted items of a label map, remembered per map object (replicas share theirs)."""
        cached = self._label_keys.get(id(labels))
        if cached is not None and cached[0] is labels:
            return cached[1]
        key = tuple(sorted(labels.items()))
        self._label_keys[id(labels)] = (labels, key)
        return key

    def change(self, info: PodInfo, row: int, delta: int) -> None:
        pod = info.pod
        labels = pod.labels
        terminating = pod.deletion_timestamp is not None
        handle = (id(labels), pod.namespace, terminating)
        found = self._group_of.get(handle)  # replicas share their label map: found by identity
        if found is None or found[0] is not labels:
            key = (self._labels_key(labels), terminating)
            groups = self.by_namespace.setdefault(pod.namespace, {})
            group = groups.get(key)
            if group is None:
                group = groups[key] = Group(labels, terminating)
            found = self._group_of[handle] = (labels, group)
        found[1].change(row, delta)

    def groups(self, namespace: str) -> list[Group]:
        return list(self.by_namespace.get(namespace, {}).values())

    def counts(self, namespace: str, matches: Callable[[Labels], bool], terminating: bool = False,
               selector: Hashable = None) -> np.ndarray:
        """Per node row, the pods of `namespace` whose labels match (terminating pods only when
        asked: spread counting skips them, affinity counts them). `selector`: what `matches`
        tests, as a hashable value: the sum is then kept, and kept current by the groups it
        covers (a group's labels never change, and groups are only ever added), so that a
        selector asked again — by every replica of a template — costs nothing; it is handed
        out read-only."""
        in_namespace = self.by_namespace.get(namespace, {})
        key = (namespace, selector, terminating)
        entry = self._totals.get(key) if selector is not None else None
        if entry is None and (selector is None or len(self._totals) >= _MAX_KEPT_SUMS):
            return _sum_into(np.zeros(self.num_rows, dtype=np.int64), in_namespace.values(), matches, terminating,
                             keep=False)
        seen, total = entry if entry is not None else (0, np.zeros(self.num_rows, dtype=np.int64))
        if seen < len(in_namespace):  # groups made since: only ever added, at the end
            _sum_into(total, itertools.islice(in_namespace.values(), seen, None), matches, terminating, keep=True)
            self._totals[key] = (len(in_namespace), total)
        out = total.view()
        out.flags.writeable = False
        return out

    def remapped(self, rows: list[int], num_rows: int) -> PodGroups:
        """These groups over another numbering of the node rows (`rows[old]` is the new row, -1
        for a node that is gone): the groups of a snapshot derived from this one, without
        visiting its pods again."""
        out = PodGroups(num_rows)
        out._label_keys = dict(self._label_keys)
        for namespace, groups in self.by_namespace.items():
            for key, group in groups.items():
                per_row = {rows[r]: n for r, n in group.per_row.items() if rows[r] >= 0}
                if per_row:
                    moved = out.by_namespace.setdefault(namespace, {})[key] = Group(group.labels, group.terminating)
                    moved.per_row = per_row
        return out


def _sum_into(total: np.ndarray, groups: Iterable[Group], matches: Callable[[Labels], bool], terminating: bool,
              keep: bool) -> np.ndarray:
    """Add the matching groups' per-row counts to `total` (terminating groups only when asked);
    `keep`: each such group keeps `total` current from now on."""
    for group in groups:
        if (terminating or not group.terminating) and matches(group.labels):
            group.add_to(total)
            if keep:
                group.totals.append(total)
    return total
