"""ReplicationController (v1): like a ReplicaSet, with a map selector that defaults to the
template labels (API defaulting), pods `<rc>-<5 chars>` owned by the ReplicationController."""

from __future__ import annotations

from kwhatif.api.objects import Controller
from kwhatif.load.selectors import controller_map_selector
from kwhatif.workloads.common import (
    Context,
    Expanded,
    Workload,
    owner_reference,
    replica_pods,
    template_labels,
    template_of,
)

KIND = "ReplicationController"


def expand(w: Workload, ctx: Context) -> Expanded:
    f = w.fields
    spec = w.spec
    template = template_of(w, spec, "spec")
    selector = controller_map_selector(f, spec)
    labels = template_labels(w, template, "spec.template")
    owner = owner_reference("v1", KIND, w.name, w.uid)
    out = Expanded(w, controllers=[Controller(KIND, w.namespace, w.name, map_selector=selector, source=w.source)])
    out.pods.extend(replica_pods(w, ctx, template, labels, owner))
    return out
