"""A workload of the manifests that already runs: its pods in the snapshot, the replica count it
runs with, and what the API server refuses of an update.

An update whose selector differs from the running object's (or a StatefulSet's serviceName or
podManagementPolicy) is refused by the API server (`refused_update`): the running workload stays
as it is."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from kwhatif.api import settings
from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import Container, Controller, Pod
from kwhatif.api.selectors import LabelSelector, written_form
from kwhatif.load.decode import TEMPLATE_METADATA, decode_controller, job_immutables, statefulset_fixed
from kwhatif.workloads.common import Workload
from kwhatif.workloads.templates import tolerations_of

UPDATABLE = ("Deployment", "DaemonSet", "StatefulSet", "ReplicaSet", "ReplicationController", "Job", "Pod")


@dataclass
class PodIndex:
    """The snapshot's live pods by controller: (namespace, controller kind, controller name),
    and by `namespace/name` (a bare Pod of the manifests is the pod of that name), built once so
    that finding a workload's pods does not walk every pod again."""

    by_owner: dict[tuple[str, str, str], list[Pod]] = field(default_factory=dict)
    by_key: dict[str, Pod] = field(default_factory=dict)
    finished: dict[tuple[str, str, str], list[Pod]] = field(default_factory=dict)
    """The pods that succeeded or failed, by controller: a Job's progress (`finished_of`)."""

    @classmethod
    def of(cls, cluster: Cluster) -> PodIndex:
        index = cls()
        for pod in cluster.pods:
            ref = pod.controller_ref
            if pod.phase in ("Succeeded", "Failed"):
                if ref is not None:
                    index.finished.setdefault((pod.namespace, ref.kind, ref.name), []).append(pod)
                continue
            if pod.deletion_timestamp:
                continue
            index.by_key[pod.key] = pod
            if ref is not None:
                index.by_owner.setdefault((pod.namespace, ref.kind, ref.name), []).append(pod)
        return index

    def finished_of(self, w: Workload) -> list[Pod]:
        """The workload's pods that succeeded or failed (a Job's: its progress)."""
        return list(self.finished.get((w.namespace, w.kind, w.name), []))

    def pods_of(self, w: Workload) -> list[Pod]:
        """The workload's running (or pending) pods: a Deployment's through its ReplicaSets
        (`<deployment>-<pod-template-hash>`), a bare Pod's by its name, every other kind's
        directly."""
        if w.kind == "Pod":
            found = self.by_key.get(f"{w.namespace}/{w.name}")
            return [found] if found is not None else []
        if w.kind != "Deployment":
            return list(self.by_owner.get((w.namespace, w.kind, w.name), []))
        prefix = f"{w.name}-"
        return [p for (namespace, kind, name), pods in self.by_owner.items()
                if namespace == w.namespace and kind == "ReplicaSet" and name.startswith(prefix)
                for p in pods if name == prefix + p.labels.get("pod-template-hash", "")]


SCALED = ("Deployment", "ReplicaSet", "StatefulSet", "ReplicationController")


def kept_replicas(objects: Sequence[object], cluster: Cluster, index: PodIndex) -> dict[tuple[str, str, str], int]:
    """The replica counts that stay when workloads that run are applied without `spec.replicas`:
    `kubectl apply` leaves a field the manifest never set as it is (how the Deployments an
    autoscaler scales are written), so the live count stays (`live_replicas`). (Defaulting it
    to 1 would roll out one pod where eight run: a gate that passes falsely.)"""
    out: dict[tuple[str, str, str], int] = {}
    for o in objects:
        if isinstance(o, Workload) and o.kind in SCALED and "replicas" not in o.spec:
            count = live_replicas(cluster, index, o)
            if count is not None:
                out[(o.kind, o.namespace, o.name)] = count
    return out


def live_replicas(cluster: Cluster, index: PodIndex, w: Workload) -> int | None:
    """The replica count of the workload that runs: its object's spec.replicas — a Deployment's
    as its active ReplicaSet's `desired-replicas` annotation says, which counts no surge pod of a
    rollout in progress — else the pods it runs, or 0 for one the snapshot has scaled to zero
    (its ReplicaSet or StatefulSet is there, without pods: KEDA scales to zero); None when the
    snapshot has neither."""
    said = _said_replicas(cluster, w)
    if said is not None:
        return said
    count = len(index.pods_of(w))
    return count if count or _scaled_to_zero(cluster, w) else None


def _said_replicas(cluster: Cluster, w: Workload) -> int | None:
    if w.kind != "Deployment":
        found = cluster.controllers.get((w.kind, w.namespace, w.name))
        return found.replicas if found is not None else None
    said = [rs for rs in _replica_sets(cluster, w) if rs.deployment_replicas is not None]
    if not said:
        return None
    # A set scaled to 0 keeps the annotation of its last sizing: only an active one is current,
    # and with none active the Deployment runs no replica.
    active = [rs for rs in said if rs.replicas]
    return active[0].deployment_replicas if active else 0


def _scaled_to_zero(cluster: Cluster, w: Workload) -> bool:
    """The workload's controller object is in the snapshot (its pods are not): a Deployment's
    ReplicaSet, the others' own."""
    if w.kind != "Deployment":
        return (w.kind, w.namespace, w.name) in cluster.controllers
    return next(_replica_sets(cluster, w), None) is not None


def _replica_sets(cluster: Cluster, w: Workload) -> Iterator[Controller]:
    """A Deployment's ReplicaSets in the snapshot: `<name>-<hash>`, whose selector holds that
    pod-template-hash."""
    prefix = f"{w.name}-"
    return (rs for (kind, namespace, name), rs in cluster.controllers.items()
            if kind == "ReplicaSet" and namespace == w.namespace and name.startswith(prefix)
            and _selected_hash(rs) == name[len(prefix):])


def _selected_hash(rs: Controller) -> str | None:
    """The pod-template-hash a ReplicaSet's selector requires (a Deployment's ReplicaSets all do)."""
    for r in rs.selector.requirements if rs.selector is not None else ():
        if r.key == "pod-template-hash" and r.operator == "In" and len(r.values) == 1:
            return r.values[0]
    return None


IMMUTABLE_SELECTOR = ("Deployment", "DaemonSet", "ReplicaSet", "StatefulSet")
STATEFULSET_FORBIDDEN = ("spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', "
                         "'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' "
                         "and 'minReadySeconds' are forbidden")


def refused_update(cluster: Cluster, w: Workload) -> str | None:
    """What the API server answers `kubectl apply` of a workload that runs when the manifest
    changes its selector, immutable in apps/v1 (the Deployment, DaemonSet and ReplicaSet
    strategies' ValidateUpdate: ValidateImmutableField; ValidateStatefulSetUpdate forbids every
    spec field but a few) — None when it accepts the update. Refused, the change never reaches
    the cluster: a gate that judged the pods it would have made would pass a deploy that fails."""
    if w.kind not in IMMUTABLE_SELECTOR:
        return None
    fixed = _changed_statefulset_field(cluster, w)
    if fixed is not None:
        return fixed
    found = _running_selector(cluster, w)
    if found is None or found[1] is None or found[1] == written_form(w.spec.get("selector")):
        return None
    running = found[0]
    reason = (STATEFULSET_FORBIDDEN if w.kind == "StatefulSet"
              else f"spec.selector: Invalid value: {settings.canonical(w.spec.get('selector'))}: field is immutable")
    return (f'The {w.kind} "{w.name}" is invalid: {reason} (the running {w.kind} selects {running.describe()}; '
            "to change its selector, delete it and create it again)")


def _changed_statefulset_field(cluster: Cluster, w: Workload) -> str | None:
    """The refusal of a StatefulSet update that changes its serviceName, podManagementPolicy or
    a claim template (`decode.statefulset_fixed`)."""
    running = cluster.controllers.get((w.kind, w.namespace, w.name)) if w.kind == "StatefulSet" else None
    if running is None or not running.fixed:
        return None
    was, wanted = dict(running.fixed), dict(statefulset_fixed(w.fields, w.spec))
    recreate = ("to change it, delete the StatefulSet — `kubectl delete --cascade=orphan` keeps its pods — and "
                "create it again")
    templates_was, templates_wanted = _claim_templates(was), _claim_templates(wanted)
    for template in [*templates_was, *templates_wanted]:
        if (template in templates_was) != (template in templates_wanted):
            said = (f"has no {template}, which the manifest adds" if template in templates_wanted
                    else f"has {template}, which the manifest drops")
            return (f'The StatefulSet "{w.name}" is invalid: {STATEFULSET_FORBIDDEN} (the running StatefulSet {said}; '
                    f"{recreate})")
    for key in dict.fromkeys([*was, *wanted]):
        one_sided = key not in was or key not in wanted
        if was.get(key) != wanted.get(key) and not (one_sided and TEMPLATE_METADATA in key):
            resize = ".resources." in key and "volumeClaimTemplates" in key
            how = ("to resize, patch each claim (its StorageClass must allow volume expansion), or delete the "
                   "StatefulSet — `kubectl delete --cascade=orphan` keeps its pods — and create it again") if resize \
                else recreate
            return (f'The StatefulSet "{w.name}" is invalid: {STATEFULSET_FORBIDDEN} (the running StatefulSet has '
                    f"{key} {_shown(was.get(key))}, the manifest {_shown(wanted.get(key))}; {how})")
    return None


def _claim_templates(fixed: Mapping[str, str]) -> list[str]:
    """The claim templates (`volumeClaimTemplates[name]`) that `statefulset_fixed`'s keys name."""
    return list(dict.fromkeys(key.split("]")[0] + "]" for key in fixed if key.startswith("volumeClaimTemplates[")))


def _shown(value: str | None) -> str:
    return "none" if value is None else repr(value)


def _running_selector(cluster: Cluster, w: Workload) -> tuple[LabelSelector, Mapping[str, Any] | None] | None:
    """The selector of the workload that runs, when the snapshot has its object — a Deployment's:
    its ReplicaSet's, less the pod-template-hash the Deployment controller adds to its
    matchLabels —, and its written form (what immutability is judged on; every object decoded
    from a snapshot has it)."""
    if w.kind == "DaemonSet":
        kept = cluster.daemonsets.get((w.namespace, w.name))
        found = decode_controller(dict(kept.manifest), kept.source) if kept is not None else None
    elif w.kind != "Deployment":
        found = cluster.controllers.get((w.kind, w.namespace, w.name))
    else:
        rs = next(_replica_sets(cluster, w), None)
        if rs is None or rs.selector is None:
            return None
        selector = LabelSelector(tuple(r for r in rs.selector.requirements if r.key != "pod-template-hash"))
        return selector, _without_template_hash(rs.written_selector)
    if found is None or found.selector is None:
        return None
    return found.selector, found.written_selector


def _without_template_hash(written: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    if written is None or not isinstance(written.get("matchLabels"), dict):
        return written
    labels = {k: v for k, v in written["matchLabels"].items() if k != "pod-template-hash"}
    return written_form({**written, "matchLabels": labels})


POD_SPEC_REFUSED = (
    'The Pod "{name}" is invalid: spec: Forbidden: pod updates may not change fields other than '
    "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` "
    "(only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it "
    "was previously negative) (to change the rest, delete the pod and create it again)")


def as_pod_update_leaves(running: Pod, manifest: Pod) -> Pod:
    """The manifest with what an update of a running bare Pod may change set as it runs
    (ValidatePodUpdate): its labels and annotations, its containers' images, its tolerations when
    the manifest only adds some. Still not carried by the running pod, the manifest changes
    something else of its spec, which the API server refuses (`POD_SPEC_REFUSED`)."""
    images = {(init, c.name): c.image for init, group in ((True, running.init_containers), (False, running.containers))
              for c in group}

    def as_running(c: Container, init: bool) -> Container:
        return replace(c, image=images.get((init, c.name), c.image))
    added_only = set(tolerations_of(running)) <= set(tolerations_of(manifest))
    return manifest.evolve(
        labels=running.labels, annotations=running.annotations,
        tolerations=running.tolerations if added_only else manifest.tolerations,
        containers=tuple(as_running(c, False) for c in manifest.containers),
        init_containers=tuple(as_running(c, True) for c in manifest.init_containers))


def job_refusal(cluster: Cluster, w: Workload, changed: bool) -> str | None:
    """What the API server answers a Job update: its template is immutable (`changed`: its pods
    tell a new one), and so, judged against the snapshot's Job object, are its completionMode,
    podFailurePolicy, backoffLimitPerIndex and completions (ValidateJobSpecUpdate) but for an
    Indexed Job's set to its new parallelism (validateCompletions, elastic Indexed Jobs). A
    field the manifest leaves unset is left as it runs."""
    if changed:
        return JOB_TEMPLATE_REFUSED.format(name=w.name)
    live = cluster.jobs.get((w.namespace, w.name))
    if live is None:
        return None
    f, spec, prefix = w.fields, w.spec, f'The Job "{w.name}" is invalid: spec.'
    mode = f.str(spec, "completionMode", "spec") if "completionMode" in spec else None
    if mode and (mode == "Indexed") != live.indexed:
        return f"{prefix}completionMode: Invalid value: {mode!r}: field is immutable"
    running = dict(live.immutable)
    for key, written in job_immutables(spec):  # one the manifest leaves unset stays as it runs
        if running.get(key) != written:
            return f"{prefix}{key}: Invalid value: {written}: field is immutable"
    completions = f.int(spec, "completions", "spec") if "completions" in spec else live.completions
    if completions == live.completions:
        return None
    if not live.indexed:
        return f"{prefix}completions: Invalid value: {completions}: field is immutable"
    if completions != f.int(spec, "parallelism", "spec", live.parallelism):
        return f"{prefix}completions: Invalid value: {completions}: can only be modified in tandem with spec.parallelism"
    return None


JOB_TEMPLATE_REFUSED = ('The Job "{name}" is invalid: spec.template: Invalid value: the new pod template: field is '
                        "immutable (a Job's pod template cannot change once it runs; delete the Job and create it "
                        "again, or give the new one another name)")
"""ValidateJobSpecUpdate: a running Job's template is immutable (but for the scheduling
directives of a suspended Job that never started)."""


HELM_HOOK = "helm.sh/hook"
HELM_HOOK_DELETE_POLICY = "helm.sh/hook-delete-policy"


def recreated_by_helm(w: Workload) -> bool:
    """A Helm hook (a chart's migration Job) whose delete policy is before-hook-creation — Helm's
    default when none is set: Helm deletes the one that ran and creates it anew, never updates it,
    so it is a new workload, not an update (a Job's template would be immutable)."""
    annotations = w.fields.str_map(w.metadata, "annotations", "metadata")
    if HELM_HOOK not in annotations:
        return False
    policies = [p.strip() for p in annotations.get(HELM_HOOK_DELETE_POLICY, "").split(",") if p.strip()]
    return not policies or "before-hook-creation" in policies


def exists(cluster: Cluster, index: PodIndex, w: Workload) -> tuple[bool, list[Pod]]:
    """Whether the workload runs in the snapshot (its object is there, or pods it owns), and its pods."""
    pods = index.pods_of(w) if w.kind in UPDATABLE else []
    finished = w.kind == "Job" and not pods and ((w.namespace, w.name) in cluster.jobs
                                                 or bool(index.finished_of(w)))  # a Job that ran its course
    return bool(pods) or finished or (w.kind, w.namespace, w.name) in cluster.controllers and w.kind in UPDATABLE, pods
