"""krew's own checks of a plugin manifest, ported rule for rule so `make krew` and the tests refuse
a manifest krew would refuse.

Sources (kubernetes-sigs/krew):
- `internal/index/validation/validate.go`: `ValidatePlugin`, `validatePlatform`, `validateFiles`,
  `validateSelector`, `IsSafePluginName`; the first failing rule is the error, as there.
- `pkg/constants/constants.go`: `CurrentAPIVersion`, `PluginKind`.
- `internal/installation/semver/version.go:Parse`: a leading `v`, then
  `k8s.io/apimachinery/pkg/util/version.ParseSemantic` (`parse(str, true)`).
- `internal/index/indexscanner/scanner.go:LoadPluginByName`: a manifest file is NAME.yaml.
krew decodes leniently (`yaml.Unmarshal`, not `UnmarshalStrict`): unknown fields pass, as here.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

API_VERSION = "krew.googlecontainertools.github.com/v1alpha2"
KIND = "Plugin"
SAFE_NAME = re.compile(r"^[\w-]+$", re.ASCII)  # Go's \w is ASCII only
SHA256 = re.compile(r"^[a-f0-9]{64}$")
WINDOWS_FORBIDDEN = ("CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(1, 10)), *(f"LPT{i}" for i in range(1, 10)))
SELECTOR_KEYS = ("os", "arch")

# apimachinery's version.go: the numeric part, then pre-release and build metadata.
VERSION_MATCH = re.compile(r"^\s*v?([0-9]+(?:\.[0-9]+)*)(.*)\Z")  # Go's `.` stops at a newline too
EXTRA_MATCH = re.compile(r"^(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?\s*\Z")


def is_safe_plugin_name(name: str) -> bool:
    """validate.go:IsSafePluginName: word characters and dashes, and no Windows device name."""
    return bool(SAFE_NAME.match(name)) and name.upper() not in WINDOWS_FORBIDDEN


def semver_error(version: str) -> str | None:
    """semver.Parse: krew wants the `v`; then ParseSemantic's rules (three numeric components
    without leading zeros, a well-formed pre-release/build suffix)."""
    if not version.startswith("v"):
        return f"version string {version!r} not starting with 'v'"
    parts = VERSION_MATCH.match(version)
    if parts is None:
        return f"could not parse {version!r} as version"
    components, extra = parts.group(1).split("."), parts.group(2)
    if len(components) != 3:
        return f"illegal version string {version!r}"
    if any(c.startswith("0") and c != "0" for c in components):
        return f"illegal zero-prefixed version component in {version!r}"
    if not extra:
        return None
    extras = EXTRA_MATCH.match(extra)
    if extras is None:
        return f"could not parse pre-release/metadata ({extra}) in version {version!r}"
    numeric = [c for c in (extras.group(1) or "").split(".") if c.isdigit()]
    if any(c.startswith("0") and c != "0" for c in numeric):
        return f"illegal zero-prefixed version component in {version!r}"
    return None


def plugin_error(name: str, plugin: dict[str, Any]) -> str | None:
    """validate.go:ValidatePlugin: the first rule `plugin` breaks, or None; `name` is the name
    the plugin is installed as (the manifest's file name without `.yaml`)."""
    spec = plugin.get("spec") or {}
    short = spec.get("shortDescription") or ""
    platforms = spec.get("platforms") or []
    version = spec.get("version") or ""
    if plugin.get("apiVersion") != API_VERSION:
        return f"plugin manifest has apiVersion={plugin.get('apiVersion')!r}, not supported in this version of krew"
    if plugin.get("kind") != KIND:
        return f"plugin manifest has kind={plugin.get('kind')!r}, but only {KIND!r} is supported"
    if not is_safe_plugin_name(name):
        return f"the plugin name {name!r} is not allowed, must match {SAFE_NAME.pattern!r}"
    if (plugin.get("metadata") or {}).get("name") != name:
        return f"plugin should be named {name!r}, not {(plugin.get('metadata') or {}).get('name')!r}"
    if not short:
        return "should have a short description"
    if "\r" in short or "\n" in short:
        return "should not have line breaks in short description"
    if not platforms:
        return "should have a platform specified"
    if not version:
        return "should have a version specified"
    wrong_version = semver_error(version)
    if wrong_version:
        return f"failed to parse plugin version: {wrong_version}"
    for platform in platforms:
        wrong = platform_error(platform)
        if wrong:
            return f"platform is badly constructed: {wrong}"
    return None


def platform_error(platform: dict[str, Any]) -> str | None:
    """validate.go:validatePlatform."""
    sha = platform.get("sha256") or ""
    if not platform.get("uri"):
        return "`uri` has to be set"
    if not sha:
        return "`sha256` sum has to be set"
    if not SHA256.match(sha):
        return f"`sha256` value {sha} is not valid, must match pattern {SHA256.pattern}"
    if not platform.get("bin"):
        return "`bin` has to be set"
    wrong_files = files_error(platform.get("files"))
    if wrong_files:
        return f"`files` is invalid: {wrong_files}"
    wrong_selector = selector_error(platform.get("selector"))
    return f"invalid platform selector: {wrong_selector}" if wrong_selector else None


def files_error(files: list[dict[str, Any]] | None) -> str | None:
    """validate.go:validateFiles: absent is fine (krew then extracts everything); present must
    list something, each operation with both ends."""
    if files is None:
        return None
    if not files:
        return "`files` has to be unspecified or non-empty"
    for op in files:
        if not op.get("from"):
            return "`from` field has to be set"
        if not op.get("to"):
            return "`to` field has to be set"
    return None


def selector_error(selector: dict[str, Any] | None) -> str | None:
    """validate.go:validateSelector: a selector on `os` and `arch` only, never empty. YAML null
    is Go's nil; `{}` is an empty but present map."""
    if selector is None:
        return "nil selector is not supported"
    labels, expressions = selector.get("matchLabels"), selector.get("matchExpressions")
    if labels is None and not expressions:
        return "empty selector is not supported"
    keys = list(labels or {}) + [e.get("key") for e in expressions or []]
    unsupported = [k for k in keys if k not in SELECTOR_KEYS]
    if unsupported:
        return f"key {unsupported[0]!r} not supported"
    if labels is not None and not labels:
        return "`matchLabels` specified but empty"
    if expressions is not None and not expressions:
        return "`matchExpressions` specified but empty"
    return None


def manifest_file_error(path: Path) -> str | None:
    """A manifest file as krew reads it (scanner.go): YAML decoded leniently, installed under its
    file name, which must then be the plugin's name."""
    plugin = yaml.safe_load(path.read_text())
    if not isinstance(plugin, dict):
        return f"{path}: not a YAML mapping"
    wrong = plugin_error(path.name.removesuffix(".yaml"), plugin)
    return f"{path}: {wrong}" if wrong else None
