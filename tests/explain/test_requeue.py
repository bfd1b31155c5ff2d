"""Requeue hints (kwhatif.explain.requeue): the cluster events each plugin registers in
kube-scheduler v1.34.1, at the default feature gates (SchedulerQueueingHints and
InPlacePodVerticalScaling on, DRAExtendedResource off).

Expected values are copied from the upstream `EventsToRegister` of each plugin, under
pkg/scheduler/framework/plugins/; the file is named in a comment per case."""

from __future__ import annotations

import pytest

from kwhatif.explain.requeue import EVENTS, RequeueEvent, requeue_events
from kwhatif.plugins.registry import REGISTRY

Registration = tuple[str, tuple[str, ...]]

CASES: list[tuple[str, list[Registration]]] = [
    # schedulinggates/scheduling_gates.go (QHint branch)
    ("SchedulingGates", [("Pod", ("UpdatePodSchedulingGatesEliminated",))]),
    # nodeunschedulable/node_unschedulable.go (QHint branch)
    ("NodeUnschedulable", [("Node", ("Add", "UpdateNodeTaint")),
                           ("Pod", ("UpdatePodToleration",))]),
    # nodename/node_name.go (QHint: nodeActionType = fwk.Add)
    ("NodeName", [("Node", ("Add",))]),
    # tainttoleration/taint_toleration.go (QHint branch): Pod/UpdatePodToleration only, no Delete
    ("TaintToleration", [("Node", ("Add", "UpdateNodeTaint")),
                         ("Pod", ("UpdatePodToleration",))]),
    # nodeaffinity/node_affinity.go (QHint: fwk.Add | fwk.UpdateNodeLabel)
    ("NodeAffinity", [("Node", ("Add", "UpdateNodeLabel"))]),
    # nodeports/node_ports.go (QHint: nodeActionType = fwk.Add)
    ("NodePorts", [("Pod", ("Delete",)), ("Node", ("Add",))]),
    # noderesources/fit.go (InPlacePodVerticalScaling adds UpdatePodScaleDown; QHint drops the
    # UpdateNodeTaint|UpdateNodeLabel padding; no DeviceClass event with DRAExtendedResource off)
    ("NodeResourcesFit", [("Pod", ("Delete", "UpdatePodScaleDown")),
                          ("Node", ("Add", "UpdateNodeAllocatable"))]),
    # volumerestrictions/volume_restrictions.go (QHint: nodeActionType = framework.Add)
    ("VolumeRestrictions", [("Pod", ("Delete",)), ("Node", ("Add",)),
                            ("PersistentVolumeClaim", ("Add",))]),
    # nodevolumelimits/csi.go
    ("NodeVolumeLimits", [("CSINode", ("Add",)), ("CSINode", ("Update",)), ("Pod", ("Delete",)),
                          ("PersistentVolumeClaim", ("Add",)), ("VolumeAttachment", ("Delete",))]),
    # volumebinding/volume_binding.go (QHint: nodeActionType = fwk.Add | fwk.UpdateNodeLabel)
    ("VolumeBinding", [("StorageClass", ("Add", "Update")),
                       ("PersistentVolumeClaim", ("Add", "Update")),
                       ("PersistentVolume", ("Add", "Update")),
                       ("Node", ("Add", "UpdateNodeLabel")),
                       ("CSINode", ("Add", "Update")),
                       ("CSIDriver", ("Update",)),
                       ("CSIStorageCapacity", ("Add", "Update"))]),
    # volumezone/volume_zone.go (QHint: nodeActionType = fwk.Add | fwk.UpdateNodeLabel)
    ("VolumeZone", [("StorageClass", ("Add",)), ("Node", ("Add", "UpdateNodeLabel")),
                    ("PersistentVolumeClaim", ("Add", "Update")),
                    ("PersistentVolume", ("Add", "Update"))]),
    # podtopologyspread/plugin.go (QHint adds UpdatePodToleration)
    ("PodTopologySpread", [("Pod", ("Add", "UpdatePodLabel", "UpdatePodToleration", "Delete")),
                           ("Node", ("Add", "Delete", "UpdateNodeLabel", "UpdateNodeTaint"))]),
    # interpodaffinity/plugin.go (QHint: nodeActionType = fwk.Add | fwk.UpdateNodeLabel)
    ("InterPodAffinity", [("Pod", ("Add", "UpdatePodLabel", "Delete")),
                          ("Node", ("Add", "UpdateNodeLabel"))]),
    # dynamicresources/dynamicresources.go (QHint: Add | UpdateNodeLabel | UpdateNodeAllocatable)
    ("DynamicResources", [("Node", ("Add", "UpdateNodeLabel", "UpdateNodeAllocatable")),
                          ("ResourceClaim", ("Add", "Update")),
                          ("Pod", ("UpdatePodGeneratedResourceClaim",)),
                          ("DeviceClass", ("Add", "Update")),
                          ("ResourceSlice", ("Add", "Update"))]),
]

# Resource names and action types kube-scheduler defines (staging kube-scheduler/framework
# types.go; pkg/scheduler/framework/types.go:allResources, podActionTypes, nodeActionTypes).
RESOURCES = {"Pod", "Node", "PersistentVolume", "PersistentVolumeClaim", "CSINode", "CSIDriver",
             "CSIStorageCapacity", "StorageClass", "VolumeAttachment", "ResourceClaim",
             "ResourceSlice", "DeviceClass"}
ACTIONS = {"Add", "Delete", "Update", "All", "UpdateNodeAllocatable", "UpdateNodeLabel",
           "UpdateNodeTaint", "UpdateNodeCondition", "UpdateNodeAnnotation", "UpdatePodLabel",
           "UpdatePodScaleDown", "UpdatePodToleration", "UpdatePodSchedulingGatesEliminated",
           "UpdatePodGeneratedResourceClaim"}

# Plugins in the registry that reject no pod and so register no events upstream.
NON_REJECTING = {"PrioritySort", "DefaultPreemption", "NodeResourcesBalancedAllocation",
                 "ImageLocality", "DefaultBinder"}


@pytest.mark.parametrize(("plugin", "expected"), CASES, ids=[c[0] for c in CASES])
def test_registrations(plugin: str, expected: list[Registration]) -> None:
    assert [(e.resource, e.actions) for e in EVENTS[plugin]] == expected


def test_table_covers_exactly_the_cases() -> None:
    assert set(EVENTS) == {plugin for plugin, _ in CASES}


@pytest.mark.parametrize("plugin", sorted(EVENTS))
def test_names_are_kube_scheduler_names(plugin: str) -> None:
    for event in EVENTS[plugin]:
        assert event.resource in RESOURCES
        assert event.actions and set(event.actions) <= ACTIONS
        assert len(set(event.actions)) == len(event.actions)
        assert event.why.strip()


def test_every_rejecting_registry_plugin_has_an_entry() -> None:
    rejecting = set(REGISTRY) - NON_REJECTING
    assert rejecting <= set(EVENTS)
    assert set(EVENTS) <= set(REGISTRY)
    assert not NON_REJECTING & set(EVENTS)


def test_requeue_events_keeps_order_and_skips_unregistered() -> None:
    got = requeue_events(["NodeName", "ImageLocality", "NoSuchPlugin", "TaintToleration"])
    assert [(p, e.resource, e.actions) for p, e in got] == [
        ("NodeName", "Node", ("Add",)),
        ("TaintToleration", "Node", ("Add", "UpdateNodeTaint")),
        ("TaintToleration", "Pod", ("UpdatePodToleration",)),
    ]
    assert all(isinstance(e, RequeueEvent) for _, e in got)


def test_requeue_events_order_follows_input() -> None:
    forward = requeue_events(["NodePorts", "NodeAffinity"])
    backward = requeue_events(["NodeAffinity", "NodePorts"])
    assert [p for p, _ in forward] == ["NodePorts", "NodePorts", "NodeAffinity"]
    assert [p for p, _ in backward] == ["NodeAffinity", "NodePorts", "NodePorts"]


def test_requeue_events_empty_and_generator_input() -> None:
    assert requeue_events([]) == []
    assert requeue_events(p for p in ["DefaultBinder"]) == []
    assert len(requeue_events(iter(["VolumeBinding"]))) == 7


def test_events_are_frozen() -> None:
    event = EVENTS["NodeName"][0]
    with pytest.raises(AttributeError):
        event.resource = "Pod"  # type: ignore[misc]


@pytest.mark.parametrize("why, said", [
    ("a node is added: it may fit there", "a node is added"),
    ("a PV is created or updated (no hint: any such change retries the pod): it may be one", "a PV is created or "
     "updated (no hint: any such change retries the pod)"),
    ("a PV is created or updated (no hint: any such change retries the pod)",
     "a PV is created or updated (no hint: any such change retries the pod)"),
])
def test_the_table_sayschange_said_up_to_the_first_colon_outside_parentheses(why: str, said: str) -> None:
    """It cut "a PV is created or updated (no hint" mid-parenthesis."""
    from kwhatif.render.explain import change_said
    assert change_said(why) == said
