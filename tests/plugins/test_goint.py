"""Go's integer division truncates toward zero (the Go spec, "Arithmetic operators": 7/-2 = -3,
-7/2 = -3), where Python's // floors (-4)."""

from __future__ import annotations

import numpy as np
import pytest

from kwhatif.plugins.goint import go_quo, go_quo_rows

CASES = [(7, 2, 3), (-7, 2, -3), (7, -2, -3), (-7, -2, 3), (0, -5, 0), (6, 3, 2), (-6, 3, -2)]


@pytest.mark.parametrize("a, b, expected", CASES)
def test_go_quo_truncates_toward_zero(a: int, b: int, expected: int) -> None:
    assert go_quo(a, b) == expected


def test_go_quo_rows_is_the_same_element_wise() -> None:
    a = np.array([a for a, _, _ in CASES], dtype=np.int64)
    b = np.array([b for _, b, _ in CASES], dtype=np.int64)
    assert go_quo_rows(a, b).tolist() == [e for _, _, e in CASES]
