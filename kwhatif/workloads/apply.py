"""What `kubectl apply` makes of a running workload: its three-way merge (strategicpatch
CreateThreeWayMergePatch) of what the last apply wrote (the workload's
last-applied-configuration), the manifest and the object as it runs — removing only what that
apply wrote and the manifest leaves out, keeping what another hand set (`kubectl patch`,
`kubectl set resources`, a webhook) where neither writes it, and merging maps key by key and
the lists the API gives a merge key entry by entry (types.go's patchStrategy/patchMergeKey)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import ApplyBase
from kwhatif.workloads.common import Workload


Identity = tuple[tuple[str, Any], ...]
"""What a list entry is matched by: (key, default) pairs read from it."""

_NAME: Identity = (("name", None),)
_CONTAINER_LISTS: dict[str, tuple[Identity, bool]] = {
    # patchMergeKey containerPort; matched with the protocol too (listMapKey containerPort +
    # protocol): 53/UDP and 53/TCP are two ports a DNS pod runs, not one (#108255).
    "ports": ((("containerPort", None), ("protocol", "TCP")), False), "env": (_NAME, False),
    "volumeMounts": ((("mountPath", None),), False), "volumeDevices": ((("devicePath", None),), False)}
_POD_LISTS: dict[str, tuple[Identity, bool]] = {
    "volumes": (_NAME, True), "imagePullSecrets": (_NAME, False), "hostAliases": ((("ip", None),), False),
    # patchMergeKey topologyKey; with whenUnsatisfiable (listMapKey): a zone's hard and soft
    # constraints side by side are two.
    "topologySpreadConstraints": ((("topologyKey", None), ("whenUnsatisfiable", None)), False),
    "resourceClaims": (_NAME, True), "schedulingGates": (_NAME, False)}
_CONTAINERS = ("containers", "initContainers", "ephemeralContainers")
MERGED_LISTS: dict[tuple[str, ...], tuple[Identity, bool]] = {
    **{("template", "spec", key): found for key, found in _POD_LISTS.items()},
    **{("template", "spec", group): (_NAME, False) for group in _CONTAINERS},
    **{("template", "spec", group, "*", key): found for group in _CONTAINERS for key, found in _CONTAINER_LISTS.items()},
}
"""The lists of a workload spec the strategic merge patch merges entry by entry, by their
patchMergeKey (core/v1 types.go), and whether it retains only the keys a patched entry names
(patchStrategy "merge,retainKeys": a volume's source, a claim's). Every other list is atomic:
replaced whole (tolerations, a node selector's terms, envFrom, command, args)."""

RETAINED_MAPS = frozenset({("strategy",)})
"""Maps whose patchStrategy is retainKeys (apps/v1 DeploymentSpec.strategy): one the manifest
writes keeps only the keys it names — `{type: Recreate}` clears the defaulted rollingUpdate, as
`kubectl apply` does since #70436."""


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
    the manifest writes null, or that the last apply wrote and the manifest leaves out, is
    deleted, and the API server defaults it to 1 (SetDefaults_Deployment, _StatefulSet...; the
    autoscaling docs' migration warning), not the count that runs; left out and never written,
    it is the live spec's."""
    merged = _merged_map(base.applied, spec, base.live, ())
    if "replicas" not in merged and ("replicas" in spec or "replicas" in base.applied):
        merged["replicas"] = 1
    return merged


def _merged(original: Any, modified: Any, live: Any, path: tuple[str, ...]) -> Any:
    """One field the manifest writes: maps merged key by key, keyed lists entry by entry, the
    rest the manifest's."""
    if isinstance(modified, Mapping) and isinstance(live, Mapping):
        return _merged_map(original if isinstance(original, Mapping) else {}, modified, live, path,
                           path in RETAINED_MAPS)
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
                 identity: Identity, retain: bool) -> list[Any]:
    """A list merged entry by entry: each entry the manifest writes merged with the live one it
    matches, in the manifest's order; the live entries neither it nor the last apply names kept,
    slotted in by their live place (patch.go normalizeElementOrder, mergeSortedSlice: the
    manifest's order wins — it is an init container's, whose sidecars' requests add to the ones
    after them); one only the last apply named, deleted."""
    def of(item: Any) -> Any:
        """The entry's identity, hashable whatever a last-applied annotation (never validated) holds."""
        found = tuple(item.get(k, d) for k, d in identity) if isinstance(item, Mapping) else item
        try:
            hash(found)
        except TypeError:
            return json.dumps(found, sort_keys=True, default=str)
        return found
    was = {of(item): item for item in original}
    running = {of(item): item for item in live}
    place = {name: i for i, name in enumerate(running)}
    wanted = [(of(item), item) for item in modified]
    named = {name for name, _ in wanted}
    item_path = (*path, "*")
    written = [(name, _merged_map(was.get(name, {}), item, running[name], item_path, retain)
                if name in running and isinstance(item, Mapping) else item) for name, item in wanted]
    kept = [(name, item) for name, item in running.items() if name not in named and name not in was]
    return [item for _, item in _interleaved(kept, written, place)]


def _interleaved(kept: list[tuple[Any, Any]], written: list[tuple[Any, Any]], place: dict[Any, int]
                 ) -> list[tuple[Any, Any]]:
    """patch.go mergeSortedSlice: the kept live entries and the manifest's, each list's order
    kept; a kept entry goes first only when it comes before the manifest's next entry in the
    live list."""
    out: list[tuple[Any, Any]] = []
    i = j = 0
    while i < len(kept) or j < len(written):
        if j >= len(written) or (i < len(kept) and written[j][0] in place
                                 and place[kept[i][0]] < place[written[j][0]]):
            out.append(kept[i])
            i += 1
        else:
            out.append(written[j])
            j += 1
    return out
