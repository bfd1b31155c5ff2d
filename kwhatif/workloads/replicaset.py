"""ReplicaSet (apps/v1): `spec.replicas` (default 1) pods named `<replicaset>-<5 chars>`
(generateName `<replicaset>-`), labels and annotations from the template, owned by the
ReplicaSet (controller: true)."""

from __future__ import annotations

from kwhatif.api.objects import Controller
from kwhatif.load.selectors import label_selector
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


def check_selector(w: Workload, controller: Controller, labels: dict[str, str]) -> None:
    """The API server refuses a controller whose selector does not select its template."""
    f = w.fields
    if controller.selector is None or controller.selector.is_empty:
        # ReplicaSet validation says "deployment" too (apps validation.go:ValidateReplicaSetSpec).
        which = w.kind.lower() if w.kind in ("DaemonSet", "StatefulSet") else "deployment"
        raise f.error("spec.selector", f"Invalid value: \"null\": empty selector is invalid for {which}")
    if not controller.selector.matches(labels):
        raise f.error("spec.template.metadata.labels",
                      "Invalid value: selector does not match template labels")


def expand(w: Workload, ctx: Context) -> Expanded:
    spec = w.spec
    template = template_of(w, spec, "spec")
    labels = template_labels(w, template, "spec.template")
    controller = Controller(KIND, w.namespace, w.name, selector=label_selector(w.fields, spec, "selector", "spec"),
                            source=w.source)
    check_selector(w, controller, labels)
    owner = owner_reference("apps/v1", KIND, w.name, w.uid)
    out = Expanded(w, controllers=[controller])
    out.pods.extend(replica_pods(w, ctx, template, labels, owner))
    return out
