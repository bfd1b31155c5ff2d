"""What objects of several kinds share: how they are named and how they are copied."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import Field, fields, replace
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar, Self


class ClusterScoped:
    """A cluster-scoped object: named `Kind/name` in errors and explanations."""

    __slots__ = ()
    name: str

    @property
    def ref(self) -> str:
        return f"{type(self).__name__}/{self.name}"


class Namespaced:
    """A namespaced object: keyed `namespace/name`, named `Kind/namespace/name`."""

    __slots__ = ()
    namespace: str
    name: str

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def ref(self) -> str:
        """`Kind/namespace/name`, as errors and explanations name objects."""
        return f"{type(self).__name__}/{self.namespace}/{self.name}"


class Evolving:
    """An object treated as immutable that the run changes by copying it."""

    __slots__ = ()
    if TYPE_CHECKING:  # every subclass is a dataclass: this lets `replace` accept Self
        __dataclass_fields__: ClassVar[dict[str, Field[Any]]]

    def evolve(self, **changes: object) -> Self:
        """A copy with some fields changed (admission, binding, nomination): `dataclasses.replace`,
        made positionally — a run copies every pod it binds, and `replace` costs four times as
        much. Frozen classes and fields outside `__init__` keep `replace`."""
        cls = type(self)
        layout = _LAYOUTS.get(cls)
        if layout is None:
            layout = _LAYOUTS[cls] = _layout(cls)
        if not layout:
            return replace(self, **changes)
        read, index = layout
        values = list(read(self))
        for name, value in changes.items():
            if name not in index:
                raise TypeError(f"{cls.__name__} has no field {name!r} to change")
            values[index[name]] = value
        return cls(*values)


_Layout = tuple[Callable[[Any], tuple[Any, ...]], dict[str, int]]
_LAYOUTS: dict[type, _Layout | None] = {}


def _layout(cls: type) -> _Layout | None:
    """How to copy `cls` positionally: a reader of its fields in `__init__` order and each
    field's place; None when `replace` must do it."""
    names = [f.name for f in fields(cls)]
    frozen = cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
    if frozen or any(not f.init or f.kw_only for f in fields(cls)) or len(names) < 2:
        return None
    return attrgetter(*names), {name: i for i, name in enumerate(names)}


DIGEST_PREFIX = "sha256:"


LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
"""Where a client-side `kubectl apply` keeps the whole manifest it applied."""


def last_applied(meta: Any) -> dict[str, Any] | None:
    """The manifest an object's metadata says its last client-side `kubectl apply` wrote, parsed;
    None without one, or one that is no JSON object."""
    annotations = meta.get("annotations") if isinstance(meta, dict) else None
    written = annotations.get(LAST_APPLIED) if isinstance(annotations, dict) else None
    try:
        applied = json.loads(written) if isinstance(written, str) else None
    except ValueError:
        return None
    return applied if isinstance(applied, dict) else None


def value_digest(value: str) -> str:
    """What a redacted snapshot keeps of an annotation value of a pod or pod template
    (`kwhatif.live.redact`): enough to tell that a template changed (a Helm `checksum/config`,
    a `kubectl rollout restart`), not the value."""
    return DIGEST_PREFIX + hashlib.sha256(value.encode()).hexdigest()
