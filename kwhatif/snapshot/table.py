"""Columnar node state: one row per node (in node order), so that Filter and Score plugins can
evaluate every node in one vectorised step instead of one Python call per node.

The table mirrors the NodeInfo aggregates; `Snapshot.assume` / `forget` refresh the one row that
changed, so keeping it current costs O(1) per placement. Taint sets are interned: plugins that
depend only on taints evaluate each distinct set once and broadcast the verdict by `taint_group`.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator, Sequence
from typing import Any, Callable, Hashable, TypeVar, cast, overload

import numpy as np

from kwhatif.api.affinity import NodeSelectorTerm, RequiredNodeAffinity
from kwhatif.api.tolerations import Taint, Toleration, first_untolerated_taint
from kwhatif.api.selectors import Requirement
from kwhatif.snapshot.node_info import NodeInfo

T = TypeVar("T")
_MAX_REMEMBERED = 1024
"""Questions `remembered` keeps per table: at 5,000 nodes, 80 KB each."""


class _TableRows(Sequence[T]):
    """A value for each of some rows of the node table, looked up one by one, or listed all at
    once only when read in full."""

    def __init__(self, table: NodeTable, rows: np.ndarray) -> None:
        self.table, self.rows = table, rows
        self._values: list[T] | None = None

    def __len__(self) -> int:
        return int(self.rows.size)

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return self._listed()[index]
        return self._one(int(self.rows[index]))

    def __iter__(self) -> Iterator[T]:
        return iter(self._listed())

    def _listed(self) -> list[T]:
        if self._values is None:
            self._values = self._all(self.rows)
        return self._values

    @abstractmethod
    def _one(self, row: int) -> T: ...

    @abstractmethod
    def _all(self, rows: np.ndarray) -> list[T]: ...


class NodeRows(_TableRows[NodeInfo]):
    """Nodes given by their rows in the node table. The fast path hands the feasible nodes from
    Filter to PreScore and Score as one of these: a step over thousands of nodes takes their
    rows as they are, and the NodeInfos are looked up only if a plugin reads them (most read
    rows only; listing 5,000 of them was a twentieth of a pod's cycle)."""

    def _one(self, row: int) -> NodeInfo:
        return cast(NodeInfo, self.table.info_array[row])

    def _all(self, rows: np.ndarray) -> list[NodeInfo]:
        return list(self.table.info_array[rows].tolist())


class RowNames(_TableRows[str]):
    """The names of some rows: scoring needs the winners' names, not those of 5,000 feasible
    nodes."""

    def _one(self, row: int) -> str:
        return self.table.names[row]

    def _all(self, rows: np.ndarray) -> list[str]:
        return self.table.names_at(rows)

    def picked(self, indexes: np.ndarray) -> list[str]:
        """The names at these positions, in one step."""
        return self.table.names_at(self.rows[indexes])


class NodeTable:
    def __init__(self, infos: list[NodeInfo]) -> None:
        n = len(infos)
        self.infos = infos  # the snapshot's own list: `rows` index it
        self.names = [i.name for i in infos]
        self.index = {name: row for row, name in enumerate(self.names)}
        # The same, as object arrays: picking the rows of 5,000 feasible nodes is one numpy step.
        self.info_array = np.empty(n, dtype=object)
        self.info_array[:] = infos
        self.name_array = np.array(self.names, dtype=object)
        self.all_rows = np.arange(n, dtype=np.int64)
        self.all_rows.flags.writeable = False
        self.alloc_cpu = np.array([i.allocatable.milli_cpu for i in infos], dtype=np.int64)
        self.alloc_mem = np.array([i.allocatable.memory for i in infos], dtype=np.int64)
        self.alloc_eph = np.array([i.allocatable.ephemeral_storage for i in infos], dtype=np.int64)
        self.allowed_pods = np.array([i.allowed_pods for i in infos], dtype=np.int64)
        self.req_cpu = np.zeros(n, dtype=np.int64)
        self.req_mem = np.zeros(n, dtype=np.int64)
        self.req_eph = np.zeros(n, dtype=np.int64)
        self.nz_cpu = np.zeros(n, dtype=np.int64)
        self.nz_mem = np.zeros(n, dtype=np.int64)
        # What is left of each node (allocatable − requested; pod slots): Fit's checks read one column each.
        self.free_cpu = np.zeros(n, dtype=np.int64)
        self.free_mem = np.zeros(n, dtype=np.int64)
        self.free_eph = np.zeros(n, dtype=np.int64)
        self.free_pods = np.zeros(n, dtype=np.int64)
        self.unschedulable = np.array([i.node.unschedulable for i in infos], dtype=bool)
        self._scalar_alloc: dict[str, np.ndarray] = {}
        self._scalar_req: dict[str, np.ndarray] = {}
        self.taint_sets: list[tuple[Taint, ...]] = []
        groups: dict[tuple[Taint, ...], int] = {}
        self.taint_group = np.array([groups.setdefault(i.node.taints, len(groups)) for i in infos], dtype=np.int64)
        self.taint_sets = list(groups)
        self._taint_verdicts: dict[Hashable, Any] = {}
        self._label_columns: dict[str, tuple[np.ndarray, list[str]]] = {}
        self._everywhere: dict[str, bool] = {}
        self._fixed: dict[Hashable, np.ndarray] = {}
        self._value_index: dict[str, dict[str, int]] = {}
        self._images: dict[str, np.ndarray] = {}
        self._rows_by_image: dict[str, list[int]] | None = None
        self._changes: list[int] = []
        """The rows in the order they changed (`version` is how many changes there were): what
        `remembered` kept at version v is good but for the rows changed since, `_changes[v:]` —
        a few dozen between two replicas of a template, not a look at every row."""
        self._remembered: dict[Hashable, tuple[np.ndarray, list[int]]] = {}
        self._last_changed: tuple[tuple[int, int], np.ndarray] = ((-1, -1), self.all_rows[:0])
        for row in range(n):
            self.refresh(row)

    def __len__(self) -> int:
        return len(self.names)

    def rows_of(self, nodes: Sequence[NodeInfo]) -> np.ndarray:
        """The nodes' rows: carried by a `NodeRows`, looked up by name otherwise."""
        if isinstance(nodes, NodeRows):
            return nodes.rows
        return np.fromiter((self.index[n.name] for n in nodes), dtype=np.int64, count=len(nodes))

    def node_rows(self, rows: np.ndarray) -> NodeRows:
        return NodeRows(self, rows)

    def at(self, column: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """`column[rows]`, to be read, never written: the column itself when `rows` is
        `all_rows` — the first Filters see every node, and a copy of each column they read is
        wasted. (By identity: every row in another order, a PreFilter's node set sorted by
        name, must be gathered.)"""
        return column if rows is self.all_rows else column[rows]

    def names_at(self, rows: np.ndarray) -> list[str]:
        return list(self.name_array[rows].tolist())

    def refresh(self, row: int) -> None:
        """Copy one node's aggregates into its row (after a pod was added or removed)."""
        info = self.infos[row]
        self._changes.append(row)
        req = info.requested
        self.req_cpu[row] = req.milli_cpu
        self.req_mem[row] = req.memory
        self.req_eph[row] = req.ephemeral_storage
        self.nz_cpu[row] = info.non_zero_cpu
        self.nz_mem[row] = info.non_zero_mem
        self.free_cpu[row] = self.alloc_cpu[row] - req.milli_cpu
        self.free_mem[row] = self.alloc_mem[row] - req.memory
        self.free_eph[row] = self.alloc_eph[row] - req.ephemeral_storage
        self.free_pods[row] = self.allowed_pods[row] - len(info.pods)
        for name, arr in self._scalar_req.items():
            arr[row] = req.scalars.get(name, 0)

    @property
    def version(self) -> int:
        """How many row changes the table has seen."""
        return len(self._changes)

    def remembered(self, question: Hashable, rows: np.ndarray, work_out: Callable[[np.ndarray], np.ndarray]
                   ) -> np.ndarray:
        """`work_out(rows)`, a value per row that depends only on that row here and on what
        `question` names (e.g. a score plugin's configuration and the pod's request vector),
        worked out for every row once, then again only for the rows that changed since: the
        replicas of a template ask the same question of thousands of nodes, of which the pods
        placed in between changed a few."""
        entry = self._remembered.get(question)
        if entry is None:
            if len(self._remembered) >= _MAX_REMEMBERED:
                del self._remembered[next(iter(self._remembered))]
            entry = self._remembered[question] = (np.array(work_out(self.all_rows), dtype=np.int64), [self.version])
        values, seen = entry
        if seen[0] < self.version:
            self._work_out_changed(values, seen[0], work_out)
            seen[0] = self.version
        return values[rows]

    def _work_out_changed(self, values: np.ndarray, since: int, work_out: Callable[[np.ndarray], np.ndarray]) -> None:
        """Refresh `values` for the rows changed since version `since` (every row when there
        were more changes than rows: one pass is cheaper than sorting out which)."""
        if self.version - since > len(self):
            values[:] = work_out(self.all_rows)
        else:
            stale = self._changed_since(since)
            values[stale] = work_out(stale)

    def _changed_since(self, since: int) -> np.ndarray:
        """The distinct rows changed since version `since`. A pod's questions were mostly last
        asked together (by the previous replica of its template), so the answer is kept for the
        next question with the same `since` until the table changes again."""
        key = (since, self.version)
        if self._last_changed[0] != key:
            self._last_changed = (key, np.fromiter(set(self._changes[since:]), dtype=np.int64))
        return self._last_changed[1]

    def scalar(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(allocatable, requested) of a scalar resource for every node (0 where absent)."""
        if name not in self._scalar_alloc:
            self._scalar_alloc[name] = np.array([i.allocatable.scalars.get(name, 0) for i in self.infos], dtype=np.int64)
            self._scalar_req[name] = np.array([i.requested.scalars.get(name, 0) for i in self.infos], dtype=np.int64)
        return self._scalar_alloc[name], self._scalar_req[name]

    def domains(self, key: str) -> tuple[np.ndarray, list[str]]:
        """Per node the id of its value for label `key` (-1 when the node lacks the label), and
        the values by id. Node labels never change during a run, so this is built once per key."""
        found = self._label_columns.get(key)
        if found is None:
            values: dict[str, int] = {}
            ids = np.array([values.setdefault(i.node.labels[key], len(values)) if key in i.node.labels else -1
                            for i in self.infos], dtype=np.int64)
            found = self._label_columns[key] = (ids, list(values))
        return found

    def fixed(self, question: Hashable, work_out: Callable[[], np.ndarray]) -> np.ndarray:
        """`work_out()`, a value per row that depends only on what never changes while the table
        lives (node labels, taints, images) and on what `question` names, worked out once per
        question: the replicas of a template ask the same one."""
        found = self._fixed.get(question)
        if found is None:
            if len(self._fixed) >= _MAX_REMEMBERED:
                del self._fixed[next(iter(self._fixed))]
            found = self._fixed[question] = work_out()
        return found

    def labelled_everywhere(self, key: str) -> bool:
        """Whether every node has label `key` (then a per-node test of it can be skipped)."""
        found = self._everywhere.get(key)
        if found is None:
            found = self._everywhere[key] = bool((self.domains(key)[0] >= 0).all())
        return found

    def has_image(self, name: str) -> np.ndarray:
        """Whether each node lists the image name in its status.images."""
        found = self._images.get(name)
        if found is None:
            found = self._images[name] = np.zeros(len(self), dtype=bool)
            found[self._image_rows().get(name, [])] = True
        return found

    def _image_rows(self) -> dict[str, list[int]]:
        """Image name → the rows of the nodes listing it, read in one pass over the nodes."""
        if self._rows_by_image is None:
            self._rows_by_image = {}
            for row, info in enumerate(self.infos):
                for image in info.node.images:
                    for name in image.names:
                        rows = self._rows_by_image.setdefault(name, [])
                        if not rows or rows[-1] != row:
                            rows.append(row)
        return self._rows_by_image

    def value_index(self, key: str) -> dict[str, int]:
        """Label value → its id in `domains(key)`."""
        found = self._value_index.get(key)
        if found is None:
            found = self._value_index[key] = {v: i for i, v in enumerate(self.domains(key)[1])}
        return found

    def requirement_rows(self, req: Requirement, rows: np.ndarray) -> np.ndarray:
        """A label requirement (nodeaffinity.go:GetRequiredNodeAffinity operators) judged for many nodes:
        decided once per distinct label value, then broadcast by the nodes' value ids."""
        ids, values = self.domains(req.key)
        absent = req.matches({})
        if not values:
            return np.full(rows.size, absent, dtype=bool)
        per_value = self._per_value(req, values)
        at = ids[rows]
        return np.where(at >= 0, per_value[np.maximum(at, 0)], absent)

    def _per_value(self, req: Requirement, values: list[str]) -> np.ndarray:
        """The requirement judged for each value of its key. In and NotIn look their few values up
        instead of testing every value: a hostname key has one value per node."""
        if req.operator in ("In", "NotIn"):
            index = self.value_index(req.key)
            listed = np.zeros(len(values), dtype=bool)
            listed[[index[v] for v in req.values if v in index]] = True
            return listed if req.operator == "In" else ~listed
        return np.fromiter((req.matches({req.key: v}) for v in values), dtype=bool, count=len(values))

    def term_rows(self, term: NodeSelectorTerm, rows: np.ndarray) -> np.ndarray:
        """NodeSelectorTerm.matches for many nodes (expressions on labels, fields on the name)."""
        if not term.valid or term.is_empty:
            return np.zeros(rows.size, dtype=bool)
        ok = np.ones(rows.size, dtype=bool)
        for req in term.match_expressions:
            ok &= self.requirement_rows(req, rows)
        for req in term.match_fields:
            named = np.isin(rows, [self.index.get(v, -1) for v in req.values])
            ok &= named if req.operator == "In" else ~named
        return ok

    def affinity_rows(self, affinity: RequiredNodeAffinity, rows: np.ndarray) -> np.ndarray:
        """RequiredNodeAffinity.matches for many nodes."""
        ok = np.ones(rows.size, dtype=bool)
        for key, value in (affinity.node_selector or {}).items():
            ok &= self.requirement_rows(Requirement(key, "In", (value,)), rows)
        if affinity.required is not None:
            any_term = np.zeros(rows.size, dtype=bool)
            for term in affinity.required.terms:
                any_term |= self.term_rows(term, rows)
            ok &= any_term
        return ok

    def about_taint_sets(self, question: Hashable, work_out: Callable[[list[tuple[Taint, ...]]], T]) -> T:
        """`work_out(taint_sets)` — a verdict per distinct taint set, in `taint_group` order —
        done once per `question`, which must name all else the verdict depends on (e.g. the
        pod's tolerations): taints never change while a table lives, and the replicas of a
        template ask the same question thousands of times."""
        found = self._taint_verdicts.get(question)
        if found is None:
            if len(self._taint_verdicts) >= 4096:
                self._taint_verdicts.clear()
            found = self._taint_verdicts[question] = work_out(self.taint_sets)
        return cast(T, found)

    def untolerated_rows(self, tolerations: tuple[Toleration, ...], rows: np.ndarray) -> np.ndarray:
        """Whether each node has a NoSchedule/NoExecute taint the tolerations leave untolerated."""
        per_group = self.about_taint_sets(("untolerated", tolerations), lambda sets: np.array(
            [first_untolerated_taint(t, tolerations) is not None for t in sets], dtype=bool))
        return per_group[self.taint_group[rows]]
