"""Workloads everywhere: `place`, `explain` (KIND/NAMESPACE/NAME) and `compare` take
Deployments, StatefulSets, DaemonSets and Jobs as `check` does.

The cluster is conftest.py's; api.yaml is a Deployment of two 600m replicas (hand-worked in
test_check.py: after the cluster's pending pods, node-b takes one, the second fits nowhere)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.cli.conftest import CLUSTER, DATA, MSG_BIG_3, NOW, by_pod, single_error_line
from tests.cli.test_compare import CLUSTER as COMPARE_CLUSTER

API = str(DATA / "check" / "api.yaml")
SAMPLES = Path(__file__).parents[2] / "samples"
ARGS = ["-c", str(CLUSTER), "--now", NOW, "-q"]
API_POD = r"default/api-[bcdfghjklmnpqrstvwxz2456789]{1,10}-[bcdfghjklmnpqrstvwxz2456789]{5}"


def test_place_expands_a_deployment_into_its_replicas(cli):
    result = cli(["place", API, *ARGS, "-o", "json"])
    assert result.exit_code == 1  # one replica stays pending
    pods = by_pod(json.loads(result.stdout))
    api = [key for key in pods if key.startswith("default/api-")]
    assert len(api) == 2 and all(re.fullmatch(API_POD, key) for key in api)
    assert [(pods[k]["outcome"], pods[k]["node"]) for k in api] == [("bound", "node-b"), ("unschedulable", None)]
    assert pods[api[1]]["message"] == MSG_BIG_3


def test_explain_a_workload_explains_its_first_pod_that_does_not_fit(cli):
    result = cli(["explain", "deploy/default/api", "-f", API, *ARGS, "-o", "json"])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert re.fullmatch(API_POD, data["pod"]) and data["outcome"] == "unschedulable"
    assert data["message"] == MSG_BIG_3


def test_explain_a_running_workload_of_the_snapshot_picks_its_pending_pod(cli):
    # samples/cluster.yaml: shop/checkout's ReplicaSet checkout-7d9f8 has one pending pod,
    # checkout-7d9f8-pending (samples/README.md); the others are bound.
    result = cli(["explain", "deployment/shop/checkout", "-c", str(SAMPLES / "cluster.yaml"), "--now", NOW, "-q",
                  "-o", "json"])
    assert json.loads(result.stdout)["pod"] == "shop/checkout-7d9f8-pending"


def test_explain_a_workload_without_pods_is_one_error_line(cli):
    result = cli(["explain", "sts/default/nothing", *ARGS])
    assert result.exit_code == 2
    assert single_error_line(result.stderr) == (
        "kwhatif: error: sts/default/nothing: no pod of this workload in the snapshot (nor among the pods to place)")


def test_compare_places_a_deployments_pod_under_both_configurations(tmp_path: Path, cli):
    # The compare test's cluster without its pending pod: the Deployment's one 500m / 512Mi replica
    # is that pod (same arithmetic, test_compare.py): n2 by default, n1 with bin packing. Its
    # ReplicaSet brings default spreading, equal on both nodes (no other pod of it).
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(COMPARE_CLUSTER.split("- apiVersion: v1\n  kind: Pod\n  metadata: {name: new")[0])
    deployment = tmp_path / "app.yaml"
    deployment.write_text("""
apiVersion: apps/v1
kind: Deployment
metadata: {name: app}
spec:
  replicas: 1
  selector: {matchLabels: {app: app}}
  template:
    metadata: {labels: {app: app}}
    spec: {containers: [{name: c, image: app, resources: {requests: {cpu: 500m, memory: 512Mi}}}]}
""")
    config = str(SAMPLES / "bin-packing.config.yaml")
    result = cli(["compare", str(deployment), "-c", str(cluster), "--config", config, "-o", "json", "--now", NOW])
    assert result.exit_code == 0, result.stderr
    [row] = json.loads(result.stdout)["pods"]
    assert (row["change"], row["before"], row["after"]) == ("moved", "n2", "n1")


TOLERATED = "tolerations: [{key: dedicated, operator: Equal, value: web, effect: NoSchedule}]"
WEB_SPEC = ("{containers: [{name: app, image: 'nginx:1', resources: {requests: {cpu: 500m}}}], "
            "nodeSelector: {pool: web}, %s}")
WEB_CLUSTER = f"""apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {{name: n1, labels: {{pool: web, kubernetes.io/hostname: n1}}}}
  spec: {{taints: [{{key: dedicated, value: web, effect: NoSchedule}}]}}
  status: {{allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}}}
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata:
    name: web-h1
    namespace: default
    ownerReferences: [{{apiVersion: apps/v1, kind: Deployment, name: web, uid: d1, controller: true}}]
  spec:
    replicas: 1
    selector: {{matchLabels: {{app: web, pod-template-hash: h1}}}}
    template:
      metadata: {{labels: {{app: web, pod-template-hash: h1}}}}
      spec: {WEB_SPEC % TOLERATED}
- apiVersion: v1
  kind: Pod
  metadata:
    name: web-h1-a
    namespace: default
    labels: {{app: web, pod-template-hash: h1}}
    ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: web-h1, uid: r1, controller: true}}]
  spec: {WEB_SPEC % ("nodeName: n1, " + TOLERATED)}
  status: {{phase: Running, conditions: [{{type: Ready, status: "True"}}]}}
"""


def _check_web(cli, tmp_path, cluster: str, template_tail: str, replicas: int | None = 1) -> dict:
    """`check` of Deployment web (`replicas`, none written when None; WEB_SPEC ending in
    `template_tail`) on `cluster`."""
    (tmp_path / "cluster.yaml").write_text(cluster)
    written = f"  replicas: {replicas}\n" if replicas is not None else ""
    (tmp_path / "web.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\n"
        f"spec:\n{written}  selector: {{matchLabels: {{app: web}}}}\n"
        f"  template:\n    metadata: {{labels: {{app: web}}}}\n    spec: {WEB_SPEC % template_tail}\n")
    result = cli(["check", str(tmp_path / "web.yaml"), "-c", str(tmp_path / "cluster.yaml"), "--now", NOW, "-q",
                  "-o", "json"])
    (w,) = json.loads(result.stdout)["workloads"]
    assert result.exit_code == (0 if w["ok"] else 1), result.stderr
    return w


@pytest.mark.parametrize("template_tail, change, code", [
    (TOLERATED, "unchanged", 0),
    # The toleration removed: a new template (the Deployment controller compares whole templates,
    # EqualIgnoreHash), though the running pod still carries all the manifest sets. 1 replica,
    # 25%/25%: surge ceil(0.25) = 1, unavailable floor(0.25) = 0: the new pod is created first and
    # fits nowhere (n1, the only pool=web node, is tainted): stuck at step 1, FAIL.
    ("tolerations: []", "update (RollingUpdate)", 1),
])
def test_a_field_the_manifest_removes_from_a_running_template_is_a_change(cli, tmp_path, template_tail, change,
                                                                         code):
    w = _check_web(cli, tmp_path, WEB_CLUSTER, template_tail)
    assert (w["change"], w["ok"]) == (change, code == 0)
    if code:
        assert w["rollout"]["stuck_at"] == 1
        assert "1 node(s) had untolerated taint {dedicated: web}" in w["message"]


def _web_deployment(template_tail: str, annotations: str = "{}", last_applied: str | None = None) -> str:
    """Deployment web as the snapshot has it (a status: it runs), its template tolerating or not,
    with `annotations` on the template and a last-applied-configuration when given."""
    meta = "{name: web, namespace: default, uid: d1"
    if last_applied is not None:
        meta += ", annotations: {kubectl.kubernetes.io/last-applied-configuration: %s}" % json.dumps(last_applied)
    return (f"- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {meta}}}\n  spec:\n    replicas: 1\n"
            "    selector: {matchLabels: {app: web}}\n"
            f"    template:\n      metadata: {{labels: {{app: web}}, annotations: {annotations}}}\n"
            f"      spec: {WEB_SPEC % template_tail}\n  status: {{replicas: 1}}\n")


def test_without_its_replicasets_the_deployments_own_template_tells_a_removal(cli, tmp_path):
    """`kubectl get deploy,pods` has no ReplicaSet: the Deployment's template is what runs (the
    controller compares its ReplicaSets with it), and the toleration removed is a change."""
    replica_set = WEB_CLUSTER.index("- apiVersion: apps/v1\n  kind: ReplicaSet")
    pod = WEB_CLUSTER.index("- apiVersion: v1\n  kind: Pod")
    cluster = WEB_CLUSTER[:replica_set] + _web_deployment(TOLERATED) + WEB_CLUSTER[pod:]
    assert _check_web(cli, tmp_path, cluster, "tolerations: []")["change"] == "update (RollingUpdate)"
    assert _check_web(cli, tmp_path, cluster, TOLERATED)["change"] == "unchanged"


def test_what_the_last_apply_did_not_write_is_kept_not_removed(cli, tmp_path):
    """The live template has an annotation a webhook (or kubectl patch) added; the Deployment's
    last-applied-configuration — the manifest as applied — lacks it: `kubectl apply` of the same
    manifest leaves it (a three-way merge removes only what the last apply set): unchanged.
    The toleration, which that apply wrote, is removed when the manifest leaves it out."""
    written = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
               "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                        "template": {"metadata": {"labels": {"app": "web"}},
                                     "spec": {"containers": [{"name": "app", "image": "nginx:1",
                                                              "resources": {"requests": {"cpu": "500m"}}}],
                                              "nodeSelector": {"pool": "web"},
                                              "tolerations": [{"key": "dedicated", "operator": "Equal",
                                                               "value": "web", "effect": "NoSchedule"}]}}}}
    patched = "{example.com/safe-to-evict: 'true'}"
    cluster = WEB_CLUSTER.replace("metadata: {labels: {app: web, pod-template-hash: h1}}",
                                  f"metadata: {{labels: {{app: web, pod-template-hash: h1}}, annotations: {patched}}}")
    cluster = cluster.replace("    labels: {app: web, pod-template-hash: h1}\n",
                              f"    labels: {{app: web, pod-template-hash: h1}}\n    annotations: {patched}\n")
    cluster += _web_deployment(TOLERATED, patched, json.dumps(written))
    assert _check_web(cli, tmp_path, cluster, TOLERATED)["change"] == "unchanged"
    assert _check_web(cli, tmp_path, cluster, "tolerations: []")["change"] == "update (RollingUpdate)"


def test_a_toleration_another_hand_added_goes_with_the_applied_list(cli, tmp_path):
    """Tolerations are an atomic list (no merge key): the last apply wrote `dedicated`, a kubectl
    patch added `spot`; applying the same manifest again replaces the whole list with the
    manifest's (CreateThreeWayMergePatch: current differs from modified), so `spot` goes and the
    pods roll — unlike an annotation another hand set, which stays."""
    written = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
               "spec": {"template": {"metadata": {"labels": {"app": "web"}},
                                     "spec": {"containers": [{"name": "app", "image": "nginx:1"}],
                                              "tolerations": [{"key": "dedicated", "operator": "Equal",
                                                               "value": "web", "effect": "NoSchedule"}]}}}}
    both = "tolerations: [{key: dedicated, operator: Equal, value: web, effect: NoSchedule}, {key: spot, operator: Exists}]"
    cluster = WEB_CLUSTER.replace(TOLERATED, both) + _web_deployment(both, last_applied=json.dumps(written))
    assert _check_web(cli, tmp_path, cluster, TOLERATED)["change"] == "update (RollingUpdate)"


def _last_applied_web(**spec: object) -> str:
    """Deployment web's last-applied-configuration: the manifest `_check_web` applies (image
    nginx:1, 500m, nodeSelector pool=web) with `spec` added to its pod spec."""
    return json.dumps({"apiVersion": "apps/v1", "kind": "Deployment",
                       "metadata": {"name": "web", "namespace": "default"},
                       "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                                "template": {"metadata": {"labels": {"app": "web"}},
                                             "spec": {"containers": [{"name": "app", "image": "nginx:1",
                                                                      "resources": {"requests": {"cpu": "500m"}}}],
                                                      "nodeSelector": {"pool": "web"}, **spec}}}})


_REQUIRE_WEB_POOL = ("affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
                     "[{matchExpressions: [{key: pool, operator: In, values: [web]}]}]}}}")
_TOLERATION = {"tolerations": [{"key": "dedicated", "operator": "Equal", "value": "web", "effect": "NoSchedule"}]}


@pytest.mark.parametrize("running, applied, manifest_tail, image, change, ok", [
    # kubectl patch added the toleration; the last apply never wrote tolerations, nor does the
    # manifest: the three-way merge leaves the patched list (no patch for the field at all), so
    # applying the same manifest again changes nothing ...
    pytest.param(TOLERATED, {}, "restartPolicy: Always", "nginx:1", "unchanged", True, id="patched toleration, same"),
    # ... and a new image rolls out pods that keep it: the surge pod (1 replica, 25%/25%: surge
    # 1) goes to n1, the only pool=web node, tainted dedicated=web, 0.5 + 0.5 of 4 cpu: PASS.
    # Read as written, the new pod has no toleration and fits nowhere: a false FAIL.
    pytest.param(TOLERATED, {}, "restartPolicy: Always", "nginx:0", "update (RollingUpdate)", True,
                 id="patched toleration, new image"),
    # kubectl patch added a required node affinity (the struct is merged, the part set whole):
    # the manifest without it leaves it, and the pods, which carry it, carry the template.
    pytest.param(f"{TOLERATED}, {_REQUIRE_WEB_POOL}", _TOLERATION, TOLERATED, "nginx:1", "unchanged", True,
                 id="patched affinity"),
    # `tolerations: []` written is a value the patch carries (an atomic list replaced whole): the
    # patched toleration goes, a new template, whose surge pod fits nowhere (n1, the only
    # pool=web node, is tainted): stuck at step 1, FAIL.
    pytest.param(TOLERATED, {}, "tolerations: []", "nginx:1", "update (RollingUpdate)", False,
                 id="tolerations: [] written"),
    # The last apply wrote the affinity; the manifest leaves it out: removed, a new template.
    pytest.param(f"{TOLERATED}, {_REQUIRE_WEB_POOL}",
                 {**_TOLERATION, "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                     "nodeSelectorTerms": [{"matchExpressions": [{"key": "pool", "operator": "In",
                                                                  "values": ["web"]}]}]}}}},
                 TOLERATED, "nginx:1", "update (RollingUpdate)", True, id="applied affinity removed"),
])
def test_what_another_hand_set_where_no_apply_writes_stays_in_the_template(cli, tmp_path, running, applied,
                                                                          manifest_tail, image, change, ok):
    """The live template (the Deployment's, its ReplicaSet's, the pod's) as kubectl patch left it
    (`running`), the last apply's pod spec extras (`applied`), the manifest's (`manifest_tail`),
    and the image the cluster runs (the manifest's is nginx:1)."""
    cluster = WEB_CLUSTER.replace(TOLERATED, running) + _web_deployment(running, last_applied=_last_applied_web(
        **applied))
    w = _check_web(cli, tmp_path, cluster.replace("'nginx:1'", f"'{image}'"), manifest_tail)
    assert (w["change"], w["ok"]) == (change, ok), w.get("message")


def test_limits_kubectl_set_resources_added_stay_when_no_apply_writes_them(cli, tmp_path):
    """`kubectl set resources --limits=cpu=1` on the running Deployment: requests and limits are
    maps merged key by key, so the manifest (and the last apply) without limits leaves that
    limit, and the template is unchanged."""
    limited = "resources: {requests: {cpu: 500m}, limits: {cpu: '1'}}"
    cluster = (WEB_CLUSTER + _web_deployment(TOLERATED, last_applied=_last_applied_web(**_TOLERATION))).replace(
        "resources: {requests: {cpu: 500m}}", limited)
    assert _check_web(cli, tmp_path, cluster, TOLERATED)["change"] == "unchanged"


F1_CLUSTER = """apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {kubernetes.io/hostname: n1, pool: web}},
   status: {allocatable: {cpu: "1", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2, labels: {kubernetes.io/hostname: n2, pool: other}},
   status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    namespace: default
    uid: d1
    annotations: {kubectl.kubernetes.io/last-applied-configuration: '%s'}
  spec:
    replicas: 2
    selector: {matchLabels: {app: web}}
    strategy: {rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}
    template: {metadata: {labels: {app: web}}, spec: &spec {containers: [{name: app, image: 'nginx:1',
               resources: {requests: {cpu: 500m}}}], affinity: {nodeAffinity: {%s, %s}}}}
  status: {replicas: 2}
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata: {name: web-h1, namespace: default, uid: r1,
             ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: d1, controller: true}]}
  spec: {replicas: 2, selector: {matchLabels: {app: web, pod-template-hash: h1}},
         template: {metadata: {labels: {app: web, pod-template-hash: h1}}, spec: *spec}}
""" + "".join(f"""- apiVersion: v1
  kind: Pod
  metadata: {{name: web-h1-{x}, namespace: default, labels: {{app: web, pod-template-hash: h1}},
             ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: web-h1, uid: r1, controller: true}}]}}
  spec: {{nodeName: n1, containers: [{{name: app, image: 'nginx:1', resources: {{requests: {{cpu: 500m}}}}}}],
         affinity: {{nodeAffinity: {{%s, %s}}}}}}
  status: {{phase: Running, conditions: [{{type: Ready, status: "True"}}]}}
""" for x in "ab")
_F1_REQUIRED = ("requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: "
                "[{key: pool, operator: In, values: [web]}]}]}")
_F1_PREFERRED = ("preferredDuringSchedulingIgnoredDuringExecution: [{weight: 10, preference: {matchExpressions: "
                 "[{key: disk, operator: In, values: [ssd]}]}}]")


@pytest.mark.parametrize("image, change, ok", [
    # The same manifest: nothing to patch, unchanged.
    ("nginx:1", "unchanged", True),
    # A new image: the new pods keep the patched `required` (pool=web), so only n1 qualifies, and
    # n1 (1 cpu) holds the two 500m pods: the surge pod (maxSurge 1, maxUnavailable 0) fits
    # nowhere — n2 fails the affinity. Stuck at step 1, FAIL. (Taking nodeAffinity whole from the
    # manifest dropped `required`: the pods went to n2, a false PASS.)
    ("nginx:2", "update (RollingUpdate)", False),
])
def test_affinity_merges_field_by_field_a_patched_required_stays_beside_the_applied_preferred(
        cli, tmp_path, image, change, ok):
    """The last apply wrote nodeAffinity's `preferred`; `kubectl patch` added `required`. A struct
    merges field by field (strategicpatch diffMaps: no patchStrategy on NodeAffinity), so the
    manifest that writes `preferred` alone leaves `required`."""
    written = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
               "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                        "strategy": {"rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}},
                        "template": {"metadata": {"labels": {"app": "web"}}, "spec": {
                            "containers": [{"name": "app", "image": "nginx:1",
                                            "resources": {"requests": {"cpu": "500m"}}}],
                            "affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                                {"weight": 10, "preference": {"matchExpressions": [
                                    {"key": "disk", "operator": "In", "values": ["ssd"]}]}}]}}}}}}
    (tmp_path / "cluster.yaml").write_text(F1_CLUSTER % ((json.dumps(written), _F1_REQUIRED, _F1_PREFERRED)
                                                         + (_F1_REQUIRED, _F1_PREFERRED) * 2))
    manifest = {**written, "spec": {**written["spec"], "template": {**written["spec"]["template"], "spec": {
        **written["spec"]["template"]["spec"],
        "containers": [{"name": "app", "image": image, "resources": {"requests": {"cpu": "500m"}}}]}}}}
    (tmp_path / "web.yaml").write_text(json.dumps(manifest))
    result = cli(["check", str(tmp_path / "web.yaml"), "-c", str(tmp_path / "cluster.yaml"), "--now", NOW, "-q",
                  "-o", "json"])
    (w,) = json.loads(result.stdout)["workloads"]
    assert (w["change"], w["ok"], result.exit_code) == (change, ok, 0 if ok else 1), w["message"]


def test_replicas_the_last_apply_wrote_and_the_manifest_drops_default_to_one(cli, tmp_path):
    """Deployment web runs 3 replicas, as its last apply wrote; the manifest leaves replicas out:
    kubectl patches them to null and the API server defaults them to 1 (patch.go
    updatePatchIfMissing; SetDefaults_Deployment; the autoscaling docs' migration warning) — a
    scale down to 1 pod, not the 3 that run."""
    written = json.loads(_last_applied_web(**_TOLERATION))
    written["spec"]["replicas"] = 3
    pod = WEB_CLUSTER[WEB_CLUSTER.index("- apiVersion: v1\n  kind: Pod"):]
    cluster = (WEB_CLUSTER.replace("  spec:\n    replicas: 1\n", "  spec:\n    replicas: 3\n")
               + pod.replace("web-h1-a", "web-h1-b") + pod.replace("web-h1-a", "web-h1-c")
               + _web_deployment(TOLERATED, last_applied=json.dumps(written)).replace(
                   "replicas: 1", "replicas: 3").replace("status: {replicas: 1}", "status: {replicas: 3}"))
    w = _check_web(cli, tmp_path, cluster, TOLERATED, replicas=None)
    assert (w["change"], w["rollout"]["desired"], w["rollout"]["running"]) == ("scale", 1, 3)


PATCHED_DAEMONSET = DATA / "check" / "patched-daemonset"


@pytest.mark.parametrize("image, cpu, change, ok", [
    # The manifest as last applied: the patched toleration stays, the DaemonSet still runs on n1.
    ("'agent:1'", "100m", "unchanged", True),
    # A new image asking for 5 cpu: its pod keeps the toleration, so n1 (gpu-tainted, 4 cpu) is
    # still its node, and the new pod does not fit there: FAIL. (Taken as written, the manifest
    # tolerated nothing: "matches no node", a scale to 0, a false PASS.)
    ("'agent:2'", '"5"', "update (RollingUpdate)", False),
])
def test_a_daemonsets_nodes_follow_the_template_apply_leaves(cli, tmp_path, image, cpu, change, ok):
    """DaemonSet agent's live template has a toleration `kubectl patch` added (gpu, n1's taint);
    its last-applied-configuration has none, nor does the manifest: tolerations are not patched
    (strategicpatch: neither original nor modified has them), the toleration stays."""
    text = (PATCHED_DAEMONSET / "agent.yaml").read_text().replace("IMAGE", image).replace("CPU", cpu)
    (tmp_path / "agent.yaml").write_text(text)
    result = cli(["check", str(tmp_path / "agent.yaml"), "-c", str(PATCHED_DAEMONSET / "cluster.yaml"), "--now", NOW,
                  "-q", "-o", "json"])
    (w,) = json.loads(result.stdout)["workloads"]
    assert (w["change"], w["ok"]) == (change, ok), w["message"]


def _cron_cluster(policy: str) -> dict:
    """n1 and n2 (2 cpu each); CronJob cj (concurrencyPolicy `policy`) with its active Job
    cj-29000000 running a 1500m pod on n1; another 1500m pod on n2: 500m free on each node."""
    template = {"spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [
        {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1500m"}}}]}}}}
    nodes = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": n, "labels": {"kubernetes.io/hostname": n}},
              "status": {"allocatable": {"cpu": "2", "memory": "8Gi", "pods": "110"}}} for n in ("n1", "n2")]

    def pod(name: str, node: str, owner: dict | None) -> dict:
        meta: dict = {"name": name, "namespace": "default", "uid": f"u-{name}"}
        if owner:
            meta["ownerReferences"] = [owner]
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
                "spec": {"nodeName": node, "restartPolicy": "Never", "containers": [
                    {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1500m"}}}]},
                "status": {"phase": "Running"}}
    cron = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "cj", "namespace": "default", "uid": "cj1"},
            "spec": {"schedule": "*/5 * * * *", "concurrencyPolicy": policy, "jobTemplate": template},
            "status": {"active": [{"kind": "Job", "name": "cj-29000000", "namespace": "default"}]}}
    job_ref = {"apiVersion": "batch/v1", "kind": "Job", "name": "cj-29000000", "uid": "j1", "controller": True}
    return {"apiVersion": "v1", "kind": "List",
            "items": [*nodes, cron, pod("cj-29000000-abcde", "n1", job_ref), pod("other", "n2", None)]}


@pytest.mark.parametrize("policy, code, warning", [
    pytest.param("Allow", 1, None, id="Allow: the next Job runs beside the active one, and 500m is not enough"),
    pytest.param("Forbid", 0, "the controller starts the next one only once it ends",
                 id="Forbid: the next Job starts once the active one ends, its 1500m free again on n1"),
    pytest.param("Replace", 0, "the controller deletes it first", id="Replace: the active Job is deleted first"),
])
def test_a_cronjobs_next_job_runs_beside_its_active_one_only_under_allow(cli, tmp_path, policy, code, warning):
    # cronjob_controllerv2.go syncCronJob: Forbid skips a run while a Job is active; Replace
    # deletes the active Jobs before creating the new one.
    state = _cron_cluster(policy)
    (tmp_path / "cluster.json").write_text(json.dumps(state))
    (tmp_path / "cj.json").write_text(json.dumps({k: v for k, v in state["items"][2].items() if k != "status"}))
    result = cli(["check", str(tmp_path / "cj.json"), "-c", str(tmp_path / "cluster.json"), "--now", NOW])
    assert result.exit_code == code, result.stdout
    said = [line for line in result.stderr.splitlines() if "concurrencyPolicy" in line]
    if warning is None:
        assert said == []
    else:
        assert said == [f"kwhatif: warning: CronJob/default/cj: concurrencyPolicy {policy}: cj-29000000 still active; its "
                        f"next Job is judged without the 1 pod it runs ({warning})"]


def _running_web(cpu: str = "500m") -> list[dict]:
    """n1 (2 cpu) runs Deployment web: ReplicaSet web-h and its 2 pods of `cpu`."""
    template = {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "web:1", "resources": {"requests": {"cpu": cpu}}}]}}
    hashed = {"metadata": {"labels": {"app": "web", "pod-template-hash": "h"}}, "spec": template["spec"]}
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default",
                                                                             "uid": "u-web"},
                  "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}}, "template": template},
                  "status": {"replicas": 2}}
    replicaset = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {
        "name": "web-h", "namespace": "default", "uid": "u-web-h", "labels": hashed["metadata"]["labels"],
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "u-web",
                             "controller": True}]},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web", "pod-template-hash": "h"}},
                 "template": hashed}, "status": {"replicas": 2}}
    pods = [{"apiVersion": "v1", "kind": "Pod", "metadata": {
        "name": f"web-h-{i}", "namespace": "default", "uid": f"u-{i}", "labels": hashed["metadata"]["labels"],
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-h", "uid": "u-web-h",
                             "controller": True}]},
        "spec": {"nodeName": "n1", **template["spec"]}, "status": {"phase": "Running"}} for i in "ab"]
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1"}},
            "status": {"allocatable": {"cpu": "2", "memory": "8Gi", "pods": "110"}}}
    return [node, deployment, replicaset, *pods]


@pytest.mark.parametrize("low, code", [
    pytest.param(3, 0, id="minReplicas 3: 3 x 500m = 1500m on 2 cpu: fits"),
    pytest.param(5, 1, id="minReplicas 5: 5 x 500m = 2500m on 2 cpu: the 5th does not fit"),
])
def test_an_autoscaler_alone_is_checked_against_the_workload_it_scales(cli, tmp_path, low, code):
    # A pull request that changes only the HPA of a running Deployment: the autoscaler raises its
    # replicas to minReplicas at once (horizontal.go), so the check is of the Deployment as it runs
    # at that count — not "no workload to check", nor a pass with the HPA ignored.
    (tmp_path / "cluster.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": _running_web()}))
    hpa = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
           "metadata": {"name": "web", "namespace": "default"},
           "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                    "minReplicas": low, "maxReplicas": 10}}
    (tmp_path / "hpa.json").write_text(json.dumps(hpa))
    result = cli(["check", str(tmp_path / "hpa.json"), "-c", str(tmp_path / "cluster.json"), "--now", NOW, "-o", "json"])
    assert result.exit_code == code, result.stdout
    [web] = json.loads(result.stdout)["workloads"]
    assert (web["kind"], web["name"], web["change"]) == ("Deployment", "web", "scale")
    assert ("HorizontalPodAutoscaler/default/web: its target Deployment/default/web is not among the workloads but "
            "runs in the cluster: checked as it runs, at the replicas the autoscaler sets") in result.stderr
