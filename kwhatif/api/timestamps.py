"""RFC3339 timestamps as Kubernetes writes them (`2025-01-01T00:00:00Z`), compared as datetimes.

The one place times are parsed: `parse_time` reads the objects' timestamps leniently (a missing
or odd one is None, and the caller falls back), `parse_rfc3339` is strict, for a time a user types
(`--now`) or one derived from it, which must be refused rather than guessed."""

from __future__ import annotations

import re
from datetime import datetime

RFC3339_PATTERN = re.compile(r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt]([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?"
                             r"([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)")
"""An RFC3339 date-time with its zone, every field in its range, to be matched whole
(`fullmatch`): only a day 29 to 31 may still not exist in its month."""


def parse_time(text: str | None) -> datetime | None:
    """The timestamp as an aware datetime, or None when absent or not a timestamp. RFC 3339
    allows lower-case `t` and `z`; `--now` accepts them, so they must read the same here."""
    if not text:
        return None
    try:
        return datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
    except ValueError:
        return None


def is_rfc3339(text: str) -> bool:
    """Whether `text` is an RFC3339 date-time with its zone, on a day its month has (the pattern
    holds every field in range: only a day 29 to 31 needs the calendar — a big dump's reader
    asks this of every pod's times)."""
    return RFC3339_PATTERN.fullmatch(text) is not None and (text[8:10] < "29" or parse_time(text) is not None)


def parse_rfc3339(text: str) -> datetime:
    """An RFC3339 date-time with its zone (`Z`, `z` or `±hh:mm`) as an aware datetime;
    ValueError for anything else (a date alone, no zone, a calendar date that does not exist)."""
    if RFC3339_PATTERN.fullmatch(text) is None:
        raise ValueError(f"{text!r} is not an RFC3339 time")
    return datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
