"""The summary's groups of rejected nodes carry the rejecting plugin's sentences: those every node
of the group says as they are, the others counted when they are few kinds (categorical: a label
missed, another taint), none when they are many (per-node amounts: the spreads say them)."""

from __future__ import annotations

import pytest

from kwhatif.explain.pod import AttemptExplanation, NodeVerdict
from kwhatif.explain.summary import reason_groups
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
    # five different sentences (more than MAX_COUNTED = 4): per-node amounts, left to the spreads
    ([rejected(n, f"{n} has {i}m free") for i, n in enumerate("abcde")], []),
    # a plugin that measures its nodes (Fit): two different amounts are the spread's, not counted
    ([NodeVerdict(n, False, "NodeResourcesFit", "Unschedulable", ["Insufficient cpu"],
                  insights={"NodeResourcesFit": [f"cpu: {i}m free"]}, measures={"cpu": i}) for i, n in ((1, "a"), (2, "b"))],
     []),
])
def test_a_groups_insight_counts_the_sentences_of_its_nodes(verdicts: list[NodeVerdict], insight: list[str]) -> None:
    attempt = AttemptExplanation(Outcome.UNSCHEDULABLE, None, None, [], verdicts, False)
    [group] = reason_groups(attempt)
    assert group.insight == insight
