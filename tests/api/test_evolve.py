"""`evolve`: a copy with some fields changed. Made positionally for speed, it must be
`dataclasses.replace` exactly — every other field the same object, the original untouched — and
refuse a field the class lacks as `replace` does."""

from __future__ import annotations

import dataclasses

import pytest

from kwhatif.api.objects import Pod
from tests.builders import make_pod


def test_evolve_is_replace() -> None:
    pod = make_pod("web-1", cpu="100m", labels={"app": "web"}, node_name="")
    bound = pod.evolve(node_name="n1", start_time="2026-01-01T00:00:00Z")
    assert bound == dataclasses.replace(pod, node_name="n1", start_time="2026-01-01T00:00:00Z")
    assert (bound.node_name, pod.node_name) == ("n1", "")
    assert all(getattr(bound, f.name) is getattr(pod, f.name) for f in dataclasses.fields(Pod)
               if f.name not in ("node_name", "start_time"))


def test_evolve_refuses_an_unknown_field() -> None:
    with pytest.raises(TypeError, match="no_such_field"):
        make_pod("web-1").evolve(no_such_field=1)
