"""`kwhatif check` results → plain data (the `schedule -o json` document plus `workloads`,
`policies` and `ok`) and the human table. A workload's `change` says whether it is new, an update
(with its strategy), a scale or unchanged; `rollout_lines` tells, per update, its worst moment and
where it got stuck (every format writes them)."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import Any

from kwhatif.check import NO_NODE, CheckResult
from kwhatif.errors import Source
from kwhatif.load.reader import STDIN_NAME
from kwhatif.render.results import pod_result_data, simulation_head
from kwhatif.render.table import painted, plain_table, results_table, rows_alone


def _source(source: object) -> dict[str, Any] | None:
    if not isinstance(source, Source):
        return None
    return {"file": source.file, "line": source.line}


def check_data(result: CheckResult, node_detail: bool = True) -> dict[str, Any]:
    """`node_detail=False` (`--no-node-detail`) leaves out the per-node parts of each pod's record:
    a 300-replica check on 500 nodes is otherwise tens of megabytes."""
    sim = result.simulation
    return {**simulation_head(sim), "results": [pod_result_data(r, node_detail) for r in sim.results],
            **check_tail(result)}


def check_tail(result: CheckResult) -> dict[str, Any]:
    """What follows the results in `check_data` (JSON is written around them, one pod at a time)."""
    return {"warnings": list(result.warnings),
            "workloads": [{**w.data(), "source": _source(w.source)} for w in result.workloads],
            "policies": [p.data() for p in result.policies], "ok": result.ok,
            "manifests": list(result.manifests)}


def workload_ref(w: dict[str, Any]) -> str:
    return f"{w['kind']}/{w['namespace']}/{w['name']}"


def verdict(data: dict[str, Any]) -> str:
    fits = sum(1 for w in data["workloads"] if w["ok"])
    failed = [p["policy"] for p in data["policies"] if not p["ok"]]
    text = f"{fits}/{len(data['workloads'])} workloads fit"
    evicting = sum(1 for w in data["workloads"] if not w["ok"] and _fits_by_evicting(w))
    if evicting:
        text += f" ({evicting} more only by evicting)"
    if failed:
        text += f"; policies failed: {', '.join(failed)}"
    return ("PASS: " if data["ok"] else "FAIL: ") + text


def _fits_by_evicting(w: dict[str, Any]) -> bool:
    """Every pod placed, by preemption: failed for its evictions alone (`--no-evictions`)."""
    rollout = w.get("rollout") or {}
    return bool(w["evictions"]) and not w["pending"] and not rollout.get("refused") and w["bound"] == w["pods"]


def rollout_line(w: dict[str, Any]) -> str | None:
    """`<workload>: update (RollingUpdate) in 12 steps; worst: step 3 (...): 11/12 available, 0 pending`,
    `...; stuck at step 1 (...): <FailedScheduling message>`, and any note; `<workload>: refused;
    <the API server's answer>`; None for a new workload or an unchanged one without a note."""
    rollout = w.get("rollout")
    if not rollout or (not rollout["steps"] and not rollout["note"] and not rollout["refused"]):
        return None
    parts = [f"{workload_ref(w)}: {w['change']}"]
    if rollout["refused"]:
        parts.append(rollout["refused"])
    steps = rollout["steps"]
    if steps:
        parts[0] += f" in {len(steps)} step{'s' if len(steps) != 1 else ''}"
        worst = rollout["worst"]
        parts.append(f"worst: step {worst['step']} ({worst['action']}): {worst['available']}/{rollout['desired']} "
                     f"available, {worst['pending']} pending")
    if rollout["stuck_at"] is not None:
        stuck = steps[rollout["stuck_at"] - 1]
        parts.append(f"stuck at step {stuck['step']} ({stuck['action']}): {w['message']}")
    if rollout["note"]:
        parts.append(rollout["note"])
    return "; ".join(parts)


def rollout_lines(data: dict[str, Any]) -> list[str]:
    return [line for w in data["workloads"] if (line := rollout_line(w)) is not None]


def result_word(w: dict[str, Any]) -> str:
    """A workload's RESULT: `ok`, `FAIL`, or `no node` for a DaemonSet that fits because it runs
    nowhere (said, never passed off as `ok`)."""
    if not w["ok"]:
        return "FAIL"
    return "no node" if w["message"] == NO_NODE else "ok"


def check_table(data: dict[str, Any], wide: bool = False, color: bool = False, headers: bool = True,
                explain_with: Sequence[str] | None = ()) -> str:
    """The workloads' pods, then a row a workload; `color` paints outcomes and results (`--color`);
    `headers=False` (`--no-headers`): the pods' rows then the workloads' rows alone. The other pods
    of the queue (pending in the snapshot, recreated by a what-if) are scheduled too but only
    counted: on a big cluster they are a thousand rows above the verdict. `wide` lists them all.
    `explain_with`: for `next_step`."""
    rows = [[workload_ref(w), w["change"], w["pods"], w["bound"], w["pending"], w["evictions"] or "",
             painted(result_word(w), color)] for w in data["workloads"]]
    columns = ["WORKLOAD", "CHANGE", "PODS", "BOUND", "PENDING", "EVICTS", "RESULT"]
    workloads = plain_table(rows, columns, headers)
    own = {key for w in data["workloads"] for key in w["pod_keys"]}
    if not headers:
        return rows_alone(results_table(data, wide, headers=False, color=color, only=own), workloads)
    out = [results_table(data, wide, color=color, only=own), workloads]
    lines = rollout_lines(data)
    if lines:
        out.append("\n".join(lines))
    for p in data["policies"]:
        out.append(f"policy {p['policy']}: {'ok' if p['ok'] else 'FAIL'}"
                   + "".join(f"\n  {m}" for m in p["messages"] if m))
    out.append(verdict(data) + next_step(data, explain_with))
    return "\n\n".join(o.rstrip("\n") for o in out) + "\n"


def next_step(data: dict[str, Any], explain_with: Sequence[str] | None = ()) -> str:
    """The verified fixes `--suggest` found, each for one pod alone; then, for the first new
    workload with a pod left pending, the `explain` of that pod on the same queue: every
    manifest file the check read (those without a workload too) and `explain_with`, the check's
    what-if operations as arguments; none when a file came from stdin, or when `explain_with`
    is None: `explain` cannot make the check's queue (see `cli.check.explain_arguments`). Empty
    when none."""
    fixes = [f"\nkwhatif: {w['suggestion']['pod']} ({workload_ref(w)}) would fit if: {w['suggestion']['summary']} "
             "(verified for that pod alone: re-run the check after the change)"
             for w in data["workloads"] if w.get("suggestion")]
    stuck = next((w for w in data["workloads"] if w["change"] == "new" and w["first_pending"]), None)
    files = data.get("manifests", [])
    if stuck is None or explain_with is None or not all(w.get("source") for w in data["workloads"]) \
            or STDIN_NAME in files:
        return "".join(fixes)
    arguments = [*(f"-f {shlex.quote(f)}" for f in files), *map(shlex.quote, explain_with)]
    return "".join(fixes) + (f"\nkwhatif: why {stuck['first_pending']} stays pending, and what would make it fit: "
                             f"kwhatif explain {stuck['first_pending']} {' '.join(arguments)} "
                             "(with the check's -c, -n and --config)")
