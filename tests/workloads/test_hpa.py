"""HorizontalPodAutoscaler (kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale):
the autoscaler keeps the target's replicas within [minReplicas (default 1), maxReplicas]; with
`--replicas=max` kwhatif plans for maxReplicas, `min` for minReplicas."""

from __future__ import annotations

import pytest

from kwhatif.api.objects import Autoscaler
from kwhatif.workloads import expand_objects
from tests.workloads.conftest import NOW, expand_text, objects, pods_of

APP = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  replicas: REPLICAS
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec: {containers: [{name: c, image: api}]}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: api}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: TARGET}
  minReplicas: 2
  maxReplicas: 6
"""


@pytest.mark.parametrize("replicas, mode, expected", [
    ("3", "spec", 3),
    ("1", "spec", 2),   # below minReplicas: scaled up to 2
    ("9", "spec", 6),   # above maxReplicas: scaled down to 6
    ("3", "max", 6),
    ("3", "min", 2),
    ("0", "max", 0),    # 0 replicas disables autoscaling
])
def test_the_target_gets_the_replicas_the_autoscaler_imposes(replicas, mode, expected):
    text = APP.replace("REPLICAS", replicas).replace("TARGET", "api")
    assert len(pods_of(text, replicas_mode=mode)) == expected


def test_an_autoscaler_whose_target_is_not_among_the_workloads_is_ignored_with_a_warning():
    expansion = expand_text(APP.replace("REPLICAS", "3").replace("TARGET", "other"), replicas_mode="max")
    assert len(expansion.pods) == 3
    assert expansion.warnings == [
        "HorizontalPodAutoscaler/default/api: its target Deployment/default/other is not among the workloads; ignored"]


RUNNING_STATUS = "\nstatus: {currentReplicas: DESIRED, desiredReplicas: DESIRED}\n"


@pytest.mark.parametrize("replicas, desired, expected", [
    ("1", "3", 3),   # the chart writes replicas: 1; the autoscaler wants 3 for the load: back to 3 at its next sync
    ("5", "3", 3),   # what it wants for the load, not what the manifest wrote
    ("1", "8", 6),   # still within [minReplicas 2, maxReplicas 6]
    ("0", "3", 0),   # 0 replicas disables autoscaling
    ("5", "0", 5),   # desiredReplicas 0: it never computed a count (metrics unavailable): the scale stays
])
def test_a_running_autoscaler_keeps_the_count_it_computed(replicas, desired, expected):
    """horizontal.go: every sync (15 s) sets the target's scale to the replicas it computes from
    the metrics — status.desiredReplicas, the count it last computed for this load; a manifest's
    own replicas last until then."""
    text = (APP + RUNNING_STATUS).replace("REPLICAS", replicas).replace("TARGET", "api").replace("DESIRED", desired)
    assert len(pods_of(text)) == expected


def test_an_autoscaler_that_cannot_read_its_metrics_leaves_the_scale():
    """ScalingActive False (FailedGetResourceMetric): the controller computes nothing and leaves
    the target's scale — the manifest's 5, not the stale desiredReplicas 3."""
    text = (APP + "\nstatus:\n  desiredReplicas: 3\n  conditions: [{type: ScalingActive, status: 'False', "
            "reason: FailedGetResourceMetric}]\n").replace("REPLICAS", "5").replace("TARGET", "api")
    assert len(pods_of(text)) == 5


def test_the_snapshots_autoscaler_tells_what_it_wants_when_the_files_one_does_not():
    """The files' HPA (a chart's, without status) and the one that runs in the snapshot target the
    same Deployment: the snapshot's status says what the autoscaler wants (3), the files' bounds
    (2..6) keep it."""
    running = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
               "metadata": {"name": "api", "namespace": "default"},
               "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "api"},
                        "minReplicas": 1, "maxReplicas": 10},
               "status": {"currentReplicas": 3, "desiredReplicas": 3}}
    expansion = expand_objects(objects(APP.replace("REPLICAS", "1").replace("TARGET", "api")), [], NOW, "spec",
                               autoscalers=[Autoscaler("default", "api", running)])
    assert len(expansion.pods) == 3
