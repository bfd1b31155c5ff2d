"""Resource pools as the allocator sees them from one node (structured/internal/stable/
pools_stable.go:GatherPools): the slices of each (driver, pool) at the newest generation, and
whether the pool is complete and valid. Where Go iterates a map kwhatif goes in (driver, pool)
order and a pool's slices by name, as the reference cases do."""

from __future__ import annotations

from dataclasses import dataclass

from kwhatif.api.dra import ResourceSlice


@dataclass
class Pool:
    """The slices of one (driver, pool) at its newest generation (GatherPools)."""

    driver: str
    name: str
    slices: list[ResourceSlice]
    incomplete: bool = False
    invalid_reason: str = ""


def gather_pools(slices: list[ResourceSlice]) -> list[Pool]:
    """Group by (driver, pool), keep only the newest generation; a pool is incomplete when it has
    fewer slices than `resourceSliceCount`, invalid when a device name repeats."""
    pools: dict[tuple[str, str], Pool] = {}
    for s in slices:
        pool = pools.get((s.driver, s.pool))
        if pool is None:
            pools[(s.driver, s.pool)] = Pool(s.driver, s.pool, [s])
        elif s.generation > pool.slices[0].generation:
            pool.slices = [s]
        elif s.generation == pool.slices[0].generation:
            pool.slices.append(s)
    for pool in pools.values():
        pool.slices.sort(key=lambda s: s.name)
        pool.incomplete = len(pool.slices) != pool.slices[0].slice_count
        seen: set[str] = set()
        for s in pool.slices:
            for d in s.devices:
                if d.name in seen and not pool.invalid_reason:
                    pool.invalid_reason = f"duplicate device name {d.name}"
                seen.add(d.name)
    return [pools[k] for k in sorted(pools)]
