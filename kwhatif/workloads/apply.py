"""What `kubectl apply` makes of a running workload's template: its three-way merge
(strategicpatch CreateThreeWayMergePatch) of the template the last apply wrote (the workload's
last-applied-configuration), the manifest's and the live one — removing only what that apply
wrote, keeping what another hand set."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TypeVar

from kwhatif.api.affinity import Affinity
from kwhatif.api.objects import Container, Pod
from kwhatif.plugins.registry import DEFAULT_SCHEDULER_NAME
from kwhatif.workloads.templates import containers_of


def as_last_applied(template: Pod, applied: Pod) -> Pod:
    """The live template less what the last `kubectl apply` did not write (`applied`, its
    last-applied-configuration's): a three-way merge (strategicpatch CreateThreeWayMergePatch)
    removes only what that apply set and the manifest leaves out; what another hand set — a
    mutating webhook on the workload, `kubectl patch`, `kubectl rollout restart` — stays, in maps
    and in lists merged by a key (containers, env, volumes). Tolerations are an atomic list: one
    the apply wrote is replaced whole by the manifest's, another hand's entries with it."""
    written = {c.name: set(dict(c.settings or ())) for c in (*applied.init_containers, *applied.containers)}
    names = set(containers_of(applied))

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
