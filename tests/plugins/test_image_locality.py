"""ImageLocality (reference §6.8).

Score cases are ported from kubernetes `imagelocality/image_locality_test.go`
(TestImageLocalityPriority). The stored copy of that test predates the per-container maximum
threshold (`maxThreshold = 1000 MB × number of containers`, §6.8), so its expected scores are
recomputed by hand next to each case; the inputs are unchanged.

With MB = 1048576: minT = 23 MB = 24117248; for two containers maxT = 2000 MB = 2097152000.
"""

from __future__ import annotations

import pytest

from kwhatif.api.objects import ImageState
from kwhatif.framework.cycle_state import CycleState
from kwhatif.plugins.image_locality import ImageLocality, normalized_image_name
from kwhatif.api.cluster import Cluster
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot
from tests.builders import Handle, make_container, make_node, make_pod
from tests.plugins.harness import score_nodes

MB = 1024 * 1024


def image(size_mb: int | float, *names: str) -> ImageState:
    return ImageState(tuple(names), int(size_mb * MB))


def node(name: str, *images: ImageState):
    return make_node(name, images=tuple(images))


def pod(*images: str, init: tuple[str, ...] = ()):
    return make_pod("p", containers=[make_container(f"c{i}", image=im) for i, im in enumerate(images)],
                    init_containers=[make_container(f"i{i}", image=im) for i, im in enumerate(init)])


def scores(the_pod, nodes) -> dict[str, int]:
    snap = Snapshot.build(Cluster(nodes=list(nodes)), [])
    plugin = ImageLocality(None, Handle(snap))
    info = PodInfo.of(the_pod)
    return score_nodes(plugin, CycleState(), info, [snap.by_name[n.name] for n in nodes])


NODE_40_300_2000 = (image(40, "gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"),
                    image(300, "gcr.io/300:latest", "gcr.io/300:v1"),
                    image(2000, "gcr.io/2000:latest"))
NODE_250_10 = (image(250, "gcr.io/250:latest"), image(10, "gcr.io/10:latest", "gcr.io/10:v1"))

CASES = [
    # --- ported from TestImageLocalityPriority ---
    pytest.param(pod("gcr.io/40", "gcr.io/250"),
                 [node("machine1", *NODE_40_300_2000), node("machine2", *NODE_250_10)],
                 # machine1: 40 MB × 1/2 = 20 MB < minT → 0
                 # machine2: 250 MB × 1/2 = 125 MB → 100 × (125 − 23) MB div (2000 − 23) MB = 10200 div 1977 = 5
                 {"machine1": 0, "machine2": 5},
                 id="two images spread over two nodes prefer the node with the larger image"),
    pytest.param(pod("gcr.io/40", "gcr.io/300"),
                 [node("machine1", *NODE_40_300_2000), node("machine2", *NODE_250_10)],
                 # machine1: 20 MB + 150 MB = 170 MB → 100 × 147 div 1977 = 7; machine2: nothing → 0
                 {"machine1": 7, "machine2": 0},
                 id="two images on one node prefer that node"),
    pytest.param(pod("gcr.io/10", "gcr.io/2000"),
                 [node("machine1", *NODE_40_300_2000), node("machine2", *NODE_250_10)],
                 # machine1: 2000 MB × 1/2 = 1000 MB → 100 × 977 div 1977 = 49; machine2: 5 MB < minT → 0
                 {"machine1": 49, "machine2": 0},
                 id="a large image spread over half the nodes"),
    pytest.param(pod("gcr.io/10", "gcr.io/2000"),
                 [node("machine1", *NODE_40_300_2000), node("machine2", *NODE_250_10), node("machine3")],
                 # machine1: trunc(2097152000 × (1/3)) = 699050666 → 100 × (699050666 − 24117248)
                 #           div (2097152000 − 24117248) = 67493341800 div 2073034752 = 32
                 {"machine1": 32, "machine2": 0, "machine3": 0},
                 id="a node without images scores 0 and dilutes the spread of the others"),
    # --- reference §6.8 ---
    pytest.param(pod("app:v1"),
                 [node("na", image(900, "app:v1")), node("nb", image(100, "app:v1")), node("nc")],
                 # size of the first node by name (na, 900 MiB) for both: trunc(943718400 × (2/3)) = 629145600
                 # → 100 × (629145600 − 24117248) div (1048576000 − 24117248) = 59
                 {"na": 59, "nb": 59, "nc": 0},
                 id="the 900 MiB and 100 MiB example scores 59 on both nodes with the image"),
    pytest.param(pod("app:v1"),
                 [node("na", image(100, "app:v1")), node("nb", image(900, "app:v1")), node("nc")],
                 # 100 MiB size for both: trunc(104857600 × (2/3)) = 69905066 → 100 × 45787818 div 1024458752 = 4
                 {"na": 4, "nb": 4, "nc": 0},
                 id="swapping the sizes of the reference example gives 4 on both nodes"),
    pytest.param(pod("app:v1"),
                 [node("nb", image(100, "app:v1")), node("nc"), node("na", image(900, "app:v1"))],
                 {"nb": 59, "nc": 0, "na": 59},
                 id="the size kept is that of the first node by name whatever the input order"),
    pytest.param(pod("app:v1", "app:v1"), [node("n1", image(500, "app:v1"))],
                 # one node of one: 500 + 500 = 1000 MB; maxT 2000 MB → 100 × 977 div 1977 = 49
                 {"n1": 49},
                 id="an image used by two containers is counted twice"),
    pytest.param(pod("other:v1", init=("app:v1",)), [node("n1", image(500, "app:v1"))],
                 # init + regular = 2 containers → maxT 2000 MB; 500 MB → 100 × 477 div 1977 = 24
                 {"n1": 24},
                 id="init containers' images count and raise the maximum threshold"),
    pytest.param(pod("app:v1"), [node("n1", image(5000, "app:v1"))],
                 {"n1": 100},
                 id="the sum is clamped to the maximum threshold"),
    pytest.param(pod("app:v1"), [node("n1", image(23, "app:v1"))],
                 {"n1": 0},
                 id="a sum equal to the minimum threshold scores 0"),
    pytest.param(pod("nginx"), [node("n1", image(523, "nginx:latest"))],
                 # 523 MB → 100 × 500 div 977 = 51
                 {"n1": 51},
                 id="an untagged pod image matches the node's name with the latest tag"),
    pytest.param(pod("nginx:1.25"), [node("n1", image(523, "docker.io/library/nginx:1.25"))],
                 {"n1": 0},
                 id="no other normalization: nginx:1.25 doesn't match docker.io/library/nginx:1.25"),
    pytest.param(pod("repo:5000/app"), [node("n1", image(523, "repo:5000/app:latest"))],
                 {"n1": 51},
                 id="a registry port is not mistaken for a tag"),
    pytest.param(pod("app:v1"), [node("n1", image(523, "app:v2", "app:v1"))],
                 {"n1": 51},
                 id="any of an image entry's names matches"),
    pytest.param(make_pod("p", containers=[]), [node("n1", image(523, "nginx:latest"))],
                 # no containers: maxT = 0; the sum 0 is below minT, so raised to minT (Go checks that
                 # first): 100 × (minT − minT) / (0 − minT) = 0 / −24117248 = 0 in Go's integer division
                 {"n1": 0},
                 id="a pod without containers scores 0 (the clamp's order, Go's division)"),
]


@pytest.mark.parametrize("the_pod, nodes, expected", CASES)
def test_score(the_pod, nodes, expected):
    assert scores(the_pod, nodes) == expected


@pytest.mark.parametrize("name, expected", [
    pytest.param("nginx", "nginx:latest", id="a bare name gets the latest tag"),
    pytest.param("nginx:1.25", "nginx:1.25", id="a tagged name is unchanged"),
    pytest.param("repo:5000/app", "repo:5000/app:latest", id="a colon before the last slash is a registry port"),
    pytest.param("repo:5000/app:v2", "repo:5000/app:v2", id="a tag after a registry port is kept"),
    pytest.param("gcr.io/project/app", "gcr.io/project/app:latest", id="a path without a tag gets latest"),
    pytest.param("app@sha256:" + "a" * 64, "app@sha256:" + "a" * 64, id="a digest reference is unchanged"),
    pytest.param("docker.io/library/nginx", "docker.io/library/nginx:latest", id="no registry is added or removed"),
])
def test_normalized_image_name(name, expected):
    assert normalized_image_name(name) == expected
