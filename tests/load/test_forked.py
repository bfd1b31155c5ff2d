"""Decoding a big input on two cores (`kwhatif.load.forked`, `decode_docs(parallel_min=...)`).

The promise: the same objects, the same warnings in the same order, and the same first error as
decoding everything here; a child that cannot deliver costs only its work done again. The
expected values are the sequential decoder's, on the same input (`parallel_min` above the input's
size turns the fork off)."""

from __future__ import annotations

import os
import pickle
import threading

import orjson
import pytest

from kwhatif.errors import InputError, Source
from kwhatif.load import forked
from kwhatif.load.cluster import decode_docs
from kwhatif.load.reader import parse_bytes
from tests.load.test_raw_pods import dump, pod

needs_fork = pytest.mark.skipif(not forked.can_fork(), reason="needs os.fork and a second core to fork onto")

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "4"}}}
SECRET = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "shop"}}


def both_ways(items: list[dict]) -> tuple[object, object]:
    """(decoded on two cores, decoded here): each a (objects, warnings) pair or the error's line."""
    def decoded(parallel_min: int) -> object:
        try:
            return decode_docs(parse_bytes(dump(items), "dump.json"), parallel_min=parallel_min)
        except InputError as err:
            return str(err)
    return decoded(2), decoded(10**9)


@needs_fork
def test_the_forked_decode_gives_the_same_objects_and_warnings_in_order():
    # 12 items: the child takes the last 36 % (items 8 to 11). Duplicates cross the cut both ways
    # (web-1 at 0 and 10, web-9 at 8 and 11) and an ignored kind lies on each side.
    items = [pod("web-1"), NODE, SECRET] + [pod(f"web-{i}", None) for i in range(2, 7)] + \
        [pod("web-9"), SECRET, pod("web-1", "n2"), pod("web-9", None)]
    parallel, sequential = both_ways(items)
    assert parallel == sequential
    objects, warnings = sequential
    assert len(objects) == 12 - 2 - 2  # two secrets ignored, two duplicates replaced
    assert [w.split(": ", 2)[2] for w in warnings[:2]] == [
        "duplicate of the object at dump.json#0.items[0]; the last one wins",
        "duplicate of the object at dump.json#0.items[8]; the last one wins"]
    assert warnings[2] == "ignored kinds kwhatif does not read: Secret (2)"


@needs_fork
@pytest.mark.parametrize("bad_first, bad_second, expected", [
    # the error a sequential run meets first, whichever side found it
    (True, True, "dump.json#0.items[1]"),
    (False, True, "dump.json#0.items[9]"),
    (True, False, "dump.json#0.items[1]"),
])
def test_the_first_error_in_input_order_is_the_one_reported(bad_first, bad_second, expected):
    items = [pod(f"web-{i}") for i in range(12)]
    for at, bad in ((1, bad_first), (9, bad_second)):
        if bad:
            items[at]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "lots"
    parallel, sequential = both_ways(items)
    assert parallel == sequential
    assert isinstance(sequential, str) and sequential.startswith(expected)


@needs_fork
def test_a_child_that_dies_costs_only_its_work_done_again():
    parent = os.getpid()

    def second() -> list[int]:
        if os.getpid() != parent:
            os._exit(3)  # the child dies before sending anything
        return [2]
    assert forked.both(lambda: [1], second) == ([1], [2])


def test_an_input_error_travels_whole():
    err = InputError("must be a quantity", Source("dump.json", 0, None, 4), obj="Pod/shop/web-1",
                     field="spec.containers[0].resources.requests.cpu")
    back = pickle.loads(pickle.dumps(err))
    assert str(back) == str(err) == ("dump.json#0.items[4]: Pod/shop/web-1: spec.containers[0].resources.requests.cpu: "
                                     "must be a quantity")


@needs_fork
def test_the_child_works_on_its_own_copy(monkeypatch):
    """What the child changes stays in the child: only its result comes back. (`needs_fork` says
    a fork can be made here; a thread another test left in this worker — a Dask client's loop —
    would make `can_fork` decline at run time, and that is tested on its own below.)"""
    monkeypatch.setattr(forked, "can_fork", lambda: True)
    seen: list[str] = []

    def second() -> str:
        seen.append("child")
        return orjson.dumps({"pid": os.getpid()}).decode()
    mine, theirs = forked.both(lambda: os.getpid(), second)
    assert mine == os.getpid() and orjson.loads(theirs)["pid"] != os.getpid()
    assert seen == []


def test_no_process_to_spare_means_the_work_is_done_here(monkeypatch):
    """fork refused (a pod's PID limit): both parts are worked out here, no descriptor left open."""
    def refuse() -> int:
        raise OSError(11, "Resource temporarily unavailable")
    monkeypatch.setattr(forked, "can_fork", lambda: True)
    monkeypatch.setattr(os, "fork", refuse)
    before = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    assert forked.both(lambda: 1, lambda: 2, lambda: 3) == (1, 3)  # the second done here, its own way
    if before is not None:
        assert len(os.listdir("/proc/self/fd")) == before


@needs_fork
def test_a_child_that_sends_garbage_costs_its_work_done_again(monkeypatch):
    monkeypatch.setattr(forked, "_message", lambda payload: ("lost", None))
    assert forked.both(lambda: "mine", lambda: "theirs", lambda: "done here") == ("mine", "done here")


def test_kwhatif_no_fork_keeps_the_load_in_one_process(monkeypatch):
    monkeypatch.setenv("KWHATIF_NO_FORK", "1")
    assert not forked.can_fork()
    parent = os.getpid()
    assert forked.both(os.getpid, os.getpid) == (parent, parent)


@pytest.mark.parametrize("cpu_max, cores, expected", [
    ("max 100000\n", 4, 4),        # no limit: the affinity decides
    ("100000 100000\n", 16, 1),    # limits.cpu: 1 on a 16-core node
    ("250000 100000\n", 16, 3),    # 2.5 cores: a third one is partly there
    ("500000 100000\n", 2, 2),     # more quota than cores
    ("garbage\n", 8, 8),           # unreadable: the affinity decides
    ("100000 0\n", 8, 8),          # a zero period: unreadable too
])
def test_the_cgroup_quota_caps_the_cores(monkeypatch, tmp_path, cpu_max, cores, expected):
    path = tmp_path / "cpu.max"
    path.write_text(cpu_max)
    monkeypatch.setattr(forked, "CPU_MAX", str(path))
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(range(cores)), raising=False)
    assert forked.cores_to_use() == expected


def test_no_fork_from_a_process_with_other_threads():
    """A child forked while another thread holds a lock could wait on it for ever."""
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not forked.can_fork()
    finally:
        stop.set()
        other.join()


MEMINFO = "MemTotal:       24000000 kB\nMemFree:        20000000 kB\nMemAvailable:   16000000 kB\n"


@pytest.mark.parametrize("meminfo, memory_max, memory_current, expected", [
    (MEMINFO, "max\n", "1000\n", 16_000_000 * 1024),           # no cgroup limit: MemAvailable
    (MEMINFO, "2000000000\n", "500000000\n", 1_500_000_000),   # a pod's limit leaves less
    (MEMINFO, "1000\n", "5000\n", 0),                           # already over its limit
    (None, "2000000000\n", "500000000\n", 1_500_000_000),       # no /proc/meminfo: the cgroup's
    ("MemTotal: 1 kB\n", None, None, None),                     # neither tells
])
def test_memory_available_is_the_least_of_system_and_cgroup(monkeypatch, tmp_path, meminfo, memory_max,
                                                            memory_current, expected):
    for name, text in (("MEMINFO", meminfo), ("MEMORY_MAX", memory_max), ("MEMORY_CURRENT", memory_current)):
        path = tmp_path / name
        if text is not None:
            path.write_text(text)
        monkeypatch.setattr(forked, name, str(path))
    assert forked.memory_available() == expected
