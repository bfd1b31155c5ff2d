"""ResourceQuota objects and the quantities they hold, printed as the API server prints them.

A quota message (`exceeded quota: compute, requested: requests.cpu=1, used: requests.cpu=1500m,
limited: requests.cpu=2`) prints each quantity with `resource.Quantity.String()`, whose form
depends on the *format* the quantity was parsed with (quantity.go:CanonicalizeBytes): `1536Mi`
stays binary, `1500m` decimal. So a quota amount keeps its format beside its exact value.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

from kwhatif.errors import Source

DECIMAL_SI = "DecimalSI"
BINARY_SI = "BinarySI"
DECIMAL_EXPONENT = "DecimalExponent"

_DECIMAL_SUFFIX = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
_BINARY_SUFFIX = {0: "", 1: "Ki", 2: "Mi", 3: "Gi", 4: "Ti", 5: "Pi", 6: "Ei"}
_BYTE_RESOURCES = ("memory", "ephemeral-storage", "storage")
_EXPONENT_FORM = re.compile(r"^[+-]?[0-9.]+[eE][+-]?[0-9]+$")

TERMINATING = "Terminating"
NOT_TERMINATING = "NotTerminating"
BEST_EFFORT = "BestEffort"
NOT_BEST_EFFORT = "NotBestEffort"
PRIORITY_CLASS = "PriorityClass"
CROSS_NAMESPACE_POD_AFFINITY = "CrossNamespacePodAffinity"
VOLUME_ATTRIBUTES_CLASS = "VolumeAttributesClass"
"""A claims' scope: no pod is in it."""

def quantity_format(text: object) -> str:
    """The format apimachinery records when parsing `text` (quantity.go:ParseQuantity): binary for
    Ki..Ei, an exponent for `e`/`E` suffixes, decimal otherwise (YAML numbers included); a
    string's surrounding whitespace is trimmed first, as parsing does."""
    raw = str(text).strip()
    if raw[-2:] in ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei"):
        return BINARY_SI
    return DECIMAL_EXPONENT if isinstance(text, str) and _EXPONENT_FORM.match(raw) else DECIMAL_SI


def _decimal_canonical(value: Fraction) -> tuple[int, int]:
    """(mantissa, exponent) with exponent a multiple of 3, as large as keeps the mantissa whole
    (quantity.go:int64Amount.AsCanonicalBytes: strip factors of 10, then step down to a multiple
    of 3). Values finer than 1n are rounded up to 1n first, as parsing does."""
    exponent = -9
    whole = math.ceil(value * 10**9)
    while whole and whole % 10 == 0:
        whole //= 10
        exponent += 1
    step_down = exponent % 3
    return whole * 10**step_down, exponent - step_down


def canonical(value: Fraction, fmt: str) -> str:
    """`resource.Quantity.String()` of `value` parsed in format `fmt`."""
    if value == 0:
        return "0"
    if fmt == BINARY_SI and abs(value) >= 1024 and value.denominator == 1:
        mantissa, power = int(value), 0
        while mantissa % 1024 == 0 and power < 6:
            mantissa //= 1024
            power += 1
        return f"{mantissa}{_BINARY_SUFFIX[power]}"
    mantissa, exponent = _decimal_canonical(value)
    if fmt == DECIMAL_EXPONENT or exponent not in _DECIMAL_SUFFIX:
        return f"{mantissa}e{exponent}" if exponent else str(mantissa)
    return f"{mantissa}{_DECIMAL_SUFFIX[exponent]}"


@dataclass(frozen=True, slots=True)
class Amount:
    """A quota quantity: its exact value and the format `String()` prints it in."""

    value: Fraction
    fmt: str = DECIMAL_SI

    def __str__(self) -> str:
        return canonical(self.value, self.fmt)

    def plus(self, other: Amount) -> Amount:
        """`Quantity.Add`: the sum keeps the receiver's format, unless the receiver is zero."""
        return Amount(self.value + other.value, self.fmt if self.value else other.fmt)


def pod_amount(resource: str, value: Fraction) -> Amount:
    """A pod's quantity as an Amount. Pods keep exact values, not the spelling they were written
    in, so the format is inferred: cpu and counts decimal; a byte amount in whichever format
    prints shorter (`1Gi`, `512M`, `1536Mi`), binary on a tie. Approximate for byte amounts
    written in the other format (`1024` would print as `1Ki`)."""
    bytes_like = resource.split("requests.", 1)[-1].split("limits.", 1)[-1]
    if bytes_like not in _BYTE_RESOURCES and not bytes_like.startswith("hugepages-"):
        return Amount(value)
    binary, decimal = canonical(value, BINARY_SI), canonical(value, DECIMAL_SI)
    return Amount(value, BINARY_SI if len(binary) <= len(decimal) else DECIMAL_SI)


def pretty(amounts: Mapping[str, Amount]) -> str:
    """`name=quantity` pairs in name order, comma-joined (resourcequota controller.go:prettyPrint)."""
    return ",".join(f"{name}={amounts[name]}" for name in sorted(amounts))


@dataclass(frozen=True, slots=True)
class ScopeRequirement:
    """A scopeSelector expression; a `spec.scopes` entry is one with operator Exists."""

    scope_name: str
    operator: str
    values: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ResourceQuota:
    """A ResourceQuota: `hard` from spec; `status_hard`/`status_used` as the object carries them
    (None when it has no status yet: the quota controller has not synced it)."""

    namespace: str
    name: str
    hard: Mapping[str, Amount]
    scopes: tuple[ScopeRequirement, ...] = ()
    status_hard: Mapping[str, Amount] | None = None
    status_used: Mapping[str, Amount] | None = None
    source: Source | None = None
