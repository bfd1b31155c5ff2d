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
