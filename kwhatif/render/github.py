"""GitHub Actions workflow commands: an `::error` annotation on the manifest line of each workload
that does not fit, one per failed policy, then a plain summary line."""

from __future__ import annotations

from typing import Any

from kwhatif.render.check import rollout_line, verdict, workload_ref


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def to_github(data: dict[str, Any], warnings: bool = True) -> str:
    """The annotations; `warnings=False` (`-q`) leaves out the `::warning` ones."""
    lines = []
    for w in data["workloads"]:
        if w["ok"]:
            continue
        props = []
        source = w["source"]
        if source and source["file"] != "stdin":
            props.append(f"file={_property(source['file'])}")
            if source["line"] is not None:
                props.append(f"line={source['line']}")
        props.append(f"title={_property('kwhatif check: ' + workload_ref(w))}")
        text = f"{workload_ref(w)}: {w['pending']} of {w['pods']} pods do not fit: {w['message']}" if w["pending"] \
            else f"{workload_ref(w)}: {w['message']}"
        rollout = rollout_line(w)
        if rollout:
            text += f"\n{rollout}"
        lines.append(f"::error {','.join(props)}::{_data(text)}")
    for p in data["policies"]:
        if not p["ok"]:
            lines.append(f"::error title={_property('kwhatif policy ' + p['policy'])}::"
                         f"{_data('; '.join(m for m in p['messages'] if m))}")
    for warning in data["warnings"] if warnings else []:
        lines.append(f"::warning title=kwhatif::{_data(warning)}")
    lines.append(verdict(data))
    return "\n".join(lines) + "\n"
