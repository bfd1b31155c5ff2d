"""The samples are data: what samples/README.md says of them is checked here, against kwhatif.

Every expectation is worked out by hand from the facts samples/README.md lists (node table, taints,
labels, free capacity) and the default filters' reason texts; the reasoning is beside each test.
The 12 nodes: cp-1 (control-plane taint), worker-a1..a3, b1..b3, c1 (schedulable workers: 7),
worker-c2 (cordoned), gpu-a1, gpu-b1, gpu-c1 (taint nvidia.com/gpu=present:NoSchedule).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.cli.conftest import NOW, by_pod

SAMPLES = Path(__file__).parents[2] / "samples"
CLUSTER = ["-c", str(SAMPLES / "cluster.yaml"), "--now", NOW]

# Filter stage on every node for a pod without tolerations or selectors (reference: NodeUnschedulable
# runs before TaintToleration; the histogram is sorted byte-wise):
#   cp-1: `node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }` (empty value)
#   worker-c2: `node(s) were unschedulable` (spec.unschedulable, and its taint is the unschedulable one)
#   gpu-*: `node(s) had untolerated taint {nvidia.com/gpu: present}`
#   the 7 schedulable workers: the pod's own reason.
COMMON = (
    "0/12 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, "
    "1 node(s) were unschedulable, 3 node(s) had untolerated taint {nvidia.com/gpu: present}, "
)


def _schedule(cli, *args: str) -> dict:
    result = cli([*args, *CLUSTER, "-o", "json"])
    assert result.exit_code in (0, 1), result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize("pod, workers_reason", [
    # 3 CPUs: every schedulable worker has less than 3 CPUs free (README: free cpu column, max 2350m).
    ("shop/checkout-7d9f8-pending", "7 Insufficient cpu"),
    # 1 GPU, no toleration: the GPU nodes are tainted, no worker has nvidia.com/gpu at all.
    ("ml/llm-eval-kprgv", "7 Insufficient nvidia.com/gpu"),
    # nodeSelector disktype: nvme, a label no node has.
    ("default/disk-bench", "7 node(s) didn't match Pod's node affinity/selector"),
])
def test_pending_samples_stay_pending_for_the_reasons_the_readme_gives(cli, pod, workers_reason):
    result = by_pod(_schedule(cli, "schedule"))[pod]
    assert result["outcome"] == "unschedulable"
    assert result["message"].startswith(COMMON + workers_reason + ". no new claims to deallocate, preemption: ")


def test_stale_batch_low_pod_fits_a_schedulable_worker(cli):
    # 200m / 256Mi fits every schedulable worker (the smallest free cpu is worker-b2's 800m).
    result = by_pod(_schedule(cli, "schedule"))["ml/embed-backfill-qr2jz"]
    workers = {"worker-a1", "worker-a2", "worker-a3", "worker-b1", "worker-b2", "worker-b3", "worker-c1"}
    assert result["outcome"] == "bound" and result["node"] in workers


@pytest.mark.parametrize("manifest, pod, nodes", [
    # 1 GPU with the toleration and the accelerator selector: gpu-b1 has no GPU left.
    ("gpu-job.yaml", "ml/gpu-job", {"gpu-a1", "gpu-c1"}),
    # hard zone spread: frontends 3 / 3 / 2 in zones a / b / c -> only zone c; worker-c2 is cordoned,
    # and required anti-affinity per hostname leaves worker-c1 (no frontend there).
    ("spread.yaml", "shop/frontend-canary", {"worker-c1"}),
])
def test_sample_pods_land_where_the_readme_says(cli, manifest, pod, nodes):
    result = by_pod(_schedule(cli, "place", str(SAMPLES / "pods" / manifest)))[pod]
    assert result["outcome"] == "bound" and result["node"] in nodes


def test_critical_sample_pod_needs_preemption(cli):
    # 4 CPUs, priority 100000: no schedulable node has 4 CPUs free, so it is bound only after evicting
    # lower-priority pods.
    result = by_pod(_schedule(cli, "place", str(SAMPLES / "pods" / "critical.yaml")))["payments/ledger-reconcile"]
    assert result["outcome"] == "bound"
    victims = result["preemption"]["victims"]
    assert victims and all(_priorities()[v] < 100000 for v in victims)


def _priorities() -> dict[str, int]:
    """The priority of every pod of the sample dump, as its manifest carries it."""
    dump = yaml.load((SAMPLES / "cluster.yaml").read_text(), Loader=yaml.CSafeLoader)
    return {f"{o['metadata']['namespace']}/{o['metadata']['name']}": o["spec"].get("priority", 0)
            for o in dump["items"] if o["kind"] == "Pod"}
