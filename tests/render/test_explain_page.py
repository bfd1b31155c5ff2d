"""The parts of `explain`'s page that keep it readable at 5,000 nodes: the message cut to its share
of the 60 lines (-o json keeps it whole); when kwhatif finds more preemption candidates than
kube-scheduler looks for, the word that kube-scheduler keeps only the first it finds from a random
offset (reference 9.3, preemption.go:DryRunPreemption), so its choice may differ; what else
rejects a group's nodes, per filter and reason, in two lines; the runner-up and the nodes tied
with it."""

from __future__ import annotations

import pytest

from kwhatif.explain.pod import AttemptExplanation, NodeVerdict
from kwhatif.framework.scheduler import Outcome
from kwhatif.explain.summary import PluginAlsoFailing, _spreads
from kwhatif.plugins.default_preemption import DefaultPreemptionArgs
from kwhatif.explain.pod import Explanation
from kwhatif.explain.requeue import requeue_events
from kwhatif.explain.suggest import Suggestion
from kwhatif.preemption.evaluator import NO_VICTIMS
from kwhatif.render.budget import section, within
from kwhatif.render.explain import (
    MAX_LINES, MAX_MESSAGE_LINES, _also_failing_lines, _message_lines, _preemption_lines, _ranking_lines,
    explanation_summary, quirks, spread_text,
)


@pytest.mark.parametrize("potential, sampled", [
    (50, 50),      # n ≤ 100: every potential node
    (150, 100),    # 10 % is 15, raised to 100
    (3497, 349),   # 10 % of 3,497
])
def test_the_candidates_kube_scheduler_looks_for(potential: int, sampled: int) -> None:
    assert DefaultPreemptionArgs().candidates_sought(potential) == sampled  # the defaults: 10 %, at least 100


def _preemption(potential: int, candidates: int) -> dict:
    nodes = [f"n{i:04d}" for i in range(potential)]
    return {"potential_nodes": nodes, "candidates": [{"node": n, "victims": []} for n in nodes[:candidates]],
            "chosen": "n0000", "decided_by": "fewest victims"}


@pytest.mark.parametrize("potential, candidates", [
    (300, 10),     # repro: 300 potential nodes, 10 candidates; sought max(30, 100) = 100 > 10: all dry-run
    (150, 100),    # sought max(15, 100) = 100: the dry run stops at the last candidate, having found them all
    (100, 100),    # sought 100 capped at 100
])
def test_no_more_candidates_than_kube_scheduler_seeks_needs_no_caveat(potential: int, candidates: int) -> None:
    assert "random" not in " ".join(_preemption_lines(_preemption(potential, candidates), 200))


@pytest.mark.parametrize("potential, candidates, sought", [
    (150, 101, 100),    # 10 % of 150 is 15, raised to 100: one candidate more than it keeps
    (3497, 350, 349),   # 10 % of 3,497 (integer division)
])
def test_more_candidates_than_kube_scheduler_seeks_is_said_to_be_a_choice_it_may_not_make(
        potential: int, candidates: int, sought: int) -> None:
    text = " ".join(" ".join(_preemption_lines(_preemption(potential, candidates), 200)).split())  # unwrapped
    assert (f"kube-scheduler stops dry-running once it holds about {sought} candidates, found from a random "
            f"potential node on, and chooses among those; kwhatif found {candidates} and chose among them all: a "
            "real cluster may choose another node (and other victims)") in text


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


FIT = "NodeResourcesFit"
TAINTS = "TaintToleration"


@pytest.mark.parametrize("plugins, size, said", [
    # three cordoned nodes, n1 and n2 short of cpu, n3 of cpu and memory
    ([PluginAlsoFailing(FIT, 3, (("Insufficient cpu", 3), ("Insufficient memory", 1)))], 3,
     "kwhatif: all 3 also fail NodeResourcesFit: Insufficient cpu (3), Insufficient memory (1)"),
    # some of the group; a group of one node needs no counts
    ([PluginAlsoFailing(TAINTS, 2, (("taint {a: 1}", 2),)), PluginAlsoFailing(FIT, 1, (("Insufficient cpu", 1),))], 5,
     "kwhatif: 2 of them also fail TaintToleration: taint {a: 1} (2); 1 of them also fails NodeResourcesFit: "
     "Insufficient cpu (1)"),
    ([PluginAlsoFailing(FIT, 1, (("Insufficient cpu", 1), ("Insufficient memory", 1)))], 1,
     "kwhatif: it also fails NodeResourcesFit: Insufficient cpu, Insufficient memory"),
])
def test_what_else_rejects_a_group_is_said_per_filter_with_each_reasons_count(
        plugins: list[PluginAlsoFailing], size: int, said: str) -> None:
    assert " ".join(" ".join(_also_failing_lines(plugins, size, 200)).split()) == said


BIG_TAINTS = "kwhatif: all 4645 also fail TaintToleration: node(s) had untolerated taint {team: t000} (12), and 399 more"


@pytest.mark.parametrize("width, said", [
    # 8 columns of indent: 2 × 92 = 184 columns hold both filters' 172 characters with one reason each
    (100, BIG_TAINTS + "; 3000 of them also fail NodeResourcesFit: Insufficient cpu (3000)"),
    # 2 × 72 = 144 do not: the second filter is counted
    (80, BIG_TAINTS + "; and 1 more filter(s) (-o json)"),
])
def test_what_else_rejects_a_big_group_stays_within_two_lines(width: int, said: str) -> None:
    """4,645 nodes of a 5,000-node cluster, each with one of 400 taints (11 or 12 nodes each) that
    the pod does not tolerate, 3,000 of them short of cpu too: as many filters and reasons as fit
    two lines, the rest counted."""
    taints = tuple((f"node(s) had untolerated taint {{team: t{i:03d}}}", 12 if i < 245 else 11) for i in range(400))
    plugins = [PluginAlsoFailing(TAINTS, 4645, taints), PluginAlsoFailing(FIT, 3000, (("Insufficient cpu", 3000),))]
    lines = _also_failing_lines(plugins, 4645, width)
    assert len(lines) <= 2
    assert " ".join(" ".join(lines).split()) == said


def _scored(node: str, total: int) -> NodeVerdict:
    return NodeVerdict(node, True, scores={"NodeResourcesFit": total}, total=total)


@pytest.mark.parametrize("totals, runner_up", [
    # one node second
    ([("a1", 90), ("a2", 80), ("a3", 70)], "runner-up: a2, total 80, 10 behind (NodeResourcesFit 80)"),
    # a2 and a3 tie for second: the smaller name, and the others named
    ([("a1", 90), ("a2", 80), ("a3", 80), ("a4", 70)],
     "runner-up: a2 (tied with a3), total 80, 10 behind (NodeResourcesFit 80)"),
    # five tie: three named, the rest counted
    ([("a1", 90)] + [(f"b{i}", 80) for i in range(5)],
     "runner-up: b0 (tied with b1, b2, b3 and 1 more), total 80, 10 behind (NodeResourcesFit 80)"),
])
def test_the_runner_up_line_names_the_nodes_tied_with_it(totals: list[tuple[str, int]], runner_up: str) -> None:
    attempt = AttemptExplanation(Outcome.BOUND, "a1", None, ["a1"], [_scored(n, t) for n, t in totals], False)
    assert _ranking_lines(attempt)[1] == runner_up


@pytest.mark.parametrize("budget, fixed, steps", [
    # sections of 4 (rank 0: 4 → 2 → 1 lines), 6 (rank 1: 6 → 3) and 5 (rank 2: 5 → 2) lines
    (30, 5, [0, 0, 0]),   # 5 + 15 fit: nothing condensed
    (18, 5, [1, 0, 0]),   # 5 + 15 = 20: rank 0 first, 4 → 2: 18
    (16, 5, [2, 1, 0]),   # rank 0 to its last (1), then rank 1: 5 + 1 + 3 + 5 = 14
    (10, 5, [2, 1, 1]),   # every section at its shortest: 5 + 1 + 3 + 2 = 11, as short as they go
])
def test_a_page_condenses_its_lowest_ranked_sections_first(budget: int, fixed: int, steps: list[int]) -> None:
    sections = [section(0, [["a"] * 4, ["a"] * 2, ["a"]]), section(1, [["b"] * 6, ["b"] * 3]),
                section(2, [["c"] * 5, ["c"] * 5, ["c"] * 2])]  # a step that saves nothing is none
    lines = within(budget, fixed, sections)
    assert [s.shown for s in sections] == steps
    assert lines == [line for s in sections for line in s.lines]


def _crowded(message: str) -> Explanation:
    """A pod 3,000 nodes reject for 12 reasons, most of whose nodes fail another filter too,
    after a preemption that found no candidate, with five suggestions and four plugins' events."""
    verdicts = [NodeVerdict(f"node-{g:02d}-{i:03d}", False, f"Plugin{g:02d}", "UnschedulableAndUnresolvable",
                            [f"reason {g}"], also_fails={"NodeResourcesFit": ["Insufficient cpu"]})
                for g in range(12) for i in range(250)]
    preemption = {"postfilter_message": "x", "potential_nodes": [v.node for v in verdicts[:300]], "candidates": [],
                  "node_results": {v.node: [NO_VICTIMS] for v in verdicts[:300]}, "not_eligible": ""}
    suggestions = [Suggestion(f"change number {i} " + "which takes words " * 8) for i in range(5)]
    return Explanation("default/p", Outcome.UNSCHEDULABLE, None, message, [],
                       [AttemptExplanation(Outcome.UNSCHEDULABLE, None, message, [], verdicts, False)], preemption,
                       requeue_events(["NodeResourcesFit", "TaintToleration", "NodeAffinity", "NodeUnschedulable"]),
                       suggestions, True)


@pytest.mark.parametrize("width", [80, 100, 200])
def test_a_crowded_page_keeps_to_its_budget_and_its_message_whole(width: int) -> None:
    """docs/explain.md: at most 60 lines on an 80-column or wider terminal; the message (here 3
    lines at 80 columns) is never cut, what was condensed says where the rest is."""
    message = "0/3000 nodes are available: " + ", ".join(f"250 reason {g}" for g in range(12)) + "."
    page = explanation_summary(_crowded(message), width)
    lines = page.splitlines()
    assert len(lines) <= MAX_LINES
    assert "\n".join(_message_lines(message, width)) in page
    assert "more group(s) of" in page and "(-o json: every group; -o wide: every node)" in page
    assert "kwhatif: what would make it fit" in page


def test_a_claim_freed_by_postfilter_is_explained_as_a_retry_kube_scheduler_makes() -> None:
    """dynamicresources.go PostFilter: a claim allocated for a node the pod cannot use is
    deallocated ("deallocation of ResourceClaim completed"); the pod is queued again and may then
    fit unchanged — the reference runs one attempt, and the page says so beside the message."""
    message = ("0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 resourceclaim not "
               "available on the node. deallocation of ResourceClaim completed, preemption: 0/2 nodes are "
               "available: 2 Preemption is not helpful for scheduling.")
    [note] = quirks(message)
    assert note.startswith("'deallocation of ResourceClaim completed': DynamicResources' PostFilter freed a claim")
    assert "kube-scheduler tries the pod again" in note
