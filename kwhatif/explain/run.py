"""One pod explained end to end: simulated up to its decision, explained, and — when it stays
pending — given the suggestions a re-run proves. The CLI and the benchmark call this one path."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import Node, Pod
from kwhatif.config.profile import ProfileConfig
from kwhatif.engine import PodTrials, Simulation, input_pod, placed_again, simulate
from kwhatif.explain.pod import Explanation, explain, held_account
from kwhatif.explain.suggest import searched, suggestions
from kwhatif.explain.suggest.owner import template_owner
from kwhatif.framework.scheduler import PodResult
from kwhatif.whatif.daemons import daemon_pods
from kwhatif.whatif.nodes import copied_slices


@dataclass
class Explained:
    sim: Simulation
    result: PodResult
    explanation: Explanation
    running_on: str | None  # the pod is bound there in the snapshot: this is a re-run of its placement


def explain_pod(cluster: Cluster, now: str, key: str, new_pods: Sequence[Pod],
                profiles: Sequence[ProfileConfig] | None, rest_of_queue: bool = True) -> Explained | None:
    """The pending pod `key` (of the cluster or of `new_pods`), or a bound one placed again;
    None when no pod has that key. `rest_of_queue`: each suggestion that changes the pod alone
    is also run through the rest of the queue, to name the pods it leaves without room (a run
    of the queue's rest each: `pending`, which shows one fix a group as verified for one pod,
    leaves it out)."""
    trials = PodTrials(cluster, now, new_pods, key, profiles)
    sim, result = trials.sim, trials.result
    again = placed_again(cluster, key) if result is None else None
    if again is not None:
        sim = simulate(again, now, explain=frozenset({key}), profiles=profiles)
        result = next((r for r in sim.results if r.pod.key == key), None)
    if result is None:
        return None
    exp = explain(result, [n.name for n in sim.snapshot.node_infos])
    exp.held = held_account(result, sim.snapshot.cluster)
    original = input_pod(cluster, new_pods, key) if again is None else None
    if original is not None:
        exp.suggestions = suggestions(original, exp, lambda v: trials.rerun(
                                          v.pod, v.nodes, v.removed, _daemons_for(cluster, v.nodes, now),
                                          copied_slices(cluster, v.like, v.nodes) if v.like else ()),
                                      sim.snapshot, list(cluster.priority_classes.values()),
                                      trials.displaced if rest_of_queue else None)
        exp.suggestions_searched = searched(exp)
        # A pod of the snapshot a controller made: the fixes go to its template (a pod of the
        # files a workload makes is the CLI's to redirect: it knows the workload, `on_template`).
        of_snapshot = all(p is not original for p in new_pods)
        owner = template_owner(cluster, original) if of_snapshot else None
        if owner is not None:
            exp.suggestions = [s.on_template(*owner) for s in exp.suggestions]
        elif of_snapshot and original.controller_ref is None:
            exp.suggestions = [s.on_bare_pod() for s in exp.suggestions]
    running_on = next((p.node_name for p in cluster.pods if p.key == key), None) if again is not None else None
    return Explained(sim, result, exp, running_on)


def _daemons_for(cluster: Cluster, nodes: Sequence[Node], now: str) -> list[Pod]:
    """The DaemonSet pods a suggestion's added nodes come with (`kwhatif.whatif.daemons`): an
    "add a node" fix is proven on a node as it would join, never on an empty one."""
    known = {n.name for n in cluster.nodes}
    added = [n for n in nodes if n.name not in known]
    return daemon_pods(cluster.copy(), added, now) if added else []
