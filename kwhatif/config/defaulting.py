"""Defaulting a decoded KubeSchedulerConfiguration (`pkg/scheduler/apis/config/v1/defaults.go`):
scheduler-wide fields, plugin sets merged with the default MultiPoint list, arguments defaulted
and added for every enabled plugin that takes some."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from kwhatif.golang import parse_duration
from kwhatif.config.profile import (
    PLUGIN_SETS, PluginRef, PluginSetConfig, Plugins, default_plugin_config, default_plugins, merge_plugins,
)
from kwhatif.plugins.registry import DEFAULT_SCHEDULER_NAME

DEFAULT_PARALLELISM = 16


def _plugin_sets(raw: Mapping[str, Any] | None) -> Plugins | None:
    if raw is None:
        return None
    def refs(items: Any) -> tuple[PluginRef, ...]:
        return tuple(PluginRef(p.get("name", ""), p.get("weight")) for p in items or ())
    return {name: PluginSetConfig(refs((raw.get(name) or {}).get("enabled")), refs((raw.get(name) or {}).get("disabled")))
            for name in PLUGIN_SETS}


@dataclass
class DefaultedProfile:
    """A defaulted profile, before validation."""

    scheduler_name: str | None
    percentage_of_nodes_to_score: int | None
    plugins: Plugins
    plugin_config: list[tuple[str, Any]]


def _default_leader_election(raw: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(raw)
    for name, default in (("leaseDuration", "15s"), ("renewDeadline", "10s"), ("retryPeriod", "2s")):
        if parse_duration(out.get(name) or "0") == 0:
            out[name] = default
    out["resourceLock"] = out.get("resourceLock") or "leases"
    out["resourceNamespace"] = out.get("resourceNamespace") or "kube-system"
    out["resourceName"] = out.get("resourceName") or "kube-scheduler"
    if out.get("leaderElect") is None:
        out["leaderElect"] = True
    return out


def defaulted_profiles(config: Mapping[str, Any]) -> list[DefaultedProfile]:
    raw_profiles = list(config.get("profiles") or [{}])
    profiles = []
    for raw in raw_profiles:
        name = raw.get("schedulerName")
        if name is None and len(raw_profiles) == 1:
            name = DEFAULT_SCHEDULER_NAME
        plugins = merge_plugins(default_plugins(), _plugin_sets(raw.get("plugins")))
        user = [(e.get("name", ""), e.get("args")) for e in raw.get("pluginConfig") or []]
        profiles.append(DefaultedProfile(name, raw.get("percentageOfNodesToScore"), plugins,
                                 default_plugin_config(plugins, user)))
    return profiles


def with_defaults(config: dict[str, Any]) -> dict[str, Any]:
    """SetDefaults_KubeSchedulerConfiguration for the scheduler-wide fields."""
    out = dict(config)
    out["parallelism"] = DEFAULT_PARALLELISM if out.get("parallelism") is None else out["parallelism"]
    out["percentageOfNodesToScore"] = out.get("percentageOfNodesToScore") or 0
    out["leaderElection"] = _default_leader_election(out.get("leaderElection") or {})
    client = dict(out.get("clientConnection") or {})
    client["contentType"] = client.get("contentType") or "application/vnd.kubernetes.protobuf"
    client["qps"] = client.get("qps") or 50.0
    client["burst"] = client.get("burst") or 100
    out["clientConnection"] = client
    for name, default in (("podInitialBackoffSeconds", 1), ("podMaxBackoffSeconds", 10)):
        out[name] = default if out.get(name) is None else out[name]
    return out

