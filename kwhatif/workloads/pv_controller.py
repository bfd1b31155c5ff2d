"""The PV controller's part for the claims a run creates (pkg/controller/volume/persistentvolume/
pv_controller.go:syncUnboundClaim): a claim of an Immediate class is bound before any pod needs
it — to its pre-bound volume, to the smallest Available PersistentVolume that matches it
(`FindMatchingVolume` without a node), or to a volume its class's provisioner creates at once.

Without this, a workload that brings its claim (a Deployment's PVC, a StatefulSet's
volumeClaimTemplates, a generic ephemeral volume) on an Immediate class — Longhorn's, Rook
Ceph's, an NFS provisioner's default — would stay `pod has unbound immediate
PersistentVolumeClaims` for good, where the cluster binds it within seconds and retries the
pod: a CI gate failing falsely. The claims of the snapshot are left as they are: a claim still
unbound there is the cluster's state, which the scheduler reports.

Simplified (kwhatif): a provisioned volume's topology is the driver's choice, which kwhatif
cannot know; it takes the class's `allowedTopologies` (none: any node) as the volume's node
affinity (docs/fidelity.md). Where provisioning fails in a cluster (no class, the class is
`kubernetes.io/no-provisioner`, a class that does not exist), the claim stays unbound, as
there."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kwhatif.api.affinity import NodeSelector, NodeSelectorTerm
from kwhatif.api.cluster import Cluster
from kwhatif.api.selectors import Requirement
from kwhatif.api.storage import ClaimRef, PersistentVolume, PersistentVolumeClaim, StorageClass
from kwhatif.plugins.volume_binding.binder import controller_match, is_delay_binding
from kwhatif.plugins.volume_binding.storage import (
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    NOT_SUPPORTED_PROVISIONER,
    claim_class,
    default_class,
    volume_class,
    with_default_class,
)
from kwhatif.workloads.common import deterministic_uid

ANN_PROVISIONED_BY = "pv.kubernetes.io/provisioned-by"


def add_claims(cluster: Cluster, claims: Iterable[PersistentVolumeClaim]) -> None:
    """Create the claims a controller makes (unless one of that name is there: the controller
    leaves it), then let the PV controller bind the new ones."""
    new = []
    for claim in claims:
        if (claim.namespace, claim.name) not in cluster.pvcs:
            cluster.pvcs[(claim.namespace, claim.name)] = claim
            new.append((claim.namespace, claim.name))
    bind_immediate_claims(cluster, new)


def bind_immediate_claims(cluster: Cluster, keys: Iterable[tuple[str, str]]) -> None:
    """syncUnboundClaim for each new claim, in creation order: a volume one claim takes is no
    longer Available to the next."""
    default = default_class(cluster.storage_classes)
    for key in keys:
        claim = with_default_class(cluster.pvcs[key], default)  # DefaultStorageClass admission
        cluster.pvcs[key] = claim
        if is_delay_binding(claim, cluster.storage_classes) and not claim.volume_name:
            continue  # WaitForFirstConsumer: the scheduler's VolumeBinding decides
        volume = _matching_volume(cluster, claim) or _provisioned_volume(cluster, claim)
        if volume is not None:
            _bind(cluster, claim, volume)


def _matching_volume(cluster: Cluster, claim: PersistentVolumeClaim) -> PersistentVolume | None:
    """The PV the controller binds: the claim's pre-bound one (`spec.volumeName`, when it exists
    and satisfies the claim), else the smallest matching Available PV of its class, the first by
    name among equals (the controller's index order is not defined)."""
    if claim.volume_name:
        named = cluster.pvs.get(claim.volume_name)
        volumes = [named] if named is not None else []
    else:
        volumes = sorted(cluster.pvs.values(), key=lambda pv: pv.name)
    return controller_match(claim, [pv for pv in volumes if volume_class(pv) == claim_class(claim)])


def _provisioned_volume(cluster: Cluster, claim: PersistentVolumeClaim) -> PersistentVolume | None:
    """provisionClaim: the volume the class's provisioner creates for a claim nothing matches,
    named `pvc-<claim uid>` as the external provisioner names it; None when nothing provisions."""
    sc = cluster.storage_classes.get(claim_class(claim))
    if claim.volume_name or sc is None or not sc.provisioner or sc.provisioner == NOT_SUPPORTED_PROVISIONER:
        return None
    uid = claim.uid or deterministic_uid("PersistentVolumeClaim", claim.namespace, claim.name)
    csi = not sc.provisioner.startswith("kubernetes.io/")
    return PersistentVolume(
        name=f"pvc-{uid}", annotations={ANN_PROVISIONED_BY: sc.provisioner}, storage_class_name=sc.name,
        capacity=claim.requested_storage, access_modes=claim.access_modes, volume_mode=claim.volume_mode,
        node_affinity=allowed_topology_affinity(sc), volume_attributes_class_name=claim.volume_attributes_class_name,
        volume_source="csi" if csi else "", csi_driver=sc.provisioner if csi else "",
        volume_id=f"pvc-{uid}" if csi else "", phase="Available", source=claim.source)


def allowed_topology_affinity(sc: StorageClass) -> NodeSelector | None:
    """The node affinity kwhatif gives a volume provisioned without a node: the class's
    allowedTopologies (each term a `key In values` conjunction), None when it has none."""
    terms = tuple(NodeSelectorTerm(tuple(Requirement(r.key, "In", r.values) for r in term))
                  for term in sc.allowed_topologies if term)
    return NodeSelector(terms) if terms else None


def _bind(cluster: Cluster, claim: PersistentVolumeClaim, volume: PersistentVolume) -> None:
    """bindVolumeToClaim then bindClaimToVolume: both sides point at each other, Bound."""
    cluster.pvs[volume.name] = volume.evolve(
        claim_ref=ClaimRef(claim.namespace, claim.name, claim.uid), phase="Bound",
        annotations=_with(volume.annotations, {ANN_BOUND_BY_CONTROLLER: "yes"} if volume.name in cluster.pvs else {}))
    cluster.pvcs[(claim.namespace, claim.name)] = claim.evolve(
        volume_name=volume.name, phase="Bound",
        annotations=_with(claim.annotations, {ANN_BIND_COMPLETED: "yes", ANN_BOUND_BY_CONTROLLER: "yes"}))


def _with(annotations: Mapping[str, str], more: Mapping[str, str]) -> dict[str, str]:
    return {**annotations, **more}
