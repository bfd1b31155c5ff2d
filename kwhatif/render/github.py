"""GitHub Actions workflow commands: an `::error` annotation on the manifest line of each workload
that does not fit, one per failed policy, then a plain summary line."""

from __future__ import annotations

from typing import Any

from kwhatif.render.check import result_word, rollout_line, verdict, workload_ref


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def _where(w: dict[str, Any]) -> str:
    """An annotation's properties: the workload's manifest file and line, and a title."""
    props = []
    source = w["source"]
    if source and source["file"] != "stdin":
        props.append(f"file={_property(source['file'])}")
        if source["line"] is not None:
            props.append(f"line={source['line']}")
    props.append(f"title={_property('kwhatif check: ' + workload_ref(w))}")
    return ",".join(props)


def to_github(data: dict[str, Any], warnings: bool = True) -> str:
    """The annotations; `warnings=False` (`-q`) leaves out the `::warning` ones."""
    lines, anchored = [], set()
    for w in data["workloads"]:
        if w["ok"]:
            if result_word(w) == "no node":  # passes, but runs nowhere: said where it is written
                anchored.add(f"{workload_ref(w)}: {w['message']}")
                lines.append(f"::warning {_where(w)}::{_data(workload_ref(w) + ': ' + w['message'])}")
            continue
        text = f"{workload_ref(w)}: {w['pending']} of {w['pods']} pods do not fit: {w['message']}" if w["pending"] \
            else f"{workload_ref(w)}: {w['message']}"
        rollout = rollout_line(w)
        if rollout:
            text += f"\n{rollout}"
        lines.append(f"::error {_where(w)}::{_data(text)}")
    for p in data["policies"]:
        if not p["ok"]:
            lines.append(f"::error title={_property('kwhatif policy ' + p['policy'])}::"
                         f"{_data('; '.join(m for m in p['messages'] if m))}")
    for warning in data["warnings"] if warnings else []:
        if warning not in anchored:
            lines.append(f"::warning title=kwhatif::{_data(warning)}")
    lines.append(verdict(data))
    return "\n".join(lines) + "\n"
