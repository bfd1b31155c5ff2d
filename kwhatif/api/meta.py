"""What objects of several kinds share: how they are named and how they are copied."""

from __future__ import annotations

import hashlib
import json
import re
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
    """A value's sha256, to compare values without keeping them (`kwhatif.api.settings`); what
    a snapshot redacted by kwhatif before 2026-11-27 kept of a pod's annotation values."""
    return DIGEST_PREFIX + hashlib.sha256(value.encode()).hexdigest()


_SEALED = re.compile(r"sha256:([0-9a-f]{16}):[0-9a-f]{64}")


def sealed_digest(digest: str, salt: str) -> str:
    """What a redacted snapshot keeps of a value whose `value_digest` is `digest`: a sha256
    salted with the snapshot's salt (`kwhatif.live.redact.cluster_salt`), which it names
    (`sha256:<salt>:<hex>`) — enough to tell that a template changed (a Helm `checksum/config`,
    a `kubectl rollout restart`, an env value), not the value, and no table made once for every
    snapshot finds a common one (a guessable value can still be guessed, one try at a time)."""
    return f"{DIGEST_PREFIX}{salt}:" + hashlib.sha256(f"{salt}:{digest}".encode()).hexdigest()


def salt_of(stored: str) -> str | None:
    """The salt a sealed digest names; None for anything else."""
    found = _SEALED.fullmatch(stored)
    return found.group(1) if found else None


def stands_for(stored: str | None, value: str) -> bool:
    """Whether a value a snapshot holds is `value`, or what a redacted snapshot keeps of it (its
    sealed digest, or the plain digest of an older kwhatif's)."""
    if stored is None:
        return False
    if stored in (value, value_digest(value)):
        return True
    salt = salt_of(stored)
    return salt is not None and stored == sealed_digest(value_digest(value), salt)
