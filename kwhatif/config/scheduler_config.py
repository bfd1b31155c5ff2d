"""`--config FILE`: a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1), decoded,
defaulted and validated as kube-scheduler v1.34.1 does at start-up, then turned into profiles.

The steps and the texts follow kube-scheduler (reference §1.1, §1.5):

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

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import yaml

from kwhatif.config.args import (
    ARG_SCHEMAS, BOOL, DURATION, FLOAT32, INT32, INT64, STRING, TYPE_META, DurationError, GoText, ListOf, MapOf,
    Raw, Scalar, Struct, aggregate, child, duplicate, format_duration, go_quote, index, invalid,
    is_extended_resource_name, is_qualified_name, parse_duration, required, validate_args,
)
from kwhatif.config.profile import (
    KUBE_POINTS, PLUGIN_SETS, PluginRef, PluginSet, Plugins, ProfileConfig, ProfileError, build_profile,
    default_plugin_config, default_plugins, merge_plugins,
)
from kwhatif.plugins.registry import DEFAULT_SCHEDULER_NAME

GROUP = "kubescheduler.config.k8s.io"
API_VERSION = f"{GROUP}/v1"
KIND = "KubeSchedulerConfiguration"
SCHEME = "k8s.io/kubernetes/pkg/scheduler/apis/config/scheme/scheme.go:30"
# Plugins removed from the v1 API: refused by name in plugin sets and pluginConfig.
INVALID_PLUGINS = ("AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits")
DEFAULT_PARALLELISM = 16


class ConfigError(Exception):
    """A configuration kube-scheduler refuses; `str(err)` is kube-scheduler's own error text."""


# -- the v1 types, for the strict decoder ------------------------------------------------------

_PLUGIN = Struct("Plugin", "v1.Plugin", {"name": STRING, "weight": INT32})
_PLUGIN_SET = Struct("PluginSet", "v1.PluginSet", {"enabled": ListOf(_PLUGIN), "disabled": ListOf(_PLUGIN)})
_PLUGINS = Struct("Plugins", "v1.Plugins", {name: _PLUGIN_SET for name in
                                             ("preEnqueue", "queueSort", "preFilter", "filter", "postFilter",
                                              "preScore", "score", "reserve", "permit", "preBind", "bind",
                                              "postBind", "multiPoint")})
_PROFILE = Struct("KubeSchedulerProfile", "v1.KubeSchedulerProfile", {
    "schedulerName": STRING, "percentageOfNodesToScore": INT32, "plugins": _PLUGINS,
    "pluginConfig": ListOf(Struct("PluginConfig", "v1.PluginConfig", {"name": STRING, "args": Raw()})),
})
_EXTENDER = Struct("Extender", "v1.Extender", {
    "urlPrefix": STRING, "filterVerb": STRING, "preemptVerb": STRING, "prioritizeVerb": STRING, "weight": INT64,
    "bindVerb": STRING, "enableHTTPS": BOOL,
    "tlsConfig": Struct("ExtenderTLSConfig", "v1.ExtenderTLSConfig", {
        "insecure": BOOL, "serverName": STRING, "certFile": STRING, "keyFile": STRING, "caFile": STRING,
        "certData": STRING, "keyData": STRING, "caData": STRING}),
    "httpTimeout": DURATION, "nodeCacheCapable": BOOL,
    "managedResources": ListOf(Struct("ExtenderManagedResource", "v1.ExtenderManagedResource",
                                      {"name": STRING, "ignoredByScheduler": BOOL})),
    "ignorable": BOOL,
})
CONFIG_SCHEMA = Struct("KubeSchedulerConfiguration", "v1.KubeSchedulerConfiguration", {
    **TYPE_META,
    "parallelism": INT32,
    "leaderElection": Struct("LeaderElectionConfiguration", "v1alpha1.LeaderElectionConfiguration", {
        "leaderElect": BOOL, "leaseDuration": DURATION, "renewDeadline": DURATION, "retryPeriod": DURATION,
        "resourceLock": STRING, "resourceName": STRING, "resourceNamespace": STRING}),
    "clientConnection": Struct("ClientConnectionConfiguration", "v1alpha1.ClientConnectionConfiguration", {
        "kubeconfig": STRING, "acceptContentTypes": STRING, "contentType": STRING, "qps": FLOAT32,
        "burst": INT32}),
    "enableProfiling": BOOL, "enableContentionProfiling": BOOL,
    "percentageOfNodesToScore": INT32, "podInitialBackoffSeconds": INT64, "podMaxBackoffSeconds": INT64,
    "profiles": ListOf(_PROFILE), "extenders": ListOf(_EXTENDER), "delayCacheUntilActive": BOOL,
})

_INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


# -- decoding ------------------------------------------------------------------------------


class _Fatal(Exception):
    """An error that stops Go's JSON decoder at once (a json.Unmarshaler failing)."""


class _JsonNumber(float):
    """A JSON float literal with its text (Go quotes the literal in `number 1.50`)."""

    text: str

    def __new__(cls, text: str) -> _JsonNumber:
        obj = super().__new__(cls, float(text))
        obj.text = text
        return obj


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _number_text(value: int | float) -> str:
    if isinstance(value, _JsonNumber):
        return value.text
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e21:
            return str(int(value))
        return repr(value)
    return str(value)


class _Decoder:
    """Go's encoding/json (case-sensitive, strict) over already parsed data: the first type error
    (`json: cannot unmarshal X into Go struct field S.path of type T`), unknown and duplicate
    fields as strict errors. Objects are walked in key order for YAML input (Go converts YAML to
    JSON through a map, which sorts the keys) and in document order for JSON input."""

    def __init__(self, sort_keys: bool) -> None:
        self.sort_keys = sort_keys
        self.strict: list[str] = []
        self.type_error: str | None = None

    def decode(self, value: Any, schema: Struct) -> dict[str, Any]:
        out = self._value(value, schema, "", [], "")
        if self.type_error is not None:
            raise _Fatal(self.type_error)
        return out or {}

    def _type_error(self, value_kind: str, go_type: str, stack: list[str], struct: str) -> None:
        if self.type_error is None:
            where = f"Go struct field {struct}.{'.'.join(stack)}" if (struct or stack) else "Go value"
            self.type_error = f"json: cannot unmarshal {value_kind} into {where} of type {go_type}"

    def _value(self, value: Any, schema: Any, path: str, stack: list[str], struct: str) -> Any:
        if isinstance(schema, Raw):
            return value
        if value is None:
            if schema is DURATION:
                raise _Fatal('time: invalid duration ""')
            return None
        if isinstance(schema, Struct):
            if not isinstance(value, dict):
                self._type_error(_json_kind(value), schema.go, stack, struct)
                return None
            out: dict[str, Any] = {}
            keys = sorted(value) if self.sort_keys else list(value)
            for k in keys:
                sub_path = f"{path}.{k}" if path else k
                if k not in schema.fields:
                    self.strict.append(f"unknown field {go_quote(sub_path)}")
                    continue
                decoded = self._value(value[k], schema.fields[k], sub_path, stack + [k], schema.name)
                if decoded is not None:
                    out[k] = decoded
            return {k: out[k] for k in schema.fields if k in out}
        if isinstance(schema, ListOf):
            if not isinstance(value, list):
                self._type_error(_json_kind(value), schema.go, stack, struct)
                return None
            items = [self._value(v, schema.item, f"{path}[{i}]", stack, struct) for i, v in enumerate(value)]
            return [_zero(schema.item) if v is None else v for v in items]
        if isinstance(schema, MapOf):
            if not isinstance(value, dict):
                self._type_error(_json_kind(value), schema.go, stack, struct)
                return None
            out_map = {}
            for k in (sorted(value) if self.sort_keys else list(value)):
                decoded = self._value(value[k], schema.value, f"{path}.{k}", stack + [k], struct)
                out_map[k] = _zero(schema.value) if decoded is None else decoded
            return out_map
        return self._scalar(value, schema, stack, struct)

    def _scalar(self, value: Any, schema: Scalar, stack: list[str], struct: str) -> Any:
        kind = _json_kind(value)
        if schema.kind in _INT_RANGES:
            if kind != "number":
                self._type_error(kind, schema.go, stack, struct)
                return None
            low, high = _INT_RANGES[schema.kind]
            if isinstance(value, float) and (isinstance(value, _JsonNumber) or not value.is_integer()):
                self._type_error(f"number {_number_text(value)}", schema.go, stack, struct)
                return None
            number = int(value)
            if not low <= number <= high:
                self._type_error(f"number {_number_text(value)}", schema.go, stack, struct)
                return None
            return number
        if schema.kind == "float":
            if kind != "number":
                self._type_error(kind, schema.go, stack, struct)
                return None
            return float(value)
        if schema.kind == "bool":
            if kind != "bool":
                self._type_error(kind, schema.go, stack, struct)
                return None
            return value
        if schema.kind == "duration":  # metav1.Duration.UnmarshalJSON: a string for time.ParseDuration
            if kind != "string":
                where = f"Go struct field {struct}.{'.'.join(stack)}"
                raise _Fatal(f"json: cannot unmarshal {kind} into {where} of type string")
            try:
                parse_duration(value)
            except DurationError as err:
                raise _Fatal(str(err)) from None
            return value
        if kind != "string":
            self._type_error(kind, schema.go, stack, struct)
            return None
        return value


def _zero(schema: Any) -> Any:
    if isinstance(schema, Struct) or isinstance(schema, MapOf):
        return {}
    if isinstance(schema, ListOf):
        return []
    if isinstance(schema, Scalar):
        return {"int32": 0, "int64": 0, "float": 0.0, "bool": False}.get(schema.kind, "")
    return None


def _is_json(text: str) -> bool:
    return text.lstrip(" \t\r\n").startswith("{")


def _json_pairs(duplicates: list[str]) -> Any:
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in pairs:
            if k in out:
                duplicates.append(k)
            out[k] = v
        return out
    return hook


def _yaml_data(text: str) -> tuple[Any, list[str]]:
    """The first YAML document as JSON-like data, and go-yaml's duplicate-key complaints."""
    loader = yaml.CSafeLoader(text) if hasattr(yaml, "CSafeLoader") else yaml.SafeLoader(text)
    try:
        node = loader.get_node() if loader.check_node() else None
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        problem = getattr(err, "problem", None) or str(err)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        raise ConfigError(f"error converting YAML to JSON: yaml: {where}{problem}") from None
    finally:
        loader.dispose()
    dups: list[str] = []
    if node is not None:
        _duplicate_keys(node, dups)
    return _jsonable(data), dups


def _duplicate_keys(node: yaml.Node, out: list[str]) -> None:
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                if key_node.value in seen:
                    out.append(f"line {key_node.start_mark.line + 1}: key {go_quote(key_node.value)} already set in map")
                seen.add(key_node.value)
            _duplicate_keys(value_node, out)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _duplicate_keys(item, out)


def _jsonable(data: Any) -> Any:
    """YAML values as sigs.k8s.io/yaml turns them into JSON (keys become strings)."""
    if isinstance(data, dict):
        return {_key_text(k): _jsonable(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_jsonable(v) for v in data]
    if isinstance(data, float) and (math.isnan(data) or math.isinf(data)):
        return str(data)
    if isinstance(data, (str, int, float, bool)) or data is None:
        return data
    return str(data)


def _key_text(k: Any) -> str:
    if isinstance(k, bool):
        return "true" if k else "false"
    return str(k) if not isinstance(k, str) else k


_TYPE_META_STRUCT = ('struct { APIVersion string "json:\\"apiVersion,omitempty\\""; '
                     'Kind string "json:\\"kind,omitempty\\"" }')


def _type_meta(data: Any, original: str) -> tuple[str, str]:
    """The serializer's first look (apiVersion, kind) and its errors."""
    if data is not None and not isinstance(data, dict):
        raise ConfigError(f"couldn't get version/kind; json parse error: json: cannot unmarshal {_json_kind(data)} "
                          f"into Go value of type {_TYPE_META_STRUCT}")
    meta = data or {}
    for name in ("apiVersion", "kind"):
        if meta.get(name) is not None and not isinstance(meta[name], str):
            raise ConfigError(f"couldn't get version/kind; json parse error: json: cannot unmarshal "
                              f"{_json_kind(meta[name])} into Go struct field .{name} of type string")
    api_version, kind = meta.get("apiVersion") or "", meta.get("kind") or ""
    if not kind:
        raise ConfigError(f"Object 'Kind' is missing in '{original}'")
    if not api_version:
        raise ConfigError(f"Object 'apiVersion' is missing in '{original}'")
    return api_version, kind


def _not_registered(kind: str, version: str) -> str:
    return f"no kind {go_quote(kind)} is registered for version {go_quote(version)} in scheme {go_quote(SCHEME)}"


def decode(text: str) -> dict[str, Any]:
    """The configuration as typed v1 data (only known fields, arguments of in-tree plugins
    decoded), or ConfigError with the decoder's text."""
    strict: list[str] = []
    if _is_json(text):
        dups: list[str] = []
        try:
            data = json.loads(text, object_pairs_hook=_json_pairs(dups), parse_float=_JsonNumber)
        except json.JSONDecodeError as err:
            raise ConfigError(f"couldn't get version/kind; json parse error: {err.msg}") from None
        sort_keys = False
        strict.extend(f"duplicate field {go_quote(k)}" for k in dups)
    else:
        data, yaml_dups = _yaml_data(text)
        sort_keys = True
        if yaml_dups:
            strict.append("error converting YAML to JSON: yaml: unmarshal errors:\n  " + "\n  ".join(yaml_dups))
    api_version, kind = _type_meta(data, text)
    if (api_version, kind) != (API_VERSION, KIND):
        raise ConfigError(_not_registered(kind, api_version))
    decoder = _Decoder(sort_keys)
    try:
        config = decoder.decode(data, CONFIG_SCHEMA)
    except _Fatal as err:
        raise ConfigError(str(err)) from None
    strict.extend(decoder.strict)
    for i, profile in enumerate(config.get("profiles") or []):
        for j, entry in enumerate(profile.get("pluginConfig") or []):
            name = entry.get("name", "")
            if name not in ARG_SCHEMAS:
                continue
            where = f"decoding .profiles[{i}].pluginConfig[{j}]"
            args, errs = _decode_args(name, entry.get("args"), sort_keys, where)
            entry["args"] = args
            if errs:
                strict.append(f"{where}: strict decoding error: decoding args for plugin {name}: "
                              f"strict decoding error: {', '.join(errs)}")
    if strict:
        raise ConfigError("strict decoding error: " + ", ".join(strict))
    return config


def _decode_args(name: str, raw: Any, sort_keys: bool, where: str) -> tuple[dict[str, Any], list[str]]:
    """PluginConfig.decodeNestedObjects for an in-tree plugin: (typed args, strict errors)."""
    if raw is None:
        return {}, []
    prefix = f"{where}: decoding args for plugin {name}: "
    if not isinstance(raw, dict):
        raise ConfigError(prefix + f"couldn't get version/kind; json parse error: json: cannot unmarshal "
                                   f"{_json_kind(raw)} into Go value of type {_TYPE_META_STRUCT}")
    want = name + "Args"
    kind = raw.get("kind") or want
    version = raw.get("apiVersion") or API_VERSION
    if not isinstance(kind, str) or not isinstance(version, str):
        raise ConfigError(prefix + "couldn't get version/kind; json parse error: json: cannot unmarshal "
                                   "number into Go struct field .kind of type string")
    known_kinds = {n + "Args" for n in ARG_SCHEMAS}
    if version != API_VERSION or kind not in known_kinds:
        raise ConfigError(prefix + _not_registered(kind, version))
    if kind != want:
        raise ConfigError(f"{where}: args for plugin {name} were not of type {want}.{GROUP}, got {kind}.{GROUP}")
    decoder = _Decoder(sort_keys)
    try:
        args = decoder.decode(raw, ARG_SCHEMAS[name])
    except _Fatal as err:
        raise ConfigError(prefix + str(err)) from None
    return args, decoder.strict


# -- defaulting --------------------------------------------------------------------------------


def _plugin_sets(raw: Mapping[str, Any] | None) -> Plugins | None:
    if raw is None:
        return None
    def refs(items: Any) -> tuple[PluginRef, ...]:
        return tuple(PluginRef(p.get("name", ""), p.get("weight")) for p in items or ())
    return {name: PluginSet(refs((raw.get(name) or {}).get("enabled")), refs((raw.get(name) or {}).get("disabled")))
            for name in PLUGIN_SETS}


@dataclass
class _Profile:
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


def _defaulted_profiles(config: Mapping[str, Any]) -> list[_Profile]:
    raw_profiles = list(config.get("profiles") or [{}])
    profiles = []
    for raw in raw_profiles:
        name = raw.get("schedulerName")
        if name is None and len(raw_profiles) == 1:
            name = DEFAULT_SCHEDULER_NAME
        plugins = merge_plugins(default_plugins(), _plugin_sets(raw.get("plugins")))
        user = [(e.get("name", ""), e.get("args")) for e in raw.get("pluginConfig") or []]
        profiles.append(_Profile(name, raw.get("percentageOfNodesToScore"), plugins,
                                 default_plugin_config(plugins, user)))
    return profiles


# -- validation --------------------------------------------------------------------------------


def _go_plugin_set(plugin_set: PluginSet) -> GoText:
    """`%#v` of an internal config.PluginSet (nil lists print as `(nil)`)."""
    def plugins(refs: Sequence[PluginRef]) -> str:
        if not refs:
            return "[]config.Plugin(nil)"
        return "[]config.Plugin{" + ", ".join(
            f"config.Plugin{{Name:{go_quote(p.name)}, Weight:{p.weight or 0}}}" for p in refs) + "}"
    return GoText(f"config.PluginSet{{Enabled:{plugins(plugin_set.enabled)}, Disabled:{plugins(plugin_set.disabled)}}}")


def _same_set(a: PluginSet, b: PluginSet) -> bool:
    def norm(refs: Sequence[PluginRef]) -> list[tuple[str, int]]:
        return [(p.name, p.weight or 0) for p in refs]
    return norm(a.enabled) == norm(b.enabled) and norm(a.disabled) == norm(b.disabled)


def _validate_percentage(path: str, value: int | None) -> list[str]:
    if value is not None and (value < 0 or value > 100):
        return [invalid(path, value, "not in valid range [0-100]")]
    return []


def _validate_profile(path: str, profile: _Profile) -> list[str]:
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


def _validate_common_queue_sort(profiles: Sequence[_Profile]) -> list[str]:
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


def _validate(config: Mapping[str, Any], profiles: Sequence[_Profile]) -> list[str]:
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


# -- the result ------------------------------------------------------------------------------


@dataclass
class SchedulerConfig:
    """An effective KubeSchedulerConfiguration: its profiles ready for the engine and the
    scheduler-wide settings (`percentage_of_nodes_to_score` 0 means adaptive, §7; kwhatif examines
    every node whatever it says). `source` is the file, None for the built-in defaults."""

    profiles: list[ProfileConfig]
    percentage_of_nodes_to_score: int = 0
    parallelism: int = DEFAULT_PARALLELISM
    pod_initial_backoff_seconds: int = 1
    pod_max_backoff_seconds: int = 10
    extenders: list[dict[str, Any]] = field(default_factory=list)
    source: str | None = None
    warnings: list[str] = field(default_factory=list)


def _with_defaults(config: dict[str, Any]) -> dict[str, Any]:
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


def parse_scheduler_config(text: str, source: str | None = None) -> SchedulerConfig:
    """Decode, default, validate and build the profiles of a configuration file's text."""
    config = _with_defaults(decode(text))
    profiles = _defaulted_profiles(config)
    message = aggregate(_validate(config, profiles))
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
