"""Plugin arguments of a KubeSchedulerConfiguration: their v1 shapes, defaulting
(`pkg/scheduler/apis/config/v1/defaults.go`), validation (`validation_pluginargs.go`, with
kube-scheduler's own error texts) and the typed arguments each plugin's factory takes.

One module per plugin that has arguments, each with its `SCHEMA` (for the strict decoder),
`set_defaults`, `validate` and `build`. The defaulted v1 dicts are what `kwhatif config show`
prints; `build` turns them into the plugin's own frozen `<Name>Args` dataclass, so plugins never
see raw dicts (and never import the configuration)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from kwhatif.config.args import (
    balanced_allocation, default_preemption, dynamic_resources, fit, inter_pod_affinity, node_affinity,
    pod_topology_spread, volume_binding,
)
from kwhatif.config.args.fit import missing_shape_crash, validate_fit_args
from kwhatif.config.types import Struct

__all__ = ["ARG_SCHEMAS", "ArgsType", "build_args", "default_args", "missing_shape_crash", "plugin_args",
           "validate_args", "validate_fit_args"]


@dataclass(frozen=True)
class ArgsType:
    """What the configuration knows of one plugin's arguments. `validate` is None when the
    configuration validator does not check them (NodeResourcesFit: see validate_fit_args)."""

    schema: Struct
    set_defaults: Callable[[dict[str, Any]], None]
    validate: Callable[[str, Mapping[str, Any]], list[str]] | None
    build: Callable[[Mapping[str, Any]], Any]


ARGS_TYPES: dict[str, ArgsType] = {
    "DefaultPreemption": ArgsType(default_preemption.SCHEMA, default_preemption.set_defaults,
                                  default_preemption.validate, default_preemption.build),
    "DynamicResources": ArgsType(dynamic_resources.SCHEMA, dynamic_resources.set_defaults,
                                 dynamic_resources.validate, dynamic_resources.build),
    "InterPodAffinity": ArgsType(inter_pod_affinity.SCHEMA, inter_pod_affinity.set_defaults,
                                 inter_pod_affinity.validate, inter_pod_affinity.build),
    "NodeAffinity": ArgsType(node_affinity.SCHEMA, node_affinity.set_defaults, node_affinity.validate,
                             node_affinity.build),
    "NodeResourcesBalancedAllocation": ArgsType(balanced_allocation.SCHEMA, balanced_allocation.set_defaults,
                                                balanced_allocation.validate, balanced_allocation.build),
    "NodeResourcesFit": ArgsType(fit.SCHEMA, fit.set_defaults, None, fit.build),
    "PodTopologySpread": ArgsType(pod_topology_spread.SCHEMA, pod_topology_spread.set_defaults,
                                  pod_topology_spread.validate, pod_topology_spread.build),
    "VolumeBinding": ArgsType(volume_binding.SCHEMA, volume_binding.set_defaults, volume_binding.validate,
                              volume_binding.build),
}
ARG_SCHEMAS: dict[str, Struct] = {name: kind.schema for name, kind in ARGS_TYPES.items()}


def default_args(plugin: str, args: Mapping[str, Any] | None) -> dict[str, Any]:
    """The v1 arguments of an in-tree plugin with kube-scheduler's defaults applied (defaults.go:SetDefaults_*Args);
    apiVersion/kind are dropped. The result is a new dict."""
    out = {k: v for k, v in (args or {}).items() if k not in ("apiVersion", "kind")}
    kind = ARGS_TYPES.get(plugin)
    if kind is not None:
        kind.set_defaults(out)
    return out


def validate_args(plugin: str, path: str, args: Mapping[str, Any] | None) -> list[str]:
    """The configuration-time checks of one pluginConfig entry (already defaulted)."""
    kind = ARGS_TYPES.get(plugin)
    if kind is None or kind.validate is None or args is None:
        return []
    return kind.validate(path, args)


def build_args(plugin: str, args: Mapping[str, Any]) -> Any:
    """The typed arguments of a plugin from its defaulted, validated v1 arguments (None for a
    plugin without an Args type)."""
    kind = ARGS_TYPES.get(plugin)
    return kind.build(args) if kind is not None else None


def plugin_args(plugin: str, args: Mapping[str, Any] | None = None) -> Any:
    """The typed arguments of a plugin from v1 arguments as a user writes them (defaulted here)."""
    return build_args(plugin, default_args(plugin, args))
