"""What the API server refuses of a controller beyond what kwhatif reads, in its words (apps
validation.go: ValidatePodTemplateSpecForReplicaSet, ValidateDeploymentSpec, ValidateDaemonSetSpec,
ValidateStatefulSetSpec; core: ValidateReplicationControllerSpec; batch: validateGeneratedSelector,
ValidateJobSpec). Each expected text is written from those functions: `field.NotSupported`,
`field.Forbidden`, `ValidateNonnegativeField` ("must be greater than or equal to 0")."""

from __future__ import annotations

import pytest

from kwhatif.errors import InputError
from tests.workloads.conftest import pods_of

SELECTOR = "selector: {matchLabels: {app: w}}"
CONTROLLER = """
apiVersion: APIVERSION
kind: KIND
metadata: {name: w, namespace: shop}
spec:
  SELECTOR
  EXTRA
  template:
    metadata: {labels: {app: w}}
    spec:
      TEMPLATE
      containers: [{name: c, image: nginx}]
"""
KINDS = [("apps/v1", "Deployment", SELECTOR), ("apps/v1", "ReplicaSet", SELECTOR), ("v1", "ReplicationController",
         "selector: {app: w}"), ("apps/v1", "DaemonSet", SELECTOR), ("apps/v1", "StatefulSet", SELECTOR)]


def manifest(api_version: str, kind: str, selector: str, extra: str = "", template: str = "") -> str:
    return (CONTROLLER.replace("APIVERSION", api_version).replace("KIND", kind).replace("SELECTOR", selector)
            .replace("EXTRA", extra).replace("TEMPLATE", template))


def refusal(text: str) -> tuple[str | None, str]:
    with pytest.raises(InputError) as err:
        pods_of(text)
    return err.value.field, err.value.message


@pytest.mark.parametrize("api_version, kind, selector", KINDS, ids=[k for _, k, _ in KINDS])
def test_a_template_whose_pods_would_stop_is_refused(api_version: str, kind: str, selector: str) -> None:
    assert refusal(manifest(api_version, kind, selector, template="restartPolicy: Never")) == (
        "spec.template.spec.restartPolicy", 'Unsupported value: "Never": supported values: "Always"')
    word = {"Deployment": "ReplicaSet"}.get(kind, kind)  # a Deployment's template is its ReplicaSet's
    assert refusal(manifest(api_version, kind, selector, template="activeDeadlineSeconds: 30")) == (
        "spec.template.spec.activeDeadlineSeconds", f"Forbidden: activeDeadlineSeconds in {word} is not Supported")


@pytest.mark.parametrize("api_version, kind, selector", KINDS, ids=[k for _, k, _ in KINDS])
def test_negative_min_ready_seconds_are_refused(api_version: str, kind: str, selector: str) -> None:
    assert refusal(manifest(api_version, kind, selector, extra="minReadySeconds: -1")) == (
        "spec.minReadySeconds", "Invalid value: -1: must be greater than or equal to 0")


@pytest.mark.parametrize("extra, field, message", [
    ("revisionHistoryLimit: -1", "spec.revisionHistoryLimit", "Invalid value: -1: must be greater than or equal to 0"),
    # progressDeadlineSeconds must exceed minReadySeconds; unset, it is defaulted to 600 first.
    ("minReadySeconds: 60\n  progressDeadlineSeconds: 60", "spec.progressDeadlineSeconds",
     "Invalid value: 60: must be greater than minReadySeconds"),
    ("minReadySeconds: 600", "spec.progressDeadlineSeconds", "Invalid value: 600: must be greater than minReadySeconds"),
])
def test_a_deployments_counts_the_api_server_refuses(extra: str, field: str, message: str) -> None:
    assert refusal(manifest("apps/v1", "Deployment", SELECTOR, extra=extra)) == (field, message)


def test_a_deployment_within_its_limits_is_expanded() -> None:
    text = manifest("apps/v1", "Deployment", SELECTOR, extra="minReadySeconds: 30\n  revisionHistoryLimit: 0",
                    template="restartPolicy: Always")
    assert len(pods_of(text)) == 1


JOB = """
apiVersion: batch/v1
kind: Job
metadata: {name: migrate, namespace: shop}
spec:
  EXTRA
  template:
    metadata: {labels: {app: migrate}}
    spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}
"""


@pytest.mark.parametrize("extra, message", [
    # Without manualSelector the selector is generated (controller-uid alone): one given is refused.
    ("selector: {matchLabels: {app: migrate}}", 'Invalid value: {"matchLabels":{"app":"migrate"}}: `selector` not '
     "auto-generated"),
    # With it, the manifest's selector is required.
    ("manualSelector: true", "Required value"),
])
def test_a_jobs_selector_the_api_server_refuses(extra: str, message: str) -> None:
    assert refusal(JOB.replace("EXTRA", extra)) == ("spec.selector", message)


def test_a_manual_selector_that_selects_the_template_is_taken() -> None:
    text = JOB.replace("EXTRA", "manualSelector: true\n  selector: {matchLabels: {app: migrate}}")
    assert len(pods_of(text)) == 1


@pytest.mark.parametrize("text, field", [
    (manifest("apps/v1", "Deployment", SELECTOR, extra="replicas: 2147483647"), "spec.replicas"),
    (manifest("apps/v1", "StatefulSet", SELECTOR, extra="replicas: 1000001"), "spec.replicas"),
    (JOB.replace("EXTRA", "parallelism: 1000001"), "spec.parallelism"),
])
def test_more_pods_than_kwhatif_simulates_are_refused_not_created(text: str, field: str) -> None:
    # An int32 the API server takes; creating two billion pods would exhaust the machine instead.
    got_field, message = refusal(text)
    assert got_field == field and message.endswith("pods: kwhatif simulates at most 1,000,000 pods a workload")


@pytest.mark.parametrize("rolling, field, message", [
    # ValidateRollingUpdateDaemonSet: exactly one of maxSurge and maxUnavailable (default 1) non-zero.
    ("{maxSurge: 1}", "spec.updateStrategy.rollingUpdate.maxSurge",
     "Invalid value: 1: may not be set when maxUnavailable is non-zero"),
    ('{maxSurge: "10%", maxUnavailable: 1}', "spec.updateStrategy.rollingUpdate.maxSurge",
     "Invalid value: 10%: may not be set when maxUnavailable is non-zero"),  # String(), as apimachinery prints it
    ("{maxSurge: 0, maxUnavailable: 0}", "spec.updateStrategy.rollingUpdate.maxUnavailable",
     "Required value: cannot be 0 when maxSurge is 0"),
])
def test_a_daemonset_rolling_update_the_api_server_refuses(rolling: str, field: str, message: str) -> None:
    text = manifest("apps/v1", "DaemonSet", SELECTOR, extra=f"updateStrategy: {{type: RollingUpdate, rollingUpdate: "
                                                               f"{rolling}}}")
    assert refusal(text) == (field, message)


def test_a_daemonset_surging_with_no_unavailable_is_taken() -> None:
    text = manifest("apps/v1", "DaemonSet", SELECTOR, extra="updateStrategy: {rollingUpdate: {maxSurge: 1, "
                                                           "maxUnavailable: 0}}")
    assert pods_of(text) == []  # no node given: nothing to run, and nothing refused


@pytest.mark.parametrize("extra, field, message", [
    # ValidateStatefulSetSpec: the pod management policy (OrderedReady when empty), rollingUpdate only for RollingUpdate.
    ("podManagementPolicy: Random", "spec.podManagementPolicy", "Invalid value: \"Random\": must be 'OrderedReady' or "
     "'Parallel'"),
    ("updateStrategy: {type: OnDelete, rollingUpdate: {partition: 1}}", "spec.updateStrategy.rollingUpdate",
     "Invalid value: {\"partition\":1}: only allowed for updateStrategy 'RollingUpdate'"),
])
def test_a_statefulset_policy_the_api_server_refuses(extra: str, field: str, message: str) -> None:
    text = manifest("apps/v1", "StatefulSet", SELECTOR, extra=f"serviceName: w\n  {extra}")
    assert refusal(text) == (field, message)


@pytest.mark.parametrize("api_version, kind, selector", KINDS, ids=[k for _, k, _ in KINDS])
def test_a_template_restart_policy_no_pod_takes_is_refused_by_the_pods_own_check_first(
        api_version: str, kind: str, selector: str) -> None:
    # ValidatePodTemplateSpecForReplicaSet (and its twins) run ValidatePodTemplateSpec before the
    # Always-only rule: validateRestartPolicy's NotSupported is the first error.
    assert refusal(manifest(api_version, kind, selector, template="restartPolicy: Sometimes")) == (
        "spec.template.spec.restartPolicy",
        'Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"')


def test_a_templates_pod_fields_are_refused_as_a_pods_are() -> None:
    # The template goes through the pod decoder: ValidatePodSpec's checks, under the template's path.
    assert refusal(manifest("apps/v1", "Deployment", SELECTOR, template="dnsPolicy: Foo")) == (
        "spec.template.spec.dnsPolicy",
        'Unsupported value: "Foo": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"')


MISMATCH = ("spec.template.metadata.labels", 'Invalid value: {"app":"w"}: `selector` does not match template `labels`')


@pytest.mark.parametrize("kind, selector, refused", [
    # ValidateReplicaSetSpec / ValidateDeploymentSpec / ValidateStatefulSetSpec: required, not
    # empty ("deployment" for a ReplicaSet too), then ValidatePodTemplateSpecFor*: the template
    # selected (its labels printed as JSON, as v1.34's field errors print a map).
    ("Deployment", "selector: {matchLabels: {app: x}}", MISMATCH),
    ("ReplicaSet", "selector: {matchLabels: {app: x}}", MISMATCH),
    ("StatefulSet", "selector: {matchExpressions: [{key: app, operator: NotIn, values: [w]}]}", MISMATCH),
    ("ReplicaSet", "selector: {}", ("spec.selector", "Invalid value: {}: empty selector is invalid for deployment")),
    ("StatefulSet", "selector: {matchLabels: {}}",
     ("spec.selector", "Invalid value: {}: empty selector is invalid for statefulset")),
    ("ReplicaSet", "", ("spec.selector", "Required value")),
    ("StatefulSet", "", ("spec.selector", "Required value")),
    # ValidateDaemonSetSpec: a missing selector selects nothing (the template is not matched); an
    # empty one selects everything, and is refused after.
    ("DaemonSet", "", MISMATCH),
    ("DaemonSet", "selector: {}", ("spec.selector", "Invalid value: {}: empty selector is invalid for daemonset")),
    # ValidateReplicationControllerSpec: the map selector (defaulted to the template's labels).
    ("ReplicationController", "selector: {app: x}", MISMATCH),
])
def test_a_selector_the_api_server_refuses_in_its_words(kind: str, selector: str,
                                                        refused: tuple[str, str]) -> None:
    api_version = "v1" if kind == "ReplicationController" else "apps/v1"
    assert refusal(manifest(api_version, kind, selector)) == refused


QUALIFIED = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an"


@pytest.mark.parametrize("meta, template, field, message", [
    # ValidateObjectMeta on the workload's own labels and annotations...
    ("labels: {'bad key': v}", "", "metadata.labels", f'Invalid value: "bad key": {QUALIFIED}'),
    ("labels: {app: 'x y'}", "", "metadata.labels", 'Invalid value: "x y": a valid label must be an empty string'),
    ("annotations: {'bad annotation key!': v}", "", "metadata.annotations",
     'Invalid value: "bad annotation key!": name part must consist of'),
    # ...and ValidatePodTemplateSpec on its template's, at `spec.template.labels` (its path), even
    # without a replica; then the template's pod spec.
    ("", "annotations: {'a/b/c': v}", "spec.template.annotations", 'Invalid value: "a/b/c": a qualified name'),
    ("", "labels: {app: w, 'x/': v}", "spec.template.labels", 'Invalid value: "x/": name part must be non-empty'),
])
def test_a_workloads_and_its_templates_labels_and_annotations_are_judged(meta: str, template: str, field: str,
                                                                        message: str) -> None:
    text = manifest("apps/v1", "Deployment", SELECTOR, extra="replicas: 0").replace(
        "metadata: {name: w, namespace: shop}", f"metadata: {{name: w, namespace: shop, {meta}}}").replace(
        "metadata: {labels: {app: w}}", f"metadata: {{labels: {{app: w}}, {template}}}")
    refused = refusal(text)
    assert refused[0] == field and refused[1].startswith(message)


def test_a_templates_toleration_is_judged_as_a_pods() -> None:
    field, message = refusal(manifest("apps/v1", "Deployment", SELECTOR,
                                      template="tolerations: [{key: 'bad key', operator: Exists}]"))
    assert field == "spec.template.spec.tolerations[0].key" and message.startswith(f'Invalid value: "bad key": {QUALIFIED}')
