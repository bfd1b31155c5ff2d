"""Job (batch/v1): `min(parallelism, completions)` pods (parallelism defaults to 1; without
completions, parallelism pods; none when suspended). The API server adds the generated selector
labels to the template (`batch.kubernetes.io/controller-uid`, `batch.kubernetes.io/job-name` and
the legacy `controller-uid`, `job-name`) unless `manualSelector` is true. NonIndexed pods are
`<job>-<5 chars>`; Indexed pods `<job>-<index>-<5 chars>` with the
`batch.kubernetes.io/job-completion-index` label and annotation and hostname `<job>-<index>`."""

from __future__ import annotations

import copy

from kwhatif.workloads.common import (
    Context,
    Expanded,
    NameSet,
    Workload,
    make_pod,
    owner_reference,
    template_labels,
    template_of,
)

KIND = "Job"
INDEX_KEY = "batch.kubernetes.io/job-completion-index"


def job_labels(w: Workload) -> dict[str, str]:
    return {"batch.kubernetes.io/controller-uid": w.uid, "batch.kubernetes.io/job-name": w.name,
            "controller-uid": w.uid, "job-name": w.name}


def active_count(w: Workload) -> int:
    f = w.fields
    spec = w.spec
    if f.bool(spec, "suspend", "spec"):
        return 0
    parallelism = f.int(spec, "parallelism", "spec", 1)
    completions = f.int(spec, "completions", "spec")
    if parallelism is None or parallelism < 0:
        raise f.error("spec.parallelism", f"Invalid value: {parallelism}: must be greater than or equal to 0")
    if completions is not None and completions < 0:
        raise f.error("spec.completions", f"Invalid value: {completions}: must be greater than or equal to 0")
    return parallelism if completions is None else min(parallelism, completions)


def expand(w: Workload, ctx: Context) -> Expanded:
    f = w.fields
    spec = w.spec
    template = template_of(w, spec, "spec")
    labels = template_labels(w, template, "spec.template")
    if not f.bool(spec, "manualSelector", "spec"):
        labels.update(job_labels(w))
    pod_spec = f.map(template, "spec", "spec.template")
    restart = f.str(pod_spec, "restartPolicy", "spec.template.spec")
    if restart not in ("OnFailure", "Never"):
        raise f.error("spec.template.spec.restartPolicy",
                      f"Unsupported value: {restart or 'Always'!r}: supported values: \"OnFailure\", \"Never\"")
    indexed = f.str(spec, "completionMode", "spec") == "Indexed"
    owner = owner_reference("batch/v1", KIND, w.name, w.uid)
    names = NameSet()
    out = Expanded(w)
    for i in range(active_count(w)):
        if indexed:
            name = names.generate(f"{w.name}-{i}-", f"{w.uid}/{i}")
            indexed_spec = copy.deepcopy(pod_spec)
            indexed_spec["hostname"] = f"{w.name}-{i}"
            out.pods.append(make_pod(w, template, "spec.template", name, {**labels, INDEX_KEY: str(i)}, owner,
                                     annotations={INDEX_KEY: str(i)}, spec=indexed_spec))
        else:
            name = names.generate(f"{w.name}-", f"{w.uid}/{i}")
            out.pods.append(make_pod(w, template, "spec.template", name, labels, owner))
    return out
