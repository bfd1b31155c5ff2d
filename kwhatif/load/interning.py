"""Replicas share their template: the same containers, affinity, tolerations and labels, byte for
byte. When a big JSON dump is read from its bytes, each distinct sub-object text is parsed once
(every replica then holds the same Python object), and decoding such a shared object is done once
and remembered by its identity. Outside `interning()` nothing is shared and `once` just computes."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Callable, Iterator

import orjson

_active: Interner | None = None


class Interner:
    def __init__(self) -> None:
        self._parsed: dict[bytes, Any] = {}
        self._shared: set[int] = set()
        self._decoded: dict[tuple, Any] = {}
        self._built: dict[tuple, Any] = {}

    def parse(self, raw: bytes) -> Any:
        """The parsed value of a JSON text, the same object for the same text."""
        found = self._parsed.get(raw)
        if found is None and raw not in self._parsed:
            found = self._parsed[raw] = orjson.loads(raw)
            self._shared.add(id(found))
        return found

    def shared(self, key: tuple, make: Callable[[], Any]) -> Any:
        """One object for every equal `key` (for values built rather than parsed, e.g. a pod's
        container statuses reduced to what scheduling reads)."""
        found = self._built.get(key)
        if found is None:
            found = self._built[key] = make()
            self._shared.add(id(found))
        return found

    def once(self, value: Any, key: tuple, compute: Callable[[], Any]) -> Any:
        if value is None or id(value) not in self._shared:
            return compute()
        memo_key = (id(value),) + key
        if memo_key not in self._decoded:
            self._decoded[memo_key] = compute()
        return self._decoded[memo_key]


    def once_all(self, values: tuple, key: tuple, compute: Callable[[], Any]) -> Any:
        """Like `once` for several values at a time: remembered only when every one of them is
        shared (or None), keyed by their identities and `key`."""
        ids = []
        for value in values:
            if value is not None and id(value) not in self._shared:
                return compute()
            ids.append(id(value) if value is not None else 0)
        memo_key = ("all", tuple(ids)) + key
        try:
            found = self._decoded.get(memo_key)
        except TypeError:  # an unhashable value in `key` (a mapping where a string belongs): decoding says so
            return compute()
        if found is None:
            found = self._decoded[memo_key] = compute()
        return found


@contextmanager
def interning() -> Iterator[Interner]:
    """Share parsed sub-objects and their decoding for the duration of one load."""
    global _active
    previous, _active = _active, Interner()
    try:
        yield _active
    finally:
        _active = previous


def once(value: Any, key: tuple, compute: Callable[[], Any]) -> Any:
    """`compute()`, remembered for a shared `value` (keyed also by `key`: field and parameters)."""
    return compute() if _active is None else _active.once(value, key, compute)


def once_all(values: tuple, key: tuple, compute: Callable[[], Any]) -> Any:
    """`compute()`, remembered when every value is shared (see `Interner.once_all`)."""
    return compute() if _active is None else _active.once_all(values, key, compute)
