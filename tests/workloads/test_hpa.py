"""HorizontalPodAutoscaler (kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale):
the autoscaler keeps the target's replicas within [minReplicas (default 1), maxReplicas]; with
`--replicas=max` kwhatif plans for maxReplicas, `min` for minReplicas."""

from __future__ import annotations

import pytest

from tests.workloads.conftest import expand_text, pods_of

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
