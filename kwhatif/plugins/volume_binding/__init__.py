"""VolumeBinding: PVC checks in PreFilter, PV node affinity / matching / provisioning per node in
Filter (volume_binding.go:Filter), the binding decision in Reserve. PreScore always skips
(framework.go:NewFramework, volume_binding.go:Score: the StorageCapacityScoring gate is off), so the plugin
never scores.

PreFilter rejections (U&U, in volume order): a missing claim (`persistentvolumeclaim "<claim>"
not found`, or for a generic ephemeral volume `waiting for ephemeral volume controller to create
the persistentvolumeclaim "<pod>-<volume>"`), a Lost claim, a claim being deleted, an ephemeral
claim the pod does not control; then `pod has unbound immediate PersistentVolumeClaims` when a
claim is neither bound nor WaitForFirstConsumer (a claim pre-bound through `volumeName` counts as
immediate). Since v1.32 the plugin returns no PreFilterResult node set.

Reserve records the decision for the chosen node in the simulation's storage view (see
`storage.py`): a claim matched to an available PV becomes bound to it (PV claimRef set, claim
`volumeName` set and bind-completed, as the PV controller finishes it after PreBind); a claim to be
provisioned gets `volume.kubernetes.io/selected-node`, so later pods sharing it are held to that
node. `reservations_for(pod)` and `explain_node` say which PV a claim would bind.

Filter checks CSIStorageCapacity for claims to provision whose CSIDriver has `storageCapacity:
true` (`node(s) did not have enough free storage`), and the node affinity of bound in-tree PVs as
their CSI translation has it on nodes that migrated the plugin (see `binder.py`).

Simplified (kwhatif): PreBind's API round trips are not simulated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from kwhatif.api.quantity import format_amount, value
from kwhatif.api.storage import PersistentVolumeClaim
from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.interfaces import (
    FilterPlugin,
    NodeExplainer,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    ReservePlugin,
    ScorePlugin,
)
from kwhatif.framework.status import SKIP, Code, Status, unresolvable
from kwhatif.plugins.volume_binding import binder
from kwhatif.plugins.volume_binding.binder import (
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_NOT_ENOUGH_SPACE,
    ERR_REASON_PV_NOT_EXIST,
    BinderError,
    PodVolumeClaims,
    PodVolumeDecisions,
)
from kwhatif.plugins.volume_binding.storage import (
    ANN_SELECTED_NODE,
    NOT_SUPPORTED_PROVISIONER,
    Reservation,
    StorageIndex,
    claim_class,
    pod_volumes,
    pvc_not_found,
    storage_of,
)
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.pod_info import PodInfo

NAME = "VolumeBinding"
STATE_KEY = NAME
ERR_REASON_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"

__all__ = [
    "ERR_REASON_BIND_CONFLICT",
    "ERR_REASON_NODE_CONFLICT",
    "ERR_REASON_NOT_ENOUGH_SPACE",
    "ERR_REASON_PV_NOT_EXIST",
    "ERR_REASON_UNBOUND_IMMEDIATE",
    "NAME",
    "VolumeBinding",
]


@dataclass
class VolumeBindingState:
    """stateData: the pod's claims and the decisions of each node that passed Filter. Shared, not
    copied, by CycleState.clone (Go's Clone returns the same pointer)."""

    storage: StorageIndex | None = None
    claims: PodVolumeClaims | None = None
    by_node: dict[str, PodVolumeDecisions] = field(default_factory=dict)


def owned_by_pod(pvc: PersistentVolumeClaim, info: PodInfo) -> bool:
    """ephemeral.VolumeIsForPod: same namespace and the pod is the claim's controller."""
    return pvc.namespace == info.pod.namespace and pvc.controller_uid is not None \
        and pvc.controller_uid == info.pod.uid


def not_owned_message(pvc: PersistentVolumeClaim, info: PodInfo) -> str:
    return (f"PVC {pvc.namespace}/{pvc.name} was not created for pod {info.pod.namespace}/{info.pod.name} "
            "(pod is not owner)")


def lookup_claims(info: PodInfo, storage: StorageIndex) -> tuple[list[PersistentVolumeClaim], str | None]:
    """podHasPVCs: every claim of the pod in volume order, or the first problem's message."""
    claims: list[PersistentVolumeClaim] = []
    namespace = info.pod.namespace
    for ref in pod_volumes(info).refs:
        if ref.kind not in ("pvc", "ephemeral"):
            continue
        ephemeral = ref.kind == "ephemeral"
        pvc = storage.pvc(namespace, ref.claim)
        if pvc is None:
            if ephemeral:
                return claims, ('waiting for ephemeral volume controller to create the persistentvolumeclaim '
                                f'"{ref.claim}"')
            return claims, pvc_not_found(ref.claim)
        if pvc.phase == "Lost":
            return claims, (f'persistentvolumeclaim "{pvc.name}" bound to non-existent persistentvolume '
                            f'"{pvc.volume_name}"')
        if pvc.deletion_timestamp is not None:
            return claims, f'persistentvolumeclaim "{pvc.name}" is being deleted'
        if ephemeral and not owned_by_pod(pvc, info):
            return claims, not_owned_message(pvc, info)
        claims.append(pvc)
    return claims, None


@dataclass(frozen=True)
class VolumeBindingArgs:
    """VolumeBindingArgs with kube-scheduler's default (defaults.go:SetDefaults_*Args). kwhatif does not
    simulate PreBind's wait, so the timeout is not read; `shape` needs the StorageCapacityScoring gate
    (off)."""

    bind_timeout_seconds: int = 600


class VolumeBinding(PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, ReservePlugin, NodeExplainer):
    name = NAME

    # PreFilter / Filter ---------------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        if not pod_volumes(pod).uses_claims:
            state.write(STATE_KEY, VolumeBindingState())
            return None, SKIP
        storage = storage_of(self.handle.snapshot)
        claims, problem = lookup_claims(pod, storage)
        if problem is not None:
            return None, unresolvable(problem)
        split = binder.pod_volume_claims(claims, storage)
        if split.immediate:
            return None, unresolvable(ERR_REASON_UNBOUND_IMMEDIATE)
        state.write(STATE_KEY, VolumeBindingState(storage, split))
        return None, None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        s = state.get(STATE_KEY)
        if s is None or s.claims is None:
            return Status(Code.ERROR, ("not found",))
        try:
            decisions, reasons = binder.find_pod_volumes(s.claims, node.node, s.storage)
        except BinderError as err:
            return Status(Code.ERROR, (str(err),))
        if reasons:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, tuple(reasons))
        s.by_node[node.name] = decisions
        return None

    # PreScore / Score: no scorer without the StorageCapacityScoring gate ----------------------
    def pre_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> Status | None:
        return SKIP

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        return 0

    # Reserve --------------------------------------------------------------------------------
    def reserve(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None:
        """AssumePodVolumes for the chosen node: bind matched PVs, mark claims to provision."""
        s = state.get(STATE_KEY)
        if s is None or s.claims is None or not s.claims.delay:
            return None  # all claims bound (or none): nothing to assume
        decisions = s.by_node.get(node_name)
        if decisions is None:
            return None
        for pvc, pv in decisions.static_bindings:
            s.storage.bind(pod.key, node_name, pvc, pv)
        for pvc in decisions.dynamic_provisions:
            sc = s.storage.classes.get(claim_class(pvc))
            s.storage.select_node(pod.key, node_name, pvc, sc.provisioner if sc is not None else "")
        return None

    def reservations_for(self, pod_key: str) -> list[Reservation]:
        """What Reserve decided for a placed pod's unbound claims (empty when nothing was needed)."""
        return list(storage_of(self.handle.snapshot).reservations.get(pod_key, ()))

    # Explanations ----------------------------------------------------------------------------
    def explain_rejection(self, state: CycleState, pod: PodInfo) -> list[str]:
        """Which immediate claims are unbound, and why the PV controller has not bound them (the
        other PreFilter rejections name their claim already)."""
        storage = storage_of(self.handle.snapshot)
        claims, problem = lookup_claims(pod, storage)
        if problem is not None:
            return []
        return [_why_unbound(pvc, storage) for pvc in binder.pod_volume_claims(claims, storage).immediate]

    def explain_node(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> list[str]:
        """kwhatif's sentences on this plugin's view of `node` in the attempt whose state is
        given: which PV each claim is bound to or would bind, or why none fits."""
        s = state.get(STATE_KEY)
        if s is None or s.claims is None:
            return []  # the pod uses no claim
        out = []
        for pvc in s.claims.bound:
            out.append(_explain_bound(pvc, node, s))
        decisions = s.by_node.get(node.name)
        if decisions is not None:
            for pvc, pv in decisions.static_bindings:
                out.append(f"PersistentVolumeClaim {pvc.key} would be bound to PersistentVolume {pv.name}")
            for pvc in decisions.dynamic_provisions:
                sc = s.storage.classes.get(claim_class(pvc))
                out.append(f"PersistentVolumeClaim {pvc.key} would get a new volume provisioned by "
                           f"{sc.provisioner if sc else '?'} (StorageClass {claim_class(pvc)})")
            return out
        for pvc in s.claims.delay:
            out.append(_explain_unplaced(pvc, node, s))
        return out


def _why_unbound(pvc: PersistentVolumeClaim, storage: StorageIndex) -> str:
    """Why the PV controller has not bound an immediate claim (pv_controller.go:syncUnboundClaim),
    and what binds it: the claim's own volume, a matching PV, or its class's provisioner."""
    claim = f"PersistentVolumeClaim {pvc.key}"
    class_name = claim_class(pvc)
    if pvc.volume_name:
        pv = storage.pv(pvc.volume_name)
        if pv is None:
            return f"{claim} names PersistentVolume {pvc.volume_name}, which does not exist: create it, or drop spec.volumeName"
        if pv.claim_ref is not None and not binder.is_volume_bound_to_claim(pv, pvc):
            return (f"{claim} names PersistentVolume {pv.name}, which is bound to {pv.claim_ref.namespace}/"
                    f"{pv.claim_ref.name}: name another volume")
        if binder.controller_match(pvc, [pv]) is None:
            return (f"{claim} names PersistentVolume {pv.name}, which does not satisfy it (capacity, access modes, "
                    "volume mode, class): the PV controller does not bind them")
        return f"{claim} names PersistentVolume {pv.name}, which fits: the PV controller has not finished binding it"
    if binder.controller_match(pvc, storage.claimable_pvs(class_name, pvc.namespace, pvc.name)) is not None:
        return f"{claim} matches an Available PersistentVolume: the PV controller has not bound it yet"
    wanted = _wanted(pvc)
    if not class_name:
        return (f"{claim} names no StorageClass and no Available PersistentVolume without a class matches it "
                f"({wanted}): create one, or name a StorageClass that provisions")
    sc = storage.classes.get(class_name)
    if sc is None:
        return (f"{claim}: StorageClass {class_name} does not exist and no Available PersistentVolume of that "
                f"class matches it ({wanted}): create the class, or name one that exists")
    if not sc.provisioner or sc.provisioner == NOT_SUPPORTED_PROVISIONER:
        return (f"{claim}: StorageClass {class_name} binds at once (Immediate) but does not provision, and no "
                f"Available PersistentVolume of it matches the claim ({wanted}): create one")
    return (f"{claim}: StorageClass {class_name} binds at once (Immediate) through {sc.provisioner}, which has not "
            "provisioned a volume for it yet: see the claim's events (kubectl describe pvc)")


def _wanted(pvc: PersistentVolumeClaim) -> str:
    """What a PV must offer the claim, in the claim's words."""
    size = pvc.requested_storage
    parts = [f"at least {format_amount('ephemeral-storage', value(size))}" if size is not None else "any size"]
    if pvc.access_modes:
        parts.append(", ".join(pvc.access_modes))
    if pvc.selector is not None:
        parts.append("labels its selector matches")
    return ", ".join(parts)


def _explain_bound(pvc: PersistentVolumeClaim, node: NodeInfo, s: VolumeBindingState) -> str:
    """Whether a bound claim's PV (as translated to CSI on this node) accepts the node."""
    bound = f"PersistentVolumeClaim {pvc.key} is bound to PersistentVolume {pvc.volume_name}"
    pv = s.storage.pv(pvc.volume_name) if s.storage else None
    if pv is None or s.claims is None or s.storage is None:
        return f"{bound}, which does not exist"
    try:
        affinity = binder.bound_pv_affinity(pv, s.storage.csi_nodes.get(node.name), s.claims)
    except BinderError as err:
        return f"{bound}, which cannot be checked: {err}"
    migrated = " (as its CSI translation)" if affinity is not pv.node_affinity else ""
    if affinity is not None and not affinity.matches(node.node.labels, ""):
        return f"{bound}, whose node affinity{migrated} excludes this node"
    return bound


def _explain_unplaced(pvc: PersistentVolumeClaim, node: NodeInfo, s: VolumeBindingState) -> str:
    """Why a delayed claim found neither a PV nor provisioning on a rejected node."""
    selected = pvc.annotations.get(ANN_SELECTED_NODE)
    if selected is not None:
        if selected != node.name:
            return f"PersistentVolumeClaim {pvc.key} is being provisioned for node {selected}"
        return f"PersistentVolumeClaim {pvc.key} is being provisioned for this node"
    class_name = claim_class(pvc)
    candidates = s.claims.candidates.get(pvc.key, []) if s.claims else []
    fitting = [c.pv.name for c in candidates if binder.node_affinity_matches(c.pv, node.node)]
    pvs = (f"PersistentVolume(s) {', '.join(fitting)} fit but are taken by the pod's other claims" if fitting
           else f"no available PersistentVolume of StorageClass {class_name} fits on this node")
    sc = s.storage.classes.get(class_name) if s.storage else None
    if sc is None or not sc.provisioner or sc.provisioner == NOT_SUPPORTED_PROVISIONER:
        how = "and the class does not provision volumes"
    elif not binder.topology_matches(sc, node.node.labels):
        how = "and the class's allowedTopologies exclude this node"
    elif s.storage is not None and not binder.has_enough_capacity(sc.provisioner, pvc, sc, node.node, s.storage):
        how = (f"and no CSIStorageCapacity of StorageClass {class_name} reaching this node has room for "
               f"{value(pvc.requested_storage)} bytes" if pvc.requested_storage is not None else "")
    else:
        how = "and it can be provisioned here"
    return f"PersistentVolumeClaim {pvc.key}: {pvs}, {how}"
