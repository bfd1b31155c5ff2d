"""ReplicaSet (apps/v1): `spec.replicas` (default 1) pods named `<replicaset>-<5 chars>`
(generateName `<replicaset>-`), labels and annotations from the template, owned by the
ReplicaSet (controller: true)."""

from __future__ import annotations

from kwhatif.api.objects import Controller
from kwhatif.load.selectors import controller_selector
from kwhatif.workloads.common import (
    Context,
    Expanded,
    Workload,
    owner_reference,
    replica_pods,
    template_labels,
    template_of,
)

KIND = "ReplicaSet"


def expand(w: Workload, ctx: Context) -> Expanded:
    spec = w.spec
    template = template_of(w, spec, "spec")
    selector = controller_selector(w.fields, KIND, spec)
    labels = template_labels(w, template, "spec.template")
    controller = Controller(KIND, w.namespace, w.name, selector=selector, source=w.source)
    owner = owner_reference("apps/v1", KIND, w.name, w.uid)
    out = Expanded(w, controllers=[controller])
    out.pods.extend(replica_pods(w, ctx, template, labels, owner))
    return out
