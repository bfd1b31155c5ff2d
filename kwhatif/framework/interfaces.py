"""One interface per extension point. A plugin class inherits the ones it implements; the
runner places it at an extension point by `isinstance`, as Go does by interface assertion."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
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

    def __init__(self, args: Any, handle: Handle) -> None:
        """`args`: the plugin's typed arguments (the frozen `<Name>Args` dataclass its module
        declares, built by the configuration), None for its defaults; plugins without arguments
        ignore it, as kube-scheduler's factories do."""
        self.handle = handle


class PreEnqueuePlugin(Plugin):
    @abstractmethod
    def pre_enqueue(self, pod: PodInfo) -> Status | None: ...


class QueueSortPlugin(Plugin):
    @abstractmethod
    def sort_key(self, pod: PodInfo, arrival: int) -> tuple: ...


@dataclass(frozen=True, slots=True)
class PreFilterResult:
    """A PreFilter may restrict the nodes to evaluate (only NodeAffinity does,
    nodeaffinity.go:GetRequiredNodeAffinity)."""

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

    def node_once_passed(self, node: NodeInfo) -> NodeInfo:
        """The node as the change that lifts this plugin's rejection leaves it, for kwhatif's
        "also fails" (`Framework.later_filter_failures`): most changes touch nothing the later
        filters read; an uncordon also takes the cordon's taint away."""
        return node


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
    def pre_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> Status | None: ...


class ScorePlugin(Plugin):
    @abstractmethod
    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int: ...

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: dict[str, int]) -> Status | None:
        """Rewrite `scores` (node name → score) in place; plugins without normalization keep them."""
        return None

    def normalize_rows(self, state: CycleState, pod: PodInfo, names: Sequence[str], scores: np.ndarray
                       ) -> tuple[np.ndarray, Status | None]:
        """NormalizeScore over an array of raw scores (`names` gives each entry's node). By
        default through `normalize_score`; plugins override it to stay vectorised."""
        as_dict = dict(zip(names, scores.tolist()))
        status = self.normalize_score(state, pod, as_dict)
        return np.fromiter(as_dict.values(), dtype=np.int64, count=len(as_dict)), status


class NodeExplainer(ABC):
    """kwhatif's own insight: sentences on why this plugin accepts or rejects a node, computed
    during the attempt (the node and the cycle state are as the plugin saw them)."""

    reads_node_pods = False
    """Whether its verdict on a node hangs on the pods there (their requests, ports, labels,
    volumes): a rejection then may come from pods kwhatif placed earlier in the run, which the
    user's `kubectl describe node` does not show — the explanation names them."""

    @abstractmethod
    def explain_node(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> list[str]: ...

    def measure_node(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> dict[str, int]:
        """How far a rejected node is from accepting the pod, per measured quantity (e.g. `cpu` →
        millicores short), so a summary over thousands of nodes can give the spread of the
        evidence instead of one sentence per node. Empty: the plugin measures nothing."""
        return {}

    def explain_rejection(self, state: CycleState, pod: PodInfo) -> list[str]:
        """Sentences on this plugin's PreFilter rejection of the pod, which names no node and often
        no object (`pod has unbound immediate PersistentVolumeClaims`): which of the pod's objects
        it is and what would lift it. Empty: the message says it all."""
        return []


@dataclass(frozen=True, slots=True)
class RowVerdicts:
    """A batch Filter's verdicts over some rows: a bool mask of the rows it rejects and, per
    rejected row in row order, the index of its status among a few `distinct` ones. Thousands
    of rejected nodes share a handful of statuses, so the runner stamps each distinct one with
    the plugin's name once and expands nothing per node unless the statuses are read."""

    fails: np.ndarray
    distinct: Sequence[Status]
    which: np.ndarray

    @classmethod
    def same(cls, fails: np.ndarray, status: Status) -> RowVerdicts:
        """Every rejected row with one status."""
        return cls(fails, (status,), np.zeros(int(np.count_nonzero(fails)), dtype=np.intp))

    @classmethod
    def pick(cls, fails: np.ndarray, choice: np.ndarray, options: Sequence[Status]) -> RowVerdicts:
        """Each rejected row with `options[choice]`, `choice` given over the rejected rows."""
        return cls(fails, options, choice.astype(np.intp, copy=False))

    @classmethod
    def listed(cls, fails: np.ndarray, statuses: Sequence[Status]) -> RowVerdicts:
        """From one status per rejected row (the per-node path's verdicts), shared by identity."""
        index: dict[int, int] = {}
        distinct: list[Status] = []
        for status in statuses:
            if id(status) not in index:
                index[id(status)] = len(distinct)
                distinct.append(status)
        which = np.fromiter((index[id(st)] for st in statuses), dtype=np.intp, count=len(statuses))
        return cls(fails, distinct, which)

    def statuses(self) -> list[Status]:
        """The status of each rejected row, in row order."""
        return [self.distinct[i] for i in self.which.tolist()]


class BatchFilter(ABC):
    """A Filter that can judge many nodes at once from the node table (the fast path). It must
    agree exactly with `filter()` node by node; the equivalence tests run both paths."""

    @abstractmethod
    def filter_rows(self, state: CycleState, pod: PodInfo, table: NodeTable, rows: np.ndarray) -> RowVerdicts:
        """The verdicts over `rows`."""


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


@dataclass(frozen=True)
class ExtensionPoint:
    """One extension point of kube-scheduler's framework: `name` is its field in a profile's
    `plugins` (v1), `interface` the Go interface named in NewFramework's errors, `plugin_type`
    kwhatif's interface for it (None: kwhatif runs no plugin there) and `runner_field` the
    PluginSet list the runner calls (None: the runner does not call that point)."""

    name: str
    interface: str
    plugin_type: type[Plugin] | None = None
    runner_field: str | None = None


# Every extension point, in the order of the v1 `Plugins` fields (the one table the
# configuration, the engine and `config show` derive theirs from).
POINTS: tuple[ExtensionPoint, ...] = (
    ExtensionPoint("preEnqueue", "PreEnqueuePlugin", PreEnqueuePlugin, "pre_enqueue"),
    ExtensionPoint("queueSort", "QueueSortPlugin", QueueSortPlugin, "queue_sort"),
    ExtensionPoint("preFilter", "PreFilterPlugin", PreFilterPlugin, "pre_filter"),
    ExtensionPoint("filter", "FilterPlugin", FilterPlugin, "filter"),
    ExtensionPoint("postFilter", "PostFilterPlugin", PostFilterPlugin, "post_filter"),
    ExtensionPoint("preScore", "PreScorePlugin", PreScorePlugin, "pre_score"),
    ExtensionPoint("score", "ScorePlugin", ScorePlugin, "score"),
    ExtensionPoint("reserve", "ReservePlugin", ReservePlugin, "reserve"),
    ExtensionPoint("permit", "PermitPlugin"),
    ExtensionPoint("preBind", "PreBindPlugin"),
    ExtensionPoint("bind", "BindPlugin", BindPlugin),
    ExtensionPoint("postBind", "PostBindPlugin"),
)
POINTS_BY_NAME: dict[str, ExtensionPoint] = {p.name: p for p in POINTS}

# The order NewFramework walks extension points (getExtensionPoints), which decides which
# error is reported first.
FRAMEWORK_ORDER: tuple[ExtensionPoint, ...] = tuple(POINTS_BY_NAME[name] for name in (
    "preFilter", "filter", "postFilter", "reserve", "preScore", "score", "preBind", "bind", "postBind", "permit",
    "preEnqueue", "queueSort"))

# The extension points kwhatif has plugin interfaces for, by name.
EXTENSION_POINTS: dict[str, type[Plugin]] = {p.name: p.plugin_type for p in POINTS if p.plugin_type is not None}
