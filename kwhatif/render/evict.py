"""`kwhatif evict` as a table: the signal, then the node's pods in the kubelet's eviction order."""

from __future__ import annotations

from typing import Any

from kwhatif.api.quantity import format_amount
from kwhatif.render.table import painted, plain_table, rows_alone

HEADERS = ["#", "POD", "QOS", "PRIORITY", "REQUEST", "USAGE", "OVER REQUEST", "EVICTED", "RESCHEDULED"]
RESOURCE = {"memory.available": "memory", "nodefs.available": "ephemeral-storage", "pid.available": "pids"}


def eviction_table(data: dict[str, Any], wide: bool = False, headers: bool = True, color: bool = False) -> str:
    """The signal's state, then a row a pod; `headers=False` (`--no-headers`): the rows alone;
    `color` paints the EVICTED column."""
    resource = RESOURCE[data["signal"]]

    def show(amount: int | None) -> str:
        return "no stats" if amount is None else format_amount(resource, amount, exact=False)
    state = "under pressure" if data["under_pressure"] else "not under pressure"
    estimated = " (estimated: capacity minus the pods' usage)" if data["available_estimated"] else ""
    if not data["under_pressure"]:
        outcome = "no eviction: the kubelet evicts only under pressure; the ranking is the order it would evict in"
    elif data["available_after"] is not None and data["available_after"] < data["threshold"]:
        outcome = (f"{data['evicted']} pod(s) evicted, and {data['signal']} stays under its threshold (at "
                   f"{show(data['available_after'])} then: the pods' usage the file gives does not free enough)")
    else:
        outcome = (f"{data['evicted']} pod(s) evicted to bring {data['signal']} back above its threshold (at "
                   f"{show(data['available_after'])} then)")
    lines = [f"{data['node']}: {data['signal']} {show(data['available'])}{estimated}, threshold "
             f"{show(data['threshold'])}: {state}", outcome, ""]
    rows = []
    for i, r in enumerate(data["ranking"], 1):
        over = "-" if r["usage"] is None else ("yes" if r["exceeds_request"] else "no")
        evicted = painted("yes", color, "evicted") if r["evicted"] else \
            (painted("critical: skipped", color, "skipped") if r["critical"] else "")
        rows.append([i, r["pod"], r["qos"], r["priority"], show(r["request"]), show(r["usage"]), over, evicted,
                     r["rescheduled"] or ""])
    table = plain_table(rows, HEADERS, headers)
    return "\n".join(lines) + table + "\n" if headers else rows_alone(table)
