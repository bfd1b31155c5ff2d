"""The in-tree plugin registry and the v1.34.1 default profile (default_plugins.go:getDefaultPlugins).

The framework never names a plugin: `kwhatif.engine` assembles profiles from these two tables."""

from __future__ import annotations

from kwhatif.framework.interfaces import Plugin
from kwhatif.plugins.default_binder import DefaultBinder
from kwhatif.plugins.default_preemption import DefaultPreemption
from kwhatif.plugins.dynamic_resources import DynamicResources
from kwhatif.plugins.image_locality import ImageLocality
from kwhatif.plugins.inter_pod_affinity import InterPodAffinity
from kwhatif.plugins.node_affinity import NodeAffinity
from kwhatif.plugins.node_name import NodeName
from kwhatif.plugins.node_ports import NodePorts
from kwhatif.plugins.node_resources.balanced_allocation import NodeResourcesBalancedAllocation
from kwhatif.plugins.node_resources.fit import NodeResourcesFit
from kwhatif.plugins.node_volume_limits import NodeVolumeLimits
from kwhatif.plugins.node_unschedulable import NodeUnschedulable
from kwhatif.plugins.pod_topology_spread import PodTopologySpread
from kwhatif.plugins.priority_sort import PrioritySort
from kwhatif.plugins.scheduling_gates import SchedulingGates
from kwhatif.plugins.taint_toleration import TaintToleration
from kwhatif.plugins.volume_binding import VolumeBinding
from kwhatif.plugins.volume_restrictions import VolumeRestrictions
from kwhatif.plugins.volume_zone import VolumeZone

REGISTRY: dict[str, type[Plugin]] = {
    cls.name: cls
    for cls in (
        SchedulingGates, PrioritySort, NodeUnschedulable, NodeName, TaintToleration, NodeAffinity,
        NodePorts, NodeResourcesFit, VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone,
        PodTopologySpread, InterPodAffinity, DynamicResources,
        DefaultPreemption, NodeResourcesBalancedAllocation, ImageLocality, DefaultBinder,
    )
}

# The default MultiPoint list in order, with score weights (None: not a Score plugin, or the
# weight is unset and defaults to 1 as for VolumeBinding).
DEFAULT_MULTI_POINT: tuple[tuple[str, int | None], ...] = (
    ("SchedulingGates", None),
    ("PrioritySort", None),
    ("NodeUnschedulable", None),
    ("NodeName", None),
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodePorts", None),
    ("NodeResourcesFit", 1),
    ("VolumeRestrictions", None),
    ("NodeVolumeLimits", None),
    ("VolumeBinding", None),
    ("VolumeZone", None),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("DynamicResources", None),
    ("DefaultPreemption", None),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
    ("DefaultBinder", None),
)

DEFAULT_SCHEDULER_NAME = "default-scheduler"
