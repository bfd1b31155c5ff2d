"""ImageLocality: prefer nodes that already have the pod's images, weighted by how widely the
image is spread so that one node does not attract everything (§6.8)."""

from __future__ import annotations

from kwhatif.api.objects import Pod
from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.interfaces import MAX_NODE_SCORE, ScorePlugin
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo

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


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    """Clamp into [23 MB, 1000 MB × containers] and scale to 0-100."""
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    clamped = min(max(sum_scores, MIN_THRESHOLD), max_threshold)
    return MAX_NODE_SCORE * (clamped - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)


class ImageLocality(ScorePlugin):
    name = NAME

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        snapshot = self.handle.snapshot
        total_nodes = snapshot.num_nodes
        own = {name for image in node.node.images for name in image.names}
        images = pod.derived.get(NAME)
        if images is None:
            images = pod.derived[NAME] = pod_images(pod.pod)
        total = 0
        for image in images:
            if image in own:
                summary = snapshot.images[image]
                total += int(summary.size * (summary.num_nodes / total_nodes))
        return calculate_priority(total, len(images))
