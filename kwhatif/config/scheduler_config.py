"""`--config FILE`: a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1), decoded,
defaulted and validated as kube-scheduler v1.34.1 does at start-up, then turned into profiles.

The steps and the texts follow kube-scheduler (defaults.go:SetDefaults_KubeSchedulerConfiguration,
default_plugins.go:mergePlugins):

1. decoding (`cmd/kube-scheduler/app/options/configfile.go`, the scheme's strict codec): YAML or
   JSON; missing or unknown apiVersion/kind; type errors (`json: cannot unmarshal ...`); unknown
   and duplicate fields (`strict decoding error: ...`); the plugin arguments of in-tree plugins
   decoded by plugin name (`decoding .profiles[i].pluginConfig[j]: ...`);
2. defaulting (`pkg/scheduler/apis/config/v1/defaults.go`): plugin sets merged with the default
   MultiPoint list, arguments defaulted and added for every enabled plugin that takes some;
3. validation (`pkg/scheduler/apis/config/validation`): the errors of every field, aggregated as
   `[e1, e2]`;
4. profile creation (`profile.NewMap` / `NewFramework`): unknown plugins, plugins at an extension
   point they do not implement, queue sort and bind counts, NodeResourcesFit arguments, wrapped in
   `initializing profiles: creating profile for scheduler name X: ...`.

Any failure raises ConfigError whose text is exactly kube-scheduler's error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kwhatif.config.decoding import ConfigError, decode_scheduler_config
from kwhatif.config.defaulting import DEFAULT_PARALLELISM, defaulted_profiles, with_defaults
from kwhatif.api.field import aggregate
from kwhatif.config.profile import ProfileConfig, ProfileError, build_profile
from kwhatif.config.schema import API_VERSION, KIND
from kwhatif.config.validation import validate_scheduler_config

__all__ = ["ConfigError", "SchedulerConfig", "default_scheduler_config", "load_scheduler_config",
           "parse_scheduler_config"]


@dataclass
class SchedulerConfig:
    """An effective KubeSchedulerConfiguration: its profiles ready for the engine and the
    scheduler-wide settings (`percentage_of_nodes_to_score` 0 means adaptive,
    schedule_one.go:numFeasibleNodesToFind; kwhatif examines every node whatever it says). `source` is the
    file, None for the built-in defaults."""

    profiles: list[ProfileConfig]
    percentage_of_nodes_to_score: int = 0
    parallelism: int = DEFAULT_PARALLELISM
    pod_initial_backoff_seconds: int = 1
    pod_max_backoff_seconds: int = 10
    extenders: list[dict[str, Any]] = field(default_factory=list)
    source: str | None = None
    warnings: list[str] = field(default_factory=list)


def parse_scheduler_config(text: str, source: str | None = None) -> SchedulerConfig:
    """Decode, default, validate and build the profiles of a configuration file's text."""
    config = with_defaults(decode_scheduler_config(text))
    profiles = defaulted_profiles(config)
    message = aggregate(validate_scheduler_config(config, profiles))
    if message:
        raise ConfigError(message)
    global_pct = config["percentageOfNodesToScore"]
    built: list[ProfileConfig] = []
    for profile in profiles:
        try:
            built.append(build_profile(profile.scheduler_name or "", profile.plugins, profile.plugin_config,
                                       profile.percentage_of_nodes_to_score, global_pct))
        except ProfileError as err:
            raise ConfigError(f"initializing profiles: {err}") from None
    warnings = []
    extenders = list(config.get("extenders") or [])
    if extenders:
        warnings.append(f"{source or 'the configuration'}: {len(extenders)} scheduler extender(s) configured; "
                        "kwhatif does not call extenders, decisions are made without them")
    return SchedulerConfig(built, global_pct, config["parallelism"], config["podInitialBackoffSeconds"],
                           config["podMaxBackoffSeconds"], extenders, source, warnings)


def load_scheduler_config(path: str) -> SchedulerConfig:
    """`--config FILE` as kube-scheduler reads it."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"open {path}: no such file or directory") from None
    except IsADirectoryError:
        raise ConfigError(f"read {path}: is a directory") from None
    except PermissionError:
        raise ConfigError(f"open {path}: permission denied") from None
    return parse_scheduler_config(data.decode("utf-8", errors="replace"), path)


def default_scheduler_config() -> SchedulerConfig:
    """What kube-scheduler runs without --config: one default-scheduler profile."""
    return parse_scheduler_config(f"apiVersion: {API_VERSION}\nkind: {KIND}\n")
