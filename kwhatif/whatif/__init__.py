"""What-if operations on a loaded cluster, applied before scheduling: cordon, uncordon, drain,
remove or add nodes, taint, untaint, label, delete a pod, scale a controller.

Each operation is a pure function `Cluster → Cluster` (`apply_operations` copies the cluster
first) that also says what it did (`Applied`): the echo printed above a command's output and
its `whatif` list in JSON. Pods a controller would replace are recreated as pending pods, the way
the controller would create them (`pods.recreated`)."""

from __future__ import annotations

from kwhatif.whatif.ops import Applied, Operation, Scenario, apply_operations, operations_from_file, parse_operation

__all__ = ["Applied", "Operation", "Scenario", "apply_operations", "operations_from_file", "parse_operation"]
