"""A sweep file → its scenarios and everything they need, read and checked once, up front.

The file is checked against `sweep.schema.json` (also `schemas/sweep.schema.json`) first: a bad
file is one error line naming the file and the field (`nodes[0].counts[1]`). Then every input it names is
read as the commands read them (snapshots as `-c`, workload files as `check`, node templates as
`capacity --add-node`, configurations as `--config`), so a bad input stops the sweep before any
scenario runs — but a snapshot that cannot be read, which fails only its own scenarios' rows. What the workers get is a `Plan` (decoded objects, no path to read) and each
snapshot's prepared bytes: never a file they would have to reach, nor a kubeconfig."""

from __future__ import annotations

import glob
import itertools
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema

from kwhatif.api.objects import Node
from kwhatif.api.timestamps import parse_rfc3339
from kwhatif.check import NO_WORKLOAD, parse_headroom
from kwhatif.config.decoding import ConfigError
from kwhatif.config.profile import ProfileConfig
from kwhatif.config.scheduler_config import load_scheduler_config
from kwhatif.errors import InputError, Source
from kwhatif.load.cluster import load_cluster
from kwhatif.load.fields import Fields
from kwhatif.load.prepared import (
    encode_prepared, header_warnings, input_digest, is_prepared, read_header, verified_payload,
)
from kwhatif.load.selectors import checked_labels
from kwhatif.load.yaml_text import parse_yaml
from kwhatif.whatif.ops import template_node
from kwhatif.workloads import load_workloads, workload_refs

SCHEMA_PATH = Path(__file__).with_name("sweep.schema.json")
DEFAULT_CONFIG = "default"


@lru_cache(maxsize=1)
def sweep_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(SCHEMA_PATH.read_text())
    return schema


@dataclass(frozen=True)
class Scenario:
    """One scenario, by the names of its axes' values (resolved by the `Plan`)."""

    index: int
    snapshot: str
    workloads: str | None = None
    template: str | None = None
    count: int = 0
    remove: str | None = None
    config: str = DEFAULT_CONFIG

    def data(self) -> dict[str, Any]:
        return {"scenario": self.index, "snapshot": self.snapshot, "workloads": self.workloads,
                "node_template": self.template, "node_count": self.count, "remove": self.remove,
                "config": self.config}


@dataclass(frozen=True)
class CheckOptions:
    """The `kwhatif check` policies every scenario with workloads applies."""

    no_evictions: bool = False
    headroom: dict[str, Fraction] | None = None
    node_loss: int = 0
    zone_loss: bool = False
    replicas_mode: str = "spec"
    as_new: bool = False


@dataclass
class Plan:
    """What a worker needs besides the snapshots: decoded, picklable, path-free."""

    now: str
    workloads: dict[str, list[object]] = field(default_factory=dict)
    templates: dict[str, Node] = field(default_factory=dict)
    removals: dict[str, dict[str, str]] = field(default_factory=dict)
    configs: dict[str, list[ProfileConfig] | None] = field(default_factory=dict)
    check: CheckOptions = CheckOptions()


@dataclass
class Sweep:
    """A read sweep: its scenarios in order, the plan, each snapshot's prepared bytes (by the
    snapshot's name), the warnings of reading the inputs, and the snapshots that could not be
    read, with why (their scenarios' rows say it; the others run: one stale dump of forty
    clusters does not stop a fleet check)."""

    plan: Plan
    scenarios: list[Scenario]
    snapshots: dict[str, bytes]
    warnings: list[str]
    unreadable: dict[str, str] = field(default_factory=dict)


def field_path(path: Any) -> str:
    """`nodes[0].counts[1]` from a jsonschema error's absolute path."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def validate_sweep(doc: Any, file: str) -> None:
    """The schema's first error (by position in the file), as one line naming the field."""
    validator = jsonschema.Draft202012Validator(sweep_schema())
    errors = sorted(validator.iter_errors(doc), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    if errors:
        first = errors[0]
        if first.validator == "not" and not first.absolute_path:  # the schema's `else: not required scenarios`
            raise InputError("listed scenarios need `combine: list` (the default, product, combines the axes)",
                             Source(file), "Sweep", "scenarios")
        raise InputError(_as_written(first), Source(file), "Sweep", field_path(first.absolute_path))


def _as_written(error: jsonschema.ValidationError) -> str:
    """jsonschema's message with a null or a boolean the file holds spelled as the file spells
    it (`null`, `true`), not as Python does (`None`, `True`)."""
    instance, message = error.instance, error.message
    if (instance is None or isinstance(instance, bool)) and message.startswith(repr(instance)):
        return json.dumps(instance) + message[len(repr(instance)):]
    return message


def read_sweep_file(file: str) -> dict[str, Any]:
    """The one document of a sweep file, read as every input is (`parse_yaml`: duplicate keys,
    deep nesting and alias bombs refused) and validated against the schema."""
    if file == "-":
        raise InputError("a sweep file is read from a path, not from stdin (its paths are relative to its folder)")
    try:
        with open(file, "rb") as stream:
            text = stream.read()
    except FileNotFoundError:
        raise InputError("no such file or directory", Source(file)) from None
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror or err}", Source(file)) from None
    docs = [value for _, value, _, _ in parse_yaml(text, file) if value is not None]
    if not docs:
        raise InputError("the file is empty: a Sweep names at least its snapshots (schemas/sweep.schema.json)",
                         Source(file))
    if len(docs) > 1:
        raise InputError(f"{len(docs)} YAML documents: a sweep file holds one Sweep", Source(file))
    validate_sweep(docs[0], file)
    assert isinstance(docs[0], dict)
    return docs[0]


class SweepPaths:
    """Paths of the sweep file resolved against its folder, named as written (rows stay the
    same wherever the sweep runs from)."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.base = os.path.dirname(os.path.abspath(file))

    def path(self, name: str) -> str:
        return os.path.join(self.base, name)

    def snapshot_names(self, patterns: list[str]) -> list[str]:
        """Each pattern's matches in name order (a plain path is itself; `**` spans folders, as a
        shell's globstar does); one matching nothing is an error naming the field."""
        names: list[str] = []
        seen: set[str] = set()

        def add(name: str) -> None:
            """./a.yaml and a.yaml are one snapshot: run once, whichever way it is named."""
            if os.path.normpath(name) not in seen:
                seen.add(os.path.normpath(name))
                names.append(name)
        for i, pattern in enumerate(patterns):
            if glob.has_magic(pattern):
                found = sorted(os.path.relpath(p, self.base) for p in glob.glob(self.path(pattern), recursive=True))
                if not found:
                    raise InputError(f"{pattern!r} matches no file", Source(self.file), "Sweep", f"snapshots[{i}]")
                for name in found:
                    add(name)
            elif not os.path.exists(self.path(pattern)):  # a typo, not a snapshot that cannot be read
                raise InputError(f"{pattern!r}: no such file or directory", Source(self.file), "Sweep", f"snapshots[{i}]")
            else:
                add(pattern)
        return names


def prepared_bytes(path: str, warnings: list[str]) -> bytes:
    """A snapshot as the workers receive it: a `.kws` file's own bytes (header checked), or the
    dump loaded here once and encoded; either way its warnings added to `warnings` (a `.kws`
    header repeats them: the workers, not this process, decode the payload)."""
    if is_prepared(path):
        try:
            with open(path, "rb") as stream:
                data = stream.read()
        except OSError as err:
            raise InputError(f"cannot read: {err.strerror or err}", Source.whole(path)) from None
        verified_payload(data, path)
        warnings.extend(header_warnings(read_header(data, path)[0], path))
        return data
    cluster = load_cluster([path])
    warnings.extend(cluster.warnings)
    return encode_prepared(cluster, input_digest([path]))


def check_options(doc: dict[str, Any], file: str) -> CheckOptions:
    """The check's options; refused without workloads to judge: a sweep of bare snapshots runs
    `schedule`, and its policies (a zone's loss...) would be dropped without a word."""
    options = doc.get("check", {})
    headroom = None
    if "headroom" in options:
        try:
            headroom = parse_headroom(options["headroom"])
        except InputError as err:
            raise InputError(err.message.removeprefix("--headroom: "), Source(file), "Sweep", "check.headroom") from None
    if options and not doc.get("workloads"):
        raise InputError("the check's policies judge workloads, and the sweep names none: add `workloads`, or drop "
                         "`check`", Source(file), "Sweep", "check")
    return CheckOptions(options.get("noEvictions", False), headroom, options.get("tolerateNodeLoss", 0),
                        options.get("tolerateZoneLoss", False), options.get("replicas", "spec"),
                        not options.get("rollout", True))


def product_scenarios(doc: dict[str, Any], snapshots: list[str]) -> list[Scenario]:
    """Every combination, snapshots outermost, then workloads, node templates × counts, removals
    and configurations (the last varies fastest)."""
    workloads: list[str | None] = [w["name"] for w in doc.get("workloads", [])] or [None]
    nodes: list[tuple[str | None, int]] = [(n["template"], c) for n in doc.get("nodes", []) for c in n["counts"]]
    removals: list[str | None] = [r["name"] for r in doc.get("remove", [])] or [None]
    configs: list[str] = doc.get("configs", [DEFAULT_CONFIG])
    combos = itertools.product(snapshots, workloads, nodes or [(None, 0)], removals, configs)
    return [Scenario(i, s, w, t, c, r, k) for i, (s, w, (t, c), r, k) in enumerate(combos)]


def listed_scenarios(doc: dict[str, Any]) -> list[Scenario]:
    out = []
    for i, entry in enumerate(doc["scenarios"]):
        nodes = entry.get("nodes") or {}
        out.append(Scenario(i, entry["snapshot"], entry.get("workloads"), nodes.get("template"),
                            nodes.get("count", 0), entry.get("remove"), entry.get("config", DEFAULT_CONFIG)))
    return out


def check_names(doc: dict[str, Any], scenarios: list[Scenario], paths: SweepPaths) -> None:
    """A listed scenario names workloads and removals defined in the file, and a snapshot that
    exists (a typo, as in `snapshots`; a snapshot that cannot be read fails its rows only)."""
    file = paths.file
    defined = {"workloads": {w["name"] for w in doc.get("workloads", [])},
               "remove": {r["name"] for r in doc.get("remove", [])}}
    for s in scenarios:
        if not os.path.exists(paths.path(s.snapshot)):
            raise InputError(f"{s.snapshot!r}: no such file or directory", Source(file), "Sweep",
                             f"scenarios[{s.index}].snapshot")
        for axis, value in (("workloads", s.workloads), ("remove", s.remove)):
            if value is not None and value not in defined[axis]:
                raise InputError(f"{value!r} is not defined under {axis}", Source(file), "Sweep",
                                 f"scenarios[{s.index}].{axis}")


def unique_names(doc: dict[str, Any], file: str) -> None:
    for axis in ("workloads", "remove"):
        seen: set[str] = set()
        for i, entry in enumerate(doc.get(axis, [])):
            if entry["name"] in seen:
                raise InputError(f"duplicate name {entry['name']!r}", Source(file), "Sweep", f"{axis}[{i}].name")
            seen.add(entry["name"])


def sweep_clock(doc: dict[str, Any], now: str, file: str) -> str:
    """The file's own clock, else the command's: one clock for every scenario and worker."""
    if "now" not in doc:
        return now
    try:
        parse_rfc3339(doc["now"])
    except ValueError:
        raise InputError(f"{doc['now']!r} is not an RFC3339 time (e.g. 2026-01-01T00:00:00Z)", Source(file),
                         "Sweep", "now") from None
    return str(doc["now"])


@contextmanager
def named_by(file: str, field: str) -> Iterator[None]:
    """An input's error, or kube-scheduler's refusal of a configuration, as one line that also
    names the sweep's field that named the input."""
    try:
        yield
    except (InputError, ConfigError) as err:
        text = " ".join(str(err).split())
        raise InputError(text, Source(file), "Sweep", field) from None


def _position(entries: list[Any], name: str) -> int:
    """Where `name` is among the axis' entries (a name, or `{name: ...}`)."""
    return next((i for i, e in enumerate(entries) if (e.get("name") if isinstance(e, dict) else e) == name), 0)


def removals(doc: dict[str, Any], file: str) -> dict[str, dict[str, str]]:
    """Each removal's labels, refused where the API server refuses a label (ValidateLabels): a
    node can carry no other, so a mistyped key would remove nothing, a scenario that is not
    what it says."""
    f = Fields(Source(file), "Sweep")
    return {r["name"]: checked_labels(f, r, "labels", f"remove[{i}]") for i, r in enumerate(doc.get("remove", []))}


def read_sweep(file: str, now: str, validate: str = "strict") -> Sweep:
    """The sweep of `file` with every input read (see the module's docstring); `now` is used
    when the file does not set its own clock; `validate`: what the workloads' unknown fields are
    (`schema.UNKNOWN_FIELDS`)."""
    doc = read_sweep_file(file)
    unique_names(doc, file)
    paths = SweepPaths(file)
    if doc.get("combine", "product") == "list":
        scenarios = listed_scenarios(doc)
        check_names(doc, scenarios, paths)
    else:
        scenarios = product_scenarios(doc, paths.snapshot_names(doc["snapshots"]))
    warnings: list[str] = []
    plan = Plan(now=sweep_clock(doc, now, file), check=check_options(doc, file),
                removals=removals(doc, file))
    for i, entry in enumerate(doc.get("workloads", [])):
        with named_by(file, f"workloads[{i}].files"):
            objects, found = load_workloads([paths.path(f) for f in entry["files"]], validate=validate)
            if not workload_refs(objects):  # not one row could run: an HPA, a Service alone
                raise InputError(NO_WORKLOAD)
        plan.workloads[entry["name"]] = objects
        warnings.extend(found)
    listed = doc.get("combine", "product") == "list"
    for s in scenarios:
        if s.template is not None and s.template not in plan.templates:
            field = (f"scenarios[{s.index}].nodes.template" if listed else
                     f"nodes[{next(i for i, n in enumerate(doc['nodes']) if n['template'] == s.template)}].template")
            with named_by(file, field):
                plan.templates[s.template] = template_node(paths.path(s.template), warnings, validate)
        if s.config not in plan.configs:
            field = (f"scenarios[{s.index}].config" if listed
                     else f"configs[{_position(doc.get('configs', []), s.config)}]")
            with named_by(file, field):
                config = None if s.config == DEFAULT_CONFIG else load_scheduler_config(paths.path(s.config))
            plan.configs[s.config] = list(config.profiles) if config is not None else None
            warnings.extend(config.warnings if config is not None else [])
    snapshots: dict[str, bytes] = {}
    unreadable: dict[str, str] = {}
    for name in dict.fromkeys(s.snapshot for s in scenarios):
        try:
            snapshots[name] = prepared_bytes(paths.path(name), warnings)
        except InputError as err:
            unreadable[name] = str(err)
    return Sweep(plan, scenarios, snapshots, warnings, unreadable)
