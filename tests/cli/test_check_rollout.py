"""`kwhatif check` of workloads that already run: the kube-prometheus case against the samples.

samples/cluster.yaml runs kube-prometheus' node-exporter DaemonSet on all 12 nodes (its pods
tolerate every taint, use hostNetwork and hostPort 9100, priority system-node-critical). The
manifests in data/check/kube-prometheus/ are that DaemonSet at a new image, and the Prometheus,
Alertmanager and ServiceMonitor resources prometheus-operator reads. Hand-worked:

- as an update (the default): RollingUpdate, maxUnavailable 1, maxSurge 0 — node by node (name
  order) the old pod is deleted, freeing port 9100, and the new pod takes it: 12 steps, each
  replacing one pod, never fewer than 11 of 12 available;
- with --as-new: a second copy beside the running one on each node: port 9100 is taken on every
  node, 12 pods pending with `didn't have free ports for the requested pod ports`;
- with maxSurge 1 (maxUnavailable 0): the first node's new pod is created beside its old one,
  port 9100 is taken, the surge budget is spent: stuck at step 1.
"""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree as ET

import yaml

from tests.cli.conftest import DATA, NOW, single_error_line

SAMPLES = Path(__file__).parents[2] / "samples"
ARGS = ["-c", str(SAMPLES / "cluster.yaml"), "--now", NOW, "-q"]
MANIFESTS = DATA / "check" / "kube-prometheus"
NODE_EXPORTER = MANIFESTS / "node-exporter-daemonset.yaml"
NO_PORT = "1 node(s) didn't have free ports for the requested pod ports"
NODE_EXPORTER_SELECTOR = yaml.safe_load(NODE_EXPORTER.read_text())["spec"]["selector"]["matchLabels"]
FIRST_NODE = "cp-1"  # the first of the 12 node names in byte order


def _json(cli, *args: str) -> tuple[int, dict]:
    result = cli(["check", *args, *ARGS, "-o", "json"])
    return result.exit_code, json.loads(result.stdout)


def _surging(tmp_path: Path) -> str:
    manifest = yaml.safe_load(NODE_EXPORTER.read_text())
    manifest["spec"]["updateStrategy"] = {"rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}
    path = tmp_path / "node-exporter-surge.yaml"
    path.write_text(yaml.safe_dump(manifest))
    return str(path)


def test_the_node_exporter_update_rolls_node_by_node_and_passes(cli, validate_check):
    code, data = _json(cli, str(MANIFESTS))
    assert code == 0
    validate_check(data)  # the rollout's documented shape
    (w,) = data["workloads"]
    assert (w["change"], w["pods"], w["bound"], w["pending"], w["ok"]) == ("update (RollingUpdate)", 12, 12, 0, True)
    rollout = w["rollout"]
    assert (rollout["desired"], rollout["running"], rollout["done"], rollout["stuck_at"]) == (12, 12, True, None)
    assert [(s["deleted"], s["created"], s["pending"], s["available"]) for s in rollout["steps"]] == [(1, 1, 0, 11)] * 12
    assert rollout["steps"][0]["action"].endswith(f"(on {FIRST_NODE})")
    assert rollout["worst"]["step"] == 1


def test_the_same_manifest_as_new_leaves_every_node_exporter_pod_without_a_free_port(cli):
    code, data = _json(cli, str(MANIFESTS), "--as-new")
    assert code == 1
    (w,) = data["workloads"]
    assert (w["change"], w["pods"], w["pending"], w["rollout"]) == ("new", 12, 12, None)
    assert NO_PORT in w["message"]


def test_a_surge_beside_a_host_port_is_stuck_at_its_first_step_and_every_format_says_so(cli, tmp_path):
    path = _surging(tmp_path)
    code, data = _json(cli, path)
    assert code == 1
    (w,) = data["workloads"]
    assert (w["pods"], w["pending"], w["rollout"]["stuck_at"]) == (1, 1, 1)
    assert w["message"].startswith("0/12 nodes are available: " + NO_PORT)
    step = w["rollout"]["steps"][0]
    line = (f"DaemonSet/monitoring/node-exporter: update (RollingUpdate) in 1 step; worst: step 1 ({step['action']}): "
            f"12/12 available, 1 pending; stuck at step 1 ({step['action']}): {w['message']}")
    table = cli(["check", path, *ARGS]).stdout
    assert line in table.splitlines()
    markdown = cli(["check", path, *ARGS, "-o", "markdown"]).stdout
    assert f"- {line}" in markdown.splitlines()
    failure = ET.fromstring(cli(["check", path, *ARGS, "-o", "junit"]).stdout).find("./testsuite/testcase/failure")
    assert failure is not None and (failure.text or "").endswith(line)
    github = cli(["check", path, *ARGS, "-o", "github"]).stdout
    assert github.splitlines()[0].endswith("%0A" + line.replace("%", "%25"))


def test_a_strategy_the_api_server_refuses_is_one_error_line(cli, tmp_path):
    manifest = yaml.safe_load(NODE_EXPORTER.read_text())
    manifest["spec"]["updateStrategy"] = {"type": "Rolling"}
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(manifest))
    result = cli(["check", str(path), *ARGS])
    assert result.exit_code == 2
    line = single_error_line(result.stderr)
    assert f"{path}" in line and "DaemonSet/monitoring/node-exporter: spec.updateStrategy.type" in line
    assert 'Unsupported value: \'Rolling\': supported values: "OnDelete", "RollingUpdate"' in line


def test_a_selector_change_is_refused_and_every_format_says_so(cli, tmp_path):
    """A DaemonSet's selector is immutable (daemonset strategy.go ValidateUpdate): the node-exporter
    manifest with one more selector label is refused by the API server, so the 12 running pods stay
    and the check fails (exit 1) with the server's answer, not an input error (exit 2)."""
    manifest = yaml.safe_load(NODE_EXPORTER.read_text())
    manifest["spec"]["selector"]["matchLabels"]["tier"] = "node"
    manifest["spec"]["template"]["metadata"]["labels"]["tier"] = "node"
    path = tmp_path / "relabelled.yaml"
    path.write_text(yaml.safe_dump(manifest))
    code, data = _json(cli, str(path))
    (w,) = data["workloads"]
    assert (code, w["change"], w["ok"], w["pods"], w["rollout"]["steps"]) == (1, "refused", False, 0, [])
    assert w["message"] == w["rollout"]["refused"]
    assert w["message"].startswith('The DaemonSet "node-exporter" is invalid: spec.selector: Invalid value: {"matchLabels":')
    assert w["message"].endswith("field is immutable (the running DaemonSet selects "
                                 f"{','.join(f'{k}={v}' for k, v in NODE_EXPORTER_SELECTOR.items())}; to change its "
                                 "selector, delete it and create it again)")
    table = cli(["check", str(path), *ARGS]).stdout
    assert f"DaemonSet/monitoring/node-exporter: refused; {w['message']}" in table.splitlines()


def test_the_operator_managed_prometheus_and_alertmanager_are_named_in_one_warning(cli):
    result = cli(["check", str(MANIFESTS), "-c", str(SAMPLES / "cluster.yaml"), "--now", NOW])
    assert result.exit_code == 0
    assert (
        "kwhatif: warning: not expanded, their operator creates the pods: Prometheus/monitoring/k8s "
        "(StatefulSet prometheus-k8s), Alertmanager/monitoring/main (StatefulSet alertmanager-main); check the "
        "StatefulSets they become once rendered (kubectl get statefulset -o yaml)") in result.stderr.splitlines()


def _frontend(tmp_path: Path, replicas: int | None, hpa: bool = False) -> str:
    """shop/frontend (8 replicas run: samples/README.md) at a new image, written from its
    ReplicaSet; `hpa`: with an HPA of 2 to 20 replicas beside it."""
    items = yaml.safe_load((SAMPLES / "cluster.yaml").read_text())["items"]
    [rs] = [o for o in items if o["kind"] == "ReplicaSet" and o["metadata"]["name"].startswith("frontend-")
            and o["spec"]["replicas"]]
    template = rs["spec"]["template"]
    template["metadata"]["labels"].pop("pod-template-hash")
    template["spec"]["containers"][0]["image"] += "-next"
    selector = {k: v for k, v in rs["spec"]["selector"]["matchLabels"].items() if k != "pod-template-hash"}
    spec = {"selector": {"matchLabels": selector}, "template": template}  # immutable: the running one
    if replicas is not None:
        spec["replicas"] = replicas
    path = tmp_path / "frontend.yaml"
    docs = [{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "frontend", "namespace": "shop"},
             "spec": spec}]
    if hpa:
        docs.append({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                     "metadata": {"name": "frontend", "namespace": "shop"},
                     "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "frontend"},
                              "minReplicas": 2, "maxReplicas": 20}})
    path.write_text(yaml.safe_dump_all(docs))
    return str(path)


def test_a_deployment_applied_without_replicas_keeps_the_replicas_that_run(cli, tmp_path):
    """kubectl apply leaves spec.replicas as it is when the manifest never sets it (the autoscaled
    way): the 8 frontends that run are rolled, not 1. A manifest that says 1 scales to 1."""
    code, data = _json(cli, _frontend(tmp_path, None))
    (w,) = data["workloads"]
    assert (w["pods"], w["rollout"]["desired"], w["rollout"]["running"]) == (8, 8, 8)
    code, data = _json(cli, _frontend(tmp_path, 1))
    (w,) = data["workloads"]
    assert (w["pods"], w["rollout"]["desired"], w["rollout"]["running"]) == (1, 1, 8)
    # With an HPA (2..20): it scales from the 8 that stay (clamped to 2..20: 8), not from 1.
    code, data = _json(cli, _frontend(tmp_path, None, hpa=True))
    (w,) = [w for w in data["workloads"] if w["kind"] == "Deployment"]
    assert (w["pods"], w["rollout"]["desired"]) == (8, 8)


def test_an_update_that_takes_the_daemonset_off_every_node_is_said_as_when_new(cli, tmp_path):
    """A nodeSelector no node carries: the DaemonSet controller deletes its pod from every node
    (daemon_controller.go nodeShouldRunDaemonPod is false everywhere) — an agent removed
    cluster-wide by a typo. The gate says `no node` and warns, as for a new DaemonSet, and
    --strict makes it the error."""
    manifest = yaml.safe_load(NODE_EXPORTER.read_text())
    manifest["spec"]["template"]["spec"]["nodeSelector"] = {"kubernetes.io/os": "plan9"}
    path = tmp_path / "node-exporter-nowhere.yaml"
    path.write_text(yaml.safe_dump(manifest))
    code, data = _json(cli, str(path))
    (w,) = data["workloads"]
    assert (w["pods"], w["bound"], w["pending"]) == (0, 0, 0)
    assert w["message"].startswith("matches no node: ")
    assert f"DaemonSet/monitoring/node-exporter: {w['message']}" in data["warnings"]
    strict = cli(["check", str(path), *ARGS[:-1], "--strict"])
    assert strict.exit_code == 2 and "matches no node" in single_error_line(strict.stderr)
