"""Go's way of printing values and durations, which kube-scheduler's error texts carry: `%q`,
`%#v` of strings and string slices, `%v` of floats, `time.ParseDuration` and
`time.Duration.String`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

# -- Go value formatting --------------------------------------------------------------------


def go_quote(text: str) -> str:
    """Go's strconv.Quote (also `%q` and `%#v` of a string)."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch in "\a\b\f\n\r\t\v":
            out.append({"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}[ch])
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        elif not ch.isprintable():
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def not_supported(value: str, supported: Sequence[str]) -> str:
    """apimachinery field.NotSupported's text for a string value: `Unsupported value: "x":
    supported values: "a", "b"`."""
    return f"Unsupported value: {go_quote(value)}: supported values: " + ", ".join(map(go_quote, supported))


@dataclass(frozen=True)
class GoText:
    """A bad value already printed the way Go prints it (`%#v` of a struct, a Stringer...)."""

    text: str


def go_strings(values: Sequence[str] | None, element: str = "string") -> GoText:
    """`%#v` of a []string, or of a slice of a named string type (`element`, e.g.
    `core.ResourceQuotaScope`): nil and empty print differently."""
    if values is None:
        return GoText(f"[]{element}(nil)")
    return GoText(f"[]{element}{{" + ", ".join(go_quote(v) for v in values) + "}")


def go_float(value: float) -> str:
    """`%v` of a float64 (strconv 'g' with the shortest representation)."""
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" in text:
        mantissa, exp = text.split("e")
        sign = "-" if exp.startswith("-") else "+"
        text = f"{mantissa}e{sign}{abs(int(exp)):02d}"
    return text


def value_text(value: Any) -> str:
    """A bad value as field errors print it (`%#v`-like)."""
    if isinstance(value, GoText):
        return value.text
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_float(value)
    return go_quote(str(value))


# -- Go durations (time.ParseDuration / Duration.String) --------------------------------------

_UNITS = {"ns": 1, "us": 1_000, "µs": 1_000, "μs": 1_000, "ms": 1_000_000, "s": 1_000_000_000,
          "m": 60_000_000_000, "h": 3_600_000_000_000}
_DURATION_PART = re.compile(r"([0-9]*(?:\.[0-9]*)?)([^0-9.]*)")


class DurationError(ValueError):
    pass


def parse_duration(text: str) -> int:
    """time.ParseDuration, in nanoseconds; errors carry Go's text."""
    quoted = go_quote(text)
    rest, sign = text, 1
    if rest[:1] in "+-" and rest:
        sign = -1 if rest[0] == "-" else 1
        rest = rest[1:]
    if rest == "0":
        return 0
    if not rest:
        raise DurationError(f"time: invalid duration {quoted}")
    total = 0.0
    while rest:
        m = _DURATION_PART.match(rest)
        number, unit = (m.group(1), m.group(2)) if m else ("", "")
        if not number or number == ".":
            raise DurationError(f"time: invalid duration {quoted}")
        if not unit:
            raise DurationError(f"time: missing unit in duration {quoted}")
        if unit not in _UNITS:
            raise DurationError(f"time: unknown unit {go_quote(unit)} in duration {quoted}")
        total += float(number) * _UNITS[unit]
        rest = rest[len(number) + len(unit):]
    if total > 2**63 - 1:
        raise DurationError(f"time: invalid duration {quoted}")
    return sign * round(total)


def format_duration(ns: int) -> str:
    """time.Duration.String."""
    if ns == 0:
        return "0s"
    neg, u = ns < 0, abs(ns)
    if u < 1_000_000_000:
        for unit, size in (("ns", 1), ("µs", 1_000), ("ms", 1_000_000)):
            if u < size * 1000:
                text = _fraction(u, size) + unit
                break
    else:
        hours, rem = divmod(u, 3_600_000_000_000)
        minutes, rem = divmod(rem, 60_000_000_000)
        text = _fraction(rem, 1_000_000_000) + "s"
        if hours or minutes:
            text = f"{minutes}m" + text
        if hours:
            text = f"{hours}h" + text
    return ("-" if neg else "") + text


def _fraction(value: int, size: int) -> str:
    whole, frac = divmod(value, size)
    if not frac:
        return str(whole)
    digits = str(frac).rjust(len(str(size)) - 1, "0").rstrip("0")
    return f"{whole}.{digits}"

