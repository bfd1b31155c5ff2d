"""What `kubectl apply` makes of a running workload: its three-way merge (strategicpatch
CreateThreeWayMergePatch) of what the last apply wrote (the workload's
last-applied-configuration), the manifest and the object as it runs — removing only what that
apply wrote and the manifest leaves out, keeping what another hand set (`kubectl patch`,
`kubectl set resources`, a webhook) where neither writes it, and merging maps key by key and
the lists the API gives a merge key entry by entry (types.go's patchStrategy/patchMergeKey)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import ApplyBase
from kwhatif.workloads.common import Workload


_CONTAINER_LISTS = {"ports": ("containerPort", False), "env": ("name", False), "volumeMounts": ("mountPath", False),
                    "volumeDevices": ("devicePath", False)}
_POD_LISTS = {"volumes": ("name", True), "imagePullSecrets": ("name", False), "hostAliases": ("ip", False),
              "topologySpreadConstraints": ("topologyKey", False), "resourceClaims": ("name", True),
              "schedulingGates": ("name", False)}
_CONTAINERS = ("containers", "initContainers", "ephemeralContainers")
MERGED_LISTS: dict[tuple[str, ...], tuple[str, bool]] = {
    **{("template", "spec", key): found for key, found in _POD_LISTS.items()},
    **{("template", "spec", group): ("name", False) for group in _CONTAINERS},
    **{("template", "spec", group, "*", key): found for group in _CONTAINERS for key, found in _CONTAINER_LISTS.items()},
}
"""The lists of a workload spec the strategic merge patch merges entry by entry, by their
patchMergeKey (core/v1 types.go), and whether it retains only the keys a patched entry names
(patchStrategy "merge,retainKeys": a volume's source, a claim's). Every other list is atomic:
replaced whole (tolerations, a node selector's terms, envFrom, command, args)."""


def as_applied(cluster: Cluster, objects: Sequence[object]) -> list[object]:
    """The manifests' workloads that run in the snapshot as `kubectl apply` leaves them
    (`applied_spec`) where the snapshot says what their last client-side apply wrote; the rest as
    written (a workload that does not run, or Helm's or a server-side apply's: nothing here tells
    what they wrote)."""
    return [_as_applied(cluster, o) if isinstance(o, Workload) else o for o in objects]


def _as_applied(cluster: Cluster, w: Workload) -> Workload:
    base = cluster.apply_base(w.kind, w.namespace, w.name)
    return w if base is None else replace(w, obj={**w.obj, "spec": applied_spec(base, w.spec)})


def applied_spec(base: ApplyBase, spec: Mapping[str, Any]) -> dict[str, Any]:
    """The spec a running workload has once the manifest's `spec` is applied over it. spec.replicas
    the last apply wrote and the manifest leaves out is deleted, and the API server defaults it
    to 1 (SetDefaults_Deployment, _StatefulSet...; the autoscaling docs' migration warning), not
    the count that runs — left at that, a workload that never had it written keeps its count."""
    merged = _merged_map(base.applied, spec, base.live, ())
    if "replicas" in base.applied and "replicas" not in spec:
        merged["replicas"] = 1
    return merged


def _merged(original: Any, modified: Any, live: Any, path: tuple[str, ...]) -> Any:
    """One field the manifest writes: maps merged key by key, keyed lists entry by entry, the
    rest the manifest's."""
    if isinstance(modified, Mapping) and isinstance(live, Mapping):
        return _merged_map(original if isinstance(original, Mapping) else {}, modified, live, path)
    merge = MERGED_LISTS.get(path)
    if merge is not None and isinstance(modified, list) and isinstance(live, list):
        return _merged_list(original if isinstance(original, list) else [], modified, live, path, *merge)
    return modified


def _merged_map(original: Mapping[str, Any], modified: Mapping[str, Any], live: Mapping[str, Any],
                path: tuple[str, ...], retain: bool = False) -> dict[str, Any]:
    """The manifest's keys (a null one deleted), merged with the live values; then the live keys
    neither the manifest nor the last apply has (none under retainKeys)."""
    out = {k: _merged(original.get(k), v, live[k], (*path, k)) if k in live else v
           for k, v in modified.items() if v is not None}
    if not retain:
        out.update((k, v) for k, v in live.items() if k not in modified and k not in original)
    return out


def _merged_list(original: Sequence[Any], modified: Sequence[Any], live: Sequence[Any], path: tuple[str, ...],
                 key: str, retain: bool) -> list[Any]:
    """A list merged by `key`, in the live order (the running pods carry it): each live entry the
    manifest names merged with the manifest's, one only the last apply named deleted, one
    neither names kept; then the manifest's new entries."""
    def keyed(items: Sequence[Any]) -> dict[Any, Mapping[str, Any]]:
        return {item.get(key): item for item in items if isinstance(item, Mapping)}
    was, wanted, running = keyed(original), keyed(modified), keyed(live)
    item_path = (*path, "*")
    out: list[Any] = []
    for name, item in running.items():
        if name in wanted:
            out.append(_merged_map(was.get(name, {}), wanted[name], item, item_path, retain))
        elif name not in was:
            out.append(item)
    out.extend(item for item in modified if not isinstance(item, Mapping) or item.get(key) not in running)
    return out
