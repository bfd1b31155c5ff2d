"""kubectl apply's three-way merge of the last apply's template, the manifest's and the live one."""

from __future__ import annotations

from fractions import Fraction

import pytest

from kwhatif.api.objects import Container, ContainerPort, Pod, TopologySpreadConstraint
from kwhatif.api.tolerations import Toleration
from kwhatif.workloads.apply import kept_by_apply


_SPOT = Toleration("spot", "Exists")
_WEB = Toleration("dedicated", "Equal", "web", "NoSchedule")
_ZONE = TopologySpreadConstraint(1, "topology.kubernetes.io/zone", "ScheduleAnyway")
_HOST = TopologySpreadConstraint(1, "kubernetes.io/hostname", "ScheduleAnyway")


def _pod(**fields: object) -> Pod:
    return Pod("default", "web", containers=(Container("app", "app:1"),)).evolve(**fields)


@pytest.mark.parametrize("live, applied, manifest, field, expected", [
    # Maps, merged key by key: a key neither the last apply nor the manifest writes stays; one
    # the last apply wrote and the manifest leaves out goes; the manifest's value wins.
    ({"labels": {"app": "web", "team": "a"}}, {"labels": {"app": "web"}}, {"labels": {"app": "web"}},
     "labels", {"app": "web", "team": "a"}),
    ({"labels": {"app": "web", "team": "a"}}, {"labels": {"app": "web", "team": "a"}}, {"labels": {"app": "web"}},
     "labels", {"app": "web"}),
    ({"node_selector": {"pool": "web"}}, {}, {"node_selector": {"pool": "db"}}, "node_selector", {"pool": "db"}),
    # Lists merged by a key: the manifest's items, then the live ones of keys neither writes.
    ({"topology_spread_constraints": (_HOST, _ZONE)}, {"topology_spread_constraints": (_HOST,)}, {},
     "topology_spread_constraints", (_ZONE,)),
    ({"topology_spread_constraints": (_HOST, _ZONE)}, {}, {"topology_spread_constraints": (_HOST,)},
     "topology_spread_constraints", (_HOST, _ZONE)),
    ({"volumes": ({"name": "a", "emptyDir": {}}, {"name": "b", "emptyDir": {}})}, {"volumes": ({"name": "b"},)}, {},
     "volumes", ({"name": "a", "emptyDir": {}},)),
    # Fields set whole (tolerations: an atomic list): the live value only when neither sets it.
    ({"tolerations": (_WEB, _SPOT)}, {}, {}, "tolerations", (_WEB, _SPOT)),
    ({"tolerations": (_WEB, _SPOT)}, {"tolerations": (_WEB,)}, {"tolerations": (_WEB,)}, "tolerations", (_WEB,)),
    ({"tolerations": (_WEB, _SPOT)}, {}, {"tolerations": (_WEB,)}, "tolerations", (_WEB,)),
    ({"priority_class_name": "high"}, {}, {}, "priority_class_name", "high"),
    ({"priority_class_name": "high"}, {"priority_class_name": "high"}, {}, "priority_class_name", ""),
    ({"scheduler_name": "batch"}, {}, {}, "scheduler_name", "batch"),
    ({"host_network": True}, {}, {}, "host_network", True),
])
def test_kept_by_apply_merges_as_a_three_way_merge(live, applied, manifest, field, expected):
    """`kubectl apply`'s three-way merge (strategicpatch CreateThreeWayMergePatch) of the last
    apply's template, the manifest's and the live one, field by field."""
    merged = kept_by_apply(_pod(**manifest), _pod(**live), _pod(**applied))
    assert getattr(merged, field) == expected


def test_kept_by_apply_merges_containers_by_name_and_their_resources_by_key():
    """A sidecar kubectl patch added (named by neither) stays; so does a limit `kubectl set
    resources` set, and a port, in a container the manifest names; what the manifest sets wins."""
    live = _pod(containers=(Container("app", "app:1", {"cpu": Fraction(1, 2)}, {"cpu": Fraction(1)},
                                      (ContainerPort(80), ContainerPort(9090))),
                            Container("proxy", "envoy:1")))
    applied = _pod(containers=(Container("app", "app:1", {"cpu": Fraction(1, 2)}, ports=(ContainerPort(80),)),))
    manifest = _pod(containers=(Container("app", "app:2", {"cpu": Fraction(1, 4)}),))
    app, proxy = kept_by_apply(manifest, live, applied).containers
    assert (app.image, app.requests, app.limits, app.ports) == ("app:2", {"cpu": Fraction(1, 4)},
                                                                 {"cpu": Fraction(1)}, (ContainerPort(9090),))
    assert proxy == Container("proxy", "envoy:1")
