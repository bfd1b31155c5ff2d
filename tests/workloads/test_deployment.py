"""Deployment → its ReplicaSet → pods (kubernetes.io/docs/concepts/workloads/controllers/deployment):
"The Deployment controller adds the pod-template-hash label to every ReplicaSet that a Deployment
creates or adopts"; the ReplicaSet is named `[DEPLOYMENT-NAME]-[HASH]` and its pods
`[DEPLOYMENT-NAME]-[HASH]-[5 random characters]`; the pod's controller ownerReference is the
ReplicaSet."""

from __future__ import annotations

import pytest

from kwhatif.api.objects import OwnerReference
from kwhatif.api.selectors import Requirement
from kwhatif.errors import InputError
from tests.workloads.conftest import HASH, SUFFIX, expand_text, matches, pods_of

WEB = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop, labels: {team: a}}
spec:
  replicas: REPLICAS
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web, tier: front}, annotations: {note: x}}
    spec:
      priorityClassName: high
      containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m, memory: 64Mi}}}]
"""


def web(replicas: str = "3") -> str:
    return WEB.replace("REPLICAS", replicas)


def test_three_replicas_make_three_pods_of_one_replica_set_named_deployment_hash_suffix():
    pods = pods_of(web())
    assert len(pods) == 3
    pod_hash = pods[0].labels["pod-template-hash"]
    assert matches(HASH, pod_hash)
    for pod in pods:
        assert matches(f"web-{pod_hash}-{SUFFIX}", pod.name)
        assert pod.namespace == "shop"
        assert pod.labels == {"app": "web", "tier": "front", "pod-template-hash": pod_hash}
        assert pod.annotations == {"note": "x"}
        assert pod.owner_references == (OwnerReference("apps/v1", "ReplicaSet", f"web-{pod_hash}", True),)
        assert pod.priority_class_name == "high"
        assert pod.node_name == ""
    assert len({p.name for p in pods}) == 3


def test_the_replica_set_is_added_as_a_controller_selecting_its_pods_with_the_hash():
    group = expand_text(web()).groups[0]
    pod_hash = group.pods[0].labels["pod-template-hash"]
    [rs] = group.controllers
    assert (rs.kind, rs.namespace, rs.name) == ("ReplicaSet", "shop", f"web-{pod_hash}")
    assert rs.selector.requirements == (Requirement("app", "In", ("web",)),
                                        Requirement("pod-template-hash", "In", (pod_hash,)))


@pytest.mark.parametrize("replicas, expected", [
    ("null", 1),  # replicas defaults to 1
    ("0", 0),
    ("5", 5),
])
def test_replica_count_follows_spec_replicas_with_default_one(replicas, expected):
    assert len(pods_of(web(replicas))) == expected


def test_expansion_is_deterministic_and_a_changed_template_changes_the_hash():
    first = [p.name for p in pods_of(web())]
    assert first == [p.name for p in pods_of(web())]
    changed = pods_of(web().replace("100m", "200m"))
    assert changed[0].labels["pod-template-hash"] != pods_of(web())[0].labels["pod-template-hash"]


def test_a_selector_that_does_not_select_the_template_is_refused_naming_the_deployment():
    bad = web().replace("{app: web, tier: front}", "{app: other}")
    with pytest.raises(InputError) as err:
        pods_of(bad)
    assert err.value.obj == "Deployment/shop/web"
    assert err.value.field == "spec.template.metadata.labels"


@pytest.mark.parametrize("selector, message", [
    # ValidateDeploymentSpec: a selector is required and selects something (the ReplicaSet's
    # pod-template-hash, which kwhatif adds, must not hide that the Deployment's own is empty).
    ("{}", "Invalid value: {}: empty selector is invalid for deployment"),
    ("null", "Required value"),
])
def test_an_empty_or_missing_selector_is_refused(selector, message):
    with pytest.raises(InputError) as err:
        pods_of(web().replace("selector: {matchLabels: {app: web}}", f"selector: {selector}"))
    assert (err.value.obj, err.value.field, err.value.message) == ("Deployment/shop/web", "spec.selector", message)


def test_an_empty_template_metadata_is_no_metadata():
    # Helm renders `metadata:` with nothing under it: null, which the API server reads as unset.
    bare = web().replace("selector: {matchLabels: {app: web}}", "selector: {matchExpressions: [{key: app, operator: DoesNotExist}]}")
    bare = bare.replace("metadata: {labels: {app: web, tier: front}, annotations: {note: x}}", "metadata:")
    assert [p.labels for p in pods_of(bare)][0].keys() == {"pod-template-hash"}


def test_a_deployment_without_a_name_is_refused_with_the_api_servers_words():
    """ValidateObjectMeta: `metadata.name: Required value: name or generateName is required` —
    the same words as for any other object kwhatif reads."""
    with pytest.raises(InputError) as err:
        pods_of(web().replace("name: web, ", ""))
    assert err.value.field == "metadata.name"
    assert err.value.message == "name or generateName is required"


def test_a_bad_quantity_in_the_template_names_the_template_field():
    with pytest.raises(InputError) as err:
        pods_of(web().replace("100m", "lots"))
    assert err.value.obj == "Deployment/shop/web"
    assert err.value.field == "spec.template.spec.containers[0].resources.requests.cpu"
