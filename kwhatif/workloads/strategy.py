"""The update strategy a workload's controller follows, read from its manifest and validated as
the API server validates it (apps validation.go): surge and unavailability resolved against the
desired count as the controllers resolve them."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from kwhatif.api import settings
from kwhatif.load.spec_checks import PERCENT_MESSAGE
from kwhatif.workloads.common import Workload


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
