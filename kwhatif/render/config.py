"""`kwhatif config show`: the effective scheduler configuration, as data (-o json|yaml) and as a
table per profile (plugins per extension point in execution order, score weights, arguments)."""

from __future__ import annotations

import json
from typing import Any

from tabulate import tabulate

from kwhatif.config.profile import KUBE_POINTS, ProfileConfig
from kwhatif.config.scheduler_config import SchedulerConfig

NODES_NOTE = ("kwhatif examines every node unless run with --sample-like-scheduler; "
              "percentageOfNodesToScore only matters from 100 nodes up (schedule_one.go:numFeasibleNodesToFind)")


def _plugins(profile: ProfileConfig) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for point in KUBE_POINTS:
        entries = []
        for name in profile.extension_points.get(point, []):
            entry: dict[str, Any] = {"name": name}
            if point == "score":
                entry["weight"] = profile.weights.get(name, 1)
            entry["simulated"] = name in profile.points.get(point, [])
            entries.append(entry)
        out[point] = entries
    return out


def profile_data(profile: ProfileConfig) -> dict[str, Any]:
    return {
        "schedulerName": profile.scheduler_name,
        "percentageOfNodesToScore": profile.percentage_of_nodes_to_score,
        "plugins": _plugins(profile),
        "pluginConfig": [{"name": name, "args": args} for name, args in profile.args.items()],
        "notSimulated": list(profile.missing),
    }


def config_data(config: SchedulerConfig) -> dict[str, Any]:
    """The effective configuration: scheduler-wide settings and every profile."""
    return {
        "source": config.source,
        "percentageOfNodesToScore": config.percentage_of_nodes_to_score,
        "parallelism": config.parallelism,
        "podInitialBackoffSeconds": config.pod_initial_backoff_seconds,
        "podMaxBackoffSeconds": config.pod_max_backoff_seconds,
        "extenders": len(config.extenders),
        "note": NODES_NOTE,
        "profiles": [profile_data(p) for p in config.profiles],
    }


def _percentage(profile: ProfileConfig, config: SchedulerConfig) -> str:
    if profile.percentage_of_nodes_to_score is not None:
        return f"{profile.percentage_of_nodes_to_score} (profile)"
    value = config.percentage_of_nodes_to_score
    return f"{value} (global{', adaptive' if value == 0 else ''})"


def _profile_table(profile: ProfileConfig, config: SchedulerConfig) -> str:
    rows = []
    for point, entries in _plugins(profile).items():
        names = []
        for e in entries:
            text = e["name"] + (f" ({e['weight']})" if "weight" in e else "")
            names.append(text if e["simulated"] else text + "*")
        rows.append([point, ", ".join(names) or "-"])
    lines = [f"Profile {profile.scheduler_name}: percentageOfNodesToScore {_percentage(profile, config)}", ""]
    lines.append(tabulate(rows, headers=["EXTENSION POINT", "PLUGINS (score weight)"], tablefmt="plain"))
    if any(not e["simulated"] for entries in _plugins(profile).values() for e in entries):
        lines.append("* kube-scheduler runs it there; kwhatif does not simulate it at that extension point")
    if profile.args:
        lines.append("")
        args_rows = [[name, json.dumps(args, separators=(", ", ": "))] for name, args in profile.args.items()]
        lines.append(tabulate(args_rows, headers=["PLUGIN", "ARGS"], tablefmt="plain"))
    return "\n".join(lines)


def config_table(config: SchedulerConfig) -> str:
    header = f"Configuration: {config.source or 'kube-scheduler v1.34.1 defaults (no --config)'}"
    parts = [header, NODES_NOTE + "."]
    for profile in config.profiles:
        parts.append("")
        parts.append(_profile_table(profile, config))
    return "\n".join(parts) + "\n"
