"""The scheduler volume binder (`volumebinding/binder.go`) and the PV matching it relies on
(`component-helpers/storage/volume`: FindMatchingVolume, CheckNodeAffinity, CheckAccessModes,
CheckVolumeModeMismatches).

Per pod (PreFilter): the claims are split into bound claims, unbound WaitForFirstConsumer claims
("delay binding") and unbound immediate claims, and the candidate PVs of each delayed claim's class
are listed. Per node (Filter): bound PVs must accept the node; each delayed claim needs either a
matching available PV (the smallest that fits) or a StorageClass that can provision on the node.

A bound in-tree PV (AWS EBS, GCE PD, Azure Disk, Cinder, Portworx) whose plugin the node's
CSINode lists as migrated is checked with the node affinity of its CSI translation
(tryTranslatePVToCSI, see `translation.py`). A claim to provision whose CSIDriver sets
`storageCapacity: true` needs a CSIStorageCapacity of its StorageClass that reaches the node (its
`nodeTopology` selects the node's labels) with `maximumVolumeSize` (else `capacity`) at least the
claim's request, else `node(s) did not have enough free storage` (hasEnoughCapacity). As in
kube-scheduler, the volumes it decides to provision do not reduce a capacity: only the objects read
from the input count.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from kwhatif.api.affinity import NodeSelector
from kwhatif.api.objects import Node
from kwhatif.api.quantity import value
from kwhatif.api.selectors import Labels
from kwhatif.api.storage import CSINode, CSIStorageCapacity, PersistentVolume, PersistentVolumeClaim, StorageClass
from kwhatif.plugins.volume_binding.storage import (
    ANN_SELECTED_NODE,
    NOT_SUPPORTED_PROVISIONER,
    StorageIndex,
    claim_class,
    is_fully_bound,
    volume_class,
)
from kwhatif.plugins.volume_binding.translation import TranslationError, csi_node_affinity, is_migrated_on_node, pv_plugin

ERR_REASON_NODE_CONFLICT = "node(s) didn't match PersistentVolume's node affinity"
ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
ERR_REASON_PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"

FILESYSTEM = "Filesystem"


class BinderError(Exception):
    """A failure that is not a rejection (framework.AsStatus): the attempt ends in an error."""


@dataclass
class PodVolumeClaims:
    """GetPodVolumeClaims: the pod's claims by binding state, and the PVs of each class used by
    an unbound delay-binding claim."""

    bound: list[PersistentVolumeClaim] = field(default_factory=list)
    delay: list[PersistentVolumeClaim] = field(default_factory=list)
    immediate: list[PersistentVolumeClaim] = field(default_factory=list)
    volumes_by_class: dict[str, list[PersistentVolume]] = field(default_factory=dict)
    # Per-pod precomputation for Filter: delayed claims already being provisioned for a node
    # (selected-node annotation), the others by increasing requested size (stable) and, for each,
    # the PVs passing the node-independent checks.
    selected: list[tuple[PersistentVolumeClaim, str]] = field(default_factory=list)
    to_match: list[PersistentVolumeClaim] = field(default_factory=list)
    candidates: dict[str, list[PVCandidate]] = field(default_factory=dict)
    # The CSI node affinity of each bound in-tree PV, translated once per pod (or why it cannot be).
    translated: dict[str, NodeSelector | None | TranslationError] = field(default_factory=dict)


@dataclass
class PodVolumeDecisions:
    """FindPodVolumes' result for one node: static bindings (claim, PV) and claims to provision."""

    static_bindings: list[tuple[PersistentVolumeClaim, PersistentVolume]] = field(default_factory=list)
    dynamic_provisions: list[PersistentVolumeClaim] = field(default_factory=list)


def is_delay_binding(pvc: PersistentVolumeClaim, classes: Mapping[str, StorageClass]) -> bool:
    """IsDelayBindingMode: the claim's class exists and is WaitForFirstConsumer (no class, or a
    class that does not exist, means immediate binding)."""
    name = claim_class(pvc)
    if not name:
        return False
    sc = classes.get(name)
    return sc is not None and sc.volume_binding_mode == "WaitForFirstConsumer"


def pod_volume_claims(claims: list[PersistentVolumeClaim], storage: StorageIndex) -> PodVolumeClaims:
    """Split the pod's claims (in volume order); a pre-bound claim (volumeName set, binding not
    completed) counts as an unbound immediate claim."""
    out = PodVolumeClaims()
    for pvc in claims:
        if is_fully_bound(pvc):
            out.bound.append(pvc)
        elif is_delay_binding(pvc, storage.classes) and not pvc.volume_name:
            out.delay.append(pvc)
        else:
            out.immediate.append(pvc)
    for pvc in out.delay:
        name = claim_class(pvc)
        out.volumes_by_class[name] = storage.pvs_of_class(name)
        selected = pvc.annotations.get(ANN_SELECTED_NODE)
        if selected is not None:
            out.selected.append((pvc, selected))
        else:
            out.to_match.append(pvc)
            out.candidates[pvc.key] = matching_candidates(pvc, storage.claimable_pvs(name, pvc.namespace, pvc.name))
    out.to_match.sort(key=lambda c: _storage(c.requested_storage))
    return out


# Matching helpers ---------------------------------------------------------------------------


def node_affinity_matches(pv: PersistentVolume, node: Node) -> bool:
    """CheckNodeAffinity: no required affinity accepts every node. The node is seen through its
    labels only (matchFields on metadata.name never match), as the helper builds it."""
    return pv.node_affinity is None or pv.node_affinity.matches(node.labels, "")


_ZERO = Fraction(0)


def _storage(q: Fraction | None) -> Fraction:
    return q if q is not None else _ZERO


def volume_mode_mismatch(pvc: PersistentVolumeClaim, pv: PersistentVolume) -> bool:
    """CheckVolumeModeMismatches: an unset mode is Filesystem on both sides."""
    return (pvc.volume_mode or FILESYSTEM) != (pv.volume_mode or FILESYSTEM)


def access_modes_satisfied(pvc: PersistentVolumeClaim, pv: PersistentVolume) -> bool:
    """CheckAccessModes: the PV offers every mode the claim asks for."""
    offered = set(pv.access_modes)
    return all(mode in offered for mode in pvc.access_modes)


def is_volume_bound_to_claim(pv: PersistentVolume, pvc: PersistentVolumeClaim) -> bool:
    ref = pv.claim_ref
    if ref is None or ref.name != pvc.name or ref.namespace != pvc.namespace:
        return False
    return not ref.uid or ref.uid == pvc.uid


@dataclass(frozen=True, slots=True)
class PVCandidate:
    """A PV that passes FindMatchingVolume's node-independent checks for one claim."""

    pv: PersistentVolume
    bound_to_claim: bool
    size: Fraction


def matching_candidates(pvc: PersistentVolumeClaim, volumes: list[PersistentVolume]) -> list[PVCandidate]:
    """FindMatchingVolume's checks that do not depend on the node, done once per pod: a PV
    pre-bound to the claim needs enough capacity, the same volume mode and attributes class and no
    deletion; any other PV must also be unclaimed, Available, match the claim's selector, be of the
    claim's class and offer its access modes (VolumeAttributesClass is on in v1.34)."""
    requested = _storage(pvc.requested_storage)
    requested_class = claim_class(pvc)
    claim_vac = pvc.volume_attributes_class_name or ""
    out = []
    for pv in volumes:
        bound_to_claim = is_volume_bound_to_claim(pv, pvc)
        if pv.claim_ref is not None and not bound_to_claim:
            continue
        size = _storage(pv.capacity)
        if size < requested or volume_mode_mismatch(pvc, pv):
            continue
        if claim_vac != (pv.volume_attributes_class_name or "") or pv.deletion_timestamp is not None:
            continue
        if not bound_to_claim:
            if pv.phase != "Available":
                continue
            if pvc.selector is not None and not pvc.selector.matches(pv.labels):
                continue
            if volume_class(pv) != requested_class or not access_modes_satisfied(pvc, pv):
                continue
        out.append(PVCandidate(pv, bound_to_claim, size))
    return out


def controller_match(pvc: PersistentVolumeClaim, volumes: list[PersistentVolume]) -> PersistentVolume | None:
    """FindMatchingVolume on the PV controller's path (no node: node affinity is not checked) for
    an immediate claim: the PV pre-bound to it, else the smallest match, the first of equal sizes."""
    candidates = matching_candidates(pvc, volumes)
    prebound = next((c.pv for c in candidates if c.bound_to_claim), None)
    if prebound is not None or not candidates:
        return prebound
    return min(candidates, key=lambda c: c.size).pv


def find_matching_volume(candidates: list[PVCandidate], node: Node, excluded: set[str]) -> PersistentVolume | None:
    """FindMatchingVolume on the scheduler path (node given, delay binding) over the claim's
    candidates, in list order: the first PV pre-bound to the claim decides (it matches when its
    node affinity accepts the node, else nothing matches); otherwise the smallest candidate whose
    node affinity accepts the node, the first of equal sizes (name order here)."""
    smallest: PVCandidate | None = None
    for c in candidates:
        if c.pv.name in excluded:
            continue
        affinity_ok = node_affinity_matches(c.pv, node)
        if c.bound_to_claim:
            return c.pv if affinity_ok else None
        if affinity_ok and (smallest is None or smallest.size > c.size):
            smallest = c
    return smallest.pv if smallest is not None else None


def topology_matches(sc: StorageClass, labels: Labels) -> bool:
    """MatchTopologySelectorTerms: no terms match every node; an empty term matches nothing; a
    term matches when every `key In values` requirement holds."""
    if not sc.allowed_topologies:
        return True
    for term in sc.allowed_topologies:
        if not term:
            continue
        if all(req.values and labels.get(req.key) in req.values for req in term):
            return True
    return False


# FindPodVolumes -----------------------------------------------------------------------------


def bound_pv_affinity(pv: PersistentVolume, csi_node: CSINode | None, claims: PodVolumeClaims
                      ) -> NodeSelector | None:
    """tryTranslatePVToCSI's node affinity: the CSI translation's when the PV's in-tree plugin is
    migrated on the node, else the PV's own; raises BinderError when the translation fails."""
    plugin = pv_plugin(pv)
    if plugin is None or not is_migrated_on_node(plugin, csi_node):
        return pv.node_affinity
    if pv.name not in claims.translated:
        try:
            claims.translated[pv.name] = csi_node_affinity(pv)
        except TranslationError as err:
            claims.translated[pv.name] = err
    translated = claims.translated[pv.name]
    if isinstance(translated, TranslationError):
        raise BinderError(f"could not translate pv: {translated}")
    return translated


def check_bound_claims(claims: PodVolumeClaims, node: Node, storage: StorageIndex) -> tuple[bool, bool]:
    """(bound volumes satisfied, bound PVs found): stops at the first missing PV or the first PV
    whose node affinity (translated to CSI when migrated on the node) rejects the node."""
    csi_node = storage.csi_nodes.get(node.name)
    for pvc in claims.bound:
        pv = storage.pv(pvc.volume_name)
        if pv is None:
            return True, False
        affinity = bound_pv_affinity(pv, csi_node, claims)
        if affinity is not None and not affinity.matches(node.labels, ""):
            return False, True
    return True, True


def find_matching_volumes(claims: list[PersistentVolumeClaim], candidates: dict[str, list[PVCandidate]],
                          node: Node) -> tuple[bool, list[tuple[PersistentVolumeClaim, PersistentVolume]],
                                                list[PersistentVolumeClaim]]:
    """Claims (given by increasing requested size, stable) each take the smallest fitting PV not
    chosen yet; claims without a match are returned for provisioning."""
    chosen: set[str] = set()
    bindings: list[tuple[PersistentVolumeClaim, PersistentVolume]] = []
    unmatched: list[PersistentVolumeClaim] = []
    for pvc in claims:
        pv = find_matching_volume(candidates.get(pvc.key, []), node, chosen)
        if pv is None:
            unmatched.append(pvc)
            continue
        chosen.add(pv.name)
        bindings.append((pvc, pv))
    return not unmatched, bindings, unmatched


def capacity_sufficient(capacity: CSIStorageCapacity, size: int) -> bool:
    """capacitySufficient: `maximumVolumeSize` when set (more precise), else `capacity`; neither
    set is not enough. Both sides are whole bytes (Quantity.Value rounds up)."""
    limit = capacity.maximum_volume_size if capacity.maximum_volume_size is not None else capacity.capacity
    return limit is not None and value(limit) >= size


def node_has_access(capacity: CSIStorageCapacity, node: Node) -> bool:
    """nodeHasAccess: a capacity without `nodeTopology` reaches no node; otherwise its selector
    must match the node's labels."""
    return capacity.node_topology is not None and capacity.node_topology.matches(node.labels)


def has_enough_capacity(provisioner: str, pvc: PersistentVolumeClaim, sc: StorageClass, node: Node,
                        storage: StorageIndex) -> bool:
    """hasEnoughCapacity: only a claim with a storage request, of a CSIDriver (named like the
    provisioner) with `storageCapacity: true`, is checked; then some CSIStorageCapacity of the
    claim's StorageClass must reach the node with room for the request."""
    if pvc.requested_storage is None:
        return True
    driver = storage.csi_drivers.get(provisioner)
    if driver is None or not driver.storage_capacity:
        return True
    size = value(pvc.requested_storage)
    return any(capacity_sufficient(c, size) and node_has_access(c, node)
               for c in storage.capacities_by_class.get(sc.name, ()))


def check_volume_provisions(claims: list[PersistentVolumeClaim], node: Node, storage: StorageIndex
                            ) -> tuple[bool, bool, list[PersistentVolumeClaim]]:
    """(provisioning possible, enough storage, claims to provision): the class must have a real
    provisioner, its allowedTopologies must accept the node and, for drivers that publish it,
    some CSIStorageCapacity must have room (the first claim that fails a check decides)."""
    out = []
    for pvc in claims:
        name = claim_class(pvc)
        if not name:
            raise BinderError(f'no class for claim "{pvc.key}"')
        sc = storage.classes.get(name)
        if sc is None:
            raise BinderError(f'failed to find storage class "{name}"')
        if not sc.provisioner or sc.provisioner == NOT_SUPPORTED_PROVISIONER:
            return False, True, []
        if not topology_matches(sc, node.labels):
            return False, True, []
        if not has_enough_capacity(sc.provisioner, pvc, sc, node, storage):
            return True, False, []
        out.append(pvc)
    return True, True, out


def find_pod_volumes(claims: PodVolumeClaims, node: Node, storage: StorageIndex
                     ) -> tuple[PodVolumeDecisions, list[str]]:
    """FindPodVolumes: the decisions for this node and the conflict reasons, in the order
    node affinity, bind conflict, not enough space, PV not found."""
    decisions = PodVolumeDecisions()
    bound_ok, pvs_found, unbound_ok, space_ok = True, True, True, True
    if claims.bound:
        bound_ok, pvs_found = check_bound_claims(claims, node, storage)
    if claims.delay:
        unbound_ok, space_ok = _decide_delayed(claims, node, storage, decisions)
    reasons = []
    if not bound_ok:
        reasons.append(ERR_REASON_NODE_CONFLICT)
    if not unbound_ok:
        reasons.append(ERR_REASON_BIND_CONFLICT)
    if not space_ok:
        reasons.append(ERR_REASON_NOT_ENOUGH_SPACE)
    if not pvs_found:
        reasons.append(ERR_REASON_PV_NOT_EXIST)
    return decisions, reasons


def _decide_delayed(claims: PodVolumeClaims, node: Node, storage: StorageIndex,
                    decisions: PodVolumeDecisions) -> tuple[bool, bool]:
    """Claims being provisioned for another node fail at once; the others are matched to PVs,
    and what is left must be provisionable on this node."""
    for _, selected in claims.selected:
        if selected != node.name:
            return False, True
    to_provision = [pvc for pvc, _ in claims.selected]
    unbound_ok, space_ok = True, True
    if claims.to_match:
        unbound_ok, decisions.static_bindings, unmatched = find_matching_volumes(
            claims.to_match, claims.candidates, node)
        to_provision.extend(unmatched)
    if to_provision:
        unbound_ok, space_ok, decisions.dynamic_provisions = check_volume_provisions(to_provision, node, storage)
    return unbound_ok, space_ok
