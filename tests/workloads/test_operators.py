"""Operator-managed custom resources are not expanded: one warning names them with the
StatefulSet each becomes (prometheus-operator names them `prometheus-<name>`,
`alertmanager-<name>`), and they leave the "ignored kinds" count."""

from __future__ import annotations

from pathlib import Path

from kwhatif.workloads import load_workloads

KUBE_PROMETHEUS = """
apiVersion: monitoring.coreos.com/v1
kind: Prometheus
metadata: {name: k8s, namespace: monitoring}
spec: {replicas: 2}
---
apiVersion: monitoring.coreos.com/v1
kind: Alertmanager
metadata: {name: main, namespace: monitoring}
spec: {replicas: 3}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: node-exporter, namespace: monitoring}
spec: {}
---
apiVersion: postgresql.cnpg.io/v1
kind: Cluster
metadata: {name: pg}
spec: {instances: 3}
"""


def test_operator_managed_resources_are_named_in_one_warning_with_their_statefulsets(tmp_path: Path):
    path = tmp_path / "stack.yaml"
    path.write_text(KUBE_PROMETHEUS)
    objects, warnings = load_workloads([str(path)])
    assert objects == []
    assert warnings == [
        "not expanded, their operator creates the pods: Prometheus/monitoring/k8s (StatefulSet prometheus-k8s), "
        "Alertmanager/monitoring/main (StatefulSet alertmanager-main), Cluster/default/pg; check the StatefulSets "
        "they become once rendered (kubectl get statefulset -o yaml)",
        "ignored kinds kwhatif does not read: ServiceMonitor (1)",
    ]
