"""CronJob (batch/v1): the one Job its next run creates — named `<cronjob>-<scheduled time in
minutes since the Unix epoch>` (getJobName), labels and annotations from `jobTemplate.metadata`,
owned by the CronJob — expanded as a Job. kwhatif takes the simulation clock (`--now`) as the
scheduled time; a suspended CronJob creates nothing. What the API server refuses of the
CronJob itself (its schedule, time zone, policies, name length) is refused here too."""

from __future__ import annotations

import copy
import re

from kwhatif.api import settings
from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import Pod
from kwhatif.api.timestamps import parse_rfc3339
from kwhatif.errors import InputError
from kwhatif.golang import go_quote, not_supported
from kwhatif.workloads import job
from kwhatif.workloads.cron_schedule import CronError, parse_standard, time_zone_problem
from kwhatif.workloads.common import Context, Expanded, Workload, deterministic_uid, non_negative

KIND = "CronJob"
CONCURRENCY_POLICIES = ("Allow", "Forbid", "Replace")
MAX_NAME_LENGTH = 52
"""A Job's name is the CronJob's and 11 characters (`-<minutes>`), at most 63."""


def validate(w: Workload) -> None:
    """batch validation.go:ValidateCronJobCreate, for what it checks beyond the Job template (which
    the Job's own expansion checks), in its order: the first refusal is the error."""
    f, spec = w.fields, w.spec
    schedule = f.str(spec, "schedule", "spec")
    if not schedule:
        raise f.error("spec.schedule", "Required value")
    try:
        parse_standard(schedule)
    except CronError as err:
        raise f.error("spec.schedule", f"Invalid value: {go_quote(schedule)}: {err}") from None
    if "TZ" in schedule:
        raise f.error("spec.schedule", f"Invalid value: {go_quote(schedule)}: cannot use TZ or CRON_TZ in schedule, "
                      "use timeZone field instead")
    non_negative(w, "startingDeadlineSeconds", 64)
    zone = f.opt_str(spec, "timeZone", "spec")
    problem = None if zone is None else time_zone_problem(zone)
    if zone is not None and problem is not None:
        raise f.error("spec.timeZone", f"Invalid value: {go_quote(zone)}: {problem}")
    policy = concurrency_policy(w)  # defaulted when empty
    if policy not in CONCURRENCY_POLICIES:
        raise f.error("spec.concurrencyPolicy", not_supported(policy, CONCURRENCY_POLICIES))
    template = f.map(f.map(spec, "jobTemplate", "spec"), "spec", "spec.jobTemplate")
    if template.get("selector") is not None:
        raise f.error("spec.jobTemplate.spec.selector",
                      f"Invalid value: {settings.canonical(template['selector'])}: `selector` will be auto-generated")
    if f.bool(template, "manualSelector", "spec.jobTemplate.spec"):
        raise f.error("spec.jobTemplate.spec.manualSelector", 'Unsupported value: true: supported values: "nil", "false"')
    for key in ("successfulJobsHistoryLimit", "failedJobsHistoryLimit"):
        non_negative(w, key)
    if len(w.name) > MAX_NAME_LENGTH:
        raise f.error("metadata.name", f"Invalid value: {go_quote(w.name)}: must be no more than {MAX_NAME_LENGTH} "
                      "characters")


def job_name(w: Workload, now: str) -> str:
    when = parse_rfc3339(now)
    return f"{w.name}-{int(when.timestamp()) // 60}"


def job_manifest(w: Workload, now: str) -> dict:
    f = w.fields
    template = f.opt_map(w.spec, "jobTemplate", "spec")
    if template is None:
        raise f.error("spec.jobTemplate", "Required value")
    meta = f.map(template, "metadata", "spec.jobTemplate")
    name = job_name(w, now)
    return {
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": name, "namespace": w.namespace,
                     "labels": dict(f.str_map(meta, "labels", "spec.jobTemplate.metadata")),
                     "annotations": dict(f.str_map(meta, "annotations", "spec.jobTemplate.metadata")),
                     "ownerReferences": [{"apiVersion": "batch/v1", "kind": KIND, "name": w.name, "uid": w.uid,
                                          "controller": True, "blockOwnerDeletion": True}]},
        "spec": copy.deepcopy(f.map(template, "spec", "spec.jobTemplate")),
    }


FINISHED_PHASES = ("Succeeded", "Failed")


def concurrency_policy(w: Workload) -> str:
    return w.fields.str(w.spec, "concurrencyPolicy", "spec") or "Allow"


def active_jobs(w: Workload, cluster: Cluster) -> list[str]:
    """The CronJob's Jobs still running in the snapshot (cronjob_controllerv2.go reads
    status.active): those it owns that have not finished, and — for a dump without Job objects —
    those its pods name as `<cronjob>-<minutes>` (getJobName)."""
    owned = {j.name for j in cluster.jobs.values() if j.namespace == w.namespace and j.owner is not None
             and j.owner.kind == KIND and j.owner.name == w.name and not j.finished}
    named = re.compile(rf"{re.escape(w.name)}-\d+")
    for pod in cluster.pods:
        ref = pod.controller_ref
        if (pod.namespace == w.namespace and ref is not None and ref.kind == job.KIND and named.fullmatch(ref.name)
                and (w.namespace, ref.name) not in cluster.jobs and pod.phase not in FINISHED_PHASES):
            owned.add(ref.name)
    return sorted(owned)


def superseded_pods(w: Workload, cluster: Cluster) -> tuple[list[str], list[Pod]]:
    """The active Jobs the CronJob's next run does not run beside, and their pods still running:
    under Replace the controller deletes them before creating the new Job; under Forbid it
    creates the new Job only once they end (their pods done then). Allow runs beside them."""
    if concurrency_policy(w) == "Allow" or w.fields.bool(w.spec, "suspend", "spec"):
        return [], []
    jobs = active_jobs(w, cluster)
    names = set(jobs)
    pods = [p for p in cluster.pods if p.namespace == w.namespace and p.controller_ref is not None
            and p.controller_ref.kind == job.KIND and p.controller_ref.name in names and p.phase not in FINISHED_PHASES]
    return jobs, pods


def expand(w: Workload, ctx: Context) -> Expanded:
    validate(w)
    if w.fields.bool(w.spec, "suspend", "spec"):
        return Expanded(w)
    manifest = job_manifest(w, ctx.now)
    name = manifest["metadata"]["name"]
    inner_job = Workload(job.KIND, "batch/v1", w.namespace, name, deterministic_uid(job.KIND, w.namespace, name),
                         manifest, w.source)
    try:
        inner = job.expand(inner_job, ctx)
    except InputError as err:  # the Job's spec is the CronJob's spec.jobTemplate.spec
        field = f"spec.jobTemplate.{err.field}" if err.field else "spec.jobTemplate"
        raise InputError(err.message, w.source, w.ref, field) from None
    return Expanded(w, inner.pods, inner.controllers, inner.pvcs, inner.warnings)
