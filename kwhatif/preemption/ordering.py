"""Which pod is more important (default_preemption.go:SelectVictimsOnNode): higher priority, then earlier start time.

kube-scheduler compares start times against "now" for pods without one; the reference runs give
bound pods without `status.startTime` their creationTimestamp and break full ties by
`namespace/name` ascending, which kwhatif follows so that results are deterministic."""

from __future__ import annotations

from datetime import datetime

from kwhatif.api.objects import Pod
from kwhatif.api.timestamps import parse_time

def start_time(pod: Pod, now: datetime) -> datetime:
    """status.startTime, else creationTimestamp, else now."""
    return parse_time(pod.start_time) or parse_time(pod.creation_timestamp) or now


def importance_key(pod: Pod, now: datetime) -> tuple:
    """Sorting by this key puts the most important pod first."""
    return (-pod.effective_priority, start_time(pod, now), pod.namespace, pod.name)
