"""One interface per extension point. A plugin class inherits the ones it implements; the
runner places it at an extension point by `isinstance`, as Go does by interface assertion."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.status import Status
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.table import NodeTable

if TYPE_CHECKING:
    from kwhatif.framework.diagnosis import NodeToStatus
    from kwhatif.snapshot.snapshot import Snapshot

MAX_NODE_SCORE = 100


class Handle(Protocol):
    """What a plugin may reach besides its arguments: the snapshot of the current cycle and the
    runner (preemption re-runs the filters through it)."""

    @property
    def snapshot(self) -> Snapshot: ...

    @property
    def framework(self) -> Any: ...

    @property
    def now(self) -> str: ...


class Plugin(ABC):
    """A named plugin; `name` is the kube-scheduler plugin name (CamelCase)."""

    name: str = ""

    def __init__(self, args: dict[str, Any] | None, handle: Handle) -> None:
        self.args = args or {}
        self.handle = handle


class PreEnqueuePlugin(Plugin):
    @abstractmethod
    def pre_enqueue(self, pod: PodInfo) -> Status | None: ...


class QueueSortPlugin(Plugin):
    @abstractmethod
    def sort_key(self, pod: PodInfo, arrival: int) -> tuple: ...


@dataclass(frozen=True, slots=True)
class PreFilterResult:
    """A PreFilter may restrict the nodes to evaluate (only NodeAffinity does, §5.4)."""

    node_names: frozenset[str] | None = None
    plugins: tuple[str, ...] = ()


class PreFilterExtensions(ABC):
    """AddPod/RemovePod: keep the PreFilter state right when nominated pods or victims change."""

    @abstractmethod
    def add_pod(self, state: CycleState, pod: PodInfo, to_add: PodInfo, node: NodeInfo) -> Status | None: ...

    @abstractmethod
    def remove_pod(self, state: CycleState, pod: PodInfo, to_remove: PodInfo, node: NodeInfo) -> Status | None: ...


class PreFilterPlugin(Plugin):
    @abstractmethod
    def pre_filter(
        self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]: ...

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        return None


class FilterPlugin(Plugin):
    @abstractmethod
    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None: ...


@dataclass(slots=True)
class PostFilterResult:
    """`nominated_node`: the node to nominate, '' to clear the nomination, None to leave it."""

    nominated_node: str | None = None
    victims: list[PodInfo] = field(default_factory=list)
    explanation: Any = None


class PostFilterPlugin(Plugin):
    @abstractmethod
    def post_filter(
        self, state: CycleState, pod: PodInfo, statuses: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status | None]: ...


class PreScorePlugin(Plugin):
    @abstractmethod
    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status | None: ...


class ScorePlugin(Plugin):
    @abstractmethod
    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int: ...

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: dict[str, int]) -> Status | None:
        """Rewrite `scores` (node name → score) in place; plugins without normalization keep them."""
        return None

    def normalize_rows(self, state: CycleState, pod: PodInfo, names: list[str], scores: np.ndarray
                       ) -> tuple[np.ndarray, Status | None]:
        """NormalizeScore over an array of raw scores (`names` gives each entry's node). By
        default through `normalize_score`; plugins override it to stay vectorised."""
        as_dict = dict(zip(names, scores.tolist()))
        status = self.normalize_score(state, pod, as_dict)
        return np.fromiter(as_dict.values(), dtype=np.int64, count=len(as_dict)), status


class NodeExplainer(ABC):
    """kwhatif's own insight: sentences on why this plugin accepts or rejects a node, computed
    during the attempt (the node and the cycle state are as the plugin saw them)."""

    @abstractmethod
    def explain_node(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> list[str]: ...


class BatchFilter(ABC):
    """A Filter that can judge many nodes at once from the node table (the fast path). It must
    agree exactly with `filter()` node by node; the equivalence tests run both paths."""

    @abstractmethod
    def filter_rows(self, state: CycleState, pod: PodInfo, table: NodeTable, rows: np.ndarray
                    ) -> tuple[np.ndarray, list[Status]]:
        """(a bool mask over `rows` of the nodes rejected, their statuses in row order)."""


class BatchScore(ABC):
    """A Score plugin that scores many nodes at once; must equal `score()` node by node."""

    @abstractmethod
    def score_rows(self, state: CycleState, pod: PodInfo, table: NodeTable, rows: np.ndarray) -> np.ndarray: ...


class ReservePlugin(Plugin):
    @abstractmethod
    def reserve(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None: ...


class BindPlugin(Plugin):
    @abstractmethod
    def bind(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None: ...


EXTENSION_POINTS: dict[str, type[Plugin]] = {
    "preEnqueue": PreEnqueuePlugin,
    "queueSort": QueueSortPlugin,
    "preFilter": PreFilterPlugin,
    "filter": FilterPlugin,
    "postFilter": PostFilterPlugin,
    "preScore": PreScorePlugin,
    "score": ScorePlugin,
    "reserve": ReservePlugin,
    "bind": BindPlugin,
}
