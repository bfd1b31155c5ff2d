"""The pods the snapshot's DaemonSets create on the nodes a what-if adds (`--add-node`, a sweep's
node templates, `capacity --add-node`): a new node is never empty — its CNI, kube-proxy, log and
metrics agents take their share before any workload, and cluster-autoscaler and Karpenter count
that overhead when they size a node group. Without it, "3 more nodes fit" could be a false pass.

Each DaemonSet the snapshot holds (`Cluster.daemonsets`) is expanded by the workload expansion
(`kwhatif.workloads.daemonset`: its controller's NodeShouldRunDaemonPod, default tolerations and
node pinning) over the added nodes. Its pods are pending, created `now`, at the end of the queue:
queue order (priority first; these agents are usually system-node-critical) decides whether they
reach their node before the workloads do, as on a real cluster. A snapshot without DaemonSet
objects (a `kubectl get pods,nodes` dump) has their pods but not their templates: its added
nodes get none, and a warning says so."""

from __future__ import annotations

from collections.abc import Sequence

from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import DaemonSet, Node, Pod
from kwhatif.text import listed
from kwhatif.whatif.pods import DAEMONSET, pinned_node, pod_names, remove_pods
from kwhatif.workloads import daemonset
from kwhatif.workloads.common import Context, decode_workload, deterministic_uid


def daemon_pods(cluster: Cluster, added: Sequence[Node], now: str) -> list[Pod]:
    """Each DaemonSet's pod on each added node that should run it (DaemonSets in namespace/name
    order, nodes in name order), appended to the cluster's pods; DaemonSets whose pods run but
    whose objects the snapshot lacks, named in a warning of the cluster's (every run of it says
    it). Returns the pods."""
    if not added:
        return []
    on_nodes = _daemon_pods_by_node(cluster)
    missing = sorted(f"{namespace}/{name}" for namespace, name in set(on_nodes) - set(cluster.daemonsets))
    if missing:
        cluster.warnings.append(f"DaemonSet pods of {listed(missing)} run in the snapshot, but not their DaemonSet "
                                "objects: the added nodes get none of their pods (kwhatif snapshot captures them)")
    return resync_daemon_pods(cluster, added, now, on_nodes)[0]


def resync_daemon_pods(cluster: Cluster, nodes: Sequence[Node], now: str,
                       on_nodes: dict[tuple[str, str], dict[str, list[Pod]]] | None = None
                       ) -> tuple[list[Pod], list[Pod]]:
    """The daemon controller's answer to nodes that were added or changed (labels, taints): each
    DaemonSet's pod created, pending, on each node that should run it and has none, and its pods
    deleted from each node that no longer keeps them (`daemonset.keeps_running`: a label it
    selects gone). `on_nodes`: `_daemon_pods_by_node(cluster)`, if the caller has it. (created,
    deleted)."""
    taken = pod_names(cluster.pods, {namespace for namespace, _ in cluster.daemonsets})
    on_nodes = _daemon_pods_by_node(cluster) if on_nodes is None else on_nodes
    created: list[Pod] = []
    deleted: list[Pod] = []
    for key, kept in sorted(cluster.daemonsets.items()):
        if _being_deleted(kept):
            continue
        namespace = key[0]
        workload = decode_workload(dict(kept.manifest), kept.source)
        running = on_nodes.get(key, {})
        lacking = [n for n in nodes if n.name not in running]
        context = Context(lacking, now, taken_names=taken.get(namespace, set()))
        for pod in daemonset.expand(workload, context).pods if lacking else []:
            taken.setdefault(namespace, set()).add(pod.name)
            created.append(pod.evolve(uid=deterministic_uid("Pod", namespace, pod.name), creation_timestamp=now))
        template = daemonset.probe(workload)
        deleted += [p for n in nodes if n.name in running and not daemonset.keeps_running(template, n)
                    for p in running[n.name]]
    remove_pods(cluster, deleted, now, "", replace=False)
    cluster.pods.extend(created)
    return created, deleted


def _daemon_pods_by_node(cluster: Cluster) -> dict[tuple[str, str], dict[str, list[Pod]]]:
    """Each DaemonSet's pods by the node they run on or are pinned to."""
    out: dict[tuple[str, str], dict[str, list[Pod]]] = {}
    for pod in cluster.pods:
        ref = pod.controller_ref
        if ref is not None and ref.kind == DAEMONSET:
            out.setdefault((pod.namespace, ref.name), {}).setdefault(pinned_node(pod), []).append(pod)
    return out


def _being_deleted(kept: DaemonSet) -> bool:
    """A DaemonSet with a deletionTimestamp creates no pod (daemon controller syncDaemonSet)."""
    meta = kept.manifest.get("metadata")
    return isinstance(meta, dict) and bool(meta.get("deletionTimestamp"))
