"""Pod validation as the API server does it before admission, in its own words
(pkg/apis/core/validation/validation.go: validateContainers, ValidateResourceRequirements).

Each expected text is the upstream `field.Error` string: `<path>: Invalid value: "<value>": <detail>`
or `<path>: Required value[: <detail>]`, after the object (`Pod/<namespace>/<name>`)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from kwhatif.api.objects import LimitRange, LimitRangeItem
from kwhatif.errors import InputError
from kwhatif.load.admission import AdmissionRejected, admit_pod
from kwhatif.load.cluster import load_objects
from kwhatif.load.decode import decode
from kwhatif.load.reader import parse_bytes
from kwhatif.whatif.ops import template_node
from kwhatif.workloads import expand_objects
from kwhatif.workloads.common import decode_workload
from tests.load.test_raw_pods import dump, fast_and_general, outcome
from tests.load.test_raw_pods import pod as raw_pod


def pod_with(spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x", "namespace": "shop"}, "spec": spec}


def container(requests: dict[str, Any] | None = None, limits: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"name": "app", "image": "nginx", "resources": {"requests": requests or {}, "limits": limits or {}}}


@pytest.mark.parametrize("spec, text", [
    # field.Required(fldPath, "") on an empty container list.
    ({"containers": []}, "spec.containers: Required value"),
    ({}, "spec.containers: Required value"),
    # request 2 > limit 1: Invalid(reqPath, "2", "must be less than or equal to cpu limit of 1").
    ({"containers": [container({"cpu": "2"}, {"cpu": "1"})]},
     'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1'),
    # quantities print canonically in their own format: 1.5 -> 1500m, 2048Mi -> 2Gi, 1Gi stays.
    ({"containers": [container({"cpu": "1.5"}, {"cpu": "1"})]},
     'spec.containers[0].resources.requests: Invalid value: "1500m": must be less than or equal to cpu limit of 1'),
    ({"containers": [container({"memory": "2048Mi"}, {"memory": "1Gi"})]},
     'spec.containers[0].resources.requests: Invalid value: "2Gi": must be less than or equal to memory limit of 1Gi'),
    # init containers are validated the same way, under their own path.
    ({"containers": [container()], "initContainers": [container({"memory": "1G"}, {"memory": "500M"})]},
     'spec.initContainers[0].resources.requests: Invalid value: "1G": must be less than or equal to memory limit of 500M'),
    # extended resources cannot be overcommitted: request and limit must be equal, and a limit is required.
    ({"containers": [container({"nvidia.com/gpu": "1"}, {"nvidia.com/gpu": "2"})]},
     'spec.containers[0].resources.requests: Invalid value: "1": must be equal to nvidia.com/gpu limit of 2'),
    ({"containers": [container({"nvidia.com/gpu": "1"})]},
     "spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources"),
])
def test_the_api_server_refuses_the_pod_in_its_own_words(spec: dict[str, Any], text: str) -> None:
    with pytest.raises(InputError) as err:
        decode(pod_with(spec), None)
    assert str(err.value) == f"Pod/shop/x: {text}"


def test_hugepages_alone_are_judged_on_a_workloads_template_as_written_and_on_a_pod_after_its_limit_ranges() -> None:
    # Forbidden(fldPath, "HugePages require cpu or memory"): a Deployment's template is refused as it
    # is written (exit 2); a bare pod goes through LimitRanger first, whose default memory limit
    # makes it valid in `shop`, while in `bare` (no LimitRange) it is refused at admission.
    hugepages = {"requests": {"hugepages-2Mi": "2Mi"}, "limits": {"hugepages-2Mi": "2Mi"}}
    template = {"metadata": {"labels": {"app": "h"}}, "spec": {"containers": [{"name": "c", "image": "x",
                                                                               "resources": hugepages}]}}
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "h", "namespace": "shop"},
                  "spec": {"selector": {"matchLabels": {"app": "h"}}, "template": template}}
    with pytest.raises(InputError) as err:
        expand_objects([decode_workload(deployment, None)], [], "2026-01-01T00:00:00Z")
    assert str(err.value) == ("Deployment/shop/h: spec.template.spec.containers[0].resources: Forbidden: HugePages "
                              "require cpu or memory")
    limits = LimitRange("shop", "mem", (LimitRangeItem("Container", default={"memory": Fraction(2**30)}),))
    pods = {ns: decode({**pod_with(template["spec"]), "metadata": {"name": "p", "namespace": ns}}, None)
            for ns in ("shop", "bare")}
    assert admit_pod(pods["shop"], {}, {}, [limits], created=True).containers[0].limits["memory"] == 2**30
    with pytest.raises(AdmissionRejected) as refused:
        admit_pod(pods["bare"], {}, {}, [limits], created=True)
    assert str(refused.value) == 'Pod "p" is invalid: spec.containers[0].resources: Forbidden: HugePages require cpu or memory'


def named(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "image": "nginx", **extra}


# apimachinery's texts, as an InputError prints them: on one line, runs of spaces folded (Go's "',  or '").
RFC1123_LABEL = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
                 "start and end with an alphanumeric character (e.g. 'my-name', or '123-abc', regex used for "
                 "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")


@pytest.mark.parametrize("spec, text", [
    # validateContainers: a name is required, an RFC 1123 label, and unique among all containers.
    ({"containers": [{"image": "nginx"}]}, "spec.containers[0].name: Required value"),
    ({"containers": [named("A B")]}, f'spec.containers[0].name: Invalid value: "A B": {RFC1123_LABEL}'),
    ({"containers": [named("a"), named("a")]}, 'spec.containers[1].name: Duplicate value: "a"'),
    ({"containers": [{"name": "a"}]}, "spec.containers[0].image: Required value"),
    ({"containers": [named("a")], "initContainers": [named("a")]}, 'spec.initContainers[0].name: Duplicate value: "a"'),
    # validateContainerPorts: containerPort required and in range, a hostPort (0: none) in range, three protocols.
    ({"containers": [named("a", ports=[{"hostPort": 80}])]}, "spec.containers[0].ports[0].containerPort: Required value"),
    ({"containers": [named("a", ports=[{"containerPort": 70000}])]},
     "spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive"),
    ({"containers": [named("a", ports=[{"containerPort": 80, "hostPort": -1}])]},
     "spec.containers[0].ports[0].hostPort: Invalid value: -1: must be between 1 and 65535, inclusive"),
    ({"containers": [named("a", ports=[{"containerPort": 80, "protocol": "XYZ"}])]},
     'spec.containers[0].ports[0].protocol: Unsupported value: "XYZ": supported values: "SCTP", "TCP", "UDP"'),
    # validateContainerResourceName: no domain means a container resource; extended ones count whole units.
    ({"containers": [container({"pods": "1"})]},
     'spec.containers[0].resources.requests[pods]: Invalid value: "pods": must be a standard resource for containers'),
    ({"containers": [container({"example.com/gpu": "500m"}, {"example.com/gpu": "500m"})]},
     'spec.containers[0].resources.limits[example.com/gpu]: Invalid value: "500m": must be an integer'),
    # A JSON number the field's Go type cannot hold (PodSpec.priority is an int32).
    ({"containers": [container()], "priority": 2 ** 31}, "spec.priority: 2147483648 is out of range of an int32"),
    ({"containers": [container()], "priority": 10 ** 400}, "spec.priority: a 401-digit number is out of range of an int32"),
    # kube-scheduler counts cpu in int64 millicores: 1e16 cores overflow it.
    ({"containers": [container({"cpu": "1e16"})]},
     "spec.containers[0].resources.requests.cpu: '1e16' is too large: kube-scheduler counts it in 64-bit "
     "millicores (at most 9,223,372,036,854,775,807), where it would overflow"),
])
def test_the_api_server_refuses_containers_in_its_own_words(spec: dict[str, Any], text: str) -> None:
    with pytest.raises(InputError) as err:
        decode(pod_with(spec), None)
    assert str(err.value) == f"Pod/shop/x: {text}"


@pytest.mark.parametrize("labels, text", [
    ({"a/b/c": "x"}, 'metadata.labels: Invalid value: "a/b/c": a qualified name must consist of alphanumeric '
                     "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
                     "'MyName', or 'my.name', or '123-abc', regex used for validation is "
                     "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' "
                     "(e.g. 'example.com/MyName')"),
    ({"app": "has space"}, 'metadata.labels: Invalid value: "has space": a valid label must be an empty string or '
                           "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                           "alphanumeric character (e.g. 'MyValue', or 'my_value', or '12345', regex used for "
                           "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"),
])
def test_labels_are_refused_as_validate_labels_refuses_them(labels: dict[str, str], text: str) -> None:
    pod = pod_with({"containers": [container()]})
    pod["metadata"]["labels"] = labels
    with pytest.raises(InputError) as err:
        decode(pod, None)
    assert str(err.value) == f"Pod/shop/x: {text}"


@pytest.mark.parametrize("obj, text", [
    # scheduling validation.go:ValidatePriorityClass.
    ({"metadata": {"name": "mega"}, "value": 1_500_000_000},
     "PriorityClass/mega: value: Forbidden: maximum allowed value of a user defined priority is 1000000000"),
    ({"metadata": {"name": "system-mine"}, "value": 10},
     "PriorityClass/system-mine: metadata.name: Forbidden: priority class names with 'system-' prefix are reserved "
     "for system use only. error: system-mine is not a known system priority class"),
    ({"metadata": {"name": "system-node-critical"}, "value": 10},
     "PriorityClass/system-node-critical: metadata.name: Forbidden: priority class names with 'system-' prefix are "
     "reserved for system use only. error: value of system-node-critical PriorityClass must be 2000001000"),
    ({"metadata": {"name": "huge"}, "value": 10 ** 50},
     "PriorityClass/huge: value: a 51-digit number is out of range of an int32"),
])
def test_a_priority_class_the_api_server_refuses(obj: dict[str, Any], text: str) -> None:
    with pytest.raises(InputError) as err:
        decode({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", **obj}, None)
    assert str(err.value) == text


def test_the_built_in_priority_classes_are_accepted() -> None:
    obj = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
           "metadata": {"name": "system-cluster-critical"}, "value": 2_000_000_000}
    assert decode(obj, None).value == 2_000_000_000


@pytest.mark.parametrize("api_version, kind, text", [
    ("apps/v1", "Pod", 'Pod/shop/x: apiVersion: no matches for kind "Pod" in version "apps/v1" (Kubernetes 1.34 '
                       "serves it at v1)"),
    ("policy/v1beta1", "PodDisruptionBudget", 'PodDisruptionBudget/shop/x: apiVersion: no matches for kind '
                                              '"PodDisruptionBudget" in version "policy/v1beta1" (Kubernetes 1.34 '
                                              "serves it at policy/v1)"),
    ("apps/v1", "Deploymnet", 'Deploymnet/shop/x: kind: no matches for kind "Deploymnet" in version "apps/v1"'),
    ("resource.k8s.io/v1alpha3", "ResourceClaim",
     'ResourceClaim/shop/x: apiVersion: no matches for kind "ResourceClaim" in version "resource.k8s.io/v1alpha3" '
     "(Kubernetes 1.34 serves it at resource.k8s.io/v1, resource.k8s.io/v1beta2 and resource.k8s.io/v1beta1)"),
])
def test_a_kind_kubernetes_does_not_serve_at_that_version_is_refused(api_version: str, kind: str, text: str) -> None:
    obj = {"apiVersion": api_version, "kind": kind, "metadata": {"name": "x", "namespace": "shop"}, "spec": {}}
    with pytest.raises(InputError) as err:
        decode(obj, None)
    assert str(err.value) == text


@pytest.mark.parametrize("api_version, kind", [
    ("serving.knative.dev/v1", "Service"),  # Knative's Service is no core Service
    ("batch.volcano.sh/v1alpha1", "Job"),
])
def test_another_groups_kind_of_the_same_name_is_not_read(api_version: str, kind: str) -> None:
    obj = {"apiVersion": api_version, "kind": kind, "metadata": {"name": "x", "namespace": "shop"}, "spec": {}}
    assert decode(obj, None) is None


@pytest.mark.parametrize("requests, limits", [
    ({"cpu": "1"}, {"cpu": "1"}),                      # equal is fine
    ({"cpu": "500m"}, {"cpu": "1"}),                   # below the limit is fine for cpu
    ({}, {"nvidia.com/gpu": "2"}),                     # the request defaults to the limit
    ({"nvidia.com/gpu": "2"}, {"nvidia.com/gpu": "2"}),
])
def test_requests_within_their_limits_are_accepted(requests: dict[str, Any], limits: dict[str, Any]) -> None:
    assert decode(pod_with({"containers": [container(requests, limits)]}), None).containers[0].limits


@pytest.mark.parametrize("spec, text", [
    ({"containers": []}, "spec.containers: Required value"),
    ({"containers": [{"name": "web", "resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}}]},
     'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1'),
])
def test_a_big_dump_refuses_the_same_pods_in_the_same_words(spec: dict[str, Any], text: str) -> None:
    # The fast reader of big JSON Lists shares decoded templates between replicas: a good replica
    # first, then the invalid one, must fail as the general path does.
    fast, general, _docs = fast_and_general(dump([raw_pod("good"), raw_pod("bad", **spec)]))
    assert fast == general
    assert isinstance(fast, str) and fast.endswith(f"Pod/shop/bad: {text}")


def test_a_big_dump_reads_active_deadline_seconds_as_the_general_path() -> None:
    # The Terminating quota scopes read spec.activeDeadlineSeconds.
    fast, general, _docs = fast_and_general(dump([raw_pod("job", activeDeadlineSeconds=600)]))
    assert fast == general
    assert isinstance(fast, list) and fast[0].active_deadline_seconds == 600


def test_a_big_dumps_number_beyond_a_double_is_refused_by_its_field() -> None:
    # orjson can neither write nor read a 401-digit integer; the List's item is then read by
    # Python's json, and the field that holds it is refused by name, as anywhere else.
    big = json.dumps(raw_pod("big", priority=10 ** 400)).encode()
    docs = parse_bytes(dump([raw_pod("good"), big]), "dump.json")
    assert outcome(docs) == "dump.json#0.items[1]: Pod/shop/big: spec.priority: a 401-digit number is out of range of an int32"


def test_a_big_dump_reads_the_generated_claims_of_a_pods_status() -> None:
    # status.resourceClaimStatuses: what DynamicResources uses for a template's claim.
    dra = raw_pod("dra", None, resourceClaims=[{"name": "gpu", "resourceClaimTemplateName": "tmpl"},
                                              {"name": "opt", "resourceClaimTemplateName": "tmpl"}])
    dra["status"]["resourceClaimStatuses"] = [{"name": "gpu", "resourceClaimName": "dra-gpu-x7k2q"}, {"name": "opt"}]
    fast, general, _docs = fast_and_general(dump([raw_pod("good"), dra]))
    assert fast == general
    assert isinstance(fast, list) and fast[1].resource_claim_statuses == (("gpu", "dra-gpu-x7k2q"), ("opt", None))


@pytest.mark.parametrize("spec, text", [
    # ValidateVolumes: a name required, an RFC 1123 label, unique; exactly one source (validateVolumeSource).
    ({"containers": [named("a")], "volumes": [{"emptyDir": {}}]}, "spec.volumes[0].name: Required value"),
    ({"containers": [named("a")], "volumes": [{"name": "V_x", "emptyDir": {}}]},
     f'spec.volumes[0].name: Invalid value: "V_x": {RFC1123_LABEL}'),
    ({"containers": [named("a")], "volumes": [{"name": "v", "emptyDir": {}}, {"name": "v", "emptyDir": {}}]},
     'spec.volumes[1].name: Duplicate value: "v"'),
    ({"containers": [named("a")], "volumes": [{"name": "v"}]},
     "spec.volumes[0]: Required value: must specify a volume type"),
    # The second source found in validateVolumeSource's order (emptyDir before configMap) is refused.
    ({"containers": [named("a")], "volumes": [{"name": "v", "configMap": {"name": "c"}, "emptyDir": {}}]},
     "spec.volumes[0].configMap: Forbidden: may not specify more than 1 volume type"),
    # validatePersistentClaimVolumeSource: a claimName; validateEphemeralVolumeSource: a template.
    ({"containers": [named("a")], "volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": ""}}]},
     "spec.volumes[0].persistentVolumeClaim.claimName: Required value"),
    ({"containers": [named("a")], "volumes": [{"name": "v", "persistentVolumeClaim": {"readOnly": True}}]},
     "spec.volumes[0].persistentVolumeClaim.claimName: Required value"),
    ({"containers": [named("a")], "volumes": [{"name": "v", "ephemeral": {}}]},
     "spec.volumes[0].ephemeral.volumeClaimTemplate: Required value"),
    # ValidateVolumeMounts: the volume must be declared (field.NotFound), the mount path unique in the container.
    ({"containers": [named("a", volumeMounts=[{"name": "config", "mountPath": "/etc/app"}])]},
     'spec.containers[0].volumeMounts[0].name: Not found: "config"'),
    ({"containers": [named("a", volumeMounts=[{"name": "v", "mountPath": "/x"}, {"name": "v", "mountPath": "/x"}])],
      "volumes": [{"name": "v", "emptyDir": {}}]},
     'spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/x": must be unique'),
    ({"containers": [named("a", volumeMounts=[{"name": "v"}])], "volumes": [{"name": "v", "emptyDir": {}}]},
     "spec.containers[0].volumeMounts[0].mountPath: Required value"),
    ({"containers": [named("a")], "initContainers": [named("i", volumeMounts=[{"name": "w", "mountPath": "/w"}])]},
     'spec.initContainers[0].volumeMounts[0].name: Not found: "w"'),
    # validateContainerPorts: a port's name is an IANA service name (IsValidPortName), unique in its container.
    ({"containers": [named("a", ports=[{"containerPort": 9090, "name": "prometheus-metrics"}])]},
     'spec.containers[0].ports[0].name: Invalid value: "prometheus-metrics": must be no more than 15 characters'),
    ({"containers": [named("a", ports=[{"containerPort": 80, "name": "HTTP"}])]},
     'spec.containers[0].ports[0].name: Invalid value: "HTTP": must contain only alpha-numeric characters (a-z, '
     '0-9), and hyphens (-)'),
    ({"containers": [named("a", ports=[{"containerPort": 80, "name": "8080"}])]},
     'spec.containers[0].ports[0].name: Invalid value: "8080": must contain at least one letter (a-z)'),
    ({"containers": [named("a", ports=[{"containerPort": 80, "name": "a--b"}])]},
     'spec.containers[0].ports[0].name: Invalid value: "a--b": must not contain consecutive hyphens'),
    ({"containers": [named("a", ports=[{"containerPort": 80, "name": "http-"}])]},
     'spec.containers[0].ports[0].name: Invalid value: "http-": must not begin or end with a hyphen'),
    ({"containers": [named("a", ports=[{"containerPort": 80, "name": "http"}, {"containerPort": 81, "name": "http"}])]},
     'spec.containers[0].ports[1].name: Duplicate value: "http"'),
    # validateResourceClaimNames: each of a container's resources.claims names, once, one of the
    # pod's spec.resourceClaims (field.NotFound with the detail it adds: the names, or "which is empty").
    ({"containers": [named("a", resources={"claims": [{"name": "gpu"}]})]},
     'spec.containers[0].resources.claims[0]: Not found: "gpu": must be one of the names in '
     "pod.spec.resourceClaims which is empty"),
    ({"containers": [named("a", resources={"claims": [{"name": "gpu"}]})],
      "resourceClaims": [{"name": "nic", "resourceClaimName": "n"}, {"name": "fpga", "resourceClaimName": "f"}]},
     'spec.containers[0].resources.claims[0]: Not found: "gpu": must be one of the names in '
     "pod.spec.resourceClaims: fpga, nic"),
    ({"containers": [named("a")], "initContainers": [named("i", resources={"claims": [{"name": ""}]})]},
     "spec.initContainers[0].resources.claims[0]: Required value"),
    ({"containers": [named("a", resources={"claims": [{"name": "gpu"}, {"name": "gpu"}]})],
      "resourceClaims": [{"name": "gpu", "resourceClaimName": "g"}]},
     'spec.containers[0].resources.claims[1]: Duplicate value: "gpu"'),
    # with a request, the key is claim/request: the same request twice is the duplicate
    ({"containers": [named("a", resources={"claims": [{"name": "gpu", "request": "r0"}, {"name": "gpu", "request": "r0"}]})],
      "resourceClaims": [{"name": "gpu", "resourceClaimName": "g"}]},
     'spec.containers[0].resources.claims[1]: Duplicate value: "gpu/r0"'),
])
def test_the_api_server_refuses_volumes_mounts_and_port_names_in_its_own_words(spec: dict[str, Any],
                                                                                text: str) -> None:
    with pytest.raises(InputError) as err:
        decode(pod_with(spec), None)
    assert str(err.value) == f"Pod/shop/x: {text}"


def test_two_requests_of_one_claim_are_accepted() -> None:
    # validateResourceClaimNames keys a container's claims by name/request: gpus/gpu-0 and gpus/gpu-1 differ.
    decode(pod_with({"containers": [named("a", resources={"claims": [{"name": "gpus", "request": "gpu-0"},
                                                                    {"name": "gpus", "request": "gpu-1"}]})],
                     "resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": "two"}]}), None)


def test_the_same_port_name_in_two_containers_and_a_mounted_volume_are_accepted() -> None:
    # validateContainerPorts keeps its set of names per container; a declared volume may be mounted by all.
    mount = [{"name": "v", "mountPath": "/v"}]
    decode(pod_with({"containers": [named("a", ports=[{"containerPort": 80, "name": "http"}], volumeMounts=mount),
                                    named("b", ports=[{"containerPort": 81, "name": "http"}], volumeMounts=mount)],
                     "volumes": [{"name": "v", "emptyDir": {}}]}), None)


def test_a_big_dump_refuses_a_bad_port_name_as_the_general_path() -> None:
    # (Its mounts are not read again: each replica's service-account token volume and mount have a
    # name of their own, and a big dump's pods are the ones the API server accepted.)
    spec = {"containers": [{"name": "web", "image": "nginx", "ports": [{"containerPort": 80, "name": "Web"}]}]}
    fast, general, _docs = fast_and_general(dump([raw_pod("good"), raw_pod("bad", **spec)]))
    assert fast == general
    assert isinstance(fast, str) and fast.endswith(
        'Pod/shop/bad: spec.containers[0].ports[0].name: Invalid value: "Web": must contain only alpha-numeric '
        "characters (a-z, 0-9), and hyphens (-)")


def service_with(spec: dict[str, Any], name: str = "web") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": "shop"}, "spec": spec}


@pytest.mark.parametrize("obj, text", [
    # ValidateService: ports required unless headless or ExternalName; validateServicePort: a name when
    # there are several (an RFC 1123 label, unique), a port in range, a protocol, a targetPort number or name.
    (service_with({"selector": {"app": "web"}}), "Service/shop/web: spec.ports: Required value"),
    (service_with({"ports": [{"port": 80}, {"port": 443}]}), "Service/shop/web: spec.ports[0].name: Required value"),
    (service_with({"ports": [{"name": "h", "port": 80}, {"name": "h", "port": 443}]}),
     'Service/shop/web: spec.ports[1].name: Duplicate value: "h"'),
    (service_with({"ports": [{"name": "Web", "port": 80}]}),
     f'Service/shop/web: spec.ports[0].name: Invalid value: "Web": {RFC1123_LABEL}'),
    (service_with({"ports": [{"port": 0}]}),
     "Service/shop/web: spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive"),
    (service_with({"ports": [{"port": 80, "protocol": "HTTP"}]}),
     'Service/shop/web: spec.ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"'),
    (service_with({"ports": [{"port": 80, "targetPort": "metrics-endpoint-1"}]}),
     'Service/shop/web: spec.ports[0].targetPort: Invalid value: "metrics-endpoint-1": must be no more than 15 '
     "characters"),
    (service_with({"ports": [{"port": 80, "targetPort": 70000}]}),
     "Service/shop/web: spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive"),
    # supportedServiceType, listed sorted (sets.List).
    (service_with({"type": "Bogus", "ports": [{"port": 80}]}),
     'Service/shop/web: spec.type: Unsupported value: "Bogus": supported values: "ClusterIP", "ExternalName", '
     '"LoadBalancer", "NodePort"'),
])
def test_a_service_the_api_server_refuses(obj: dict[str, Any], text: str) -> None:
    with pytest.raises(InputError) as err:
        decode(obj, None)
    assert str(err.value) == text


def test_a_service_is_named_by_a_dns_1035_label(tmp_path: Path) -> None:
    # ValidateServiceName: NameIsDNS1035Label (starts with a letter), unlike a Deployment's subdomain.
    (tmp_path / "svc.json").write_text(json.dumps(service_with({"ports": [{"port": 80}]}, name="1svc")))
    with pytest.raises(InputError) as err:
        load_objects([str(tmp_path)])
    assert str(err.value).endswith(
        "Service/shop/1svc: metadata.name: Invalid value: '1svc': a DNS-1035 label must consist of lower case "
        "alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character "
        "(e.g. 'my-name', or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")


@pytest.mark.parametrize("spec", [
    {"clusterIP": "None", "selector": {"app": "db"}},  # headless: no port needed
    {"type": "ExternalName", "externalName": "db.example.com"},
    {"ports": [{"port": 80, "targetPort": "http"}]},  # one port needs no name
])
def test_services_the_api_server_takes(spec: dict[str, Any]) -> None:
    decode(service_with(spec), None)


def budget_with(spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "shop"},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, **spec}}


@pytest.mark.parametrize("spec, text", [
    # ValidatePodDisruptionBudgetSpec: not both; each ValidatePositiveIntOrPercent and IsNotMoreThan100Percent.
    ({"minAvailable": 1, "maxUnavailable": 1}, "spec: Invalid value: "),
    ({"minAvailable": -1}, "spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"),
    # The IntOrString is printed by its String(), unquoted (field/errors.go ErrorBody: a value
    # whose pointer is a fmt.Stringer).
    ({"maxUnavailable": "150%"}, "spec.maxUnavailable: Invalid value: 150%: must not be greater than 100%"),
    ({"minAvailable": "abc"},
     "spec.minAvailable: Invalid value: abc: a valid percent string must be a numeric string followed by an "
     "ending '%' (e.g. '1%', or '93%', regex used for validation is '[0-9]+%')"),
    # field.NotSupported over supportedUnhealthyPodEvictionPolicies, listed sorted.
    ({"unhealthyPodEvictionPolicy": "Always"},
     'spec.unhealthyPodEvictionPolicy: Unsupported value: "Always": supported values: "AlwaysAllow", '
     '"IfHealthyBudget"'),
])
def test_a_budget_the_api_server_refuses(spec: dict[str, Any], text: str) -> None:
    with pytest.raises(InputError) as err:
        decode(budget_with(spec), None)
    assert str(err.value).startswith(f"PodDisruptionBudget/shop/web: {text}")
    if "minAvailable" in spec and "maxUnavailable" in spec:
        assert str(err.value).endswith("minAvailable and maxUnavailable cannot be both set")


@pytest.mark.parametrize("spec, policy", [
    ({}, "IfHealthyBudget"),
    ({"unhealthyPodEvictionPolicy": "AlwaysAllow"}, "AlwaysAllow"),
    ({"unhealthyPodEvictionPolicy": "IfHealthyBudget"}, "IfHealthyBudget"),
], ids=["unset: IfHealthyBudget's behaviour", "AlwaysAllow", "IfHealthyBudget"])
def test_a_budgets_unhealthy_pod_eviction_policy_is_read(spec: dict[str, Any], policy: str) -> None:
    assert decode(budget_with(spec), None).unhealthy_pod_eviction_policy == policy


@pytest.mark.parametrize("key, refused", [
    ("a<b|c%d::e", True),
    ("example.com/Checksum", False),   # case does not matter: the key is lowered first
    ("checksum/config", False),
    ("/config", True),                 # an empty prefix
])
def test_an_annotation_key_is_refused_as_the_api_server_refuses_it(key: str, refused: bool) -> None:
    """ValidateAnnotations: IsQualifiedName(strings.ToLower(key)) for each key."""
    doc = pod_with({"containers": [named("a")]})
    doc["metadata"]["annotations"] = {key: "v"}
    if not refused:
        decode(doc, None)
        return
    with pytest.raises(InputError) as err:
        decode(doc, None)
    assert str(err.value).startswith(f'Pod/shop/x: metadata.annotations: Invalid value: "{key}": ')


def test_a_node_selector_is_refused_as_labels_are() -> None:
    # ValidatePodSpec: unversionedvalidation.ValidateLabels(spec.NodeSelector, fldPath.Child("nodeSelector")).
    with pytest.raises(InputError) as err:
        decode(pod_with({"containers": [named("a")], "nodeSelector": {"node role": "worker"}}), None)
    assert str(err.value).startswith('Pod/shop/x: spec.nodeSelector: Invalid value: "node role": name part must '
                                     "consist of alphanumeric characters")


def probe(**fields: Any) -> dict[str, Any]:
    return fields


@pytest.mark.parametrize("extra, text", [
    # validatePullPolicy: three values (empty is defaulted from the image's tag).
    ({"imagePullPolicy": "IfNotPresnt"},
     'spec.containers[0].imagePullPolicy: Unsupported value: "IfNotPresnt": supported values: "Always", '
     '"IfNotPresent", "Never"'),
    # ValidateEnv, relaxed names (GA in v1.34): printable ASCII but '='; validateEnvVarValueFrom.
    ({"env": [{"name": "1=A", "value": "x"}]},
     "spec.containers[0].env[0].name: Invalid value: \"1=A\": a valid environment variable name must consist only of "
     "printable ASCII characters other than '='"),
    ({"env": [{"value": "x"}]}, "spec.containers[0].env[0].name: Required value"),
    ({"env": [{"name": "A", "value": "x", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]},
     'spec.containers[0].env[0].valueFrom: Invalid value: "": may not be specified when `value` is not empty'),
    ({"env": [{"name": "A", "valueFrom": {}}]},
     'spec.containers[0].env[0].valueFrom: Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, '
     "`configMapKeyRef` or `secretKeyRef`"),
    # validateProbe / validateHandler: exactly one handler, counts not negative; liveness succeeds once.
    ({"readinessProbe": probe(periodSeconds=5)},
     "spec.containers[0].readinessProbe: Required value: must specify a handler type"),
    ({"readinessProbe": probe(httpGet={"port": 80}, tcpSocket={"port": 80})},
     "spec.containers[0].readinessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type"),
    ({"livenessProbe": probe(tcpSocket={"port": 80}, periodSeconds=-1)},
     "spec.containers[0].livenessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0"),
    ({"livenessProbe": probe(tcpSocket={"port": 80}, successThreshold=2)},
     "spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1"),
])
def test_the_api_server_refuses_env_pull_policies_and_probes_in_its_own_words(extra: dict[str, Any],
                                                                               text: str) -> None:
    with pytest.raises(InputError) as err:
        decode(pod_with({"containers": [named("a", **extra)]}), None)
    assert str(err.value) == f"Pod/shop/x: {text}"


def test_a_readiness_probe_may_succeed_more_than_once_and_zero_counts_are_defaults() -> None:
    decode(pod_with({"containers": [named("a", readinessProbe=probe(httpGet={"port": 80}, successThreshold=3),
                                          livenessProbe=probe(exec={"command": ["true"]}, successThreshold=0))]}),
           None)


@pytest.mark.parametrize("extra, text", [
    # ValidateNodeName (an RFC 1123 subdomain), validateSchedulingGates (unique, at the gate's index), and
    # ValidateSpreadConstraintNotRepeat (the first of a repeated pair, at a path naming both keys).
    ({"nodeName": "Bad_Node"}, 'spec.nodeName: Invalid value: "Bad_Node": a lowercase RFC 1123 subdomain must consist'),
    ({"schedulingGates": [{"name": "example.com/a"}, {"name": "example.com/a"}]},
     'spec.schedulingGates[1]: Duplicate value: "example.com/a"'),
    ({"topologySpreadConstraints": [
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"},
        {"maxSkew": 2, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]},
     'spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate value: "{zone, DoNotSchedule}"'),
])
def test_the_api_server_refuses_node_names_gates_and_repeated_spread_constraints(extra: dict[str, Any],
                                                                                  text: str) -> None:
    with pytest.raises(InputError) as err:
        decode(pod_with({"containers": [named("a")], **extra}), None)
    assert str(err.value).startswith(f"Pod/shop/x: {text}")


QUALIFIED = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
             "alphanumeric character (e.g. 'MyName', or 'my.name', or '123-abc', regex used for validation is "
             "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
LABEL_VALUE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
               "must start and end with an alphanumeric character (e.g. 'MyValue', or 'my_value', or '12345', regex "
               "used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
REQUIRED_NODE = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
PREFERRED_NODE = "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference"
POD_TERM = "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"


def node_affinity(kind: str, *exprs: dict[str, Any], fields: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:
    term = {"matchExpressions": list(exprs), "matchFields": list(fields)}
    rules = ({"nodeSelectorTerms": [term]} if kind == "required" else [{"weight": 1, "preference": term}])
    return {"affinity": {"nodeAffinity": {f"{kind}DuringSchedulingIgnoredDuringExecution": rules}}}


def pod_term(**term: Any) -> dict[str, Any]:
    return {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "zone", **term}]}}}


@pytest.mark.parametrize("extra, text", [
    # ValidateTolerations, in its order: the key (ValidateLabelName), Exists when the key is empty,
    # tolerationSeconds with NoExecute only, the value by operator (an Equal value's error at
    # `operator`), then the effect.
    ({"tolerations": [{"key": "bad key", "operator": "Exists"}]},
     f'spec.tolerations[0].key: Invalid value: "bad key": {QUALIFIED}'),
    ({"tolerations": [{"key": "a/b/c", "value": "a b"}]}, 'spec.tolerations[0].key: Invalid value: "a/b/c": a qualified'),
    ({"tolerations": [{"operator": "Equal"}]}, 'spec.tolerations[0].operator: Invalid value: "Equal": operator must '
                                               'be Exists when `key` is empty, which means "match all values and all keys"'),
    ({"tolerations": [{"value": "v"}]}, 'spec.tolerations[0].operator: Invalid value: "": operator must be Exists'),
    ({"tolerations": [{"key": "k", "value": "a b", "tolerationSeconds": 5}]},
     "spec.tolerations[0].effect: Invalid value: \"\": effect must be 'NoExecute' when `tolerationSeconds` is set"),
    ({"tolerations": [{"key": "k", "operator": "Equal", "value": "a b", "effect": "NoSchedule"}]},
     f'spec.tolerations[0].operator: Invalid value: "a b": {LABEL_VALUE}'),
    ({"tolerations": [{"key": "k", "operator": "Exists", "value": "v"}]},
     'spec.tolerations[0].operator: Invalid value: {"Key":"k","Operator":"Exists","Value":"v","Effect":"",'
     '"TolerationSeconds":null}: value must be empty when `operator` is \'Exists\''),
    ({"tolerations": [{"key": "k", "operator": "Gt", "value": "1"}]},
     'spec.tolerations[0].operator: Unsupported value: "Gt": supported values: "Equal", "Exists"'),
    ({"tolerations": [{"key": "k", "effect": "NoScheduleNoAdmit"}]},
     'spec.tolerations[0].effect: Unsupported value: "NoScheduleNoAdmit": supported values: "NoSchedule", '
     '"PreferNoSchedule", "NoExecute"'),
    # validateSchedulingGates: ValidateQualifiedName at the gate's index.
    ({"schedulingGates": [{"name": "bad gate!"}]}, f'spec.schedulingGates[0]: Invalid value: "bad gate!": {QUALIFIED}'),
    ({"schedulingGates": [{"name": ""}]}, 'spec.schedulingGates[0]: Invalid value: "": name part must be non-empty'),
    # ValidateRuntimeClassName: a set name is a DNS subdomain, so "" is refused.
    ({"runtimeClassName": ""}, 'spec.runtimeClassName: Invalid value: "": a lowercase RFC 1123 subdomain must'),
    ({"runtimeClassName": "Kata"}, 'spec.runtimeClassName: Invalid value: "Kata": a lowercase RFC 1123 subdomain'),
    # validatePodAffinityTerm: selectors, each namespace (at `namespace`), then the topology key.
    (pod_term(topologyKey="bad key"), f'{POD_TERM}.topologyKey: Invalid value: "bad key": {QUALIFIED}'),
    (pod_term(topologyKey=""), f"{POD_TERM}.topologyKey: Required value: can not be empty"),
    (pod_term(topologyKey="", namespaces=["Bad_NS"]), f'{POD_TERM}.namespace: Invalid value: "Bad_NS": {RFC1123_LABEL}'),
    (pod_term(topologyKey="", namespaces=["ok"], labelSelector={"matchExpressions": [{"key": "a", "operator": "In"}]}),
     f"{POD_TERM}.labelSelector.matchExpressions[0].values: Required value: must be specified when `operator` is "
     "'In' or 'NotIn'"),
    (pod_term(namespaceSelector={"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]}),
     f'{POD_TERM}.namespaceSelector.matchExpressions[0].operator: Invalid value: "Gt": not a valid selector operator'),
    (pod_term(labelSelector={"matchExpressions": [{"key": "a", "operator": "In", "values": ["a b"]}]}),
     f'{POD_TERM}.labelSelector.matchExpressions[0].values[0]: Invalid value: "a b": {LABEL_VALUE}'),
    # ValidateNodeSelectorRequirement: operator and its values, then the key; a node field
    # selector names metadata.name, and a node.
    (node_affinity("required", {"key": "bad key", "operator": "Exists"}),
     f'{REQUIRED_NODE}.matchExpressions[0].key: Invalid value: "bad key": {QUALIFIED}'),
    (node_affinity("required", {"key": "", "operator": "Exists"}),
     f'{REQUIRED_NODE}.matchExpressions[0].key: Invalid value: "": name part must be non-empty'),
    (node_affinity("required", {"key": "", "operator": "Exists", "values": ["a"]}),
     f"{REQUIRED_NODE}.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or "
     "'DoesNotExist'"),
    (node_affinity("required", {"key": "k", "operator": "Gt", "values": ["1", "2"]}),
     f"{REQUIRED_NODE}.matchExpressions[0].values: Required value: must be specified single value when `operator` "
     "is 'Lt' or 'Gt'"),
    (node_affinity("required", {"key": "k", "operator": "Equals", "values": ["1"]}),
     f'{REQUIRED_NODE}.matchExpressions[0].operator: Invalid value: "Equals": not a valid selector operator'),
    (node_affinity("preferred", {"key": "bad key", "operator": "In", "values": ["a b"]}),
     f'{PREFERRED_NODE}.matchExpressions[0].key: Invalid value: "bad key": {QUALIFIED}'),
    (node_affinity("required", fields=({"key": "metadata.name", "operator": "In", "values": ["a", "b"]},)),
     f"{REQUIRED_NODE}.matchFields[0].values: Required value: must be only one value when `operator` is 'In' or "
     "'NotIn' for node field selector"),
    (node_affinity("required", fields=({"key": "metadata.uid", "operator": "In", "values": ["a"]},)),
     f'{REQUIRED_NODE}.matchFields[0].key: Invalid value: "metadata.uid": not a valid field selector key'),
    (node_affinity("required", fields=({"key": "metadata.name", "operator": "In", "values": ["Node_1"]},)),
     f'{REQUIRED_NODE}.matchFields[0].values[0]: Invalid value: "Node_1": a lowercase RFC 1123 subdomain'),
    # validatePreferredSchedulingTerms, validateWeightedPodAffinityTerms:
    # field.Invalid(.weight, weight, "must be in the range 1-100")
    ({"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 0, "preference": {"matchExpressions": [{"key": "k", "operator": "Exists"}]}}]}}},
     "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be "
     "in the range 1-100"),
    ({"affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 101, "podAffinityTerm": {"topologyKey": "zone"}}]}}},
     "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 101: "
     "must be in the range 1-100"),
])
def test_the_api_server_refuses_tolerations_gates_runtime_classes_and_affinity_in_its_own_words(
        extra: dict[str, Any], text: str) -> None:
    with pytest.raises(InputError) as err:
        decode(pod_with({"containers": [named("a")], **extra}), None)
    assert str(err.value).startswith(f"Pod/shop/x: {text}")
    fast, general, _docs = fast_and_general(dump([raw_pod("good"), raw_pod("bad", **extra)]))
    assert fast == general and isinstance(fast, str) and f"Pod/shop/bad: {text}" in fast


@pytest.mark.parametrize("extra", [
    {"tolerations": [{"operator": "Exists"}, {"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": -5},
                     {"key": "example.com/k", "value": ""}, {"key": "k", "operator": "Equal", "value": "v.1_x"}]},
    {"schedulingGates": [{"name": "example.com/a"}, {"name": "b"}]},
    {"runtimeClassName": "kata.v2"},
    # values are not judged as label values (see selectors.node_term); Gt and Lt values are not
    # parsed (no node matches "x").
    node_affinity("preferred", {"key": "k", "operator": "In", "values": ["a b", ""]}),
    node_affinity("required", {"key": "cores", "operator": "Gt", "values": ["-1"]}),
    node_affinity("required", {"key": "example.com/cores", "operator": "Gt", "values": ["x"]},
                  fields=({"key": "metadata.name", "operator": "NotIn", "values": ["n1.example.com"]},)),
    pod_term(topologyKey="topology.kubernetes.io/zone", namespaces=["team-a"], namespaceSelector={}),
])
def test_valid_but_unusual_scheduling_fields_are_accepted(extra: dict[str, Any]) -> None:
    decode(pod_with({"containers": [named("a")], **extra}), None)


@pytest.mark.parametrize("spec, text", [
    # AccumulateUniqueHostPorts: "protocol/hostIP/port" once among a list's containers.
    ({"containers": [named("a", ports=[{"containerPort": 80, "hostPort": 80}]),
                     named("b", ports=[{"containerPort": 81, "hostPort": 80}])]},
     'spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//80"'),
    # An init container's restartPolicy is Always (a sidecar) or unset; a regular container's is unset.
    ({"containers": [named("a")], "initContainers": [named("i", restartPolicy="Never")]},
     'spec.initContainers[0].restartPolicy: Unsupported value: "Never": supported values: "Always"'),
    ({"containers": [named("a", restartPolicy="Always")]},
     "spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers"),
])
def test_the_api_server_refuses_repeated_host_ports_and_misplaced_restart_policies(spec: dict[str, Any],
                                                                                   text: str) -> None:
    with pytest.raises(InputError) as err:
        decode(pod_with(spec), None)
    assert str(err.value) == f"Pod/shop/x: {text}"


def test_a_big_dump_refuses_a_node_name_that_is_no_name_as_the_general_path() -> None:
    # Found by the property test (tests/load/test_raw_pods.py): nodeName ":" read by the fast reader alone.
    fast, general, _docs = fast_and_general(dump([raw_pod("good"), raw_pod("bad", nodeName=":")]))
    assert fast == general
    assert isinstance(fast, str) and 'Pod/shop/bad: spec.nodeName: Invalid value: ":"' in fast


SUBDOMAIN_TEXT = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
                  "must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
                  "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
ID_RANGE = "must be between 0 and 2147483647, inclusive"


@pytest.mark.parametrize("extra, text", [
    # validateRestartPolicy: field.NotSupported with Always, OnFailure, Never (empty is defaulted to Always).
    ({"restartPolicy": "Sometimes"},
     'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"'),
    # validateDNSPolicy (empty is defaulted to ClusterFirst).
    ({"dnsPolicy": "Foo"}, 'spec.dnsPolicy: Unsupported value: "Foo": supported values: "ClusterFirstWithHostNet", '
                           '"ClusterFirst", "Default", "None"'),
    # ValidatePodSpec: activeDeadlineSeconds in InclusiveRangeError(1, math.MaxInt32).
    ({"activeDeadlineSeconds": 0}, "spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, "
                                   "inclusive"),
    # ValidatePodSpec: hostname and subdomain through ValidateDNS1123Label.
    ({"hostname": "Bad_Name"}, f'spec.hostname: Invalid value: "Bad_Name": {RFC1123_LABEL}'),
    ({"subdomain": "-x"}, f'spec.subdomain: Invalid value: "-x": {RFC1123_LABEL}'),
    # ValidatePodSpec: ValidateServiceAccountName (NameIsDNSSubdomain).
    ({"serviceAccountName": "Bad_SA"}, f'spec.serviceAccountName: Invalid value: "Bad_SA": {SUBDOMAIN_TEXT}'),
    # validatePodSpecSecurityContext: the internal type keeps shareProcessNamespace in the security context.
    ({"shareProcessNamespace": True, "hostPID": True}, "spec.securityContext.shareProcessNamespace: Invalid value: "
                                                       "true: ShareProcessNamespace and HostPID cannot both be enabled"),
    ({"securityContext": {"runAsUser": -1}}, f"spec.securityContext.runAsUser: Invalid value: -1: {ID_RANGE}"),
    ({"securityContext": {"fsGroup": 2147483648}},
     f"spec.securityContext.fsGroup: Invalid value: 2147483648: {ID_RANGE}"),
    ({"securityContext": {"supplementalGroups": [1, -2]}},
     f"spec.securityContext.supplementalGroups[1]: Invalid value: -2: {ID_RANGE}"),
    ({"securityContext": {"fsGroupChangePolicy": "Sometimes"}}, 'spec.securityContext.fsGroupChangePolicy: '
     'Unsupported value: "Sometimes": supported values: "Always", "OnRootMismatch"'),
    ({"securityContext": {"sysctls": [{"name": "net.core.somaxconn", "value": "1"},
                                      {"name": "net.core.somaxconn", "value": "2"}]}},
     'spec.securityContext.sysctls[1].name: Duplicate value: "net.core.somaxconn"'),
    # validateSeccompProfileField and ValidateAppArmorProfileField.
    ({"securityContext": {"seccompProfile": {"type": "Localhost"}}},
     "spec.securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is "
     "Localhost"),
    ({"securityContext": {"appArmorProfile": {"type": "Strict"}}}, 'spec.securityContext.appArmorProfile.type: '
     'Unsupported value: "Strict": supported values: "Localhost", "RuntimeDefault", "Unconfined"'),
    # validatePodDNSConfig.
    ({"dnsConfig": {"nameservers": ["1.1.1.1", "8.8.8.8", "9.9.9.9", "1.0.0.1"]}},
     'spec.dnsConfig.nameservers: Invalid value: []string{"1.1.1.1", "8.8.8.8", "9.9.9.9", "1.0.0.1"}: must not '
     "have more than 3 nameservers"),
    ({"dnsConfig": {"nameservers": ["1.1.1.300"]}}, 'spec.dnsConfig.nameservers[0]: Invalid value: "1.1.1.300": '
     "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"),
    ({"dnsPolicy": "None"}, "spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None"),
    ({"dnsPolicy": "None", "dnsConfig": {"searches": ["a.example"]}},
     "spec.dnsConfig.nameservers: Required value: must provide at least one DNS nameserver when `dnsPolicy` is None"),
    ({"dnsConfig": {"options": [{"value": "2"}]}}, "spec.dnsConfig.options[0]: Required value: must not be empty"),
    # validateReadinessGates: ValidateQualifiedName, the first message.
    ({"readinessGates": [{"conditionType": "bad type!"}]},
     'spec.readinessGates[0].conditionType: Invalid value: "bad type!": name part must consist of alphanumeric '
     "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName', or "
     "'my.name', or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
    # validateHostUsers: the paths as upstream spells them.
    ({"hostUsers": False, "hostNetwork": True}, "spec.hostNetwork: Forbidden: when `pod.Spec.HostUsers` is false"),
    ({"hostUsers": False, "hostPID": True}, "spec.HostPID: Forbidden: when `pod.Spec.HostUsers` is false"),
    # validatePodHostNetworkDeps: on the host's network a hostPort is its containerPort.
    ({"hostNetwork": True, "containers": [named("a", ports=[{"containerPort": 80, "hostPort": 8080}])]},
     "spec.containers[0].ports[0].hostPort: Invalid value: 8080: must match `containerPort` when `hostNetwork` is "
     "true"),
    # validateOS (refused at spec.os), validateLinux and validateWindows.
    ({"os": {"name": "plan9"}}, 'spec.os: Unsupported value: "plan9": supported values: "linux", "windows"'),
    ({"os": {}}, "spec.os.name: Required value: cannot be empty"),
    ({"os": {"name": "linux"}, "securityContext": {"windowsOptions": {"runAsUserName": "u"}}},
     "spec.securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod"),
    ({"os": {"name": "windows"}, "hostUsers": False}, "spec.hostUsers: Forbidden: cannot be set for a windows pod"),
    ({"os": {"name": "windows"}, "containers": [named("a", securityContext={"privileged": False})]},
     "spec.containers[0].securityContext.privileged: Forbidden: cannot be set for a windows pod"),
])
def test_the_api_server_refuses_the_pods_own_fields_in_its_own_words(extra: dict[str, Any], text: str) -> None:
    # ValidatePodSpec and the functions it calls (pkg/apis/core/validation/validation.go).
    with pytest.raises(InputError) as err:
        decode(pod_with({"containers": [named("a")], **extra}), None)
    assert str(err.value) == f"Pod/shop/x: {text}"


@pytest.mark.parametrize("extra, text", [
    # validateContainerCommon: terminationMessagePolicy (empty is defaulted to File).
    ({"terminationMessagePolicy": "Always"}, 'spec.containers[0].terminationMessagePolicy: Unsupported value: '
                                             '"Always": supported values: "File", "FallbackToLogsOnError"'),
    # ValidateSecurityContext: ids, procMount, escalation.
    ({"securityContext": {"runAsUser": -1}}, f"spec.containers[0].securityContext.runAsUser: Invalid value: -1: "
                                             f"{ID_RANGE}"),
    ({"securityContext": {"runAsGroup": 4294967296}},
     f"spec.containers[0].securityContext.runAsGroup: Invalid value: 4294967296: {ID_RANGE}"),
    ({"securityContext": {"procMount": "Unmasked"}}, 'spec.containers[0].securityContext.procMount: Invalid value: '
                                                     '"Unmasked": `hostUsers` must be false to use `Unmasked`'),
    ({"securityContext": {"procMount": "Masked"}}, 'spec.containers[0].securityContext.procMount: Unsupported '
                                                   'value: "Masked": supported values: "Default", "Unmasked"'),
    ({"securityContext": {"allowPrivilegeEscalation": False, "privileged": True}},
     'spec.containers[0].securityContext: Invalid value: {"allowPrivilegeEscalation":false,"privileged":true}: '
     "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"),
    ({"securityContext": {"allowPrivilegeEscalation": False, "capabilities": {"add": ["CAP_SYS_ADMIN"]}}},
     'spec.containers[0].securityContext: Invalid value: {"allowPrivilegeEscalation":false,"capabilities":{"add":'
     '["CAP_SYS_ADMIN"]}}: cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN'),
    ({"securityContext": {"seccompProfile": {}}}, "spec.containers[0].securityContext.seccompProfile.type: Required "
                                                  "value: type is required when seccompProfile is set"),
    # validateLifecycle / validateHandler (sleep allowed; zero too: PodLifecycleSleepActionAllowZero).
    ({"lifecycle": {"preStop": {}}}, "spec.containers[0].lifecycle.preStop: Required value: must specify a handler "
                                     "type"),
    ({"lifecycle": {"postStart": {"exec": {"command": ["a"]}, "sleep": {"seconds": 1}}}},
     "spec.containers[0].lifecycle.postStart.sleep: Forbidden: may not specify more than 1 handler type"),
    ({"lifecycle": {"preStop": {"sleep": {"seconds": 40}}}}, "spec.containers[0].lifecycle.preStop.sleep: Invalid "
     "value: 40: must be non-negative and less than terminationGracePeriodSeconds (30)"),
])
def test_the_api_server_refuses_a_containers_policy_security_and_hooks_in_its_own_words(extra: dict[str, Any],
                                                                                        text: str) -> None:
    # validateContainerCommon, ValidateSecurityContext, validateLifecycle (validation.go).
    with pytest.raises(InputError) as err:
        decode(pod_with({"containers": [named("a", **extra)]}), None)
    assert str(err.value) == f"Pod/shop/x: {text}"


def test_an_init_container_that_is_no_sidecar_has_no_hooks_nor_probes() -> None:
    # validateInitContainers: Forbidden without restartPolicy Always; a sidecar may have them.
    with pytest.raises(InputError) as err:
        decode(pod_with({"containers": [named("a")], "initContainers": [
            named("i", readinessProbe=probe(exec={"command": ["true"]}))]}), None)
    assert str(err.value) == ("Pod/shop/x: spec.initContainers[0].readinessProbe: Forbidden: may not be set for init "
                              "containers without restartPolicy=Always")
    decode(pod_with({"containers": [named("a")], "initContainers": [
        named("i", restartPolicy="Always", readinessProbe=probe(exec={"command": ["true"]}))]}), None)


@pytest.mark.parametrize("extra", [
    {"terminationGracePeriodSeconds": -1},  # a warning only: the pod strategy treats it as 1
    {"restartPolicy": "OnFailure", "dnsPolicy": "None", "dnsConfig": {"nameservers": ["10.0.0.10", "fd00::a"],
                                                                      "searches": ["ns.svc.cluster.local."]}},
    {"dnsPolicy": "ClusterFirstWithHostNet", "hostNetwork": True,
     "containers": [named("a", ports=[{"containerPort": 80}, {"containerPort": 81, "hostPort": 81}])]},
    {"hostname": "web-0", "subdomain": "web", "serviceAccountName": "system.robot",
     "readinessGates": [{"conditionType": "example.com/ready"}]},
    {"hostUsers": False, "securityContext": {"runAsUser": 0, "runAsGroup": 2147483647, "fsGroup": 0,
                                             "supplementalGroups": [0], "sysctls": [{"name": "kernel/shm_rmid_forced",
                                                                                    "value": "1"}]},
     "containers": [named("a", securityContext={"procMount": "Unmasked", "privileged": True,
                                                "allowPrivilegeEscalation": True})]},
    {"os": {"name": "windows"}, "hostPID": False, "securityContext": {"windowsOptions": {"hostProcess": False}}},
    {"os": {"name": "linux"}, "activeDeadlineSeconds": 2147483647,
     "containers": [named("a", terminationMessagePolicy="FallbackToLogsOnError",
                          lifecycle={"preStop": {"sleep": {"seconds": 0}}})]},
])
def test_valid_but_unusual_pods_are_accepted(extra: dict[str, Any]) -> None:
    decode(pod_with({"containers": [named("a")], **extra}), None)


@pytest.mark.parametrize("spec, text", [
    ({"restartPolicy": "Sometimes"}, 'spec.restartPolicy: Unsupported value: "Sometimes"'),
    ({"hostname": "Bad_Name"}, 'spec.hostname: Invalid value: "Bad_Name"'),
    ({"securityContext": {"runAsUser": -1}}, "spec.securityContext.runAsUser: Invalid value: -1"),
])
def test_a_big_dump_refuses_the_pods_own_fields_as_the_general_path(spec: dict[str, Any], text: str) -> None:
    # A good replica first: the bad one's template parts, or its per-pod hostname, are then judged apart.
    fast, general, _docs = fast_and_general(dump([raw_pod("good", hostname="good"), raw_pod("bad", **spec)]))
    assert fast == general
    assert isinstance(fast, str) and f"Pod/shop/bad: {text}" in fast


def test_a_big_dumps_stateful_pods_share_their_template_though_each_is_its_own_hostname() -> None:
    fast, general, _docs = fast_and_general(dump([raw_pod(f"db-{i}", hostname=f"db-{i}", subdomain="db")
                                                  for i in range(3)]))
    assert fast == general
    assert isinstance(fast, list) and fast[0].containers is fast[2].containers


@pytest.mark.parametrize("where, key, value", [
    ("metadata", "creationTimestamp", "2025-09-01T06:00:02"),  # no zone: Go's time.Parse(time.RFC3339) fails
    ("metadata", "creationTimestamp", "not-a-time"),
    ("metadata", "deletionTimestamp", "2025-09-01 06:00:02Z"),  # a space, not T
    ("status", "startTime", "yesterday"),
])
def test_a_time_that_is_not_rfc3339_with_its_zone_is_refused_by_its_field(where: str, key: str, value: str) -> None:
    # metav1.Time.UnmarshalJSON: time.Parse(time.RFC3339, str) — the API server cannot decode the
    # object. A big dump's reader sends it to the general path, which words the same error.
    text = f'{where}.{key}: Invalid value: "{value}": not an RFC 3339 time with its zone (e.g. 2025-09-01T06:00:00Z)'
    obj = raw_pod("bad")
    obj.setdefault(where, {})[key] = value
    fast, general, _docs = fast_and_general(dump([raw_pod("good"), obj]))
    assert fast == general
    assert isinstance(fast, str) and fast.endswith(f"Pod/shop/bad: {text}")


@pytest.mark.parametrize("value", ["2025-09-01T06:00:02Z", "2025-09-01t06:00:02.5z", "2025-09-01T06:00:02+02:00", ""])
def test_rfc3339_times_with_their_zone_are_read(value: str) -> None:
    obj = raw_pod("ok")
    obj["metadata"]["creationTimestamp"] = value
    fast, general, _docs = fast_and_general(dump([obj]))
    assert fast == general and isinstance(fast, list) and fast[0].creation_timestamp == value


def test_a_null_quantity_is_a_stated_zero_in_both_readers() -> None:
    # Quantity.UnmarshalJSON reads `null` as the zero quantity: a request of 0 cpu, stated (the
    # scheduler's 100m default for an unset cpu request does not apply).
    obj = raw_pod("nil")
    obj["spec"]["containers"][0]["resources"] = {"requests": {"cpu": None, "memory": "1Gi"}}
    fast, general, _docs = fast_and_general(dump([obj]))
    assert fast == general and isinstance(fast, list)
    assert fast[0].containers[0].requests["cpu"] == 0


def node_with(*taints: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "spec": {"taints": list(taints)},
            "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}}}


@pytest.mark.parametrize("taints, text", [
    # validateNodeTaints, in its order: key (ValidateLabelName), value (IsValidLabelValue, its
    # messages joined by ";"), effect (required), then each key and effect pair once.
    (({"key": "bad key", "value": "a b", "effect": "NoSchedule"},), f'spec.taints[0].key: Invalid value: "bad key": '
                                                                     f"{QUALIFIED}"),
    (({"key": "", "effect": "NoSchedule"},), 'spec.taints[0].key: Invalid value: "": name part must be non-empty'),
    (({"key": "k", "value": "a b", "effect": "NoSchedule"},), f'spec.taints[0].value: Invalid value: "a b": {LABEL_VALUE}'),
    (({"key": "k", "value": "v" * 64, "effect": "NoSchedule"},),
     f'spec.taints[0].value: Invalid value: "{"v" * 64}": must be no more than 63 characters'),
    (({"key": "k"},), "spec.taints[0].effect: Required value"),
    (({"key": "k", "effect": "NoScheduleNoAdmit"},), 'spec.taints[0].effect: Unsupported value: "NoScheduleNoAdmit": '
                                                     'supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"'),
    (({"key": "dedicated", "value": "x", "effect": "NoSchedule"}, {"key": "other", "effect": "NoSchedule"},
      {"key": "dedicated", "value": "y", "effect": "NoSchedule", "timeAdded": "2025-09-01T08:00:00.5+02:00"}),
     'spec.taints[2]: Duplicate value: {"Key":"dedicated","Value":"y","Effect":"NoSchedule",'
     '"TimeAdded":"2025-09-01T06:00:00Z"}: taints must be unique by key and effect pair'),
    # a metav1.Time, decoded before validation.
    (({"key": "t", "effect": "NoExecute", "timeAdded": "whenever"},),
     'spec.taints[0].timeAdded: Invalid value: "whenever": not an RFC 3339 time with its zone'),
])
def test_the_api_server_refuses_node_taints_in_its_own_words(taints: tuple[dict[str, Any], ...], text: str) -> None:
    with pytest.raises(InputError) as err:
        decode(node_with(*taints), None)
    assert str(err.value).startswith(f"Node/n1: {text}")


def test_a_key_may_taint_once_per_effect_and_a_template_node_is_judged_as_a_node(tmp_path: Path) -> None:
    node = decode(node_with({"key": "dedicated", "value": "x", "effect": "NoSchedule"},
                            {"key": "dedicated", "value": "x", "effect": "NoExecute", "timeAdded": "2025-09-01T06:00:00Z"},
                            {"key": "example.com/empty", "effect": "PreferNoSchedule"}), None)
    assert [t.effect for t in node.taints] == ["NoSchedule", "NoExecute", "PreferNoSchedule"]
    (tmp_path / "node.json").write_text(json.dumps(node_with({"key": "bad key", "effect": "NoSchedule"})))
    with pytest.raises(InputError) as err:
        template_node(str(tmp_path / "node.json"), [], "strict")
    assert 'Node/n1: spec.taints[0].key: Invalid value: "bad key"' in str(err.value)


def test_a_null_limit_is_a_zero_limit_a_request_cannot_exceed() -> None:
    # Quantity.UnmarshalJSON reads `null` as 0: a memory request of 128Mi above a null memory
    # limit is refused as above a limit of "0" (ValidateResourceRequirements); it crashed (exit 3).
    obj = pod_with({"containers": [container({"memory": "128Mi"}, {"memory": None})]})
    with pytest.raises(InputError) as info:
        decode(obj, None)
    assert str(info.value).endswith('spec.containers[0].resources.requests: Invalid value: "128Mi": must be less '
                                    "than or equal to memory limit of 0")


@pytest.mark.parametrize("kind", ["Node", "Service", "PriorityClass"])
def test_any_objects_time_that_is_no_time_is_refused(kind: str) -> None:
    # metav1.ObjectMeta's times decode as metav1.Time for every kind (not only a pod's, which
    # order the queue): the API server cannot decode the object, and kubectl apply fails.
    obj = {"apiVersion": "scheduling.k8s.io/v1" if kind == "PriorityClass" else "v1", "kind": kind, "value": 1,
           "metadata": {"name": "x", "creationTimestamp": "yesterday"}}
    with pytest.raises(InputError) as info:
        decode(obj, None)
    assert str(info.value).endswith('metadata.creationTimestamp: Invalid value: "yesterday": not an RFC 3339 time '
                                    "with its zone (e.g. 2025-09-01T06:00:00Z)")


@pytest.mark.parametrize("spec, text", [
    # validatePodResources: pod-level names are cpu, memory or hugepages-*; an unqualified other
    # name is no standard resource; a request within its limit.
    ({"containers": [named("a")], "resources": {"requests": {"foo": "1"}}},
     'spec.resources.requests[foo]: Invalid value: "foo": must be a standard resource type or fully qualified'),
    ({"containers": [named("a")], "resources": {"requests": {"ephemeral-storage": "1Gi"}}},
     'spec.resources.requests[ephemeral-storage]: Unsupported value: "ephemeral-storage": supported values: "cpu", '
     '"hugepages-", "memory"'),
    ({"containers": [named("a")], "resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}},
     'spec.resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1'),
    # validatePodResourceConsistency: two containers of 3 cpu make an aggregate of 6 > the pod's 1;
    # a container limit of 2 above the pod limit of 1.
    ({"containers": [container({"cpu": "3"}) | {"name": "a"}, container({"cpu": "3"}) | {"name": "b"}],
      "resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "1"}}},
     'spec.resources.requests[cpu]: Invalid value: "1": must be greater than or equal to aggregate container '
     'requests of 6'),
    ({"containers": [container({"cpu": "500m"}, {"cpu": "2"})], "resources": {"requests": {"cpu": "1"},
                                                                              "limits": {"cpu": "1"}}},
     'spec.resources.containers[0][cpu].limits: Invalid value: "2": must be less than or equal to pod limits of 1'),
    # validateResourceQuantityHugePageValue: 3Mi is no whole number of 2Mi pages (limits judged first).
    ({"containers": [container({"cpu": "1", "hugepages-2Mi": "3Mi"}, {"hugepages-2Mi": "3Mi"})]},
     'spec.containers[0].resources.limits[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not positive integer multiple '
     'of hugepages-2Mi'),
    # validateLabelKeys: a label name, only beside a labelSelector; and validateMatchLabelKeysAndMismatchLabelKeys.
    ({"containers": [named("a")], "topologySpreadConstraints": [
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule", "matchLabelKeys": ["app"]}]},
     "spec.topologySpreadConstraints[0].matchLabelKeys: Forbidden: must not be specified when labelSelector is not set"),
    ({"containers": [named("a")], "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "zone", "labelSelector": {"matchLabels": {"app": "a"}}, "matchLabelKeys": ["a b"]}]}}},
     'spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].matchLabelKeys[0]: Invalid '
     'value: "a b": name part must consist'),
    ({"containers": [named("a")], "affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "zone", "labelSelector": {"matchLabels": {"app": "a"}}, "matchLabelKeys": ["v"],
         "mismatchLabelKeys": ["v"]}]}}},
     'spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].matchLabelKeys[0]: Invalid value: '
     '"v": exists in both matchLabelKeys and mismatchLabelKeys'),
])
def test_the_api_server_refuses_resources_and_label_keys_in_its_own_words(spec: dict[str, Any],
                                                                                   text: str) -> None:
    with pytest.raises(InputError) as err:
        decode(pod_with(spec), None)
    assert str(err.value).startswith(f"Pod/shop/x: {text}")


@pytest.mark.parametrize("extra, meta, text", [
    # validateContainersOnlyForPod, ValidatePodCreate, ValidatePodSpecificAnnotations: refused when a
    # Pod is created (a workload's template may carry them; its pods then never exist).
    ({"containers": [{"name": "a", "image": " nginx"}]}, {},
     'spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace'),
    ({"containers": [named("a")], "nodeName": "n1", "schedulingGates": [{"name": "wait"}]}, {},
     "spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared"),
    ({"containers": [named("a")]}, {"annotations": {"kubernetes.io/config.mirror": "x"}},
     'metadata.annotations[kubernetes.io/config.mirror]: Invalid value: "x": must set spec.nodeName if mirror pod '
     'annotation is set'),
    ({"containers": [named("a")]}, {"annotations": {"controller.kubernetes.io/pod-deletion-cost": "abc"}},
     'metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "abc": must be a 32bit integer'),
])
def test_what_only_a_pod_being_created_is_refused_for(extra: dict[str, Any], meta: dict[str, Any], text: str) -> None:
    manifest = pod_with(extra)
    manifest["metadata"].update(meta)
    pod = decode(manifest, None)
    admit_pod(pod, {}, {}, [], created=False)  # a pod the snapshot has was created long ago
    with pytest.raises(AdmissionRejected) as err:
        admit_pod(pod, {}, {}, [], created=True)
    assert str(err.value) == f'Pod "x" is invalid: {text}'


def test_a_quantity_with_surrounding_spaces_is_read_as_the_api_server_trims_it() -> None:
    # Quantity.UnmarshalJSON: ParseQuantity(strings.TrimSpace(...)).
    pod = decode(pod_with({"containers": [container({"cpu": " 1 "})]}), None)
    assert pod.containers[0].requests["cpu"] == 1


@pytest.mark.parametrize("allocatable, text", [
    ({"cpu": "4", "pods": "110.5"}, 'status.allocatable[pods]: Invalid value: "110500m": must be an integer'),
    ({"cpu": "4", "pods": "110", "example.com/gpu": "500m"},
     'status.allocatable[example.com/gpu]: Invalid value: "500m": must be an integer'),
])
def test_a_node_whose_counts_are_fractions_is_refused(allocatable: dict[str, str], text: str) -> None:
    # ValidateNode: ValidateResourceQuantityValue — pods and extended resources are integers
    # (cpu and memory may be fractions).
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": allocatable}}
    with pytest.raises(InputError) as err:
        decode(node, None)
    assert str(err.value) == f"Node/n1: {text}"
    decode({**node, "status": {"allocatable": {"cpu": "1.5", "memory": "1.5Gi", "pods": "110"}}}, None)


@pytest.mark.parametrize("port, outcome", [
    pytest.param(80.0, 80, id="a whole-number float: kubectl sends it as 80 (YAML to JSON through float64)"),
    pytest.param(80.5, "expected an integer", id="a fraction is no integer"),
])
def test_an_integer_field_takes_a_whole_number_written_as_a_float(port: float, outcome: object) -> None:
    spec = {"containers": [{"name": "a", "image": "x", "ports": [{"containerPort": port}]}]}
    if isinstance(outcome, int):
        assert decode(pod_with(spec), None).containers[0].ports[0].container_port == outcome
    else:
        with pytest.raises(InputError) as err:
            decode(pod_with(spec), None)
        assert str(outcome) in str(err.value)
