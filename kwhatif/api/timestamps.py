"""RFC3339 timestamps as Kubernetes writes them (`2025-01-01T00:00:00Z`), compared as datetimes."""

from __future__ import annotations

from datetime import datetime


def parse_time(text: str | None) -> datetime | None:
    """The timestamp as an aware datetime, or None when absent or not a timestamp."""
    if not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
