"""Which replicas a ReplicaSet (or ReplicationController) deletes first when it has too many:
controller_utils.go ActivePodsWithRanks.Less, the order getPodsToDelete sorts by. A scale-down
and every step of a rolling update that shrinks the old ReplicaSet take its first pods.

Its keys, in order: an unassigned pod first; then by phase (Pending, Unknown, Running); a pod
that is not Ready first; a lower `controller.kubernetes.io/pod-deletion-cost` first (feature
PodDeletionCost, on since 1.22); a pod whose node holds more active pods of the related
ReplicaSets (a Deployment's old and new ones) first; of two Ready pods that became Ready at
different times, the one Ready the shorter time — LogarithmicScaleDown, on since 1.22: by the
base-2 logarithm of that time in nanoseconds, the UID deciding within one bucket; then the pod
whose containers restarted most; then the pod created more recently, by the same logarithm of
its age (the UID within a bucket). A time that is unset counts as the most recent. Where
upstream would leave two pods equal (sort.Sort picks either), the name decides."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from functools import cmp_to_key

from kwhatif.api.objects import Pod
from kwhatif.api.timestamps import parse_time
from kwhatif.load.admission import DELETION_COST
from kwhatif.load.disruption import is_ready

PHASE_ORDINAL = {"Pending": 0, "Unknown": 1, "Running": 2}  # podPhaseToOrdinal; any other phase reads 0

NodeOf = Callable[[Pod], str]


def deletion_order(pods: Sequence[Pod], now: str, related: Iterable[Pod] | None = None,
                   node_of: NodeOf | None = None) -> list[Pod]:
    """`pods` in the order the controller deletes them. `related`: the active pods of the
    ReplicaSets related to theirs, whose count per node ranks a pod (default: `pods`); `node_of`:
    where a pod runs (default: its nodeName — a pod the run bound has its node elsewhere)."""
    where: NodeOf = node_of or (lambda p: p.node_name)
    on_node = Counter(where(p) for p in (pods if related is None else related))
    clock = parse_time(now)

    def rank(pod: Pod) -> tuple:
        """Keys 1 to 5: a plain order."""
        node = where(pod)
        return bool(node), PHASE_ORDINAL.get(pod.phase, 0), is_ready(pod), deletion_cost(pod), -on_node[node]

    def compare(a: Pod, b: Pod) -> int:
        ranked = _order(rank(a), rank(b))
        if ranked:
            return ranked
        if is_ready(a) and is_ready(b) and a.ready_since != b.ready_since:  # key 6: decides, UID within a bucket
            return _order((_bucket(a.ready_since, clock), a.uid, a.name), (_bucket(b.ready_since, clock), b.uid, b.name))
        if a.restarts != b.restarts:  # key 7
            return -1 if a.restarts > b.restarts else 1
        return _order((_bucket(a.creation_timestamp, clock), a.uid, a.name),  # key 8
                      (_bucket(b.creation_timestamp, clock), b.uid, b.name))
    return sorted(pods, key=cmp_to_key(compare))


def _order(a: tuple, b: tuple) -> int:
    return (a > b) - (a < b)


def deletion_cost(pod: Pod) -> int:
    """GetDeletionCostFromPodAnnotations; the API server refuses a value that is not an int32
    (ValidatePodDeletionCostAnnotation), and Less ignores a parse error: 0."""
    text = pod.annotations.get(DELETION_COST)
    if text is None:
        return 0
    try:
        value = int(text, 10)
    except ValueError:
        return 0
    return value if -2**31 <= value < 2**31 else 0


def _bucket(time: str, now: datetime | None) -> int:
    """logarithmicRankDiff's rank of a time (a creation, a Ready transition): int(log2(time since
    in ns)), -1 when not before `now`; the younger bucket is deleted first. No time is deleted
    before any (afterOrZero: a zero time is "after" every other)."""
    created = parse_time(time) if time else None
    if created is None or now is None:
        return -2 if created is None else -1
    age = now - created
    nanoseconds = (age.days * 86_400 + age.seconds) * 10**9 + age.microseconds * 1_000
    return int(math.log2(nanoseconds)) if nanoseconds > 0 else -1
