"""Per-attempt state keyed by plugin, clonable because preemption dry runs work on copies."""

from __future__ import annotations

from typing import Any

from kwhatif.framework.status import ScoreFailure


class CycleState:
    """Values stored under keys like `"PreFilter" + plugin name`. Values with a `clone()` method
    are cloned with the state (plugins whose AddPod/RemovePod mutate their state provide one)."""

    __slots__ = ("_data", "skip_filter", "skip_score", "explain")

    def __init__(self, explain: bool = False) -> None:
        self._data: dict[str, Any] = {}
        self.skip_filter: set[str] = set()
        self.skip_score: set[str] = set()
        self.explain = explain  # the user asked why: plugins may keep evidence (pod names) too

    def write(self, key: str, value: Any) -> None:
        self._data[key] = value

    def read(self, key: str) -> Any:
        """The stored value; KeyError when the writer never ran (DynamicResources relies on it)."""
        return self._data[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self._data.get(key, default)

    def read_for_score(self, key: str, missing: str) -> Any:
        """The state PreScore wrote, for Score: without it (PreScore disabled in the profile) the
        plugins whose Score has no fallback fail, in their own words (`missing`), which the
        runner words as RunScorePlugins does (`ScoreFailure`)."""
        if key not in self._data:
            raise ScoreFailure(missing)
        return self._data[key]

    def clone(self) -> CycleState:
        copy = CycleState(self.explain)
        copy._data = {k: (v.clone() if hasattr(v, "clone") else v) for k, v in self._data.items()}
        copy.skip_filter = set(self.skip_filter)
        copy.skip_score = set(self.skip_score)
        return copy
