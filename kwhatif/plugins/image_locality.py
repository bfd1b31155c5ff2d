"""ImageLocality: prefer nodes that already have the pod's images, weighted by how widely the
image is spread so that one node does not attract everything (image_locality.go:Score)."""

from __future__ import annotations

from kwhatif.api.objects import Pod
from kwhatif.framework.cycle_state import CycleState
import numpy as np

from kwhatif.framework.interfaces import MAX_NODE_SCORE, BatchScore, ScorePlugin
from kwhatif.plugins.goint import go_quo_rows
from kwhatif.snapshot.cache import for_snapshot
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot
from kwhatif.snapshot.table import NodeTable

NAME = "ImageLocality"
MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB


def normalized_image_name(name: str) -> str:
    """Append `:latest` when the name carries no tag (the last `:` not after the last `/`)."""
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


def pod_images(pod: Pod) -> list[str]:
    return [normalized_image_name(c.image) for c in pod.init_containers + pod.containers]


def calculate_priority(sum_scores: np.ndarray, num_containers: int) -> np.ndarray:
    """Clamp into [23 MB, 1000 MB × containers] and scale to 0-100, as Go does it
    (image_locality.go:calculatePriority): below the minimum first, else above the maximum, then
    a truncating division. A pod without containers has a maximum of 0: its sum (0) is raised to
    the minimum and scores 0 / −23 MB = 0 (clamping the other way round would give 100)."""
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    clamped = np.where(sum_scores < MIN_THRESHOLD, MIN_THRESHOLD, np.minimum(sum_scores, max_threshold))
    return go_quo_rows(MAX_NODE_SCORE * (clamped - MIN_THRESHOLD), max_threshold - MIN_THRESHOLD)


def _image_scores(pod: PodInfo, snapshot: Snapshot) -> list[tuple[str, int]]:
    """Per container image of the pod: its spread-scaled size, trunc(size × numNodes / total)."""
    return for_snapshot(pod.derived, NAME, snapshot, lambda: _scaled_sizes(pod, snapshot))


def _scaled_sizes(pod: PodInfo, snapshot: Snapshot) -> list[tuple[str, int]]:
    scored = []
    for image in pod_images(pod.pod):
        summary = snapshot.images.get(image)
        size = int(summary.size * (summary.num_nodes / snapshot.num_nodes)) if summary else 0
        scored.append((image, size))
    return scored


class ImageLocality(ScorePlugin, BatchScore):
    name = NAME

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        own = {name for image in node.node.images for name in image.names}
        scored = _image_scores(pod, self.handle.snapshot)
        total = sum(size for image, size in scored if image in own)
        return int(calculate_priority(np.array([total], dtype=np.int64), len(scored))[0])

    def score_rows(self, state: CycleState, pod: PodInfo, table: NodeTable, rows: np.ndarray) -> np.ndarray:
        """Nodes' images never change during a run: the scores of every node, once per set of
        scaled image sizes."""
        scored = tuple(_image_scores(pod, self.handle.snapshot))

        def every_node() -> np.ndarray:
            total = np.zeros(len(table), dtype=np.int64)
            for image, size in scored:
                if size:
                    total += table.has_image(image) * size
            return calculate_priority(total, len(scored))
        return table.fixed((NAME, scored), every_node)[rows]
