"""A profile as the framework needs it: plugins per extension point, in execution order, with
score weights and plugin args; and the expansion of a MultiPoint list into extension points
(reference §1.3, §1.5)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kwhatif.framework.interfaces import EXTENSION_POINTS, ScorePlugin
from kwhatif.plugins.registry import DEFAULT_MULTI_POINT, DEFAULT_SCHEDULER_NAME, REGISTRY

PluginRef = tuple[str, int | None]  # (name, weight or None)


@dataclass
class ProfileConfig:
    """One expanded profile. `points` maps an extension point (`preFilter`, `score`, ...) to plugin
    names in execution order; plugins listed that kwhatif does not implement are kept in `missing`
    (the results say so rather than pretending)."""

    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    points: dict[str, list[str]] = field(default_factory=dict)
    weights: dict[str, int] = field(default_factory=dict)
    args: dict[str, dict[str, Any]] = field(default_factory=dict)
    percentage_of_nodes_to_score: int | None = None
    missing: list[str] = field(default_factory=list)


def implements(name: str, point: str) -> bool:
    cls = REGISTRY.get(name)
    return cls is not None and issubclass(cls, EXTENSION_POINTS[point])


def expand(multi_point: list[PluginRef], explicit: dict[str, list[PluginRef]] | None = None,
           disabled: dict[str, set[str]] | None = None) -> tuple[dict[str, list[str]], dict[str, int], list[str]]:
    """Each extension point gets, in order: plugins enabled both explicitly there and in
    MultiPoint (explicit order), then the other MultiPoint plugins implementing it, then the
    remaining explicit ones. Score weights: the explicit Score weight wins over MultiPoint's;
    0 or unset becomes 1."""
    explicit = explicit or {}
    disabled = disabled or {}
    points: dict[str, list[str]] = {}
    for point in EXTENSION_POINTS:
        enabled_here = [n for n, _ in explicit.get(point, [])]
        off = disabled.get(point, set())
        if "*" in off:
            points[point] = [n for n in enabled_here if n in REGISTRY]
            continue
        overrides = [n for n in enabled_here if any(n == m for m, _ in multi_point)]
        from_multi = [n for n, _ in multi_point
                      if implements(n, point) and n not in off and n not in enabled_here]
        rest = [n for n in enabled_here if n not in overrides]
        points[point] = [n for n in overrides + from_multi + rest if n in REGISTRY]
    weights: dict[str, int] = {}
    for name, weight in explicit.get("score", []) + multi_point:
        if name in REGISTRY and issubclass(REGISTRY[name], ScorePlugin) and name not in weights:
            weights[name] = weight or 1
    listed = {n for n, _ in multi_point} | {n for refs in explicit.values() for n, _ in refs}
    missing = sorted(n for n in listed if n not in REGISTRY)
    return points, weights, missing


def default_profile() -> ProfileConfig:
    """The v1.34.1 default profile (§1.2), expanded."""
    points, weights, missing = expand(list(DEFAULT_MULTI_POINT))
    return ProfileConfig(points=points, weights=weights, missing=missing)
