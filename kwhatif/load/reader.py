"""Read manifests — files, folders, stdin — into plain API object mappings with their provenance.

`read_inputs(paths, stdin)` returns one `RawDoc` per Kubernetes object, in a deterministic order:
paths in the order given, a folder's files sorted by path, documents in file order, List items in
order. Everything wrong with the input is an `InputError` naming the file, the document and (when
known) the line; nothing here prints a traceback.

What is read, and how (kubectl's behaviour is the reference):

- A path is a file, a folder (walked recursively; only `.yaml`, `.yml` and `.json` files are read,
  like `kubectl apply -R -f`, and the same ending in `.gz`; symlinked folders are not followed), or
  `-` for standard input, named `stdin` in sources. A file named explicitly is read whatever its
  extension. Gzip-compressed input (told by its magic bytes) is decompressed first.
- Text is UTF-8, UTF-8 with a BOM, or UTF-16/UTF-32 with a BOM. A NUL byte or bytes that are not
  UTF-8 make the file "not a text file".
- JSON (a `.json` file, or any input whose first non-blank character is `{` or `[`) is parsed with
  orjson: a 400 MB dump takes seconds, and no line numbers are computed for its items. A `.json`
  file of `MAP_THRESHOLD` bytes or more that is a List (a `kubectl get -o json` dump) is read
  through a memory map, its items kept as undecoded bytes for the decoders. Several
  concatenated JSON objects (`jq` output) are accepted, like kubectl's JSON stream decoder. Input
  that only looks like JSON (no `.json` extension) and fails to parse is retried as YAML when it is
  smaller than 16 MiB (flow-style YAML starts with `{` too). A top-level JSON array is refused, as
  kubectl does. JSON nesting is limited by orjson (1024 levels since orjson 3.9.x; 3.9.0 had no
  limit and crashes on absurd depths, so require a recent orjson); duplicate JSON keys are not
  detected (the last one wins, as in orjson).
- YAML is parsed with libyaml (`yaml.CSafeLoader`), documents composed to nodes once and then
  built into values by a direct walk (30 % faster than PyYAML's generic construction, same result),
  so each document's and List item's line is known without parsing twice. Only plain data is built:
  unknown or Python tags are refused; timestamps stay strings (as kubectl sends them); non-string
  keys become strings like sigs.k8s.io/yaml does (`true`, `1`). Duplicate keys are refused (kubectl
  strict decoding does too). Nesting deeper than `MAX_DEPTH` levels is refused while composing, so
  libyaml's recursive composer cannot overflow the C stack. Documents using anchors are checked for
  alias bombs with go-yaml's rule ("excessive aliasing": more than 99 % of the expanded nodes come
  from aliases below 400,000 nodes, 10 % above 4,000,000) and for recursive aliases.
- A big (`MAP_THRESHOLD`) `.yaml`/`.yml` List laid out as `kubectl get -o yaml` prints it is read
  item by item from a memory map (`yaml_list_items`): composing the whole document would take ten
  times the file in memory. Its items get no line unless an error names one; a file whose text
  may define an anchor is parsed whole, as items parsed apart cannot share anchors.
- Each document must be a mapping; empty documents are skipped. `kind: List`, and `kind: XxxList`
  with an `items` key (`PodList`, `NodeList`...), expand to their items; items of a typed list that
  lack `kind`/`apiVersion` get them from the list (API server dumps omit them). A List item keeps
  its document's index in `source.doc` and, in YAML, its own line.
- No object at all across every path is an error: "no objects passed" (kubectl's words).
"""

from __future__ import annotations

import gzip
import mmap
import os
import stat
import sys
import weakref
import zlib
from collections.abc import Sequence
from typing import BinaryIO

from kwhatif.errors import InputError, Source
from kwhatif.load.documents import RawDoc, expand_documents
from kwhatif.load.json_text import NON_BLANK_B, NON_BLANK_S, json_list_items, parse_json
from kwhatif.load.yaml_list import yaml_list_items
from kwhatif.load.yaml_text import parse_yaml
from kwhatif.memory import collector_paused

GZIP_SUFFIX = ".gz"
GZIP_MAGIC = b"\x1f\x8b"

PREPARED_SUFFIX = ".kws"
"""A prepared snapshot's (`kwhatif.load.prepared`)."""
EXTENSIONS = (".yaml", ".yml", ".json") + tuple(e + GZIP_SUFFIX for e in (".yaml", ".yml", ".json"))
"""Files read from a folder (kubectl's list, case-sensitive like kubectl, and the same gzipped)."""

MAP_THRESHOLD = 16 << 20
"""JSON and YAML files from this size (bytes) are memory-mapped, and read item by item when they
are a List (see `_mapped_list`)."""

YAML_RETRY_LIMIT = 16 << 20
"""Input that looks like JSON but is not is retried as YAML only below this size (bytes)."""

STDIN_NAME = "stdin"

_BOMS = (  # longest first: the UTF-32-LE BOM starts with the UTF-16-LE one
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)


def read_inputs(paths: Sequence[str], stdin: BinaryIO | None = None,
                not_objects: list[str] | None = None) -> list[RawDoc]:
    """Every object in `paths` (files, folders, `-` for `stdin` or `sys.stdin.buffer`), in order.

    A folder of manifests often holds YAML that is no Kubernetes object: a `kustomization.yaml`,
    Helm values, a tool's config. Given `not_objects`, a file found in a folder none of whose
    documents has an `apiVersion` or a `kind` is skipped and named there (for one warning); a
    file with a `kind` but something broken stays an error, and so does a file named explicitly.
    So is a prepared snapshot (.kws) found in a folder: it is read only by name, alone."""
    docs: list[RawDoc] = []
    for path in map(os.fspath, paths):
        if path == "-":
            stream = stdin if stdin is not None else sys.stdin.buffer
            _read_once(stream)
            try:
                data = stream.read()
            except OSError as err:
                raise InputError(f"cannot read standard input: {_os_reason(err)}", Source(STDIN_NAME)) from None
            if isinstance(data, str):  # a text stream was passed: it is already decoded
                data = data.encode("utf-8", "surrogatepass")
            docs.extend(parse_bytes(gunzipped(data, STDIN_NAME), STDIN_NAME))
            continue
        files = expand_path(path, not_objects)
        for file in files:
            mapped, probed = _mapped_list(file)
            if mapped is None:
                is_json = True if file.removesuffix(GZIP_SUFFIX).endswith(".json") else None
                mapped = parse_bytes(gunzipped(_read_file(file), file), file, is_json=is_json, list_probed=probed)
            if not_objects is not None and files != [path] and mapped and not any(map(_names_a_kind, mapped)):
                not_objects.append(file)
                continue
            docs.extend(mapped)
    if not docs:
        names = ", ".join(STDIN_NAME if p == "-" else p for p in paths)
        skipped = "".join(f"; {said}" for said in _why_skipped(not_objects or [], short=True))
        raise InputError(f"no objects passed (read: {names}{skipped})")
    return docs


def skipped_warnings(files: Sequence[str]) -> list[str]:
    """What `read_inputs` skipped in folders (its `not_objects`), said once per cause."""
    return _why_skipped(files, short=False)


def _why_skipped(files: Sequence[str], short: bool) -> list[str]:
    prepared = [f for f in files if f.endswith(PREPARED_SUFFIX)]
    other = [f for f in files if not f.endswith(PREPARED_SUFFIX)]
    said = []
    if other:
        said.append(f"skipped, as no Kubernetes objects: {', '.join(other)}" if short else
                    f"skipped {len(other)} file(s) holding no Kubernetes object (no apiVersion or kind; a "
                    f"kustomization, Helm values or a tool's config?): {', '.join(other)}")
    if prepared:
        said.append(f"skipped {len(prepared)} prepared snapshot(s) found in a folder: {', '.join(prepared)}: a "
                    f"prepared snapshot is read only as the one -c input (-c {prepared[0]})")
    return said


def _names_a_kind(doc: RawDoc) -> bool:
    return doc.kind is not None or "apiVersion" in doc.obj


_READ_STREAMS: weakref.WeakSet[BinaryIO] = weakref.WeakSet()


def _read_once(stream: BinaryIO) -> None:
    """Standard input can be read once: a second `-` (`-c -` and a workload `-` too) would
    silently read nothing."""
    if stream in _READ_STREAMS:
        raise InputError("standard input (-) is given more than once: it can be read only once; "
                         "save it to a file for the other use", Source(STDIN_NAME))
    _READ_STREAMS.add(stream)


def parse_bytes(data: bytes, file: str, is_json: bool | None = None, list_probed: bool = False) -> list[RawDoc]:
    """The objects in one file's bytes; `file` names it in sources. `is_json=None` sniffs the content.

    Unlike `read_inputs`, an input without objects gives an empty list. The cyclic garbage collector
    is paused meanwhile (see `kwhatif.memory`)."""
    with collector_paused():
        return _parse_bytes(data, file, is_json, list_probed)


def _parse_bytes(data: bytes, file: str, is_json: bool | None, list_probed: bool) -> list[RawDoc]:
    text = _decode(data, file)
    sniffed = is_json is None
    if sniffed:
        match = NON_BLANK_B.search(text) if isinstance(text, bytes) else NON_BLANK_S.search(text)
        first = text[match.start():match.start() + 1] if match else ""
        is_json = first in (b"{", b"[", "{", "[")
    if not is_json:
        return _yaml_documents(text, file)
    listed = json_list_items(text, file) if isinstance(text, bytes) and not list_probed else None
    if listed is not None:
        return listed
    try:
        return list(expand_documents(parse_json(text, file), file, from_json=True))
    except InputError as json_error:
        if not sniffed or len(text) >= YAML_RETRY_LIMIT:
            raise
        try:
            return _yaml_documents(text, file)
        except InputError:
            raise json_error from None


def _yaml_documents(text: bytes | str, file: str) -> list[RawDoc]:
    try:
        return list(expand_documents(parse_yaml(text, file), file, from_json=False))
    except InputError as err:
        cause = _known_cause(text, err.source.line if err.source else None)
        if cause is None:
            raise
        raise InputError(f"{err.message} ({cause})", err.source, err.obj, err.field) from None


def _known_cause(text: bytes | str, line: int | None) -> str | None:
    """What most often makes a manifest unreadable, said in words: a Helm template not rendered
    yet (its `{{ ... }}` is not YAML), or a tab in the indentation (YAML indents with spaces)."""
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if b"{{" in raw and b"}}" in raw:
        return "this looks like an unrendered Helm template: render it first, e.g. `helm template RELEASE CHART`"
    lines = raw.splitlines()
    if line is not None and 0 < line <= len(lines):
        row = lines[line - 1]
        if b"\t" in row[:len(row) - len(row.lstrip())]:
            return f"line {line} is indented with a tab: YAML indents with spaces only"
    return None


# --------------------------------------------------------------------------------------- paths ----

def expand_path(path: str, prepared: list[str] | None = None) -> list[str]:
    """A file → itself; a folder → its .yaml/.yml/.json files, recursively, sorted by path.
    `prepared`: where to name the prepared snapshots (.kws) found in the folder, which are not
    read there (one is read only as the one `-c` input): the caller warns of them."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError("no such file or directory", Source.whole(path)) from None
    except OSError as err:
        raise InputError(_os_reason(err), Source.whole(path)) from None
    if not stat.S_ISDIR(st.st_mode):
        return [path]

    def fail(err: OSError) -> None:
        raise InputError(f"cannot read folder: {_os_reason(err)}", Source(err.filename or path))

    found: list[tuple[tuple[str, ...], str]] = []
    for folder, _dirs, files in os.walk(path, onerror=fail):
        for name in files:
            if name.endswith(EXTENSIONS):
                full = os.path.join(folder, name)
                _refuse_special(full)
                found.append((tuple(os.path.relpath(full, path).split(os.sep)), full))
            elif name.endswith(PREPARED_SUFFIX) and prepared is not None:
                prepared.append(os.path.join(folder, name))
    found.sort()
    if prepared is not None:
        prepared.sort()
    return [full for _key, full in found]


def _refuse_special(file: str) -> None:
    """A folder's manifest that is no regular file — a FIFO would block the read until someone
    writes to it, for ever — is refused (a path given by name may be one: `-c <(kubectl get ...)`)."""
    try:
        mode = os.stat(file).st_mode
    except FileNotFoundError:
        raise InputError("no such file or directory (a dangling link?)", Source.whole(file)) from None
    except OSError as err:
        raise InputError(_os_reason(err), Source.whole(file)) from None
    if not stat.S_ISREG(mode):
        raise InputError("not a regular file (a FIFO, socket or device in the folder): kwhatif reads the "
                         "folder's files only", Source.whole(file))


def read_side_text(path: str, what: str) -> str:
    """A small file beside the manifests (a --whatif list, --usage readings), `-` for stdin, as
    UTF-8 text; what cannot be read is said as -c says it, after `what` (the option and path)."""
    try:
        data = sys.stdin.buffer.read() if path == "-" else _read_file(path)
    except InputError as err:
        raise InputError(f"{what}: {err.message}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(f"{what}: not a text file: invalid UTF-8 at byte {err.start}") from None


def _mapped_list(file: str) -> tuple[list[RawDoc] | None, bool]:
    """The items of a big List file (`kubectl get -o json` or `-o yaml`), read through a read-only
    memory map rather than copied into memory: its pages stay the kernel's (page cache, given back
    under memory pressure) and are read as the parser reaches them; each item keeps pointing into
    them until it is decoded. None for a small file or anything but a List these readers take,
    which the plain read then takes (and words any error); with whether a JSON List probe ran."""
    is_json = file.endswith(".json")
    if not is_json and not file.endswith((".yaml", ".yml")):
        return None, False
    try:
        with open(file, "rb") as handle:
            if os.fstat(handle.fileno()).st_size < MAP_THRESHOLD:
                return None, False
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None, False
    with collector_paused():
        return (json_list_items(mapped, file), True) if is_json else (yaml_list_items(mapped, file), False)


def _read_file(file: str) -> bytes:
    try:
        with open(file, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        raise InputError("no such file or directory", Source(file)) from None
    except OSError as err:
        raise InputError(f"cannot read file: {_os_reason(err)}", Source.whole(file)) from None


def gunzipped(data: bytes, file: str) -> bytes:
    """Gzip-compressed input (`kwhatif snapshot -o dump.json.gz`, or piped from one) decompressed;
    anything else as it is. Told by the gzip magic bytes, which no text manifest starts with. A
    compressed file is read whole: the memory-mapped path needs the file's own bytes."""
    if not data.startswith(GZIP_MAGIC):
        return data
    try:
        return gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as err:
        raise InputError(f"not a readable gzip file: {str(err).lower() or 'truncated'}", Source(file)) from None


def _os_reason(err: OSError) -> str:
    return (err.strerror or str(err)).lower()


# ------------------------------------------------------------------------------------ decoding ----

def _decode(data: bytes, file: str) -> bytes | str:
    """UTF-8 stays bytes (the parsers check it); a BOM'd UTF-16/32 file becomes str; NULs fail."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            if codec == "utf-8-sig":
                data = data[len(bom):]
                break
            try:
                return data.decode(codec)
            except UnicodeDecodeError as err:
                raise InputError(
                    f"not a text file: invalid {codec.upper()} at byte {err.start}", Source(file)
                ) from None
    nul = data.find(b"\0")
    if nul >= 0:
        raise InputError(f"not a text file: NUL byte at byte {nul}", Source(file, 0, data.count(b"\n", 0, nul) + 1))
    return data

