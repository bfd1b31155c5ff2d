"""`kwhatif snapshot` and `--live` through Debian's real kubectl, against the fake API server of
tests/live/fake_apiserver.py serving conformance cases (skipped where kubectl is not installed).

The promise checked: a snapshot taken through kubectl and read back schedules byte for byte as the
case it was served from; kubectl only reads; nothing secret reaches the file; a kind the server
does not serve is a note, not an error; kubectl missing or failing is one line and exit 2."""

from __future__ import annotations

import base64
import hashlib
import gzip
import io
import json
import re
import socket
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from kwhatif.cli.common import kind_progress
from tests.cli.conftest import NOW, executable
from tests.conformance.compare import differences
from tests.conformance.versions import as_v1beta1
from tests.live.support import CASES, case_objects, kubectl_env  # noqa: F401 - a fixture
from tests.live.fake_apiserver import V1_34, WITHOUT_DRA, FakeAPIServer, Served, serving, write_kubeconfig

# Together they hold every kind the cases have: RuntimeClass (t09), PriorityClass and PDB (t49),
# PV, PVC, StorageClass, CSINode, CSIDriver (v04), StatefulSet, ReplicaSet, Service (c02, with its
# --config), and a random mix (r001).
ROUND_TRIP_CASES = [
    "targeted/t09-pod-overhead-runtimeclass", "targeted/t49-preemption-pdb", "volumes/v04-wffc-provisioner-topology",
    "config/c02-mostallocated-gpu-r003", "random/r001",
]

SECRET = "hunter2-planted-secret-value"


def kwhatif(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([executable("kwhatif"), *args], env=env, capture_output=True, text=True, timeout=300)


def schedule_args(case: Path) -> list[str]:
    config = case.parent / f"{case.name}.config.yaml"
    return ["schedule", "-o", "json", "--now", NOW, "-q"] + (["--config", str(config)] if config.exists() else [])


def read_snapshot(path: Path) -> dict[str, Any]:
    data = path.read_bytes()
    return json.loads(gzip.decompress(data) if path.suffix == ".gz" else data)


def only_read(server: FakeAPIServer) -> None:
    """kubectl made GET requests alone, and never for Secrets or ConfigMaps."""
    assert {method for method, _path in server.requests} == {"GET"}
    assert not [p for _m, p in server.requests if p.endswith(("/secrets", "/configmaps"))]


@pytest.mark.parametrize("name", ROUND_TRIP_CASES)
def test_a_snapshot_through_kubectl_schedules_byte_identically_to_its_case(
        name: str, tmp_path: Path, kubectl_env: dict[str, str]) -> None:
    case = CASES / name
    objects = case_objects(case.with_suffix(".yaml"))
    with serving(objects) as server:
        kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", server.url)
        taken = kwhatif(["snapshot", "-o", str(tmp_path / "snap.json.gz"), "--kubeconfig", str(kubeconfig)],
                        kubectl_env)
    assert taken.returncode == 0, taken.stderr
    only_read(server)
    # Every object of the case was captured, counted under its resource's name.
    resource = {s.kind: f"{s.plural}.{s.group}" if s.group else s.plural for s in V1_34}
    header = read_snapshot(tmp_path / "snap.json.gz")["metadata"]["annotations"]
    counts = {r: int(n) for r, n in (pair.split("=") for pair in header["kwhatif.snapshot/captured"].split(", "))}
    assert {r: n for r, n in counts.items() if n} == dict(Counter(resource[o["kind"]] for o in objects))
    from_case = kwhatif(schedule_args(case) + ["-c", str(case.with_suffix(".yaml"))], kubectl_env)
    from_snapshot = kwhatif(schedule_args(case) + ["-c", str(tmp_path / "snap.json.gz")], kubectl_env)
    assert from_snapshot.stderr == from_case.stderr == ""
    assert (from_snapshot.returncode, from_snapshot.stdout) == (from_case.returncode, from_case.stdout)


def test_live_schedules_as_the_case_it_reads(tmp_path: Path, kubectl_env: dict[str, str]) -> None:
    case = CASES / "targeted/t46-preemption-single-victim"
    with serving(case_objects(case.with_suffix(".yaml"))) as server:
        kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", server.url)
        live = kwhatif(schedule_args(case) + ["--live", "--kubeconfig", str(kubeconfig)], kubectl_env)
    only_read(server)
    from_case = kwhatif(schedule_args(case) + ["-c", str(case.with_suffix(".yaml"))], kubectl_env)
    assert (live.returncode, live.stdout, live.stderr) == (from_case.returncode, from_case.stdout, "")


def test_live_reads_the_context_it_is_given(tmp_path: Path, kubectl_env: dict[str, str]) -> None:
    # The kubeconfig's current context points at a closed port; --context fake reaches the server.
    case = CASES / "targeted/t01-insufficient-cpu"
    with serving(case_objects(case.with_suffix(".yaml"))) as server:
        config = json.loads(write_kubeconfig(tmp_path / "kubeconfig", server.url).read_text())
        config["clusters"].append({"name": "down", "cluster": {"server": f"http://127.0.0.1:{closed_port()}"}})
        config["contexts"].append({"name": "down", "context": {"cluster": "down", "user": "fake"}})
        config["current-context"] = "down"
        (tmp_path / "kubeconfig").write_text(json.dumps(config))
        live = kwhatif(schedule_args(case) + ["--live", "--context", "fake", "--kubeconfig",
                                              str(tmp_path / "kubeconfig")], kubectl_env)
    from_case = kwhatif(schedule_args(case) + ["-c", str(case.with_suffix(".yaml"))], kubectl_env)
    assert (live.returncode, live.stdout) == (from_case.returncode, from_case.stdout)


def test_a_live_diff_names_the_cluster_it_read(tmp_path: Path, kubectl_env: dict[str, str]) -> None:
    # No -c file to name: the sides say they read the live cluster, through which context.
    case = CASES / "targeted/t01-insufficient-cpu"
    with serving(case_objects(case.with_suffix(".yaml"))) as server:
        kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", server.url)
        named = kwhatif(["diff", "--live", "--context", "fake", "--kubeconfig", str(kubeconfig), "-q",
                         "--now", "2026-01-01T00:00:00Z"], kubectl_env)
    lines = named.stdout.splitlines()
    assert lines[:2] == ["before: the live cluster (context fake) (default profile)",
                         "after:  the live cluster (context fake) (default profile)"], named.stdout


def planted_objects() -> list[dict[str, Any]]:
    """A pod, a Deployment, a Secret and a ConfigMap each carrying SECRET where credentials end up:
    env values, envFrom, commands and args, probes, the last-applied annotation, a vault annotation."""
    container = {
        "name": "app", "image": "shop:1", "resources": {"requests": {"cpu": "250m"}},
        "env": [{"name": "PASSWORD", "value": SECRET}], "envFrom": [{"secretRef": {"name": SECRET}}],
        "command": ["sh", "-c", f"login --password {SECRET}"], "args": [f"--token={SECRET}"],
        "livenessProbe": {"exec": {"command": ["check", SECRET]}},
    }
    meta_secret = {"kubectl.kubernetes.io/last-applied-configuration": json.dumps({"env": SECRET}),
                   "vault.example.com/token": SECRET}
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}},
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "annotations": meta_secret},
         "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"}}},
        {"apiVersion": "v1", "kind": "Pod",
         "metadata": {"name": "web", "namespace": "shop", "annotations": meta_secret,
                      "managedFields": [{"manager": "kubectl", "fieldsV1": {"f:env": SECRET}}],
                      "creationTimestamp": "2025-06-01T00:00:00Z"},
         "spec": {"containers": [container], "initContainers": [dict(container, name="init")]}},
        {"apiVersion": "apps/v1", "kind": "Deployment",
         "metadata": {"name": "web", "namespace": "shop", "annotations": {**meta_secret,
             # a real last-applied manifest: the secret in the template's containers and
             # annotations, in a probe, and in a field outside the template
             "kubectl.kubernetes.io/last-applied-configuration": json.dumps(
                 {"apiVersion": "apps/v1", "kind": "Deployment",
                  "metadata": {"name": "web", "namespace": "shop", "annotations": {"vault.example.com/token": SECRET}},
                  "spec": {"minReadySeconds": 5, "selector": {"matchLabels": {"app": "web"}}, "template": {
                      "metadata": {"labels": {"app": "web"}, "annotations": {"vault.example.com/token": SECRET}},
                      "spec": {"containers": [container], "hostname": SECRET}}}})}},
         "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {
             "metadata": {"labels": {"app": "web"}, "annotations": meta_secret},
             "spec": {"containers": [container]}}}},
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "db", "namespace": "shop"},
         "data": {"password": base64.b64encode(SECRET.encode()).decode()}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg", "namespace": "shop"},
         "data": {"password": SECRET}},
    ]


def test_a_planted_secret_never_reaches_the_snapshot(tmp_path: Path, kubectl_env: dict[str, str]) -> None:
    with serving(planted_objects()) as server:
        kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", server.url)
        taken = kwhatif(["snapshot", "-o", str(tmp_path / "snap.json"), "--kubeconfig", str(kubeconfig), "-q"],
                        kubectl_env)
    assert taken.returncode == 0, taken.stderr
    only_read(server)
    text = (tmp_path / "snap.json").read_text()
    assert SECRET not in text and base64.b64encode(SECRET.encode()).decode() not in text
    snapshot = json.loads(text)
    assert "Secrets and ConfigMaps are never captured" in snapshot["metadata"]["annotations"]["kwhatif.snapshot/content"]
    pod = next(o for o in snapshot["items"] if o["kind"] == "Pod")
    # What scheduling reads stays: the request and the container's name and image; env, envFrom,
    # command and args only as digests (check compares them); the probe goes.
    (container,) = pod["spec"]["containers"]
    assert {k: v for k, v in container.items() if k not in ("env", "envFrom", "command", "args")} == {
        "name": "app", "image": "shop:1", "resources": {"requests": {"cpu": "250m"}}}
    assert [v["name"] for v in container["env"]] == ["PASSWORD"]
    digests = [container["env"][0]["value"], container["envFrom"][0]["prefix"], *container["command"], *container["args"]]
    # Sealed with the cluster's salt, named in each (api/meta.py:sealed_digest): the sha256 of the
    # salt, a colon and the value's plain digest; the salt from the namespaces' UIDs (redact.py).
    uids = sorted(str(o["metadata"].get("uid", "")) for o in snapshot["items"] if o["kind"] == "Namespace")
    salt = hashlib.sha256("\n".join(["kwhatif-salt", *uids]).encode()).hexdigest()[:16]
    assert all(re.fullmatch(rf"sha256:{salt}:[0-9a-f]{{64}}", d) for d in digests), digests
    plain = "sha256:" + hashlib.sha256(json.dumps({"value": SECRET}, separators=(",", ":")).encode()).hexdigest()
    assert container["env"][0]["value"] == f"sha256:{salt}:" + hashlib.sha256(f"{salt}:{plain}".encode()).hexdigest()


def test_keep_all_keeps_the_values_but_never_secrets_or_config_maps(tmp_path: Path, kubectl_env: dict[str, str]) -> None:
    with serving(planted_objects()) as server:
        kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", server.url)
        taken = kwhatif(["snapshot", "-o", str(tmp_path / "snap.json"), "--kubeconfig", str(kubeconfig),
                         "--keep-all", "-q"], kubectl_env)
    assert taken.returncode == 0, taken.stderr
    snapshot = read_snapshot(tmp_path / "snap.json")
    pod = next(o for o in snapshot["items"] if o["kind"] == "Pod")
    assert pod["spec"]["containers"][0]["env"] == [{"name": "PASSWORD", "value": SECRET}]
    assert {o["kind"] for o in snapshot["items"]} == {"Namespace", "Node", "Pod", "Deployment"}


def test_kinds_the_server_does_not_serve_are_skipped_with_a_note(tmp_path: Path, kubectl_env: dict[str, str]) -> None:
    case = CASES / "targeted/t01-insufficient-cpu"
    with serving(case_objects(case.with_suffix(".yaml")), WITHOUT_DRA) as server:
        kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", server.url)
        taken = kwhatif(["snapshot", "-o", str(tmp_path / "snap.json.gz"), "--kubeconfig", str(kubeconfig)],
                        kubectl_env)
    assert taken.returncode == 0, taken.stderr
    dra = ("deviceclasses.resource.k8s.io, resourceslices.resource.k8s.io, resourceclaims.resource.k8s.io, "
           "resourceclaimtemplates.resource.k8s.io")
    assert f"kwhatif: note: not served by this cluster, skipped: {dra}" in taken.stderr.splitlines()
    header = read_snapshot(tmp_path / "snap.json.gz")["metadata"]["annotations"]
    assert header["kwhatif.snapshot/not-served"] == dra
    # t01 holds 7 Namespaces, 2 PriorityClasses, 3 Nodes, 9 Pods (6 bound, 3 pending), nothing else.
    counts = dict(pair.split("=") for pair in header["kwhatif.snapshot/captured"].split(", "))
    assert {k: v for k, v in counts.items() if v != "0"} == {
        "namespaces": "7", "priorityclasses.scheduling.k8s.io": "2", "nodes": "3", "pods": "9"}


def closed_port() -> int:
    """A port on 127.0.0.1 nobody listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("args", [["snapshot", "-o", "out.json"], ["schedule", "--live"]], ids=["snapshot", "--live"])
def test_kubectl_missing_is_one_line_and_exit_2(args: list[str], tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    done = kwhatif(args, {"PATH": str(empty), "HOME": str(tmp_path)})
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "kwhatif: error: kubectl not found on PATH: `kwhatif snapshot` and `--live` read the cluster through your "
        "own kubectl (install it, e.g. `apt-get install kubectl`, or add it to PATH)"]


@pytest.mark.parametrize("command", [["snapshot", "-o", "out.json"], ["schedule", "--live"]], ids=["snapshot", "--live"])
def test_kubectl_failing_is_one_line_and_exit_2(command: list[str], tmp_path: Path, kubectl_env: dict[str, str]) -> None:
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", f"http://127.0.0.1:{closed_port()}")
    done = kwhatif(command + ["--kubeconfig", str(kubeconfig)], kubectl_env)
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith(f"kwhatif: error: `kubectl api-resources -o name --kubeconfig={kubeconfig}` failed (exit 1): ")
    assert "refused" in line  # kubectl's own words: "The connection to the server ... was refused"
    assert not (tmp_path / "out.json").exists()


def test_a_command_without_cluster_or_live_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = kwhatif(["schedule"], {"PATH": "", "HOME": str(tmp_path)})
    assert (done.returncode, done.stderr) == (2, "kwhatif: error: no cluster given: pass -c/--cluster FILE "
                                                 "(repeatable), or --live to read it through kubectl\n")


@pytest.mark.parametrize("option", [["--context", "prod"], ["--kubeconfig", "k.yaml"]])
def test_kubectl_options_without_live_are_one_line_and_exit_2(option: list[str], tmp_path: Path) -> None:
    # Silently reading the -c file while the user meant a cluster would answer the wrong question.
    done = kwhatif(["schedule", "-c", "dump.yaml", *option], {"PATH": "", "HOME": str(tmp_path)})
    assert (done.returncode, done.stderr) == (2, "kwhatif: error: --context and --kubeconfig tell kubectl where "
                                                 "to read: they go with --live\n")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("stream, quiet, expected", [
    (_Terminal, False, "kwhatif: captured pods: 3\n"),
    (_Terminal, True, ""),
    (io.StringIO, False, ""),  # a log, not a terminal: no progress lines
], ids=["a terminal", "a terminal with -q", "a log"])
def test_a_progress_line_per_kind_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch, stream: type[io.StringIO],
                                                      quiet: bool, expected: str) -> None:
    err = stream()
    monkeypatch.setattr(sys, "stderr", err)
    kind_progress(quiet)("pods", 3)
    assert err.getvalue() == expected


@pytest.mark.parametrize("dra_versions, read_at", [
    (("v1beta1", "v1beta2"), "v1beta2"),  # a 1.33 server: v1beta1 preferred, v1beta2 beside it — the newer is read
    (("v1beta1",), "v1beta1"),            # a 1.32 server: v1beta1 only, its own shape
])
def test_dra_kinds_are_captured_at_the_newest_version_served(tmp_path: Path, kubectl_env: dict[str, str],
                                                            dra_versions: tuple[str, ...], read_at: str) -> None:
    """The capture schedules as kube-scheduler did with the reference case at v1."""
    case = CASES / "dra/dr001"
    served = WITHOUT_DRA + tuple(Served(s.group, v, s.plural, s.kind, s.namespaced)
                                 for v in dra_versions for s in V1_34 if s.group == "resource.k8s.io")
    as_served = as_v1beta1 if read_at == "v1beta1" else (
        lambda o: {**o, "apiVersion": "resource.k8s.io/v1beta2"} if o["apiVersion"].startswith("resource.k8s.io/")
        else o)
    objects = [as_served(o) for o in case_objects(case.with_suffix(".yaml"))]
    with serving(objects, served) as server:
        kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", server.url)
        taken = kwhatif(["snapshot", "-o", str(tmp_path / "snap.json"), "--kubeconfig", str(kubeconfig)], kubectl_env)
    assert taken.returncode == 0, taken.stderr
    versions = {o["apiVersion"] for o in read_snapshot(tmp_path / "snap.json")["items"] if o["kind"] == "DeviceClass"}
    assert versions == {f"resource.k8s.io/{read_at}"}
    read = kwhatif(["schedule", "-c", str(tmp_path / "snap.json"), "--now", NOW, "-o", "json", "-q"], kubectl_env)
    expected = json.loads(case.with_suffix(".expected.json").read_text())
    assert not differences(expected, json.loads(read.stdout)), read.stderr


def test_check_live_reads_the_clusters_autoscalers(tmp_path: Path, kubectl_env: dict[str, str]) -> None:
    """The snapshot captures HorizontalPodAutoscalers: one on Deployment web (min 7) in the
    cluster decides the replicas of the web manifest a check is given (3), as with the file."""
    hpa = Path(__file__).parent / "data" / "hpa"
    args = ["check", str(hpa / "web.yaml"), "--now", NOW, "-q", "-o", "json"]
    with serving(case_objects(hpa / "cluster.yaml")) as server:
        kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", server.url)
        live = kwhatif([*args, "--live", "--kubeconfig", str(kubeconfig)], kubectl_env)
    from_file = kwhatif([*args, "-c", str(hpa / "cluster.yaml")], kubectl_env)
    assert live.returncode == from_file.returncode == 1, live.stderr
    pods = [{w["name"]: w["pods"] for w in json.loads(run.stdout)["workloads"]} for run in (live, from_file)]
    assert pods == [{"web": 7}, {"web": 7}]
