"""ResourceQuota admission through the command line: `check` fails the workload whose pod a quota
refuses (exit 1, the API server's text in JSON), `place` reports the refused pod as skipped.

The cluster: one node of 8 cpu / 16Gi in namespace `shop`, whose quota `pods` allows 2 pods and,
by its status, already holds 1 (see the arithmetic beside each test).
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from tests.cli.conftest import NOW, executable

CLUSTER = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: pods, namespace: shop}
spec: {hard: {pods: "2", requests.cpu: "4"}}
status:
  hard: {pods: "2", requests.cpu: "4"}
  used: {pods: "1", requests.cpu: 3500m}
"""

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx, resources: {requests: {cpu: 100m}}}]
"""


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    cmd = [executable("kwhatif"), *args, "-c", str(tmp_path / "cluster.yaml"), "--now", NOW, "-q", "-o", "json"]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=120)


def test_check_fails_the_workload_whose_second_replica_the_quota_refuses(tmp_path: Path) -> None:
    # Replica 1: pods 1 + 1 <= 2, requests.cpu 3500m + 100m <= 4 -> admitted (used: 2, 3600m).
    # Replica 2: pods 2 + 1 > 2 (requests.cpu 3700m stays within 4): only pods is named.
    (tmp_path / "web.yaml").write_text(DEPLOYMENT)
    proc = _run(tmp_path, "check", str(tmp_path / "web.yaml"))
    assert proc.returncode == 1, proc.stderr
    (web,) = json.loads(proc.stdout)["workloads"]
    assert (web["pods"], web["bound"], web["pending"], web["ok"]) == (2, 1, 1, False)
    assert re.fullmatch(r'admission: pods "web-[a-z0-9]+-[a-z0-9]{5}" is forbidden: exceeded quota: pods, '
                        r"requested: pods=1, used: pods=2, limited: pods=2", web["message"]), web["message"]
    assert web["first_pending"] is None  # never created: no "why it stays pending" hint to explain it


def test_place_reports_a_pod_the_quota_refuses_as_skipped_with_the_api_text(tmp_path: Path) -> None:
    # requests.cpu 3500m + 1 > 4 (pods 1 + 1 <= 2): refused, nothing scheduled.
    (tmp_path / "big.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: big, namespace: shop}\n"
        "spec: {containers: [{name: app, image: nginx, resources: {requests: {cpu: '1'}}}]}\n")
    proc = _run(tmp_path, "place", str(tmp_path / "big.yaml"))
    assert proc.returncode == 1, proc.stderr
    (result,) = json.loads(proc.stdout)["results"]
    assert result["outcome"] == "skipped"
    assert result["message"] == ('admission: pods "big" is forbidden: exceeded quota: pods, requested: '
                                 "requests.cpu=1, used: requests.cpu=3500m, limited: requests.cpu=4")


def test_a_pod_the_quota_refuses_has_the_priority_admission_gave_it(tmp_path: Path) -> None:
    # The Priority admission plugin runs before ResourceQuota: the pod refused (3500m + 1 > 4)
    # already has its class's 1000 — the API server's refusal is of that pod.
    (tmp_path / "big.yaml").write_text(
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n---\n"
        "apiVersion: v1\nkind: Pod\nmetadata: {name: big, namespace: shop}\n"
        "spec: {priorityClassName: high, containers: [{name: app, image: nginx, resources: {requests: {cpu: '1'}}}]}\n")
    proc = _run(tmp_path, "place", str(tmp_path / "big.yaml"))
    assert proc.returncode == 1, proc.stderr
    (result,) = json.loads(proc.stdout)["results"]
    assert (result["outcome"], result["priority"]) == ("skipped", 1000)


def test_check_fails_the_statefulset_whose_claim_the_storage_quota_refuses(tmp_path: Path) -> None:
    # Namespace data (the pods quota is shop's), a default StorageClass that provisions on the chosen
    # node. Quota storage (no status: nothing counted yet) limits requests.storage to 25Gi: db-0's
    # claim 10Gi -> 10Gi, db-1's -> 20Gi, db-2's 30Gi > 25Gi: the claim is refused, so the
    # StatefulSet controller never creates db-2 (its event's words around the API server's).
    (tmp_path / "sts.yaml").write_text("""\
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast, annotations: {storageclass.kubernetes.io/is-default-class: "true"}}
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: storage, namespace: data}
spec: {hard: {requests.storage: 25Gi}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: data}
spec:
  replicas: 3
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: postgres, resources: {requests: {cpu: 100m}}}]}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 10Gi}}}
""")
    proc = _run(tmp_path, "check", str(tmp_path / "sts.yaml"))
    assert proc.returncode == 1, proc.stderr
    (db,) = json.loads(proc.stdout)["workloads"]
    assert (db["pods"], db["bound"], db["pending"], db["ok"]) == (3, 2, 1, False)
    assert db["message"] == (
        "admission: create Claim data-db-2 for Pod db-2 in StatefulSet db failed error: persistentvolumeclaims "
        '"data-db-2" is forbidden: exceeded quota: storage, requested: requests.storage=10Gi, used: '
        "requests.storage=20Gi, limited: requests.storage=25Gi")


OBJECT_QUOTA = """\
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: objects, namespace: shop}
spec: {hard: {count/deployments.apps: "%s", count/replicasets.apps: "%s"}}
"""


def _objects_cluster(tmp_path: Path, deployments: int, replica_sets: int) -> Path:
    """CLUSTER with a quota on the namespace's Deployments and ReplicaSets, without a status: the
    quota controller would count the snapshot's — none — so `used` is 0 for both."""
    (tmp_path / "objects.yaml").write_text(CLUSTER + OBJECT_QUOTA % (deployments, replica_sets))
    return tmp_path / "objects.yaml"


def test_check_fails_a_new_workload_whose_object_the_count_quota_refuses(tmp_path: Path) -> None:
    """Object-count quotas (the generic evaluator): web is a 2nd Deployment where 1 is allowed
    (the first, api, takes it: used 0 + 1 <= 1, then 1 + 1 > 1): kubectl apply is refused and no
    pod of web is ever made; api's first ReplicaSet fits count/replicasets.apps 1."""
    api = DEPLOYMENT.replace("name: web", "name: api", 1).replace("replicas: 2", "replicas: 1")  # pods 1 + 1 <= 2
    (tmp_path / "web.yaml").write_text(api + "---\n" + DEPLOYMENT)
    cluster = _objects_cluster(tmp_path, 1, 1)
    proc = subprocess.run([executable("kwhatif"), "check", str(tmp_path / "web.yaml"), "-c", str(cluster),
                           "--now", NOW, "-q", "-o", "json"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    api, web = json.loads(proc.stdout)["workloads"]
    assert (api["change"], api["ok"]) == ("new", True)
    assert (web["change"], web["pods"], web["ok"]) == ("refused", 0, False)
    assert web["message"] == ('deployments.apps "web" is forbidden: exceeded quota: objects, requested: '
                              "count/deployments.apps=1, used: count/deployments.apps=1, limited: count/deployments.apps=1")


def test_a_deployments_replicaset_is_counted_too(tmp_path: Path) -> None:
    """count/replicasets.apps 0: the Deployment is made, its controller's ReplicaSet is refused."""
    (tmp_path / "web.yaml").write_text(DEPLOYMENT)
    cluster = _objects_cluster(tmp_path, 1, 0)
    proc = subprocess.run([executable("kwhatif"), "check", str(tmp_path / "web.yaml"), "-c", str(cluster),
                           "--now", NOW, "-q", "-o", "json"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    (web,) = json.loads(proc.stdout)["workloads"]
    assert re.fullmatch(r'replicasets\.apps "web-[a-z0-9]+" is forbidden: exceeded quota: objects, requested: '
                        r"count/replicasets\.apps=1, used: count/replicasets\.apps=0, limited: count/replicasets\.apps=0",
                        web["message"]), web["message"]


RUNNING_WEB = """\
---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web-h1
  namespace: shop
  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: d1, controller: true}]
spec:
  replicas: 1
  selector: {matchLabels: {app: web, pod-template-hash: h1}}
  template:
    metadata: {labels: {app: web, pod-template-hash: h1}}
    spec:
      containers: [{name: web, image: nginx, resources: {requests: {cpu: 100m}}}]
---
apiVersion: v1
kind: Pod
metadata:
  name: web-h1-a
  namespace: shop
  labels: {app: web, pod-template-hash: h1}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-h1, uid: r1, controller: true}]
spec:
  nodeName: n1
  containers: [{name: web, image: nginx, resources: {requests: {cpu: 100m}}}]
status: {phase: Running, conditions: [{type: Ready, status: "True"}]}
"""


def test_a_rollouts_new_replicaset_is_counted_and_a_full_quota_stops_it(tmp_path: Path) -> None:
    """count/replicasets.apps 1, held by web-h1: a new image needs a second ReplicaSet, which the
    quota refuses (1 + 1 > 1): the Deployment is updated but its rollout never starts (the
    controller's ReplicaSetCreateError), and the check fails saying so. The same manifest
    unchanged needs no ReplicaSet: it passes."""
    quota = ("---\napiVersion: v1\nkind: ResourceQuota\nmetadata: {name: objects, namespace: shop}\n"
             "spec: {hard: {count/replicasets.apps: '1'}}\nstatus: {hard: {count/replicasets.apps: '1'}, "
             "used: {count/replicasets.apps: '1'}}\n")
    (tmp_path / "cluster.yaml").write_text(CLUSTER + RUNNING_WEB + quota)
    same = DEPLOYMENT.replace("replicas: 2", "replicas: 1")
    for manifest, code in ((same, 0), (same.replace("image: nginx", "image: nginx:2"), 1)):
        (tmp_path / "web.yaml").write_text(manifest)
        proc = subprocess.run([executable("kwhatif"), "check", str(tmp_path / "web.yaml"), "-c",
                               str(tmp_path / "cluster.yaml"), "--now", NOW, "-q", "-o", "json"],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == code, proc.stderr
    (web,) = json.loads(proc.stdout)["workloads"]
    assert re.fullmatch(r'the Deployment is updated, but the ReplicaSet of its new template is refused: '
                        r'replicasets\.apps "web-[a-z0-9]+" is forbidden: exceeded quota: objects, requested: '
                        r"count/replicasets\.apps=1, used: count/replicasets\.apps=1, limited: count/replicasets\.apps=1",
                        web["message"]), web["message"]
