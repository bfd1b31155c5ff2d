"""RFC3339 timestamps as Kubernetes writes them (`2025-01-01T00:00:00Z`), compared as datetimes.

The one place times are parsed: `parse_time` reads the objects' timestamps leniently (a missing
or odd one is None, and the caller falls back), `parse_rfc3339` is strict, for a time a user types
(`--now`) or one derived from it, which must be refused rather than guessed."""

from __future__ import annotations

import re
from datetime import datetime

_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


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
    """Whether `text` is an RFC3339 date-time with its zone (a calendar date that does not exist
    included: `parse_rfc3339` says which)."""
    return _RFC3339.match(text) is not None and parse_time(text) is not None


def parse_rfc3339(text: str) -> datetime:
    """An RFC3339 date-time with its zone (`Z`, `z` or `±hh:mm`) as an aware datetime;
    ValueError for anything else (a date alone, no zone, a calendar date that does not exist)."""
    if _RFC3339.match(text) is None:
        raise ValueError(f"{text!r} is not an RFC3339 time")
    return datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
