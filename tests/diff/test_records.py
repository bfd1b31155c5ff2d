"""A run's records (kwhatif.diff.pod_records) read the same with and without per-node detail:
`diff` keeps none (at 5,000 nodes, 1.6 GB with it, 0.6 GB without)."""

from __future__ import annotations

import pytest

from kwhatif.api.cluster import Cluster
from kwhatif.diff import pod_records
from kwhatif.engine import simulate
from tests.builders import make_node, make_pod

NOW = "2026-01-01T00:00:00Z"


@pytest.mark.parametrize("node_detail", [True, False], ids=["node detail", "no node detail"])
def test_the_chosen_nodes_score_is_kept_without_node_detail(node_detail: bool) -> None:
    """One pod of 1 cpu / 1Gi (no labels, no owner: no spreading, no affinity to score) on n1
    (4 cpu, 8Gi) and n2 (2 cpu, 8Gi), both empty, default profile:
    n1: Fit least-allocated cpu (4000-1000)*100 div 4000 = 75, memory (8-1)*100 div 8 = 87,
        (75+87) div 2 = 81; Balanced |1/4 - 1/8| / 2 = 0.0625 -> (1 - 0.0625)*100 = 93;
        TaintToleration (no taint anywhere) 100 x weight 3 = 300; ImageLocality 0: total 474.
    n2: Fit cpu 50, memory 87 -> 68; Balanced |1/2 - 1/8| / 2 = 0.1875 -> 81; 300: total 449.
    n1 wins with 474, read from the scores with node detail and kept without it."""
    cluster = Cluster(nodes=[make_node("n1", cpu="4", memory="8Gi"), make_node("n2", cpu="2", memory="8Gi")],
                      pods=[make_pod("p", cpu="1", memory="1Gi")])
    sim = simulate(cluster, NOW, node_detail=node_detail)
    [result] = sim.results
    attempt = result.final
    assert attempt is not None and attempt.node == "n1" and attempt.scored_by_scheduler
    if node_detail:
        assert attempt.scores is not None and attempt.node_score == attempt.scores.totals["n1"]
    else:
        assert attempt.scores is None
    record = pod_records(sim)["default/p"]
    assert (record["node"], record["score"]) == ("n1", attempt.node_score)
    assert attempt.node_score == 474
