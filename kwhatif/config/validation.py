"""Validating a defaulted KubeSchedulerConfiguration (`pkg/scheduler/apis/config/validation`):
the errors of every field, in ValidateKubeSchedulerConfiguration's order, with its texts."""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from kwhatif.api.names import is_qualified_name
from kwhatif.api.resources import is_extended_resource_name
from kwhatif.config.args import ARG_SCHEMAS, validate_args
from kwhatif.config.defaulting import DefaultedProfile
from kwhatif.api.field import child, duplicate, index, invalid, required
from kwhatif.golang import GoText, format_duration, go_quote, parse_duration
from kwhatif.config.profile import KUBE_POINTS, PluginRef, PluginSetConfig
from kwhatif.config.schema import API_VERSION

# Plugins removed from the v1 API: refused by name in plugin sets and pluginConfig.
INVALID_PLUGINS = ("AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits")


def _go_plugin_set(plugin_set: PluginSetConfig) -> GoText:
    """`%#v` of an internal config.PluginSet (nil lists print as `(nil)`)."""
    def plugins(refs: Sequence[PluginRef]) -> str:
        if not refs:
            return "[]config.Plugin(nil)"
        return "[]config.Plugin{" + ", ".join(
            f"config.Plugin{{Name:{go_quote(p.name)}, Weight:{p.weight or 0}}}" for p in refs) + "}"
    return GoText(f"config.PluginSet{{Enabled:{plugins(plugin_set.enabled)}, Disabled:{plugins(plugin_set.disabled)}}}")


def _same_set(a: PluginSetConfig, b: PluginSetConfig) -> bool:
    def norm(refs: Sequence[PluginRef]) -> list[tuple[str, int]]:
        return [(p.name, p.weight or 0) for p in refs]
    return norm(a.enabled) == norm(b.enabled) and norm(a.disabled) == norm(b.disabled)


def _validate_percentage(path: str, value: int | None) -> list[str]:
    if value is not None and (value < 0 or value > 100):
        return [invalid(path, value, "not in valid range [0-100]")]
    return []


def _validate_profile(path: str, profile: DefaultedProfile) -> list[str]:
    errs: list[str] = []
    if not profile.scheduler_name:
        errs.append(required(child(path, "schedulerName")))
    errs.extend(_validate_percentage(child(path, "percentageOfNodesToScore"), profile.percentage_of_nodes_to_score))
    for point in KUBE_POINTS:
        for i, plugin in enumerate(profile.plugins[point].enabled):
            if plugin.name in INVALID_PLUGINS:
                errs.append(invalid(index(child(path, "plugins", point, "enabled"), i), plugin.name,
                                    f'was invalid in version "{API_VERSION}" (KubeSchedulerConfiguration is version '
                                    f'"{API_VERSION}")'))
    seen: set[str] = set()
    for j, (name, args) in enumerate(profile.plugin_config):
        config_path = index(child(path, "pluginConfig"), j)
        if name in seen:
            errs.append(duplicate(config_path, name))
        seen.add(name)
        if name in INVALID_PLUGINS:
            errs.append(invalid(config_path, name, f'was invalid in version "{API_VERSION}" (KubeSchedulerConfiguration '
                                                   f'is version "{API_VERSION}")'))
        elif name in ARG_SCHEMAS:
            errs.extend(validate_args(name, child(config_path, "args"), args))
    return errs


def _validate_common_queue_sort(profiles: Sequence[DefaultedProfile]) -> list[str]:
    errs: list[str] = []
    canon = profiles[0].plugins["queueSort"]
    queue_sort = canon.enabled[0].name if canon.enabled else ""
    if len(canon.enabled) > 1:
        errs.append(invalid("profiles[0].plugins.queueSort.Enabled", len(canon.enabled),
                            "only one queue sort plugin can be enabled"))
    canon_args = next((args for name, args in profiles[0].plugin_config if queue_sort and name == queue_sort), None)
    for i, profile in enumerate(profiles[1:], 1):
        current = profile.plugins["queueSort"]
        if not _same_set(canon, current):
            errs.append(invalid(f"profiles[{i}].plugins.queueSort", _go_plugin_set(current),
                                "must be the same for all profiles"))
        for name, args in profile.plugin_config:
            if name == queue_sort and args != canon_args:
                errs.append(invalid(f"profiles[{i}].pluginConfig.args", GoText(json.dumps(args)),
                                    "queueSort must be the same for all profiles"))
    return errs


def _validate_extenders(extenders: Sequence[Mapping[str, Any]]) -> list[str]:
    errs: list[str] = []
    binders = 0
    managed: set[str] = set()
    for i, ext in enumerate(extenders):
        path = index("extenders", i)
        if ext.get("prioritizeVerb") and ext.get("weight", 0) <= 0:
            errs.append(invalid(child(path, "weight"), ext.get("weight", 0), "must have a positive weight applied to it"))
        if ext.get("bindVerb"):
            binders += 1
        for j, resource in enumerate(ext.get("managedResources") or []):
            name_path = child(index(child(path, "managedResources"), j), "name")
            name = resource.get("name", "")
            name_errs = [invalid(name_path, name, msg) for msg in is_qualified_name(name)]
            if not name_errs and not is_extended_resource_name(name):
                name_errs = [invalid(name_path, name, "is an invalid extended resource name")]
            errs.extend(name_errs)
            if name in managed:
                errs.append(invalid(name_path, name, "duplicate extender managed resource name"))
            managed.add(name)
    if binders > 1:
        errs.append(invalid("extenders", f"found {binders} extenders implementing bind",
                            "only one extender can implement bind"))
    return errs


def validate_scheduler_config(config: Mapping[str, Any], profiles: Sequence[DefaultedProfile]) -> list[str]:
    """ValidateKubeSchedulerConfiguration, in its order."""
    errs: list[str] = []
    client = config["clientConnection"]
    if client.get("burst", 0) < 0:
        errs.append(invalid("clientConnection.burst", client["burst"], "must be non-negative"))
    leader = config["leaderElection"]
    if leader["leaderElect"]:
        durations = {name: parse_duration(leader[name]) for name in ("leaseDuration", "renewDeadline", "retryPeriod")}
        for name, value in durations.items():
            if value <= 0:
                errs.append(invalid(f"leaderElection.{name}", GoText(format_duration(value)), "must be greater than zero"))
        if durations["leaseDuration"] <= durations["renewDeadline"]:
            errs.append(invalid("leaderElection.leaseDuration", GoText(format_duration(durations["renewDeadline"])),
                                "must be greater than `RenewDeadline`"))
        if leader["resourceLock"] != "leases":
            errs.append(invalid("leaderElection.resourceLock", leader["resourceLock"], 'resourceLock value must be "leases"'))
    if config["parallelism"] <= 0:
        errs.append(invalid("parallelism", config["parallelism"], "should be an integer value greater than zero"))
    existing: dict[str, int] = {}
    for i, profile in enumerate(profiles):
        path = index("profiles", i)
        errs.extend(_validate_profile(path, profile))
        name = profile.scheduler_name or ""
        if name in existing:
            errs.append(duplicate(child(path, "schedulerName"),
                                  GoText(child(index("profiles", existing[name]), "schedulerName"))))
        existing[name] = i
    errs.extend(_validate_common_queue_sort(profiles))
    errs.extend(_validate_percentage("percentageOfNodesToScore", config["percentageOfNodesToScore"]))
    if config["podInitialBackoffSeconds"] <= 0:
        errs.append(invalid("podInitialBackoffSeconds", config["podInitialBackoffSeconds"], "must be greater than 0"))
    if config["podMaxBackoffSeconds"] < config["podInitialBackoffSeconds"]:
        errs.append(invalid("podMaxBackoffSeconds", config["podMaxBackoffSeconds"],
                            "must be greater than or equal to PodInitialBackoffSeconds"))
    errs.extend(_validate_extenders(config.get("extenders") or []))
    return errs

