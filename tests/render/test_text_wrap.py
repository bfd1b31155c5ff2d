"""Wrapping text to the terminal never breaks inside a taint's `{key: value}`: a line ending in
`control-plane:` over one starting with `}` is text nobody finds in the event (kube-scheduler's
taint reason, tainttoleration/taint_toleration.go: `node(s) had untolerated taint {%s: %s}`)."""

from __future__ import annotations

import pytest

from kwhatif.render.text import wrap

CONTROL_PLANE = "{node-role.kubernetes.io/control-plane: }"  # empty value: the text ends in ": }"
MESSAGE = (f"0/3 nodes are available: 1 node(s) had untolerated taint {CONTROL_PLANE}, 2 Insufficient cpu. "
           "no new claims to deallocate, preemption: 0/3 nodes are available: 1 Preemption is not helpful for "
           "scheduling, 2 No preemption victims found for incoming pod.")


@pytest.mark.parametrize("width", range(46, 161))
def test_a_taint_stays_on_one_line_at_any_width_it_fits(width: int) -> None:
    # `{node-role.kubernetes.io/control-plane: },` is 42 characters: with 4 of indent, from 46 columns
    lines = wrap(MESSAGE, width, "  ")
    assert sum(CONTROL_PLANE in line for line in lines) == 1
    assert " ".join(" ".join(lines).split()) == MESSAGE  # nothing else changed


def test_a_taint_longer_than_a_line_breaks_rather_than_run_past_the_edge() -> None:
    # a 40-column table cell, no indent: the 42 characters do not fit
    lines = wrap(MESSAGE, 40, "", hanging="")
    assert max(map(len, lines)) <= 40
    assert " ".join(" ".join(lines).split()) == MESSAGE


@pytest.mark.parametrize("width", range(40, 81))
@pytest.mark.parametrize("text, kept", [
    ("0/9 nodes are available: 4 node(s) had untolerated taint {dedicated: gpu}, 5 Insufficient cpu.",
     "{dedicated: gpu}"),
    ("kwhatif: on 2 of them: also untolerated: taint {b: 2}:NoSchedule, and some more words here",  # kwhatif's own
     "{b: 2}:NoSchedule,"),
])
def test_a_taint_with_a_value_stays_whole(text: str, kept: str, width: int) -> None:
    assert sum(kept in line for line in wrap(text, width, "  ")) == 1
