"""In-tree PVs as VolumeBinding sees them once translated to CSI (binder.go:tryTranslatePVToCSI,
csi-translation-lib `plugins/in_tree_volume.go`: translateTopologyFromInTreeToCSI, getTopologyLabel,
replaceTopology, addTopology). Cases follow `in_tree_volume_test.go`
(TestTranslateTopologyFromInTreeToCSI) and `binder_test.go` (TestFindPodVolumesWithCSIMigration:
a migrated in-tree PV is checked with the CSI topology key); each expected affinity is worked out
by hand beside the case.
"""

from __future__ import annotations

from typing import Any

import pytest

from kwhatif.api.affinity import NodeSelector, NodeSelectorTerm
from kwhatif.api.cluster import Cluster
from kwhatif.api.selectors import Requirement
from kwhatif.api.storage import CSINode, PersistentVolume
from kwhatif.framework.status import Code
from kwhatif.plugins.volume_binding import VolumeBinding
from kwhatif.plugins.volume_binding.translation import (
    AWS_EBS,
    GCE_PD,
    csi_node_affinity,
    is_migrated_on_node,
    translated_affinity,
)
from kwhatif.snapshot.snapshot import Snapshot
from tests.builders import Handle, make_node
from tests.plugins.test_volume_binding import pod, pvc, run

GA_ZONE = "topology.kubernetes.io/zone"
GA_REGION = "topology.kubernetes.io/region"
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
EBS_KEY = "topology.ebs.csi.aws.com/zone"
GKE_KEY = "topology.gke.io/zone"
MIGRATED = "storage.alpha.kubernetes.io/migrated-plugins"
NODE_CONFLICT = "node(s) didn't match PersistentVolume's node affinity"
UU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def affinity(*terms: tuple[tuple[str, tuple[str, ...]], ...]) -> NodeSelector:
    return NodeSelector(tuple(NodeSelectorTerm(tuple(Requirement(k, "In", v) for k, v in term)) for term in terms))


def ebs_pv(labels: dict[str, str] | None = None, node_affinity: NodeSelector | None = None,
           volume_id: str = "vol-1", source: str = "awsElasticBlockStore") -> PersistentVolume:
    return PersistentVolume("pv-1", labels=labels or {}, node_affinity=node_affinity, volume_source=source,
                            volume_id=volume_id, storage_class_name="", phase="Bound")


TOPOLOGY_CASES = [
    pytest.param(ebs_pv(), None, id="no zone label and no affinity: nothing to translate"),
    pytest.param(ebs_pv({GA_ZONE: "us-east-1a", GA_REGION: "us-east-1"}), affinity(((EBS_KEY, ("us-east-1a",)),)),
                 id="a GA zone label becomes one term `csi-key In [zone]`"),
    pytest.param(ebs_pv({BETA_ZONE: "us-east-1a"}), affinity(((EBS_KEY, ("us-east-1a",)),)),
                 id="a beta zone label becomes the same term"),
    pytest.param(ebs_pv({GA_ZONE: "us-east-1b__us-east-1a__ us-east-1b"}),
                 affinity(((EBS_KEY, ("us-east-1a", "us-east-1b")),)),
                 id="a multi-zone label is split on __, trimmed, deduplicated and sorted"),
    pytest.param(ebs_pv({GA_ZONE: ""}), None, id="a zone label with no valid zone adds nothing (the error is ignored)"),
    pytest.param(ebs_pv(node_affinity=affinity(((GA_ZONE, ("us-east-1a",)), ("other", ("x",))))),
                 affinity(((EBS_KEY, ("us-east-1a",)), ("other", ("x",)))),
                 id="a GA zone requirement of the affinity is moved to the CSI key, others kept"),
    pytest.param(ebs_pv({GA_ZONE: "us-east-1c"}, affinity(((GA_ZONE, ("us-east-1a",)),))),
                 affinity(((EBS_KEY, ("us-east-1a",)),)),
                 id="the affinity's zone wins over the zone label"),
    pytest.param(ebs_pv({GA_ZONE: "us-east-1a"}, affinity((("other", ("x",)),), (("more", ("y",)),))),
                 affinity((("other", ("x",)), (EBS_KEY, ("us-east-1a",))), (("more", ("y",)), (EBS_KEY, ("us-east-1a",)))),
                 id="a zone label is added to every term of an affinity without zone"),
    pytest.param(ebs_pv(node_affinity=affinity(((BETA_ZONE, ("us-east-1a",)), (BETA_REGION, ("us-east-1",))))),
                 affinity(((EBS_KEY, ("us-east-1a",)), (GA_REGION, ("us-east-1",)))),
                 id="beta zone and region in the affinity: zone to the CSI key, region to the GA region"),
    pytest.param(ebs_pv(node_affinity=affinity(((GA_ZONE, ("us-east-1a",)), (BETA_REGION, ("us-east-1",))))),
                 affinity(((EBS_KEY, ("us-east-1a",)), (BETA_REGION, ("us-east-1",)))),
                 id="with a GA zone the region key read is GA: a beta region requirement is left alone"),
]


@pytest.mark.parametrize(("pv", "expected"), TOPOLOGY_CASES)
def test_translated_topology(pv: PersistentVolume, expected: NodeSelector | None) -> None:
    assert translated_affinity(pv, EBS_KEY) == expected


def test_plugins_without_a_csi_topology_key_keep_their_affinity() -> None:
    # Azure Disk and Portworx translations do not touch the topology.
    own = affinity(((GA_ZONE, ("westeurope-1",)),))
    assert csi_node_affinity(ebs_pv(node_affinity=own, source="azureDisk")) is own


def test_gce_pd_moves_the_zone_to_the_gke_key() -> None:
    pv = ebs_pv({GA_ZONE: "us-central1-a"}, source="gcePersistentDisk", volume_id="disk-1")
    assert csi_node_affinity(pv) == affinity(((GKE_KEY, ("us-central1-a",)),))


@pytest.mark.parametrize(("plugin", "csi_node", "expected"), [
    pytest.param(AWS_EBS, CSINode("n", migrated_plugins=frozenset({AWS_EBS})), True, id="listed in migrated-plugins"),
    pytest.param(AWS_EBS, CSINode("n", migrated_plugins=frozenset({GCE_PD})), False, id="another plugin listed"),
    pytest.param(AWS_EBS, None, False, id="no CSINode"),
    pytest.param("kubernetes.io/azure-file", CSINode("n", migrated_plugins=frozenset({"kubernetes.io/azure-file"})),
                 False, id="Azure File: not in isCSIMigrationOnForPlugin"),
])
def test_migration_needs_the_plugin_on_and_listed_by_the_node(plugin: str, csi_node: CSINode | None,
                                                              expected: bool) -> None:
    assert is_migrated_on_node(plugin, csi_node) is expected


# Through the plugin -----------------------------------------------------------------------------

def run_bound(pv: PersistentVolume, nodes: dict[str, dict[str, str]], migrated: tuple[str, ...]) -> Any:
    """A pod with one claim bound to `pv`; `migrated` nodes list kubernetes.io/aws-ebs as migrated."""
    claims = [pvc("c", volume=pv.name, cls="")]
    cluster = Cluster(nodes=[make_node(n, labels=labels) for n, labels in nodes.items()],
                      pvcs={(c.namespace, c.name): c for c in claims}, pvs={pv.name: pv},
                      csi_nodes={n: CSINode(n, migrated_plugins=frozenset({AWS_EBS})) for n in migrated})
    snapshot = Snapshot.build(cluster, [])
    return run(VolumeBinding(None, Handle(snapshot)), snapshot, pod(claims=("c",)))[1]


NODES = {
    "legacy": {GA_ZONE: "us-east-1a"},                       # zone label only
    "csi": {GA_ZONE: "us-east-1a", EBS_KEY: "us-east-1a"},   # the EBS CSI node plugin's label too
    "other-zone": {GA_ZONE: "us-east-1b", EBS_KEY: "us-east-1b"},
}


def test_a_migrated_ebs_pv_needs_the_csi_zone_label() -> None:
    # The PV's zone label becomes `topology.ebs.csi.aws.com/zone In [us-east-1a]` on migrated nodes:
    # "legacy" lacks that label → node conflict; "csi" has it; "other-zone" has another value.
    pv = ebs_pv({GA_ZONE: "us-east-1a"})
    outcome = run_bound(pv, NODES, migrated=tuple(NODES))
    assert outcome == {"legacy": (UU, (NODE_CONFLICT,)), "csi": None, "other-zone": (UU, (NODE_CONFLICT,))}


def test_an_unmigrated_node_sees_the_in_tree_pv() -> None:
    # Without the annotation the PV keeps its own (empty) affinity: every node passes VolumeBinding
    # (the zone label is VolumeZone's business).
    pv = ebs_pv({GA_ZONE: "us-east-1a"})
    assert run_bound(pv, NODES, migrated=()) == {"legacy": None, "csi": None, "other-zone": None}


def test_an_ebs_id_csi_translation_cannot_read_is_an_error() -> None:
    # KubernetesVolumeIDToEBSVolumeID refuses aws://zone/bad-id; FindPodVolumes returns the error.
    pv = ebs_pv({GA_ZONE: "us-east-1a"}, volume_id="aws://us-east-1a/bad-id")
    outcome = run_bound(pv, {"csi": NODES["csi"]}, migrated=("csi",))
    assert outcome == {"csi": (Code.ERROR, ("could not translate pv: failed to translate Kubernetes ID to EBS "
                                            "Volume ID Invalid format for AWS volume (aws://us-east-1a/bad-id)",))}


@pytest.mark.parametrize(("zones", "message"), [
    pytest.param("us-central1-a__europe-west1-b",
                 "failed to get region from zones: multiple or no regions gotten from zones, got: "
                 "map[europe-west1:{} us-central1:{}]", id="zones of two regions"),
    pytest.param("us-central1-a__bad",
                 "failed to get region from zones: zone in unexpected format, expected: {locale}-{region}-{zone}, "
                 "got: bad", id="a zone not in locale-region-zone form"),
])
def test_a_regional_gce_pd_csi_translation_cannot_place_is_an_error(zones: str, message: str) -> None:
    # gce_pd.go getRegionFromZones, wrapped by TranslateInTreePVToCSI then by tryTranslatePVToCSI.
    pv = ebs_pv({GA_ZONE: zones}, source="gcePersistentDisk", volume_id="disk-1")
    claims = [pvc("c", volume=pv.name, cls="")]
    cluster = Cluster(nodes=[make_node("n", labels={GKE_KEY: "us-central1-a"})],
                      pvcs={(c.namespace, c.name): c for c in claims}, pvs={pv.name: pv},
                      csi_nodes={"n": CSINode("n", migrated_plugins=frozenset({GCE_PD}))})
    snapshot = Snapshot.build(cluster, [])
    outcome = run(VolumeBinding(None, Handle(snapshot)), snapshot, pod(claims=("c",)))[1]
    assert outcome == {"n": (Code.ERROR, (f"could not translate pv: {message}",))}
