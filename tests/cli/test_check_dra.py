"""`kwhatif check` of workloads whose pods hold DRA devices.

data/dra/nodes.yaml: n1 publishes gpu-0 and gpu-1, n2 gpu-0, n3 nothing (class `gpu` = every
device of gpu.example.com).

data/dra/rollout/: Deployment train runs 2 pods on n1 (train-aaa-p0 holding n1's gpu-0,
train-aaa-p1 its gpu-1, through claims generated from template one-gpu); train-v2.yaml changes
only the image. Worked by hand (deployment/rolling.go, 25% defaults on 2 replicas: maxSurge 1,
maxUnavailable 0):

1. scale the new ReplicaSet up to 1: the only free GPU is n2's -> bound on n2; available 2;
2. 3 available > minAvailable 2: delete one old pod, train-aaa-p0 (both on n1, same age, name
   order). The resourceclaim controller drops its reservation and deallocates its claim
   (controller.go syncClaim: no valid reservation left -> Allocation = nil): n1's gpu-0 is free;
   available 1 old + 1 new = 2;
3. scale the new ReplicaSet up to 2: bound on n1 (gpu-0); available 2;
4. delete train-aaa-p1; available 2 (both new pods).
"""

from __future__ import annotations

import json
import re

from tests.cli.conftest import DATA, NOW, single_error_line

DRA = DATA / "dra"
ROLLOUT = DRA / "rollout"


def test_a_rollout_frees_the_devices_of_the_old_pods_it_deletes(cli):
    result = cli(["check", str(ROLLOUT / "train-v2.yaml"), "-c", str(DRA / "nodes.yaml"),
                  "-c", str(ROLLOUT / "cluster.yaml"), "--now", NOW, "-o", "json"])
    assert result.exit_code == 0, result.stdout
    (workload,) = json.loads(result.stdout)["workloads"]
    steps = [(s["action"], s["deleted"], s["created"], s["pending"], s["available"])
             for s in workload["rollout"]["steps"]]
    assert steps == [
        ("scale the new ReplicaSet up to 1", 0, 1, 0, 2),
        ("scale the old pods down to 1: delete train-aaa-p0", 1, 0, 0, 2),
        ("scale the new ReplicaSet up to 2", 0, 1, 0, 2),
        ("scale the old pods down to 0: delete train-aaa-p1", 1, 0, 0, 2),
    ]
    nodes = sorted(r["node"] for r in json.loads(result.stdout)["results"])
    assert nodes == ["n1", "n2"]


def test_the_explain_it_suggests_reads_the_files_that_hold_no_workload_too(cli):
    # data/dra/hint/: deploy.yaml (Deployment infer, 2 replicas, one claim from template two-gpus)
    # and template.yaml (ResourceClaimTemplate two-gpus: 2 GPUs). Only n1 has 2 GPUs: the first
    # pod binds there, the second is left pending. Without template.yaml, `explain` would find no
    # template and answer `ResourceClaim not created yet` (gated) instead of the check's verdict.
    hint = DRA / "hint"
    args = ["-c", str(DRA / "nodes.yaml"), "--now", NOW]
    result = cli(["check", str(hint), *args])
    assert result.exit_code == 1
    last = result.stdout.splitlines()[-1]
    match = re.fullmatch(r"kwhatif: why (default/infer-\S+) stays pending, and what would make it fit: kwhatif "
                         r"explain \1 -f (\S+) -f (\S+) \(with the check's -c, -n and --config\)", last)
    assert match and match.group(2, 3) == (str(hint / "deploy.yaml"), str(hint / "template.yaml")), last
    explained = cli(["explain", match.group(1), "-f", match.group(2), "-f", match.group(3), *args])
    assert explained.stdout.splitlines()[0] == f"Pod {match.group(1)}: unschedulable"


def test_a_misspelt_field_in_a_claim_template_fails_the_check_as_kubectl_apply_would(cli):
    # data/dra/unknown/deploy.yaml: template two-gpus writes `cout: 2` for `count: 2`. kubectl
    # apply's strict decoding refuses the object; read as written, the count would default to 1
    # and the check pass for pods that will never exist.
    manifest = DRA / "unknown" / "deploy.yaml"
    result = cli(["check", str(manifest), "-c", str(DRA / "nodes.yaml"), "--now", NOW, "--strict"])
    assert result.exit_code == 2
    assert single_error_line(result.stderr) == (
        f"kwhatif: error: {manifest}#0:1: ResourceClaimTemplate/default/two-gpus: "
        "spec.spec.devices.requests[0].exactly.cout: unknown field: kubectl apply refuses the object (strict "
        'decoding error: unknown field "spec.spec.devices.requests[0].exactly.cout"); --validate=warn reads it '
        "with a warning instead")


def _admin_template(namespace: str) -> str:
    return (f"apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {{name: admin, namespace: {namespace}}}\n"
            "spec:\n  spec:\n    devices:\n      requests:\n      - name: all\n        exactly: {deviceClassName: gpu, "
            "adminAccess: true, allocationMode: All}\n---\n"
            f"apiVersion: v1\nkind: Pod\nmetadata: {{name: monitor, namespace: {namespace}}}\n"
            "spec:\n  containers: [{name: c, image: dcgm}]\n  resourceClaims: [{name: all, resourceClaimTemplateName: admin}]\n")


def test_admin_access_outside_a_namespace_labelled_for_it_is_refused(cli, tmp_path):
    # validation.go AuthorizedForAdmin (DRAAdminAccess, on in 1.34): the API server refuses the
    # template in `default` (no label); `mon` carries resource.kubernetes.io/admin-access: "true".
    namespaces = ("apiVersion: v1\nkind: Namespace\nmetadata: {name: default}\n---\n"
                  "apiVersion: v1\nkind: Namespace\nmetadata: {name: mon, labels: "
                  "{resource.kubernetes.io/admin-access: 'true'}}\n")
    (tmp_path / "ns.yaml").write_text(namespaces)
    args = ["-c", str(DRA / "nodes.yaml"), "-c", str(tmp_path / "ns.yaml"), "--now", NOW]
    (tmp_path / "default.yaml").write_text(_admin_template("default"))
    refused = cli(["check", str(tmp_path / "default.yaml"), *args])
    assert refused.exit_code == 2
    assert single_error_line(refused.stderr) == (
        f"kwhatif: error: {tmp_path / 'default.yaml'}#0:1: ResourceClaimTemplate/default/admin: "
        "spec.spec.devices.requests[0].exactly.adminAccess: Forbidden: admin access to devices requires the "
        "`resource.kubernetes.io/admin-access: true` label on the containing namespace")
    (tmp_path / "mon.yaml").write_text(_admin_template("mon"))
    assert cli(["check", str(tmp_path / "mon.yaml"), *args]).exit_code == 0


def test_a_pod_short_of_devices_is_offered_a_node_like_one_whose_devices_are_taken(cli):
    # data/dra/hint: Deployment infer, 2 replicas of two GPUs each; only n1 has 2 (n2 one T4, n3
    # none): the second replica stays pending. A node like n1 comes with the devices n1's driver
    # publishes (its ResourceSlice copied for it, as --add-node like:n1 copies it): 2 free GPUs.
    hint = DRA / "hint"
    data = json.loads(cli(["explain", "deploy/default/infer", "-f", str(hint / "deploy.yaml"), "-f",
                           str(hint / "template.yaml"), "-c", str(DRA / "nodes.yaml"), "--now", NOW, "-o", "json"]).stdout)
    summaries = [s["summary"] for s in data["explanation"]["suggestions"]]
    assert "add 1 node(s) like n1 (its DRA drivers publishing the same devices there): the pod then fits" in summaries
