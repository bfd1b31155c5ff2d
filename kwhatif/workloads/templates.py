"""Whether a manifest changes the template a workload's pods were made from.

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
a change there alone reads as "unchanged"."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from kwhatif.api import settings
from kwhatif.api.affinity import PodAffinityRules, PodAffinityTerm
from kwhatif.api.meta import stands_for
from kwhatif.api.objects import INLINE_DISK_IDS, Container, Pod
from kwhatif.api.quantity import QuantityError, parse_quantity
from kwhatif.api.selectors import LabelSelector
from kwhatif.workloads.common import REVISION_LABEL
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


def tolerations_of(pod: Pod) -> tuple[Any, ...]:
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


def containers_of(pod: Pod) -> dict[tuple[bool, str], tuple[Any, ...]]:
    return {(init, c.name): (c.image, sorted(c.requests.items()), sorted(c.limits.items()), c.ports, c.restart_policy)
            for init, group in ((True, pod.init_containers), (False, pod.containers)) for c in group}


def _carries(running: Pod, template: Pod) -> bool:
    """The running pod has each container the template sets, alike (image, requests, limits,
    ports), and its labels (but the controllers'), nodeSelector entries and tolerations (but
    the DefaultTolerationSeconds ones). What only the running pod has was added after the
    template — a mesh's sidecar container and labels (Istio), a queue's nodeSelector (Kueue),
    ExtendedResourceToleration's toleration —, not a change of it."""
    have = containers_of(running)
    if any(have.get(key) != value for key, value in containers_of(template).items()):
        return False
    labels, selector = running.labels, running.node_selector or {}
    if any(labels.get(k) != v for k, v in template.labels.items() if k not in CONTROLLER_LABELS):
        return False
    if any(selector.get(k) != v for k, v in (template.node_selector or {}).items()):
        return False
    return set(tolerations_of(template)) <= set(running.tolerations)


KEPT_BY_APPLY = frozenset({"kubectl.kubernetes.io/restartedAt"})
"""Template annotations another hand sets (`kubectl rollout restart`): an apply of a manifest that
never set them keeps them (a three-way merge removes only what the last apply set)."""


def drops_from(template: Pod, manifest: Pod) -> bool:
    """Whether the manifest's template leaves out something the running controller's own
    template sets — a container, a label, an annotation, a nodeSelector entry, a toleration, an
    env var (or sets it otherwise), a volume. The controllers compare whole templates (the
    Deployment controller's EqualIgnoreHash, a StatefulSet's revision hash), so the manifest is a
    new template; compared with the pods alone, whose extras are taken as a webhook's
    (`_carries`), a removal read as no change. (`apply.as_applied` first, when the snapshot says
    what the last apply wrote.)"""
    if not set(containers_of(template)) <= set(containers_of(manifest)):
        return True
    if any(manifest.labels.get(k) != v for k, v in template.labels.items() if k not in CONTROLLER_LABELS):
        return True
    selector = manifest.node_selector or {}
    if any(selector.get(k) != v for k, v in (template.node_selector or {}).items()):
        return True
    if not set(tolerations_of(template)) <= set(tolerations_of(manifest)):
        return True
    written = {k: v for k, v in template.annotations.items() if k not in CONTROLLER_ANNOTATIONS | KEPT_BY_APPLY}
    if any(k not in manifest.annotations or not stands_for(template_value, manifest.annotations[k])
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
    own = set(containers_of(template)) if template is not None else None

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
    return all(stands_for(running.get(key), value) for key, value in template.items())
