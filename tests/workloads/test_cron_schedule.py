"""The API server's checks of a CronJob's schedule and time zone (pkg/apis/batch/validation:
validateScheduleFormat, validateTimeZone), table-driven as robfig/cron v3's parser_test.go
(TestRange, TestParseScheduleErrors) and batch's validation_test.go are. Each expected text is
written by hand from cron v3.0.1's parser.go (vendored by kubernetes at
vendor/github.com/robfig/cron/v3/parser.go) and Go's strconv / time packages: the field bounds
are cron's spec.go (minute 0-59, hour 0-23, day of month 1-31, month 1-12 or JAN-DEC, day of
week 0-6 or SUN-SAT)."""

from __future__ import annotations

import pytest

from kwhatif.workloads.cron_schedule import CronError, parse_standard, time_zone_problem

ACCEPTED = [
    pytest.param("0 0 * * *", id="every midnight"),
    pytest.param("*/15 9-17 * * MON-FRI", id="steps, ranges and day names"),
    pytest.param("0 0 1,15 jan,JUL ?", id="lists, month names in any case, ? for any"),
    pytest.param("5/10 * * * *", id="N/step means N-max/step"),
    pytest.param("0 0 * * 0-6", id="day of week 0 to 6"),
    pytest.param("  0   0 * *\t* ", id="runs of blanks between and around fields"),
    pytest.param("0 0 ,1,, * *", id="empty list entries are skipped (strings.FieldsFunc)"),
    pytest.param("*-5 * * * *", id="a star ignores what follows its hyphen (getRange looks at the first part only)"),
    pytest.param("+5 * * * *", id="strconv.Atoi takes a plus sign"),
    pytest.param("@hourly", id="descriptor"),
    pytest.param("@every 1h30m", id="@every with a Go duration"),
    pytest.param("TZ=Europe/Paris 0 0 * * *", id="a TZ= prefix parses (the TZ rule refuses it separately)"),
]


@pytest.mark.parametrize("schedule", ACCEPTED)
def test_schedules_cron_accepts(schedule: str) -> None:
    parse_standard(schedule)


REFUSED = [
    ("", "empty spec string"),
    ("61 * * * * *", "expected exactly 5 fields, found 6: [61 * * * * *]"),
    ("* * * *", "expected exactly 5 fields, found 4: [* * * *]"),
    ("60 * * * *", "end of range (60) above maximum (59): 60"),
    ("* 24 * * *", "end of range (24) above maximum (23): 24"),
    ("* * 0 * *", "beginning of range (0) below minimum (1): 0"),
    ("* * * 13 *", "end of range (13) above maximum (12): 13"),
    ("* * * * 7", "end of range (7) above maximum (6): 7"),
    ("5-4 * * * *", "beginning of range (5) beyond end of range (4): 5-4"),
    ("*/0 * * * *", "step of range should be a positive number: */0"),
    ("1-2-3 * * * *", "too many hyphens: 1-2-3"),
    ("*/2/3 * * * *", "too many slashes: */2/3"),
    ("x * * * *", 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'),
    ("-5 * * * *", 'failed to parse int from : strconv.Atoi: parsing "": invalid syntax'),
    ("*/-5 * * * *", "negative number (-5) not allowed: -5"),
    ("99999999999999999999 * * * *", "failed to parse int from 99999999999999999999: strconv.Atoi: parsing "
                                     '"99999999999999999999": value out of range'),
    ("* * * JANUARY *", 'failed to parse int from JANUARY: strconv.Atoi: parsing "JANUARY": invalid syntax'),
    ("* * * * 5\x1c", 'failed to parse int from 5\x1c: strconv.Atoi: parsing "5\\x1c": invalid syntax'),
    ("@every 5", 'failed to parse duration @every 5: time: missing unit in duration "5"'),
    ("@fortnightly", "unrecognized descriptor: @fortnightly"),
    ("TZ=Mars/Olympus 0 0 * * *", "provided bad location Mars/Olympus: unknown time zone Mars/Olympus"),
]


@pytest.mark.parametrize("schedule, text", REFUSED, ids=[t for _, t in REFUSED])
def test_schedules_cron_refuses_with_its_text(schedule: str, text: str) -> None:
    with pytest.raises(CronError) as refused:
        parse_standard(schedule)
    assert str(refused.value) == text


ZONES = [
    ("Europe/Paris", None),
    ("America/Argentina/Buenos_Aires", None),
    ("UTC", None),
    ("Etc/GMT+5", None),
    ("", "timeZone must be nil or non-empty string"),
    ("Local", "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"),
    ("local", "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"),
    ("Mars/Olympus", "unknown time zone Mars/Olympus"),
    ("europe/paris", "unknown time zone europe/paris"),  # names are case-sensitive files
    ("America/../Europe/Paris", "unknown time zone America/../Europe/Paris"),
    ("Europe/Paris_Is_Too_Long_A_Name", "unknown time zone Europe/Paris_Is_Too_Long_A_Name"),  # parts of 1-14
    ("-Europe/Paris", "unknown time zone -Europe/Paris"),
    ("Europe/a..b", "time: invalid location name"),  # past the name rules, Go's LoadLocation refuses ".."
]


@pytest.mark.parametrize("zone, text", ZONES, ids=[z or "empty" for z, _ in ZONES])
def test_time_zones_as_the_api_server_judges_them(zone: str, text: str | None) -> None:
    assert time_zone_problem(zone) == text
