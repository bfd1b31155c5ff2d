"""HorizontalPodAutoscaler (autoscaling/v1, v2): the replica count it imposes on its
`scaleTargetRef` workload. `--replicas` chooses: `spec` (default) what the autoscaler keeps —
the count it last computed for the load (`status.desiredReplicas` of one that runs), else the
workload's replicas — within [minReplicas, maxReplicas], `min` minReplicas, `max` maxReplicas.
A target with 0 replicas has autoscaling disabled and stays at 0."""

from __future__ import annotations

from kwhatif.workloads.common import Workload, replicas

KIND = "HorizontalPodAutoscaler"
MODES = ("spec", "min", "max")


def target(w: Workload) -> tuple[str, str, str]:
    f = w.fields
    ref = f.map(w.spec, "scaleTargetRef", "spec")
    kind = f.str(ref, "kind", "spec.scaleTargetRef")
    name = f.str(ref, "name", "spec.scaleTargetRef")
    if not kind or not name:
        raise f.error("spec.scaleTargetRef", "Required value: kind and name are required")
    return (kind, w.namespace, name)


def bounds(w: Workload) -> tuple[int, int]:
    f = w.fields
    low = f.int(w.spec, "minReplicas", "spec", 1)
    high = f.int(w.spec, "maxReplicas", "spec")
    if high is None:
        raise f.error("spec.maxReplicas", "Required value")
    if low is None or low < 1:
        raise f.error("spec.minReplicas", f"Invalid value: {low}: must be greater than or equal to 1")
    if high < low:
        raise f.error("spec.maxReplicas", f"Invalid value: {high}: must be greater than or equal to `minReplicas`")
    return low, high


def desired(hpa: Workload) -> int | None:
    """status.desiredReplicas, the count a running autoscaler last computed for the load — None
    when it computed none: 0 (never synced), or its ScalingActive condition False (metrics it
    cannot read: kubectl's `<unknown>/50%`), when the controller leaves the scale as it is."""
    f = hpa.fields
    status = f.map(hpa.obj, "status", "")
    inactive = any(isinstance(c, dict) and c.get("type") == "ScalingActive" and c.get("status") == "False"
                   for c in f.list(status, "conditions", "status"))
    count = f.int(status, "desiredReplicas", "status")
    return None if inactive or count is None or count <= 0 else count


def replicas_for(hpa: Workload, workload: Workload, mode: str, running: int | None = None,
                 autoscaled: int | None = None) -> int:
    """`running`: the count that stays when the workload runs and its manifest leaves
    spec.replicas unset (`existing.kept_replicas`): the autoscaler scales from there.
    `autoscaled`: what the autoscaler that runs wants (`desired`): a manifest's `replicas: 1`
    applied over it is undone at its next sync (15 s), so the workload must fit at that count."""
    low, high = bounds(hpa)
    current = replicas(workload) if running is None else running
    if current == 0:
        return 0
    if mode == "max":
        return high
    if mode == "min":
        return low
    return max(low, min(high, current if autoscaled is None else autoscaled))
