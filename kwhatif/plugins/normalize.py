"""DefaultNormalizeScore, shared by several score plugins (§6.1)."""

from __future__ import annotations

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
