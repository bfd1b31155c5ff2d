"""CSIStorageCapacity and VolumeAttachment objects read from a dump, through the command line.

Expected values are worked out by hand from kube-scheduler v1.34.1's binder.go
(hasEnoughCapacity) and nodevolumelimits/csi.go (getNodeVolumeAttachmentInfo); the reasoning is
beside each test. Message shape: the FailedScheduling text (reference §8.1, §8.2), with
DynamicResources' PostFilter `no new claims to deallocate` and DefaultPreemption's summary.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.cli.conftest import NOW, executable

NODES = "".join(f"""\
---
apiVersion: v1
kind: Node
metadata: {{name: node-{zone}, labels: {{kubernetes.io/hostname: node-{zone}, topology.kubernetes.io/zone: {zone}}}}}
status: {{allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}}}
""" for zone in ("a", "b", "c"))

CAPACITY = NODES + """\
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: lvm.csi.example.com
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: lvm.csi.example.com}
spec: {storageCapacity: true}
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {name: fast-a, namespace: kube-system}
storageClassName: fast
nodeTopology: {matchLabels: {topology.kubernetes.io/zone: a}}
capacity: 5Gi
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {name: fast-b, namespace: kube-system}
storageClassName: fast
nodeTopology: {matchLabels: {topology.kubernetes.io/zone: b}}
capacity: 100Gi
maximumVolumeSize: 1Gi
"""


def claim_and_pod(name: str, size: str, created: str) -> str:
    return f"""\
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {{name: {name}, namespace: default}}
spec: {{storageClassName: fast, accessModes: [ReadWriteOnce], resources: {{requests: {{storage: {size}}}}}}}
---
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default, creationTimestamp: "{created}"}}
spec:
  containers: [{{name: app, image: nginx, resources: {{requests: {{cpu: 100m}}}}}}]
  volumes: [{{name: data, persistentVolumeClaim: {{claimName: {name}}}}}]
"""


def schedule(tmp_path: Path, text: str) -> dict[str, Any]:
    (tmp_path / "cluster.yaml").write_text(text)
    cmd = [executable("kwhatif"), "schedule", "-c", str(tmp_path / "cluster.yaml"), "--now", NOW, "-q", "-o", "json"]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode in (0, 1), done.stderr
    return {r["pod"]: r for r in json.loads(done.stdout)["results"]}


def test_a_claim_is_provisioned_only_where_a_capacity_has_room(tmp_path: Path) -> None:
    # small (2Gi): zone a 5Gi >= 2Gi passes; zone b's maximumVolumeSize 1Gi < 2Gi (it wins over
    # capacity 100Gi); zone c has no CSIStorageCapacity → only node-a is feasible.
    # big (10Gi): 5Gi < 10Gi, 1Gi < 10Gi, none for c → every node "did not have enough free
    # storage" (UnschedulableAndUnresolvable: preemption cannot help on any node).
    text = CAPACITY + claim_and_pod("small", "2Gi", "2025-06-01T00:00:00Z") + claim_and_pod(
        "big", "10Gi", "2025-06-02T00:00:00Z")
    results = schedule(tmp_path, text)
    assert results["default/small"]["node"] == "node-a"
    assert results["default/small"]["feasible_nodes"] == ["node-a"]
    assert results["default/big"]["message"] == (
        "0/3 nodes are available: 3 node(s) did not have enough free storage. no new claims to deallocate, "
        "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.")


ATTACH = """\
---
apiVersion: v1
kind: Node
metadata: {name: node-a, labels: {kubernetes.io/hostname: node-a}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: node-a}
spec: {drivers: [{name: ebs.csi.aws.com, nodeID: i-1, allocatable: {count: 1}}]}
""" + "".join(f"""\
---
apiVersion: v1
kind: PersistentVolume
metadata: {{name: pv-{n}}}
spec:
  capacity: {{storage: 1Gi}}
  accessModes: [ReadWriteOnce]
  csi: {{driver: ebs.csi.aws.com, volumeHandle: vol-{n}}}
  claimRef: {{namespace: default, name: data-{n}}}
status: {{phase: Bound}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {{name: data-{n}, namespace: default, annotations: {{pv.kubernetes.io/bind-completed: "yes"}}}}
spec: {{accessModes: [ReadWriteOnce], storageClassName: "", volumeName: pv-{n}, resources: {{requests: {{storage: 1Gi}}}}}}
status: {{phase: Bound}}
""" for n in (1, 2)) + """\
---
apiVersion: v1
kind: Pod
metadata: {name: app, namespace: default, creationTimestamp: "2025-06-01T00:00:00Z"}
spec:
  containers: [{name: app, image: nginx}]
  volumes: [{name: data, persistentVolumeClaim: {claimName: data-2}}]
"""

VOLUME_ATTACHMENT = """\
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: {name: csi-0123}
spec: {attacher: ebs.csi.aws.com, nodeName: node-a, source: {persistentVolumeName: pv-1}}
status: {attached: true}
"""


def test_a_volume_attachment_takes_an_attach_slot(tmp_path: Path) -> None:
    # Without the attachment: 0 attached + 1 new (vol-2) <= 1 → the pod lands on node-a.
    assert schedule(tmp_path, ATTACH)["default/app"]["node"] == "node-a"
    # With pv-1 attached to node-a by a VolumeAttachment (no pod uses it): 1 + 1 > 1 →
    # `node(s) exceed max volume count` (Unschedulable); preemption finds no pod to evict.
    result = schedule(tmp_path, ATTACH + VOLUME_ATTACHMENT)["default/app"]
    assert result["message"] == (
        "0/1 nodes are available: 1 node(s) exceed max volume count. no new claims to deallocate, "
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.")


def test_a_bad_capacity_is_one_line_naming_file_object_and_field(tmp_path: Path) -> None:
    # Bad input: exit 2 and one line naming the file, CSIStorageCapacity/kube-system/fast-a and the field.
    (tmp_path / "cluster.yaml").write_text(CAPACITY.replace("capacity: 5Gi", "capacity: five"))
    cmd = [executable("kwhatif"), "schedule", "-c", str(tmp_path / "cluster.yaml"), "--now", NOW, "-q"]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "cluster.yaml" in lines[0] and "CSIStorageCapacity/kube-system/fast-a" in lines[0]
    assert "capacity" in lines[0] and "five" in lines[0]


def test_a_capacity_without_storage_class_is_refused(tmp_path: Path) -> None:
    # storageClassName is required by the API server (validation: Required value).
    (tmp_path / "cluster.yaml").write_text(CAPACITY.replace("storageClassName: fast\nnodeTopology: {matchLabels: "
                                                            "{topology.kubernetes.io/zone: a}}", "nodeTopology: {}"))
    cmd = [executable("kwhatif"), "schedule", "-c", str(tmp_path / "cluster.yaml"), "--now", NOW, "-q"]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 2
    assert "CSIStorageCapacity/kube-system/fast-a" in done.stderr and "storageClassName" in done.stderr
    assert "Required value" in done.stderr
