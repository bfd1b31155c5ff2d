"""What would make a pending pod fit: changes, each proven by re-running the scheduler.

A suggestion is only shown when the same scenario — the queue up to and including this pod — run
again with the change applied binds the pod; one that does not is dropped, never hedged. Changes
follow a machine-readable contract (`-o json`, `explanation.suggestions`): RFC 6902 JSON Patch
operations on the object as it appears in the input, so a tool can apply them and check.

Kinds, a module each: lower a container's request to what the nearest node has free
(`resources`); tolerate the taint that alone keeps the pod off the most nodes (`taints`);
uncordon a node, label the node nearest to the pod's nodeSelector / required node affinity, or
change that rule so the node matches (`nodes`); delete the pods holding the host ports the pod
wants (`ports`); the smallest maxSkew that passes, or the constraint made ScheduleAnyway
(`spread`); drop a required pod (anti-)affinity term, or delete the matching pods in the way of
an anti-affinity (`interpod`); add nodes like a full one (`add_nodes`); the lowest existing
PriorityClass with which preemption makes room (`priority`).

Ranking, smallest change first (`Suggestion.rank`): the kind of change (`Size`: a field of the
pod's own spec < the labels or cordon of one node < deleting pods < adding nodes < a priority that
evicts), then fewer changed objects, then fewer patch operations, then the order above. At most
`MAX_SUGGESTIONS` are shown; candidates are verified in rank order until that many bind, and
the costly searches (add nodes, priority: several re-runs each) only run while room is left.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Sequence

from kwhatif.api.objects import Pod, PriorityClass
from kwhatif.explain.pod import Explanation, NodeVerdict
from kwhatif.explain.suggest.add_nodes import add_nodes
from kwhatif.explain.suggest.interpod import delete_pods_in_the_way, drop_pod_terms
from kwhatif.explain.suggest.model import Candidate, NodeOf, Rerun, Size, Suggestion, Variant, binds
from kwhatif.explain.suggest.nodes import affinity_fixes, uncordon
from kwhatif.explain.suggest.ports import free_ports
from kwhatif.explain.suggest.priority import raise_priority
from kwhatif.explain.suggest.resources import lower_requests
from kwhatif.explain.suggest.spread import spread_fixes
from kwhatif.explain.suggest.taints import tolerate_taint
from kwhatif.framework.scheduler import Outcome
from kwhatif.snapshot.snapshot import Snapshot
from kwhatif.text import listed

__all__ = ["KINDS", "MAX_SUGGESTIONS", "NodeOf", "Rerun", "Size", "Suggestion", "Variant", "searched", "suggestions"]

MAX_SUGGESTIONS = 5


def searched(exp: Explanation) -> bool:
    """Whether suggestions are searched for the pod: it stays unschedulable after an attempt (a
    gated pod, one a plugin's error stopped or one never tried has no rejected node to work from)."""
    return exp.outcome == Outcome.UNSCHEDULABLE and bool(exp.attempts)


def suggestions(pod: Pod, exp: Explanation, rerun: Rerun, snapshot: Snapshot,
                classes: Sequence[PriorityClass] = (), displaced: Displaced | None = None) -> list[Suggestion]:
    """The verified suggestions for a pod that stays pending, smallest change first, worked out
    from the snapshot of its run (its nodes, their pods, the spread counts). `displaced`: the
    pods queued after it that a change of the pod alone leaves without the room they had
    (`engine.PodTrials.displaced`): the suggestion says them."""
    if not searched(exp):
        return []
    verdicts = exp.attempts[0].verdicts
    node_of: NodeOf = snapshot.by_name.__getitem__
    candidates = _candidates(pod, verdicts, node_of, snapshot)
    candidates.sort(key=lambda c: c[0].rank)  # stable: equal sizes keep the families' order
    verified: list[Suggestion] = []
    for suggestion, variant in candidates:
        if len(verified) == MAX_SUGGESTIONS:
            return verified
        if binds(rerun(variant)):
            verified.append(_with_displaced(suggestion, variant, displaced))
    searches: list[Callable[[], list[Suggestion]]] = [
        lambda: add_nodes(pod, verdicts, node_of, rerun), lambda: raise_priority(pod, exp, classes, rerun, snapshot.cluster.pdbs)]
    for search in searches:  # each bigger than any candidate above (Size.ADD_NODES, Size.PRIORITY)
        if len(verified) < MAX_SUGGESTIONS:
            verified += search()
    return verified[:MAX_SUGGESTIONS]


Displaced = Callable[[Pod], list[str] | None]


def _with_displaced(suggestion: Suggestion, variant: Variant, displaced: Displaced | None) -> Suggestion:
    """A change of the pod alone that binds it may take the room a pod queued after it had: said."""
    if displaced is None or variant.nodes or variant.removed:
        return suggestion
    taken = displaced(variant.pod)
    if not taken:
        return suggestion
    return replace(suggestion, summary=f"{suggestion.summary}; it then takes the room of {listed(taken, 3)}, queued "
                                       "after it and bound without the change")


CandidateFamily = Callable[[Pod, list[NodeVerdict], NodeOf, Snapshot], list[Candidate]]
FAMILIES: tuple[tuple[str, CandidateFamily], ...] = (
    ("lower a request",
     lambda pod, verdicts, node_of, snapshot: lower_requests(pod, verdicts, snapshot.cluster.limit_ranges)),
    ("tolerate a taint", lambda pod, verdicts, node_of, snapshot: tolerate_taint(pod, verdicts, node_of)),
    ("uncordon a node", lambda pod, verdicts, node_of, snapshot: uncordon(pod, verdicts, node_of)),
    ("match node affinity or relabel a node",
     lambda pod, verdicts, node_of, snapshot: affinity_fixes(pod, verdicts, node_of)),
    ("free a host port",
     lambda pod, verdicts, node_of, snapshot: free_ports(pod, verdicts, node_of, snapshot.cluster.pdbs)),
    ("relax topology spread", lambda pod, verdicts, node_of, snapshot: spread_fixes(pod, verdicts, snapshot)),
    ("relax pod (anti-)affinity", lambda pod, verdicts, node_of, snapshot: drop_pod_terms(pod, verdicts)
     + delete_pods_in_the_way(pod, verdicts, node_of, snapshot.cluster.pdbs)),
)
"""The candidate families, in the order equal sizes keep, each with the words a page uses to say
what was tried when none makes the pod fit."""
SEARCHED = ("add nodes", "raise the priority")
"""The costly searches after the candidates (`add_nodes`, `raise_priority`), in `suggestions`' order."""
KINDS = tuple(kind for kind, _ in FAMILIES) + SEARCHED
"""Every kind of change tried."""


def _candidates(pod: Pod, verdicts: list[NodeVerdict], node_of: NodeOf, snapshot: Snapshot) -> list[Candidate]:
    """Every family's candidate changes, each with the variant its re-run applies."""
    return [candidate for _, family in FAMILIES for candidate in family(pod, verdicts, node_of, snapshot)]
