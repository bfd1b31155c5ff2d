"""The DRA view of a snapshot (the scheduler's SharedDRAManager): device classes, resource
slices indexed by where they apply, the claims with their allocation and reservations, and the
devices already allocated. Reserve records a pod's allocation here; the index is attached to the
snapshot (`Snapshot.attach`), so what-if re-runs restoring a mark take allocations back too."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kwhatif.api.cluster import Cluster
from kwhatif.api.dra import (
    ConsumerRef, Device, DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice, released_claims,
)
from kwhatif.api.objects import Node, Pod
from kwhatif.plugins.dynamic_resources.pools import Pool, gather_pools
from kwhatif.api.cel import CelError, compile_selector
from kwhatif.plugins.dynamic_resources.selectors import device_matches
from kwhatif.snapshot.cache import for_snapshot
from kwhatif.snapshot.snapshot import Snapshot

DeviceID = tuple[str, str, str]
"""(driver, pool, device)."""


def allocated_devices(claims: dict[tuple[str, str], ResourceClaim]) -> dict[DeviceID, str]:
    """ListAllAllocatedDevices: every device of every allocation, except admin-access results
    (they never make a device unavailable), with the claim that holds it."""
    taken: dict[DeviceID, str] = {}
    for claim in claims.values():
        if claim.allocation is None:
            continue
        for result in claim.allocation.results:
            if not result.admin_access:
                taken[(result.driver, result.pool, result.device)] = claim.key
    return taken


@dataclass(frozen=True)
class DraState:
    generation: int
    claims: dict[tuple[str, str], ResourceClaim]


class DraIndex:
    """Lookups for the DynamicResources plugin; `generation` counts Reserve's changes."""

    def __init__(self, cluster: Cluster) -> None:
        self.classes: dict[str, DeviceClass] = dict(cluster.device_classes)
        self.claims: dict[tuple[str, str], ResourceClaim] = dict(cluster.resource_claims)
        self.templates: dict[tuple[str, str], ResourceClaimTemplate] = cluster.claim_templates
        slices = sorted(cluster.resource_slices.values(), key=lambda s: s.name)
        self.node_slices: dict[str, list[ResourceSlice]] = {}
        self.shared_slices: list[ResourceSlice] = []  # allNodes or nodeSelector slices
        for s in slices:
            if s.node_name is not None:
                self.node_slices.setdefault(s.node_name, []).append(s)
            else:
                self.shared_slices.append(s)
        self._allocated: dict[DeviceID, str] | None = None
        self._pools: dict[str, tuple[Node, list[Pool]]] = {}
        self._matches: dict[tuple[str, str, str, str, str], bool | CelError] = {}
        self.generation = 0

    @property
    def allocated(self) -> dict[DeviceID, str]:
        """The devices in use by allocated claims (rebuilt after a change)."""
        if self._allocated is None:
            self._allocated = allocated_devices(self.claims)
        return self._allocated

    def slices_for(self, node: Node) -> list[ResourceSlice]:
        """The slices whose devices a pod on `node` can use: its own, `allNodes` ones, and those
        whose node selector matches it (GatherPools)."""
        own = self.node_slices.get(node.name, [])
        shared = [s for s in self.shared_slices
                  if s.all_nodes or (s.node_selector is not None and s.node_selector.matches(node.labels, node.name))]
        return own + shared if shared else own

    def pools_for(self, node: Node) -> list[Pool]:
        """GatherPools for `node`, once per node object: slices never change during a run."""
        found = self._pools.get(node.name)
        if found is None or found[0] is not node:
            found = self._pools[node.name] = (node, gather_pools(self.slices_for(node)))
        return found[1]

    def selector_matches(self, expression: str, s: ResourceSlice, device: Device) -> bool:
        """A CEL selector's verdict on a device, computed once per (expression, device): slices
        never change during a run. Raises CelError for a compile or runtime error."""
        key = (expression, s.driver, s.pool, s.name, device.name)
        found = self._matches.get(key)
        if found is None:
            try:
                found = device_matches(compile_selector(expression), s.driver, device)
            except CelError as err:
                found = err
            self._matches[key] = found
        if isinstance(found, CelError):
            raise found
        return found

    # Reserve / PreBind ------------------------------------------------------------------------
    def commit(self, claim: ResourceClaim, pod_uid: str, pod_name: str) -> None:
        """The claim as PreBind writes it: allocated (if it was not), reserved for the pod."""
        reserved = claim.reserved_for
        if not any(r.is_pod(pod_uid, pod_name) for r in reserved):
            reserved = reserved + (ConsumerRef("pods", pod_name, pod_uid),)
        self.claims[(claim.namespace, claim.name)] = claim.evolve(reserved_for=reserved)
        self._changed()

    def create(self, claim: ResourceClaim) -> None:
        """A claim the resourceclaim controller creates from a template."""
        self.claims[(claim.namespace, claim.name)] = claim
        self._changed()

    def deallocate(self, claim: ResourceClaim) -> None:
        """PostFilter's deallocation: the claim loses its allocation and reservations."""
        self.claims[(claim.namespace, claim.name)] = claim.evolve(allocation=None, reserved_for=())
        self._changed()

    def release(self, gone: Sequence[Pod]) -> None:
        """Pods gone: the resourceclaim controller drops their reservations and deallocates the
        claims no pod reserves any more (`kwhatif.api.dra.released_claims`)."""
        changed = released_claims(self.claims, gone)
        if changed:
            self.claims.update(changed)
            self._changed()

    def _changed(self) -> None:
        self._allocated = None
        self.generation += 1

    # Snapshot marks (Snapshot.attach) ---------------------------------------------------------
    def save(self) -> object:
        return DraState(self.generation, dict(self.claims))

    def restore(self, state: object) -> None:
        assert isinstance(state, DraState)
        if state.generation == self.generation:
            return
        self.claims = dict(state.claims)
        self._allocated = None
        self.generation += 1


_INDEXES: dict[int, Any] = {}


def dra_of(snapshot: Snapshot) -> DraIndex:
    """The DRA view of this snapshot (built on first use by a pod with claims, dropped with it)."""
    return for_snapshot(_INDEXES, id(snapshot), snapshot, lambda: _attached(snapshot), drop_with_snapshot=True)


def _attached(snapshot: Snapshot) -> DraIndex:
    index = DraIndex(snapshot.cluster)
    snapshot.attach(index)
    return index
