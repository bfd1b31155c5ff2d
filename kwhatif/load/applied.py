"""What `kubectl apply` of a manifest leaves of an object the cluster has: the manifest's spec,
and what the server and the controllers own kept from the object that runs.

Workload files (`check`, `place`) are manifests to apply. Rendered charts carry the app's
PersistentVolumeClaim, PodDisruptionBudget or Node without status, uid or the fields a controller
fills in; taken as they are, a Bound claim would turn unbound (its pods then fail
VolumeBinding), a PDB would lose its count of the pods that run and a Node would hold nothing: a CI gate that
fails for what the pull request never changed. The API server never lets apply write status
(it is a subresource) and keeps the fields a manifest does not name; so does this, except
where a manifest states a status kwhatif reads: a Node's `status.allocatable`, a claim's or a
volume's `status.phase`, a PDB's `status.disruptionsAllowed` — a what-if someone wrote on
purpose.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, TypeVar

from kwhatif.api.dra import ResourceClaim
from kwhatif.api.objects import Namespace, Node, PodDisruptionBudget
from kwhatif.api.selectors import LabelSelector
from kwhatif.api.storage import PersistentVolume, PersistentVolumeClaim

T = TypeVar("T")


def applied(old: T, new: T) -> T:
    """`new` applied over `old` (same kind, namespace and name)."""
    keep = _KEEPERS.get(type(new))
    return new if keep is None else keep(old, new)


def _node(old: Node, new: Node) -> Node:
    """A Node's status (allocatable, images) is the kubelet's; its labels are merged (the
    kubelet's and the cloud's hostname, zone, os... stay beside the manifest's) and its taints
    and cordon stay unless the manifest names them (`Node.written`: `unschedulable: false` or
    `taints: []` uncordons or clears, as apply does)."""
    if new.allocatable:
        return new
    return replace(new, labels={**old.labels, **new.labels},
                   taints=new.taints if "taints" in new.written else old.taints,
                   unschedulable=new.unschedulable if "unschedulable" in new.written else old.unschedulable,
                   allocatable=old.allocatable, images=old.images)


def _claim(old: PersistentVolumeClaim, new: PersistentVolumeClaim) -> PersistentVolumeClaim:
    """The binder's `spec.volumeName` and bind annotations, the class admission defaulted, and
    the claim's identity stay: the volume's claimRef names that uid."""
    if new.phase:
        return new
    return new.evolve(uid=new.uid or old.uid, creation_timestamp=new.creation_timestamp or old.creation_timestamp,
                      annotations={**old.annotations, **new.annotations}, volume_name=new.volume_name or old.volume_name,
                      storage_class_name=old.storage_class_name if new.storage_class_name is None
                      else new.storage_class_name,
                      phase=old.phase)


def _volume(old: PersistentVolume, new: PersistentVolume) -> PersistentVolume:
    """The binder's `spec.claimRef` and annotations stay with the volume's phase."""
    if new.phase:
        return new
    return new.evolve(creation_timestamp=new.creation_timestamp or old.creation_timestamp,
                      annotations={**old.annotations, **new.annotations}, claim_ref=new.claim_ref or old.claim_ref,
                      phase=old.phase)


def _budget(old: PodDisruptionBudget, new: PodDisruptionBudget) -> PodDisruptionBudget:
    """What a PDB allows is the disruption controller's count of the pods that run: kept while
    the spec it counted for stays. A changed spec (another selector, minAvailable or
    maxUnavailable) is counted again by the controller, once the budget joins the cluster
    (`kwhatif.load.disruption.count_budgets`), unless the manifest states a count."""
    same_spec = (_canonical(new.selector), new.min_available, new.max_unavailable) == \
        (_canonical(old.selector), old.min_available, old.max_unavailable)
    if new.counted or not same_spec:
        return new
    return replace(new, disruptions_allowed=old.disruptions_allowed, disrupted_pods=old.disrupted_pods,
                   counted=old.counted, surplus=old.surplus, locked=old.locked)


def _canonical(selector: LabelSelector | None) -> list[tuple[str, str, tuple[str, ...]]] | None:
    """A selector's requirements in one order (the API server keeps them as written)."""
    if selector is None:
        return None
    return sorted((r.key, r.operator, tuple(sorted(r.values))) for r in selector.requirements)


def _namespace(old: Namespace, new: Namespace) -> Namespace:
    """A namespace being deleted stays so: applying its manifest again does not stop that."""
    return replace(new, terminating=old.terminating or new.terminating)


def _resource_claim(old: ResourceClaim, new: ResourceClaim) -> ResourceClaim:
    """A claim's allocation and reservations are the scheduler's status; its spec cannot change."""
    if new.allocation is not None or new.reserved_for:
        return new
    return new.evolve(uid=new.uid or old.uid, allocation=old.allocation, reserved_for=old.reserved_for,
                      deleting=old.deleting)


_KEEPERS: dict[type, Callable[[Any, Any], Any]] = {
    Node: _node,
    Namespace: _namespace,
    PersistentVolumeClaim: _claim,
    PersistentVolume: _volume,
    PodDisruptionBudget: _budget,
    ResourceClaim: _resource_claim,
}
