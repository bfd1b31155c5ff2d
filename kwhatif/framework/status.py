"""Status codes and statuses, as kube-scheduler's framework defines them.

Rejections are values, not exceptions: a plugin returns a Status with reasons, and the runner
stamps which plugin produced it. `None` stands for Success on hot paths.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


class Code(IntEnum):
    SUCCESS = 0
    ERROR = 1
    UNSCHEDULABLE = 2
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    WAIT = 4
    SKIP = 5
    PENDING = 6

    @property
    def label(self) -> str:
        """The Go `String()` name (`UnschedulableAndUnresolvable`, ...)."""
        return _LABELS[self]


_LABELS = {
    Code.SUCCESS: "Success", Code.ERROR: "Error", Code.UNSCHEDULABLE: "Unschedulable",
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE: "UnschedulableAndUnresolvable", Code.WAIT: "Wait",
    Code.SKIP: "Skip", Code.PENDING: "Pending",
}


@dataclass(frozen=True, slots=True)
class Status:
    code: Code
    reasons: tuple[str, ...] = ()
    plugin: str = ""

    @property
    def message(self) -> str:
        return ", ".join(self.reasons)

    @property
    def is_rejected(self) -> bool:
        return self.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING)

    def with_plugin(self, plugin: str) -> Status:
        """The status stamped with its plugin (made directly: `dataclasses.replace` costs five
        times as much, on a path taken by every rejected pod)."""
        return Status(self.code, self.reasons, plugin)


SKIP = Status(Code.SKIP)


def unschedulable(*reasons: str) -> Status:
    return Status(Code.UNSCHEDULABLE, reasons)


def unresolvable(*reasons: str) -> Status:
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reasons)


def error(text: str) -> Status:
    return Status(Code.ERROR, (text,))


class SchedulingError(Exception):
    """A non-rejection failure (plugin error): the pod gets reason SchedulerError."""


class ScoreFailure(Exception):
    """A Score plugin's error status (`fwk.AsStatus(err)`): the runner words it as
    RunScorePlugins does (`running Score plugins: plugin "X" failed with: ...`)."""
