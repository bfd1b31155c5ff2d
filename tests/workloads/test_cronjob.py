"""CronJob (kubernetes.io/docs/concepts/workloads/controllers/cron-jobs): each run creates a Job
from `.spec.jobTemplate`; the controller names it `<cronjob>-<scheduled time in minutes since the
epoch>` (the "job name is the CronJob name with a suffix" rule). kwhatif takes --now as the
scheduled time: 2026-01-01T00:00:00Z is 1767225600 s = 29453760 minutes."""

from __future__ import annotations

import pytest

from kwhatif.api.objects import OwnerReference
from kwhatif.errors import InputError
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


REFUSALS = [  # what batch validation.go:ValidateCronJobCreate answers, field by field
    ('schedule: "0 0 * * *"', 'schedule: ""', "spec.schedule", "Required value"),
    ('schedule: "0 0 * * *"', 'schedule: "0 0 * *"', "spec.schedule",
     'Invalid value: "0 0 * *": expected exactly 5 fields, found 4: [0 0 * *]'),
    ('schedule: "0 0 * * *"', 'schedule: "TZ=UTC 0 0 * * *"', "spec.schedule",
     'Invalid value: "TZ=UTC 0 0 * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead'),
    ("SUSPEND", "startingDeadlineSeconds: -1", "spec.startingDeadlineSeconds",
     "Invalid value: -1: must be greater than or equal to 0"),
    ("SUSPEND", "timeZone: Mars/Olympus", "spec.timeZone", 'Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus'),
    ("SUSPEND", "concurrencyPolicy: Sometimes", "spec.concurrencyPolicy",
     'Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"'),
    ("parallelism: 2", "parallelism: 2\n      manualSelector: true", "spec.jobTemplate.spec.manualSelector",
     'Unsupported value: true: supported values: "nil", "false"'),
    ("SUSPEND", "failedJobsHistoryLimit: -3", "spec.failedJobsHistoryLimit",
     "Invalid value: -3: must be greater than or equal to 0"),
    ("name: nightly,", f"name: {'n' * 53},", "metadata.name",
     f'Invalid value: "{"n" * 53}": must be no more than 52 characters'),
]


@pytest.mark.parametrize("old, new, field, message", REFUSALS, ids=[r[2] + ": " + r[3][:40] for r in REFUSALS])
def test_a_cronjob_the_api_server_refuses_is_refused_naming_its_field(old: str, new: str, field: str,
                                                                        message: str) -> None:
    with pytest.raises(InputError) as refused:
        pods_of(NIGHTLY.replace(old, new).replace("SUSPEND", ""))
    assert (refused.value.field, refused.value.message) == (field, message)


def test_a_suspended_cronjob_is_validated_all_the_same():
    with pytest.raises(InputError):
        pods_of(NIGHTLY.replace("SUSPEND", "suspend: true").replace('"0 0 * * *"', '"0 0 * * * *"'))


def test_an_empty_concurrency_policy_is_defaulted_to_allow_and_a_known_zone_is_taken():
    text = NIGHTLY.replace("SUSPEND", 'concurrencyPolicy: ""\n  timeZone: Europe/Paris')
    assert len(pods_of(text)) == 2
