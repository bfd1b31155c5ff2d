"""--headroom's text: RESOURCE=PERCENT% or a fraction, at most all of it; a percent written
without its sign (cpu=10) is a fraction of 10, which the error points out."""

from __future__ import annotations

from fractions import Fraction

import pytest

from kwhatif.check import parse_headroom
from kwhatif.errors import InputError


def test_percentages_and_fractions_are_read_alike() -> None:
    assert parse_headroom("cpu=10%,memory=0.15") == {"cpu": Fraction(1, 10), "memory": Fraction(15, 100)}


@pytest.mark.parametrize("text, said", [
    ("cpu=10", "'cpu=10': the fraction to keep free cannot exceed 100% (a fraction without %: 10% was meant?)"),
    ("cpu=150%", "'cpu=150%': the fraction to keep free cannot exceed 100%"),
    ("gpu=10%", "'gpu=10%' is not RESOURCE=PERCENT%"),
    # One resource twice: which one meant? (The last silently won.)
    ("cpu=20%,cpu=10%", "cpu is given twice ('cpu=20%,cpu=10%'): give each resource once"),
])
def test_a_headroom_that_is_no_fraction_of_a_resource_is_refused(text: str, said: str) -> None:
    with pytest.raises(InputError) as err:
        parse_headroom(text)
    assert str(err.value).startswith(f"--headroom: {said}")
    if text == "cpu=150%":
        assert str(err.value).endswith("100%")
