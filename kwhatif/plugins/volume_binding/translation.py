"""In-tree volumes as CSI volumes (`k8s.io/csi-translation-lib`), as the volume plugins translate them.

One place for what csi-translation-lib decides and the scheduler reads: the in-tree plugin of a
volume source (`awsElasticBlockStore` → `kubernetes.io/aws-ebs`), the CSI driver that supersedes
it (`ebs.csi.aws.com`), the volume handle a translated volume gets (NodeVolumeLimits counts
`<driver>/<handle>`), and the node affinity a translated PV carries (VolumeBinding checks it).

TranslateInTreePVToCSI rewrites the PV's zone topology to the CSI driver's own key for AWS EBS
(`topology.ebs.csi.aws.com/zone`), GCE PD (`topology.gke.io/zone`) and Cinder
(`topology.cinder.csi.openstack.org/zone`) — translateTopologyFromInTreeToCSI: a zone requirement
of the node affinity gets the CSI key; without one, the PV's zone label (`__`-separated) is added
to every term as `<csi key> In <zones>`; a beta region requirement becomes the GA region. Azure
Disk and Portworx PVs keep their affinity.
"""

from __future__ import annotations

from urllib.parse import urlparse

from kwhatif.api.affinity import NodeSelector, NodeSelectorTerm
from kwhatif.api.selectors import Requirement
from kwhatif.api.storage import CSINode, PersistentVolume

AWS_EBS = "kubernetes.io/aws-ebs"
GCE_PD = "kubernetes.io/gce-pd"
AZURE_DISK = "kubernetes.io/azure-disk"
AZURE_FILE = "kubernetes.io/azure-file"
CINDER = "kubernetes.io/cinder"
VSPHERE = "kubernetes.io/vsphere-volume"
PORTWORX = "kubernetes.io/portworx-volume"

# csi-translation-lib: in-tree plugin name -> CSI driver name.
CSI_DRIVER_OF = {
    AWS_EBS: "ebs.csi.aws.com", GCE_PD: "pd.csi.storage.gke.io", AZURE_DISK: "disk.csi.azure.com",
    AZURE_FILE: "file.csi.azure.com", CINDER: "cinder.csi.openstack.org", VSPHERE: "csi.vsphere.vmware.com",
    PORTWORX: "pxd.portworx.com",
}
# volume source field -> in-tree plugin name (the translator's CanSupport / CanSupportInline).
PLUGIN_OF_SOURCE = {
    "awsElasticBlockStore": AWS_EBS, "gcePersistentDisk": GCE_PD, "azureDisk": AZURE_DISK,
    "azureFile": AZURE_FILE, "cinder": CINDER, "vsphereVolume": VSPHERE, "portworxVolume": PORTWORX,
}
# The CSI topology key TranslateInTreePVToCSI moves a PV's zone to (plugins without one keep theirs).
CSI_TOPOLOGY_KEY_OF = {
    AWS_EBS: "topology.ebs.csi.aws.com/zone", GCE_PD: "topology.gke.io/zone",
    CINDER: "topology.cinder.csi.openstack.org/zone",
}
# Migration always on in v1.34 (GA), and CSIMigrationPortworx (on by default).
MIGRATION_ON = frozenset((AWS_EBS, GCE_PD, AZURE_DISK, CINDER, PORTWORX))
UNSPECIFIED = "UNSPECIFIED"

GA_ZONE = "topology.kubernetes.io/zone"
GA_REGION = "topology.kubernetes.io/region"
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
MULTI_ZONE_DELIMITER = "__"


class TranslationError(ValueError):
    """A volume csi-translation-lib refuses to translate (the text is its error's)."""


def ebs_volume_id(kubernetes_id: str) -> str:
    """KubernetesVolumeIDToEBSVolumeID: `aws://<zone>/<vol-id>`, `aws:///<vol-id>` or a bare id."""
    if not kubernetes_id.startswith("aws://"):
        return kubernetes_id
    aws_id = urlparse(kubernetes_id).path.strip("/")
    if not aws_id.startswith("vol-") or "/" in aws_id:
        raise TranslationError(f"Invalid format for AWS volume ({kubernetes_id})")
    return aws_id


def _gce_region(zones: list[str]) -> str:
    """getRegionFromZones (gce_pd.go): each zone is `{locale}-{region}-{zone}` and all share one
    region; the errors as TranslateInTreePVToCSI wraps them (Go prints a set as `map[a:{} b:{}]`)."""
    regions: set[str] = set()
    for zone in zones:
        parts = zone.split("-")
        if len(parts) != 3:
            raise TranslationError("failed to get region from zones: zone in unexpected format, expected: "
                                   f"{{locale}}-{{region}}-{{zone}}, got: {zone}")
        regions.add("-".join(parts[:2]))
    if len(regions) != 1:
        shown = " ".join(f"{r}:{{}}" for r in sorted(regions))
        raise TranslationError(f"failed to get region from zones: multiple or no regions gotten from zones, "
                               f"got: map[{shown}]")
    return regions.pop()


def pv_handle(pv: PersistentVolume) -> str:
    """TranslateInTreePVToCSI's volume handle (GCE PD: zonal or regional from the zone labels)."""
    if pv.volume_source == "awsElasticBlockStore":
        try:
            return ebs_volume_id(pv.volume_id)
        except TranslationError as err:
            raise TranslationError(f"failed to translate Kubernetes ID to EBS Volume ID {err}") from None
    if pv.volume_source == "gcePersistentDisk":
        zones_label = pv.labels.get(BETA_ZONE) or pv.labels.get(GA_ZONE, "")
        zones = zones_label.split(MULTI_ZONE_DELIMITER)
        if len(zones) == 1 and zones[0]:
            return f"projects/{UNSPECIFIED}/zones/{zones[0]}/disks/{pv.volume_id}"
        if len(zones) > 1:
            return f"projects/{UNSPECIFIED}/regions/{_gce_region(zones)}/disks/{pv.volume_id}"
        return f"projects/{UNSPECIFIED}/zones/{UNSPECIFIED}/disks/{pv.volume_id}"
    return pv.volume_id


def pv_plugin(pv: PersistentVolume) -> str | None:
    """GetInTreePluginNameFromSpec for a PV: None when the PV is not migratable (IsPVMigratable)."""
    return PLUGIN_OF_SOURCE.get(pv.volume_source)


def is_migrated_on_node(plugin: str, csi_node: CSINode | None) -> bool:
    """VolumeBinding's isCSIMigrationOnForPlugin and isPluginMigratedToCSIOnNode: migration is on
    for the plugin and the node's CSINode lists it in `storage.alpha.kubernetes.io/migrated-plugins`."""
    return plugin in MIGRATION_ON and csi_node is not None and plugin in csi_node.migrated_plugins


# Topology -------------------------------------------------------------------------------------


def _affinity_keys(affinity: NodeSelector | None) -> set[str]:
    """The keys the affinity's requirements name (TopologyKeyExist)."""
    if affinity is None:
        return set()
    return {req.key for term in affinity.terms for req in term.match_expressions}


def _has_values(affinity: NodeSelector | None, key: str) -> bool:
    """getTopologyValues is not empty: some requirement on `key` lists a value."""
    if affinity is None:
        return False
    return any(req.values for term in affinity.terms for req in term.match_expressions if req.key == key)


def topology_labels(pv: PersistentVolume) -> tuple[str, str]:
    """getTopologyLabel: GA keys when the affinity (then the labels) use the GA zone, beta keys when
    they use the beta zone; GA by default."""
    keys = _affinity_keys(pv.node_affinity)
    for present in (keys, pv.labels):
        if GA_ZONE in present:
            return GA_ZONE, GA_REGION
        if BETA_ZONE in present:
            return BETA_ZONE, BETA_REGION
    return GA_ZONE, GA_REGION


def _replace_key(affinity: NodeSelector, old: str, new: str) -> NodeSelector:
    """replaceTopology: every requirement on `old` now on `new`, values kept."""
    return NodeSelector(tuple(
        NodeSelectorTerm(tuple(Requirement(new, r.operator, r.values) if r.key == old else r
                               for r in term.match_expressions), term.match_fields, term.valid)
        for term in affinity.terms))


def _add_zones(affinity: NodeSelector | None, key: str, label: str) -> NodeSelector | None:
    """addTopology: `key In <zones>` (trimmed, deduplicated, sorted) appended to every term, one
    empty term made when there is none; no valid zone leaves the PV as it is (the error is ignored)."""
    zones = tuple(sorted({z.strip() for z in label.split(MULTI_ZONE_DELIMITER) if z.strip()}))
    if not zones:
        return affinity
    requirement = Requirement(key, "In", zones)
    terms = affinity.terms if affinity is not None and affinity.terms else (NodeSelectorTerm(),)
    return NodeSelector(tuple(
        NodeSelectorTerm(term.match_expressions + (requirement,), term.match_fields,
                         term.valid and requirement.parses_as_label_selector)
        for term in terms))


def translated_affinity(pv: PersistentVolume, csi_key: str) -> NodeSelector | None:
    """translateTopologyFromInTreeToCSI: the PV's node affinity once translated for a driver whose
    topology key is `csi_key`."""
    zone_key, region_key = topology_labels(pv)
    affinity = pv.node_affinity
    if affinity is not None and _has_values(affinity, zone_key):
        affinity = _replace_key(affinity, zone_key, csi_key)
    elif zone_key in pv.labels:
        affinity = _add_zones(affinity, csi_key, pv.labels[zone_key])
    if affinity is not None and region_key == BETA_REGION and _has_values(affinity, BETA_REGION):
        affinity = _replace_key(affinity, BETA_REGION, GA_REGION)
    return affinity


def csi_node_affinity(pv: PersistentVolume) -> NodeSelector | None:
    """The node affinity of TranslateInTreePVToCSI(pv); raises TranslationError as it does (an
    AWS EBS volume ID it cannot read)."""
    plugin = pv_plugin(pv)
    pv_handle(pv)  # the handle is translated first: its error ends the translation
    key = CSI_TOPOLOGY_KEY_OF.get(plugin or "")
    return translated_affinity(pv, key) if key else pv.node_affinity
