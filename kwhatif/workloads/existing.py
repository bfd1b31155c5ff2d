"""A workload of the manifests that already runs: its pods in the snapshot, whether its template
changed, and the update strategy its controller follows (read from the manifest, validated as
the API server validates it).

The controllers tell a changed template by its hash (`pod-template-hash`,
`controller-revision-hash`), computed from the Go printout of the template, which cannot be
reproduced offline. kwhatif compares instead what the running pods carry that the template
sets: containers (image, requests, limits, ports), labels (minus the ones controllers add),
nodeSelector, affinity (a DaemonSet's per-node pinning aside), tolerations (minus the ones the
DefaultTolerationSeconds admission plugin adds), spread constraints, priority class, runtime
class, scheduler and hostNetwork — the template as admission stores it (`check.updates`), with
label keys merged into selectors left out — and the template's annotations, which the running
pods carry (values, or their digests in a redacted snapshot; one they lack was added), and the env vars, envFrom, command and
args its containers set (`_same_settings`), the volumes scheduling reads (kind and reference:
claims, disks, `_same_volumes`), resource claims and nodeName. Equal: the template is
"unchanged". Containers, labels, nodeSelector entries, tolerations, env vars and volumes that
only the running pods have were added after the template (a mesh's sidecar and labels, a
queue's nodeSelector, an admission plugin's toleration: `_carries`), not a change of it. Not
seen: probes, lifecycle hooks, volume mounts and the rest no scheduler reads; what a template
drops; schedulingGates (a running pod has had its gates removed, whatever its template says):
a change there alone reads as "unchanged".

An update whose selector differs from the running object's (or a StatefulSet's serviceName or
podManagementPolicy) is refused by the API server (`refused_update`): the running workload stays
as it is."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Callable, TypeVar

from kwhatif.api.cluster import Cluster
from kwhatif.api import settings
from kwhatif.api.affinity import Affinity, PodAffinityRules, PodAffinityTerm
from kwhatif.api.meta import value_digest
from kwhatif.api.objects import INLINE_DISK_IDS, Container, Controller, Pod
from kwhatif.api.quantity import QuantityError, parse_quantity
from kwhatif.api.selectors import LabelSelector, written_form
from kwhatif.plugins.registry import DEFAULT_SCHEDULER_NAME
from kwhatif.load.spec_checks import PERCENT_MESSAGE
from kwhatif.load.decode import TEMPLATE_METADATA, decode_controller, job_immutables, statefulset_fixed
from kwhatif.workloads.common import REVISION_LABEL, Workload
from kwhatif.workloads.job import INDEX_KEY

# Labels a controller adds to the pods it creates, never part of the template.
CONTROLLER_LABELS = frozenset({
    "pod-template-hash", REVISION_LABEL, "pod-template-generation",
    "statefulset.kubernetes.io/pod-name", "apps.kubernetes.io/pod-index",
    "batch.kubernetes.io/controller-uid", "controller-uid", "batch.kubernetes.io/job-name", "job-name",
    INDEX_KEY,
})
CONTROLLER_ANNOTATIONS = frozenset({INDEX_KEY})
"""Annotations a controller sets per pod (an Indexed Job's completion index), never the template's."""
# Tolerations the DefaultTolerationSeconds admission plugin adds to every pod without them.
ADMISSION_TOLERATIONS = frozenset({"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"})
UPDATABLE = ("Deployment", "DaemonSet", "StatefulSet", "ReplicaSet", "ReplicationController", "Job", "Pod")


@dataclass(frozen=True)
class Strategy:
    """How the controller replaces pods: `kind` is RollingUpdate, Recreate or OnDelete (or
    "" for controllers that never replace a running pod: ReplicaSet, ReplicationController,
    Job); `max_surge` / `max_unavailable` resolved against the desired count; `partition` for
    StatefulSets; `parallel` for a StatefulSet with podManagementPolicy Parallel."""

    kind: str
    max_surge: int = 0
    max_unavailable: int = 1
    partition: int = 0
    parallel: bool = False


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
    added_only = set(_tolerations(running)) <= set(_tolerations(manifest))
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


def _tolerations(pod: Pod) -> tuple[Any, ...]:
    return tuple(t for t in pod.tolerations if not (t.key in ADMISSION_TOLERATIONS and t.effect == "NoExecute"))


def _without_merged_keys(selector: LabelSelector | None, match: tuple[str, ...],
                         mismatch: tuple[str, ...] = ()) -> LabelSelector | None:
    """A selector without what the create strategy merged into it from the pod's own labels
    (`key In [value]` for matchLabelKeys, `NotIn` for mismatchLabelKeys): those values differ
    from one revision to the next (pod-template-hash) while the template does not."""
    if selector is None or not (match or mismatch):
        return selector
    return LabelSelector(tuple(r for r in selector.requirements if not (
        (r.key in match and r.operator == "In") or (r.key in mismatch and r.operator == "NotIn"))))


def _term(term: PodAffinityTerm) -> PodAffinityTerm:
    return replace(term, label_selector=_without_merged_keys(term.label_selector, term.match_label_keys,
                                                             term.mismatch_label_keys))


def _rules(rules: PodAffinityRules | None) -> PodAffinityRules | None:
    if rules is None:
        return None
    return PodAffinityRules(tuple(map(_term, rules.required)),
                            tuple(replace(w, term=_term(w.term)) for w in rules.preferred))


def template_signature(pod: Pod, kind: str) -> tuple[Any, ...]:
    """What of a pod its template decides and nothing adds to (see the module docstring),
    label-key merges aside: compared whole. Containers, labels, nodeSelector and tolerations,
    which webhooks and admission add to, are compared by `_carries`."""
    affinity = pod.affinity
    if kind == "DaemonSet" and affinity is not None:  # the node affinity is the controller's pinning
        unpinned = affinity.__class__(None, affinity.pod_affinity, affinity.pod_anti_affinity)
        affinity = unpinned if unpinned.pod_affinity or unpinned.pod_anti_affinity else None
    if affinity is not None:
        affinity = replace(affinity, pod_affinity=_rules(affinity.pod_affinity),
                           pod_anti_affinity=_rules(affinity.pod_anti_affinity))
    spread = tuple(replace(c, label_selector=_without_merged_keys(c.label_selector, c.match_label_keys))
                   for c in pod.topology_spread_constraints)
    claims = sorted((str(c.get("name", "")), str(c.get("resourceClaimName") or ""),
                     str(c.get("resourceClaimTemplateName") or "")) for c in pod.resource_claims)
    return (affinity, spread, pod.priority_class_name, pod.runtime_class_name or "", pod.scheduler_name,
            pod.host_network, claims)


def _containers(pod: Pod) -> dict[tuple[bool, str], tuple[Any, ...]]:
    return {(init, c.name): (c.image, sorted(c.requests.items()), sorted(c.limits.items()), c.ports, c.restart_policy)
            for init, group in ((True, pod.init_containers), (False, pod.containers)) for c in group}


def _carries(running: Pod, template: Pod) -> bool:
    """The running pod has each container the template sets, alike (image, requests, limits,
    ports), and its labels (but the controllers'), nodeSelector entries and tolerations (but
    the DefaultTolerationSeconds ones). What only the running pod has was added after the
    template — a mesh's sidecar container and labels (Istio), a queue's nodeSelector (Kueue),
    ExtendedResourceToleration's toleration —, not a change of it."""
    have = _containers(running)
    if any(have.get(key) != value for key, value in _containers(template).items()):
        return False
    labels, selector = running.labels, running.node_selector or {}
    if any(labels.get(k) != v for k, v in template.labels.items() if k not in CONTROLLER_LABELS):
        return False
    if any(selector.get(k) != v for k, v in (template.node_selector or {}).items()):
        return False
    return set(_tolerations(template)) <= set(running.tolerations)


KEPT_BY_APPLY = frozenset({"kubectl.kubernetes.io/restartedAt"})
"""Template annotations another hand sets (`kubectl rollout restart`): an apply of a manifest that
never set them keeps them (a three-way merge removes only what the last apply set)."""


def as_last_applied(template: Pod, applied: Pod) -> Pod:
    """The live template less what the last `kubectl apply` did not write (`applied`, its
    last-applied-configuration's): a three-way merge (strategicpatch CreateThreeWayMergePatch)
    removes only what that apply set and the manifest leaves out; what another hand set — a
    mutating webhook on the workload, `kubectl patch`, `kubectl rollout restart` — stays, in maps
    and in lists merged by a key (containers, env, volumes). Tolerations are an atomic list: one
    the apply wrote is replaced whole by the manifest's, another hand's entries with it."""
    written = {c.name: set(dict(c.settings or ())) for c in (*applied.init_containers, *applied.containers)}
    names = set(_containers(applied))

    def kept(c: Container) -> Container:
        return replace(c, settings=tuple((k, v) for k, v in c.settings if k in written[c.name])
                       if c.settings is not None else None)
    volumes = {v.get("name") for v in applied.volumes}
    return template.evolve(
        labels={k: v for k, v in template.labels.items() if k in applied.labels},
        annotations={k: v for k, v in template.annotations.items() if k in applied.annotations},
        node_selector={k: v for k, v in (template.node_selector or {}).items() if k in (applied.node_selector or {})},
        tolerations=template.tolerations if applied.tolerations else (),
        volumes=tuple(v for v in template.volumes if v.get("name") in volumes),
        containers=tuple(kept(c) for c in template.containers if (False, c.name) in names),
        init_containers=tuple(kept(c) for c in template.init_containers if (True, c.name) in names))


def kept_by_apply(manifest: Pod, live: Pod, applied: Pod) -> Pod:
    """The manifest's pod as `kubectl apply` leaves its template: a three-way merge
    (strategicpatch CreateThreeWayMergePatch) of the last apply's (`applied`), the manifest and
    the live template (`live`) keeps what another hand set — `kubectl patch`, `kubectl set
    resources`, a webhook on the workload — wherever neither the last apply nor the manifest
    writes it: map entries (labels, annotations, nodeSelector, a container's requests and
    limits), entries of lists merged by a key (containers and volumes by name, ports by
    containerPort, spread constraints by topologyKey), and fields set whole (node affinity, pod
    affinity and anti-affinity, the tolerations — an atomic list —, priorityClassName,
    runtimeClassName, schedulerName, hostNetwork). Without them a manifest applied again would
    read as a new template, and a rollout's pods would lack a toleration or an affinity the
    new ReplicaSet's pods will have."""
    affinity = _kept_affinity(manifest, live, applied)
    return manifest.evolve(
        labels=_kept_entries(manifest.labels, applied.labels, live.labels),
        annotations=_kept_entries(manifest.annotations, applied.annotations, live.annotations),
        node_selector=_kept_entries(manifest.node_selector or {}, applied.node_selector or {},
                                    live.node_selector or {}) or manifest.node_selector,
        tolerations=_kept_whole(manifest.tolerations, applied.tolerations, live.tolerations, ()),
        affinity=affinity,
        topology_spread_constraints=_kept_items(manifest.topology_spread_constraints,
                                                applied.topology_spread_constraints,
                                                live.topology_spread_constraints, lambda c: c.topology_key),
        priority_class_name=_kept_whole(manifest.priority_class_name, applied.priority_class_name,
                                        live.priority_class_name, ""),
        runtime_class_name=_kept_whole(manifest.runtime_class_name, applied.runtime_class_name,
                                       live.runtime_class_name, None),
        scheduler_name=_kept_whole(manifest.scheduler_name, applied.scheduler_name, live.scheduler_name,
                                   DEFAULT_SCHEDULER_NAME),
        host_network=_kept_whole(manifest.host_network, applied.host_network, live.host_network, False),
        volumes=_kept_items(manifest.volumes, applied.volumes, live.volumes, lambda v: v.get("name")),
        containers=_kept_containers(manifest.containers, applied.containers, live.containers),
        init_containers=_kept_containers(manifest.init_containers, applied.init_containers, live.init_containers))


_K = TypeVar("_K")
_V = TypeVar("_V")


def _kept_entries(mine: Mapping[_K, _V], written: Mapping[_K, _V], live: Mapping[_K, _V]) -> Mapping[_K, _V]:
    """A map merged: the manifest's entries, and the live ones of keys neither it nor the last
    apply has (the manifest's own map when none: replicas share theirs)."""
    kept = {k: v for k, v in live.items() if k not in mine and k not in written}
    return {**mine, **kept} if kept else mine


def _kept_items(mine: tuple[_V, ...], written: Sequence[_V], live: Sequence[_V], key: Callable[[_V], object]
                ) -> tuple[_V, ...]:
    """A list merged by a key: the manifest's items, then the live ones of keys neither it nor
    the last apply has."""
    taken = {key(item) for item in (*mine, *written)}
    return (*mine, *(item for item in live if key(item) not in taken))


def _kept_whole(mine: _V, written: _V, live: _V, unset: _V) -> _V:
    """A field set whole: the live value when neither the manifest nor the last apply sets it."""
    return live if mine == unset and written == unset else mine


def _kept_affinity(manifest: Pod, live: Pod, applied: Pod) -> Affinity | None:
    """Affinity is a struct: each of its three parts merged whole."""
    if live.affinity is None:
        return manifest.affinity
    parts = [_kept_whole(getattr(manifest.affinity, part, None), getattr(applied.affinity, part, None),
                         getattr(live.affinity, part), None)
             for part in ("node_affinity", "pod_affinity", "pod_anti_affinity")]
    return Affinity(*parts) if any(p is not None for p in parts) else None


def _kept_containers(mine: tuple[Container, ...], written: tuple[Container, ...], live: tuple[Container, ...]
                     ) -> tuple[Container, ...]:
    """Containers merged by name: the live ones neither the manifest nor the last apply names,
    and within one the manifest names, its requests, limits and ports merged."""
    lives = {c.name: c for c in live}
    writtens = {c.name: c for c in written}

    def merged(c: Container) -> Container:
        there, wrote = lives.get(c.name), writtens.get(c.name, Container(c.name))
        if there is None:
            return c
        return replace(c, requests=_kept_entries(c.requests, wrote.requests, there.requests),
                       limits=_kept_entries(c.limits, wrote.limits, there.limits),
                       ports=_kept_items(c.ports, wrote.ports, there.ports, lambda p: p.container_port))
    return _kept_items(tuple(merged(c) for c in mine), written, live, lambda c: c.name)


def drops_from(template: Pod, manifest: Pod) -> bool:
    """Whether the manifest's template leaves out something the running controller's own
    template sets — a container, a label, an annotation, a nodeSelector entry, a toleration, an
    env var (or sets it otherwise), a volume. The controllers compare whole templates (the
    Deployment controller's EqualIgnoreHash, a StatefulSet's revision hash), so the manifest is a
    new template; compared with the pods alone, whose extras are taken as a webhook's
    (`_carries`), a removal read as no change. (`as_last_applied` first, when the snapshot says
    what the last apply wrote.)"""
    if not set(_containers(template)) <= set(_containers(manifest)):
        return True
    if any(manifest.labels.get(k) != v for k, v in template.labels.items() if k not in CONTROLLER_LABELS):
        return True
    selector = manifest.node_selector or {}
    if any(selector.get(k) != v for k, v in (template.node_selector or {}).items()):
        return True
    if not set(_tolerations(template)) <= set(_tolerations(manifest)):
        return True
    written = {k: v for k, v in template.annotations.items() if k not in CONTROLLER_ANNOTATIONS | KEPT_BY_APPLY}
    if any(template_value not in (manifest.annotations.get(k), value_digest(manifest.annotations.get(k) or ""))
           for k, template_value in written.items()):
        return True
    volumes = {v.get("name") for v in manifest.volumes}
    return any(v.get("name") not in volumes for v in template.volumes) or _drops_settings(template, manifest)


def _drops_settings(template: Pod, manifest: Pod) -> bool:
    """An env var, envFrom, command or args the template's container sets that the manifest's
    container of that name does not set alike (the template's read plainly, or redacted)."""
    wanted = {c.name: dict(c.settings) for c in (*manifest.init_containers, *manifest.containers)
              if c.settings is not None}
    for container in (*template.init_containers, *template.containers):
        theirs = wanted.get(container.name)
        if theirs is None or container.settings is None:
            continue
        if any(key != settings.ORDER and (key not in theirs or not settings.matches(key, theirs[key], value))
               for key, value in container.settings):
            return True
    return False


def with_injected(pod: Pod, running: Pod, template: Pod | None) -> Pod:
    """A new pod of a changed template with the containers (sidecars among the init containers
    too) a mutating webhook added to the running pod — a mesh's proxy, a log shipper: it adds
    them to the new ones as well, and left out, each new pod would ask for less than it will.
    Injected: what the running pod runs that its own template (`template`, its controller's;
    None when the snapshot lacks it) does not set — one the new template drops or renames is not
    put back —, and never a name the new pod has in either list (a sidecar moved to the init
    containers)."""
    names = {c.name for c in (*pod.init_containers, *pod.containers)}
    own = set(_containers(template)) if template is not None else None

    def injected(init: bool, name: str) -> bool:
        return name not in names and (own is None or (init, name) not in own)
    init = tuple(c for c in running.init_containers if injected(True, c.name))
    regular = tuple(c for c in running.containers if injected(False, c.name))
    if not init and not regular:
        return pod
    return pod.evolve(init_containers=init + pod.init_containers, containers=pod.containers + regular)


LIMIT_RANGER_ANNOTATION = "kubernetes.io/limit-ranger"
_LIMIT_RANGER_SAID = "LimitRanger plugin set: "
_LIMIT_RANGER_SET = re.compile(r"(.+) (request|limit) for (container|init container) (.+)")


def without_limit_ranger_defaults(pod: Pod) -> Pod:
    """The pod less the requests and limits LimitRanger set as it was created, which its
    annotation lists (limitranger admission.go mergeContainerResources: `LimitRanger plugin
    set: cpu, memory request for container app; cpu limit for init container setup`): the
    resources its template wrote, whatever the namespace's LimitRange says today."""
    said = pod.annotations.get(LIMIT_RANGER_ANNOTATION, "")
    if not said.startswith(_LIMIT_RANGER_SAID):
        return pod
    set_by: dict[tuple[bool, str, str], set[str]] = {}  # (init?, container, request|limit) -> resources
    for part in said[len(_LIMIT_RANGER_SAID):].split("; "):
        found = _LIMIT_RANGER_SET.fullmatch(part)
        if found is not None:
            names, what, kind, container = found.groups()
            set_by.setdefault((kind == "init container", container, what), set()).update(names.split(", "))

    def unset(c: Container, init: bool) -> Container:
        requests, limits = set_by.get((init, c.name, "request"), set()), set_by.get((init, c.name, "limit"), set())
        return replace(c, requests={k: v for k, v in c.requests.items() if k not in requests},
                       limits={k: v for k, v in c.limits.items() if k not in limits})

    return pod.evolve(containers=tuple(unset(c, False) for c in pod.containers),
                      init_containers=tuple(unset(c, True) for c in pod.init_containers))


def carrying_template(old: Sequence[Pod], new: Sequence[Pod], kind: str) -> list[Pod]:
    """The running pods that carry what the manifest's template would give them (all of them
    when the manifest makes no pod): the template is unchanged when every pod does; some do
    when a rollout to this template is in progress, and their controller keeps them. A
    StatefulSet's pod is compared with the manifest's pod of its name: their claims are the
    ordinal's (`<template>-<set>-<ordinal>`)."""
    if not new:
        return list(old)
    wanted = template_signature(new[0], kind)
    annotations = {k: v for k, v in new[0].annotations.items() if k not in CONTROLLER_ANNOTATIONS}
    by_name = {p.name: p for p in new} if kind == "StatefulSet" else {}
    return [p for p in old if template_signature(p, kind) == wanted
            and _same_annotations(p.annotations, annotations)
            and _carries(p, new[0]) and _same_settings(p, new[0])
            and (_same_volumes(p, by_name[p.name]) if p.name in by_name else kind == "StatefulSet" or
                 _same_volumes(p, new[0]))
            and new[0].node_name in ("", p.node_name)]


_VOLUME_REFERENCE = {"persistentVolumeClaim": "claimName", **INLINE_DISK_IDS}
"""Per volume source scheduling reads (the only ones a loaded pod keeps), the field naming what
it mounts: compared, the defaulted rest (fsType, readOnly...) not."""


def _volume_identity(volume: Mapping[str, Any]) -> tuple[str, str]:
    """(source kind, what it refers to — an ephemeral volume's class and size): a volume as a
    template sets it and as the API server stores it (with defaults such as defaultMode filled
    in) compare alike."""
    kind = next((k for k in sorted(volume) if k != "name"), "")
    source = volume.get(kind)
    if not isinstance(source, Mapping):
        return kind, ""
    if kind == "ephemeral":
        spec = (source.get("volumeClaimTemplate") or {}).get("spec") or {}
        size = ((spec.get("resources") or {}).get("requests") or {}).get("storage", "")
        return kind, f"{spec.get('storageClassName') or ''}/{_canonical_size(size)}"
    return kind, str(source.get(_VOLUME_REFERENCE.get(kind, ""), ""))


def _canonical_size(size: object) -> str:
    """A size as the API server stores it compares with the same size written otherwise
    (1024Mi is 1Gi): by its value."""
    try:
        return str(parse_quantity(str(size)))
    except QuantityError:
        return str(size)


def _same_volumes(running: Pod, template: Pod) -> bool:
    """Each volume the template sets, the running pod has, of the same kind and reference (a
    claim's name, a disk's id: what VolumeBinding, VolumeZone, VolumeRestrictions and the volume
    limits read; the pods keep no other volume, `SCHEDULING_VOLUME_SOURCES`). Volumes only the
    running pod has are taken as injected, not as a change."""
    have = {v.get("name"): _volume_identity(v) for v in running.volumes}
    return all(have.get(v.get("name")) == _volume_identity(v) for v in template.volumes)


def _same_settings(running: Pod, template: Pod) -> bool:
    """Each env var, envFrom, command and args the template's containers set, the running pod's
    containers of the same name set alike (`kwhatif.api.settings`; a digest of a redacted
    snapshot matches). What only the running pod sets is taken as injected (an admission webhook
    adds env vars), not as a change; a container whose settings were never read (one made by
    kwhatif itself) tells nothing."""
    have = {c.name: c.settings for c in (*running.init_containers, *running.containers)}
    for container in (*template.init_containers, *template.containers):
        known = have.get(container.name)
        if known is None or container.settings is None:
            continue
        found = dict(known)
        if not all(key in found and settings.matches(key, wanted, found[key]) for key, wanted in container.settings):
            return False
    return True


def _same_annotations(running: Mapping[str, str], template: Mapping[str, str]) -> bool:
    """The template's annotations, on the running pod with the same values (or their digests,
    in a redacted snapshot): a Helm `checksum/config` or a `kubectl rollout restart` stamp
    changes the template — added (the first restart) or changed —, and its controller rolls the
    pods, which carry every annotation of the template they were made from. (A snapshot that
    dropped the pods' annotations makes every annotated template read as changed: a rollout
    simulated, never one missed.)"""
    return all(running.get(key) in (value, value_digest(value)) for key, value in template.items())


def scaled(w: Workload, parent: dict[str, Any], key: str, path: str, default: object, total: int,
           round_up: bool, at_most_all: bool = False) -> int:
    """intstr.GetScaledValueFromIntOrPercent: an int, or a percent of `total` rounded up or down
    (null: the default). `at_most_all`: a percentage above 100 is refused (validation.go:IsNotMoreThan100Percent)."""
    f = w.fields
    raw = parent.get(key)
    raw = default if raw is None else raw
    if isinstance(raw, int) and not isinstance(raw, bool):
        value = raw
    elif isinstance(raw, str) and re.fullmatch(r"[0-9]+%", raw):
        percent = int(raw[:-1])
        if at_most_all and percent > 100:
            raise f.error(f"{path}.{key}", f"Invalid value: {_int_or_string(raw)}: must not be greater than 100%")
        value = -(-total * percent // 100) if round_up else total * percent // 100
    elif isinstance(raw, str):  # ValidatePositiveIntOrPercent: IsValidPercent
        raise f.error(f"{path}.{key}", f"Invalid value: {_int_or_string(raw)}: {PERCENT_MESSAGE}")
    else:
        raise f.error(f"{path}.{key}", f"Invalid value: {settings.canonical(raw)}: must be an integer or a percentage "
                      "(e.g. '25%')")
    if value < 0:
        raise f.error(f"{path}.{key}", f"Invalid value: {value}: must be greater than or equal to 0")
    return value


def _strategy_map(w: Workload, key: str) -> tuple[str, dict[str, Any], str]:
    f = w.fields
    strategy = f.map(w.spec, key, "spec")
    kind = f.str(strategy, "type", f"spec.{key}") or "RollingUpdate"
    return kind, f.map(strategy, "rollingUpdate", f"spec.{key}"), f"spec.{key}.rollingUpdate"


def _check_type(w: Workload, key: str, kind: str, allowed: tuple[str, str]) -> None:
    if kind not in allowed:
        raise w.fields.error(f"spec.{key}.type", f"Unsupported value: {kind!r}: supported values: "
                                                  f"\"{allowed[0]}\", \"{allowed[1]}\"")


def _zero(raw: object) -> bool:
    """validation.go getIntOrPercentValue(...) == 0: the value as written (0 or "0%"), not
    scaled; unset (null) is the default, 25%."""
    return raw == 0 or raw == "0%"


def _int_or_string(value: object) -> str:
    """An IntOrString in a field.Invalid error: apimachinery's ErrorBody prints a value whose
    pointer is a fmt.Stringer by its String() — a percentage as written, unquoted, a number in
    decimal (field/errors.go, intstr.go)."""
    return str(value)


def deployment_strategy(w: Workload, desired: int) -> Strategy:
    """deployment_util.go: MaxSurge rounds up, MaxUnavailable down (ResolveFenceposts); both 0
    is refused by the API server (validation.go ValidateRollingUpdateDeployment)."""
    kind, rolling, path = _strategy_map(w, "strategy")
    _check_type(w, "strategy", kind, ("Recreate", "RollingUpdate"))
    if kind == "Recreate":
        if (w.spec.get("strategy") or {}).get("rollingUpdate") is not None:  # ValidateDeploymentStrategy (null: unset)
            raise w.fields.error("spec.strategy.rollingUpdate",
                                 "Forbidden: may not be specified when strategy `type` is 'Recreate'")
        return Strategy(kind)
    surge = scaled(w, rolling, "maxSurge", path, "25%", desired, True)
    unavailable = scaled(w, rolling, "maxUnavailable", path, "25%", desired, False, at_most_all=True)
    if _zero(rolling.get("maxSurge")) and _zero(rolling.get("maxUnavailable")):
        raise w.fields.error(f"{path}.maxUnavailable", f"Invalid value: {_int_or_string(rolling.get('maxUnavailable'))}: "
                             "may not be 0 when `maxSurge` is 0")
    if surge == 0 and unavailable == 0:
        unavailable = 1  # ResolveFenceposts: a percentage rounded down to 0 with no surge
    return Strategy(kind, surge, unavailable)


def daemonset_strategy(w: Workload, desired: int) -> Strategy:
    """daemon/util: SurgeCount and UnavailableCount both round up; default maxUnavailable 1,
    maxSurge 0; exactly one of them non-zero as written (validation.go
    ValidateRollingUpdateDaemonSet — a maxSurge beside the default maxUnavailable is refused), and a
    percentage that rounds to 0 on both acts as maxUnavailable 1 (update.go updatedDesiredNodeCounts)."""
    kind, rolling, path = _strategy_map(w, "updateStrategy")
    _check_type(w, "updateStrategy", kind, ("OnDelete", "RollingUpdate"))
    if kind == "OnDelete":
        return Strategy(kind)
    surge = scaled(w, rolling, "maxSurge", path, 0, desired, True, at_most_all=True)
    unavailable = scaled(w, rolling, "maxUnavailable", path, 1, desired, True, at_most_all=True)
    written_surge, written_unavailable = rolling.get("maxSurge"), rolling.get("maxUnavailable")
    has_surge = written_surge is not None and not _zero(written_surge)
    if has_surge and (written_unavailable is None or not _zero(written_unavailable)):
        raise w.fields.error(f"{path}.maxSurge", f"Invalid value: {_int_or_string(written_surge)}: may not be set "
                             "when maxUnavailable is non-zero")
    if not has_surge and written_unavailable is not None and _zero(written_unavailable):
        raise w.fields.error(f"{path}.maxUnavailable", "Required value: cannot be 0 when maxSurge is 0")
    if desired and surge == 0 and unavailable == 0:
        unavailable = 1
    return Strategy(kind, surge, unavailable)


def statefulset_strategy(w: Workload) -> Strategy:
    """stateful_set_control.go updateStatefulSet: ordinals at or above `partition` are updated,
    one at a time (maxUnavailable needs the MaxUnavailableStatefulSet gate, off in v1.34)."""
    kind, rolling, path = _strategy_map(w, "updateStrategy")
    _check_type(w, "updateStrategy", kind, ("OnDelete", "RollingUpdate"))
    if kind == "OnDelete" and (w.spec.get("updateStrategy") or {}).get("rollingUpdate") is not None:
        raise w.fields.error(path, f"Invalid value: {settings.canonical(rolling)}: only allowed for updateStrategy "
                             "'RollingUpdate'")
    partition = w.fields.int(rolling, "partition", path, 0) or 0
    if partition < 0:
        raise w.fields.error(f"{path}.partition", f"Invalid value: {partition}: must be greater than or equal to 0")
    policy = w.fields.str(w.spec, "podManagementPolicy", "spec") or "OrderedReady"  # defaulted when empty
    if policy not in ("OrderedReady", "Parallel"):
        raise w.fields.error("spec.podManagementPolicy", f"Invalid value: {json.dumps(policy)}: must be "
                             "'OrderedReady' or 'Parallel'")
    parallel = policy == "Parallel"
    return Strategy(kind, 0, 1, partition if kind == "RollingUpdate" else 0, parallel)


def strategy_of(w: Workload, desired: int) -> Strategy:
    if w.kind == "Deployment":
        return deployment_strategy(w, desired)
    if w.kind == "DaemonSet":
        return daemonset_strategy(w, desired)
    if w.kind == "StatefulSet":
        return statefulset_strategy(w)
    return Strategy("")
