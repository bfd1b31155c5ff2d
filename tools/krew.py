"""`make krew`: kwhatif as a krew plugin — a reproducible archive and the manifest that installs it.

    python tools/krew.py [--dist DIR] [--manifest FILE]

The archive `DIR/kubectl-whatif-vX.Y.Z.tar.gz` holds kwhatif's wheel and the POSIX-sh launcher
`kubectl-whatif` (tools/kubectl-whatif), which makes a private virtual environment on first run.
The same checkout gives the same bytes: the wheel is built from a copy of the sources with
SOURCE_DATE_EPOCH fixed, and the tar has sorted entries, fixed times, owners and modes, gzip
without a name or time. The manifest (plugins/whatif.yaml) carries the archive's sha256 and the
URI a release uploads it to (RELEASE_URI), and is checked with krew's own rules
(tools/krew_validate.py) before it is written.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tomllib
from importlib import metadata
from pathlib import Path

import yaml

from tools.krew_validate import plugin_error

REPO = Path(__file__).resolve().parents[1]
LAUNCHER = REPO / "tools" / "kubectl-whatif"
PLUGIN = "whatif"
HOMEPAGE = "https://github.com/kwhatif/kwhatif"
# Where a release puts the archive (nothing is published yet: docs/live.md says what a release does).
RELEASE_URI = HOMEPAGE + "/releases/download/{tag}/kubectl-whatif-{tag}.tar.gz"
# 2026-01-01T00:00:00Z: every time in the wheel and the archive (a fixed date, not the commit's,
# so an archive built outside git is the same too).
EPOCH = 1767225600
SOURCES = ("pyproject.toml", "README.md", "kwhatif")


def project() -> dict[str, str]:
    return dict(tomllib.loads((REPO / "pyproject.toml").read_text())["project"])


def tag() -> str:
    """krew wants a `v` before the semver (internal/installation/semver)."""
    return f"v{project()['version']}"


class BuildError(Exception):
    """The archive cannot be built as the committed manifest expects (said on one line)."""


def pinned_setuptools() -> str:
    """The setuptools the wheel is built with (pyproject's test extras pin it: its version is
    written into the wheel, so another one gives other bytes)."""
    extras = dict(tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    (pin,) = [r.split("==")[1] for r in extras["test"] if r.startswith("setuptools==")]
    return str(pin)


def setuptools_problem() -> str | None:
    """Why this interpreter cannot build the pinned wheel, or None."""
    try:
        installed = metadata.version("setuptools")
    except metadata.PackageNotFoundError:
        installed = "none"
    wanted = pinned_setuptools()
    if installed != wanted:
        return f"the wheel is built with setuptools {wanted} (pyproject's test extras), {sys.executable} has " \
               f"{installed}: run `make venv`"
    return None


def copy_sources(into: Path) -> None:
    """The files a wheel is built from, copied with plain modes and no caches, so neither a stale
    build/ folder nor the checkout's umask reaches the wheel."""
    for name in SOURCES:
        source = REPO / name
        if source.is_file():
            shutil.copyfile(source, into / name)
            continue
        for path in sorted(source.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                target = into / path.relative_to(REPO)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)
    for path in into.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)


def build_wheel(workdir: Path) -> Path:
    """kwhatif's wheel, built offline by the running interpreter's setuptools (pyproject's
    build-system requirement, not fetched: --no-build-isolation)."""
    problem = setuptools_problem()
    if problem:
        raise BuildError(problem)
    sources, wheels = workdir / "src", workdir / "wheels"
    sources.mkdir()
    copy_sources(sources)
    env = {**os.environ, "SOURCE_DATE_EPOCH": str(EPOCH), "PIP_NO_INDEX": "1"}
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--wheel-dir", str(wheels), str(sources)], check=True, env=env, stdout=subprocess.DEVNULL)
    (wheel,) = wheels.glob("kwhatif-*.whl")
    return wheel


def tar_member(name: str, data: bytes, mode: int) -> tuple[tarfile.TarInfo, io.BytesIO]:
    info = tarfile.TarInfo(name)
    info.size, info.mode, info.mtime = len(data), mode, EPOCH
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info, io.BytesIO(data)


def build_archive(dist: Path) -> Path:
    """dist/kubectl-whatif-vX.Y.Z.tar.gz: the launcher (told the wheel's name) and the wheel."""
    with tempfile.TemporaryDirectory(prefix="kwhatif-krew-") as work:
        wheel = build_wheel(Path(work))
        launcher = LAUNCHER.read_text().replace("@WHEEL@", wheel.name).encode()
        members = sorted([tar_member("kubectl-whatif", launcher, 0o755),
                          tar_member(wheel.name, wheel.read_bytes(), 0o644)], key=lambda m: m[0].name)
    dist.mkdir(parents=True, exist_ok=True)
    path = dist / f"kubectl-whatif-{tag()}.tar.gz"
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as zipped, \
            tarfile.open(fileobj=zipped, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for info, data in members:
            tar.addfile(info, data)
    return path


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def manifest(archive: Path) -> dict[str, object]:
    """The krew manifest of `archive` (pkg/index/types.go's Plugin): one platform entry for Linux
    and macOS, since the launcher is POSIX sh and the wheel pure Python."""
    files = [{"from": name, "to": "."} for name in archive_names(archive)]
    return {
        "apiVersion": "krew.googlecontainertools.github.com/v1alpha2",
        "kind": "Plugin",
        "metadata": {"name": PLUGIN},
        "spec": {
            "version": tag(),
            "homepage": HOMEPAGE,
            "shortDescription": "What would kube-scheduler do? Offline what-if scheduling",
            "description": DESCRIPTION,
            "caveats": CAVEATS,
            "platforms": [{
                "selector": {"matchExpressions": [{"key": "os", "operator": "In", "values": ["darwin", "linux"]}]},
                "uri": RELEASE_URI.format(tag=tag()),
                "sha256": sha256(archive),
                "files": files,
                "bin": "kubectl-whatif",
            }],
        },
    }


def archive_names(archive: Path) -> list[str]:
    with tarfile.open(archive) as tar:
        return tar.getnames()


DESCRIPTION = """\
Simulates kube-scheduler v1.34.1 offline on a snapshot of your cluster: where pending
pods would land, why a pod stays Pending (with the scheduler's own FailedScheduling
words), what preemption would evict, whether a rollout fits, what a drain or a new
node would change. It reads the cluster only through your kubectl, read-only
(`kubectl whatif snapshot -o dump.json.gz`, or `--live` on any command).
"""
CAVEATS = """\
This plugin needs python3 (3.11 or later) with the venv module.
On first run it creates a private virtual environment beside itself and
installs kwhatif's Python dependencies (click, pyyaml, numpy...) from your
pip index (pip's own configuration: PIP_INDEX_URL, pip.conf).
Offline: set KWHATIF_KREW_PYTHON to a python3 that already has them.
"""


class ManifestDumper(yaml.SafeDumper):
    """Multi-line strings as literal blocks (`|`), as krew's own manifests write them."""


def literal(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style="|" if "\n" in text else None)


ManifestDumper.add_representer(str, literal)


def write_manifest(archive: Path, path: Path) -> None:
    """Refuses (exit 1) a manifest krew would refuse, rather than write it."""
    plugin = manifest(archive)
    wrong = plugin_error(path.name.removesuffix(".yaml"), plugin)
    if wrong:
        sys.exit(f"tools/krew.py: {path}: {wrong}")
    path.parent.mkdir(parents=True, exist_ok=True)
    header = "# Generated by `make krew` (tools/krew.py) from the archive; do not edit by hand.\n"
    path.write_text(header + yaml.dump(plugin, Dumper=ManifestDumper, sort_keys=False, width=100))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dist", type=Path, default=REPO / "dist")
    parser.add_argument("--manifest", type=Path, default=REPO / "plugins" / f"{PLUGIN}.yaml")
    args = parser.parse_args(argv)
    try:
        archive = build_archive(args.dist)
    except BuildError as err:
        sys.exit(f"tools/krew.py: {err}")
    write_manifest(archive, args.manifest)
    print(f"{archive} sha256 {sha256(archive)}\n{args.manifest}")


if __name__ == "__main__":
    main()
