"""VolumeZone (volume_zone.go:Filter): the zone/region labels of the pod's bound PVs must match the node's.

PreFilter walks the pod's `persistentVolumeClaim` volumes (generic ephemeral volumes are not
looked at) and collects, for each claim with `spec.volumeName`, the PV's
`failure-domain.beta.kubernetes.io/zone`, `.../region`, `topology.kubernetes.io/zone` and
`.../region` labels (a value may list several zones separated by `__`; a malformed list is
ignored). Unbound WaitForFirstConsumer claims are skipped; other problems reject the pod (U&U):
`PersistentVolumeClaim had no name`, the claim / StorageClass / PV NotFound texts,
`PersistentVolumeClaim had no pv name and storageClass name`, `PersistentVolume had no name` (an
unbound claim of an immediate class). No labels → Skip.

Filter: a node with none of the four labels passes; otherwise each PV label's key (or, for a beta
key, its GA key) must be on the node with a value in the PV's set → else
`node(s) had no available volume zone` (U&U).
"""

from __future__ import annotations

from dataclasses import dataclass

from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.interfaces import (
    FilterPlugin,
    NodeExplainer,
    PreFilterPlugin,
    PreFilterResult,
)
from kwhatif.framework.status import SKIP, Code, Status, unresolvable
from kwhatif.plugins.volume_binding.storage import (
    claim_class,
    class_not_found,
    pv_not_found,
    pvc_not_found,
    storage_of,
)
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo

NAME = "VolumeZone"
PRE_FILTER_KEY = "PreFilter" + NAME
ERR_REASON_CONFLICT = "node(s) had no available volume zone"

BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
GA_ZONE = "topology.kubernetes.io/zone"
GA_REGION = "topology.kubernetes.io/region"
TOPOLOGY_LABELS = (BETA_ZONE, BETA_REGION, GA_ZONE, GA_REGION)
_GA_OF = {BETA_REGION: GA_REGION, BETA_ZONE: GA_ZONE}


@dataclass(frozen=True, slots=True)
class PVTopology:
    pv_name: str
    key: str
    values: frozenset[str]


def label_zones_to_set(value: str) -> frozenset[str] | None:
    """LabelZonesToSet: `__`-separated, each part trimmed; an empty part makes it invalid."""
    zones = set()
    for part in value.split("__"):
        part = part.strip()
        if not part:
            return None
        zones.add(part)
    return frozenset(zones)


class VolumeZone(PreFilterPlugin, FilterPlugin, NodeExplainer):
    name = NAME

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        claims = pod.pvc_names
        if not claims:
            return None, SKIP
        topologies, status = self.pv_topologies(pod, claims)
        if status is not None:
            return None, status
        if not topologies:
            return None, SKIP
        state.write(PRE_FILTER_KEY, tuple(topologies))
        return None, None

    def pv_topologies(self, pod: PodInfo, claims: tuple[str, ...]) -> tuple[list[PVTopology], Status | None]:
        """getPVbyPod: the zone/region requirements of the pod's bound PVs, in volume order."""
        storage = storage_of(self.handle.snapshot)
        out: list[PVTopology] = []
        for claim in claims:
            if not claim:
                return out, unresolvable("PersistentVolumeClaim had no name")
            pvc = storage.pvc(pod.pod.namespace, claim)
            if pvc is None:
                return out, unresolvable(pvc_not_found(claim))
            if not pvc.volume_name:
                class_name = claim_class(pvc)
                if not class_name:
                    return out, unresolvable("PersistentVolumeClaim had no pv name and storageClass name")
                sc = storage.classes.get(class_name)
                if sc is None:
                    return out, unresolvable(class_not_found(class_name))
                if sc.volume_binding_mode == "WaitForFirstConsumer":
                    continue  # decided by VolumeBinding
                return out, unresolvable("PersistentVolume had no name")
            pv = storage.pv(pvc.volume_name)
            if pv is None:
                return out, unresolvable(pv_not_found(pvc.volume_name))
            for key in TOPOLOGY_LABELS:
                if key in pv.labels:
                    zones = label_zones_to_set(pv.labels[key])
                    if zones is not None:
                        out.append(PVTopology(pv.name, key, zones))
        return out, None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        topologies = state.get(PRE_FILTER_KEY)
        if topologies is None:
            return None
        labels = node.node.labels
        if not any(key in labels for key in TOPOLOGY_LABELS):
            return None  # a node without zone labels (single-zone cluster) accepts any volume
        for topology in topologies:
            value = labels.get(topology.key)
            if value is None:
                value = labels.get(_GA_OF.get(topology.key, topology.key))
            if value is None or value not in topology.values:
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_CONFLICT,))
        return None

    def explain_node(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> list[str]:
        """kwhatif's sentences: which PV label the node does not satisfy."""
        out = []
        labels = node.node.labels
        for topology in state.get(PRE_FILTER_KEY) or ():
            value = labels.get(topology.key, labels.get(_GA_OF.get(topology.key, topology.key)))
            if value not in topology.values:
                out.append(f"PersistentVolume {topology.pv_name} needs {topology.key} in "
                           f"{sorted(topology.values)}; the node has {value!r}")
        return out
