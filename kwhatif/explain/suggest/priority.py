"""DefaultPreemption and the queue: the lowest existing PriorityClass with which the pod binds —
by preemption, or by going ahead of the lower-priority pods queued before it."""

from __future__ import annotations

from typing import Sequence

from kwhatif.api.objects import Pod, PodDisruptionBudget, PriorityClass
from kwhatif.explain.pod import Explanation
from kwhatif.explain.suggest.model import (
    PREEMPTED, Rerun, Size, Suggestion, Variant, binds, budget_note, budgets_broken, pod_change,
)
from kwhatif.text import listed

MAX_PRIORITY_TRIES = 4  # PriorityClasses tried, lowest first


def raise_priority(pod: Pod, exp: Explanation, classes: Sequence[PriorityClass], rerun: Rerun,
                   pdbs: Sequence[PodDisruptionBudget] = ()) -> list[Suggestion]:
    """When some node could take the pod if lower-priority pods left (preemption found potential
    nodes), the lowest existing PriorityClass above the pod's priority with which the re-run
    preempts and binds it; the victims are named, and the budgets their eviction breaks
    (preemption breaks them when no candidate node spares them)."""
    potential = (exp.preemption or {}).get("potential_nodes")
    if not potential or pod.preemption_policy == "Never":
        return []
    # The system- classes are the cluster's own critical components' (kube-dns, the CNI agent):
    # giving one to a workload lets it evict them.
    higher = sorted((c for c in classes if c.value > exp.priority and not c.name.startswith("system-")),
                    key=lambda c: (c.value, c.name))
    for cls in higher[:MAX_PRIORITY_TRIES]:
        result = rerun(Variant(pod.evolve(priority_class_name=cls.name, priority=cls.value)))
        if result is None or result.final is None or not binds(result):
            continue
        evicted = [v.pod for a in result.attempts if a.preemption for v in a.preemption.victims]
        victims = [v.key for v in evicted]
        change = pod_change(pod, [{"op": "add", "path": "/spec/priorityClassName", "value": cls.name},
                                  {"op": "add", "path": "/spec/priority", "value": cls.value}])
        if victims:
            effect = (f"preemption then makes room on {result.final.node}, evicting {listed(victims, 2)}"
                      f"{budget_note(budgets_broken(evicted, pdbs), PREEMPTED)}")
        else:  # no eviction: the higher priority moved it ahead in the queue, onto room others would have taken
            effect = (f"it then binds on {result.final.node} without evicting anyone, scheduled ahead of the "
                      "lower-priority pods queued before it, which may then find no room")
        return [Suggestion(f"give the pod priorityClassName {cls.name} ({cls.value}): {effect}", [change],
                           size=Size.PRIORITY)]
    return []
