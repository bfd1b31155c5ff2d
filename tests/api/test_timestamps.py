"""RFC 3339 times: the lenient reader of objects' timestamps and the strict one for `--now`."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from kwhatif.api.timestamps import parse_rfc3339, parse_time

NEW_YEAR = datetime(2026, 1, 1, tzinfo=timezone.utc)


@pytest.mark.parametrize("text, expected", [
    pytest.param("2026-01-01T00:00:00Z", NEW_YEAR, id="Kubernetes' own form reads as UTC"),
    pytest.param("2026-01-01t00:00:00z", NEW_YEAR,
                 id="lower-case t and z, which RFC 3339 allows and --now accepts, read the same"),
    pytest.param("2026-01-01T01:00:00+01:00", NEW_YEAR, id="an offset is honoured"),
    pytest.param("2026-01-01T00:00:00.5Z", NEW_YEAR + timedelta(milliseconds=500), id="fractions are kept"),
    pytest.param("", None, id="an absent timestamp is None"),
    pytest.param(None, None, id="a null timestamp is None"),
    pytest.param("yesterday", None, id="something else is None, so the caller falls back"),
])
def test_parse_time(text: str | None, expected: datetime | None) -> None:
    assert parse_time(text) == expected


@pytest.mark.parametrize("text", [
    pytest.param("2026-01-01", id="a date alone has no time"),
    pytest.param("2026-01-01T00:00:00", id="a time without its zone is refused"),
    pytest.param("2026-02-30T00:00:00Z", id="a day that does not exist is refused"),
])
def test_parse_rfc3339_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        parse_rfc3339(text)


def test_parse_rfc3339_and_parse_time_agree_on_what_both_accept() -> None:
    for text in ("2026-01-01T00:00:00Z", "2026-01-01t00:00:00z", "2026-01-01T01:00:00+01:00"):
        assert parse_rfc3339(text) == parse_time(text) == NEW_YEAR
