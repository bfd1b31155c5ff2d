"""Quantities (reference §11): syntax, exact values, API-server rounding and integer conversion.

Every expectation is the reference's own number or a hand calculation written beside it. Where
§11.1 lists the three error texts without saying which input gets which, the expected text comes
from tracing apimachinery's `parseQuantityString`/`ParseQuantity` (the code §11 was written from):
  * the number part is `[+-]` then digits, optional `.` and digits; it may be empty (Go counts an
    empty numerator as 0, so `K` and `e` reach the suffix lookup);
  * the suffix is a run of `eEinumkKMGTP`, an optional sign, then digits; any other character
    there is "malformed" (the regular-expression text);
  * a well-formed suffix that is in neither table and is not `e`/`E` + integer is "unable to parse
    quantity's suffix".
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from kwhatif.api.quantity import (
    BAD_NUMBER,
    BAD_SUFFIX,
    MALFORMED,
    QuantityError,
    milli_value,
    parse_quantity,
    parse_resource_quantity,
    value,
)

INT64_MAX = 2**63 - 1
GI = 2**30

# The exact error texts of §11.1.
REGEX_TEXT = (
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)
SUFFIX_TEXT = "unable to parse quantity's suffix"
NUMBER_TEXT = "unable to parse numeric part of quantity"


def test_error_constants_are_the_apimachinery_texts():
    assert (MALFORMED, BAD_SUFFIX, BAD_NUMBER) == (REGEX_TEXT, SUFFIX_TEXT, NUMBER_TEXT)


# ---------------------------------------------------------------------------------------------
# §11.4: the conversion table. Inputs are ResourceList quantities, so they first go through the
# API-server rounding of §11.3 (parse_resource_quantity). None = "–" in the table (not a cpu
# quantity), so only Value is checked.
# ---------------------------------------------------------------------------------------------
TABLE_11_4 = [
    # (case, input, MilliValue, Value)
    ("100m is 100 millicores and Value 1 (0.1 rounded up)", "100m", 100, 1),
    ("0.1 is 100 millicores and Value 1", "0.1", 100, 1),
    ("1 is 1000 millicores", "1", 1000, 1),
    ("2.5 is 2500 millicores and Value 3 (ceil 2.5)", "2.5", 2500, 3),
    ("250u becomes 1m via API rounding, so 1 millicore and Value 1", "250u", 1, 1),
    ("1e3 is 1000 cores = 1000000 millicores", "1e3", 1_000_000, 1000),
    ("1k is 1000 = 1000000 millicores", "1k", 1_000_000, 1000),
    ("1Ki is 1024 bytes", "1Ki", None, 1024),
    ("64Mi is 64 x 2^20 = 67108864 bytes", "64Mi", None, 67_108_864),
    ("1.5Gi is 1.5 x 2^30 = 1610612736 bytes", "1.5Gi", None, 1_610_612_736),
    # 0.1Mi = 0.1 x 1048576 = 104857.6 bytes (already milli-precise), Value rounds up.
    ("0.1Mi is 104857.6 bytes, rounded up to 104858", "0.1Mi", None, 104_858),
    ("1G is 10^9 bytes", "1G", None, 1_000_000_000),
    ("128974848 is a plain byte count", "128974848", None, 128_974_848),
    ("129e6 is 129 x 10^6 bytes", "129e6", None, 129_000_000),
    ("129M is 129 x 10^6 bytes", "129M", None, 129_000_000),
    ("123Mi is 123 x 1048576 = 128974848 bytes", "123Mi", None, 128_974_848),
    ("memory 100m is 0.1 byte, which counts as 1 byte", "100m", None, 1),
]


@pytest.mark.parametrize(
    "text, millis, whole", [c[1:] for c in TABLE_11_4], ids=[c[0] for c in TABLE_11_4]
)
def test_conversion_table_of_section_11_4(text, millis, whole):
    q = parse_resource_quantity(text)
    if millis is not None:
        assert milli_value(q) == millis
    assert value(q) == whole


# ---------------------------------------------------------------------------------------------
# §11.1 syntax and §11.2 exact values (parse_quantity, before API rounding).
# ---------------------------------------------------------------------------------------------
VALID = [
    ("a leading dot is accepted: .5 is one half", ".5", Fraction(1, 2)),
    ("a trailing dot is accepted: 1. is one", "1.", Fraction(1)),
    ("a leading plus sign is accepted", "+1", Fraction(1)),
    ("a leading minus sign makes the value negative", "-1", Fraction(-1)),
    ("zero", "0", Fraction(0)),
    ("leading zeros are ignored", "007", Fraction(7)),
    ("E alone is the exa suffix, 10^18", "1E", Fraction(10**18)),
    ("E followed by digits is an exponent: 1E3 is 1000", "1E3", Fraction(1000)),
    ("e followed by digits is an exponent: 1e3 is 1000", "1e3", Fraction(1000)),
    ("a negative exponent: 5e-2 is 0.05", "5e-2", Fraction(5, 100)),
    ("an explicitly positive exponent: 2e+6 is 2000000", "2e+6", Fraction(2_000_000)),
    ("n is 10^-9", "3n", Fraction(3, 10**9)),
    ("u is 10^-6", "7u", Fraction(7, 10**6)),
    ("m is 10^-3", "250m", Fraction(1, 4)),
    ("k is 10^3", "2k", Fraction(2000)),
    ("M is 10^6", "3M", Fraction(3 * 10**6)),
    ("G is 10^9", "4G", Fraction(4 * 10**9)),
    ("T is 10^12", "5T", Fraction(5 * 10**12)),
    ("P is 10^15", "6P", Fraction(6 * 10**15)),
    ("Ki is 2^10", "3Ki", Fraction(3 * 2**10)),
    ("Mi is 2^20", "3Mi", Fraction(3 * 2**20)),
    ("Gi is 2^30", "3Gi", Fraction(3 * 2**30)),
    ("Ti is 2^40", "3Ti", Fraction(3 * 2**40)),
    ("Pi is 2^50", "3Pi", Fraction(3 * 2**50)),
    ("Ei is 2^60", "3Ei", Fraction(3 * 2**60)),
    ("a fraction with a binary suffix: 1.5Gi = 1610612736", "1.5Gi", Fraction(1_610_612_736)),
    ("a fraction and a trailing dot before a suffix: 1.G is 10^9", "1.G", Fraction(10**9)),
    # §11.2: precision beyond 10^-9 is rounded up, away from zero.
    ("0.1n is rounded up to 1n", "0.1n", Fraction(1, 10**9)),
    ("1.5n is rounded up to 2n", "1.5n", Fraction(2, 10**9)),
    ("1e-10 is rounded up to 1n", "1e-10", Fraction(1, 10**9)),
    ("-0.1n is rounded away from zero to -1n", "-0.1n", Fraction(-1, 10**9)),
    # §11.2: binary-SI values above 2^63-1 are capped; decimal ones are not.
    ("8Ei = 2^63 is capped at 2^63-1", "8Ei", Fraction(INT64_MAX)),
    ("-8Ei is capped at -(2^63-1)", "-8Ei", Fraction(-INT64_MAX)),
    ("10E = 10^19 is decimal and not capped", "10E", Fraction(10**19)),
]


@pytest.mark.parametrize("text, expected", [c[1:] for c in VALID], ids=[c[0] for c in VALID])
def test_valid_quantities_have_their_exact_value(text, expected):
    assert parse_quantity(text) == expected


INVALID = [
    # (case, input, error text); see the module docstring for how the text is chosen.
    ("the empty string is malformed", "", REGEX_TEXT),
    ("a capital K alone is an unknown suffix (empty number counts as 0)", "K", SUFFIX_TEXT),
    ("1K: capital K is not kilo, an unknown suffix", "1K", SUFFIX_TEXT),
    ("KB: B is not a suffix character, malformed", "KB", REGEX_TEXT),
    ("Kib: b is not a suffix character, malformed", "Kib", REGEX_TEXT),
    ("1g: g is not a suffix character, malformed", "1g", REGEX_TEXT),
    ("a bare e is an unknown suffix (e needs an integer after it)", "e", SUFFIX_TEXT),
    ("1e: e without digits is an unknown suffix", "1e", SUFFIX_TEXT),
    ("1Mii is made of suffix characters but is no suffix", "1Mii", SUFFIX_TEXT),
    ("a space before the suffix is malformed", "1 Gi", REGEX_TEXT),
    # The second "." is neither a digit nor a suffix character.
    ("two dots are malformed", "1.5.3", REGEX_TEXT),
    ("10Q: Q is not a suffix character, malformed", "10Q", REGEX_TEXT),
    ("a fractional exponent is malformed", "1e3.5", REGEX_TEXT),
    # kwhatif's own bound: Python will not read an int of 4,300 digits; no real amount has 1,000.
    ("more than 1,000 digits are refused, not a crash", "1" * 5000, REGEX_TEXT),
]


@pytest.mark.parametrize(
    "text, message", [c[1:] for c in INVALID], ids=[c[0] for c in INVALID]
)
def test_invalid_quantities_are_refused_with_apimachinerys_text(text, message):
    with pytest.raises(QuantityError) as err:
        parse_quantity(text)
    assert str(err.value) == message


def test_quantity_error_is_a_value_error():
    with pytest.raises(ValueError):
        parse_quantity("1g")


# ---------------------------------------------------------------------------------------------
# YAML numbers: `cpu: 2`, `cpu: 0.5` reach the parser as the number's decimal text.
# ---------------------------------------------------------------------------------------------
YAML_NUMBERS = [
    ("the YAML int 2 is 2", 2, Fraction(2)),
    ("the YAML int 0 is 0", 0, Fraction(0)),
    ("the YAML float 0.5 is one half", 0.5, Fraction(1, 2)),
    # The decimal text 0.1 is parsed, not the binary double 0.1000000000000000055...
    ("the YAML float 0.1 is exactly one tenth", 0.1, Fraction(1, 10)),
    ("the YAML float 1.5 is three halves", 1.5, Fraction(3, 2)),
]


@pytest.mark.parametrize(
    "number, expected", [c[1:] for c in YAML_NUMBERS], ids=[c[0] for c in YAML_NUMBERS]
)
def test_yaml_numbers_are_quantities(number, expected):
    assert parse_quantity(number) == expected
    assert parse_resource_quantity(number) == expected  # all already milli-precise


# ---------------------------------------------------------------------------------------------
# §11.3 API-server rounding: up to the next multiple of 0.001.
# ---------------------------------------------------------------------------------------------
API_ROUNDING = [
    ("cpu 250u becomes 1m", "250u", Fraction(1, 1000)),
    ("1n becomes 1m", "1n", Fraction(1, 1000)),
    ("1001u = 1.001m becomes 2m", "1001u", Fraction(2, 1000)),
    ("1.0001 becomes 1.001", "1.0001", Fraction(1001, 1000)),
    ("memory 0.5 stays 0.5", "0.5", Fraction(1, 2)),
    ("100m is already milli-precise", "100m", Fraction(1, 10)),
    ("0.1Mi = 104857.6 is already milli-precise", "0.1Mi", Fraction(1_048_576, 10)),
    ("zero stays zero", "0", Fraction(0)),
]


@pytest.mark.parametrize(
    "text, expected", [c[1:] for c in API_ROUNDING], ids=[c[0] for c in API_ROUNDING]
)
def test_api_server_rounds_resource_quantities_up_to_milli(text, expected):
    assert parse_resource_quantity(text) == expected


def test_250u_is_one_millicore_after_api_rounding():
    # 250u = 0.00025 -> next multiple of 0.001 is 0.001 = 1m.
    assert milli_value(parse_resource_quantity("250u")) == 1


# ---------------------------------------------------------------------------------------------
# Exact arithmetic and the conversion functions themselves.
# ---------------------------------------------------------------------------------------------
def test_summing_0_1_and_0_2_cpu_is_exactly_300m():
    # Exact decimals: 0.1 + 0.2 = 0.3 -> 300m. Floats would give 0.30000000000000004 -> 301m.
    total = parse_resource_quantity("0.1") + parse_resource_quantity("0.2")
    assert total == Fraction(3, 10)
    assert milli_value(total) == 300


def test_summing_half_bytes_converts_once():
    # 0.5 + 0.5 = 1 byte exactly; converting each first would give 1 + 1 = 2.
    total = parse_resource_quantity("0.5") + parse_resource_quantity("0.5")
    assert value(total) == 1


CONVERSIONS = [
    # (case, exact value, MilliValue, Value)
    ("an integer is exact", Fraction(3), 3000, 3),
    ("a millicore fraction rounds Value up", Fraction(1, 1000), 1, 1),
    ("below a millicore rounds MilliValue up", Fraction(1, 10**6), 1, 1),
    ("zero is zero", Fraction(0), 0, 0),
    ("negative values round away from zero", Fraction(-1, 10**4), -1, -1),
    ("-2.5 has Value -3", Fraction(-5, 2), -2500, -3),
]


@pytest.mark.parametrize(
    "q, millis, whole", [c[1:] for c in CONVERSIONS], ids=[c[0] for c in CONVERSIONS]
)
def test_milli_value_and_value_round_away_from_zero(q, millis, whole):
    assert (milli_value(q), value(q)) == (millis, whole)


# ---------------------------------------------------------------------------------------------
# Properties: the hand formula MilliValue = ceil(q x 1000), Value = ceil(q) over the suffix tables.
# ---------------------------------------------------------------------------------------------
SUFFIX_MULTIPLIERS = {
    "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 10**3), "": Fraction(1),
    "k": Fraction(10**3), "M": Fraction(10**6), "G": Fraction(10**9), "T": Fraction(10**12),
    "P": Fraction(10**15), "E": Fraction(10**18),
    "Ki": Fraction(2**10), "Mi": Fraction(2**20), "Gi": Fraction(2**30), "Ti": Fraction(2**40),
    "Pi": Fraction(2**50), "Ei": Fraction(2**60),
}


@given(n=st.integers(min_value=0, max_value=10**7), suffix=st.sampled_from(sorted(SUFFIX_MULTIPLIERS)))
def test_integer_with_suffix_follows_the_hand_formula(n, suffix):
    exact = n * SUFFIX_MULTIPLIERS[suffix]
    assume(exact * 1000 <= INT64_MAX)  # stay where MilliValue is an int64 and no cap applies
    q = parse_quantity(f"{n}{suffix}")
    assert q == exact
    assert milli_value(q) == math.ceil(exact * 1000)
    assert value(q) == math.ceil(exact)


@given(n=st.integers(min_value=0, max_value=10**7), exponent=st.integers(min_value=-9, max_value=9))
def test_integer_with_exponent_follows_the_hand_formula(n, exponent):
    exact = n * Fraction(10) ** exponent  # a multiple of 10^-9, so no §11.2 rounding
    q = parse_quantity(f"{n}e{exponent}")
    assert q == exact
    assert milli_value(q) == math.ceil(exact * 1000)
    assert value(q) == math.ceil(exact)


@given(
    whole=st.integers(min_value=0, max_value=10**6),
    digits=st.text(alphabet="0123456789", min_size=1, max_size=12),
)
def test_api_rounding_is_ceil_to_milli_and_keeps_the_integer_conversions(whole, digits):
    text = f"{whole}.{digits}"
    exact = Fraction(text)
    stored = parse_resource_quantity(text)
    # Round up to 10^-9 (§11.2), then up to 10^-3 (§11.3): together, up to 10^-3.
    assert stored == Fraction(math.ceil(exact * 1000), 1000)
    assert milli_value(stored) == math.ceil(exact * 1000)
    assert value(stored) == math.ceil(exact)


@pytest.mark.parametrize("text", [" 1", "1 ", "\t1\n"])
def test_a_manifests_quantity_is_trimmed_first_as_unmarshal_json_trims_it(text: str) -> None:
    """Quantity.UnmarshalJSON: ParseQuantity(strings.TrimSpace(...)) — the API server takes `cpu:
    " 1"` as 1 (ParseQuantity alone would refuse the space, as one before a suffix stays refused)."""
    assert parse_quantity(text) == 1
