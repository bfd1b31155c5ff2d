"""Taints and tolerations, and whether a pod's tolerations let it past a node's taints
(toleration.go:Toleration.ToleratesTaint)."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    value: str
    effect: str


@dataclass(frozen=True, slots=True)
class Toleration:
    key: str = ""
    operator: str = ""
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None

    def tolerates(self, taint: Taint) -> bool:
        """toleration.go:Toleration.ToleratesTaint: effect, key and (for Equal) value must agree; Exists
        ignores value."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator == "Exists":
            return True
        if self.operator in ("", "Equal"):
            return self.value == taint.value
        return False


def tolerates(tolerations: tuple[Toleration, ...], taint: Taint) -> bool:
    """Whether any toleration tolerates the taint."""
    for tol in tolerations:
        if tol.tolerates(taint):
            return True
    return False


def first_untolerated_taint(taints: tuple[Taint, ...], tolerations: tuple[Toleration, ...],
                            effects: tuple[str, ...] = ("NoSchedule", "NoExecute")) -> Taint | None:
    """The first taint of `effects` (the scheduler's NoSchedule and NoExecute; a kubelet's
    admission and a running daemon pod, NoExecute alone) no toleration tolerates (upstream's
    FindMatchingUntoleratedTaint with that filter), or None."""
    for taint in taints:
        if taint.effect in effects and not tolerates(tolerations, taint):
            return taint
    return None


def untolerated_taint_reason(taint: Taint) -> str:
    """TaintToleration's rejection reason for the taint (a kubelet's admission says it alike here)."""
    return f"node(s) had untolerated taint {{{taint.key}: {taint.value}}}"


_TAINT_REASON = re.compile(r"node\(s\) had untolerated taint \{([^:{}]+): ([^{}]*)\}")
"""`untolerated_taint_reason`'s text: neither a taint key nor a value holds `:`, `{` or `}`."""


def taint_of_reason(reason: str) -> tuple[str, str] | None:
    """The (key, value) an untolerated-taint reason names; None for any other text."""
    found = _TAINT_REASON.fullmatch(reason)
    return (found.group(1), found.group(2)) if found else None
