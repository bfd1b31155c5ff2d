"""The what-if changes a sweep scenario makes to its snapshot, as plain functions of a `Cluster`
(copies: the loaded snapshot is shared by every scenario of a worker and never altered), made
the way the what-if operations (`kwhatif.whatif`) make them."""

from __future__ import annotations

from collections.abc import Mapping

from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import Node
from kwhatif.check import without_nodes
from kwhatif.whatif import nodes as node_ops


def labelled(nodes: list[Node], labels: Mapping[str, str]) -> set[str]:
    """The names of the nodes carrying every label of `labels` (none when `labels` is empty:
    a removal without labels is the "lose nothing" scenario)."""
    if not labels:
        return set()
    return {n.name for n in nodes if all(n.labels.get(k) == v for k, v in labels.items())}


def remove_labelled(cluster: Cluster, labels: Mapping[str, str], now: str) -> Cluster:
    """The cluster after losing the labelled nodes, as `check --tolerate-zone-loss` loses a
    zone (`without_nodes`). Labels that match no node lose nothing, and the scenario's rows say
    so (a typo would otherwise read as a zone that is survived)."""
    lost = labelled(cluster.nodes, labels)
    if lost:
        return without_nodes(cluster, lost, now)
    if not labels:
        return cluster
    same = cluster.copy()
    selector = ",".join(f"{k}={v}" for k, v in labels.items())
    same.warnings.append(f"remove {selector}: no node has these labels, so no node is removed")
    return same


def add_nodes(cluster: Cluster, template: Node | None, count: int, now: str) -> Cluster:
    """The cluster with `count` nodes like `template` (named `<template>-1`, `-2`... as
    `capacity --add-node` names them), each with the pods of the DaemonSets that run on it."""
    if template is None or count == 0:
        return cluster
    grown = cluster.copy()
    node_ops.add_nodes(grown, template, count, now)
    return grown
