"""StatefulSet (kubernetes.io/docs/concepts/workloads/controllers/statefulset): "each Pod in a
StatefulSet derives its hostname from the name of the StatefulSet and the ordinal of the Pod. The
pattern for the constructed hostname is $(statefulset name)-$(ordinal)"; ordinals start at 0 or
`.spec.ordinals.start`; "the StatefulSet controller adds a label, statefulset.kubernetes.io/pod-name"
and `apps.kubernetes.io/pod-index`; volumeClaimTemplates give each pod a claim
`$(volumeClaimTemplate name)-$(statefulset name)-$(ordinal)`."""

from __future__ import annotations

import pytest

from kwhatif.api.objects import OwnerReference
from kwhatif.errors import InputError
from tests.workloads.conftest import HASH, expand_text, matches, pods_of

DB = """
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: data}
spec:
  serviceName: db
  replicas: 3
  ORDINALS
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: c, image: postgres}]
  volumeClaimTemplates:
  - metadata: {name: pgdata}
    spec:
      accessModes: [ReadWriteOnce]
      storageClassName: fast
      resources: {requests: {storage: 1Gi}}
"""


@pytest.mark.parametrize("ordinals, expected_names", [
    ("", ["db-0", "db-1", "db-2"]),
    ("ordinals: {start: 5}", ["db-5", "db-6", "db-7"]),
])
def test_pods_are_named_set_ordinal_in_ordinal_order(ordinals, expected_names):
    assert [p.name for p in pods_of(DB.replace("ORDINALS", ordinals))] == expected_names


def test_a_negative_first_ordinal_is_refused_by_its_field():
    # ValidateStatefulSetSpec: spec.ordinals.start, ValidateNonnegativeField.
    with pytest.raises(InputError) as err:
        pods_of(DB.replace("ORDINALS", "ordinals: {start: -1}"))
    assert (err.value.field, err.value.message) == ("spec.ordinals.start",
                                                     "Invalid value: -1: must be greater than or equal to 0")


def test_each_pod_carries_the_controller_labels_and_the_set_as_controller_owner():
    pods = pods_of(DB.replace("ORDINALS", ""))
    revision = pods[0].labels["controller-revision-hash"]
    assert matches(f"db-{HASH}", revision)
    for ordinal, pod in enumerate(pods):
        assert pod.labels == {"app": "db", "statefulset.kubernetes.io/pod-name": f"db-{ordinal}",
                              "apps.kubernetes.io/pod-index": str(ordinal), "controller-revision-hash": revision}
        assert pod.owner_references == (OwnerReference("apps/v1", "StatefulSet", "db", True),)
        assert pod.namespace == "data"


def test_each_pod_mounts_its_own_claim_created_from_the_volume_claim_template():
    group = expand_text(DB.replace("ORDINALS", "")).groups[0]
    assert [p.volumes for p in group.pods] == [
        ({"name": "pgdata", "persistentVolumeClaim": {"claimName": f"pgdata-db-{i}"}},) for i in range(3)]
    assert [(c.namespace, c.name, c.storage_class_name, c.access_modes, c.labels, c.phase) for c in group.pvcs] == [
        ("data", f"pgdata-db-{i}", "fast", ("ReadWriteOnce",), {"app": "db"}, "Pending") for i in range(3)]
    assert group.pvcs[0].requested_storage == 1024 ** 3


def test_the_set_itself_is_a_controller_for_default_spreading():
    [controller] = expand_text(DB.replace("ORDINALS", "")).groups[0].controllers
    assert (controller.kind, controller.namespace, controller.name) == ("StatefulSet", "data", "db")
