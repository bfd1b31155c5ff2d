"""Bare Pods among the workloads are created as written; workloads keep input order (creation
order), and namespaces missing from the snapshot are created with a warning."""

from __future__ import annotations

from kwhatif.api.objects import Namespace
from kwhatif.api.cluster import Cluster
from kwhatif.workloads import apply_to_cluster
from tests.workloads.conftest import expand_text

MIXED = """
apiVersion: v1
kind: Pod
metadata: {name: solo, namespace: tools}
spec: {containers: [{name: c, image: busybox}]}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: rs}}
  template:
    metadata: {labels: {app: rs}}
    spec: {containers: [{name: c, image: busybox}]}
---
apiVersion: v1
kind: Service
metadata: {name: rs}
spec: {selector: {app: rs}, ports: [{port: 80}]}
"""


def test_bare_pods_and_workloads_keep_input_order():
    expansion = expand_text(MIXED)
    assert [(g.workload.kind, g.workload.name) for g in expansion.groups] == [("Pod", "solo"), ("ReplicaSet", "rs")]
    assert expansion.pods[0].name == "solo"
    assert [type(o).__name__ for o in expansion.others] == ["Service"]


def test_missing_namespaces_are_created_with_a_warning_and_objects_join_the_cluster():
    cluster = Cluster(namespaces={"default": Namespace("default")})
    warnings = apply_to_cluster(cluster, expand_text(MIXED))
    assert warnings == ["namespace 'tools' is not in the snapshot: created for the workloads"]
    assert cluster.namespaces["tools"] == Namespace("tools", {"kubernetes.io/metadata.name": "tools"})
    assert [s.name for s in cluster.services] == ["rs"]
    assert list(cluster.controllers) == [("ReplicaSet", "default", "rs")]


def test_a_workload_given_twice_is_expanded_once_the_last_one_winning(tmp_path):
    from kwhatif.workloads import load_workloads
    rs = MIXED.split("---")[1]
    (tmp_path / "a.yaml").write_text(rs)
    (tmp_path / "b.yaml").write_text(rs.replace("replicas: 1", "replicas: 2"))
    objects, warnings = load_workloads([str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml")])
    assert [(o.kind, o.spec["replicas"]) for o in objects] == [("ReplicaSet", 2)]
    assert warnings == [f"{tmp_path / 'b.yaml'}#0:2: ReplicaSet/default/rs: duplicate of the object at "
                        f"{tmp_path / 'a.yaml'}#0:2; the last one wins"]
