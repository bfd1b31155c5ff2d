"""Warnings on a terminal: one line a kind of problem, with how many more objects it concerns
(a dump with hundreds of duplicated pods must not bury the one warning that matters)."""

from __future__ import annotations

import pytest

from kwhatif.render.text import grouped_warnings

DUP = "d.yaml#{doc}:{line}: Pod/default/p{n}: duplicate of the object at d.yaml#0:{line}; the last one wins"


@pytest.mark.parametrize("warnings, expected", [
    pytest.param([], [], id="nothing to say"),
    pytest.param([DUP.format(doc=1, line=9, n=1), DUP.format(doc=2, line=30, n=2), DUP.format(doc=3, line=51, n=3)],
                 [DUP.format(doc=1, line=9, n=1) + " (and 2 more like it)"],
                 id="the same problem of three objects at three places is one line and a count"),
    pytest.param(['a.yaml#0:1: Pod/default/p: unknown field "spec.nodeSelectr"',
                  'a.yaml#1:9: Pod/default/q: unknown field "spec.tolerationz"'],
                 ['a.yaml#0:1: Pod/default/p: unknown field "spec.nodeSelectr"',
                  'a.yaml#1:9: Pod/default/q: unknown field "spec.tolerationz"'],
                 id="other fields are other problems: both kept"),
    pytest.param(["Node/n1: its bound pods request more than it has (cpu 6 requested, 4 allocatable)",
                  "ignored kinds kwhatif does not read: Widget (1)",
                  "Node/n2: its bound pods request more than it has (cpu 6 requested, 4 allocatable)"],
                 ["Node/n1: its bound pods request more than it has (cpu 6 requested, 4 allocatable) "
                  "(and 1 more like it)", "ignored kinds kwhatif does not read: Widget (1)"],
                 id="without a source too; the order is that of first appearance"),
])
def test_one_line_a_kind_of_problem(warnings: list[str], expected: list[str]) -> None:
    assert grouped_warnings(warnings) == expected
