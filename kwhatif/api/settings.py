"""What a container sets that no scheduler plugin reads but its controller's template hash covers:
env vars, envFrom, command and args. `check` compares them with the running pods' to tell a
template that changed by them alone (a new config value rolls the pods, surge and all), so they
are kept as digests, by key: `env:<name>` per variable, `envFrom`, `command`, `args`.

A redacted snapshot (`kwhatif.live.redact`) keeps them in the container as sealed digests of
their values (`redacted_env_var`, `redacted_list`, `redacted_env_from`; `api.meta.sealed_digest`):
credentials do not leave the cluster as they are, a change still shows (`matches` takes every
form: plain, sealed, and the plain digests of an older kwhatif's snapshots)."""

from __future__ import annotations

import json
from typing import Any

from kwhatif.api.meta import salt_of, sealed_digest, value_digest
from kwhatif.api.quantity import QuantityError, parse_quantity

Settings = tuple[tuple[str, str], ...]
LISTS = ("command", "args")
ORDER = "env order"
"""The env vars' names in their order (it is part of the template, and of `$(VAR)` expansion)."""


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def env_body(var: dict[str, Any]) -> dict[str, Any]:
    """An env var without its name, as the API server stores it: an empty value dropped
    (`omitempty`), a fieldRef's apiVersion defaulted to v1 (core v1 defaults.go), a
    resourceFieldRef's divisor by its value (zero left out) — so a manifest compares equal to its
    running pod."""
    body = {k: v for k, v in var.items() if k != "name" and not (k == "value" and v in ("", None))}
    source = body.get("valueFrom")
    if isinstance(source, dict):
        source = dict(source)
        if isinstance(source.get("fieldRef"), dict):
            source["fieldRef"] = {**source["fieldRef"], "apiVersion": source["fieldRef"].get("apiVersion") or "v1"}
        if isinstance(source.get("resourceFieldRef"), dict):
            ref = dict(source["resourceFieldRef"])
            divisor = _quantity_value(ref.pop("divisor", None) or "0")
            source["resourceFieldRef"] = ref if divisor == "0" else {**ref, "divisor": divisor}
        body["valueFrom"] = source
    return body


def _quantity_value(value: Any) -> str:
    """A divisor as its exact value: the API server stores a Quantity in canonical form (`1` is
    `"1"`, `1024Ki` is `"1Mi"`), so two spellings of one amount are the same setting."""
    try:
        return str(parse_quantity(value))
    except QuantityError:  # not an amount: compared as written
        return str(value)


SEALED = "sealed "
"""Before a setting the container holds as a redacted snapshot's sealed digest (that digest):
`matches` seals the manifest's with its salt."""


def container_settings(raw: dict[str, Any]) -> Settings:
    """The container's settings, by key (a name set twice: the last one, as the kubelet takes
    it); empty when it sets none — a template that adds the first one changed. (A snapshot that
    an older kwhatif redacted dropped them: its pods read as setting none.)"""
    items: dict[str, str] = {}
    env = raw.get("env")
    names = []
    for var in env if isinstance(env, list) else ():
        if isinstance(var, dict) and isinstance(var.get("name"), str):
            items[f"env:{var['name']}"] = _setting(f"env:{var['name']}", env_body(var))
            names.append(var["name"])
    if names:
        items[ORDER] = "\n".join(names)
    for key in ("envFrom", *LISTS):
        if raw.get(key):
            items[key] = _setting(key, raw[key])
    return tuple(sorted(items.items()))


def _setting(key: str, value: Any) -> str:
    """A setting's digest, or the sealed digest a redacted snapshot holds in its place."""
    stored = _sealed_in(key, value)
    return SEALED + stored if stored is not None else value_digest(canonical(value))


def _sealed_in(key: str, value: Any) -> str | None:
    """The sealed digest `value` is the redacted form of (`_redacted_form`), if it is one."""
    if key.startswith("env:"):
        stored = value.get("value") if isinstance(value, dict) else None
    elif key == "envFrom":
        first = value[0] if isinstance(value, list) and len(value) == 1 else None
        stored = first.get("prefix") if isinstance(first, dict) else None
    else:
        stored = value[0] if isinstance(value, list) and len(value) == 1 else None
    if isinstance(stored, str) and salt_of(stored) is not None and value == _redacted_form(key, stored):
        return stored
    return None


def redacted_env_var(var: dict[str, Any], salt: str) -> dict[str, Any]:
    """The env var a redacted snapshot keeps: its name, its value and source as one sealed digest."""
    return {"name": var.get("name"), "value": sealed_digest(value_digest(canonical(env_body(var))), salt)}


def redacted_list(values: Any, salt: str) -> list[str]:
    """A command or args list as a redacted snapshot keeps it: one sealed digest."""
    return [sealed_digest(value_digest(canonical(values)), salt)]


def redacted_env_from(sources: Any, salt: str) -> list[dict[str, str]]:
    """envFrom as a redacted snapshot keeps it (the names it holds may say too much): one sealed
    digest, in the one field of an envFrom source that is a plain string."""
    return [{"prefix": sealed_digest(value_digest(canonical(sources)), salt)}]


def _redacted_form(key: str, digest: str) -> Any:
    """What a redacted snapshot's container holds for a setting whose digest is `digest`."""
    if key.startswith("env:"):
        return {"value": digest}
    return [{"prefix": digest}] if key == "envFrom" else [digest]


def matches(key: str, wanted: str, running: str) -> bool:
    """Whether a running container's setting (`running`, a digest) is the manifest's (`wanted`),
    read plainly or through a redacted snapshot (the digest of the digest's redacted form); for
    the env order, whether the manifest's variables come in its order among the running ones
    (others are taken as injected)."""
    if key == ORDER:
        names = wanted.split("\n")
        kept = set(names)
        return [n for n in running.split("\n") if n in kept] == names
    if running.startswith(SEALED):
        stored = running[len(SEALED):]
        return stored == sealed_digest(wanted, salt_of(stored) or "")
    return running in (wanted, value_digest(canonical(_redacted_form(key, wanted))))
