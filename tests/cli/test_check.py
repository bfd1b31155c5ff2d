"""`kwhatif check`: workloads expanded into pods, scheduled with the cluster's pending pods, one
verdict per workload, CI policies, every output format and exit code.

The cluster is described in conftest.py. Its own pending pods go first (urgent -> node-b, big
stays pending, small -> node-b), so the workloads find free: node-a 2000-1500 = 500m,
node-b 4000-2500-300-400 = 800m; node-c is tainted dedicated=gpu:NoSchedule.
"""

from __future__ import annotations

import json
import re
from xml.etree import ElementTree as ET

import pytest
import yaml

from tests.cli.conftest import CLUSTER, DATA, MSG_BIG_3, NOW, REPO, invoke, single_error_line

CHECK = DATA / "check"
# How a loss scenario is tried, said after the flags that reproduce it (docs/ci.md).
AFTER_THE_LOSS = "the workloads are deployed after the loss, behind the pods it displaced"
ARGS = ["-c", str(CLUSTER), "--now", NOW, "-q"]
WEB, API, SOLO, VIP = (str(CHECK / f"{n}.yaml") for n in ("web", "api", "solo", "vip"))

# api's second replica (600m): node-a 500m free, node-b 800-600 = 200m free, node-c tainted; the
# message has the shape of big's (conftest MSG_BIG_3), priority 0 has no victims.
MSG_API = MSG_BIG_3
# After losing node-b: node-a and node-c are left; node-a cannot hold 700m (urgent 300m moved
# there: 2000-1500-300 = 200m free). Reasons sorted byte-wise: "1 Insufficient cpu" < "1 node(s)".
MSG_WITHOUT_B = (
    "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {dedicated: gpu}. "
    "no new claims to deallocate, preemption: 0/2 nodes are available: "
    "1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling."
)


def _check(cli, *args: str, fmt: str = "json"):
    result = cli(["check", *args, *ARGS, "-o", fmt])
    return result, (json.loads(result.stdout) if fmt == "json" and result.stdout else None)


def _workloads(data):
    return [{k: w[k] for k in ("kind", "namespace", "name", "pods", "bound", "pending", "evictions", "ok")}
            for w in data["workloads"]]


@pytest.mark.parametrize("files, exit_code, workloads", [
    ([WEB], 0, [("Deployment", "shop", "web", 1, 1, 0, 0, True)]),
    ([API], 1, [("Deployment", "default", "api", 2, 1, 1, 0, False)]),
    ([SOLO], 0, [("StatefulSet", "default", "solo", 1, 1, 0, 0, True)]),
    # vip (priority 1000, 1500m) fits nowhere without preemption: one priority-0 pod is evicted.
    ([VIP], 0, [("Deployment", "default", "vip", 1, 1, 0, 1, True)]),
    ([WEB, API], 1, [("Deployment", "shop", "web", 1, 1, 0, 0, True),
                     ("Deployment", "default", "api", 2, 1, 1, 0, False)]),
])
def test_json_summarises_each_workload_and_the_exit_code_says_whether_all_fit(cli, validate, files, exit_code, workloads):
    result, data = _check(cli, *files)
    assert result.exit_code == exit_code, result.stderr
    validate(data)  # the schedule -o json document, plus workloads/policies/ok
    keys = ("kind", "namespace", "name", "pods", "bound", "pending", "evictions", "ok")
    assert _workloads(data) == [dict(zip(keys, w)) for w in workloads]
    assert data["ok"] is (exit_code == 0)


def test_the_cluster_pending_pods_are_scheduled_first_and_new_pods_carry_controller_names(cli):
    _, data = _check(cli, API)
    pods = [r["pod"] for r in data["results"]]
    assert pods[:3] == ["default/urgent", "default/big", "default/small"]
    assert all(re.fullmatch(r"default/api-[bcdfghjklmnpqrstvwxz2456789]{1,10}-[bcdfghjklmnpqrstvwxz2456789]{5}", p)
               for p in pods[3:])
    assert [r["outcome"] for r in data["results"][3:]] == ["bound", "unschedulable"]
    assert data["results"][3]["node"] == "node-b"
    assert data["workloads"][0]["message"] == MSG_API
    assert data["workloads"][0]["source"] == {"file": API, "line": 9}  # the Service comes first


@pytest.mark.parametrize("files, flags, exit_code, policies", [
    ([VIP], ["--no-evictions"], 1, [{"policy": "no-evictions", "ok": False,
                                     "messages": ["preemption would evict default/bound-a"]}]),
    ([WEB], ["--no-evictions"], 0, [{"policy": "no-evictions", "ok": True, "messages": []}]),
    # web (200m / 128Mi) ties node-a and node-b at 414 (TaintToleration 300; Fit node-a (15+71)/2 = 43,
    # node-b (15+64)/2 = 39; Balanced node-a 100-|0.85-0.28125|/2*100 -> 71, node-b
    # 100-|0.85-0.359375|/2*100 -> 75; spreading equal) and goes to node-a: 1700m of 2000m
    # requested, 15% free (node-b would have been 3400m of 4000m, 15% too).
    ([WEB], ["--headroom", "cpu=10%"], 0, [{"policy": "headroom", "ok": True, "messages": []}]),
    ([WEB], ["--headroom", "cpu=20%,memory=5%"], 1, [{"policy": "headroom", "ok": False, "messages": [
        "node node-a: cpu 1700m of 2000m requested, 15% free < 20% headroom"]}]),
    # solo (700m) only fits node-b; losing node-a or node-c changes nothing.
    ([SOLO], ["--tolerate-node-loss", "1"], 1, [{"policy": "tolerate-node-loss=1", "ok": False, "messages": [
        "1 of 3 scenarios fail; worst: without node node-b: 1 of 1 new pods stay pending",
        f"StatefulSet/default/solo: {MSG_WITHOUT_B}",
        "the same check with --remove-node node-b shows that scenario: " + AFTER_THE_LOSS]}]),
    ([WEB], ["--tolerate-node-loss", "1"], 0, [{"policy": "tolerate-node-loss=1", "ok": True, "messages": [
        "every workload still fits in each of 3 scenarios"]}]),
    # Any 2 of the 3 nodes: {a, b} leaves only the tainted node-c (web pending); {a, c} leaves
    # node-b (fits); {b, c} leaves node-a, where urgent (300m) moves first and leaves 200m: web
    # (200m) still fits. The worst (first of the largest) is {a, b}.
    ([WEB], ["--tolerate-node-loss", "2"], 1, [{"policy": "tolerate-node-loss=2", "ok": False, "messages": [
        "1 of 3 scenarios fail; worst: without nodes node-a, node-b: 1 of 1 new pods stay pending",
        ("Deployment/shop/web: 0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}. "
        "no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for "
        "scheduling."),
        "the same check with --remove-node node-a --remove-node node-b shows that scenario: " + AFTER_THE_LOSS]}]),
    # No node has a zone label: they are one zone, "" (GetZoneKey), and losing it loses them all —
    # reproduced by the selector of nodes with neither a zone nor a region label.
    ([WEB], ["--tolerate-zone-loss"], 1, [{"policy": "tolerate-zone-loss", "ok": False, "messages": [
        "1 of 1 scenarios fail; worst: without the 3 nodes with no zone label: 1 of 1 new pods stay pending",
        "Deployment/shop/web: no nodes available to schedule pods",
        "the same check with --remove-node '!topology.kubernetes.io/zone,!failure-domain.beta.kubernetes.io/zone,"
        "!topology.kubernetes.io/region,!failure-domain.beta.kubernetes.io/region' shows that scenario: "
        + AFTER_THE_LOSS]}]),
])
def test_policies_can_fail_a_check_where_every_pod_fits(cli, files, flags, exit_code, policies):
    result, data = _check(cli, *files, *flags)
    assert result.exit_code == exit_code, result.stderr
    assert data["policies"] == policies


def test_a_workload_that_fits_only_by_evicting_is_said_so_in_the_verdict(cli):
    # vip binds by preempting default/bound-a (the case above): it fails --no-evictions, and the
    # verdict says why, rather than a bare "0/1 workloads fit".
    result, _ = _check(cli, VIP, "--no-evictions", fmt="table")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-1] == "FAIL: 0/1 workloads fit (1 more only by evicting); policies failed: no-evictions"


def test_losing_a_zone_is_tried_zone_by_zone_and_the_worst_is_reported(cli):
    # pair: 2 x 600m on 1-cpu nodes a1 (zone-a), b1 and b2 (zone-b): one replica per node.
    # Without zone-a: b1 and b2 hold both. Without zone-b: a1 holds one, the other stays pending.
    result = cli(["check", str(CHECK / "zonal" / "pair.yaml"), "-c", str(CHECK / "zonal" / "nodes.yaml"),
                  "--now", NOW, "--tolerate-zone-loss", "-o", "json"])
    assert result.exit_code == 1
    assert json.loads(result.stdout)["policies"] == [{"policy": "tolerate-zone-loss", "ok": False, "messages": [
        "1 of 2 scenarios fail; worst: without zone zone-b (2 nodes): 1 of 2 new pods stay pending",
        ("Deployment/default/pair: 0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, "
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."),
        "the same check with --remove-node topology.kubernetes.io/zone=zone-b shows that scenario: " + AFTER_THE_LOSS]}]
    # and it does: the check of that cluster leaves the same replica pending, with that message
    again = cli(["check", str(CHECK / "zonal" / "pair.yaml"), "-c", str(CHECK / "zonal" / "nodes.yaml"),
                 "--now", NOW, "--remove-node", "topology.kubernetes.io/zone=zone-b", "-o", "json"])
    [pair] = json.loads(again.stdout)["workloads"]
    assert (pair["pending"], pair["pods"], f"Deployment/default/pair: {pair['message']}") == (
        1, 2, json.loads(result.stdout)["policies"][0]["messages"][1])


@pytest.mark.parametrize("extra", [[], ["--no-evictions", "--headroom", "cpu=10%", "--tolerate-node-loss", "1"]],
                         ids=["a failing workload", "with policies"])
def test_the_json_is_the_documented_check_output(cli, validate_check, extra):
    """schemas/schedule-output.schema.json $defs/checkOutput: what a CI program may rely on."""
    _, data = _check(cli, API, *extra)
    validate_check(data)
    assert [p["policy"] for p in data["policies"]] == (["no-evictions", "headroom", "tolerate-node-loss=1"]
                                                        if extra else [])


def test_yaml_is_the_json_document(cli):
    result_yaml = cli(["check", API, *ARGS, "-o", "yaml"])
    _, data = _check(cli, API)
    assert result_yaml.exit_code == 1
    assert yaml.safe_load(result_yaml.stdout) == data


def test_without_node_detail_only_the_per_node_parts_are_left_out(cli):
    """A check whose output shows no per-node detail keeps none while it runs; what it says of
    each pod (outcome, node, counts of nodes and feasible nodes, message) stays the same."""
    _, full = _check(cli, WEB, API)
    _, bare = _check(cli, WEB, API, "--no-node-detail")
    detail = {"feasible_nodes", "filter", "scores"}
    assert any(detail & set(r) for r in full["results"])
    assert bare["results"] == [{k: v for k, v in r.items() if k not in detail} for r in full["results"]]
    assert {k: v for k, v in bare.items() if k != "results"} == {k: v for k, v in full.items() if k != "results"}
    assert [r["num_feasible"] for r in bare["results"]] == [r["num_feasible"] for r in full["results"]]


def test_table_lists_pods_then_workloads_then_the_verdict(cli):
    result = cli(["check", WEB, API, *ARGS, "--suggest"])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    # web (200m) goes first, to node-a (500m free -> 300m); api's first replica (600m) to node-b
    # (800m -> 200m); its second fits nowhere, and would on node-a at 300m: the fix a re-run proves.
    pending = re.fullmatch(r"kwhatif: (default/api-\w+-\w+) \(Deployment/default/api\) would fit if: lower "
                           r"container api's cpu request to 300m \(by 300m\): it then fits on node-a \(verified "
                           r"for that pod alone: re-run the check after the change\)", lines[-2])
    assert lines[-3] == "FAIL: 1/2 workloads fit" and pending, lines[-2]
    pod = pending.group(1)
    assert lines[-1] == (f"kwhatif: why {pod} stays pending, and what would make it fit: "
                         f"kwhatif explain {pod} -f {WEB} -f {API} (with the check's -c, -n and --config)")
    assert re.search(r"^Deployment/default/api\s+new\s+2\s+1\s+1\s+FAIL$", result.stdout, re.MULTILINE)
    assert re.search(r"^Deployment/shop/web\s+new\s+1\s+1\s+0\s+ok$", result.stdout, re.MULTILINE)
    # the command it gives explains that pod on the same queue: the same fix first
    explained = cli(["explain", pod, "-f", WEB, "-f", API, *ARGS]).stdout
    assert explained.splitlines()[0] == f"Pod {pod}: unschedulable"
    # (the explanation is wrapped at the terminal's width: compared as words)
    assert "- lower container api's cpu request to 300m (by 300m): it then fits on node-a (in the pod template of " \
           "Deployment default/api)" in " ".join(explained.split())


def test_table_lists_the_workloads_pods_and_counts_the_rest_of_the_queue(cli):
    """The queue is urgent, big, small (the cluster's: two bound, big pending) then web's pod and
    api's two; the table lists the workloads' three pods and counts the other three, which
    `-o wide` lists too; JSON names each workload's pods."""
    result = cli(["check", WEB, API, *ARGS])
    pods = [line.split()[0] for line in result.stdout.split("\n\n")[0].splitlines()[1:] if line[:1] != " "]
    assert [p.rsplit("-", 2)[0] for p in pods] == ["shop/web", "default/api", "default/api"]
    assert ("not listed: the 3 other pod(s) of the queue (2 bound, 1 unschedulable); -o wide lists every pod"
            in result.stdout.splitlines())
    wide = cli(["check", WEB, API, *ARGS, "-o", "wide"])
    rows = [line.split()[0] for line in wide.stdout.split("\n\n")[0].splitlines()[1:] if line[:1] != " "]
    assert rows[:3] == ["default/urgent", "default/big", "default/small"] and rows[3:] == pods
    assert "not listed" not in wide.stdout
    _, data = _check(cli, WEB, API)
    assert [k for w in data["workloads"] for k in w["pod_keys"]] == pods


def test_a_workload_of_no_pods_prints_no_empty_pod_table(cli, tmp_path):
    """replicas 0: nothing to list; the counts, the workload's row (0 pods, ok) and the verdict."""
    idle = tmp_path / "idle.yaml"
    idle.write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: idle, namespace: shop}\n"
                    "spec:\n  replicas: 0\n  selector: {matchLabels: {app: idle}}\n  template:\n"
                    "    metadata: {labels: {app: idle}}\n    spec: {containers: [{name: c, image: nginx}]}\n")
    lines = cli(["check", str(idle), *ARGS]).stdout.splitlines()
    assert not any(line.startswith("POD ") for line in lines)
    assert lines[:2] == ["3 nodes, 2 bound pods, 3 pods to place: 2 bound, 1 unschedulable",
                         "not listed: the 3 other pod(s) of the queue (2 bound, 1 unschedulable); -o wide lists every pod"]
    assert lines[-1] == "PASS: 1/1 workloads fit"


def test_a_new_workload_left_pending_gets_a_verified_fix_with_suggest(cli):
    """api alone: its first replica (600m) goes to node-b (800m free -> 200m), the second fits
    neither node-a (500m free) nor node-b: at 500m it would fit node-a (MSG_API's pod)."""
    _, data = _check(cli, API, "--suggest")
    [api] = data["workloads"]
    assert api["suggestion"]["summary"] == "lower container api's cpu request to 500m (by 100m): it then fits on node-a"
    assert api["suggestion"]["pod"] == api["first_pending"] and api["suggestion"]["verified"] is True
    # The change goes to the Deployment's pod template, the object in the files (the pod is generated).
    assert api["suggestion"]["changes"] == [{
        "op": "patch", "target": {"kind": "Deployment", "namespace": "default", "name": "api"},
        "patch": [{"op": "add", "path": "/spec/template/spec/containers/0/resources/requests", "value": {"cpu": "500m"}}]}]
    markdown = cli(["check", API, *ARGS, "-o", "markdown", "--suggest"]).stdout
    assert (f"- 🔧 `{api['first_pending']}` (`Deployment/default/api`) would fit if: {api['suggestion']['summary']} "
            "(verified for that pod alone by a re-run: re-run the check after the change)") in markdown.splitlines()
    _, plain = _check(cli, API)  # without --suggest: no re-runs
    assert plain["workloads"][0]["suggestion"] is None
    _, passing = _check(cli, WEB, "--suggest")
    assert passing["workloads"][0]["suggestion"] is None


def test_fixes_are_sought_for_the_first_three_workloads_left_pending(cli, tmp_path):
    """Four Deployments of one 5-cpu replica: none fits (node-a 2 cpu, node-b 4 cpu, node-c
    tainted); fixes (each a few re-runs) for the first three only (cli/check.py MAX_FIXES)."""
    files = tmp_path / "big.yaml"
    files.write_text("".join(
        f"---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d{i}, namespace: default}}\n"
        f"spec:\n  replicas: 1\n  selector: {{matchLabels: {{app: d{i}}}}}\n  template:\n"
        f"    metadata: {{labels: {{app: d{i}}}}}\n"
        f"    spec: {{containers: [{{name: c, image: x, resources: {{requests: {{cpu: '5'}}}}}}]}}\n" for i in range(4)))
    _, data = _check(cli, str(files), "--suggest")
    assert [w["ok"] for w in data["workloads"]] == [False] * 4
    assert [w["suggestion"] is not None for w in data["workloads"]] == [True, True, True, False]


def test_junit_has_one_testcase_per_workload_failing_with_the_scheduler_message(cli):
    result = cli(["check", WEB, API, *ARGS, "-o", "junit", "--no-evictions"])
    assert result.exit_code == 1
    root = ET.fromstring(result.stdout)
    assert (root.tag, root.get("tests"), root.get("failures")) == ("testsuites", "3", "1")
    cases = root.findall("./testsuite/testcase")
    assert [c.get("name") for c in cases] == ["Deployment/shop/web", "Deployment/default/api", "no-evictions"]
    assert [c.find("failure") is not None for c in cases] == [False, True, False]
    failure = cases[1].find("failure")
    assert failure.get("message") == MSG_API
    assert (cases[1].get("file"), cases[1].get("line")) == (API, "9")


def test_markdown_is_a_summary_table_for_a_pull_request_comment(cli):
    result = cli(["check", WEB, API, *ARGS, "-o", "markdown"])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0] == "### ❌ kwhatif check: 1/2 workloads fit"
    assert lines[2:6] == [
        "| Workload | Change | Pods | Bound | Pending | Evictions | Result |",
        "|---|---|---:|---:|---:|---:|---|",
        "| `Deployment/shop/web` | new | 1 | 1 | 0 | 0 | ✅ fits |",
        f"| `Deployment/default/api` | new | 2 | 1 | 1 | 0 | ❌ {MSG_API} |",
    ]


def _oddly_named_field(tmp_path) -> str:
    """web with an unknown field whose name holds `<i>`, a pipe and a BEL: --validate=warn says it."""
    path = tmp_path / "odd.yaml"
    path.write_text((CHECK / "web.yaml").read_text().replace("spec:\n", 'spec:\n  "x<i>|\\a": 1\n', 1))
    return str(path)


def test_markdown_escapes_what_github_would_render(cli, tmp_path):
    result = cli(["check", _oddly_named_field(tmp_path), *ARGS, "-o", "markdown", "--validate=warn"])
    warning = next(line for line in result.stdout.splitlines() if "unknown field" in line)
    assert "<i>" not in warning and "&lt;i>" in warning and "\\|" in warning


def test_junit_stays_well_formed_xml_with_control_characters(cli, tmp_path):
    """XML 1.0 cannot write a BEL: ElementTree would write it raw and the report would not parse.
    The warning names the key escaped (`\\x07`, as error lines do), and the report parses."""
    result = cli(["check", _oddly_named_field(tmp_path), *ARGS, "-o", "junit", "--validate=warn"])
    root = ET.fromstring(result.stdout)
    said = [p.get("value", "") for p in root.findall("./testsuite/properties/property")]
    assert any('unknown field "spec[x<i>|\\x07]"' in value for value in said) and "\a" not in result.stdout


def test_github_annotates_the_manifest_line_of_each_failing_workload(cli):
    result = cli(["check", WEB, API, *ARGS, "-o", "github", "--headroom", "cpu=10%"])
    assert result.exit_code == 1
    # api's replica on node-b leaves 4000-3200-600 = 200m: 5% free. web went to node-a: 15% free.
    assert result.stdout.splitlines() == [
        (f"::error file={API},line=9,title=kwhatif check%3A Deployment/default/api::"
        f"Deployment/default/api: 1 of 2 pods do not fit: {MSG_API}"),
        "::error title=kwhatif policy headroom::node node-b: cpu 3800m of 4000m requested, 5%25 free < 10%25 headroom",
        "FAIL: 1/2 workloads fit; policies failed: headroom",
    ]


def test_workloads_are_read_from_stdin(cli):
    result = cli(["check", "-", *ARGS, "-o", "json"], input=(CHECK / "api.yaml").read_bytes())
    assert result.exit_code == 1
    assert json.loads(result.stdout)["workloads"][0]["source"] == {"file": "stdin", "line": 9}


def test_a_namespace_missing_from_the_snapshot_is_created_with_a_warning(cli):
    result = cli(["check", WEB, "-c", str(CLUSTER), "--now", NOW, "-o", "json"])
    assert result.exit_code == 0
    assert "kwhatif: warning: namespace 'shop' is not in the snapshot: created for the workloads" in result.stderr


@pytest.mark.parametrize("args, error", [
    ([str(CHECK / "bad-quantity.yaml")],
     (f"{CHECK / 'bad-quantity.yaml'}#0:1: Deployment/default/broken: spec.template.spec.containers[0].resources"
     ".requests.cpu")),
    ([WEB, "--headroom", "disk=10%"], "--headroom: 'disk=10%' is not RESOURCE=PERCENT%"),
    ([WEB, "--tolerate-node-loss", "4"], "--tolerate-node-loss 4: the cluster has only 3 nodes"),
])
def test_bad_input_exits_2_with_one_line(cli, args, error):
    result = cli(["check", *args, *ARGS])
    assert result.exit_code == 2
    assert error in single_error_line(result.stderr)


def test_statefulset_claims_are_created_and_provisioned_with_the_default_storage_class(cli):
    # The claims data-db-0 and data-db-1 have no class: the default (WaitForFirstConsumer) applies,
    # so VolumeBinding lets every node through and both 100m replicas fit.
    result, data = _check(cli, str(CHECK / "db-with-claims.yaml"))
    assert result.exit_code == 0
    assert [r["pod"] for r in data["results"][3:]] == ["default/db-0", "default/db-1"]
    assert [r["outcome"] for r in data["results"][3:]] == ["bound", "bound"]


def test_a_daemonset_pod_is_created_and_bound_on_each_admitted_node(cli):
    result, data = _check(cli, str(CHECK / "agent.yaml"))
    assert result.exit_code == 0
    assert [r["node"] for r in data["results"][3:]] == ["node-a", "node-b"]  # nodes in name order, pinned
    assert _workloads(data) == [{"kind": "DaemonSet", "namespace": "default", "name": "agent", "pods": 2,
                                 "bound": 2, "pending": 0, "evictions": 0, "ok": True}]


def test_jobs_runs_the_loss_scenarios_on_workers_with_the_same_answer() -> None:
    """samples/: the zone-loss policy with --jobs 2 says what it says with --jobs 1."""
    args = ["check", str(REPO / "samples" / "pods" / "web.yaml"), "-c", str(REPO / "samples" / "cluster.yaml"),
            "--now", NOW, "--tolerate-zone-loss", "-o", "json"]
    one, two = invoke([*args, "--jobs", "1"]), invoke([*args, "--jobs", "2"])
    assert one.exit_code == two.exit_code
    assert json.loads(two.stdout)["policies"] == json.loads(one.stdout)["policies"]


def test_an_object_the_cluster_has_is_replaced_not_doubled(cli, tmp_path):
    """api's second replica (600m) fits nowhere (MSG_API); a workload file that also carries
    node-a with 8 cpu replaces the cluster's node-a (2 cpu) instead of adding a second node of
    that name: 3 nodes still, node-a has 8000-1500 = 6500m free, so both replicas fit."""
    bigger = tmp_path / "node-a.yaml"
    bigger.write_text("apiVersion: v1\nkind: Node\nmetadata:\n  name: node-a\n"
                      "  labels: {kubernetes.io/hostname: node-a, kubernetes.io/os: linux}\n"
                      "status:\n  allocatable: {cpu: '8', memory: 16Gi, pods: '110'}\n")
    result, data = _check(cli, API, str(bigger))
    assert result.exit_code == 0, result.stderr
    assert data["cluster"]["nodes"] == 3
    assert _workloads(data) == [{"kind": "Deployment", "namespace": "default", "name": "api", "pods": 2, "bound": 2,
                                 "pending": 0, "evictions": 0, "ok": True}]


def _manifest_of(file: str, name: str) -> str:
    """The document of pod `name` in one of the cluster's files, as a manifest of its own."""
    [doc] = [d for d in yaml.safe_load_all((CLUSTER / file).read_text()) if d and d["metadata"]["name"] == name]
    return yaml.safe_dump(doc)


def test_a_bare_pod_that_runs_is_unchanged_not_placed_again(cli, tmp_path):
    """bound-a's own manifest (kubectl apply: unchanged): nothing to place, the check passes.
    Placed again, the copy (nodeName node-a, 1500m) would not fit beside the original."""
    pod = tmp_path / "bound-a.yaml"
    pod.write_text(_manifest_of("bound.yaml", "bound-a"))
    result, data = _check(cli, str(pod))
    assert result.exit_code == 0, result.stdout
    [w] = data["workloads"]
    assert (w["change"], w["pods"], w["ok"]) == ("unchanged", 0, True)
    assert "default/bound-a" not in [r["pod"] for r in data["results"]]


@pytest.mark.parametrize("edit, change, code", [
    # A new image is an update the API server takes (ValidatePodUpdate): in place, the pod stays.
    (lambda c: c.update(image="registry.example/bound-a:2"), "unchanged", 0),
    # A new request is not: kubectl apply fails, the gate fails with the server's words.
    (lambda c: c["resources"]["requests"].update(cpu="1"), "refused", 1),
], ids=["a new image", "a new request"])
def test_a_running_bare_pods_spec_changes_only_where_an_update_may(cli, tmp_path, edit, change, code):
    doc = yaml.safe_load(_manifest_of("bound.yaml", "bound-a"))
    edit(doc["spec"]["containers"][0])
    (tmp_path / "bound-a.yaml").write_text(yaml.safe_dump(doc))
    result, data = _check(cli, str(tmp_path / "bound-a.yaml"))
    assert result.exit_code == code, result.stdout
    [w] = data["workloads"]
    assert w["change"] == change
    if code:
        assert w["message"].startswith('The Pod "bound-a" is invalid: spec: Forbidden: pod updates may not change '
                                       "fields other than `spec.containers[*].image`")


def test_a_bare_pod_the_snapshot_has_pending_counts_once_and_fails_as_it_stays_pending(cli, tmp_path):
    """big's own manifest: big is the cluster's pending pod, scheduled once where it is in the
    queue (after urgent, before small), and it does not fit (MSG_BIG_3)."""
    pod = tmp_path / "big.yaml"
    pod.write_text(_manifest_of("pending.yaml", "big"))
    result, data = _check(cli, str(pod))
    assert result.exit_code == 1
    assert [r["pod"] for r in data["results"]] == ["default/urgent", "default/big", "default/small"]
    [w] = data["workloads"]
    assert (w["change"], w["pods"], w["pending"], w["ok"], w["message"]) == ("unchanged", 1, 1, False, MSG_BIG_3)


def test_a_job_that_runs_with_a_pending_pod_fails_the_check(cli, tmp_path):
    """A Job's template cannot change, so its manifest applied again is `unchanged`; its pod the
    snapshot has pending (3 cpu) is still its own. After urgent and small: node-a (2 cpu) is too
    small for it whatever runs (preemption not helpful), node-b has 800m free and no pod of lower
    priority than 0 to evict, node-c is tainted (not helpful)."""
    cluster = tmp_path / "cluster"
    cluster.mkdir()
    for file in CLUSTER.iterdir():
        (cluster / file.name).write_text(file.read_text())
    job = ("apiVersion: batch/v1\nkind: Job\nmetadata: {name: crunch, namespace: default}\nspec:\n  template:\n"
           "    metadata: {labels: {app: crunch}}\n    spec:\n      restartPolicy: Never\n"
           "      containers: [{name: c, image: crunch:1, resources: {requests: {cpu: '3'}}}]\n")
    (tmp_path / "job.yaml").write_text(job)
    (cluster / "job-pod.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: crunch-abcde\n  namespace: default\n"
        "  creationTimestamp: '2025-06-03T00:00:00Z'\n  labels: {app: crunch, job-name: crunch}\n"
        "  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: crunch, uid: u-1, controller: true}]\n"
        "spec:\n  restartPolicy: Never\n"
        "  containers: [{name: c, image: crunch:1, resources: {requests: {cpu: '3'}}}]\nstatus: {phase: Pending}\n")
    result = cli(["check", str(tmp_path / "job.yaml"), "-c", str(cluster), "--now", NOW, "-q", "-o", "json"])
    assert result.exit_code == 1, result.stdout
    [w] = json.loads(result.stdout)["workloads"]
    assert (w["kind"], w["change"], w["pods"], w["pending"], w["ok"]) == ("Job", "unchanged", 1, 1, False)
    assert w["message"] == (
        "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 2 Insufficient cpu. "
        "no new claims to deallocate, preemption: 0/3 nodes are available: "
        "1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.")


def test_a_pending_pod_kept_unchanged_does_not_make_its_evictions_the_checks(cli, tmp_path):
    """urgent at 3 cpu (priority 1000): it fits nowhere free (node-a 2 cpu, node-b 1500m free,
    node-c tainted) and preempts bound-b (priority 0) on node-b, with or without the check. Its
    own manifest applied again is `unchanged`: urgent binds (the workload fits), and the eviction
    it causes is the cluster's, not the change's: --no-evictions holds, as for any other check."""
    cluster = tmp_path / "cluster"
    cluster.mkdir()
    for file in CLUSTER.iterdir():
        text = file.read_text()
        if file.name == "pending.yaml":
            text = text.replace("image: registry.example/urgent:1\n    resources:\n      requests: {cpu: 300m",
                                "image: registry.example/urgent:1\n    resources:\n      requests: {cpu: '3'")
        (cluster / file.name).write_text(text)
    [urgent] = [d for d in yaml.safe_load_all((cluster / "pending.yaml").read_text()) if d and
                d["metadata"]["name"] == "urgent"]
    assert urgent["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "3"
    (tmp_path / "urgent.yaml").write_text(yaml.safe_dump(urgent))
    args = ["-c", str(cluster), "--now", NOW, "-q", "-o", "json", "--no-evictions"]
    result = cli(["check", str(tmp_path / "urgent.yaml"), *args])
    data = json.loads(result.stdout)
    [w] = data["workloads"]
    assert (w["change"], w["pods"], w["bound"], w["evictions"], w["ok"]) == ("unchanged", 1, 1, 0, True)
    assert any(r["pod"] == "default/urgent" and (r.get("preemption") or {}).get("victims") == ["default/bound-b"]
               for r in data["results"])
    assert data["policies"] == [{"policy": "no-evictions", "ok": True, "messages": []}]
    assert result.exit_code == 0


def test_as_new_says_a_pod_named_as_one_the_snapshot_has_is_placed_as_a_copy(cli, tmp_path):
    """--as-new adds every workload beside what runs: bound-a's own manifest is a second pod of
    that name, which the warning says (the API server would refuse to create it)."""
    pod = tmp_path / "bound-a.yaml"
    pod.write_text(_manifest_of("bound.yaml", "bound-a"))
    _, data = _check(cli, str(pod), "--as-new")
    assert ("1 pod(s) to place are named as pods the snapshot has (default/bound-a): placed as copies beside them "
            "(creating them, the API server would refuse: AlreadyExists); `kwhatif explain NAMESPACE/NAME` explains "
            "a pod of the snapshot as it is") in data["warnings"]
    assert data["workloads"][0]["change"] == "new"


BOUND_CLAIM = """\
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: manual}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: Immediate
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-data, annotations: {pv.kubernetes.io/bound-by-controller: "yes"}}
spec:
  storageClassName: manual
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  hostPath: {path: /data}
  claimRef: {namespace: default, name: data, uid: u-data}
status: {phase: Bound}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: default, uid: u-data, annotations: {pv.kubernetes.io/bind-completed: "yes"}}
spec: {storageClassName: manual, accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}, volumeName: pv-data}
status: {phase: Bound}
"""
CHART_WITH_CLAIM = """\
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: default}
spec: {storageClassName: manual, accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: store, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: store}}
  template:
    metadata: {labels: {app: store}}
    spec:
      containers: [{name: store, image: store:1, resources: {requests: {cpu: 100m}}}]
      volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
"""


def test_a_claim_the_chart_carries_again_stays_bound(cli, tmp_path):
    """A rendered chart carries its claim `data` without volumeName, uid or status; the snapshot
    has it Bound to pv-data. Applied, the claim keeps its binding (kubectl apply never writes
    status, and keeps the binder's volumeName), so store's pod (100m, node-a has 500m free)
    fits; taken as written, the claim would be an unbound claim of an Immediate class and the
    pod would fail VolumeBinding ("pod has unbound immediate PersistentVolumeClaims")."""
    cluster = tmp_path / "cluster"
    cluster.mkdir()
    for file in CLUSTER.iterdir():
        (cluster / file.name).write_text(file.read_text())
    (cluster / "storage.yaml").write_text(BOUND_CLAIM)
    (tmp_path / "chart.yaml").write_text(CHART_WITH_CLAIM)
    result = cli(["check", str(tmp_path / "chart.yaml"), "-c", str(cluster), "--now", NOW, "-q", "-o", "json"])
    assert result.exit_code == 0, result.stdout
    [w] = json.loads(result.stdout)["workloads"]
    assert (w["name"], w["pods"], w["bound"], w["ok"]) == ("store", 1, 1, True)


ROOM = DATA / "rollout-room"


def _verdicts(cli, cluster: str, *files: str) -> tuple[int, dict[str, tuple[int, int]]]:
    result = cli(["check", *(str(ROOM / f) for f in files), "-c", str(ROOM / cluster), "--now", NOW, "-q",
                  "-o", "json"])
    data = json.loads(result.stdout)
    return result.exit_code, {w["name"]: (w["bound"], w["pending"]) for w in data["workloads"]}


@pytest.mark.parametrize("files", [("web-scale1.yaml", "new-b.yaml"), ("new-b.yaml", "web-scale1.yaml")],
                         ids=["scale-down first", "new workload first"])
def test_a_workload_scaled_down_makes_room_for_a_new_one_in_the_same_check(cli, files) -> None:
    # full-node.yaml: n1 (2 cpu) holds web's 2 pods of 1 cpu. web goes to 1 replica, b (1 pod of
    # 1 cpu) is new: b fails the first pass, and the scale-down's deletion moves it back to the
    # active queue (the scheduler retries unschedulable pods when a pod goes): it binds, whatever
    # the order of the files.
    assert _verdicts(cli, "full-node.yaml", *files) == (0, {"web": (0, 0), "b": (1, 0)})


def test_a_create_a_quota_refused_is_retried_once_a_scale_down_frees_the_quota(cli) -> None:
    # full-quota.yaml: namespace team's quota (requests.cpu 2) is used by app's 4 pods of 500m.
    # extra's 2 pods (500m) are refused by the quota; app scaled to 2 frees 1 cpu, and the
    # ReplicaSet controller's retried creates are admitted and bound.
    assert _verdicts(cli, "full-quota.yaml", "app-scale2.yaml", "extra.yaml") == (0, {"app": (0, 0), "extra": (2, 0)})


def test_a_pending_pod_takes_the_room_an_update_frees_before_the_updates_new_pod(cli) -> None:
    # full-node-and-waiting.yaml: n1 (2 cpu) full with web's 2 pods of 1 cpu, and a pod waiting
    # (1 cpu, created an hour ago). The update (maxSurge 0, maxUnavailable 1) deletes one old pod:
    # waiting, older than the new web pod, goes to the active queue with it and binds first; the new
    # pod stays pending and the rollout is stuck (a false pass before).
    code, verdicts = _verdicts(cli, "full-node-and-waiting.yaml", "web-update.yaml")
    assert (code, verdicts["web"][1]) == (1, 1)


HPA = DATA / "hpa"
FILE_HPA = """---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: default}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 4
"""


@pytest.mark.parametrize("mode, file_hpa, pods", [
    ("min", False, 7),   # the snapshot's HPA (min 7) decides over the manifest's 3
    ("spec", False, 7),  # 3 kept within [7, 10]
    ("max", False, 10),
    ("min", True, 2),    # an HPA of the files decides over the snapshot's
])
def test_the_snapshots_autoscaler_decides_the_replicas_of_its_target(cli, tmp_path, mode, file_hpa, pods) -> None:
    # hpa/cluster.yaml: 3 nodes of 2 cpu and an HPA (min 7, max 10) on Deployment web, which the
    # pull request (hpa/web.yaml, 3 replicas of 1 cpu) changes: 7 pods need 7 cpu of 6 (a false
    # pass when the snapshot's HPA was ignored).
    web = tmp_path / "web.yaml"
    web.write_text((HPA / "web.yaml").read_text() + (FILE_HPA if file_hpa else ""))
    result = cli(["check", str(web), "-c", str(HPA / "cluster.yaml"), "--replicas", mode, "--now", NOW, "-q",
                  "-o", "json"])
    [workload] = [w for w in json.loads(result.stdout)["workloads"] if w["kind"] == "Deployment"]
    assert workload["pods"] == pods
    assert result.exit_code == (1 if pods > 6 else 0)


def test_the_explain_hint_quotes_a_file_name_for_the_shell(cli, tmp_path):
    """`kwhatif explain ... -f my app.yaml` pasted into a shell reads two arguments: quoted."""
    path = tmp_path / "my app.yaml"
    path.write_text((CHECK / "api.yaml").read_text())
    lines = cli(["check", str(path), *ARGS]).stdout.splitlines()
    assert lines[-1].endswith(f"-f '{path}' (with the check's -c, -n and --config)")


def test_the_explain_hint_repeats_the_checks_whatif_operations(cli):
    """samples/: without node gpu-a1, the check leaves ml/gpu-job pending; the explain it suggests
    removes gpu-a1 too, so it explains the same verdict (without it, gpu-job binds there)."""
    samples = REPO / "samples"
    files = sorted(str(p) for p in (samples / "pods").glob("*.yaml"))
    common = ["-c", str(samples / "cluster.yaml"), "--now", NOW, "-q"]
    result = cli(["check", str(samples / "pods"), *common, "--remove-node", "gpu-a1", "-o", "json"])
    [gpu_job] = [w for w in json.loads(result.stdout)["workloads"] if w["name"] == "gpu-job"]
    assert gpu_job["pending"] == 1 and gpu_job["first_pending"] == "ml/gpu-job"
    last = cli(["check", str(samples / "pods"), *common, "--remove-node", "gpu-a1"]).stdout.splitlines()[-1]
    assert last == ("kwhatif: why ml/gpu-job stays pending, and what would make it fit: kwhatif explain ml/gpu-job "
                    + " ".join(f"-f {f}" for f in files) + " --remove-node gpu-a1 (with the check's -c, -n and --config)")
    hinted = last.split(": kwhatif ", 1)[1].removesuffix(" (with the check's -c, -n and --config)").split()
    assert "Pod ml/gpu-job: unschedulable" in cli([*hinted, *common]).stdout.splitlines()


def test_the_explain_hint_repeats_the_replicas_the_check_chose(cli, tmp_path):
    """After `--replicas max` (hpa/web.yaml: 10 pods of 1 cpu on 6 cpu, the HPA's max) the check
    leaves pods pending; the explain it suggests takes the same --replicas, so the pod it names
    exists there and is explained on the same queue (without it, explain placed spec.replicas and
    knew no such pod)."""
    common = ["-c", str(HPA / "cluster.yaml"), "--now", NOW, "-q"]
    result = cli(["check", str(HPA / "web.yaml"), *common, "--replicas", "max"])
    assert result.exit_code == 1
    last = result.stdout.splitlines()[-1]
    assert last.endswith(f"-f {HPA / 'web.yaml'} --replicas max (with the check's -c, -n and --config)"), last
    hinted = last.split(": kwhatif ", 1)[1].removesuffix(" (with the check's -c, -n and --config)").split()
    pod = hinted[1]
    assert f"Pod {pod}: unschedulable" in cli([*hinted, *common]).stdout.splitlines()
