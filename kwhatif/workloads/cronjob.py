"""CronJob (batch/v1): the one Job its next run creates — named `<cronjob>-<scheduled time in
minutes since the Unix epoch>` (getJobName), labels and annotations from `jobTemplate.metadata`,
owned by the CronJob — expanded as a Job. kwhatif takes the simulation clock (`--now`) as the
scheduled time; a suspended CronJob creates nothing."""

from __future__ import annotations

import copy

from kwhatif.api.timestamps import parse_rfc3339
from kwhatif.errors import InputError
from kwhatif.workloads import job
from kwhatif.workloads.common import Context, Expanded, Workload, deterministic_uid

KIND = "CronJob"


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


def expand(w: Workload, ctx: Context) -> Expanded:
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
