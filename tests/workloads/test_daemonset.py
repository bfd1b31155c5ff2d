"""DaemonSet (kubernetes.io/docs/concepts/workloads/controllers/daemonset): one pod per eligible
node; "the DaemonSet controller ... adds the NodeAffinity term to the DaemonSet pods"
(`matchFields` on `metadata.name`) which "replaces the .spec.nodeSelectorTerms"; the controller
adds the tolerations of the "Taints and tolerations" table (not-ready and unreachable NoExecute;
disk-pressure, memory-pressure, pid-pressure, unschedulable NoSchedule; network-unavailable for
host-network pods); nodes whose NoSchedule/NoExecute taints are not tolerated get no pod."""

from __future__ import annotations

import pytest

from kwhatif.api.objects import OwnerReference
from kwhatif.api.tolerations import Taint, Toleration
from kwhatif.api.selectors import Requirement
from tests.builders import make_node
from tests.workloads.conftest import HASH, SUFFIX, matches, pods_of

AGENT = """
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      EXTRA
      containers: [{name: c, image: agent}]
"""

DEFAULTS = (
    Toleration("node.kubernetes.io/not-ready", "Exists", "", "NoExecute"),
    Toleration("node.kubernetes.io/unreachable", "Exists", "", "NoExecute"),
    Toleration("node.kubernetes.io/disk-pressure", "Exists", "", "NoSchedule"),
    Toleration("node.kubernetes.io/memory-pressure", "Exists", "", "NoSchedule"),
    Toleration("node.kubernetes.io/pid-pressure", "Exists", "", "NoSchedule"),
    Toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule"),
)
NETWORK = Toleration("node.kubernetes.io/network-unavailable", "Exists", "", "NoSchedule")


def nodes():
    return [
        make_node("n3", labels={"disk": "ssd"}),
        make_node("n1", labels={"disk": "hdd"}),
        make_node("n2", labels={"disk": "ssd"}, taints=[Taint("gpu", "yes", "NoSchedule")]),
        make_node("n4", labels={"disk": "ssd"}, taints=[Taint("soft", "x", "PreferNoSchedule")]),
        make_node("n5", labels={"disk": "ssd"}, taints=[Taint("node.kubernetes.io/unschedulable", "", "NoSchedule")]),
    ]


def pinned(pod):
    return [term.match_fields for term in pod.affinity.node_affinity.required.terms]


@pytest.mark.parametrize("extra, expected_nodes", [
    # n2's NoSchedule taint is not tolerated; PreferNoSchedule (n4) does not keep a daemon away;
    # the unschedulable taint (n5) is tolerated by default.
    ("", ["n1", "n3", "n4", "n5"]),
    ("nodeSelector: {disk: ssd}", ["n3", "n4", "n5"]),
    ("tolerations: [{key: gpu, operator: Exists}]", ["n1", "n2", "n3", "n4", "n5"]),
    (("affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
     "[{matchExpressions: [{key: disk, operator: In, values: [hdd]}]}]}}}"), ["n1"]),
])
def test_one_pod_per_admitted_node_in_node_name_order_pinned_by_match_fields(extra, expected_nodes):
    pods = pods_of(AGENT.replace("EXTRA", extra), nodes())
    assert [pinned(p) for p in pods] == [[(Requirement("metadata.name", "In", (n,)),)] for n in expected_nodes]


def test_pods_are_named_labelled_owned_and_get_the_default_tolerations():
    pods = pods_of(AGENT.replace("EXTRA", ""), nodes())
    revision = pods[0].labels["controller-revision-hash"]
    assert matches(HASH, revision)
    for pod in pods:
        assert matches(f"agent-{SUFFIX}", pod.name)
        assert pod.namespace == "kube-system"
        assert pod.labels == {"app": "agent", "controller-revision-hash": revision, "pod-template-generation": "1"}
        assert pod.owner_references == (OwnerReference("apps/v1", "DaemonSet", "agent", True),)
        assert pod.tolerations == DEFAULTS
    assert len({p.name for p in pods}) == len(pods)


def test_host_network_pods_also_tolerate_network_unavailable_and_an_equal_toleration_is_not_repeated():
    extra = "hostNetwork: true\n      tolerations: [{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 30}]"
    pods = pods_of(AGENT.replace("EXTRA", extra), nodes())
    assert pods[0].tolerations == DEFAULTS + (NETWORK,)


def test_the_required_node_affinity_of_the_template_is_replaced_by_the_pin():
    extra = ("affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
             "[{matchExpressions: [{key: disk, operator: In, values: [hdd]}]}]}}}")
    [pod] = pods_of(AGENT.replace("EXTRA", extra), nodes())
    assert pod.affinity.node_affinity.required.terms[0].match_expressions == ()
