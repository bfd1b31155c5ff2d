"""The Go types the strict decoder walks: scalars, structs with their JSON fields, lists, maps
and raw extensions, named as `reflect` names them in `json: cannot unmarshal` errors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping



@dataclass(frozen=True)
class Scalar:
    """A Go scalar: `kind` is int32/int64/float/string/bool/duration; `go` its Go type name."""

    kind: str
    go: str


@dataclass(frozen=True)
class Struct:
    """A Go struct with its JSON fields in declaration order (`name` as reflect.Type.Name())."""

    name: str
    go: str
    fields: Mapping[str, Any]


@dataclass(frozen=True)
class ListOf:
    item: Any

    @property
    def go(self) -> str:
        return "[]" + self.item.go


@dataclass(frozen=True)
class MapOf:
    value: Any

    @property
    def go(self) -> str:
        return "map[string]" + self.value.go


@dataclass(frozen=True)
class Raw:
    """runtime.RawExtension: any JSON, kept as is (plugin args, decoded later by plugin name)."""

    go: str = "runtime.RawExtension"


INT32, INT64 = Scalar("int32", "int32"), Scalar("int64", "int64")
STRING, BOOL = Scalar("string", "string"), Scalar("bool", "bool")
FLOAT32 = Scalar("float", "float32")
DURATION = Scalar("duration", "v1.Duration")  # metav1.Duration: null fails to parse ("")
OPTIONAL_DURATION = Scalar("duration", "*v1.Duration")  # *metav1.Duration: null is nil


def named(go: str) -> Scalar:
    """A named Go string type (`type ScoringStrategyType string`)."""
    return Scalar("string", go)


TYPE_META = {"apiVersion": STRING, "kind": STRING}
