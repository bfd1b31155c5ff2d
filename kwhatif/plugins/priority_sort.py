"""PrioritySort: higher priority first, then the earlier queue timestamp (priority_sort.go:Less).

The queue timestamp of a pod read from a snapshot is its creationTimestamp; pods with equal
priority and timestamp keep input order (the real heap's order is undefined there)."""

from __future__ import annotations

from datetime import datetime, timezone

from kwhatif.api.timestamps import parse_time
from kwhatif.framework.interfaces import QueueSortPlugin
from kwhatif.snapshot.pod_info import PodInfo

NAME = "PrioritySort"
_EPOCH = datetime.min.replace(tzinfo=timezone.utc)


class PrioritySort(QueueSortPlugin):
    name = NAME

    def sort_key(self, pod: PodInfo, arrival: int) -> tuple:
        return (-pod.pod.effective_priority, parse_time(pod.pod.creation_timestamp) or _EPOCH, arrival)
