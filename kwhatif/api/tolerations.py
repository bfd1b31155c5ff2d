"""Taints and tolerations, and whether a pod's tolerations let it past a node's taints
(toleration.go:Toleration.ToleratesTaint)."""

from __future__ import annotations

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


def first_untolerated_taint(taints: tuple[Taint, ...], tolerations: tuple[Toleration, ...]) -> Taint | None:
    """The first NoSchedule/NoExecute taint no toleration tolerates (upstream's
    FindMatchingUntoleratedTaint with those two effects), or None."""
    for taint in taints:
        if taint.effect in ("NoSchedule", "NoExecute") and not tolerates(tolerations, taint):
            return taint
    return None
