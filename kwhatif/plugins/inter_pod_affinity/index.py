"""The existing pods' affinity terms over the whole cluster, with per-node counts.

PreFilter needs the existing pods' required anti-affinity terms that match the incoming pod
(interpodaffinity filtering.go:Filter); PreScore (interpodaffinity scoring.go:Score) their required affinity
and preferred (anti-)affinity terms. Replicas share interned terms, so the index keeps each distinct (kind,
term, weight) once with how many pods carry it on each node row; it is built on first use and then follows the
snapshot's journal of placements and evictions.

Which terms match an incoming pod is asked once a pod, of the hundreds of distinct terms a big cluster
holds: terms are filed under a label pair their selector requires (an `In` requirement), so a pod is
tested only against the terms filed under its own labels and those that require no pair."""

from __future__ import annotations

from collections import Counter
from typing import Iterator

import numpy as np

from kwhatif.api.objects import Pod
from kwhatif.api.selectors import Labels
from kwhatif.plugins.inter_pod_affinity.terms import AffinityTerm, ParsedTerms, TermMemo, parsed_terms
from kwhatif.snapshot.cache import for_snapshot
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot

REQUIRED_AFFINITY, PREFERRED_AFFINITY, PREFERRED_ANTI_AFFINITY = "required", "preferred", "preferred-anti"
REQUIRED_ANTI_AFFINITY = "required-anti"
TermKey = tuple[str, AffinityTerm, int]


class TermIndex:
    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self._per_row: dict[TermKey, dict[int, int]] = {}
        self._arrays: dict[TermKey, tuple[np.ndarray, np.ndarray]] = {}
        self._position = len(snapshot.journal)
        self._version = 0
        self._matching: dict[tuple[int, str], tuple[Labels, int, list[TermKey]]] = {}
        self._rank: dict[TermKey, int] = {}
        self._gated: dict[tuple[str, str], list[TermKey]] = {}
        self._ungated: list[TermKey] = []
        index, placed = snapshot.table.index, snapshot.placed
        # Replicas share their parsed terms: gather the rows of each distinct set of terms, then
        # add its counts per row under each of its keys at once.
        rows_of: dict[int, tuple[ParsedTerms, list[int]]] = {}
        for key, info in snapshot.pod_infos.items():
            if info.with_affinity:
                parts = parsed_terms(info.pod)
                entry = rows_of.get(id(parts))
                if entry is None:
                    entry = rows_of[id(parts)] = (parts, [])
                entry[1].append(index[placed[key]])
        for parts, rows in rows_of.values():
            counts = Counter(rows)
            for term_key in _keys(parts):
                per_row = self._rows(term_key)
                for row, n in counts.items():
                    per_row[row] = per_row.get(row, 0) + n

    def _change(self, info: PodInfo, row: int, delta: int) -> None:
        self._add(_keys(parsed_terms(info.pod)), row, delta)

    def _add(self, keys: list[TermKey], row: int, delta: int) -> None:
        for key in keys:
            rows = self._rows(key)
            was = bool(rows)
            n = rows.get(row, 0) + delta
            if n:
                rows[row] = n
            else:
                rows.pop(row, None)
            self._arrays.pop(key, None)
            if was != bool(rows):
                self._version += 1  # a term came or went: the lists of `matching` are stale

    def _rows(self, key: TermKey) -> dict[int, int]:
        """The term's pods per row; a term seen for the first time is filed (`_file`)."""
        rows = self._per_row.get(key)
        if rows is None:
            rows = self._per_row[key] = {}
            self._file(key)
        return rows

    def _file(self, key: TermKey) -> None:
        """File a new term under the label pairs one `In` requirement of its selector allows (a
        term without a selector matches nothing: not filed)."""
        self._rank[key] = len(self._rank)
        selector = key[1].selector
        if selector is None:
            return
        gate = next((req for req in selector.requirements if req.operator == "In"), None)
        if gate is None:
            self._ungated.append(key)
            return
        for value in gate.values:
            self._gated.setdefault((gate.key, value), []).append(key)

    def _candidates(self, labels: Labels) -> list[TermKey]:
        """The terms that may match a pod with these labels, in the order they were filed."""
        found = list(self._ungated)
        for pair in labels.items():
            found.extend(self._gated.get(pair, ()))
        return sorted(set(found), key=self._rank.__getitem__) if len(found) > 1 else found

    def sync(self) -> None:
        """Apply the placements and evictions made since the last call."""
        journal = self.snapshot.journal
        for delta, info, row in journal[self._position:]:
            if info.with_affinity:
                self._change(info, row, delta)
        self._position = len(journal)

    def matching(self, pod: Pod, memo: TermMemo) -> Iterator[tuple[TermKey, np.ndarray, np.ndarray]]:
        """(kind, term, weight) of the existing pods' terms that match `pod` (`memo` judges, for
        the pod), with the node rows carrying each and how many pods on each. Which terms match
        depends only on the pod's labels and namespace: it is worked out once per label map (the
        replicas share theirs) until a term comes or goes, not once per pod."""
        handle = (id(pod.labels), pod.namespace)
        entry = self._matching.get(handle)
        if entry is None or entry[0] is not pod.labels or entry[1] != self._version:
            keys = [key for key in self._candidates(pod.labels) if self._per_row[key] and memo[key[1]]]
            entry = self._matching[handle] = (pod.labels, self._version, keys)
        for key in entry[2]:
            rows, counts = self._arrays_of(key)
            yield key, rows, counts

    def _arrays_of(self, key: TermKey) -> tuple[np.ndarray, np.ndarray]:
        arrays = self._arrays.get(key)
        if arrays is None:
            per_row = self._per_row[key]
            arrays = self._arrays[key] = (np.fromiter(per_row.keys(), dtype=np.int64, count=len(per_row)),
                                          np.fromiter(per_row.values(), dtype=np.int64, count=len(per_row)))
        return arrays


def _keys(parts: ParsedTerms) -> list[TermKey]:
    """The index keys of a pod's (required affinity, required anti-affinity, preferred affinity,
    preferred anti-affinity) terms."""
    required, required_anti, preferred, preferred_anti = parts
    keys = [(REQUIRED_AFFINITY, t, 0) for t in required]
    keys += [(REQUIRED_ANTI_AFFINITY, t, 0) for t in required_anti]
    keys += [(PREFERRED_AFFINITY, w.term, w.weight) for w in preferred]
    keys += [(PREFERRED_ANTI_AFFINITY, w.term, w.weight) for w in preferred_anti]
    return keys


def term_index(holder: dict, snapshot: Snapshot) -> TermIndex:
    """The index for this snapshot, kept in `holder` (the plugin's), synced to the journal."""
    index = for_snapshot(holder, "index", snapshot, lambda: TermIndex(snapshot))
    index.sync()
    return index
