"""What every suggestion family shares: the variant a re-run applies, the suggestion with its
size, and the builders of the machine-readable changes (RFC 6902 patches, adds, deletes) on the
objects as they appear in the input."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import IntEnum
from fractions import Fraction
from collections.abc import Sequence
from typing import Any, Callable

from kwhatif.api.objects import Node, Pod, PodDisruptionBudget
from kwhatif.api.quantity import format_amount
from kwhatif.explain.pod import NodeVerdict
from kwhatif.framework.scheduler import Outcome, PodResult
from kwhatif.preemption.pdb import split_by_pdb_violation
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.text import listed
from kwhatif.whatif.pods import DAEMONSET, is_mirror, owner_kind

# The plugins whose rejections the families read (their v1.34 names).
FIT = "NodeResourcesFit"
TAINTS = "TaintToleration"
CORDONED = "NodeUnschedulable"
AFFINITY = "NodeAffinity"
PORTS = "NodePorts"
SPREAD = "PodTopologySpread"
INTERPOD = "InterPodAffinity"
DEVICES = "DynamicResources"

# Scheduler units per unit of the API quantity: cpu is counted in millicores, the rest as is.
_SCALE = {"cpu": 1000}


class Size(IntEnum):
    """How big a change is, smallest first: a field of the pod's own spec; the labels or cordon of
    one node; pods deleted (someone else's workload); nodes bought; a priority that evicts."""

    POD_FIELD = 0
    ONE_NODE = 1
    DELETE_PODS = 2
    ADD_NODES = 3
    PRIORITY = 4


@dataclass(frozen=True)
class Variant:
    """What a suggestion changes, for its re-run: the pod as changed, nodes changed or added, and
    the keys of bound pods deleted."""

    pod: Pod
    nodes: tuple[Node, ...] = ()
    removed: frozenset[str] = frozenset()
    like: str = ""
    """The node of the cluster the added `nodes` are copies of: the devices its DRA drivers
    publish come with them (a new node's drivers publish the same)."""


Rerun = Callable[[Variant], PodResult | None]  # the scenario again with the variant applied
NodeOf = Callable[[str], NodeInfo]  # a node of the snapshot with its pods, by name


@dataclass(frozen=True)
class Suggestion:
    summary: str
    changes: list[dict[str, Any]] = field(default_factory=list)
    verified: bool = True
    size: Size = field(default=Size.POD_FIELD, compare=False)

    def data(self) -> dict[str, Any]:
        return {"summary": self.summary, "verified": self.verified, "changes": self.changes}

    def on_template(self, kind: str, namespace: str, name: str, say: bool = True) -> Suggestion:
        """The suggestion for a pod a workload makes (of the input's files, or of the snapshot:
        `owner.template_owner`): its changes to the pod go to the workload's pod template instead
        (`/spec/x` → `/spec/template/spec/x`), the object the user edits — the API server refuses
        such changes to a pod, and its controller makes it again from the template. With `say`,
        the summary names that object (a page about the pod does not; check's row of the
        workload does)."""
        prefix = TEMPLATE_PATHS.get(kind, "/spec/template")
        target = {"kind": kind, "namespace": namespace, "name": name}
        changes = [{**c, "target": target, "patch": [{**op, "path": prefix + op["path"]} for op in c["patch"]]}
                   if _pod_patch(c) else c for c in self.changes]
        if changes == self.changes or not say:
            return replace(self, changes=changes)
        return replace(self, summary=f"{self.summary} (in the pod template of {kind} {namespace}/{name})",
                       changes=changes)

    def on_bare_pod(self) -> Suggestion:
        """The suggestion for a pod of the snapshot no controller makes: the API server refuses
        most changes to a pod's spec (validation.go ValidatePodUpdate: images,
        activeDeadlineSeconds and added tolerations only), so a change beyond those is made by
        deleting the pod and creating it again — said, and marked `recreate` in the change."""
        changes = [{**c, "recreate": True} if _pod_patch(c) and not _in_place(c) else c for c in self.changes]
        if changes == self.changes:
            return self
        return replace(self, summary=f"{self.summary} (a pod's spec cannot change in place: delete it and create it "
                                     "again with the change)", changes=changes)

    @property
    def rank(self) -> tuple[int, int, int]:
        """The ranking key: the kind of change, then how many objects it touches, then how many
        operations (a patch of two fields is bigger than one of one)."""
        ops = sum(len(c.get("patch", ())) or 1 for c in self.changes)
        return int(self.size), len(self.changes), ops


def _pod_patch(change: dict[str, Any]) -> bool:
    return change.get("op") == "patch" and change["target"]["kind"] == "Pod"


def _in_place(change: dict[str, Any]) -> bool:
    """Whether the API server lets a running pod take the patch: tolerations added, nothing else
    kwhatif suggests."""
    return all(op["op"] == "add" and op["path"].startswith("/spec/tolerations") for op in change["patch"])


TEMPLATE_PATHS = {"CronJob": "/spec/jobTemplate/spec/template"}
"""Where a workload kind keeps its pod template, when not at `/spec/template`."""

Candidate = tuple[Suggestion, Variant]


def binds(result: PodResult | None) -> bool:
    return result is not None and result.outcome == Outcome.BOUND


def pod_change(pod: Pod, patch: list[dict[str, Any]]) -> dict[str, Any]:
    """A JSON Patch on the pod's own manifest."""
    return {"op": "patch", "target": {"kind": "Pod", "namespace": pod.namespace, "name": pod.name}, "patch": patch}


def node_change(name: str, patch: list[dict[str, Any]]) -> dict[str, Any]:
    """A JSON Patch on a Node's manifest (cluster-scoped: no namespace)."""
    return {"op": "patch", "target": {"kind": "Node", "namespace": None, "name": name}, "patch": patch}


def delete_change(pod: Pod) -> dict[str, Any]:
    return {"op": "delete", "target": {"kind": "Pod", "namespace": pod.namespace, "name": pod.name}}


def key_in(key: str, names: tuple[str, ...]) -> bool:
    """Whether a label or taint key is one of `names`, or under one ending in `/` (a prefix)."""
    return any(key == n or (n.endswith("/") and key.startswith(n)) for n in names)


def key_domain_in(key: str, domains: tuple[str, ...]) -> bool:
    """Whether a label or taint key's prefix (before `/`) is one of `domains` or a subdomain of
    one: `node-role.kubernetes.io/worker` is under `kubernetes.io`."""
    prefix, slash, _ = key.rpartition("/")
    return bool(slash) and any(prefix == d or prefix.endswith("." + d) for d in domains)


def comes_back(pod: Pod) -> bool:
    """Whether deleting the pod frees nothing: a DaemonSet's controller makes it again on the
    same node, a static pod's kubelet keeps its mirror."""
    return is_mirror(pod) or owner_kind(pod) == DAEMONSET


def pointer(key: str) -> str:
    """A map key as one JSON Pointer token (RFC 6901): `~` and `/` escaped."""
    return key.replace("~", "~0").replace("/", "~1")


def quantity(name: str, amount: Fraction) -> str:
    """An API quantity as a manifest (and the summary) writes it: the scheduler's units through
    the one amount formatter (`500m`, `1Gi`, `110`)."""
    return format_amount(name, int(amount * _SCALE.get(name, 1)))


def scale(name: str) -> int:
    """Scheduler units per unit of the API quantity `name`."""
    return _SCALE.get(name, 1)


def rejected_alone(verdicts: list[NodeVerdict], plugin: str) -> list[NodeVerdict]:
    """The node verdicts where `plugin` rejects the node and no later filter would: freeing the
    node from that plugin alone lets the pod on."""
    return [v for v in verdicts if not v.feasible and v.plugin == plugin and not v.also_fails]


def budgets_broken(pods: Sequence[Pod], pdbs: Sequence[PodDisruptionBudget]) -> list[str]:
    """The PodDisruptionBudgets that taking all of `pods` away drives below what they allow now
    (preemption's own count, `split_by_pdb_violation`)."""
    _, _, broken = split_by_pdb_violation([PodInfo.of(p) for p in pods], pdbs)
    return sorted({budget for budgets in broken.values() for budget in budgets})


DELETED = "an eviction is refused; a delete goes through and leaves the app below its budget"
PREEMPTED = "preemption spares budgets only when another node lets it"


def budget_note(broken: Sequence[str], what: str = DELETED) -> str:
    """The clause a deletion or a preemption that breaks budgets carries: what the operator meets."""
    if not broken:
        return ""
    return f"; this breaks PodDisruptionBudget {listed(list(broken))} ({what})"
