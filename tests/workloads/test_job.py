"""Job (kubernetes.io/docs/concepts/workloads/controllers/job): "the requested parallelism
(.spec.parallelism) can be set to any non-negative value. If it is unspecified, it defaults to 1";
"actual parallelism ... may be ... less than requested ... for fixed completion count Jobs, the
actual number of pods running in parallel will not exceed the number of remaining completions";
the pods carry `batch.kubernetes.io/controller-uid`, `batch.kubernetes.io/job-name` (and the legacy
`controller-uid`, `job-name`); Indexed pods are `$(job-name)-$(index)-$(random-string)` with the
`batch.kubernetes.io/job-completion-index` annotation and label."""

from __future__ import annotations

import pytest

from kwhatif.api.objects import OwnerReference
from kwhatif.errors import InputError
from kwhatif.workloads.common import deterministic_uid
from tests.workloads.conftest import SUFFIX, matches, pods_of

PI = """
apiVersion: batch/v1
kind: Job
metadata: {name: pi, namespace: batch}
spec:
  SPEC
  template:
    metadata: {labels: {app: pi}}
    spec:
      restartPolicy: RESTART
      containers: [{name: c, image: perl}]
"""


def job(spec: str = "", restart: str = "Never") -> str:
    return PI.replace("SPEC", spec).replace("RESTART", restart)


@pytest.mark.parametrize("spec, count", [
    ("", 1),
    ("parallelism: 4", 4),
    ("{parallelism: 4, completions: 2}".strip("{}").replace(", ", "\n  "), 2),
    ("completions: 5", 1),
    ("parallelism: 0", 0),
    ("suspend: true\n  parallelism: 3", 0),
])
def test_active_pods_are_parallelism_capped_by_completions(spec, count):
    assert len(pods_of(job(spec))) == count


def test_non_indexed_pods_are_job_suffix_with_the_generated_selector_labels():
    uid = deterministic_uid("Job", "batch", "pi")
    pods = pods_of(job("parallelism: 2"))
    for pod in pods:
        assert matches(f"pi-{SUFFIX}", pod.name)
        assert pod.labels == {"app": "pi", "batch.kubernetes.io/controller-uid": uid,
                              "batch.kubernetes.io/job-name": "pi", "controller-uid": uid, "job-name": "pi"}
        assert pod.owner_references == (OwnerReference("batch/v1", "Job", "pi", True),)
    assert pods[0].name != pods[1].name


def test_indexed_pods_carry_their_completion_index_in_name_label_and_annotation():
    pods = pods_of(job("completionMode: Indexed\n  parallelism: 2\n  completions: 3"))
    assert len(pods) == 2
    for index, pod in enumerate(pods):
        assert matches(f"pi-{index}-{SUFFIX}", pod.name)
        assert pod.labels["batch.kubernetes.io/job-completion-index"] == str(index)
        assert pod.annotations == {"batch.kubernetes.io/job-completion-index": str(index)}


def test_manual_selector_keeps_the_template_labels_as_written():
    spec = "manualSelector: true\n  selector: {matchLabels: {app: pi}}"
    assert pods_of(job(spec))[0].labels == {"app": "pi"}


@pytest.mark.parametrize("spec, restart, text", [
    # batch validation.go validateJobSpec: Always (the default too) is "Required"...
    ("", "Always", 'Required value: valid values: "OnFailure", "Never"'),
    ("", '""', 'Required value: valid values: "OnFailure", "Never"'),
    # ... after the template's own validateRestartPolicy (ValidatePodTemplateSpec comes first)...
    ("", "Sometimes", 'Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"'),
    # ... and a podFailurePolicy takes Never alone.
    ("podFailurePolicy: {rules: [{action: FailJob, onExitCodes: {operator: In, values: [42]}}]}", "OnFailure",
     'Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified'),
])
def test_restart_policy_is_refused_as_the_api_server_does(spec, restart, text):
    with pytest.raises(InputError) as err:
        pods_of(job(spec, restart=restart))
    assert (err.value.obj, err.value.field, err.value.message) == ("Job/batch/pi", "spec.template.spec.restartPolicy",
                                                                   text)
