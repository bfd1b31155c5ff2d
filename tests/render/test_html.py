"""`-o html` (render/html): the page's structure and numbers for tiny clusters worked out by
hand, that it loads nothing from outside, and that every text is escaped."""

from __future__ import annotations

from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import PriorityClass
from kwhatif.engine import simulate
from kwhatif.explain.run import explain_pod
from kwhatif.render.html import to_html, with_utilisation
from kwhatif.render.html.utilisation import MAX_ROWS, percent, utilisation_data
from kwhatif.render.results import explained_pod_data, simulation_data
from tests.builders import make_container, make_node, make_pod
from tests.render.html_page import parse

NOW = "2026-01-01T00:00:00Z"


def _schedule_page(cluster: Cluster) -> str:
    sim = simulate(cluster, NOW)
    return to_html(with_utilisation(simulation_data(sim, node_detail=False), sim))


def _two_nodes() -> Cluster:
    """n1: 2 cpu / 4Gi / 10 pods, holding `a` (1 cpu, 1Gi); n2: 4 cpu / 8Gi / 10 pods, empty.
    `p` (2 cpu, 2Gi) does not fit n1 (1 cpu free) and lands on n2."""
    return Cluster(nodes=[make_node("n1", cpu="2", memory="4Gi", pods="10"),
                          make_node("n2", cpu="4", memory="8Gi", pods="10")],
                   pods=[make_pod("a", cpu="1", memory="1Gi", node_name="n1"), make_pod("p", cpu="2", memory="2Gi")])


def test_the_heat_map_shows_requests_over_allocatable_before_and_after_the_run():
    """n1 before and after: cpu 1000m/2000m = 50%, memory 1Gi/4Gi = 25%, pods 1/10 = 10%.
    n2 before: nothing, 0% each; after `p`: cpu 2000m/4000m = 50%, memory 2Gi/8Gi = 25%, pods 1/10 = 10%."""
    page = parse(_schedule_page(_two_nodes()))
    n1 = {"cpu": "50", "memory": "25", "pods": "10"}
    assert page.heat("n1") == {(r, phase): v for r, v in n1.items() for phase in ("before", "after")}
    assert page.heat("n2") == {**{(r, "before"): "0" for r in n1}, **{(r, "after"): v for r, v in n1.items()}}


def test_the_summary_counts_the_nodes_the_bound_pods_and_the_outcomes():
    page = parse(_schedule_page(_two_nodes()))
    rows = {e.text: page.elements[i + 1].text for i, e in enumerate(page.elements) if e.tag == "td"}
    assert (rows["nodes"], rows["pods bound before the run"], rows["pods in the queue"]) == ("2", "1", "1")
    assert rows["outcome: bound"] == "1"
    assert "Every pod of the queue is bound." in page.texts


def test_a_preemption_victim_counts_before_and_not_after():
    """n1 (2 cpu) holds `low` (1 cpu, priority 0); `hi` (2 cpu, priority 100) fits nowhere, evicts
    `low` and binds on n1 on the retry: cpu before 1000m/2000m = 50%, after 2000m/2000m = 100%;
    pods 1/10 = 10% both (one pod out, one in)."""
    cluster = Cluster(nodes=[make_node("n1", cpu="2", pods="10")],
                      pods=[make_pod("low", cpu="1", node_name="n1", priority=0),
                            make_pod("hi", cpu="2", priority_class_name="high")],
                      priority_classes={"high": PriorityClass("high", 100)})
    heat = parse(_schedule_page(cluster)).heat("n1")
    assert (heat[("cpu", "before")], heat[("cpu", "after")]) == ("50", "100")
    assert (heat[("pods", "before")], heat[("pods", "after")]) == ("10", "10")


def test_extended_resources_get_columns_and_nodes_without_them_no_figure():
    """gpu-1 offers 4 nvidia.com/gpu, its pod asks 1: 1/4 = 25%. cpu-1 offers none: `–`."""
    train = make_container("train", requests={"nvidia.com/gpu": 1})
    cluster = Cluster(nodes=[make_node("gpu-1", allocatable={"nvidia.com/gpu": 4}), make_node("cpu-1")],
                      pods=[make_pod("train", containers=[train], node_name="gpu-1")])
    page = parse(_schedule_page(cluster))
    assert page.heat("gpu-1")[("nvidia.com/gpu", "after")] == "25"
    assert page.heat("cpu-1")[("nvidia.com/gpu", "after")] == "–"


def test_thousands_of_nodes_are_bucketed_into_at_most_max_rows_rows():
    """450 nodes of 1 cpu: ceil(450 / 200) = 3 to a row, 150 rows. Only node-000 holds a pod
    (1 cpu): the first row has 1000m of 3000m = 33%, and its fullest node is at 100%."""
    nodes = [make_node(f"node-{i:03}", cpu="1") for i in range(450)]
    sim = simulate(Cluster(nodes=nodes, pods=[make_pod("x", cpu="1", node_name="node-000")]), NOW)
    data = utilisation_data(sim.snapshot)
    assert (data["nodes_per_row"], len(data["rows"])) == (3, 150) and len(data["rows"]) <= MAX_ROWS
    first = data["rows"][0]
    assert (first["first"], first["last"], first["nodes"]) == ("node-000", "node-002", 3)
    assert first["after"]["cpu"] == {"requested": 1000, "allocatable": 3000, "max_percent": 100}
    page = parse(to_html(with_utilisation(simulation_data(sim), sim)))
    assert page.heat("node-000 … node-002 (3 nodes)")[("cpu", "after")] == "33"


def test_percentages_round_half_up():
    # 1/3 = 33.3 -> 33; 1/8 = 12.5 -> 13; 2/3 = 66.7 -> 67; 3/2 = 150 (over-committed shows as it is)
    assert [percent(1, 3), percent(1, 8), percent(2, 3), percent(3, 2)] == [33, 13, 67, 150]


def test_the_page_loads_nothing_from_outside_and_escapes_every_text():
    """A message with markup in it (as a taint value or a reason could carry) is text, never a tag."""
    sim = simulate(_two_nodes(), NOW)
    data = with_utilisation(simulation_data(sim, node_detail=False), sim)
    hostile = '<script src="https://evil.example/x.js">alert("&")</script>'
    data["results"][0].update(outcome="unschedulable", message=hostile)
    data["warnings"] = ["<img src=x>"]
    text = to_html(data)
    page = parse(text)
    assert page.external_references() == []
    assert hostile in page.texts and "<img src=x>" in page.texts
    assert "<script" not in text and "<img" not in text


def test_explain_draws_the_winner_and_the_runner_up_per_plugin_as_bars_to_one_scale():
    """bound-a (1500m, 1Gi) with n1 (2 cpu, 4Gi) empty and n2 (4 cpu, 8Gi) holding 2500m / 2Gi
    (tests/cli/test_explain.py has the same case): n1 LeastAllocated ((500/2000 + 3/4) * 100) / 2
    = 50, BalancedAllocation 1 - |0.75 - 0.25| / 2 = 0.75 -> 75, TaintToleration 100 * 3 = 300,
    ImageLocality 0: 425. n2: cpu (4000-4000)/4000 -> 0, memory 5/8 -> 62, 31; Balanced
    1 - |1 - 0.375| / 2 = 0.6875 -> 68; 300: 399, 26 behind. Bars: 240 px for the largest (300),
    so 240 * 50 // 300 = 40 px, 75 -> 60, 31 -> 24, 68 -> 54."""
    cluster = Cluster(nodes=[make_node("n1", cpu="2", memory="4Gi"), make_node("n2", cpu="4", memory="8Gi")],
                      pods=[make_pod("b", cpu="2500m", memory="2Gi", node_name="n2"),
                            make_pod("new", cpu="1500m", memory="1Gi")])
    done = explain_pod(cluster, NOW, "default/new", [], None)
    assert done is not None
    page = parse(to_html(explained_pod_data(done.sim, done.explanation)))
    bars = {(e.attrs["data-node"], e.attrs["data-plugin"]): int(e.attrs["data-score"]) for e in page.cells()
            if "data-score" in e.attrs}
    assert bars == {("n1", "ImageLocality"): 0, ("n1", "NodeResourcesBalancedAllocation"): 75,
                    ("n1", "NodeResourcesFit"): 50, ("n1", "TaintToleration"): 300,
                    ("n2", "ImageLocality"): 0, ("n2", "NodeResourcesBalancedAllocation"): 68,
                    ("n2", "NodeResourcesFit"): 31, ("n2", "TaintToleration"): 300}
    widths = [e.attrs["style"] for e in page.elements if "bar" in e.attrs.get("class", "").split()]
    assert widths == ["width:0px"] * 2 + ["width:60px", "width:54px", "width:40px", "width:24px"] + ["width:240px"] * 2
    assert "winner: n1" in page.texts and "runner-up: n2" in page.texts
    assert "The winner leads by 26." in page.texts


def test_explain_shows_the_message_verbatim_and_the_reason_groups():
    """`big` (1500m) fits neither n1 (2 cpu, 1000m used) nor n2 (2 cpu, 1500m used):
    `Insufficient cpu` on both, Unschedulable (it would fit an empty node); short by 1500-1000 =
    500m and 1500-500 = 1000m (two nodes: no median, which would be the lower one). Every pod has priority 0, none
    lower than big's: `No preemption victims found for incoming pod` on both."""
    cluster = Cluster(nodes=[make_node("n1", cpu="2"), make_node("n2", cpu="2")],
                      pods=[make_pod("a", cpu="1", node_name="n1", priority=0),
                            make_pod("b", cpu="1500m", node_name="n2", priority=0), make_pod("big", cpu="1500m")])
    done = explain_pod(cluster, NOW, "default/big", [], None)
    assert done is not None
    page = parse(to_html(explained_pod_data(done.sim, done.explanation)))
    message = ("0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: "
               "0/2 nodes are available: 2 No preemption victims found for incoming pod.")
    assert [e.text for e in page.elements if e.attrs.get("class") == "message"] == [message]
    row = [e.text for e in page.elements if e.tag == "td"][:7]
    assert row == ["NodeResourcesFit", "Unschedulable", "Insufficient cpu", "2",
                   "cpu short by 500m–1000m", "n1, n2", ""]
    assert "2 node(s) evaluated: 2 rejected, 0 feasible" in page.texts
