"""Diagnosis and FitError: how a failed attempt is summarised into the FailedScheduling text
(types.go:FitError.Error)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from kwhatif.framework.status import Code, Status

NO_NODES_MESSAGE = "no nodes available to schedule pods"


class NodeToStatus:
    """Explicit per-node statuses plus the status of nodes absent from the map (nodes a PreFilter
    node set excluded, or nodes preemption did not dry-run). The fast path hands thousands of
    rejections at once (`add_later`); they become entries only when something reads the map —
    a pod that is bound needs none of them."""

    def __init__(self, statuses: dict[str, Status] | None = None, absent: Status | None = None) -> None:
        self._statuses = {} if statuses is None else statuses
        self._later: list[Callable[[], Iterable[tuple[str, Status]]]] = []
        self.absent = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE) if absent is None else absent

    @property
    def statuses(self) -> dict[str, Status]:
        if self._later:
            for pairs in self._later:
                self._statuses.update(pairs())
            self._later = []
        return self._statuses

    @statuses.setter
    def statuses(self, value: dict[str, Status]) -> None:
        self._statuses, self._later = value, []

    def add_later(self, pairs: Callable[[], Iterable[tuple[str, Status]]]) -> None:
        """The (node, status) pairs `pairs()` gives, after what is there now."""
        self._later.append(pairs)

    def get(self, node_name: str) -> Status:
        return self.statuses.get(node_name, self.absent)

    def set(self, node_name: str, status: Status) -> None:
        self.statuses[node_name] = status

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NodeToStatus) and (self.statuses, self.absent) == (other.statuses, other.absent)

    def __repr__(self) -> str:
        return f"NodeToStatus(statuses={self.statuses!r}, absent={self.absent!r})"


@dataclass
class Diagnosis:
    node_to_status: NodeToStatus = field(default_factory=NodeToStatus)
    unschedulable_plugins: set[str] = field(default_factory=set)
    pre_filter_msg: str = ""
    post_filter_msg: str = ""


def histogram(num_nodes: int, statuses: NodeToStatus) -> str:
    """`<count> <reason>` entries sorted byte-wise, joined with ", " (types.go:FitError.Error)."""
    counts: dict[str, int] = {}
    for status, n in _by_status(statuses.statuses.values()):
        for reason in status.reasons:
            counts[reason] = counts.get(reason, 0) + n
    absent = num_nodes - len(statuses.statuses)
    if absent > 0:
        for reason in statuses.absent.reasons:
            counts[reason] = counts.get(reason, 0) + absent
    entries = sorted((f"{n} {reason}" for reason, n in counts.items()), key=lambda s: s.encode())
    return ", ".join(entries)


def _by_status(statuses: Iterable[Status]) -> list[tuple[Status, int]]:
    """Each distinct status object with the number of nodes holding it: the nodes one plugin
    rejects for the same reasons share one (thousands of nodes, a handful of statuses), so the
    reasons are counted once a status, not once a node."""
    listed = list(statuses)
    objects = dict(zip(map(id, listed), listed))
    return [(objects[key], n) for key, n in Counter(map(id, listed)).items()]


def fit_error_message(num_nodes: int, diagnosis: Diagnosis) -> str:
    """The FitError text: head, PreFilter message or histogram, then the PostFilter message."""
    text = f"0/{num_nodes} nodes are available:"
    if diagnosis.pre_filter_msg:
        text += f" {diagnosis.pre_filter_msg}."
    else:
        hist = histogram(num_nodes, diagnosis.node_to_status)
        if hist:
            text += f" {hist}."
    if diagnosis.post_filter_msg:
        text += f" {diagnosis.post_filter_msg}"
    return text
