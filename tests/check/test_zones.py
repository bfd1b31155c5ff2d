"""The zones `--tolerate-zone-loss` loses one at a time: a zone label's values within their
region, and the nodes without one as one more zone of their region, or "" (component-helpers'
GetZoneKey, `region:\x00:zone`, the beta labels read first when present: as the node lifecycle
controller groups nodes)."""

from __future__ import annotations

import pytest

from kwhatif.check import zone_loss_scenarios
from tests.builders import make_node

GA, BETA = "topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone"
REGION, BETA_REGION = "topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region"
NO_ZONE = f"!{GA},!{BETA}"


@pytest.mark.parametrize("labels, expected", [
    pytest.param({"n1": {GA: "a"}, "n2": {GA: "b"}, "n3": {GA: "a"}},
                 [("without zone a (2 nodes)", {"n1", "n3"}, f"--remove-node {GA}=a"),
                  ("without zone b (1 node)", {"n2"}, f"--remove-node {GA}=b")], id="every node labelled"),
    pytest.param({"n1": {GA: "a"}, "n2": {}, "n3": {}},
                 [("without the 2 nodes with no zone label", {"n2", "n3"},
                   f"--remove-node '{NO_ZONE},!{REGION},!{BETA_REGION}'"),
                  ("without zone a (1 node)", {"n1"}, f"--remove-node {GA}=a")],
                 id="some nodes unlabelled: a selector takes them, whatever their number"),
    pytest.param({"n1": {}}, [("without the 1 node with no zone label", {"n1"}, "--remove-node n1")],
                 id="no zone label at all: the one zone"),
    pytest.param({"n1": {REGION: "eu"}, "n2": {REGION: "us"}, "n3": {}},
                 [("without the 1 node with no zone label", {"n3"}, "--remove-node n3"),
                  ("without the 1 node of region eu with no zone label", {"n1"}, "--remove-node n1"),
                  ("without the 1 node of region us with no zone label", {"n2"}, "--remove-node n2")],
                 id="no zone label but a region: a zone of that region"),
    pytest.param({"n1": {REGION: "eu"}, "n2": {REGION: "eu"}, "n3": {GA: "a", REGION: "eu"}},
                 [("without the 2 nodes of region eu with no zone label", {"n1", "n2"},
                   f"--remove-node '{NO_ZONE},{REGION}=eu'"),
                  ("without zone a (1 node)", {"n3"}, f"--remove-node {GA}=a")],
                 id="a region's unlabelled nodes: by the region's label"),
    pytest.param({"n1": {REGION: "eu"}, "n2": {BETA_REGION: "eu"}},
                 [("without the 2 nodes of region eu with no zone label", {"n1", "n2"},
                   "--remove-node n1 --remove-node n2")],
                 id="a region named by two labels: its nodes by name"),
    pytest.param({"n1": {GA: "a"}, "n2": {BETA: "a"}},
                 [("without zone a (2 nodes)", {"n1", "n2"}, "--remove-node n1 --remove-node n2")],
                 id="a zone named by two labels: its nodes by name"),
    # GetZoneKey: region + zone; r1's b and r2's b are two zones, each taken by both its labels
    pytest.param({"n1": {GA: "a", REGION: "r1"}, "n2": {GA: "a", REGION: "r2"}, "n3": {GA: "b", REGION: "r1"},
                  "n4": {GA: "c", REGION: "r2"}},
                 [("without zone a of region r1 (1 node)", {"n1"}, f"--remove-node {GA}=a,{REGION}=r1"),
                  ("without zone a of region r2 (1 node)", {"n2"}, f"--remove-node {GA}=a,{REGION}=r2"),
                  ("without zone b (1 node)", {"n3"}, f"--remove-node {GA}=b"),
                  ("without zone c (1 node)", {"n4"}, f"--remove-node {GA}=c")],
                 id="a zone name in two regions: two zones"),
    # GetZoneKey reads the beta label when the node has it, whatever the GA one says
    pytest.param({"n1": {BETA: "a", GA: "b"}, "n2": {GA: "b"}},
                 [("without zone a (1 node)", {"n1"}, f"--remove-node {BETA}=a"),
                  ("without zone b (1 node)", {"n2"}, "--remove-node n2")],
                 id="the beta zone label first"),
])
def test_each_zone_is_a_scenario(labels: dict[str, dict[str, str]], expected: list[tuple[str, set[str], str]]) -> None:
    nodes = [make_node(name, labels=node_labels) for name, node_labels in labels.items()]
    assert [(s.label, s.lost, s.flags) for s in zone_loss_scenarios(nodes)] == expected
