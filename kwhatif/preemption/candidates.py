"""Choosing the node to preempt on among candidates (preemption.go:pickOneNodeForPreemption)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Protocol

from kwhatif.preemption.ordering import start_time
from kwhatif.snapshot.pod_info import PodInfo

_PRIORITY_OFFSET = 2147483648  # MaxInt32 + 1 keeps every priority non-negative in the sum


class Ordered(Protocol):
    """A criterion's value (an int, a datetime): compared only with the same criterion's values."""

    def __lt__(self, other: Any, /) -> bool: ...


@dataclass
class Candidate:
    node: str
    victims: list[PodInfo]
    num_pdb_violations: int
    reprieved: list[PodInfo] = field(default_factory=list)
    pdb_broken: dict[str, list[str]] = field(default_factory=dict)


def _earliest_top_priority_start(c: Candidate, now: datetime) -> datetime:
    top = max(v.pod.effective_priority for v in c.victims)
    return min(start_time(v.pod, now) for v in c.victims if v.pod.effective_priority == top)


def criteria(now: datetime) -> list[tuple[str, Callable[[Candidate], Ordered]]]:
    """The criteria in order; each maps a candidate to a value where larger is better."""
    return [
        ("fewest PDB violations", lambda c: -c.num_pdb_violations),
        ("lowest priority of the most important victim", lambda c: -c.victims[0].pod.effective_priority),
        ("smallest sum of victim priorities",
         lambda c: -sum(v.pod.effective_priority + _PRIORITY_OFFSET for v in c.victims)),
        ("fewest victims", lambda c: -len(c.victims)),
        ("latest start of the highest-priority victims", lambda c: _earliest_top_priority_start(c, now)),
    ]


def pick_candidate(candidates: list[Candidate], now: datetime) -> tuple[Candidate, str, list[str]]:
    """The winning candidate, the criterion that decided (or why no criterion was needed), and the
    nodes still tied after every criterion (kube-scheduler picks among them by map order; kwhatif
    takes the smallest node name)."""
    if len(candidates) == 1:
        return candidates[0], "only candidate", []
    remaining = sorted(candidates, key=lambda c: c.node)
    for label, value in criteria(now):
        scored = [(value(c), c) for c in remaining]
        best = max(v for v, _ in scored)
        remaining = [c for v, c in scored if v == best]
        if len(remaining) == 1:
            return remaining[0], label, []
    return remaining[0], "tie (smallest node name)", [c.node for c in remaining]
