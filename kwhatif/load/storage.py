"""Storage manifests (volume plugins, the volume plugins' Filters) → claims, volumes, classes and CSI objects, with
API defaulting (core v1 defaults.go:SetDefaults_Pod)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from kwhatif.api.affinity import NodeSelector
from kwhatif.api.quantity import QuantityError, parse_quantity
from kwhatif.api.storage import (
    ClaimRef, CSIDriver, CSINode, CSINodeDriver, CSIStorageCapacity, PersistentVolume, PersistentVolumeClaim,
    StorageClass, TopologySelectorRequirement, VolumeAttachment,
)
from kwhatif.errors import Source
from kwhatif.load.fields import Fields, object_fields
from kwhatif.load.selectors import label_selector, node_term

_BINDING_MODES = ("Immediate", "WaitForFirstConsumer")
_DEFAULT_CLASS_ANNOTATIONS = ("storageclass.kubernetes.io/is-default-class",
                              "storageclass.beta.kubernetes.io/is-default-class")
# PV source field -> the field that identifies the disk (for CSI migration of in-tree volumes).
_PV_SOURCE_IDS = {
    "csi": "volumeHandle", "awsElasticBlockStore": "volumeID", "gcePersistentDisk": "pdName",
    "azureDisk": "diskURI", "cinder": "volumeID", "portworxVolume": "volumeID",
    "vsphereVolume": "volumePath", "azureFile": "shareName",
}
_PV_SOURCES = tuple(_PV_SOURCE_IDS) + (
    "local", "hostPath", "nfs", "iscsi", "rbd", "fc", "flexVolume", "cephfs", "glusterfs", "flocker",
    "quobyte", "photonPersistentDisk", "scaleIO", "storageos",
)


def _controller_uid(f: Fields, meta: dict) -> str | None:
    """The uid of the controller ownerReference (metav1.GetControllerOf), None without one."""
    refs = f.items(meta, "ownerReferences", "metadata",
                   lambda e, p: (f.bool(e, "controller", p), f.str(e, "uid", p)))
    for controller, uid in refs:
        if controller:
            return uid
    return None


def _storage_request(f: Fields, spec: dict) -> Any:
    resources = f.map(spec, "resources", "spec")
    return f.resources(resources, "requests", "spec.resources").get("storage")


def decode_pvc(obj: dict, source: Source | None) -> PersistentVolumeClaim:
    f, meta, namespace, name = object_fields(obj, source)
    spec = f.map(obj, "spec", "")
    status = f.map(obj, "status", "")
    return PersistentVolumeClaim(
        namespace=namespace, name=name, uid=f.str(meta, "uid", "metadata"),
        labels=f.str_map(meta, "labels", "metadata"), annotations=f.str_map(meta, "annotations", "metadata"),
        creation_timestamp=f.str(meta, "creationTimestamp", "metadata"),
        deletion_timestamp=f.opt_str(meta, "deletionTimestamp", "metadata"),
        controller_uid=_controller_uid(f, meta),
        access_modes=f.str_list(spec, "accessModes", "spec"),
        storage_class_name=f.opt_str(spec, "storageClassName", "spec"),
        volume_name=f.str(spec, "volumeName", "spec"), volume_mode=f.opt_str(spec, "volumeMode", "spec"),
        requested_storage=_storage_request(f, spec), selector=label_selector(f, spec, "selector", "spec"),
        volume_attributes_class_name=f.opt_str(spec, "volumeAttributesClassName", "spec"),
        phase=f.str(status, "phase", "status"), source=source,
    )


def _pv_node_affinity(f: Fields, spec: dict) -> NodeSelector | None:
    affinity = f.opt_map(spec, "nodeAffinity", "spec")
    if affinity is None:
        return None
    required = f.opt_map(affinity, "required", "spec.nodeAffinity")
    if required is None:
        return None
    path = "spec.nodeAffinity.required"
    return NodeSelector(f.items(required, "nodeSelectorTerms", path, lambda e, p: node_term(f, e, p)))


def _claim_ref(f: Fields, spec: dict) -> ClaimRef | None:
    raw = f.opt_map(spec, "claimRef", "spec")
    if raw is None:
        return None
    return ClaimRef(f.str(raw, "namespace", "spec.claimRef"), f.str(raw, "name", "spec.claimRef"),
                    f.str(raw, "uid", "spec.claimRef"))


def decode_pv(obj: dict, source: Source | None) -> PersistentVolume:
    f, meta, _, name = object_fields(obj, source)
    spec = f.map(obj, "spec", "")
    status = f.map(obj, "status", "")
    kind = next((k for k in _PV_SOURCES if spec.get(k) is not None), "")
    raw_source = f.map(spec, kind, "spec") if kind else {}
    id_field = _PV_SOURCE_IDS.get(kind)
    return PersistentVolume(
        name=name, labels=f.str_map(meta, "labels", "metadata"), annotations=f.str_map(meta, "annotations", "metadata"),
        creation_timestamp=f.str(meta, "creationTimestamp", "metadata"),
        deletion_timestamp=f.opt_str(meta, "deletionTimestamp", "metadata"),
        storage_class_name=f.str(spec, "storageClassName", "spec"),
        capacity=f.resources(spec, "capacity", "spec").get("storage"),
        access_modes=f.str_list(spec, "accessModes", "spec"), volume_mode=f.opt_str(spec, "volumeMode", "spec"),
        claim_ref=_claim_ref(f, spec), node_affinity=_pv_node_affinity(f, spec),
        volume_attributes_class_name=f.opt_str(spec, "volumeAttributesClassName", "spec"),
        volume_source=kind, csi_driver=f.str(raw_source, "driver", f"spec.{kind}") if kind == "csi" else "",
        volume_id=f.str(raw_source, id_field, f"spec.{kind}") if id_field else "",
        phase=f.str(status, "phase", "status"), source=source,
    )


def _topology_term(f: Fields, raw: dict, path: str) -> tuple[TopologySelectorRequirement, ...]:
    return f.items(raw, "matchLabelExpressions", path, lambda e, p: TopologySelectorRequirement(
        f.str(e, "key", p), f.str_list(e, "values", p)))


def decode_storage_class(obj: dict, source: Source | None) -> StorageClass:
    f, meta, _, name = object_fields(obj, source)
    mode = f.str(obj, "volumeBindingMode", "") or "Immediate"  # API default (core v1 defaults.go:SetDefaults_Pod)
    if mode not in _BINDING_MODES:
        raise f.error("volumeBindingMode", f"Unsupported value: {mode!r}: supported values: \"Immediate\", \"WaitForFirstConsumer\"")
    annotations = f.str_map(meta, "annotations", "metadata")
    return StorageClass(
        name=name, provisioner=f.str(obj, "provisioner", ""), volume_binding_mode=mode,
        allowed_topologies=f.items(obj, "allowedTopologies", "", lambda e, p: _topology_term(f, e, p)),
        is_default=any(annotations.get(a) == "true" for a in _DEFAULT_CLASS_ANNOTATIONS),
        creation_timestamp=f.str(meta, "creationTimestamp", "metadata"), source=source,
    )


def decode_csi_node(obj: dict, source: Source | None) -> CSINode:
    f, meta, _, name = object_fields(obj, source)
    spec = f.map(obj, "spec", "")
    migrated = f.str_map(meta, "annotations", "metadata").get("storage.alpha.kubernetes.io/migrated-plugins", "")
    drivers = f.items(spec, "drivers", "spec", lambda e, p: CSINodeDriver(
        f.str(e, "name", p), f.int(f.map(e, "allocatable", p), "count", f"{p}.allocatable")))
    return CSINode(name, drivers, frozenset(t for t in migrated.split(",") if t) if migrated else frozenset(), source)


def decode_csi_driver(obj: dict, source: Source | None) -> CSIDriver:
    f, _, _, name = object_fields(obj, source)
    spec = f.map(obj, "spec", "")
    attach = spec.get("attachRequired")
    return CSIDriver(name, f.bool(spec, "storageCapacity", "spec"),
                     True if attach is None else f.bool(spec, "attachRequired", "spec"), source)


def _quantity(f: Fields, obj: dict, key: str) -> Fraction | None:
    """An optional top-level quantity field (CSIStorageCapacity's `capacity`, `maximumVolumeSize`)."""
    raw = obj.get(key)
    if raw is None:
        return None
    try:
        return parse_quantity(raw)
    except QuantityError as err:
        raise f.error(key, f"invalid quantity {raw!r}: {err}") from None


def decode_csi_storage_capacity(obj: dict, source: Source | None) -> CSIStorageCapacity:
    """CSIStorageCapacity keeps its fields at the top level (no spec); `storageClassName` is
    required by the API server."""
    f, _, namespace, name = object_fields(obj, source)
    class_name = f.str(obj, "storageClassName", "")
    if not class_name:
        raise f.error("storageClassName", "Required value")
    return CSIStorageCapacity(
        namespace=namespace, name=name, storage_class_name=class_name,
        node_topology=label_selector(f, obj, "nodeTopology", ""),
        capacity=_quantity(f, obj, "capacity"), maximum_volume_size=_quantity(f, obj, "maximumVolumeSize"),
        source=source,
    )


def decode_volume_attachment(obj: dict, source: Source | None) -> VolumeAttachment:
    """A VolumeAttachment: the attacher (CSI driver), the node and the PV it attaches."""
    f, _, _, name = object_fields(obj, source)
    spec = f.map(obj, "spec", "")
    attach_source = f.map(spec, "source", "spec")
    return VolumeAttachment(
        name=name, attacher=f.str(spec, "attacher", "spec"), node_name=f.str(spec, "nodeName", "spec"),
        pv_name=f.opt_str(attach_source, "persistentVolumeName", "spec.source"), source=source,
    )
