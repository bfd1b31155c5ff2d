"""The krew plugin: the committed manifest passes krew's own validation (tools/krew_validate.py,
ported from kubernetes-sigs/krew internal/index/validation/validate.go), the archive is
reproducible and is the one the manifest names, and the launcher inside it runs kwhatif."""

from __future__ import annotations

import copy
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any, Callable

import pytest
import yaml

from tests.cli.conftest import REPO
from tools import krew
from tools.krew_validate import manifest_file_error, plugin_error, semver_error

MANIFEST = REPO / "plugins" / "whatif.yaml"


def committed() -> dict[str, Any]:
    return dict(yaml.safe_load(MANIFEST.read_text()))


def test_the_committed_manifest_passes_krews_validation() -> None:
    assert manifest_file_error(MANIFEST) is None


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """A mutation setting `path` (dots; a number indexes a list) to `value`, or deleting it when
    `value` is DELETE."""
    def mutate(plugin: dict[str, Any]) -> None:
        *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
        node: Any = plugin
        for key in parents:
            node = node[key]
        if value is DELETE:
            del node[last]
        else:
            node[last] = value
    return mutate


DELETE = object()
PLATFORM = "spec.platforms.0"

# Each rule of validate.go (ValidatePlugin, validatePlatform, validateFiles, validateSelector),
# in its order, with a manifest breaking it and the words of krew's error.
BROKEN = [
    ("apiVersion must be krew's current one (constants.CurrentAPIVersion)",
     _set("apiVersion", "krew.googlecontainertools.github.com/v1alpha1"), "apiVersion="),
    ("kind must be Plugin (constants.PluginKind)", _set("kind", "Tool"), "but only 'Plugin' is supported"),
    ("metadata.name must be the name it is installed as", _set("metadata.name", "what-if"),
     "plugin should be named 'whatif', not 'what-if'"),
    ("a short description is required", _set("spec.shortDescription", DELETE), "should have a short description"),
    ("the short description is one line", _set("spec.shortDescription", "two\nlines"),
     "should not have line breaks in short description"),
    ("at least one platform", _set("spec.platforms", []), "should have a platform specified"),
    ("a version is required", _set("spec.version", DELETE), "should have a version specified"),
    ("the version starts with v (semver.Parse)", _set("spec.version", "0.1.0"), "not starting with 'v'"),
    ("the version is major.minor.patch (ParseSemantic)", _set("spec.version", "v0.1"), "illegal version string"),
    ("a platform has a uri", _set(f"{PLATFORM}.uri", ""), "`uri` has to be set"),
    ("a platform has a sha256", _set(f"{PLATFORM}.sha256", DELETE), "`sha256` sum has to be set"),
    ("the sha256 is 64 lowercase hex digits", _set(f"{PLATFORM}.sha256", "ABC" * 21 + "D"), "is not valid"),
    ("a platform names its bin", _set(f"{PLATFORM}.bin", ""), "`bin` has to be set"),
    ("files, when given, is not empty", _set(f"{PLATFORM}.files", []), "has to be unspecified or non-empty"),
    ("each file operation has a from", _set(f"{PLATFORM}.files.0.from", ""), "`from` field has to be set"),
    ("each file operation has a to", _set(f"{PLATFORM}.files.0.to", DELETE), "`to` field has to be set"),
    ("a platform has a selector", _set(f"{PLATFORM}.selector", None), "nil selector is not supported"),
    ("the selector is not empty", _set(f"{PLATFORM}.selector", {}), "empty selector is not supported"),
    ("the selector keys are os and arch only", _set(f"{PLATFORM}.selector", {"matchLabels": {"kernel": "5"}}),
     "key 'kernel' not supported"),
    ("matchLabels, when given, is not empty",
     _set(f"{PLATFORM}.selector", {"matchLabels": {}, "matchExpressions": [{"key": "os"}]}),
     "`matchLabels` specified but empty"),
    ("matchExpressions, when given, is not empty",
     _set(f"{PLATFORM}.selector", {"matchLabels": {"os": "linux"}, "matchExpressions": []}),
     "`matchExpressions` specified but empty"),
]


@pytest.mark.parametrize("rule, mutate, words", BROKEN, ids=[row[0] for row in BROKEN])
def test_a_manifest_breaking_a_rule_of_krew_is_refused(rule: str, mutate: Callable[[dict[str, Any]], None],
                                                        words: str) -> None:
    plugin = copy.deepcopy(committed())
    mutate(plugin)
    wrong = plugin_error("whatif", plugin)
    assert wrong is not None and words in wrong


@pytest.mark.parametrize("name", ["what.if", "what if", "wh/atif", "CON", "lpt1", "ünicode"])
def test_names_krew_thinks_unsafe_are_refused(name: str) -> None:
    """IsSafePluginName: `^[\\w-]+$` (ASCII word characters) and no Windows device name, any case."""
    plugin = committed()
    plugin["metadata"]["name"] = name
    assert plugin_error(name, plugin) == f"the plugin name {name!r} is not allowed, must match '^[\\\\w-]+$'"


@pytest.mark.parametrize("version, valid", [
    ("v1.2.3", True), ("v0.1.0", True), ("v1.2.3-rc.1+build.5", True), ("v1.0.0-alpha-1", True),
    ("v01.2.3", False),      # ParseSemantic: no zero-prefixed component
    ("v1.2.3-rc.01", False),  # ... nor a zero-prefixed numeric pre-release part
    ("v1.2.3.4", False), ("v1.2.3_x", False), ("1.2.3", False), ("v1.2.3\nx", False),
])
def test_versions_are_semver_with_a_v_as_krew_parses_them(version: str, valid: bool) -> None:
    assert (semver_error(version) is None) == valid


def test_the_manifest_file_is_named_after_the_plugin(tmp_path: Path) -> None:
    """scanner.go:LoadPluginByName reads NAME.yaml: another file name is another plugin name."""
    other = tmp_path / "kwhatif.yaml"
    other.write_text(MANIFEST.read_text())
    assert "plugin should be named 'kwhatif', not 'whatif'" in (manifest_file_error(other) or "")


def _build(into: Path) -> Path:
    problem = krew.setuptools_problem()
    if problem:
        pytest.skip(f"cannot build the krew archive here: {problem}")
    return krew.build_archive(into)


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build(tmp_path_factory.mktemp("dist"))


def test_the_archive_is_reproducible_and_the_manifest_is_the_one_make_krew_writes(archive: Path, tmp_path: Path) -> None:
    """The archive holds the sources, so every commit changes its sha256: a release runs `make
    krew` and publishes that archive with that manifest. Between releases the committed manifest
    must be what `make krew` writes but for the sha256, and name this version's archive."""
    again = _build(tmp_path)
    assert again.read_bytes() == archive.read_bytes()
    fresh = krew.manifest(archive)
    ours = committed()
    [fresh_platform], [our_platform] = fresh["spec"]["platforms"], ours["spec"]["platforms"]  # type: ignore[index]
    assert fresh_platform["sha256"] == krew.sha256(archive)
    assert re.fullmatch(r"[0-9a-f]{64}", our_platform["sha256"])
    for platform in (fresh_platform, our_platform):
        platform.pop("sha256")
    assert ours == fresh, "run `make krew` and commit plugins/whatif.yaml"
    assert our_platform["uri"].endswith(f"/{archive.name}") and archive.name == f"kubectl-whatif-{krew.tag()}.tar.gz"


def test_the_archive_holds_what_the_manifest_installs(archive: Path) -> None:
    """Every `from` is in the archive and the `bin` is among what is copied, executable."""
    platform = committed()["spec"]["platforms"][0]
    with tarfile.open(archive) as tar:
        members = {m.name: m for m in tar.getmembers()}
    assert {f["from"] for f in platform["files"]} == set(members)
    assert members[platform["bin"]].mode == 0o755
    assert all(m.mtime == krew.EPOCH and m.uid == 0 and m.uname == "" for m in members.values())


def _extracted(archive: Path, into: Path) -> Path:
    with tarfile.open(archive) as tar:
        if hasattr(tarfile, "data_filter"):  # Python 3.11.4 and later
            tar.extractall(into, filter="data")
        else:  # an older 3.11 (Debian's 3.11.2): no filter to ask for; the archive is the test's own
            tar.extractall(into)
    return into / "kubectl-whatif"


def test_the_launcher_runs_kwhatif_from_the_wheel_with_a_given_interpreter(archive: Path, tmp_path: Path) -> None:
    """KWHATIF_KREW_PYTHON: the test's interpreter has kwhatif's dependencies; the wheel goes
    beside the launcher (--no-deps) and is what runs (PYTHONPATH first)."""
    launcher = _extracted(archive, tmp_path)
    env = {**os.environ, "KWHATIF_KREW_PYTHON": sys.executable}
    done = subprocess.run([str(launcher), "version"], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == [f"kwhatif {krew.project()['version']}", "emulates kube-scheduler v1.34.1"]
    assert (tmp_path / "lib" / "kwhatif" / "__init__.py").is_file()
    usage = subprocess.run([str(launcher), "--help"], env=env, capture_output=True, text=True, timeout=120)
    assert usage.stdout.startswith("Usage: kubectl whatif ")


def test_the_launcher_says_what_is_missing_without_python3(archive: Path, tmp_path: Path) -> None:
    launcher = _extracted(archive, tmp_path)
    bare = tmp_path / "bin"
    bare.mkdir()
    dirname = shutil.which("dirname")  # the one program the launcher runs before looking for python3
    assert dirname is not None
    (bare / "dirname").symlink_to(dirname)
    env = {"PATH": str(bare)}
    done = subprocess.run(["/bin/sh", str(launcher), "version"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr == "kubectl-whatif: python3 (3.11 or later) is needed and is not on PATH\n"
