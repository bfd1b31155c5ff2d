"""Typed access to decoded manifest fields, raising `InputError` that names the field path.

A big dump is not validated with jsonschema (too slow for 150,000 pods), so every read here checks
the type it expects: a wrong type becomes a one-line error, never a traceback.
"""

from __future__ import annotations

import builtins
import math
from fractions import Fraction
from typing import Any, Callable, Sequence, TypeVar

from kwhatif.api.field import aggregate
from kwhatif.api.quantity import QuantityError, milli_value, parse_quantity, parse_resource_quantity, value
from kwhatif.api.quota import Amount, quantity_format
from kwhatif.api.timestamps import is_rfc3339
from kwhatif.errors import InputError, Source
from kwhatif.load.refs import describe_value, object_ref

T = TypeVar("T")
_INT64_MAX = (1 << 63) - 1


class Fields:
    """Reads one object's fields; knows the object's name and source for error messages.

    The readers are named after the types they read, so below `def str` the class body's `str`
    is the method: annotations there spell the type `builtins.str`."""

    __slots__ = ("source", "ref")

    def __init__(self, source: Source | None, ref: str) -> None:
        self.source = source
        self.ref = ref

    def error(self, path: str, message: str) -> InputError:
        return InputError(message, self.source, self.ref, path)

    def refuse(self, problems: Sequence[builtins.str]) -> None:
        """Raise the API server's validation errors (each `path: text`, as `kwhatif.api.field`
        words them) when there are any: one as is, several aggregated (`[a, b]`), as
        `kubectl apply` shows them."""
        message = aggregate(problems)
        if message is not None:
            raise InputError(message, self.source, self.ref)

    def _typed(self, value: Any, path: str, kind: type | tuple[type, ...], label: str) -> Any:
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise self.error(path, f"expected {label}, got {describe_value(value)}")
        return value

    def map(self, parent: dict, key: str, path: str) -> dict:
        """A mapping field; missing or null reads as {}."""
        value = parent.get(key)
        return {} if value is None else self._typed(value, f"{path}.{key}" if path else key, dict, "an object")

    def opt_map(self, parent: dict, key: str, path: str) -> dict | None:
        """A mapping field where null and missing matter (e.g. selectors)."""
        value = parent.get(key)
        return None if value is None else self._typed(value, _join(path, key), dict, "an object")

    def list(self, parent: dict, key: str, path: str) -> list:
        value = parent.get(key)
        return [] if value is None else self._typed(value, _join(path, key), list, "a list")

    def str(self, parent: dict, key: str, path: str, default: str = "") -> str:
        value = parent.get(key)
        return default if value is None else self._typed(value, _join(path, key), str, "a string")

    def opt_str(self, parent: dict, key: builtins.str, path: builtins.str) -> builtins.str | None:
        value = parent.get(key)
        return None if value is None else self._typed(value, _join(path, key), str, "a string")

    def time(self, parent: dict, key: builtins.str, path: builtins.str) -> builtins.str | None:
        """A metav1.Time: the API server decodes it with time.Parse(time.RFC3339), so a time
        without its zone, or no time at all, is refused — kwhatif orders the queue, ages pods
        and picks preemption candidates by it. An empty string reads as no time."""
        text = self.opt_str(parent, key, path)
        if text and not is_rfc3339(text):
            raise self.error(_join(path, key), f'Invalid value: "{text}": not an RFC 3339 time with its zone '
                                               "(e.g. 2025-09-01T06:00:00Z)")
        return text

    def int(self, parent: dict, key: builtins.str, path: builtins.str, default: int | None = None,
            bits: int = 32) -> int | None:
        """An integer field; `bits` is the Go type's width (int32 unless the API says int64):
        the API server cannot decode a number beyond it, and kwhatif's arrays hold 64 bits."""
        value = parent.get(key)
        if value is None:
            return default
        if type(value) is float and math.isfinite(value) and value.is_integer():
            value = int(value)  # kubectl sends `80.0` as 80 (YAML to JSON through float64), which decodes as int32
        number = self._typed(value, _join(path, key), int, "an integer")
        if not -(1 << (bits - 1)) <= number < 1 << (bits - 1):
            digits = str(abs(number))
            shown = str(number) if len(digits) <= 30 else f"a {len(digits)}-digit number"
            raise self.error(_join(path, key), f"{shown} is out of range of an int{bits}")
        return number

    def bool(self, parent: dict, key: builtins.str, path: builtins.str) -> bool:
        value = parent.get(key)
        return False if value is None else self._typed(value, _join(path, key), bool, "a boolean")

    def str_map(self, parent: dict, key: builtins.str, path: builtins.str) -> dict[builtins.str, builtins.str]:
        """A map of strings (labels, annotations, nodeSelector)."""
        raw = self.map(parent, key, path)
        for k, v in raw.items():
            if not isinstance(v, str):
                raise self.error(f"{_join(path, key)}.{k}", f"expected a string, got {describe_value(v)}")
        return raw

    def str_list(self, parent: dict, key: builtins.str, path: builtins.str) -> tuple[builtins.str, ...]:
        items = self.list(parent, key, path)
        for i, v in enumerate(items):
            self._typed(v, f"{_join(path, key)}[{i}]", str, "a string")
        return tuple(items)

    def resources(self, parent: dict, key: builtins.str, path: builtins.str) -> dict[builtins.str, Fraction]:
        """A ResourceList, each quantity parsed and rounded up to milli precision (quantity.go:Quantity.RoundUp).
        A null quantity is zero, as Quantity.UnmarshalJSON reads `null` — a stated zero, which
        the scheduler's defaults for unset requests leave alone."""
        raw = self.map(parent, key, path)
        out: dict[str, Fraction] = {}
        for name, q in raw.items():
            if q is None:
                out[name] = Fraction(0)
                continue
            try:
                out[name] = parse_resource_quantity(q)
            except QuantityError as err:
                raise self.error(f"{_join(path, key)}.{name}", f"invalid quantity {q!r}: {err}") from None
            if out[name] < 0:
                raise self.error(f"{_join(path, key)}.{name}", f"must be greater than or equal to 0, got {q!r}")
            if (milli_value(out[name]) if name == "cpu" else value(out[name])) > _INT64_MAX:
                unit = "millicores" if name == "cpu" else "units"
                raise self.error(f"{_join(path, key)}.{name}", f"{q!r} is too large: kube-scheduler counts it in "
                                 f"64-bit {unit} (at most {_INT64_MAX:,}), where it would overflow")
        return out

    def amounts(self, parent: dict, key: builtins.str, path: builtins.str) -> dict[builtins.str, Amount] | None:
        """A ResourceList whose quantities are printed back (quota and LimitRange texts): each
        with the format it was parsed in; None when absent. A null quantity is zero, as in
        `resources`."""
        if parent.get(key) is None:
            return None
        out: dict[builtins.str, Amount] = {}
        for name, q in self.map(parent, key, path).items():
            if q is None:
                out[name] = Amount(Fraction(0), quantity_format(0))
                continue
            try:
                out[name] = Amount(parse_quantity(q), quantity_format(q))
            except QuantityError as err:
                raise self.error(f"{_join(path, key)}.{name}", f"invalid quantity {q!r}: {err}") from None
        return out

    def items(self, parent: dict, key: builtins.str, path: builtins.str,
              decode: Callable[[dict, builtins.str], T]) -> tuple[T, ...]:
        """Decode each mapping element of a list field with `decode(element, element_path)`."""
        out = []
        for i, element in enumerate(self.list(parent, key, path)):
            element_path = f"{_join(path, key)}[{i}]"
            out.append(decode(self._typed(element, element_path, dict, "an object"), element_path))
        return tuple(out)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def object_fields(obj: dict, source: Source | None) -> tuple[Fields, dict, str, str]:
    """A reader for one object, with its metadata, namespace (`default` when unset) and name
    (required): how every decoder starts. Its creation and deletion times must be times
    (`Fields.time`): the API server cannot decode the object otherwise."""
    f = Fields(source, object_ref(obj))
    meta = f.map(obj, "metadata", "")
    name = f.str(meta, "name", "metadata")
    if not name:
        raise f.error("metadata.name", "name or generateName is required")
    f.time(meta, "creationTimestamp", "metadata")
    f.time(meta, "deletionTimestamp", "metadata")
    namespace = f.str(meta, "namespace", "metadata") or "default"
    return f, meta, namespace, name
