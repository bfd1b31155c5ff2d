"""Reading pod usage: kubectl top, metrics-server JSON, the kubelet's stats summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kwhatif.errors import InputError
from kwhatif.evict.usage import read_usage


def test_kubectl_top_all_namespaces(tmp_path: Path) -> None:
    path = tmp_path / "top.txt"
    path.write_text("shop   web-1   12m   130Mi\nkube-system  dns  3m  1Gi\n")
    usage, stats = read_usage(str(path))
    assert usage == {"shop/web-1": {"memory": 130 * 2**20}, "kube-system/dns": {"memory": 2**30}}
    assert stats.available == {}


def test_metrics_server_sums_the_containers(tmp_path: Path) -> None:
    path = tmp_path / "metrics.json"
    path.write_text(json.dumps({"kind": "PodMetricsList", "items": [
        {"metadata": {"name": "web", "namespace": "shop"},
         "containers": [{"name": "a", "usage": {"cpu": "1m", "memory": "100Mi"}},
                        {"name": "b", "usage": {"cpu": "1m", "memory": "28Mi"}}]}]}))
    assert read_usage(str(path))[0] == {"shop/web": {"memory": 128 * 2**20}}


def test_kubelet_summary_gives_the_node_too(tmp_path: Path) -> None:
    path = tmp_path / "summary.json"
    path.write_text(json.dumps({
        "node": {"memory": {"availableBytes": 1000}, "fs": {"availableBytes": 50, "capacityBytes": 500},
                 "rlimit": {"maxpid": 4000, "curproc": 300}},
        "pods": [{"podRef": {"name": "web", "namespace": "shop"}, "memory": {"workingSetBytes": 10},
                  "ephemeral-storage": {"usedBytes": 20}, "process_stats": {"process_count": 3}}]}))
    usage, stats = read_usage(str(path))
    assert usage == {"shop/web": {"memory": 10, "ephemeral-storage": 20, "pids": 3}}
    assert stats.available == {"memory": 1000, "ephemeral-storage": 50, "pids": 3700}
    assert stats.capacity == {"ephemeral-storage": 500, "pids": 4000}


def test_the_memory_capacity_is_available_plus_working_set(tmp_path: Path) -> None:
    """helpers.go:makeMemoryAvailableSignalObservation: capacity = availableBytes +
    workingSetBytes (700Mi + 7492Mi = 8192Mi), what a percentage threshold is of — not the
    node's allocatable."""
    path = tmp_path / "summary.json"
    path.write_text(json.dumps({"node": {"memory": {"availableBytes": 700 * 2**20, "workingSetBytes": 7492 * 2**20}},
                                "pods": []}))
    assert read_usage(str(path))[1].capacity == {"memory": 8192 * 2**20}


def test_a_bad_line_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "top.txt"
    path.write_text("web 1m 10Mi\nshop web 1m lots extra\n")  # line 1: `kubectl top pods` of one namespace
    with pytest.raises(InputError, match=r"top.txt: line 2: expected NAMESPACE NAME CPU MEMORY"):
        read_usage(str(path))


@pytest.mark.parametrize("text", ["", "\n", "NAMESPACE   NAME   CPU(cores)   MEMORY(bytes)\n"])
def test_a_usage_file_without_a_reading_is_refused(tmp_path: Path, text: str) -> None:
    # What `kubectl top pods -A --no-headers | kwhatif evict --usage -` gets when metrics-server does
    # not answer: every pod would be ranked as one without stats, against a guessed availability.
    path = tmp_path / "top.txt"
    path.write_text(text)
    with pytest.raises(InputError, match=r"top.txt: no reading in it"):
        read_usage(str(path))


def test_a_line_without_a_cpu_column_is_not_read_as_a_pod_named_after_its_namespace(tmp_path: Path) -> None:
    # `default be 5m`: three fields read as NAME CPU MEMORY would make a pod "default" of cpu "be".
    path = tmp_path / "top.txt"
    path.write_text("default be 5m\n")
    with pytest.raises(InputError, match=r"top.txt: line 1: 'be' is not a quantity"):
        read_usage(str(path))


def test_a_pod_listed_twice_is_refused(tmp_path: Path) -> None:
    usage = tmp_path / "top.txt"
    usage.write_text("shop cart 5m 240Mi\nshop cart 5m 999Mi\n")
    with pytest.raises(InputError) as err:
        read_usage(str(usage))
    assert str(err.value) == f"--usage {usage}: line 2: shop/cart is listed again (first on line 1)"


@pytest.mark.parametrize("content, said", [
    # A usage file that parses but holds no reading where one belongs: one line naming the field, never a crash.
    ('{"node":{"nodeName":"n1","memory":{"availableBytes":"x"}},"pods":[]}', "node.memory.availableBytes: expected"),
    ('{"node":{"nodeName":"n1","memory":{"availableBytes":true}},"pods":[]}', "node.memory.availableBytes: expected"),
    ('{"node":{"nodeName":"n1","memory":{"availableBytes":1e400}},"pods":[]}', "node.memory.availableBytes: expected"),
    ('{"node":{"nodeName":"n1"},"pods":[{"podRef":{"name":"a"}},{"podRef":null,"memory":5}]}',
     "pods[1].memory: expected an object"),
    ('{"kind":"PodMetricsList","items":[{"metadata":null,"containers":[{"usage":{"memory":"-5Gi"}}]}]}',
     "items[0].containers[0]: '-5Gi' is negative"),
    ('{"kind":"PodMetricsList","items":[7]}', "items[0]: expected an object"),
    ("shop cart-redis-1 10m 1e999\n", "line 1: '1e999' is not a quantity a kubelet reports"),
])
def test_a_malformed_usage_file_is_one_line_naming_where(tmp_path: Path, content: str, said: str) -> None:
    path = tmp_path / "usage.json"
    path.write_text(content)
    with pytest.raises(InputError) as err:
        read_usage(str(path))
    assert said in str(err.value) and str(path) in str(err.value)
