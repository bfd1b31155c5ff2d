"""Go's integer division, which kube-scheduler's score formulas use: it truncates toward zero
where Python's `//` floors, so the two differ whenever exactly one operand is negative (a falling
segment of a RequestedToCapacityRatio shape, ImageLocality's thresholds for a pod without
containers). Every score formula whose operands can be negative divides through here."""

from __future__ import annotations

import numpy as np


def go_quo(a: int, b: int) -> int:
    """`a / b` on Go integers."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def go_quo_rows(a: np.ndarray, b: np.ndarray | int) -> np.ndarray:
    """`go_quo` element-wise."""
    return np.sign(a) * np.sign(b) * (np.abs(a) // np.abs(b))
