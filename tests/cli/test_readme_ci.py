"""docs/ci.md's GitHub Actions example is run as written: its `kwhatif check` line, in a folder
holding `deploy/` and `cluster-snapshot.json` (the test cluster as a `kubectl get -o json` List)."""

from __future__ import annotations

import re
import shlex
import shutil

from tests.cli.conftest import DATA, REPO, as_list_json, cluster_documents


def readme_command() -> list[str]:
    text = (REPO / "docs" / "ci.md").read_text()
    block = re.search(r"<!-- ci-example -->\n```yaml\n(.*?)```", text, re.DOTALL).group(1)
    [line] = [ln for ln in block.splitlines() if "run: kwhatif check" in ln]
    return shlex.split(line.split("run:", 1)[1])


def test_the_readme_ci_command_runs_on_the_test_cluster(cli, tmp_path, monkeypatch):
    command = readme_command()
    assert command[:3] == ["kwhatif", "check", "deploy/"]
    (tmp_path / "deploy").mkdir()
    shutil.copy(DATA / "check" / "web.yaml", tmp_path / "deploy" / "web.yaml")
    shutil.copy(DATA / "check" / "api.yaml", tmp_path / "deploy" / "api.yaml")
    (tmp_path / "cluster-snapshot.json").write_text(as_list_json(cluster_documents()))
    monkeypatch.chdir(tmp_path)
    result = cli([*command[1:], "--now", "2026-01-01T00:00:00Z"])
    # api (2 x 600m) does not fit (see test_check.py); web fits on node-a.
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("::error file=deploy/api.yaml,line=9,title=kwhatif check%3A Deployment/default/api::")
    assert lines[-1] == "FAIL: 1/2 workloads fit; policies failed: headroom"
