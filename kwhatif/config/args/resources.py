"""What NodeResourcesFit, NodeResourcesBalancedAllocation and VolumeBinding arguments share:
resource lists with weights and utilization shapes."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from kwhatif.api.field import child, index, invalid
from kwhatif.golang import GoText
from kwhatif.config.types import INT32, INT64, STRING, Struct
from kwhatif.plugins.node_resources.resource_allocation import DEFAULT_RESOURCES, ResourceSpec

RESOURCE_SPEC = Struct("ResourceSpec", "v1.ResourceSpec", {"name": STRING, "weight": INT64})
SHAPE_POINT = Struct("UtilizationShapePoint", "v1.UtilizationShapePoint", {"utilization": INT32, "score": INT32})


def default_resources() -> list[dict[str, Any]]:
    """The v1 default resource list (cpu and memory, weight 1), from the plugins' own default."""
    return [{"name": r.name, "weight": r.weight} for r in DEFAULT_RESOURCES]


def weights_to_one(resources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**r, "weight": r.get("weight") or 1} for r in resources]


def resource_specs(resources: Sequence[Mapping[str, Any]] | None) -> tuple[ResourceSpec, ...]:
    """A defaulted resource list as the plugins take it (an empty list: the default)."""
    return tuple(ResourceSpec(r["name"], r.get("weight") or 1) for r in resources or ()) or DEFAULT_RESOURCES


def validate_resources(resources: Sequence[Mapping[str, Any]], path: str) -> list[str]:
    errs = []
    for i, r in enumerate(resources):
        weight = r.get("weight", 0)
        if weight <= 0 or weight > 100:
            errs.append(invalid(child(index(path, i), "weight"), weight,
                                f"resource weight of {r.get('name', '')} not in valid range (0, 100]"))
    return errs


def go_shape(shape: Sequence[Mapping[str, Any]]) -> GoText:
    """`%#v` of an internal []config.UtilizationShapePoint."""
    points = ", ".join(f"config.UtilizationShapePoint{{Utilization:{p.get('utilization', 0)}, Score:{p.get('score', 0)}}}"
                       for p in shape)
    return GoText("[]config.UtilizationShapePoint{" + points + "}")
