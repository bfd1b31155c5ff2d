"""The same scenario twice — two snapshots, one snapshot with and without what-if operations, or
two scheduler configurations — and what changed for each pod and node.

Each run is reduced to one record a pod (where it ends up, or why it stays pending) and one a
node (its requests against its allocatable); `deepdiff` finds the pods whose records differ, and
each difference is named for what it means to an operator: a pod that moves, becomes pending,
gets placed or gets evicted, with the reason (the FailedScheduling message, the node and its
score, the preemptor, the operation that removed it)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from deepdiff import DeepDiff

from kwhatif.engine import Simulation
from kwhatif.framework.scheduler import Attempt, Outcome

RUNNING = "running"  # bound in the snapshot and still there at the end of the run
EVICTED = "evicted"  # a preemption victim of the run


def score_on(attempt: Attempt | None) -> int | None:
    """The chosen node's total score (None when the scheduler did not score: one feasible node),
    kept by runs without per-node detail: a diff reads nothing else of a pod's attempt."""
    if attempt is None or attempt.node is None or not attempt.scored_by_scheduler:
        return None
    return attempt.node_score


def pod_records(sim: Simulation) -> dict[str, dict[str, Any]]:
    """Every pod's end state in one run: the node it is on (bound before or by the run), or why it
    is not on one (its FailedScheduling message, or the pod that preempted it)."""
    records: dict[str, dict[str, Any]] = {}
    for info in sim.snapshot.node_infos:
        for pod in info.pods:
            records[pod.pod.key] = {"outcome": RUNNING, "node": info.name, "message": None, "score": None}
    for result in sim.results:
        final = result.final
        node = final.node if result.outcome == Outcome.BOUND and final is not None else None
        records[result.pod.key] = {"outcome": result.outcome.value, "node": node, "message": result.message,
                                   "score": score_on(final) if node else None}
        # The attempt that preempted is the first; the retry on the nominated node binds.
        victims = [v for attempt in result.attempts if attempt.preemption is not None for v in attempt.preemption.victims]
        for victim in victims:
            records[victim.pod.key] = {"outcome": EVICTED, "node": None, "score": None,
                                       "message": f"preempted by {result.pod.key} (priority "
                                                  f"{result.pod.effective_priority})"}
    return records


def node_records(sim: Simulation) -> dict[str, dict[str, int]]:
    """Each node's requests and allocatable at the end of a run (cpu in millicores, memory in bytes)."""
    return {info.name: {"cpu": info.requested.milli_cpu, "cpu_allocatable": info.allocatable.milli_cpu,
                        "memory": info.requested.memory, "memory_allocatable": info.allocatable.memory,
                        "pods": len(info.pods)}
            for info in sim.snapshot.node_infos}


@dataclass(frozen=True)
class PodChange:
    pod: str
    change: str  # moved, becomes pending, placed, evicted, gone, still pending (with a new message), skipped
    before: str | None
    after: str | None
    reason: str

    def data(self) -> dict[str, Any]:
        return {"pod": self.pod, "change": self.change, "before": self.before, "after": self.after,
                "reason": self.reason}


@dataclass
class Diff:
    before: str
    after: str
    pods: list[PodChange] = field(default_factory=list)
    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    unchanged_nodes: int = 0
    whatif: list[dict[str, Any]] = field(default_factory=list)

    @property
    def worse(self) -> bool:
        """Whether some pod lost its place or found none (evicted, or pending where it was not), or
        a pod of the files is never scheduled (skipped: refused by the API server...)."""
        return any(c.change in ("evicted", "becomes pending", "skipped") for c in self.pods)

    def data(self) -> dict[str, Any]:
        counts: dict[str, int] = {}
        for change in self.pods:
            counts[change.change] = counts.get(change.change, 0) + 1
        return {"before": self.before, "after": self.after, "whatif": self.whatif,
                "counts": dict(sorted(counts.items())), "pods": [c.data() for c in self.pods],
                "nodes": self.nodes, "unchanged_nodes": self.unchanged_nodes}


def where(record: Mapping[str, Any] | None) -> str | None:
    """A record as one word: its node, `pending`, or `evicted`; None when the pod is absent."""
    if record is None:
        return None
    return record["node"] or ("evicted" if record["outcome"] == EVICTED else "pending")


def on_node(node: str | None, score: int | None) -> str:
    return f"{node}" + (f" (score {score})" if score is not None else "")


def classify(key: str, old: Mapping[str, Any] | None, new: Mapping[str, Any] | None,
             notes: Mapping[str, str]) -> PodChange | None:
    """What the difference of one pod's records means (None: nothing an operator would call a
    change). A pod only one side has is evicted (before only, a what-if took it), gone (before
    only, the later snapshot lacks it) or new: placed or pending."""
    before, after = where(old), where(new)
    if new is None and key in notes:  # a what-if took it (a drain evicted it, its node went)
        return PodChange(key, "evicted", before, None, notes[key])
    if old is not None and new is not None and old["node"] and key in notes:
        # taken by a what-if and recreated under its name (a StatefulSet's): evicted all the same
        now = on_node(new["node"], new["score"]) if new["node"] else f"pending: {new['message'] or new['outcome']}"
        return PodChange(key, "evicted", before, after, f"{notes[key]}: {now}")
    if new is None:  # the later snapshot lacks it: deleted, or finished — nothing of the run evicted it
        return PodChange(key, "gone", before, None, "not in the after scenario")
    if old is None:
        reason = notes.get(key, "not in the before scenario")
        if new["node"]:
            return PodChange(key, "placed", None, after, f"{reason}: {on_node(new['node'], new['score'])}")
        return PodChange(key, "becomes pending", None, after, f"{reason}: {new['message'] or new['outcome']}")
    if new["outcome"] == EVICTED and old["outcome"] != EVICTED:
        return PodChange(key, "evicted", before, after, new["message"])
    if old["node"] and new["node"] and old["node"] != new["node"]:
        reason = f"{on_node(old['node'], old['score'])} -> {on_node(new['node'], new['score'])}"
        return PodChange(key, "moved", before, after, reason)
    if old["node"] and not new["node"]:
        return PodChange(key, "becomes pending", before, after, new["message"] or new["outcome"])
    if new["node"] and not old["node"]:
        return PodChange(key, "placed", before, after, on_node(new["node"], new["score"]))
    if not new["node"] and old["message"] != new["message"]:
        return PodChange(key, "still pending", before, after, new["message"] or new["outcome"])
    return None


def changed_pods(old: Mapping[str, Any], new: Mapping[str, Any]) -> set[str]:
    """The pods whose records differ. DeepDiff walks every record field by field (11 s for
    150,000 pods), so the records that compare equal as a whole are set aside first and DeepDiff
    judges the rest (150,000 pods of which 1,500 changed: 0.5 s). `threshold_to_diff_deeper=0`:
    by default DeepDiff reports two dicts that share under a third of their keys as one change
    of the whole root (a drain replaces its pods by new ones), and no pod would be named."""
    differ = [k for k in old.keys() | new.keys() if old.get(k) != new.get(k)]
    found = DeepDiff({k: old[k] for k in differ if k in old}, {k: new[k] for k in differ if k in new},
                     threshold_to_diff_deeper=0)
    return {str(k) for k in found.affected_root_keys}


def diff_runs(before: Simulation, after: Simulation, labels: tuple[str, str],
              notes: Mapping[str, str] | None = None, placing: Collection[str] = ()) -> Diff:
    """The differences between two runs; `notes` says why a pod is gone or new (the what-if
    operation that removed or created it). `placing`: the pods of the command's files, placed on
    both sides — one skipped on both (the API server refuses it, another scheduler's) is no
    difference, yet it is never scheduled: it is named, not left out in silence."""
    old, new = pod_records(before), pod_records(after)
    out = Diff(*labels)
    changed = changed_pods(old, new)
    for key in sorted(changed):
        change = classify(str(key), old.get(key), new.get(key), notes or {})
        if change is not None:
            out.pods.append(change)
    out.pods += [PodChange(key, "skipped", None, None, new[key]["message"] or Outcome.SKIPPED.value)
                 for key in sorted(placing)
                 if key not in changed and new.get(key, {}).get("outcome") == Outcome.SKIPPED]
    old_nodes, new_nodes = node_records(before), node_records(after)
    for name in sorted(set(old_nodes) | set(new_nodes)):
        if old_nodes.get(name) == new_nodes.get(name):
            out.unchanged_nodes += 1
        else:
            out.nodes[name] = {"before": old_nodes.get(name), "after": new_nodes.get(name)}
    return out
