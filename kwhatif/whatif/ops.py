"""The operations, how they are written (command-line options, or a YAML list in a file), and the
one function that applies them in order to a copy of the cluster."""

from __future__ import annotations

import os

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import yaml

from kwhatif.api.cluster import Cluster
from kwhatif.api.dra import ResourceClaim
from kwhatif.api.objects import Node, Pod, cordoned, uncordoned
from kwhatif.api.tolerations import Taint
from kwhatif.errors import InputError, located
from kwhatif.golang import go_quote
from kwhatif.text import listed
from kwhatif.load.cluster import load_objects
from kwhatif.load.reader import read_side_text
from kwhatif.whatif import nodes as node_ops
from kwhatif.load.disruption import health_changed
from kwhatif.whatif.drain import Drained, drain_pods, retry_refused
from kwhatif.whatif.daemons import resync_daemon_pods
from kwhatif.whatif.pods import (
    DAEMONSET, Names, comes_back, daemonset_gone, is_mirror, owner_kind, pinned_node, pod_names, recreate,
    release_claims, remove_pods,
)
from kwhatif.whatif.scale import scale, scales_workload_file
from kwhatif.whatif.targets import replace_node, target_nodes

# Each operation: its arguments as metavars (the option's nargs is their count) and its help.
OPERATIONS: dict[str, tuple[tuple[str, ...], str]] = {
    "cordon": (("NODE",), "Cordon: spec.unschedulable and its node.kubernetes.io/unschedulable taint."),
    "uncordon": (("NODE",), "Uncordon: clear spec.unschedulable and remove the unschedulable taint."),
    "drain": (("NODE",), "kubectl drain --ignore-daemonsets: cordon, evict through the Eviction API (PDBs "
                         "honoured), recreate controller-owned pods as pending."),
    "remove-node": (("NODE",), "Delete the node: its bare pods are gone, controller-owned ones recreated pending."),
    "add-node": (("TEMPLATE.yaml[:COUNT]",), "Add COUNT (1) nodes like this Node file, or like:NODE[:COUNT] "
                                             "like an existing node (without its pods, fresh names)."),
    "taint": (("NODE", "KEY=VALUE:EFFECT"), "Add a taint (replacing one with the same key and effect)."),
    "untaint": (("NODE", "KEY[:EFFECT]"), "Remove the taints with this key (and effect)."),
    "label": (("NODE", "KEY=VALUE|KEY-"), "Set or remove a node label."),
    "delete-pod": (("NS/NAME",), "Delete a pod (its controller, if any, recreates it pending)."),
    "scale": (("KIND/NS/NAME=N",), "Scale a ReplicaSet, StatefulSet or ReplicationController of the snapshot "
                                     "(check, capacity: also a workload of their files)."),
}
NODE_TARGETED = ("cordon", "uncordon", "drain", "remove-node", "taint", "untaint", "label")


@dataclass(frozen=True)
class Operation:
    op: str
    args: tuple[str, ...]
    force: bool = False
    """drain: also delete the pods no controller owns (kubectl drain --force)."""

    @property
    def text(self) -> str:
        """The operation as written on the command line."""
        return " ".join((f"--{self.op}", *self.args)) + (" --force" if self.force else "")

    @property
    def argv(self) -> tuple[str, ...]:
        """The operation as command-line arguments (for a command that repeats it)."""
        return (f"--{self.op}", *self.args) + (("--force",) if self.force else ())


def parse_operation(op: str, args: Sequence[str], force: bool = False) -> Operation:
    if op not in OPERATIONS:
        raise InputError(f"unknown what-if operation {op!r} (one of: {', '.join(OPERATIONS)})")
    wanted = len(OPERATIONS[op][0])
    if len(args) != wanted or not all(isinstance(a, str) and a for a in args):
        raise InputError(f"--{op}: expected {' '.join(OPERATIONS[op][0])}")
    return Operation(op, tuple(args), force and op == "drain")


def operations_from_file(path: str) -> list[Operation]:
    """A YAML list, each item one operation as on the command line: `- cordon: node-a`,
    `- taint: [node-a, "dedicated=gpu:NoSchedule"]`, `- drain: zone=b` with `force: true`."""
    text = read_side_text(path, f"--whatif {path}")
    try:
        items = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise InputError(f"--whatif {path}: {' '.join(str(err).split())}") from None
    if not isinstance(items, list):
        raise InputError(f"--whatif {path}: expected a YAML list of operations")
    return [operation_item(path, i, item) for i, item in enumerate(items)]


def operation_item(path: str, index: int, item: Any) -> Operation:
    where = f"--whatif {path}: item {index}"
    if not isinstance(item, dict):
        raise InputError(f"{where}: expected a mapping like `cordon: NODE`")
    names = [k for k in item if k != "force"]
    if len(names) != 1 or set(item) - {names[0], "force"}:
        raise InputError(f"{where}: expected one operation (and `force` for a drain), found {sorted(map(str, item))}")
    value = item[names[0]]
    values = value if isinstance(value, list) else [value]
    if not values or any(v is None or isinstance(v, (dict, list)) or str(v) == "" for v in values):
        raise InputError(f"{where}: {names[0]}: expected its arguments as on the command line (a node, a selector, "
                         f"a file...), got {value!r}")
    args = [str(v) for v in values]
    if names[0] == "add-node":
        args = [_beside(path, args[0]), *args[1:]]
    force = item.get("force", False)
    if not isinstance(force, bool):  # YAML's "false" in quotes is a string, and a true one in Python
        raise InputError(f"{where}: force: expected true or false, got {force!r}")
    try:
        return parse_operation(str(names[0]), args, force)
    except InputError as err:
        raise InputError(f"{where}: {err}") from None


def _beside(ops_file: str, spec: str) -> str:
    """An `add-node` template path relative to the operations file (as a sweep's are), when it
    is there; a `like:` spec, an absolute path or one only the working directory has, as given."""
    base, sep, count = spec.rpartition(":")
    template = base if sep and count.isdigit() else spec
    if spec.startswith("like:") or os.path.isabs(template):
        return spec
    near = os.path.join(os.path.dirname(os.path.abspath(ops_file)), template)
    return spec.replace(template, near, 1) if os.path.exists(near) else spec


@dataclass(frozen=True)
class Applied:
    """What one operation did: its echo line and, for data, the nodes and pods it touched."""

    operation: Operation
    summary: str
    nodes: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    created: tuple[str, ...] = ()
    blocked: tuple[str, ...] = ()

    def data(self) -> dict[str, Any]:
        return {"operation": self.operation.text, "summary": self.summary, "nodes": list(self.nodes),
                "removed_pods": list(self.removed), "created_pods": list(self.created),
                "blocked": list(self.blocked)}


@dataclass
class Scenario:
    """The cluster after the operations, what each did, and the warnings (a drain that stops)."""

    cluster: Cluster
    applied: list[Applied] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    file_scales: list[str] = field(default_factory=list)
    """`--scale` texts for the workload files of check / capacity (`scale.scale_workloads`)."""

    @property
    def header(self) -> list[str]:
        return [f"what-if: {a.summary}" for a in self.applied]

    def data(self) -> list[dict[str, Any]]:
        return [a.data() for a in self.applied]

    def notes(self) -> dict[str, str]:
        """Why each pod the operations removed or created is gone or new (the last word wins); a
        pod removed and then created again under its name (a StatefulSet's, an Indexed Job's) says
        both: it was evicted all the same."""
        removed: dict[str, str] = {}
        out: dict[str, str] = {}
        for applied in self.applied:
            text = applied.operation.text
            for key in applied.removed:
                removed[key] = text
                out[key] = f"removed by {text}"
            for key in applied.created:
                if key not in removed:
                    out[key] = f"created by {text}"
                elif removed[key] == text:
                    out[key] = f"removed and recreated under its name by {text}"
                else:
                    out[key] = f"removed by {removed[key]}, recreated under its name by {text}"
        return out


Settled = tuple[Pod, str, tuple[ResourceClaim, ...]]
"""A pod a drain's wait bound: where, and the claims allocated for it there."""
Settle = Callable[[Cluster, list[Pod], list[Pod]], tuple[list[Settled], list[Pod]]]
"""The scheduler going through a cluster's pending pods, told the pods evicted and recreated since
it last did: those it binds, and where (`engine.Settling`), what a drain waits for."""
Settlers = Callable[[], Settle]
"""A new `Settle` for each drain: it starts from the cluster as the drain left it at its first
wait (every node of the drain cordoned, what earlier operations did done)."""


def apply_operations(cluster: Cluster, operations: Sequence[Operation], now: str,
                     workload_files: bool = False, settlers: Settlers | None = None,
                     validate: str = "strict") -> Scenario:
    """Apply the operations in order to a copy of `cluster` (the loaded cluster stays as read).
    With `workload_files` (check, capacity), a `--scale` of a workload the snapshot lacks is kept
    for those files (`Scenario.file_scales`). `settlers`: what a drain refused by a budget waits
    for (`drain`); without it, a refusal stops the drain. `validate`: what an unknown field of an
    --add-node template is (`schema.UNKNOWN_FIELDS`; the command's --validate)."""
    scenario = Scenario(cluster.copy())
    ledger = DrainLedger()
    for operation in operations:
        if workload_files and operation.op == "scale" and scales_workload_file(operation.args[0], scenario.cluster):
            scenario.file_scales.append(operation.args[0])
            scenario.applied.append(Applied(operation, f"scale {operation.args[0]} (a workload of the files)"))
            continue
        ledger.commit(scenario.cluster)
        applied = apply_one(scenario.cluster, operation, now, scenario.warnings, settlers, ledger, validate)
        scenario.applied.append(applied)
        scenario.warnings.extend(f"{operation.text}: {b}" for b in applied.blocked)
    ledger.nominate(scenario.cluster)
    return scenario


def apply_one(cluster: Cluster, operation: Operation, now: str, warnings: list[str],
              settlers: Settlers | None, ledger: DrainLedger, validate: str) -> Applied:
    if operation.op in NODE_TARGETED:
        nodes = target_nodes(cluster, operation.args[0], operation.op)
        if operation.op == "drain":
            settle = settlers() if settlers is not None else None
            return drain(cluster, operation, nodes, now, settle, ledger)
        if operation.op == "remove-node":
            return remove_nodes(cluster, operation, nodes, now)
        return change_nodes(cluster, operation, nodes, now)
    if operation.op == "add-node":
        return add_node(cluster, operation, now, warnings, validate)
    if operation.op == "delete-pod":
        return delete_pod(cluster, operation, now)
    summary, gone, new = scale(cluster, operation.args[0], now)
    return Applied(operation, summary, (), keys(gone), keys(new))


def keys(pods: Sequence[Pod]) -> tuple[str, ...]:
    return tuple(p.key for p in pods)


def changed_node(op: str, node: Node, value: str) -> Node:
    """The node after cordon, uncordon, taint, untaint or label."""
    if op == "cordon":
        return cordoned(node)
    if op == "uncordon":
        return uncordoned(node)
    if op == "taint":
        return node_ops.tainted(node, node_ops.parse_taint(value))
    if op == "untaint":
        return node_ops.untainted(node, value)
    return node_ops.labelled(node, value)


def _replaced(op: str, node: Node, value: str) -> str:
    """What a label set over another value of the node said (kubectl label would refuse it without
    --overwrite; a what-if means it, and says what it replaced)."""
    key, sep, _ = value.partition("=")
    if op != "label" or not sep or key not in node.labels or node.labels[key] == value[len(key) + 1:]:
        return ""
    return f" (was {go_quote(node.labels[key]) if not node.labels[key] else node.labels[key]})"


def change_nodes(cluster: Cluster, operation: Operation, nodes: Sequence[Node], now: str) -> Applied:
    """cordon, uncordon, taint, untaint or label each node; then what the controllers do about it:
    a NoExecute taint evicts (`evict_untolerating`), and DaemonSets start or stop running on the
    nodes (`daemons.resync_daemon_pods`: a label one selects, a taint one does not tolerate)."""
    value = operation.args[1] if len(operation.args) > 1 else ""
    changed = [changed_node(operation.op, node, value) for node in nodes]
    if operation.op == "untaint" and all(new.taints == old.taints for new, old in zip(changed, nodes)):
        key = value.partition(":")[0]
        raise InputError(f'{operation.text}: taint "{key}" not found (kubectl\'s answer; no node it names has it)')
    for node in changed:
        replace_node(cluster, node)
    summary = "; ".join(f"{operation.op} {n.name}" + (f" {value}" if value else "") + _replaced(operation.op, n, value)
                        for n in nodes)
    evicted: list[Pod] = []
    new: list[Pod] = []
    if operation.op == "taint":
        taint = node_ops.parse_taint(value)
        evicted, new = evict_untolerating(cluster, changed, taint, now)
        if evicted:
            delayed = sum(1 for p in evicted if any(t.tolerates(taint) for t in p.tolerations))
            later = f" ({delayed} after their tolerationSeconds)" if delayed else ""
            summary += f": {len(evicted)} pod(s) not tolerating it for good evicted{later}, {len(new)} recreated pending"
    started, stopped = resync_daemon_pods(cluster, changed, now)
    if started or stopped:
        summary += f" (DaemonSet pods: {len(started)} created pending, {len(stopped)} deleted)"
    return Applied(operation, summary, tuple(n.name for n in nodes), keys([*evicted, *stopped]), keys([*new, *started]))


def evict_untolerating(cluster: Cluster, nodes: Sequence[Node], taint: Taint, now: str) -> tuple[list[Pod], list[Pod]]:
    """A NoExecute taint: the taint-eviction controller deletes the pods on the nodes that do not
    tolerate it for good (a toleration with tolerationSeconds only delays it); a controller
    recreates its pods pending — not a DaemonSet, which no longer runs on a node whose NoExecute
    taint it does not tolerate. Static pods' mirrors stay: their kubelet runs them on. (evicted, new)."""
    if taint.effect != "NoExecute":
        return [], []
    evicted = [p for pods in pods_on(cluster, nodes).values() for p in pods
               if p.node_name and not is_mirror(p) and not _tolerates_for_good(p, taint)]
    daemons = [p for p in evicted if owner_kind(p) == DAEMONSET]
    remove_pods(cluster, daemons, now, "", replace=False)
    return evicted, remove_pods(cluster, [p for p in evicted if owner_kind(p) != DAEMONSET], now, "taint")


def _tolerates_for_good(pod: Pod, taint: Taint) -> bool:
    return any(t.tolerates(taint) and t.toleration_seconds is None for t in pod.tolerations)


def pods_on(cluster: Cluster, nodes: Sequence[Node]) -> dict[str, list[Pod]]:
    """The pods bound to each of `nodes` — and the DaemonSet pods pinned to it, not bound yet
    (the node's own: its DaemonSet controller deletes them with it) — in input order: one pass
    over the pods, whatever the number of nodes a selector matched."""
    out: dict[str, list[Pod]] = {n.name: [] for n in nodes}
    for pod in cluster.pods:
        node = pinned_node(pod)
        if node in out:
            out[node].append(pod)
    return out


def drain(cluster: Cluster, operation: Operation, nodes: Sequence[Node], now: str,
          settle: Settle | None, ledger: DrainLedger) -> Applied:
    """Every node cordoned first, then each in turn, as `kubectl drain` goes (drain.go RunDrain):
    its pods evicted as kubectl would, the evicted ones gone and recreated by their controllers;
    a budget's refusal waits for pending pods to be scheduled, then is retried (`drain_node`).
    A node whose drain fails does not end the command (v1.34's RunDrain goes on: `continuing
    command...`, then names the nodes not drained) — but a budget that never allows a pod holds
    kubectl on that node for ever without --timeout: the nodes after it stay cordoned, not
    drained (`_waits_for_ever`). The pods its waits bound are bound there before another
    operation (`DrainLedger.commit`), or, after the last, left pending and nominated there for
    the run (`DrainLedger.nominate`)."""
    by_node = pods_on(cluster, nodes)
    leaving = Leaving(cluster, now, ledger)
    evicted: list[Pod] = []
    blocked: list[str] = []
    summaries: list[Callable[[], str]] = []  # said once every evicted pod is recreated or not (`flush`)
    failed: list[str] = []
    for node in nodes:
        replace_node(cluster, cordoned(node))
    for index, node in enumerate(nodes):
        done, retried = drain_node(cluster, [p for p in by_node[node.name] if p.node_name],  # spec.nodeName
                                   operation.force, settle, leaving)
        evicted += done.evicted
        blocked += done.blocked
        summaries.append(partial(_drained_summary, cluster, node, done, retried))
        if done.blocked:
            failed.append(node.name)
        if done.waits_on_budget:  # kubectl never returns: it names no pending node either
            if index + 1 < len(nodes):
                summaries.append(partial(_waits_for_ever, node, nodes[index + 1:]))
            break
    else:
        if failed and len(nodes) > 1:
            blocked.append(f"There are pending nodes to be drained: {listed(failed)}")
    leaving.flush()
    leaving.sync()
    if leaving.preempted:
        summaries.append(lambda: f"{len(leaving.preempted)} pod(s) preempted while kubectl waited")
    return Applied(operation, "; ".join(say() for say in summaries), tuple(n.name for n in nodes),
                   keys(evicted + leaving.preempted), keys(leaving.created), tuple(blocked))


def _waits_for_ever(node: Node, rest: Sequence[Node]) -> str:
    """kubectl retries a budget's refusal every 5 s until its --timeout, none by default: it
    never leaves `node`, and the nodes after it, cordoned with it first, are never drained."""
    return (f"not drained: {listed([n.name for n in rest])} (cordoned only: without --timeout kubectl waits on "
            f"{node.name} for ever)")


def _drained_summary(cluster: Cluster, node: Node, done: Drained, retried: int) -> str:
    """What one node's drain did: evicted (some on a retry), recreated, left; why it stopped."""
    return (f"drain {node.name}: evicted {len(done.evicted)} pod(s)"
            + (f" ({retried} once pods their budget counts were bound again: kubectl retries a "
               "budget's refusal every 5s)" if retried else "")
            + f", {sum(comes_back(cluster, p) for p in done.evicted)} recreated pending, {len(done.kept)} left on "
              "the node"
            + ("; stopped: " + done.blocked[0] + (NEVER_RECOVERS if done.waits_on_budget else "")
               if done.blocked else ""))


NEVER_RECOVERS = (" (kubectl retries it until its --timeout, but the budget never allows it here: no pending "
                  "pod it counts gets bound)")


@dataclass
class DrainLedger:
    """What a scenario's drains know across their operations: where a drain's wait bound pods,
    with the claims allocated for them there (`commit`)."""

    placed: dict[str, Settled] = field(default_factory=dict)

    def bound_while_waiting(self, bound: list[Settled]) -> list[Pod]:
        """The pods a wait bound (their places noted): each is healthy now, for the budgets
        selecting it — a drain's replacement, the replacement of a pod a `--remove-node` took, a
        pod that was pending already."""
        for settled in bound:
            self.placed[settled[0].key] = settled
        return [pod for pod, _, _ in bound]

    def commit(self, cluster: Cluster) -> None:
        """The pods the drains' waits bound, running where they were bound with their claims
        allocated, before the next operation: it comes after the drain, when they run there — a
        cordon does not move them, a node added later does not draw them, a later drain of their
        node evicts them, a later pod does not get their devices."""
        self._put(cluster, lambda pod, node: pod.evolve(node_name=node, phase="Running"))

    def nominate(self, cluster: Cluster) -> None:
        """After the last operation: the pods the waits bound stay pending, for the run to say
        where each goes, but nominated to the node its wait bound it on (status.nominatedNodeName,
        its claims allocated there), which the run's scheduler tries first and takes unscored
        once it passes the filters (schedule_one.go evaluateNominatedNode) — where the pod went
        while the refused pods still ran on the cordoned node. Scored afresh on the cluster after
        the drain, without those pods, it could go elsewhere (a topology spread counts them), and
        a no-op operation after the drain (`commit`) would then change where it runs. They are
        scheduled first, in the order they were bound (`Cluster.drain_bound`): they ran before
        the pods recreated after them, and a pod of higher priority among those must not take
        their room — a nomination only holds it against equal or lower priorities."""
        cluster.drain_bound = {key: settled[1] for key, settled in self.placed.items()}
        self._put(cluster, lambda pod, node: pod.evolve(nominated_node_name=node))

    def _put(self, cluster: Cluster, put: Callable[[Pod, str], Pod]) -> None:
        """Each pod the waits bound, still pending in `cluster`, `put` on its node; the claims
        allocated for it there are the cluster's."""
        if not self.placed:
            return
        placed, self.placed = self.placed, {}
        cluster.pods = [put(p, placed[p.key][1]) if p.key in placed and not p.node_name else p for p in cluster.pods]
        for _, _, claims in placed.values():
            cluster.resource_claims.update({(c.namespace, c.name): c for c in claims})


@dataclass
class Leaving:
    """Evicted pods on their way out of the cluster, in eviction order: recreated by their
    controllers (`flush`) when a drain must schedule — a retry waits on the cluster as it is then
    — or at its end; taken out of `cluster.pods` (`sync`) only before the first wait and at the
    end: the scheduler is told what left since (`settled`), so a drain that waits at each of
    1,250 nodes walks 150,000 pods twice, not at every node."""

    cluster: Cluster
    now: str
    ledger: DrainLedger
    pods: list[Pod] = field(default_factory=list)
    created: list[Pod] = field(default_factory=list)
    gone_since: list[Pod] = field(default_factory=list)
    new_since: list[Pod] = field(default_factory=list)
    gone: set[int] = field(default_factory=set)
    """Pods recreated but still in `cluster.pods` (by id), until `sync`."""
    names: Names | None = None
    """Every pod name of the cluster, those of the pods gone and recreated included (a pod being
    deleted keeps its name until it is gone): the new pods' names avoid them."""
    waited: bool = False
    preempted: list[Pod] = field(default_factory=list)
    """Pods the scheduler's preemptions evicted while kubectl waited (`settled`)."""

    def flush(self) -> None:
        if not self.pods:
            return
        if self.names is None:
            self.names = pod_names(self.cluster.pods)
        new = recreate(self.cluster, self.pods, self.now, "drain", self.names)
        release_claims(self.cluster, self.pods)
        for pod in new:
            self.names.setdefault(pod.namespace, set()).add(pod.name)
        self.gone.update(map(id, self.pods))
        for pod in self.pods:
            self.ledger.placed.pop(pod.key, None)
        self.created += new
        self.gone_since += self.pods
        self.new_since += new
        self.pods = []

    def sync(self) -> None:
        if self.gone:
            self.cluster.pods = [p for p in self.cluster.pods if id(p) not in self.gone]
            self.gone = set()

    def settled(self, settle: Settle) -> list[Settled]:
        """The pods the scheduler binds while kubectl waits, the evicted ones gone first. The pods
        its preemptions evicted meanwhile leave as evicted ones do (recreated by their
        controllers), no longer healthy for their budgets."""
        self.flush()
        if not self.waited:
            self.sync()
            self.waited = True
        gone, new = self.gone_since, self.new_since
        self.gone_since, self.new_since = [], []
        bound, preempted = settle(self.cluster, gone, new)
        if preempted:
            keys = {p.key for p in preempted}
            victims = [p for p in self.cluster.pods if p.key in keys and id(p) not in self.gone]
            health_changed(self.cluster, victims, -1)
            self.pods += victims
            self.preempted += victims
        return bound


def drain_node(cluster: Cluster, pods: list[Pod], force: bool, settle: Settle | None,
               leaving: Leaving) -> tuple[Drained, int]:
    """One node's drain: evict (the evicted pods `leaving`); while a budget refuses some, schedule
    the pending pods (what happens while kubectl waits: the replacements of the pods evicted
    first among them), count each pod now bound healthy for the budgets selecting it, and evict
    the refused pods again — until none is left or a round frees none. (drained, the pods
    evicted on a retry.)"""
    done = drain_pods(cluster, pods, force)
    leaving.pods += done.evicted
    retried = 0
    while done.refused and settle is not None:
        bound = leaving.ledger.bound_while_waiting(leaving.settled(settle))
        if not health_changed(cluster, bound, +1):
            break
        more = retry_refused(cluster, done)
        if not more:
            break
        leaving.pods += more
        retried += len(more)
    return done, retried


def belongs_to_node(pod: Pod) -> bool:
    """A DaemonSet's pod or a static pod's mirror exists for its node alone: it goes with it."""
    return owner_kind(pod) == DAEMONSET or is_mirror(pod)


def lose_nodes(cluster: Cluster, nodes: Sequence[Node], now: str, by_node: dict[str, list[Pod]] | None = None,
               existing: Names | None = None) -> tuple[list[Pod], list[Pod]]:
    """The nodes deleted at once (`by_node`: their pods, if known): their pods go with them; the
    controller-owned ones other than DaemonSet pods and static mirrors (which belong to their
    node) are recreated pending, in node order, at the end of the queue. (pods gone, pods new).
    `existing`: the cluster's pod names per namespace, if known (`recreate`)."""
    by_node = pods_on(cluster, nodes) if by_node is None else by_node
    gone = [p for node in nodes for p in by_node[node.name]]
    if existing is None:
        existing = pod_names(cluster.pods, {p.namespace for p in gone})
    node_ops.drop_node_objects(cluster, {n.name for n in nodes})
    remove_pods(cluster, gone, now, "", replace=False)
    return gone, recreate(cluster, [p for p in gone if not belongs_to_node(p)], now, "remove-node", existing)


def remove_nodes(cluster: Cluster, operation: Operation, nodes: Sequence[Node], now: str) -> Applied:
    """`lose_nodes`, said node by node."""
    by_node = pods_on(cluster, nodes)
    gone, new = lose_nodes(cluster, nodes, now, by_node)
    cluster.removed_nodes.extend(nodes)
    summaries = [f"remove-node {n.name}: {len(by_node[n.name])} pod(s) gone, "
                 f"{sum(1 for p in by_node[n.name] if not belongs_to_node(p) and comes_back(cluster, p))} recreated "
                 "pending"
                 for n in nodes]
    return Applied(operation, "; ".join(summaries), tuple(n.name for n in nodes), keys(gone), keys(new))


MAX_ADDED_NODES = 10_000
"""The most nodes one --add-node adds (schemas/sweep.schema.json caps a sweep's counts alike): a
count beyond any cluster's size exhausts the memory before it answers anything."""


def add_node(cluster: Cluster, operation: Operation, now: str, warnings: list[str], validate: str) -> Applied:
    spec = operation.args[0]
    base, sep, count_text = spec.rpartition(":")
    # A node name holds no ':'; a file may, so TEMPLATE:COUNT is read as a file only when it is one.
    counted_file = sep and not base.startswith("like:") and os.path.exists(base) and not os.path.exists(spec)
    if sep and (count_text.lstrip("-").isdigit() or base.startswith("like:") or counted_file):
        if not count_text.lstrip("-").isdigit():
            raise InputError(f"--add-node {spec}: COUNT must be a whole number")
    else:
        base, count_text = spec, "1"
    count = int(count_text)
    if count < 1:
        raise InputError(f"--add-node {spec}: COUNT must be at least 1")
    if count > MAX_ADDED_NODES:
        raise InputError(f"--add-node {spec}: COUNT must be at most {MAX_ADDED_NODES:,} (a sweep's counts too: "
                         "Kubernetes supports clusters of 5,000 nodes)")
    template = like_node(cluster, base) if base.startswith("like:") else template_node(base, warnings, validate)
    added, daemons = node_ops.add_nodes(cluster, template, count, now)
    summary = f"add-node {count} like {template.name}: {', '.join(n.name for n in added)}"
    if daemons:
        summary += f" (and {len(daemons)} DaemonSet pod(s) created pending for them)"
    return Applied(operation, summary, tuple(n.name for n in added), (), keys(daemons))


def like_node(cluster: Cluster, base: str) -> Node:
    """The node `like:NODE` names: one of the cluster, or one a what-if removed (as it was)."""
    name = base.removeprefix("like:")
    found = next((n for n in (*cluster.nodes, *cluster.removed_nodes) if n.name == name), None)
    if found is None:
        raise InputError(f"--add-node {base}: no such node in the cluster")
    return found


def template_node(path: str, warnings: list[str], validate: str) -> Node:
    """The one Node of a node template file (--add-node's, a sweep's `nodes[].template`)."""
    nodes = template_nodes(path, warnings, validate)
    if len(nodes) != 1:
        raise InputError(f"{path} must hold exactly one Node (found {len(nodes)}): a node template is one Node "
                         "manifest")
    return nodes[0]


def template_nodes(path: str, warnings: list[str], validate: str) -> list[Node]:
    """The Nodes of a node template file, fully validated: a misspelt field (`taint:`) would
    otherwise add nodes without what the user meant them to have — refused, as `kubectl apply`
    refuses it, unless `validate` (`schema.UNKNOWN_FIELDS`, the command's --validate) says
    otherwise; the warnings go to `warnings`."""
    objects, found = load_objects([path], full_validation=True, validate=validate)
    warnings.extend(found)
    nodes = [o for o in objects if isinstance(o, Node)]
    warnings.extend(said for said in map(_unprovisioned, nodes) if said)
    return nodes


def _unprovisioned(node: Node) -> str | None:
    """What a template lacks of the status.allocatable a kubelet would report: its nodes take
    nothing of it (no `pods`: no pod at all), and a capacity search over them goes on to --max."""
    lacking = [r for r in ("cpu", "memory", "pods") if r not in node.allocatable]
    if not lacking:
        return None
    return (f"{located(node.source)}Node/{node.name}: status.allocatable has no {', '.join(lacking)}: the nodes added "
            f"like it offer none (a kubelet reports them; give them in the template)")


def delete_pod(cluster: Cluster, operation: Operation, now: str) -> Applied:
    key = operation.args[0]
    pod = next((p for p in cluster.pods if p.key == key), None)
    if pod is None:
        raise InputError(f"--delete-pod {key}: no such pod in the cluster")
    if is_mirror(pod):  # the static pod runs on; the kubelet posts its mirror again, bound to its node
        return Applied(operation, f"delete-pod {key}: a static pod's mirror: its kubelet creates it again on "
                                  f"{pod.node_name or 'its node'}, nothing changes")
    new = remove_pods(cluster, [pod], now, "delete-pod")
    summary = f"delete-pod {key}" + (f": recreated pending as {new[0].key}" if new else _why_not_back(cluster, pod))
    return Applied(operation, summary, (pod.node_name,) if pod.node_name else (), (key,), keys(new))


def _why_not_back(cluster: Cluster, pod: Pod) -> str:
    """Said of a deleted controller-owned pod nothing recreates because its DaemonSet is gone (a
    bare pod's end needs no word)."""
    ref = pod.controller_ref
    if ref is None or not daemonset_gone(pod, cluster.daemonsets):
        return ""
    return f": not recreated, its DaemonSet {pod.namespace}/{ref.name} is not in the snapshot"
