"""`kwhatif pending`: the pods that stay pending after the queue, grouped by root cause.

The cluster of tests/cli/data/cluster (arithmetic in test_schedule.py): urgent and small are
bound; big (1800m) is rejected by NodeResourcesFit on node-a and node-b (Insufficient cpu) and by
TaintToleration on node-c."""

from __future__ import annotations

import json

from tests.cli.conftest import CLUSTER, NOW

ARGS = ["-c", str(CLUSTER), "--now", NOW]
TAINT = "node(s) had untolerated taint {dedicated: gpu}"

GATED = """
apiVersion: v1
kind: Pod
metadata: {name: waiting, namespace: jobs, ownerReferences: [{apiVersion: batch/v1, kind: Job, name: etl, uid: u1, controller: true}]}
spec:
  schedulingGates: [{name: example.com/quota}]
  containers: [{name: app, image: nginx}]
"""


def test_the_one_pending_pod_is_one_group_with_what_rejected_it(cli):
    result = cli(["pending", *ARGS, "-o", "json"])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert (data["scheduled"], data["pending"]) == (3, 1)
    [group] = data["groups"]
    assert group["count"] == 1 and group["pods"] == ["default/big"]
    assert group["rejected_by"] == [{"plugin": "NodeResourcesFit", "reasons": ["Insufficient cpu"]},
                                    {"plugin": "TaintToleration", "reasons": [TAINT]}]
    assert group["message"].startswith("0/3 nodes are available: 1 node(s) had untolerated taint")
    # The group's best verified change (test_suggestions.py has the arithmetic and applies it); big
    # is a bare pod: the change means making it again.
    assert group["suggestion"]["summary"] == ("lower container app's cpu request to 1200m (by 600m): it then fits on "
                                              "node-b (a pod's spec cannot change in place: delete it and create it "
                                              "again with the change)")
    assert group["suggestion"]["verified"] is True


def test_no_suggest_leaves_the_suggestions_out(cli):
    data = json.loads(cli(["pending", *ARGS, "-o", "json", "--no-suggest"]).stdout)
    assert [g["suggestion"] for g in data["groups"]] == [None]


def test_gated_pods_are_their_own_group_with_their_owner(cli, tmp_path):
    (tmp_path / "gated.yaml").write_text(GATED)
    data = json.loads(cli(["pending", *ARGS, "-c", str(tmp_path / "gated.yaml"), "-o", "json"]).stdout)
    assert [g["count"] for g in data["groups"]] == [1, 1]
    gated = next(g for g in data["groups"] if g["rejected_by"][0]["plugin"] == "SchedulingGates")
    assert gated["pods"] == ["jobs/waiting"] and gated["owners"] == ["Job/jobs/etl"]
    assert gated["namespaces"] == ["jobs"]


def test_the_table_reads_in_one_screen(cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")
    lines = cli(["pending", *ARGS]).stdout.splitlines()
    assert lines[0] == "kwhatif: 1 of 3 pod(s) stay pending, 1 root cause(s)"
    assert lines[1] == f"    1  NodeResourcesFit: Insufficient cpu; TaintToleration: {TAINT}"
    assert lines[2] == "       pods: default/big"


def test_nothing_pending_exits_zero(cli, tmp_path):
    (tmp_path / "node.yaml").write_text(
        "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: '1', pods: '10'}}\n")
    result = cli(["pending", "-c", str(tmp_path / "node.yaml"), "--now", NOW])
    assert result.exit_code == 0
    assert result.stdout == "kwhatif: 0 of 0 pod(s) stay pending, 0 root cause(s)\n"


def test_pods_dynamic_resources_holds_are_grouped_by_its_reason_not_as_scheduling_gates(cli):
    # data/dra/pending/cluster.yaml: three pods DynamicResources' PreEnqueue holds, each for
    # another reason (dynamicresources.go foreachPodResourceClaim): pd's claim `dying` has a
    # deletionTimestamp; pt's status names pt-g-abcde, whose controller is pod `other`
    # (resourceclaim.IsForPod); pm's names pm-g-gone1, which does not exist. pn's status says no
    # claim is needed for its entry: it schedules. None of them has schedulingGates.
    dra = CLUSTER.parent / "dra"
    result = cli(["pending", "-c", str(dra / "nodes.yaml"), "-c", str(dra / "pending" / "cluster.yaml"),
                  "--now", NOW, "-o", "json"])
    data = json.loads(result.stdout)
    assert (data["scheduled"], data["pending"]) == (4, 3)
    groups = {tuple(g["pods"]): g["rejected_by"] for g in data["groups"]}
    assert groups == {
        ("default/pd",): [{"plugin": "DynamicResources", "reasons": ['resourceclaim "dying" is being deleted']}],
        ("default/pt",): [{"plugin": "DynamicResources", "reasons": [
            "ResourceClaim default/pt-g-abcde was not created for pod default/pt (pod is not owner)"]}],
        ("default/pm",): [{"plugin": "DynamicResources", "reasons": [
            'could not find ResourceClaim "default/pm-g-gone1"']}],
    }


ERRING = """apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors: [{cel: {expression: 'device.attributes["example.com"].model + 1 == 2'}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-slice}
spec:
  driver: example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0, attributes: {model: {string: a100}}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c1, namespace: default}
spec:
  devices:
    requests: [{name: r, exactly: {deviceClassName: gpu}}]
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  resourceClaims: [{name: g, resourceClaimName: c1}]
  containers: [{name: c, image: x, resources: {claims: [{name: g}]}}]
"""


def test_a_pod_whose_attempt_errs_stays_pending_in_a_group_of_its_own(cli, tmp_path):
    """A string plus an int has no overload in cel-go: DynamicResources' Filter errs, the pod
    stays Pending (PodScheduled False, reason SchedulerError; reference §8) — grouped under that
    reason with the error's text, where it was left out ('0 of 1 pod(s) stay pending')."""
    (tmp_path / "c.yaml").write_text(ERRING)
    result = cli(["pending", "-c", str(tmp_path / "c.yaml"), "--now", NOW, "-o", "json"])
    data = json.loads(result.stdout)
    assert result.exit_code == 1 and (data["scheduled"], data["pending"]) == (1, 1)
    assert [g["rejected_by"] for g in data["groups"]] == [[{"plugin": "SchedulerError", "reasons": [
        'running "DynamicResources" filter plugin: class gpu: selector #0: CEL runtime error: no such overload']}]]
    assert data["groups"][0]["suggestion"] is None
