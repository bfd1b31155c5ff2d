"""Job (batch/v1): `min(parallelism, completions)` pods (parallelism defaults to 1; without
completions, parallelism pods; none when suspended). The API server adds the generated selector
labels to the template (`batch.kubernetes.io/controller-uid`, `batch.kubernetes.io/job-name` and
the legacy `controller-uid`, `job-name`) unless `manualSelector` is true. NonIndexed pods are
`<job>-<5 chars>`; Indexed pods `<job>-<index>-<5 chars>` with the
`batch.kubernetes.io/job-completion-index` label and annotation and hostname `<job>-<index>`."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Set as AbstractSet

from kwhatif.api import settings
from kwhatif.api.objects import Pod, RunningJob
from kwhatif.golang import go_quote
from kwhatif.load.pod_spec_checks import restart_policy

from kwhatif.workloads.common import (
    Context,
    Expanded,
    NameSet,
    Workload,
    make_pod,
    owner_reference,
    template_labels,
    template_of,
    within_limit,
)

KIND = "Job"
INDEX_KEY = "batch.kubernetes.io/job-completion-index"


def job_labels(w: Workload) -> dict[str, str]:
    return {"batch.kubernetes.io/controller-uid": w.uid, "batch.kubernetes.io/job-name": w.name,
            "controller-uid": w.uid, "job-name": w.name}


def active_count(w: Workload) -> int:
    """The pods a new Job starts with."""
    return wanted_active(w, 0, 0)


def wanted_active(w: Workload, succeeded: int, active: int, live: RunningJob | None = None) -> int:
    """job_controller.go manageJob: how many pods the Job wants running, given its completions
    done and its pods active — none when suspended; without completions, parallelism until one
    pod succeeded (then those active are left alone); else the completions left, at most
    parallelism. `live`: the Job that runs, whose counts a manifest that leaves them unset
    keeps (`applied_counts`)."""
    f = w.fields
    spec = w.spec
    parallelism, completions = applied_counts(w, live)
    if parallelism is None or parallelism < 0:
        raise f.error("spec.parallelism", f"Invalid value: {parallelism}: must be greater than or equal to 0")
    if completions is not None and completions < 0:
        raise f.error("spec.completions", f"Invalid value: {completions}: must be greater than or equal to 0")
    within_limit(f, "spec.parallelism", parallelism)
    if f.bool(spec, "suspend", "spec"):
        return 0
    if completions is None:
        return active if succeeded > 0 else parallelism
    return max(0, min(completions - succeeded, parallelism))


def applied_counts(w: Workload, live: RunningJob | None) -> tuple[int | None, int | None]:
    """(parallelism, completions) once the manifest is applied over the Job that runs: what it
    leaves unset stays as it runs (`kubectl apply` keeps a field the manifest never set); a new
    Job's default to 1 (parallelism; and completions when both are unset: SetDefaults_Job)."""
    f, spec = w.fields, w.spec
    if live is not None:
        return (f.int(spec, "parallelism", "spec") if "parallelism" in spec else live.parallelism,
                f.int(spec, "completions", "spec") if "completions" in spec else live.completions)
    return f.int(spec, "parallelism", "spec", 1), f.int(spec, "completions", "spec")


def is_indexed(w: Workload) -> bool:
    return w.fields.str(w.spec, "completionMode", "spec") == "Indexed"


def completion_index(pod: Pod) -> int | None:
    """An Indexed Job's pod's completion index (its label), None without one."""
    return _whole(pod.labels.get(INDEX_KEY, ""))


def _whole(text: str) -> int | None:
    """A count a controller writes into a label or annotation; None for anything else."""
    return int(text) if text.isascii() and text.isdigit() else None


def pending_indexes(w: Workload, taken: AbstractSet[int], count: int, live: RunningJob | None = None) -> list[int]:
    """An Indexed Job's lowest `count` completion indexes neither active nor succeeded
    (indexed_job_utils.go firstPendingIndexes)."""
    completions = applied_counts(w, live)[1] or 0
    out: list[int] = []
    for i in range(completions):
        if len(out) == count:
            break
        if i not in taken:
            out.append(i)
    return out


def index_failed(w: Workload, pod: Pod) -> bool:
    """Whether a failed pod's index is given up (backoffLimitPerIndex: its failures so far, the
    `batch.kubernetes.io/job-index-failure-count` annotation, and this one exceed the limit):
    the controller does not run that index again."""
    limit = w.fields.int(w.spec, "backoffLimitPerIndex", "spec")
    failures = _whole(pod.annotations.get(FAILURE_COUNT_KEY, "0")) or 0
    return limit is not None and pod.phase == "Failed" and failures + 1 > limit


FAILURE_COUNT_KEY = "batch.kubernetes.io/job-index-failure-count"


def check_selector(w: Workload) -> None:
    """batch validation.go: a Job without `manualSelector: true` gets its selector generated
    (validateGeneratedSelector: `controller-uid` alone, added to any the manifest gives, which is
    then refused); with it, the selector is the manifest's and required (ValidateJobSpec)."""
    f, spec = w.fields, w.spec
    selector = spec.get("selector")
    if f.bool(spec, "manualSelector", "spec"):
        if selector is None:
            raise f.error("spec.selector", "Required value")
        return
    given = f.opt_map(spec, "selector", "spec") or {}
    labels = f.map(given, "matchLabels", "spec.selector")
    if given.get("matchExpressions") or set(labels) - {"batch.kubernetes.io/controller-uid", "controller-uid"}:
        raise f.error("spec.selector", f"Invalid value: {settings.canonical(selector)}: `selector` not auto-generated")


def expand(w: Workload, ctx: Context) -> Expanded:
    check_selector(w)
    out = Expanded(w)
    out.pods = job_pods(w, range(active_count(w)))
    return out


JOB_RESTART_POLICIES = ("OnFailure", "Never")


def check_job_restart_policy(w: Workload, pod_spec: dict) -> None:
    """batch validation.go: validateJobSpec, after the template's own validateRestartPolicy: a
    Job's pods end, so OnFailure or Never (Always, also the default, is "Required"), and Never
    alone beside a podFailurePolicy."""
    f, path = w.fields, "spec.template.spec.restartPolicy"
    restart = restart_policy(f, pod_spec, "spec.template.spec")
    if restart == "Always":
        raise f.error(path, 'Required value: valid values: "OnFailure", "Never"')
    if restart != "Never" and w.spec.get("podFailurePolicy") is not None:
        raise f.error(path, f'Invalid value: {go_quote(restart)}: only "Never" is supported when podFailurePolicy '
                            "is specified")


def job_pods(w: Workload, numbers: Iterable[int]) -> list[Pod]:
    """The Job's pods for these numbers: an Indexed Job's completion indexes, else what tells
    the generated names apart."""
    f = w.fields
    spec = w.spec
    template = template_of(w, spec, "spec")
    labels = template_labels(w, template, "spec.template")
    if not f.bool(spec, "manualSelector", "spec"):
        labels.update(job_labels(w))
    pod_spec = f.map(template, "spec", "spec.template")
    check_job_restart_policy(w, pod_spec)
    indexed = is_indexed(w)
    owner = owner_reference("batch/v1", KIND, w.name, w.uid)
    names = NameSet()
    pods = []
    for i in numbers:
        if indexed:
            name = names.generate(f"{w.name}-{i}-", f"{w.uid}/{i}")
            indexed_spec = copy.deepcopy(pod_spec)
            indexed_spec["hostname"] = f"{w.name}-{i}"
            pods.append(make_pod(w, template, "spec.template", name, {**labels, INDEX_KEY: str(i)}, owner,
                                 annotations={INDEX_KEY: str(i)}, spec=indexed_spec))
        else:
            name = names.generate(f"{w.name}-", f"{w.uid}/{i}")
            pods.append(make_pod(w, template, "spec.template", name, labels, owner))
    return pods
