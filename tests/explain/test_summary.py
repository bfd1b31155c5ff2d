"""The summary's groups of rejected nodes carry the rejecting plugin's sentences: those every node
of the group says as they are, the others counted when they are few kinds (categorical: a label
missed, another taint); when they are many, per-node amounts are the spreads', and per-node facts
get one node's as the example."""

from __future__ import annotations

import pytest

from kwhatif.explain.pod import AttemptExplanation, NodeVerdict
from kwhatif.explain.summary import PluginAlsoFailing, also_failing_by_plugin, reason_groups
from kwhatif.framework.scheduler import Outcome

REASON = "node(s) didn't match Pod's node affinity/selector"


def rejected(node: str, *said: str) -> NodeVerdict:
    return NodeVerdict(node, False, "NodeAffinity", "UnschedulableAndUnresolvable", [REASON],
                       insights={"NodeAffinity": list(said)})


@pytest.mark.parametrize("verdicts, insight", [
    # every node says the same: as it is
    ([rejected("a", "nodeSelector disktype=nvme not matched"), rejected("b", "nodeSelector disktype=nvme not matched")],
     ["nodeSelector disktype=nvme not matched"]),
    # 3 nodes miss disktype, 2 of them the zone too: all 3 say the first, 2 the second
    ([rejected("a", "nodeSelector disktype=nvme not matched", "nodeSelector zone=a not matched"),
      rejected("b", "nodeSelector disktype=nvme not matched", "nodeSelector zone=a not matched"),
      rejected("c", "nodeSelector disktype=nvme not matched")],
     ["on all 3: nodeSelector disktype=nvme not matched", "on 2 of them: nodeSelector zone=a not matched"]),
    # five different sentences (more than MAX_COUNTED = 4), none measured: the first node's
    # stands for the others (an anti-affinity match each: without it the group had no reason)
    ([rejected(n, f"{n} holds pod db-{i}") for i, n in enumerate("abcde")],
     ["on a: a holds pod db-0 (and the like on the 4 other node(s): --node NAME says one)"]),
    # a plugin that measures its nodes (Fit): two different amounts are the spread's, not counted
    ([NodeVerdict(n, False, "NodeResourcesFit", "Unschedulable", ["Insufficient cpu"],
                  insights={"NodeResourcesFit": [f"cpu: {i}m free"]}, measures={"cpu": i}) for i, n in ((1, "a"), (2, "b"))],
     []),
])
def test_a_groups_insight_counts_the_sentences_of_its_nodes(verdicts: list[NodeVerdict], insight: list[str]) -> None:
    attempt = AttemptExplanation(Outcome.UNSCHEDULABLE, None, None, [], verdicts, False)
    [group] = reason_groups(attempt)
    assert group.insight == insight


CORDONED = ("NodeUnschedulable", "UnschedulableAndUnresolvable", ["node(s) were unschedulable"])


def cordoned(node: str, **later: list[str]) -> NodeVerdict:
    return NodeVerdict(node, False, *CORDONED, also_fails=dict(later))


@pytest.mark.parametrize("verdicts, by_plugin", [
    # n1, n2 lack cpu, n3 cpu and memory: NodeResourcesFit rejects all 3, cpu said by 3, memory by 1
    ([cordoned("n1", NodeResourcesFit=["Insufficient cpu"]), cordoned("n2", NodeResourcesFit=["Insufficient cpu"]),
      cordoned("n3", NodeResourcesFit=["Insufficient cpu", "Insufficient memory"])],
     [PluginAlsoFailing("NodeResourcesFit", 3, (("Insufficient cpu", 3), ("Insufficient memory", 1)))]),
    # a: taint t1 and cpu; b: taint t2; c: nothing else. TaintToleration on 2 (t1 1, t2 1) before
    # NodeResourcesFit on 1; equal counts by reason.
    ([cordoned("a", TaintToleration=["taint t1"], NodeResourcesFit=["Insufficient cpu"]),
      cordoned("b", TaintToleration=["taint t2"]), cordoned("c")],
     [PluginAlsoFailing("TaintToleration", 2, (("taint t1", 1), ("taint t2", 1))),
      PluginAlsoFailing("NodeResourcesFit", 1, (("Insufficient cpu", 1),))]),
])
def test_what_else_rejects_a_groups_nodes_is_counted_per_filter_and_reason(
        verdicts: list[NodeVerdict], by_plugin: list[PluginAlsoFailing]) -> None:
    [group] = reason_groups(AttemptExplanation(Outcome.UNSCHEDULABLE, None, None, [], verdicts, False))
    assert also_failing_by_plugin(group.also_fails) == by_plugin


def tainted(node: str, key: str, value: str) -> NodeVerdict:
    """A node TaintToleration rejects for its taint key=value (taint_toleration.go: one reason, the
    first untolerated taint, `{key: value}`)."""
    return NodeVerdict(node, False, "TaintToleration", "UnschedulableAndUnresolvable",
                       [f"node(s) had untolerated taint {{{key}: {value}}}"])


@pytest.mark.parametrize("verdicts, groups", [
    # a taint per team: one group of the key, each value's reason in it (most nodes first, then text)
    ([tainted("n3", "team", "t1"), tainted("n1", "team", "t0"), tainted("n2", "team", "t2"), tainted("n4", "team", "t1")],
     [("team", ["n1", "n2", "n3", "n4"], ["t1", "t0", "t2"])]),
    # one value of a key is one upstream reason: its group stays as it is
    ([tainted("a", "dedicated", "infra"), tainted("b", "dedicated", "infra")], [(None, ["a", "b"], ["infra"])]),
    # two keys: the key of several values gathered, the other alone; a cordon is no taint reason
    ([tainted("a", "team", "x"), tainted("b", "team", "y"), tainted("c", "dedicated", "infra"), cordoned("d")],
     [("team", ["a", "b"], ["x", "y"]), (None, ["d"], []), (None, ["c"], ["infra"])]),
])
def test_nodes_of_one_taint_key_with_several_values_are_one_group(
        verdicts: list[NodeVerdict], groups: list[tuple[str | None, list[str], list[str]]]) -> None:
    attempt = AttemptExplanation(Outcome.UNSCHEDULABLE, None, None, [], verdicts, False)
    assert [(g.taint_key, g.nodes, g.taint_values) for g in reason_groups(attempt)] == groups
