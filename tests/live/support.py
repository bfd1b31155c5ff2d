"""Helpers for the live-snapshot tests (tests/live, tests/cli/test_snapshot.py): Debian's kubectl (skipped without it) and the fake API
server of `fake_apiserver.py` serving a conformance case."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

CASES = Path(__file__).parents[1] / "conformance" / "cases"
SKIP_REASON = "kubectl not installed: apt-get install kubectl (Debian) to run the live-snapshot tests"


def installed_kubectl() -> str | None:
    """kubectl, an optional system component: Debian's at /usr/bin/kubectl, or any on PATH."""
    return "/usr/bin/kubectl" if os.access("/usr/bin/kubectl", os.X_OK) else shutil.which("kubectl")


@pytest.fixture
def kubectl_env(tmp_path: Path) -> dict[str, str]:
    """The environment kwhatif runs in: PATH holding only kubectl's folder (and nothing else a test
    would depend on), HOME a fresh folder (kubectl caches discovery under ~/.kube/cache)."""
    kubectl = installed_kubectl()
    if kubectl is None:
        pytest.skip(SKIP_REASON)
    home = tmp_path / "home"
    home.mkdir()
    return {"PATH": str(Path(kubectl).parent), "HOME": str(home), "LANG": "C.UTF-8"}


class _PlainLoader(yaml.SafeLoader):
    """YAML as the API server keeps it: timestamps stay strings."""


_PlainLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def case_objects(path: Path) -> list[dict[str, Any]]:
    """The objects of a conformance case file, as the API server would store them."""
    return [d for d in yaml.load_all(path.read_text(), Loader=_PlainLoader) if d]
