"""Small builders for test objects, shared by every test package.

Quantities are given as manifest strings (`"250m"`, `"1Gi"`) or YAML numbers and go through
`parse_resource_quantity`, i.e. they are rounded up to milli precision as the API server stores
them (reference §11.3). Anything not covered by a named argument goes straight to the dataclass
through `**kw`, so a test can set any field without a new builder.
"""

from __future__ import annotations

from fractions import Fraction
from dataclasses import dataclass
from typing import Any, Mapping

from kwhatif.api.objects import Container, ContainerStatusResources, Node, Pod, PodCondition
from kwhatif.api.tolerations import Taint, Toleration
from kwhatif.api.quantity import parse_resource_quantity

Quantity = str | int | float | Fraction


def rl(quantities: Mapping[str, Quantity] | None = None, **named: Quantity) -> dict[str, Fraction]:
    """A ResourceList: `rl({"nvidia.com/gpu": 1}, cpu="500m")`. Fractions are kept as they are."""
    out: dict[str, Fraction] = {}
    for name, q in {**(quantities or {}), **named}.items():
        out[name] = q if isinstance(q, Fraction) else parse_resource_quantity(q)
    return out


def _requests(cpu: Quantity | None, memory: Quantity | None, requests: Mapping | None) -> dict:
    reqs = dict(requests or {})
    if cpu is not None:
        reqs["cpu"] = cpu
    if memory is not None:
        reqs["memory"] = memory
    return rl(reqs)


def make_container(
    name: str = "c",
    cpu: Quantity | None = None,
    memory: Quantity | None = None,
    requests: Mapping[str, Quantity] | None = None,
    limits: Mapping[str, Quantity] | None = None,
    **kw: object,
) -> Container:
    """A container requesting `cpu`/`memory` plus any other `requests`; absent means no key."""
    return Container(
        name=name, requests=_requests(cpu, memory, requests), limits=rl(limits), **kw
    )


def make_sidecar(name: str = "sidecar", **kw: object) -> Container:
    """An init container with restartPolicy Always (reference §4.2)."""
    return make_container(name, restart_policy="Always", **kw)


def make_pod(
    name: str,
    ns: str = "default",
    cpu: Quantity | None = None,
    memory: Quantity | None = None,
    labels: Mapping[str, str] | None = None,
    containers: tuple[Container, ...] | list[Container] | None = None,
    init_containers: tuple[Container, ...] | list[Container] = (),
    overhead: Mapping[str, Quantity] | None = None,
    pod_requests: Mapping[str, Quantity] | None = None,
    **kw: object,
) -> Pod:
    """A pod. Without `containers`, it gets one container "c" requesting `cpu`/`memory`.

    `overhead` and `pod_requests` (spec.resources.requests) take manifest quantities.
    """
    if containers is None:
        containers = (make_container("c", cpu=cpu, memory=memory),)
    elif cpu is not None or memory is not None:
        raise ValueError("give cpu/memory either to make_pod or to its containers, not both")
    uid = kw.pop("uid", f"uid-{ns}-{name}")
    return Pod(
        namespace=ns,
        name=name,
        uid=uid,
        labels=dict(labels or {}),
        containers=tuple(containers),
        init_containers=tuple(init_containers),
        overhead=rl(overhead) if overhead is not None else None,
        pod_requests=rl(pod_requests) if pod_requests is not None else None,
        **kw,
    )


def make_status(
    name: str,
    requests: Mapping[str, Quantity] | None = None,
    allocated: Mapping[str, Quantity] | None = None,
) -> ContainerStatusResources:
    """A container status entry; `requests=None` stands for a null `resources` field."""
    return ContainerStatusResources(
        name=name,
        requests=rl(requests) if requests is not None else None,
        allocated=rl(allocated) if allocated is not None else None,
    )


def resize_infeasible() -> PodCondition:
    """The condition that makes §4.7 leave spec requests out of the max."""
    return PodCondition(type="PodResizePending", status="True", reason="Infeasible")


def make_node(
    name: str,
    cpu: Quantity | None = "4",
    memory: Quantity | None = "8Gi",
    pods: Quantity | None = "110",
    labels: Mapping[str, str] | None = None,
    taints: tuple[Taint, ...] | list[Taint] = (),
    allocatable: Mapping[str, Quantity] | None = None,
    **kw: object,
) -> Node:
    """A node with allocatable cpu/memory/pods (None leaves a key out) plus `allocatable` extras."""
    alloc: dict[str, Quantity] = {}
    for key, q in (("cpu", cpu), ("memory", memory), ("pods", pods)):
        if q is not None:
            alloc[key] = q
    alloc.update(allocatable or {})
    return Node(name=name, labels=dict(labels or {}), taints=tuple(taints), allocatable=rl(alloc), **kw)


def make_taint(key: str, value: str = "", effect: str = "NoSchedule") -> Taint:
    return Taint(key=key, value=value, effect=effect)


def make_toleration(
    key: str = "", operator: str = "", value: str = "", effect: str = "", seconds: int | None = None
) -> Toleration:
    return Toleration(
        key=key, operator=operator, value=value, effect=effect, toleration_seconds=seconds
    )


@dataclass
class Handle:
    """What a plugin may reach (kwhatif.framework.interfaces.Handle), for tests that build plugins
    directly."""

    snapshot: Any = None
    framework: Any = None
    now: str = "2025-01-01T00:00:00Z"

