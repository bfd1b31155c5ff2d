"""Kubernetes resource quantities, parsed exactly as apimachinery does (quantity.go:ParseQuantity).

Quantities are held as exact `Fraction`s: the scheduler sums a pod's container quantities exactly
and converts the sum to an integer once (quantity.go:Quantity.MilliValue), so float arithmetic would change
answers at the boundaries (`0.1 + 0.2` cpu must be exactly 300m).
"""

from __future__ import annotations

import math
from functools import lru_cache
import re
from fractions import Fraction

_EXPONENT_RE = re.compile(r"^[eE]([-+]?[0-9]+)$")
_MAX_EXPONENT = 400  # beyond this the value is astronomically large or small either way

_DECIMAL_SUFFIXES = {
    "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "": Fraction(1),
    "k": Fraction(10**3), "M": Fraction(10**6), "G": Fraction(10**9), "T": Fraction(10**12),
    "P": Fraction(10**15), "E": Fraction(10**18),
}
_BINARY_SUFFIXES = {
    "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
}
_INT64_MAX = 2**63 - 1
_NANO = Fraction(1, 10**9)
_MILLI = Fraction(1, 1000)

MALFORMED = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
BAD_SUFFIX = "unable to parse quantity's suffix"
BAD_NUMBER = "unable to parse numeric part of quantity"


class QuantityError(ValueError):
    """A string that the API server would refuse as a quantity; the message is apimachinery's."""


def _suffix_multiplier(suffix: str) -> tuple[Fraction, bool]:
    """The multiplier a suffix stands for, and whether it is binary (binary values cap at int64)."""
    if suffix in _DECIMAL_SUFFIXES:
        return _DECIMAL_SUFFIXES[suffix], False
    if suffix in _BINARY_SUFFIXES:
        return Fraction(_BINARY_SUFFIXES[suffix]), True
    exponent = _EXPONENT_RE.match(suffix)
    if exponent is None:
        raise QuantityError(BAD_SUFFIX)
    power = int(exponent.group(1))
    if abs(power) > _MAX_EXPONENT:
        power = _MAX_EXPONENT if power > 0 else -_MAX_EXPONENT
    return Fraction(10) ** power, False


def _ceil_to(value: Fraction, step: Fraction) -> Fraction:
    """Round away from zero to a multiple of `step`, as apimachinery rounds lost precision."""
    units = value / step
    rounded = math.ceil(units) if value >= 0 else math.floor(units)
    return rounded * step


def _split(raw: str) -> tuple[str, str, str]:
    """(numerator digits, denominator digits, suffix) as apimachinery's parseQuantityString
    scans them: an empty number counts as 0 and the suffix is checked afterwards."""
    pos, end = 0, len(raw)
    if pos < end and raw[0] in "+-":
        pos += 1
    start = pos
    while pos < end and raw[pos].isdigit() and raw[pos].isascii():
        pos += 1
    num = raw[start:pos]
    denom = ""
    if pos < end and raw[pos] == ".":
        pos += 1
        start = pos
        while pos < end and raw[pos].isdigit() and raw[pos].isascii():
            pos += 1
        denom = raw[start:pos]
    suffix_start = pos
    while pos < end and raw[pos] in "eEinumkKMGTP":
        pos += 1
    if pos < end and raw[pos] in "+-":
        pos += 1
    while pos < end:
        if not (raw[pos].isdigit() and raw[pos].isascii()):
            raise QuantityError(MALFORMED)
        pos += 1
    return num, denom, raw[suffix_start:]


_MAX_DIGITS = 1000


def parse_quantity(text: object) -> Fraction:
    """The exact value of a quantity as the API server stores it (rounded up to 1e-9).

    YAML numbers (`cpu: 2`, `cpu: 0.5`) are accepted as kubectl accepts them, and a string's
    surrounding whitespace is dropped first, as Quantity.UnmarshalJSON trims it.
    """
    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        raise QuantityError(MALFORMED)
    if isinstance(text, float):
        if not math.isfinite(text):
            raise QuantityError(MALFORMED)
        text = repr(text)
    raw = str(text).strip() if isinstance(text, str) else str(text)
    if not raw:
        raise QuantityError(MALFORMED)
    num, denom, suffix = _split(raw)
    if len(num) + len(denom) > _MAX_DIGITS:  # Python refuses to read such an int; no amount is that long
        raise QuantityError(MALFORMED)
    multiplier, binary = _suffix_multiplier(suffix)
    magnitude = Fraction(int(num or "0")) + (Fraction(int(denom), 10 ** len(denom)) if denom else 0)
    value = magnitude * multiplier * (-1 if raw[0] == "-" else 1)
    if binary and abs(value) > _INT64_MAX:
        value = Fraction(_INT64_MAX if value > 0 else -_INT64_MAX)
    return _ceil_to(value, _NANO)


def parse_resource_quantity(text: object) -> Fraction:
    """A ResourceList quantity after API-server defaulting: rounded up to milli precision
    (quantity.go:Quantity.RoundUp).

    Dumps repeat the same few strings ("500m", "512Mi") hundreds of thousands of times, so
    results are memoized by their text (Fractions are immutable and safe to share)."""
    if isinstance(text, str):
        return _parse_resource_text(text)
    return _ceil_to(parse_quantity(text), _MILLI)


@lru_cache(maxsize=8192)
def _parse_resource_text(text: str) -> Fraction:
    return _ceil_to(parse_quantity(text), _MILLI)


def milli_value(q: Fraction) -> int:
    """`MilliValue`: ceil(q × 1000), away from zero for negatives."""
    scaled = q * 1000
    return math.ceil(scaled) if scaled >= 0 else math.floor(scaled)


def value(q: Fraction) -> int:
    """`Value`: ceil(q), away from zero for negatives."""
    return math.ceil(q) if q >= 0 else math.floor(q)


def format_amount(resource: str, amount: int, *, whole_cores: bool = False, exact: bool = True) -> str:
    """A resource amount in the scheduler's units, for people: cpu in millicores (`whole_cores`:
    whole cores as a bare number, `2` rather than `2000m`); bytes (memory, ephemeral-storage,
    hugepages-*) with the largest binary suffix that divides them exactly, or with `exact=False`
    rounded to Gi from 1Gi up and to Mi below (`1.50Gi`, `512Mi`); anything else as a count.

    The flags exist because each message has always worded amounts its own way (overcommit
    warnings: whole cores; explain's shortfalls: rounded bytes) and outputs must not change."""
    if resource == "cpu":
        return str(amount // 1000) if whole_cores and amount % 1000 == 0 else f"{amount}m"
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        if not exact:
            return f"{amount / 2**30:.2f}Gi" if amount >= 2**30 else f"{amount / 2**20:.0f}Mi"
        for suffix, size in (("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
            if amount and amount % size == 0:
                return f"{amount // size}{suffix}"
    return str(amount)
