"""Per-node utilisation before and after a run, as plain data for the HTML heat map.

The plain data the commands produce (`render.results.simulation_data`) says where pods landed,
not how full the nodes are, so the page computes it here from the Simulation's snapshot, leaving
the JSON contract unchanged. After the run the snapshot holds every bound pod (the cluster's and
the run's, minus preemption victims); its journal records each placement (+1) and eviction (-1)
since it was built, so "before" is "after" with the journal undone: O(nodes + journal), never a
walk over all pods per node.

At 5,000 nodes one row a node would be a page nobody scrolls (and 60,000 cells), so the rows
are buckets: nodes sorted by name (a pool's nodes, named alike, stay together and before/after
share the same rows), cut into at most `MAX_ROWS` runs of equal length. A bucket's figure is its
requests over its allocatable (sum over sum: the free room the bucket has as a whole) and it
also keeps its fullest node, so one hot node in a cool bucket is still visible.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot

MAX_ROWS = 200
BASE_RESOURCES = ("cpu", "memory", "pods")


@dataclass
class Usage:
    """One node's (or bucket's) requested amounts, by resource name (`pods` counts pods)."""

    requested: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, info: NodeInfo) -> Usage:
        req = info.requested
        return cls({"cpu": req.milli_cpu, "memory": req.memory, "pods": len(info.pods), **req.scalars})

    def add(self, pod: PodInfo, sign: int) -> None:
        """Count (sign 1) or uncount (sign -1) one pod's requests, as NodeInfo does."""
        req = pod.requests
        for name, amount in (("cpu", req.milli_cpu), ("memory", req.memory), ("pods", 1), *req.scalars.items()):
            self.requested[name] = self.requested.get(name, 0) + sign * amount


def allocatable(info: NodeInfo) -> dict[str, int]:
    alloc = info.allocatable
    return {"cpu": alloc.milli_cpu, "memory": alloc.memory, "pods": info.allowed_pods, **alloc.scalars}


def resources(infos: list[NodeInfo]) -> list[str]:
    """cpu, memory, pods, then every extended resource some node offers or some pod requests, by name."""
    extended = {name for i in infos for name in (*i.allocatable.scalars, *i.requested.scalars)}
    return [*BASE_RESOURCES, *sorted(extended - set(BASE_RESOURCES))]


def usage_before(snapshot: Snapshot) -> list[Usage]:
    """Each node's usage as the snapshot was built (the bound pods of the input): the journal of
    the run's placements and evictions undone, last first."""
    before = [Usage.of(info) for info in snapshot.node_infos]
    for sign, pod, row in reversed(snapshot.journal):
        before[row].add(pod, -sign)
    return before


def utilisation_data(snapshot: Snapshot) -> dict[str, Any]:
    """The heat map's data: resources, and rows of nodes (one a node up to MAX_ROWS nodes, else
    buckets) with each resource's [requested, allocatable] before and after, and the fullest
    node's percentage of each."""
    infos = snapshot.node_infos
    names = resources(infos)
    before, after = usage_before(snapshot), [Usage.of(info) for info in infos]
    offered = [allocatable(info) for info in infos]
    order = sorted(range(len(infos)), key=lambda row: infos[row].name)
    size = max(1, math.ceil(len(order) / MAX_ROWS))
    rows = []
    for start in range(0, len(order), size):
        members = order[start:start + size]
        rows.append({
            "first": infos[members[0]].name, "last": infos[members[-1]].name, "nodes": len(members),
            "before": bucket_cells(names, [(before[r], offered[r]) for r in members]),
            "after": bucket_cells(names, [(after[r], offered[r]) for r in members]),
        })
    return {"resources": names, "nodes": len(infos), "nodes_per_row": size, "rows": rows}


def bucket_cells(names: list[str], members: list[tuple[Usage, dict[str, int]]]) -> dict[str, dict[str, Any]]:
    """Per resource: the bucket's summed requests and allocatable, and its fullest node's
    percentage (None when no node of the bucket offers the resource)."""
    cells: dict[str, dict[str, Any]] = {}
    for name in names:
        requested = sum(u.requested.get(name, 0) for u, _ in members)
        offered = sum(a.get(name, 0) for _, a in members)
        fullest = [percent(u.requested.get(name, 0), a[name]) for u, a in members if a.get(name, 0) > 0]
        cells[name] = {"requested": requested, "allocatable": offered,
                       "max_percent": max(fullest) if fullest else None}
    return cells


def percent(requested: int, offered: int) -> int:
    """requested / offered in whole percent, rounded half up (1 of 3 is 33, 1 of 8 is 13)."""
    return (200 * requested + offered) // (2 * offered)
