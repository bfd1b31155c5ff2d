"""A CI gate that never passes silently: no workload in the files is an error, a DaemonSet that
matches no node is said (`no node`, and a warning), a misspelt field in a manifest is the error
kubectl apply's strict decoding makes it (with `--validate=warn`: a warning in every format, and
`--strict` the error; `--validate=ignore`: nothing), a claim that cannot bind because the snapshot lacks its storage
objects says so. The cluster is tests/cli/conftest.py's (nodes node-a, node-b, node-c)."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from tests.cli.conftest import CLUSTER, NOW, invoke, single_error_line

ARGS = ["-c", str(CLUSTER), "--now", NOW, "-q"]
WARN = [*ARGS, "--validate=warn"]
NOWHERE = """apiVersion: apps/v1
kind: DaemonSet
metadata: {name: gpu-agent, namespace: default}
spec:
  selector: {matchLabels: {app: gpu-agent}}
  template:
    metadata: {labels: {app: gpu-agent}}
    spec:
      nodeSelector: {accelerator: h100}
      containers:
      - name: agent
        image: agent:1
        resouces: {requests: {cpu: 100m}}
"""
TYPO = 'DaemonSet/default/gpu-agent: unknown field "spec.template.spec.containers[0].resouces"'
NO_NODE = ("DaemonSet/default/gpu-agent: matches no node: its nodeSelector, node affinity or tolerations exclude "
           "every node, so no pod would run")


@pytest.fixture
def nowhere(tmp_path: Path) -> str:
    path = tmp_path / "ds.yaml"
    path.write_text(NOWHERE)
    return str(path)


def test_files_without_a_workload_fail_instead_of_passing_zero_of_zero(tmp_path: Path) -> None:
    (tmp_path / "svc.yaml").write_text("apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: default}\n"
                                       "spec:\n  ports: [{port: 80}]\n")
    result = invoke(["check", str(tmp_path), *ARGS])
    assert result.exit_code == 2 and result.stdout == ""
    assert "no workload to check in the files" in single_error_line(result.stderr)


def test_a_folder_of_only_a_kustomization_is_no_input(tmp_path: Path) -> None:
    (tmp_path / "kustomization.yaml").write_text("resources:\n- deploy.yaml\n")
    result = invoke(["check", str(tmp_path), *ARGS])
    assert result.exit_code == 2
    assert "no objects passed" in single_error_line(result.stderr)


@pytest.mark.parametrize("doc, said", [
    # kubectl apply: `no matches for kind "Deploymnet" in version "apps/v1"` — not an ignored custom kind.
    ("apiVersion: apps/v1\nkind: Deploymnet\nmetadata: {name: w, namespace: default}\n",
     'Deploymnet/default/w: kind: no matches for kind "Deploymnet" in version "apps/v1"'),
    ("apiVersion: v1\nkind: [Pod]\nmetadata: {name: w, namespace: default}\n",
     "kind: must be a non-empty string, not an array"),
])
def test_a_kind_the_api_server_cannot_map_fails_the_gate_as_bad_input(tmp_path: Path, doc: str, said: str) -> None:
    (tmp_path / "w.yaml").write_text(doc)
    result = invoke(["check", str(tmp_path / "w.yaml"), *ARGS])
    assert result.exit_code == 2 and result.stdout == ""
    assert single_error_line(result.stderr).endswith(said)


def test_a_misspelt_field_fails_the_gate_as_kubectl_apply_refuses_it(nowhere: str) -> None:
    result = invoke(["check", nowhere, *ARGS])
    assert result.exit_code == 2 and result.stdout == ""
    assert single_error_line(result.stderr) == (
        f"kwhatif: error: {nowhere}#0:1: DaemonSet/default/gpu-agent: spec.template.spec.containers[0].resouces: "
        'unknown field: kubectl apply refuses the object (strict decoding error: unknown field '
        '"spec.template.spec.containers[0].resouces"); --validate=warn reads it with a warning instead')


def test_validate_ignore_drops_the_misspelt_field_silently(nowhere: str) -> None:
    data = json.loads(invoke(["check", nowhere, *ARGS, "--validate=ignore", "-o", "json"]).stdout)
    assert not any("unknown field" in w for w in data["warnings"]) and NO_NODE in data["warnings"]


def test_a_daemonset_matching_no_node_is_said_in_the_table(nowhere: str) -> None:
    result = invoke(["check", nowhere, *WARN])
    row = next(line for line in result.stdout.splitlines() if line.startswith("DaemonSet/default/gpu-agent"))
    assert row.split()[-2:] == ["no", "node"]  # PODS 0 BOUND 0 PENDING 0, never "ok"


def test_a_daemonset_matching_no_node_is_said_on_its_case_and_its_line(nowhere: str) -> None:
    """Not only a suite-level warning: JUnit's testcase carries it (system-out, where CI report
    viewers show it), and GitHub's warning annotation sits on the manifest's line (once)."""
    junit = ET.fromstring(invoke(["check", nowhere, *WARN, "-o", "junit"]).stdout)
    case = next(c for c in junit.iter("testcase") if c.get("name") == "DaemonSet/default/gpu-agent")
    assert case.find("failure") is None and NO_NODE.split(": ", 1)[1] in (case.findtext("system-out") or "")
    github = invoke(["check", nowhere, *WARN, "-o", "github"]).stdout.splitlines()
    anchored = [line for line in github if "matches no node" in line]
    assert anchored == [f"::warning file={nowhere},line=1,title=kwhatif check%3A DaemonSet/default/gpu-agent::"
                        f"{NO_NODE}"]


def test_the_warnings_reach_every_format(nowhere: str) -> None:
    data = json.loads(invoke(["check", nowhere, *WARN, "-o", "json"]).stdout)
    assert data["warnings"][:1] == [f"{nowhere}#0:1: {TYPO}"] and NO_NODE in data["warnings"]
    github = invoke(["check", nowhere, "-c", str(CLUSTER), "--now", NOW, "--validate=warn", "-o", "github"]
                    ).stdout.splitlines()
    assert f"::warning title=kwhatif::{nowhere}#0:1: {TYPO}" in github
    suite = ET.fromstring(invoke(["check", nowhere, *WARN, "-o", "junit"]).stdout).find("testsuite")
    assert suite is not None
    assert [p.get("value") for p in suite.iter("property")] == data["warnings"]
    assert NO_NODE in (suite.findtext("system-out") or "")
    markdown = invoke(["check", nowhere, *WARN, "-o", "markdown"]).stdout
    assert f"- {nowhere}#0:1: {TYPO}" in markdown and f"- {NO_NODE}" in markdown


def test_strict_fails_on_the_typo(nowhere: str) -> None:
    result = invoke(["check", nowhere, "-c", str(CLUSTER), "--now", NOW, "--validate=warn", "--strict"])
    assert result.exit_code == 2 and result.stdout == ""
    assert single_error_line(result.stderr) == f"kwhatif: error: --strict: {nowhere}#0:1: {TYPO}"


def test_a_claim_the_snapshot_cannot_bind_names_the_missing_storage_objects(tmp_path: Path) -> None:
    path = tmp_path / "sts.yaml"
    path.write_text("""apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default}
spec:
  replicas: 1
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: postgres, resources: {requests: {cpu: 100m}}}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
""")
    data = json.loads(invoke(["check", str(path), *ARGS, "-o", "json"]).stdout)
    assert ("1 PersistentVolumeClaim(s) wait for a volume (default/data-db-0) and the snapshot has no StorageClass "
            "nor PersistentVolume: it was probably taken without them, so these claims cannot bind here; capture "
            "them too: kubectl get storageclasses,pv,pvc,csinodes,csidrivers,csistoragecapacities -A -o json (or kwhatif "
            "snapshot)") in data["warnings"]


@pytest.mark.parametrize("extra", [[], ["--add-node", str(Path(__file__).parent / "data" / "check" / "pool-node.yaml")]])
def test_capacity_carries_the_files_warnings_in_its_json(tmp_path: Path, extra: list[str]) -> None:
    path = tmp_path / "pod.yaml"
    path.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: typo, namespace: default}\nspec:\n"
                    "  containers: [{name: c, image: x, resouces: {requests: {cpu: 100m}}}]\n")
    data = json.loads(invoke(["capacity", str(path), *WARN, "--max", "2", "-o", "json", *extra]).stdout)
    assert data["warnings"][0] == f'{path}#0:1: Pod/default/typo: unknown field "spec.containers[0].resouces"'


def test_no_node_detail_keeps_one_record_a_pod(nowhere: str) -> None:
    web = str(Path(__file__).parent / "data" / "check" / "web.yaml")
    full = json.loads(invoke(["check", web, *ARGS, "-o", "json"]).stdout)
    lean = json.loads(invoke(["check", web, *ARGS, "-o", "json", "--no-node-detail"]).stdout)
    assert [r["pod"] for r in lean["results"]] == [r["pod"] for r in full["results"]]
    assert any("filter" in r for r in full["results"]) and not any("filter" in r for r in lean["results"])
    assert lean["workloads"] == full["workloads"]


def test_eta_is_said_between_the_first_and_the_last_scenario() -> None:
    from kwhatif.cli.progress import eta

    assert eta(10.0, 2, 6).strip() == ", about 20 s left"  # 5 s a scenario, 4 to go
    assert eta(600.0, 1, 3).strip() == ", about 20 min left"  # 600 s a scenario, 2 to go
    assert eta(1.0, 0, 3).strip() == "" and eta(9.0, 3, 3).strip() == ""


def test_a_cronjob_whose_schedule_the_api_server_refuses_fails_the_check_as_bad_input(tmp_path: Path) -> None:
    """kubectl apply answers `The CronJob "nightly" is invalid: spec.schedule: Invalid value:
    "0 0 * * * *": expected exactly 5 fields, found 6: [0 0 * * * *]` (cron v3 ParseStandard)."""
    path = tmp_path / "cj.yaml"
    path.write_text("apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: nightly, namespace: default}\n"
                    "spec:\n  schedule: '0 0 * * * *'\n  jobTemplate:\n    spec:\n      template:\n        spec:\n"
                    "          restartPolicy: OnFailure\n          containers: [{name: c, image: busybox}]\n")
    result = invoke(["check", str(path), *ARGS])
    assert result.exit_code == 2 and result.stdout == ""
    line = single_error_line(result.stderr)
    assert f"{path}" in line and "CronJob/default/nightly: spec.schedule: " in line
    assert line.endswith('Invalid value: "0 0 * * * *": expected exactly 5 fields, found 6: [0 0 * * * *]')


CLAIMED = """apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers: [{name: c, image: app, resources: {requests: {cpu: 100m}}}]
  volumes: [{name: data, persistentVolumeClaim: {claimName: missing}}]
"""
OTHER_CLAIM = """---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: other, namespace: default}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}, storageClassName: fast}
"""


@pytest.mark.parametrize("other_claim, warned", [("", True), (OTHER_CLAIM, False)],
                         ids=["a snapshot without claims: taken without them?", "a snapshot with claims: missing"])
def test_a_missing_claim_is_blamed_on_the_snapshot_only_when_it_has_no_claim_at_all(
        tmp_path: Path, other_claim: str, warned: bool) -> None:
    pod = tmp_path / "pod.yaml"
    pod.write_text(CLAIMED + other_claim)
    result = invoke(["place", str(pod), *ARGS, "-o", "json"])
    warnings = json.loads(result.stdout)["warnings"]
    said = [w for w in warnings if "default/missing" in w]
    assert said == ([
        "1 PersistentVolumeClaim(s) the pods use are not in the snapshot (default/missing), which has no claim at "
        "all: it was probably taken without them (else create them); capture them too: kubectl get "
        "storageclasses,pv,pvc,csinodes,csidrivers,csistoragecapacities -A -o json (or kwhatif snapshot)"] if warned else [])
    assert not any("wait for a volume (default/missing)" in w for w in warnings)
