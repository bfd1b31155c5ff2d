"""`kwhatif pending`: the pending pods grouped by root cause, as data and as one screen of text."""

from __future__ import annotations

from typing import Any

from kwhatif.explain.pending import PendingGroup, Signature
from kwhatif.explain.suggest import Suggestion
from kwhatif.render.text import wrap

EXAMPLES = 3


def pending_data(groups: list[PendingGroup], scheduled: int,
                 best: dict[Signature, Suggestion] | None = None) -> dict[str, Any]:
    """The groups as plain data: per group its count, the (plugin, reasons) that rejected nodes,
    the namespaces and controllers involved, every pod, and the first pod's FailedScheduling text."""
    return {
        "scheduled": scheduled,
        "pending": sum(len(g.pods) for g in groups),
        "groups": [{
            "count": len(g.pods),
            "rejected_by": [{"plugin": plugin, "reasons": list(reasons)} for plugin, reasons in g.signature],
            "namespaces": g.namespaces,
            "owners": g.owners,
            "pods": [r.pod.key for r in g.pods],
            "message": g.pods[0].message,
            "suggestion": best[g.signature].data() if best and g.signature in best else None,
        } for g in groups],
    }


def pending_table(data: dict[str, Any], width: int = 100) -> str:
    """One block per group, biggest first: what rejected the nodes, then which pods and owners."""
    lines = [f"kwhatif: {data['pending']} of {data['scheduled']} pod(s) stay pending, "
             f"{len(data['groups'])} root cause(s)"]
    shared = _shared_causes(data["groups"])
    if shared:
        lines.extend(wrap(f"kwhatif: every group's pods are also rejected, on other nodes, by {_said(shared)}", width, "",
                          hanging=" " * 7))
    for group in data["groups"]:
        own = [cause for cause in group["rejected_by"] if cause not in shared]
        causes = _said(own) if own else "only what every group shares (above)"
        lines.extend(wrap(f"{group['count']:>5}  {causes}", width, "", hanging=" " * 7))
        pods = group["pods"]
        shown = ", ".join(pods[:EXAMPLES]) + (f", ... ({len(pods)})" if len(pods) > EXAMPLES else "")
        lines.extend(wrap(f"pods: {shown}", width, " " * 7, hanging=" " * 9))
        if group["owners"]:
            owners = group["owners"]
            more = f", ... ({len(owners)})" if len(owners) > EXAMPLES else ""
            lines.extend(wrap(f"owners: {', '.join(owners[:EXAMPLES])}{more}", width, " " * 7, hanging=" " * 9))
        if group["suggestion"]:
            alone = f" alone, not for the other {len(pods) - 1}" if len(pods) > 1 else ""
            lines.extend(wrap(f"fix (verified for {pods[0]}{alone}): {group['suggestion']['summary']}", width,
                              " " * 7, hanging=" " * 9))
    if data["groups"]:
        lines.append("kwhatif: why one of them stays pending: kwhatif explain NAMESPACE/NAME")
    return "\n".join(lines) + "\n"


def _shared_causes(groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The (plugin, reasons) every group of two or more shares — cordoned nodes, the control
    plane's taint: said once above the groups, so each group's line shows what sets it apart."""
    if len(groups) < 2:
        return []
    common = set.intersection(*({_cause_key(c) for c in g["rejected_by"]} for g in groups))
    return [cause for cause in groups[0]["rejected_by"] if _cause_key(cause) in common]


def _cause_key(cause: dict[str, Any]) -> tuple[str, tuple[str, ...]]:
    return cause["plugin"], tuple(cause["reasons"])


def _said(causes: list[dict[str, Any]]) -> str:
    return "; ".join(f"{plugin}: {', '.join(reasons)}" for plugin, reasons in _by_plugin(causes))


def _by_plugin(rejected_by: list[dict[str, Any]]) -> list[tuple[str, list[str]]]:
    """Each plugin once, with every reason it gave on some node (nodes may fail it for different
    sets of resources), in first-seen order."""
    merged: dict[str, list[str]] = {}
    for cause in rejected_by:
        reasons = merged.setdefault(cause["plugin"] or "PreFilter", [])
        reasons.extend(r for r in cause["reasons"] if r not in reasons)
    return list(merged.items())
