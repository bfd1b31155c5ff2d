"""Comparing kwhatif's `schedule -o json` with a reference expected file (conformance README)."""

from __future__ import annotations

from typing import Any

COMPARED = ("outcome", "node", "tied_nodes")
MESSAGE_OUTCOMES = ("unschedulable", "gated", "skipped", "error")


def _preemption(r: dict[str, Any]) -> tuple[Any, Any]:
    pre = r.get("preemption")
    if pre is None:
        return None, None
    return pre.get("nominated_node"), pre.get("victims")


def differences(expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    """Every compared field that differs, pod by pod, in the reference's order."""
    diffs = []
    exp_results, act_results = expected["results"], actual["results"]
    exp_order = [r["pod"] for r in exp_results]
    act_order = [r["pod"] for r in act_results]
    if exp_order != act_order:
        diffs.append(f"scheduling order differs: expected {exp_order}, got {act_order}")
    by_pod = {r["pod"]: r for r in act_results}
    for exp in exp_results:
        act = by_pod.get(exp["pod"])
        if act is None:
            diffs.append(f"{exp['pod']}: missing from kwhatif's results")
            continue
        for key in COMPARED:
            if exp.get(key) != act.get(key):
                diffs.append(f"{exp['pod']}: {key}: expected {exp.get(key)!r}, got {act.get(key)!r}")
        if exp["outcome"] in MESSAGE_OUTCOMES and exp.get("message") != act.get("message"):
            diffs.append(f"{exp['pod']}: message:\n  expected {exp.get('message')!r}\n  got      {act.get('message')!r}")
        if _preemption(exp) != _preemption(act):
            diffs.append(f"{exp['pod']}: preemption: expected {exp.get('preemption')!r}, got {act.get('preemption')!r}")
    return diffs
