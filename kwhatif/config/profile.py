"""A profile as the framework needs it, and how kube-scheduler v1.34.1 builds one (framework.go:NewFramework,
default_plugins.go:mergePlugins): the default plugin sets are merged with the user's (`mergePluginSet`), then
the framework places each plugin at its extension points and expands MultiPoint (`NewFramework`,
`expandMultiPointPlugins`, `getScoreWeights`), failing with kube-scheduler's texts.

Expansion follows the in-tree plugins' Go interfaces (`KUBE_PLUGINS`), including the plugins kwhatif
does not implement; a profile then keeps, per extension point, the plugins kwhatif runs (`points`)
and lists the others in `missing`."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

from kwhatif.config.args import ARG_SCHEMAS, build_args, default_args, missing_shape_crash, validate_fit_args
from kwhatif.api.field import aggregate
from kwhatif.golang import go_quote
from kwhatif.framework.interfaces import EXTENSION_POINTS, FRAMEWORK_ORDER, MAX_NODE_SCORE, POINTS
from kwhatif.plugins.registry import DEFAULT_MULTI_POINT, DEFAULT_SCHEDULER_NAME, REGISTRY

# Every extension point of a KubeSchedulerProfile's `plugins`, in the v1 field order.
KUBE_POINTS = tuple(p.name for p in POINTS)
MULTI_POINT = "multiPoint"
PLUGIN_SETS = (MULTI_POINT,) + KUBE_POINTS

# The in-tree registry of v1.34.1 and the extension points each plugin's Go type implements.
KUBE_PLUGINS: dict[str, frozenset[str]] = {
    "SchedulingGates": frozenset({"preEnqueue"}),
    "PrioritySort": frozenset({"queueSort"}),
    "NodeUnschedulable": frozenset({"filter"}),
    "NodeName": frozenset({"filter"}),
    "TaintToleration": frozenset({"filter", "preScore", "score"}),
    "NodeAffinity": frozenset({"preFilter", "filter", "preScore", "score"}),
    "NodePorts": frozenset({"preFilter", "filter"}),
    "NodeResourcesFit": frozenset({"preFilter", "filter", "preScore", "score"}),
    "VolumeRestrictions": frozenset({"preFilter", "filter"}),
    "NodeVolumeLimits": frozenset({"preFilter", "filter"}),
    "VolumeBinding": frozenset({"preFilter", "filter", "reserve", "preBind", "preScore", "score"}),
    "VolumeZone": frozenset({"preFilter", "filter"}),
    "PodTopologySpread": frozenset({"preFilter", "filter", "preScore", "score"}),
    "InterPodAffinity": frozenset({"preFilter", "filter", "preScore", "score"}),
    "DynamicResources": frozenset({"preEnqueue", "preFilter", "filter", "postFilter", "reserve", "preBind"}),
    "DefaultPreemption": frozenset({"preEnqueue", "postFilter"}),
    "NodeResourcesBalancedAllocation": frozenset({"preScore", "score"}),
    "ImageLocality": frozenset({"score"}),
    "DefaultBinder": frozenset({"bind"}),
}

MAX_TOTAL_SCORE = 2**63 - 1


@dataclass(frozen=True)
class PluginRef:
    """One entry of a plugin set: a name and the optional score weight (None: unset)."""

    name: str
    weight: int | None = None


@dataclass(frozen=True)
class PluginSetConfig:
    """One set of a profile's `plugins` (config.PluginSet): enabled and disabled entries."""

    enabled: tuple[PluginRef, ...] = ()
    disabled: tuple[PluginRef, ...] = ()


Plugins = dict[str, PluginSetConfig]


class ProfileError(Exception):
    """A profile kube-scheduler refuses to create; the text is the inner error (NewFramework's)."""


@dataclass
class ProfileConfig:
    """One expanded profile. `points` maps each extension point kwhatif runs (`preFilter`,
    `score`, ...) to the plugins kwhatif implements there, in execution order; `extension_points`
    is kube-scheduler's full view (every extension point, every plugin); plugins kube-scheduler
    would run that kwhatif does not implement are listed in `missing` (results say so rather than
    pretend). `args` holds the defaulted v1 arguments per plugin (what `config show` prints),
    `plugin_args` the typed arguments the engine hands to the plugin factories (built for the
    plugins kube-scheduler would create; a plugin absent there takes its defaults).
    `percentage_of_nodes_to_score` is the profile's own value (None: unset, the global one
    applies); kwhatif examines every node whatever these say (schedule_one.go:numFeasibleNodesToFind)."""

    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    points: dict[str, list[str]] = field(default_factory=dict)
    weights: dict[str, int] = field(default_factory=dict)
    args: dict[str, dict[str, Any]] = field(default_factory=dict)
    plugin_args: dict[str, Any] = field(default_factory=dict)
    percentage_of_nodes_to_score: int | None = None
    missing: list[str] = field(default_factory=list)
    extension_points: dict[str, list[str]] = field(default_factory=dict)
    global_percentage_of_nodes_to_score: int = 0


# -- merge (pkg/scheduler/apis/config/v1/default_plugins.go) -----------------------------------


def default_plugins() -> Plugins:
    """getDefaultPlugins(): one MultiPoint list (default_plugins.go:getDefaultPlugins), every other set empty."""
    sets = {name: PluginSetConfig() for name in PLUGIN_SETS}
    sets[MULTI_POINT] = PluginSetConfig(tuple(PluginRef(n, w) for n, w in DEFAULT_MULTI_POINT))
    return sets


def merge_plugin_set(default: PluginSetConfig, custom: PluginSetConfig) -> PluginSetConfig:
    """mergePluginSet: defaults minus the custom `disabled` ones (all with `*`); a default the user
    also enables is replaced in place by the user's entry (the last one of that name); the other
    custom plugins follow in the user's order, duplicates included."""
    disabled = [PluginRef(p.name) for p in custom.disabled] + [PluginRef(p.name) for p in default.disabled]
    disabled_names = {p.name for p in disabled}
    custom_index = {p.name: (i, p) for i, p in enumerate(custom.enabled)}
    replaced: set[int] = set()
    enabled: list[PluginRef] = []
    if "*" not in disabled_names:
        for plugin in default.enabled:
            if plugin.name in disabled_names:
                continue
            if plugin.name in custom_index:
                i, plugin = custom_index[plugin.name]
                replaced.add(i)
            enabled.append(plugin)
    enabled.extend(p for i, p in enumerate(custom.enabled) if i not in replaced)
    return PluginSetConfig(tuple(enabled), tuple(disabled))


def merge_plugins(default: Plugins, custom: Plugins | None) -> Plugins:
    if custom is None:
        return dict(default)
    return {name: merge_plugin_set(default.get(name, PluginSetConfig()), custom.get(name, PluginSetConfig()))
            for name in PLUGIN_SETS}


def plugin_names(plugins: Plugins) -> list[str]:
    """pluginsNames: every enabled name of every set, sorted."""
    return sorted({p.name for s in plugins.values() for p in s.enabled})


# -- NewFramework ----------------------------------------------------------------------------


def _implements(name: str, point: str) -> bool:
    return point in KUBE_PLUGINS.get(name, frozenset())


def expand_plugins(plugins: Plugins, plugin_config: Sequence[tuple[str, Any]] = (), scheduler_name: str = ""
                   ) -> tuple[dict[str, list[str]], dict[str, int]]:
    """NewFramework's placement of a merged profile: (plugins per extension point in execution
    order, score weights). Raises ProfileError with the framework's message."""
    seen_config: set[str] = set()
    for name, _ in plugin_config:
        if name in seen_config:
            raise ProfileError(f"repeated config for plugin {name}")
        seen_config.add(name)
    args = dict(plugin_config)
    needed = {p.name for s in plugins.values() for p in s.enabled}
    # Plugin factories; only NodeResourcesFit validates what the configuration check did not.
    if "NodeResourcesFit" in needed:
        fit_args = args.get("NodeResourcesFit") or {}
        message = aggregate(validate_fit_args(fit_args)) or missing_shape_crash(fit_args)
        if message:
            raise ProfileError(f'initializing plugin "NodeResourcesFit": {message}')

    points: dict[str, list[str]] = {p: [] for p in KUBE_POINTS}
    for extension_point in FRAMEWORK_ORDER:  # updatePluginList
        point, kind = extension_point.name, extension_point.interface
        for plugin in plugins.get(point, PluginSetConfig()).enabled:
            if plugin.name not in KUBE_PLUGINS:
                raise ProfileError(f'{kind} "{plugin.name}" does not exist')
            if not _implements(plugin.name, point):
                raise ProfileError(f'plugin "{plugin.name}" does not extend {kind} plugin')
            if plugin.name in points[point]:
                raise ProfileError(f'plugin "{plugin.name}" already registered as "{kind}"')
            points[point].append(plugin.name)

    multi = plugins.get(MULTI_POINT, PluginSetConfig()).enabled
    if multi:
        for extension_point in FRAMEWORK_ORDER:  # expandMultiPointPlugins
            point, kind = extension_point.name, extension_point.interface
            explicit = points[point]
            disabled = {p.name for p in plugins.get(point, PluginSetConfig()).disabled}
            if "*" in disabled:
                continue
            overrides: list[str] = []
            from_multi: list[str] = []
            for plugin in multi:
                if plugin.name not in KUBE_PLUGINS:
                    raise ProfileError(f'{kind} "{plugin.name}" does not exist')
                if not _implements(plugin.name, point) or plugin.name in disabled:
                    continue
                if plugin.name in explicit:
                    if plugin.name not in overrides:
                        overrides.append(plugin.name)
                    continue
                if plugin.name in from_multi:
                    raise ProfileError(f'plugin "{plugin.name}" already registered as "{kind}"')
                from_multi.append(plugin.name)
            first = [n for n in explicit if n in overrides]
            points[point] = first + from_multi + [n for n in explicit if n not in overrides]

    if len(points["queueSort"]) != 1:
        raise ProfileError(f"only one queue sort plugin required for profile with scheduler name "
                           f"{go_quote(scheduler_name)}, but got {len(points['queueSort'])}")
    if not points["bind"]:
        raise ProfileError(f"at least one bind plugin is needed for profile with scheduler name {go_quote(scheduler_name)}")

    weights: dict[str, int] = {}
    total = 0
    for plugin in plugins.get("score", PluginSetConfig()).enabled + multi:  # getScoreWeights
        if not _implements(plugin.name, "score") or plugin.name in weights:
            continue
        weights[plugin.name] = plugin.weight or 1
        if weights[plugin.name] * MAX_NODE_SCORE > MAX_TOTAL_SCORE - total:
            raise ProfileError("total score of Score plugins could overflow")
        total += weights[plugin.name] * MAX_NODE_SCORE
    return points, weights


def build_profile(scheduler_name: str, plugins: Plugins, plugin_config: Sequence[tuple[str, Any]],
                  percentage_of_nodes_to_score: int | None = None, global_percentage: int = 0) -> ProfileConfig:
    """A ProfileConfig from a merged, validated profile. Raises ProfileError with the text
    `creating profile for scheduler name X: ...` kube-scheduler wraps it in."""
    try:
        extension_points, weights = expand_plugins(plugins, plugin_config, scheduler_name)
    except ProfileError as err:
        raise ProfileError(f"creating profile for scheduler name {scheduler_name}: {err}") from None
    points = {point: [n for n in extension_points.get(point, []) if _runs(n, point)] for point in EXTENSION_POINTS}
    listed = {n for names in extension_points.values() for n in names}
    args = {name: value for name, value in plugin_config if value is not None and name in KUBE_PLUGINS}
    plugin_args = {name: build_args(name, value) for name, value in args.items()
                   if name in listed and name in ARG_SCHEMAS}
    return ProfileConfig(
        scheduler_name=scheduler_name, points=points, weights=weights, args=args, plugin_args=plugin_args,
        percentage_of_nodes_to_score=percentage_of_nodes_to_score,
        missing=sorted(n for n in listed if n not in REGISTRY), extension_points=extension_points,
        global_percentage_of_nodes_to_score=global_percentage,
    )


def _runs(name: str, point: str) -> bool:
    cls = REGISTRY.get(name)
    return cls is not None and issubclass(cls, EXTENSION_POINTS[point])


def default_plugin_config(plugins: Plugins,
                          user: Sequence[tuple[str, Mapping[str, Any] | None]] = ()) -> list[tuple[str, Any]]:
    """setDefaults_KubeSchedulerProfile for pluginConfig: the user's entries defaulted, in their
    order, then default arguments for every enabled plugin that has an Args type and no entry
    (sorted by name)."""
    out: list[tuple[str, Any]] = []
    for name, args in user:
        out.append((name, default_args(name, args) if name in ARG_SCHEMAS else args))
    existing = {name for name, _ in user}
    for name in plugin_names(plugins):
        if name in ARG_SCHEMAS and name not in existing:
            out.append((name, default_args(name, None)))
    return out


def default_profile(scheduler_name: str = DEFAULT_SCHEDULER_NAME) -> ProfileConfig:
    """The v1.34.1 default profile (default_plugins.go:getDefaultPlugins), expanded, with the default plugin
    arguments (defaults.go:SetDefaults_*Args)."""
    plugins = merge_plugins(default_plugins(), None)
    return build_profile(scheduler_name, plugins, default_plugin_config(plugins))


def runs_plugin(profile: ProfileConfig, name: str) -> bool:
    """Whether the profile runs the plugin at some extension point kwhatif runs."""
    return any(name in names for names in profile.points.values())


def without_plugin(profile: ProfileConfig, name: str) -> ProfileConfig:
    """The profile with one plugin disabled at every extension point (e.g. `place
    --no-preemption`: DefaultPreemption off, as a KubeSchedulerConfiguration disabling it would)."""
    return replace(
        profile,
        points={point: [n for n in names if n != name] for point, names in profile.points.items()},
        extension_points={point: [n for n in names if n != name] for point, names in profile.extension_points.items()},
        weights={n: w for n, w in profile.weights.items() if n != name},
    )
