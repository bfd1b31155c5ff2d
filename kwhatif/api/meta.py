"""What objects of several kinds share: how they are named and how they are copied."""

from __future__ import annotations

from dataclasses import Field, replace
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
        """A copy with some fields changed (admission, binding, nomination)."""
        return replace(self, **changes)
