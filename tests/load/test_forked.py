"""Decoding a big input on two cores (`kwhatif.load.forked`, `decode_docs(parallel_min=...)`).

The promise: the same objects, the same warnings in the same order, and the same first error as
decoding everything here; a child that cannot deliver costs only its work done again. The
expected values are the sequential decoder's, on the same input (`parallel_min` above the input's
size turns the fork off)."""

from __future__ import annotations

import os
import pickle

import orjson
import pytest

from kwhatif.errors import InputError, Source
from kwhatif.load import forked
from kwhatif.load.cluster import decode_docs
from kwhatif.load.reader import parse_bytes
from tests.load.test_raw_pods import dump, pod

pytestmark = pytest.mark.skipif(not forked.can_fork(), reason="needs os.fork and a second core to fork onto")

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


def test_the_child_works_on_its_own_copy():
    """What the child changes stays in the child: only its result comes back."""
    seen: list[str] = []

    def second() -> str:
        seen.append("child")
        return orjson.dumps({"pid": os.getpid()}).decode()
    mine, theirs = forked.both(lambda: os.getpid(), second)
    assert mine == os.getpid() and orjson.loads(theirs)["pid"] != os.getpid()
    assert seen == []
