"""What the API server checks of a CronJob's `spec.schedule` and `spec.timeZone` on create
(pkg/apis/batch/validation: validateScheduleFormat, validateTimeZone), with its texts: the
schedule is parsed by robfig/cron v3.0.1's `ParseStandard` (five fields or a descriptor), the
time zone looked up in the IANA database. kwhatif never runs the schedule (the Job is taken as
created at `--now`), but a CronJob the API server refuses must not pass a check."""

from __future__ import annotations

import re
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import NamedTuple

from kwhatif.golang import DurationError, go_quote, parse_duration


class Bounds(NamedTuple):
    low: int
    high: int
    names: dict[str, int]


_MONTHS = {m: i + 1 for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
                                           "nov", "dec"))}
_DAYS = {d: i for i, d in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}
# The five fields of ParseStandard, in order (cron spec.go: minutes, hours, dom, months, dow).
STANDARD_FIELDS = (Bounds(0, 59, {}), Bounds(0, 23, {}), Bounds(1, 31, {}), Bounds(1, 12, _MONTHS),
                   Bounds(0, 6, _DAYS))
DESCRIPTORS = frozenset({"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"})
GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"
"""What Go's strings.Fields splits on and TrimSpace trims (unicode.IsSpace); Python's
str.split also splits on \\x1c-\\x1f, which Go keeps inside a field."""
_SPACES = re.compile(f"[{re.escape(GO_SPACE)}]+")
_INT64_MAX = 2**63 - 1


class CronError(ValueError):
    """A schedule ParseStandard refuses; the text is cron's."""


def parse_standard(spec: str) -> None:
    """cron.ParseStandard's verdict (parser.go:Parser.Parse): raises CronError with its text."""
    if not spec:
        raise CronError("empty spec string")
    if spec.startswith(("TZ=", "CRON_TZ=")):
        space, eq = spec.find(" "), spec.find("=")
        if space < 0:  # cron slices spec[eq+1:-1] and panics; the TZ text (validate_schedule) still says why
            return
        name = spec[eq + 1:space]
        problem = location_problem(name)
        if problem is not None:
            raise CronError(f"provided bad location {name}: {problem}")
        spec = spec[space:].strip(GO_SPACE)
    if spec.startswith("@"):
        _descriptor(spec)
        return
    fields = [f for f in _SPACES.split(spec) if f]
    if len(fields) != len(STANDARD_FIELDS):
        raise CronError(f"expected exactly {len(STANDARD_FIELDS)} fields, found {len(fields)}: [{' '.join(fields)}]")
    for text, bounds in zip(fields, STANDARD_FIELDS):
        for expr in (part for part in text.split(",") if part):
            _range(expr, bounds)


def _descriptor(spec: str) -> None:
    if spec in DESCRIPTORS:
        return
    if spec.startswith("@every "):
        try:
            parse_duration(spec[len("@every "):])
        except DurationError as err:
            raise CronError(f"failed to parse duration {spec}: {err}") from None
        return
    raise CronError(f"unrecognized descriptor: {spec}")


def _range(expr: str, bounds: Bounds) -> None:
    """parser.go:getRange: `number | number "-" number [ "/" number ]`, `*` or `?`."""
    range_and_step = expr.split("/")
    low_and_high = range_and_step[0].split("-")
    if low_and_high[0] in ("*", "?"):
        start, end = bounds.low, bounds.high
    else:
        start = _int_or_name(low_and_high[0], bounds.names)
        if len(low_and_high) > 2:
            raise CronError(f"too many hyphens: {expr}")
        end = start if len(low_and_high) == 1 else _int_or_name(low_and_high[1], bounds.names)
    step = 1
    if len(range_and_step) > 2:
        raise CronError(f"too many slashes: {expr}")
    if len(range_and_step) == 2:
        step = _non_negative_int(range_and_step[1])
        if len(low_and_high) == 1:  # "N/step" means "N-max/step"
            end = bounds.high
    if start < bounds.low:
        raise CronError(f"beginning of range ({start}) below minimum ({bounds.low}): {expr}")
    if end > bounds.high:
        raise CronError(f"end of range ({end}) above maximum ({bounds.high}): {expr}")
    if start > end:
        raise CronError(f"beginning of range ({start}) beyond end of range ({end}): {expr}")
    if step == 0:
        raise CronError(f"step of range should be a positive number: {expr}")


def _int_or_name(expr: str, names: dict[str, int]) -> int:
    found = names.get(expr.lower())
    return found if found is not None else _non_negative_int(expr)


def _non_negative_int(expr: str) -> int:
    """parser.go:mustParseInt over strconv.Atoi (an optional sign, then ASCII digits)."""
    digits = expr[1:] if expr[:1] in ("+", "-") else expr
    if not digits or not (digits.isascii() and digits.isdigit()):
        raise CronError(f"failed to parse int from {expr}: strconv.Atoi: parsing {go_quote(expr)}: invalid syntax")
    number = -int(digits) if expr.startswith("-") else int(digits)
    if not -_INT64_MAX - 1 <= number <= _INT64_MAX:
        raise CronError(f"failed to parse int from {expr}: strconv.Atoi: parsing {go_quote(expr)}: value out of range")
    if number < 0:
        raise CronError(f"negative number ({number}) not allowed: {expr}")
    return number


_TZ_PART = re.compile(r"[A-Za-z.\-_0-9+]{1,14}")


def time_zone_problem(zone: str) -> str | None:
    """validateTimeZone's text for a set `spec.timeZone`, or None when the API server takes it."""
    if not zone:
        return "timeZone must be nil or non-empty string"
    if any(part in (".", "..") or part.startswith("-") or not _TZ_PART.fullmatch(part) for part in zone.split("/")):
        return f"unknown time zone {zone}"
    if zone.lower() == "local":
        return "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"
    return location_problem(zone)


def location_problem(name: str) -> str | None:
    """Go's time.LoadLocation error for `name`, or None: "" and "UTC" are UTC, "Local" the
    server's zone, anything else a file of the IANA database — the `tzdata` package's, so that
    the answer is the same on every machine (the API server embeds Go's copy)."""
    if name in ("", "UTC", "Local"):
        return None
    if ".." in name or name[0] in "/\\":
        return "time: invalid location name"
    entry: Traversable | None = files("tzdata").joinpath("zoneinfo")
    for part in name.split("/"):  # by listing: a file system that ignores case must not find "utc"
        entry = _child(entry, part)
    if entry is None or not entry.is_file():
        return f"unknown time zone {name}"
    with entry.open("rb") as data:
        return None if data.read(4) == b"TZif" else "malformed time zone information"


def _child(entry: Traversable | None, name: str) -> Traversable | None:
    if entry is None or not entry.is_dir():
        return None
    return next((e for e in entry.iterdir() if e.name == name), None)
