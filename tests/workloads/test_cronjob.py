"""CronJob (kubernetes.io/docs/concepts/workloads/controllers/cron-jobs): each run creates a Job
from `.spec.jobTemplate`; the controller names it `<cronjob>-<scheduled time in minutes since the
epoch>` (the "job name is the CronJob name with a suffix" rule). kwhatif takes --now as the
scheduled time: 2026-01-01T00:00:00Z is 1767225600 s = 29453760 minutes."""

from __future__ import annotations

from kwhatif.api.objects import OwnerReference
from kwhatif.workloads.common import deterministic_uid
from tests.workloads.conftest import SUFFIX, matches, pods_of

NIGHTLY = """
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: ops}
spec:
  schedule: "0 0 * * *"
  SUSPEND
  jobTemplate:
    metadata: {labels: {kind: report}}
    spec:
      parallelism: 2
      template:
        metadata: {labels: {app: report}}
        spec:
          restartPolicy: OnFailure
          containers: [{name: c, image: busybox}]
"""


def test_one_job_named_after_the_scheduled_minute_with_parallelism_pods():
    pods = pods_of(NIGHTLY.replace("SUSPEND", ""))
    uid = deterministic_uid("Job", "ops", "nightly-29453760")
    assert len(pods) == 2
    for pod in pods:
        assert matches(f"nightly-29453760-{SUFFIX}", pod.name)
        assert pod.namespace == "ops"
        assert pod.labels == {"app": "report", "batch.kubernetes.io/controller-uid": uid,
                              "batch.kubernetes.io/job-name": "nightly-29453760", "controller-uid": uid,
                              "job-name": "nightly-29453760"}
        assert pod.owner_references == (OwnerReference("batch/v1", "Job", "nightly-29453760", True),)


def test_a_suspended_cronjob_creates_no_job():
    assert pods_of(NIGHTLY.replace("SUSPEND", "suspend: true")) == []
