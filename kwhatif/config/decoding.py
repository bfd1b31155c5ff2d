"""Decoding a KubeSchedulerConfiguration as kube-scheduler's scheme does
(`cmd/kube-scheduler/app/options/configfile.go`, the strict codec): YAML or JSON; missing or
unknown apiVersion/kind; type errors (`json: cannot unmarshal ...`); unknown and duplicate fields
(`strict decoding error: ...`); the plugin arguments of in-tree plugins decoded by plugin name
(`decoding .profiles[i].pluginConfig[j]: ...`)."""

from __future__ import annotations

import json
import math
from typing import Any

import yaml

from kwhatif.config.args import ARG_SCHEMAS
from kwhatif.golang import DurationError, go_quote, parse_duration
from kwhatif.config.schema import API_VERSION, CONFIG_SCHEMA, GROUP, KIND, SCHEME
from kwhatif.config.types import DURATION, ListOf, MapOf, Raw, Scalar, Struct


class ConfigError(Exception):
    """A configuration kube-scheduler refuses; `str(err)` is kube-scheduler's own error text."""


_INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


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

    def decode_struct(self, value: Any, schema: Struct) -> dict[str, Any]:
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
        # A reader error (a control character, bad UTF-8) says its reason as go-yaml does
        # ("control characters are not allowed"), without PyYAML's second line of position.
        problem = getattr(err, "problem", None) or getattr(err, "reason", None) or " ".join(str(err).split())
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


def decode_scheduler_config(text: str) -> dict[str, Any]:
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
        config = decoder.decode_struct(data, CONFIG_SCHEMA)
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
        args = decoder.decode_struct(raw, ARG_SCHEMAS[name])
    except _Fatal as err:
        raise ConfigError(prefix + str(err)) from None
    return args, decoder.strict

