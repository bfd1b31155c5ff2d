"""Prepared snapshots (`.kws`): a loaded, admitted-at-load and validated `Cluster` written once
so that later runs (every `-c`, each worker of a sweep) skip reading and decoding the dump.

The file is a header line and a payload:

    KWHATIF-PREPARED {"format": 1, "kwhatif": "0.1.0", "model": "<sha256>", "input": {...},
                      "payload_sha256": "<sha256>"}\\n
    <pickle protocol 5 of the Cluster>

Why pickle: the cluster is dataclasses (slots) of builtins, which pickle restores without running
a decoder or a validator. kwhatif's dataclasses are written as their class and a tuple of their
fields (`SnapshotPickler`), restored by one call of the class: pickle's default for a slots
object is a dict of its fields set one by one, twice as slow to load on the 5,000-node
benchmark dump (README, "Prepared snapshots"). Unpickling runs with the cyclic collector paused
(`kwhatif.memory`), for the same reason loading a dump does.

What makes a file unusable, each refused with one line naming the file:
- foreign: no `KWHATIF-PREPARED` header, or a header that is not the JSON described above;
- stale: written by another kwhatif version, or by a build whose object model (the source of
  `kwhatif/api` and `kwhatif/errors.py`, the classes pickled) or loader (`kwhatif/load`, which
  decides what they hold: a budget's count, a StatefulSet's fixed fields) differs from this one:
  the pickled objects could restore into the wrong shapes, or hold what this build would not
  have read, silently, so the file must be prepared again;
- damaged: the payload's sha256 differs from the header's (truncated or altered);
- not a snapshot: a payload that names anything but kwhatif's object classes (and Fraction) —
  `SnapshotUnpickler` refuses it before calling it, so a crafted file (the sha256 in its header
  proves nothing: anyone can compute it) cannot run code of its choosing. What it can call is
  the object model's constructors, which only store their fields; a Cluster whose collections
  are not of their declared classes, or hold others (`misshapen`), is refused too.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import io
import json
import os
import pickle
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence, cast, get_args, get_origin, get_type_hints

from kwhatif import __version__
from kwhatif.api.cluster import Cluster
from kwhatif.errors import InputError, Source
from kwhatif.files import write_whole
from kwhatif.load.reader import PREPARED_SUFFIX, expand_path
from kwhatif.memory import collector_paused
from kwhatif.text import counted, listed

MAGIC = b"KWHATIF-PREPARED "
FORMAT = 1
_PACKAGE = Path(__file__).resolve().parents[1]


MODEL_MODULES = frozenset({f"kwhatif.api.{path.stem}" for path in _PACKAGE.glob("api/*.py") if path.stem != "__init__"}
                          | {"kwhatif.errors"})
"""The modules of the object model: the only ones whose classes a snapshot holds."""


@lru_cache(maxsize=1)
def model_fingerprint() -> str:
    """The sha256 of the source of the pickled classes' modules (`kwhatif/api/*.py`,
    `kwhatif/errors.py`) and of the loader (`kwhatif/load/*.py`): a file prepared by a build with
    another object model or loader is stale even when the version string is the same (a
    development build)."""
    digest = hashlib.sha256()
    for path in sorted(_PACKAGE.glob("api/*.py")) + sorted(_PACKAGE.glob("load/*.py")) + [_PACKAGE / "errors.py"]:
        digest.update(path.relative_to(_PACKAGE).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def input_digest(paths: Sequence[str]) -> dict[str, Any]:
    """The inputs a snapshot was prepared from: their files (folders expanded as `-c` expands
    them) and the sha256 of their bytes, so a user can tell which dump a `.kws` holds; and, as
    `seen`, the inputs' absolute paths and each file's size and modification time, so that a
    later read can tell the dump has changed since (`changed_inputs`) without hashing it again."""
    digest = hashlib.sha256()
    files: list[str] = []
    stats: list[list[Any]] = []
    for path in paths:
        for file in expand_path(path):
            files.append(file)
            digest.update(file.encode() + b"\0")
            with open(file, "rb") as stream:
                st = os.fstat(stream.fileno())
                stats.append([os.path.abspath(file), st.st_size, st.st_mtime_ns])
                for chunk in iter(lambda: stream.read(1 << 20), b""):
                    digest.update(chunk)
    return {"files": files, "sha256": digest.hexdigest(),
            "seen": {"paths": [os.path.abspath(p) for p in paths], "files": stats}}


def changed_inputs(header: dict[str, Any], name: str) -> list[str]:
    """A warning when the inputs a `.kws` was prepared from have changed since — a file's size
    or modification time, a folder's files — : a dump fetched again and the snapshot not
    prepared again would otherwise answer for the cluster as it was, in silence. Nothing is said
    when an input is gone (dumps are often deleted once prepared) or the header predates `seen`."""
    seen = header.get("input", {}).get("seen")
    try:
        recorded = {str(f): (int(size), int(mtime)) for f, size, mtime in seen["files"]}
        given = [str(p) for p in seen["paths"]]
        now: dict[str, tuple[int, int]] = {}
        for path in given:
            if not os.path.exists(path):
                return []
            for file in expand_path(path):
                st = os.stat(file)
                now[os.path.abspath(file)] = (st.st_size, st.st_mtime_ns)
    except (KeyError, TypeError, ValueError, OSError, InputError):
        return []
    changed = sorted(f for f in now.keys() | recorded.keys() if now.get(f) != recorded.get(f))
    if not changed:
        return []
    return [f"{name}: {listed(changed)} changed since this snapshot was prepared: it holds the cluster as it was "
            f"then (prepare it again: kwhatif snapshot prepare {' '.join(given)} -o {name})"]


POSITIONAL: dict[type, tuple[str, ...] | None] = {}


def positional_fields(cls: type) -> tuple[str, ...] | None:
    """The fields of a kwhatif dataclass whose constructor takes them all (None otherwise: the
    class is pickled as pickle does by default). Kept per class in POSITIONAL."""
    if cls not in POSITIONAL:
        found = dataclasses.fields(cls) if dataclasses.is_dataclass(cls) and cls.__module__.startswith("kwhatif.") else None
        POSITIONAL[cls] = tuple(f.name for f in found) if found is not None and all(f.init for f in found) else None
    return POSITIONAL[cls]


class SnapshotPickler(pickle.Pickler):
    """Writes each kwhatif dataclass as (its class, its field values): loading calls the
    class once instead of setting its fields one by one from a dict (the objects have no
    `__post_init__`, so the constructor stores exactly what was written)."""

    def reducer_override(self, obj: Any) -> tuple[Callable[..., Any], tuple[Any, ...]] | Any:
        names = positional_fields(type(obj))
        if names is None:
            return NotImplemented
        return (type(obj), tuple(getattr(obj, n) for n in names))


def encode_prepared(cluster: Cluster, inputs: dict[str, Any]) -> bytes:
    """The `.kws` bytes of a loaded cluster (header line, then the pickle)."""
    buffer = io.BytesIO()
    with collector_paused():
        SnapshotPickler(buffer, protocol=5).dump(cluster)
    payload = buffer.getvalue()
    header = {"format": FORMAT, "kwhatif": __version__, "model": model_fingerprint(), "input": inputs,
              "payload_sha256": hashlib.sha256(payload).hexdigest(), **_said(cluster.warnings)}
    return MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n" + payload


HEADER_WARNINGS = 16_384
"""Characters of the cluster's warnings a header repeats (the header is read within its first
64 KB); the payload keeps them all."""


def _said(warnings: list[str]) -> dict[str, Any]:
    """The cluster's warnings for the header — as many as fit, and how many more — so that a
    reader that never decodes the payload (a sweep's parent: its workers do) can say them and
    `--strict` can refuse them, as every `-c` of the file does."""
    kept: list[str] = []
    size = 0
    for warning in warnings:
        size += len(warning)
        if size > HEADER_WARNINGS:
            break
        kept.append(warning)
    return {"warnings": kept, "more_warnings": len(warnings) - len(kept)}


def header_warnings(header: dict[str, Any], name: str) -> list[str]:
    """What a `.kws` header says of its cluster's warnings (`_said`), as lines to report, after
    a change of its inputs since (`changed_inputs`)."""
    said = changed_inputs(header, name) + [w for w in header.get("warnings", []) if isinstance(w, str)]
    more = header.get("more_warnings", 0)
    if isinstance(more, int) and more > 0:
        said.append(f"{name}: and {counted(more, 'more warning')} (`kwhatif schedule -c {name}` says them all)")
    return said


def write_prepared(cluster: Cluster, inputs: dict[str, Any], target: str) -> None:
    """Written whole or not at all (`kwhatif.files.write_whole`): a reader never sees half a file."""
    try:
        write_whole(target, encode_prepared(cluster, inputs))
    except OSError as err:
        raise InputError(f"cannot write the prepared snapshot: {err.strerror or err}", Source(target)) from None


def is_prepared(path: str) -> bool:
    return path.endswith(PREPARED_SUFFIX)


def read_header(data: bytes | memoryview, name: str) -> tuple[dict[str, Any], int]:
    """The header of `.kws` bytes and where the payload starts; a foreign or stale file is an
    InputError naming it and saying what to do."""
    view = memoryview(data)
    end = bytes(view[:65536]).find(b"\n")
    if bytes(view[:len(MAGIC)]) != MAGIC:
        raise InputError("not a prepared snapshot (no KWHATIF-PREPARED header): make one with "
                         "`kwhatif snapshot prepare DUMP -o FILE.kws`", Source.whole(name))
    if end < 0:
        raise InputError("damaged prepared snapshot (its header is cut short): prepare it again from its input",
                         Source.whole(name))
    try:
        header = json.loads(bytes(view[len(MAGIC):end]))
        fmt, version, model = header["format"], header["kwhatif"], header["model"]
        if (not isinstance(header.get("input", {}), dict) or not isinstance(version, str)
                or not isinstance(header.get("warnings", []), list) or type(header.get("more_warnings", 0)) is not int):
            raise TypeError("input")
    except (ValueError, TypeError, KeyError):
        raise InputError("not a prepared snapshot (its header is not kwhatif's): make one with "
                         "`kwhatif snapshot prepare DUMP -o FILE.kws`", Source.whole(name)) from None
    if fmt != FORMAT or version != __version__ or model != model_fingerprint():
        made = (f"written by kwhatif {version}, this is kwhatif {__version__}" if version != __version__
                else f"its format is {fmt!r}, this kwhatif's is {FORMAT}" if fmt != FORMAT
                else f"written by another build of kwhatif {version}, whose object model differs from this one's")
        raise InputError(f"stale prepared snapshot: {made}; prepare it again from its input "
                         f"({_inputs_named(header)})", Source.whole(name))
    return header, end + 1


def _inputs_named(header: dict[str, Any]) -> str:
    files = header.get("input", {}).get("files")
    return listed([str(f) for f in files] if isinstance(files, list) and files else ["?"])


class SnapshotUnpickler(pickle.Unpickler):
    """Restores only what `SnapshotPickler` writes: the classes of kwhatif's object model
    (`MODEL_MODULES`) and Fraction, by name; any other global a payload names — a function, a
    class elsewhere — is refused, never looked up."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == ("fractions", "Fraction"):
            return _fraction
        found = getattr(importlib.import_module(module), name, None) if module in MODEL_MODULES else None
        if isinstance(found, type) and found.__module__ == module:
            return found
        raise pickle.UnpicklingError(f"it names {module}.{name}, which a kwhatif snapshot never holds")


def _fraction(*parts: object) -> Fraction:
    """Fraction as pickle writes it (its numerator and denominator, two ints), nothing else:
    Fraction itself reads a text too, and `1e2000000000` for minutes."""
    if len(parts) != 2 or not all(type(p) is int for p in parts):
        raise pickle.UnpicklingError(f"it holds the number {str(parts)[:40]}, which a kwhatif snapshot never holds")
    numerator, denominator = cast(tuple[int, int], parts)
    if denominator == 0:
        raise pickle.UnpicklingError("it holds a fraction over 0, which a kwhatif snapshot never holds")
    return Fraction(numerator, denominator)


def verified_payload(data: bytes | memoryview, name: str) -> memoryview:
    """The payload of `.kws` bytes, its header checked and its content matched against the
    header's sha256: a file cut short or changed is refused here, before anything trusts its
    header (a sweep keys the snapshots it decoded by that sha256)."""
    header, start = read_header(data, name)
    payload = memoryview(data)[start:]
    if hashlib.sha256(payload).hexdigest() != header.get("payload_sha256"):
        raise InputError("damaged prepared snapshot (its content does not match its header's sha256): "
                         f"prepare it again from its input ({_inputs_named(header)})", Source.whole(name))
    return payload


def decode_prepared(data: bytes | memoryview, name: str, for_the_run: bool = False) -> Cluster:
    """The cluster of `.kws` bytes (header checked, payload verified, then unpickled)."""
    payload = verified_payload(data, name)
    with collector_paused(for_the_run):
        try:
            cluster = SnapshotUnpickler(io.BytesIO(payload)).load()
        except pickle.UnpicklingError as err:
            raise InputError(f"not a prepared snapshot: {err}", Source.whole(name)) from None
        except Exception as err:  # noqa: BLE001 - a crafted payload: whatever it breaks, it is no snapshot
            raise InputError(f"not a prepared snapshot: {type(err).__name__}: {str(err)[:200]}", Source.whole(name)) from None
    if not isinstance(cluster, Cluster):
        raise InputError("not a prepared snapshot (it holds no cluster)", Source.whole(name))
    wrong = misshapen(cluster)
    if wrong:
        raise InputError(f"not a prepared snapshot: {wrong}", Source.whole(name))
    return cluster


@lru_cache(maxsize=1)
def cluster_shape() -> tuple[tuple[str, type, tuple[type, ...]], ...]:
    """Each Cluster field with its collection's class and the classes of its keys and items, or
    of its items (`list[Pod]`: list, (Pod,); `dict[tuple[str, str], Job]`: dict, (tuple, Job)),
    read from the dataclass's own annotations."""
    hints = get_type_hints(Cluster)
    return tuple((f.name, get_origin(hints[f.name]), tuple(get_origin(a) or a for a in get_args(hints[f.name])))
                 for f in dataclasses.fields(Cluster))


def misshapen(cluster: Cluster) -> str | None:
    """What of a cluster is not what the loader makes, shallowly: each collection of its
    declared class, each key and item of theirs (a crafted Cluster(nodes="garbage") holds only
    model classes, yet would crash the run). A snapshot that passes may still hold a wrong
    field inside an object: those the loader's classes are trusted to hold, as a dump's would
    be after decoding. The classes of 150,000 pods are gathered by `map`, at C speed (~5 ms)."""
    for name, collection, classes in cluster_shape():
        value: Any = getattr(cluster, name)
        if type(value) is not collection:
            return f"its {name} is {type(value).__name__}, not {collection.__name__}"
        for part, expected in zip(_parts(value), classes):
            stray = next((t for t in set(map(type, part)) if not issubclass(t, expected)), None)
            if stray is not None:
                return f"its {name} holds a {stray.__name__}, not a {expected.__name__}"
    return None


def _parts(collection: Any) -> tuple[Iterable[Any], ...]:
    """A dict's keys and values, in the order its annotation names their classes; a list's items."""
    if isinstance(collection, dict):
        return collection.keys(), collection.values()
    return (collection,)


def read_prepared(path: str, for_the_run: bool = False) -> Cluster:
    """Load a `.kws` file (see the module's docstring for what is refused); `for_the_run`: as
    `load_cluster`'s."""
    try:
        with open(path, "rb") as stream:
            data = stream.read()
    except FileNotFoundError:
        raise InputError("no such file or directory", Source.whole(path)) from None
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror or err}", Source.whole(path)) from None
    cluster = decode_prepared(data, path, for_the_run)
    cluster.warnings[:0] = changed_inputs(read_header(data, path)[0], path)
    return cluster
