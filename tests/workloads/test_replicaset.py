"""ReplicaSet and ReplicationController (kubernetes.io/docs/concepts/workloads/controllers/replicaset,
.../replicationcontroller): pods get the template's labels and a generated name
`<controller>-<5 random characters>`; "the ReplicaSet is the owner of its Pods" via a controller
ownerReference; a ReplicationController's selector defaults to the template labels."""

from __future__ import annotations

import pytest

from kwhatif.api.objects import OwnerReference
from tests.workloads.conftest import SUFFIX, expand_text, matches

FRONT = """
apiVersion: APIVERSION
kind: KIND
metadata: {name: frontend}
spec:
  replicas: 2
  SELECTOR
  template:
    metadata: {labels: {tier: frontend}}
    spec:
      containers: [{name: php, image: php}]
"""


@pytest.mark.parametrize("api_version, kind, selector, map_selector", [
    ("apps/v1", "ReplicaSet", "selector: {matchLabels: {tier: frontend}}", None),
    ("v1", "ReplicationController", "selector: {tier: frontend}", {"tier": "frontend"}),
    ("v1", "ReplicationController", "", {"tier": "frontend"}),  # defaulted from the template
])
def test_pods_are_controller_suffix_owned_by_the_controller_with_template_labels(api_version, kind, selector, map_selector):
    text = FRONT.replace("APIVERSION", api_version).replace("KIND", kind).replace("SELECTOR", selector)
    group = expand_text(text).groups[0]
    assert len(group.pods) == 2
    for pod in group.pods:
        assert matches(f"frontend-{SUFFIX}", pod.name)
        assert (pod.namespace, pod.labels) == ("default", {"tier": "frontend"})
        assert pod.owner_references == (OwnerReference(api_version, kind, "frontend", True),)
    [controller] = group.controllers
    assert (controller.kind, controller.name, controller.map_selector) == (kind, "frontend", map_selector)
