"""The parts of `explain`'s page that keep it readable at 5,000 nodes: the message cut to its share
of the 60 lines (-o json keeps it whole), and past 100 potential nodes the word that kube-scheduler
dry-runs only some of them from a random offset (reference 9.3), so its choice may differ."""

from __future__ import annotations

import pytest

from kwhatif.explain.pod import NodeVerdict
from kwhatif.explain.summary import _spreads
from kwhatif.plugins.default_preemption import DefaultPreemptionArgs
from kwhatif.render.explain import MAX_MESSAGE_LINES, _message_lines, _preemption_lines, spread_text


@pytest.mark.parametrize("potential, sampled", [
    (50, 50),      # n ≤ 100: every potential node
    (150, 100),    # 10 % is 15, raised to 100
    (3497, 349),   # 10 % of 3,497
])
def test_the_candidates_kube_scheduler_looks_for(potential: int, sampled: int) -> None:
    assert DefaultPreemptionArgs().candidates_sought(potential) == sampled  # the defaults: 10 %, at least 100


def _preemption(potential: int) -> dict:
    nodes = [f"n{i:04d}" for i in range(potential)]
    return {"potential_nodes": nodes, "candidates": [{"node": "n0000", "victims": []}], "chosen": "n0000",
            "decided_by": "fewest victims"}


def test_a_choice_among_sampled_candidates_is_said_to_be_kwhatifs() -> None:
    text = " ".join(_preemption_lines(_preemption(3497), 200))
    assert ("kube-scheduler dry-runs about 349 of the 3497 potential nodes, from a random one on, and chooses among "
            "those: a real cluster may choose another node (and other victims); kwhatif tried them all") in text


def test_every_potential_node_dry_run_needs_no_caveat() -> None:
    assert "dry-runs about" not in " ".join(_preemption_lines(_preemption(100), 200))


def test_a_message_too_long_for_the_page_keeps_its_head_and_says_where_the_rest_is() -> None:
    reasons = ", ".join(f"1 node(s) had untolerated taint {{team: t{i:03d}}}" for i in range(400))
    lines = _message_lines(f"0/5000 nodes are available: {reasons}.", 80)
    assert len(lines) == MAX_MESSAGE_LINES
    assert lines[0].startswith("  0/5000 nodes are available: 1 node(s) had untolerated taint {team: t000}")
    note = " ".join(lines[lines.index(next(line for line in lines if line.startswith("  ... "))):])
    assert "lines in all: -o json has the whole message" in note
    short = _message_lines("0/3 nodes are available: 3 Insufficient cpu.", 80)
    assert short == ["  0/3 nodes are available: 3 Insufficient cpu."]


def test_an_attempt_an_error_ended_judged_no_node_and_a_missing_cel_key_is_said() -> None:
    from kwhatif.explain.pod import AttemptExplanation, Explanation
    from kwhatif.framework.scheduler import Outcome
    from kwhatif.render.explain import explanation_summary

    message = ('running "DynamicResources" filter plugin: claim default/c: selector #0: CEL runtime error: '
               "no such key: model")
    attempt = AttemptExplanation(Outcome.ERROR, None, message, [], [], False)
    page = " ".join(explanation_summary(Explanation("default/p", Outcome.ERROR, None, message, [], [attempt], None),
                                        200).split())
    assert "no node was judged" in page and "node(s) evaluated" not in page and "--all-nodes" not in page
    assert "a device the selector looked at has no attribute 'model'" in page
    assert '`"model" in device.attributes["DOMAIN"] && ...`' in page


@pytest.mark.parametrize("amounts, said", [
    ([600], "cpu short by 600m"),
    ([600, 1300], "cpu short by 600m–1300m"),                       # two: no median (it would be the lower)
    ([10, 160, 1160], "cpu short by 10m–1160m (median 160m)"),
    ([10, 160, 200, 1160], "cpu short by 10m–1160m (median 160m)"),  # even count: the lower middle one
])
def test_a_groups_spread_names_a_median_only_past_two_nodes(amounts: list[int], said: str) -> None:
    [spread] = _spreads([NodeVerdict(f"n{i}", False, "NodeResourcesFit", "Unschedulable",
                                     ["Insufficient cpu"], measures={"cpu": a}) for i, a in enumerate(amounts)])
    assert spread_text(spread) == said
