"""Custom resources whose pods an operator creates (Prometheus, Alertmanager, ...): kwhatif cannot
expand them — the pods come from the operator's code, not from a template in the manifest — so
they are named in one warning with the StatefulSet each becomes, which `kwhatif check` can take
once rendered (e.g. `kubectl get statefulset -n monitoring prometheus-k8s -o yaml`).

The table lists well-known operators by API group and kind, with the name of the StatefulSet
the operator creates ("" when its pods are not in a StatefulSet of a name kwhatif can tell)."""

from __future__ import annotations

from collections.abc import Sequence

from kwhatif.load.documents import RawDoc

# (API group, kind) → the operator's StatefulSet name prefix (the resource's name follows).
OPERATED: dict[tuple[str, str], str] = {
    ("monitoring.coreos.com", "Prometheus"): "prometheus-",
    ("monitoring.coreos.com", "Alertmanager"): "alertmanager-",
    ("monitoring.coreos.com", "ThanosRuler"): "thanos-ruler-",
    ("monitoring.coreos.com", "PrometheusAgent"): "prom-agent-",
    ("elasticsearch.k8s.elastic.co", "Elasticsearch"): "",
    ("kafka.strimzi.io", "Kafka"): "",
    ("rabbitmq.com", "RabbitmqCluster"): "",
    ("postgresql.cnpg.io", "Cluster"): "",
}


def _group(api_version: object) -> str:
    text = str(api_version or "")
    return text.split("/", 1)[0] if "/" in text else ""


def operated(doc: RawDoc) -> bool:
    obj = doc.obj
    return isinstance(obj, dict) and (_group(obj.get("apiVersion")), str(doc.kind)) in OPERATED


def _describe(doc: RawDoc) -> str:
    obj = doc.obj if isinstance(doc.obj, dict) else {}
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    namespace, name = str(meta.get("namespace") or "default"), str(meta.get("name") or "")
    prefix = OPERATED[(_group(obj.get("apiVersion")), str(doc.kind))]
    return f"{doc.kind}/{namespace}/{name}" + (f" (StatefulSet {prefix}{name})" if prefix else "")


def operated_warning(docs: Sequence[RawDoc]) -> str | None:
    """One line naming every operator-managed resource, or None when there is none."""
    if not docs:
        return None
    return (f"not expanded, their operator creates the pods: {', '.join(_describe(d) for d in docs)}; "
            "check the StatefulSets they become once rendered (kubectl get statefulset -o yaml)")
