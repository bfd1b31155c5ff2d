"""DefaultNormalizeScore, shared by several score plugins (normalize_score.go:DefaultNormalizeScore)."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import numpy as np

from kwhatif.framework.interfaces import MAX_NODE_SCORE


def default_normalize_score(scores: dict[str, int], reverse: bool) -> None:
    """Scale to [0, 100] by the maximum (integer division); `reverse` flips it.
    With max 0: unchanged, or all 100 when reversed."""
    top = max(scores.values(), default=0)
    if top == 0:
        if reverse:
            for name in scores:
                scores[name] = MAX_NODE_SCORE
        return
    for name, raw in scores.items():
        value = MAX_NODE_SCORE * raw // top
        scores[name] = MAX_NODE_SCORE - value if reverse else value


def default_normalize_rows(scores: np.ndarray, reverse: bool) -> np.ndarray:
    """`default_normalize_score` over an array (the same integer arithmetic)."""
    top = int(scores.max()) if scores.size else 0
    if top == 0:
        return np.full_like(scores, MAX_NODE_SCORE) if reverse else scores
    value = MAX_NODE_SCORE * scores // top
    return MAX_NODE_SCORE - value if reverse else value


def round_half_away(x: np.ndarray) -> np.ndarray:
    """Go `math.Round`: halves go away from zero (`floor(x + 0.5)` is off for
    0.49999999999999994, and Python's `round` goes to even)."""
    if np.size(x) == 0 or np.min(x) >= 0:  # scores are rarely negative: the same, in fewer passes
        f = np.floor(x)
        return (f + (x - f >= 0.5)).astype(np.int64)
    magnitude = np.abs(x)
    f = np.floor(magnitude)
    return (np.sign(x) * (f + (magnitude - f >= 0.5))).astype(np.int64)


def go_round(x: float) -> int:
    """Go `math.Round` for one value, for the per-node paths: the float's exact decimal value
    rounded half away from zero (an implementation independent of `round_half_away`)."""
    return int(Decimal(x).to_integral_value(rounding=ROUND_HALF_UP))
