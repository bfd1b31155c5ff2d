"""The schedule table fits the terminal: columns empty in every row are left out, and messages
wrap into the room the other columns leave (never below MIN_MESSAGE_WIDTH); `wide` keeps each
message whole on one line."""

from __future__ import annotations

from typing import Any

from kwhatif.render.table import MIN_MESSAGE_WIDTH, results_table

MESSAGE = ("0/12 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, "
           "1 node(s) were unschedulable, 3 node(s) had untolerated taint {nvidia.com/gpu: present}, 7 "
           "Insufficient cpu. no new claims to deallocate, preemption: 0/12 nodes are available: 12 Preemption "
           "is not helpful for scheduling.")


def _data(*results: dict[str, Any]) -> dict[str, Any]:
    return {"results": list(results), "counts": {"bound": 1},
            "cluster": {"nodes": 12, "bound_pods": 99, "pending_pods": len(results)}}


def _pod(name: str, **extra: Any) -> dict[str, Any]:
    return {"pod": name, "priority": 0, "outcome": "unschedulable", "node": None, "message": MESSAGE, **extra}


def test_empty_columns_are_left_out_and_the_message_fits_the_width() -> None:
    text = results_table(_data(_pod("shop/a"), _pod("shop/b")), width=100)
    assert text.splitlines()[0].split() == ["POD", "PRIORITY", "OUTCOME", "NODE", "MESSAGE"]
    assert max(map(len, text.splitlines())) <= 100
    assert "".join(text.split()).count("".join(MESSAGE.split())) == 2  # every word kept, over lines


def test_a_tie_or_an_eviction_brings_its_column_back() -> None:
    tied = _pod("shop/a", outcome="bound", node="n1", tied_nodes=["n1", "n2"], message=None)
    evicting = _pod("shop/b", outcome="bound", node="n3", preemption={"victims": ["shop/x"]}, message=None)
    header = results_table(_data(tied, evicting), width=120).splitlines()[0].split()
    assert header == ["POD", "PRIORITY", "OUTCOME", "NODE", "TIED", "EVICTS", "MESSAGE"]


def test_a_narrow_terminal_still_gets_a_readable_message_column() -> None:
    text = results_table(_data(_pod("shop/a-very-long-pod-name-of-a-statefulset-0")), width=60)
    start = text.splitlines()[0].index("MESSAGE")
    assert all(len(line) - start <= MIN_MESSAGE_WIDTH for line in text.splitlines()[1:-2])


def test_wide_keeps_each_message_on_one_line() -> None:
    assert MESSAGE in results_table(_data(_pod("shop/a")), wide=True, width=80)


def test_no_headers_prints_the_rows_alone_aligned_as_with_them() -> None:
    data = _data(_pod("shop/a", outcome="bound", node="n1", message=None), _pod("shop/b"))
    full = results_table(data, wide=True, width=200).splitlines()
    rows = results_table(data, wide=True, width=200, headers=False).splitlines()
    assert rows == full[1:3]  # no header, no blank line, no counts
