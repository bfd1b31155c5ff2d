"""KubeSchedulerConfiguration: merge and expansion of plugin sets (reference §1.5), score weights,
argument defaults (§1.4), and kube-scheduler's error texts for the files it refuses.

Merge cases are ported from kubernetes `apis/config/v1/default_plugins_test.go` (TestMergePlugins),
expansion cases from `framework/runtime/framework_test.go` (TestNewFrameworkMultiPointExpansion,
with in-tree plugins instead of test plugins), argument and decoding cases from
`apis/config/scheme/scheme_test.go` and `validation/validation_pluginargs_test.go`; the error
texts follow `field.Error` formatting and the wrapping of `profile.NewMap` / `scheduler.New`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from kwhatif.api.affinity import (
    Affinity, NodeAffinity as NodeAffinitySpec, NodeSelector, NodeSelectorTerm, PreferredSchedulingTerm,
)
from kwhatif.api.selectors import Requirement
from kwhatif.cli.main import main
from kwhatif.config.args import default_args, plugin_args
from kwhatif.golang import format_duration, parse_duration
from kwhatif.config.profile import (
    KUBE_POINTS, MULTI_POINT, PLUGIN_SETS, PluginRef, PluginSetConfig, ProfileError, default_plugins, default_profile,
    expand_plugins, merge_plugin_set, merge_plugins,
)
from kwhatif.config.scheduler_config import ConfigError, default_scheduler_config, parse_scheduler_config
from kwhatif.framework.cycle_state import CycleState
from kwhatif.framework.interfaces import EXTENSION_POINTS
from kwhatif.framework.status import Code
from kwhatif.plugins.node_affinity import NodeAffinity
from kwhatif.plugins.registry import REGISTRY
from kwhatif.api.cluster import Cluster
from kwhatif.snapshot.pod_info import PodInfo
from kwhatif.snapshot.snapshot import Snapshot
from tests.builders import Handle, make_node, make_pod
from tests.plugins.harness import filter_node, outcome, score_nodes

REPO = Path(__file__).parents[2]
HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def refs(*items: str | tuple[str, int]) -> tuple[PluginRef, ...]:
    return tuple(PluginRef(i) if isinstance(i, str) else PluginRef(*i) for i in items)


def pset(enabled: tuple = (), disabled: tuple = ()) -> PluginSetConfig:
    return PluginSetConfig(refs(*enabled), refs(*disabled))


def config(body: str = "") -> Any:
    return parse_scheduler_config(HEADER + body)


def error_of(text: str) -> str:
    with pytest.raises(ConfigError) as caught:
        parse_scheduler_config(text)
    return str(caught.value)


# -- merge (TestMergePlugins) -------------------------------------------------------------------

MERGE_CASES = [
    pytest.param(pset(("D1", "D2")), pset(("Custom",)), pset(("D1", "D2", "Custom")),
                 id="a custom plugin is appended after the default plugins"),
    pytest.param(pset(("D1", "D2")), pset(("Custom", "D2"), ("D2",)), pset(("D1", "Custom", "D2"), ("D2",)),
                 id="a disabled default enabled again is placed after the custom plugins before it"),
    pytest.param(pset(("D1", "D2")), pset(("Custom", "D1", "D2"), ("*",)), pset(("Custom", "D1", "D2"), ("*",)),
                 id="with star disabled the user's list replaces the defaults entirely"),
    pytest.param(pset(("D1", "D2")), pset(("D2", "D1"), ("*",)), pset(("D2", "D1"), ("*",)),
                 id="with star disabled the default plugins can be reordered"),
    pytest.param(pset(("P1", "P2", "P3")), pset((("P1", 2), ("P3", 3))), pset((("P1", 2), "P2", ("P3", 3))),
                 id="a default plugin enabled again is replaced in place with the user's weight"),
    pytest.param(pset(("P1", "P2", "P3")), pset((("P2", 2), ("P1", 1))), pset((("P1", 1), ("P2", 2), "P3")),
                 id="overriding default plugins keeps the default order"),
    pytest.param(pset(("P1", "P2", "P3")), pset(("P1", ("P2", 2), "P3", ("P2", 4))),
                 pset(("P1", ("P2", 4), "P3", ("P2", 2))),
                 id="a repeated custom plugin replaces with its last entry and appends the earlier one"),
    pytest.param(pset(("D1", "D2")), pset(("Custom", "Custom2"), ("D2",)), pset(("D1", "Custom", "Custom2"), ("D2",)),
                 id="multiPoint custom plugins are appended and disabled defaults removed"),
    pytest.param(pset(("Default",), ("Default2",)), pset(("Custom",)), pset(("Default", "Custom"), ("Default2",)),
                 id="the disabled plugins of the default set are kept"),
    pytest.param(pset(("Default",)), pset((), ("Default",)), pset((), ("Default",)),
                 id="a set with only disabled plugins empties the defaults"),
    pytest.param(pset(("D1",), ("D3",)), pset((), ("D2",)), pset(("D1",), ("D2", "D3")),
                 id="the user's disabled plugins come before the default set's"),
]


@pytest.mark.parametrize("default, custom, want", MERGE_CASES)
def test_merge_plugin_set(default, custom, want):
    assert merge_plugin_set(default, custom) == want


def test_merge_plugins_without_custom_plugins_keeps_the_defaults():
    assert merge_plugins(default_plugins(), None) == default_plugins()


def test_default_plugins_are_the_v1_34_multipoint_list():
    names = [p.name for p in default_plugins()[MULTI_POINT].enabled]
    assert names == ["SchedulingGates", "PrioritySort", "NodeUnschedulable", "NodeName", "TaintToleration",
                     "NodeAffinity", "NodePorts", "NodeResourcesFit", "VolumeRestrictions", "NodeVolumeLimits",
                     "VolumeBinding", "VolumeZone", "PodTopologySpread", "InterPodAffinity", "DynamicResources",
                     "DefaultPreemption", "NodeResourcesBalancedAllocation", "ImageLocality", "DefaultBinder"]


# -- expansion (TestNewFrameworkMultiPointExpansion) ---------------------------------------------

BASE = ("PrioritySort", "DefaultBinder")


def plugins(multi: tuple = BASE, **points: PluginSetConfig) -> dict[str, PluginSetConfig]:
    sets = {name: PluginSetConfig() for name in PLUGIN_SETS}
    sets[MULTI_POINT] = pset(multi)
    sets.update(points)
    return sets


EXPANSION_CASES = [
    pytest.param(plugins(BASE + (("TaintToleration", 5),)),
                 {"filter": ["TaintToleration"], "preScore": ["TaintToleration"], "score": ["TaintToleration"]},
                 {"TaintToleration": 5},
                 id="a MultiPoint plugin lands at every extension point it implements with its MultiPoint weight"),
    pytest.param(plugins(BASE + (("TaintToleration", 5),), preScore=pset((), ("TaintToleration",)),
                         score=pset((), ("TaintToleration",))),
                 {"filter": ["TaintToleration"], "preScore": [], "score": []}, {"TaintToleration": 5},
                 id="a MultiPoint plugin disabled at some extension points stays at the others"),
    pytest.param(plugins(BASE + ("TaintToleration", "NodeAffinity"), preScore=pset((), ("*",))),
                 {"preScore": [], "score": ["TaintToleration", "NodeAffinity"]}, None,
                 id="star disabled at an extension point skips the MultiPoint expansion there"),
    pytest.param(plugins(BASE + ("ImageLocality", "TaintToleration", "NodeAffinity"),
                         score=pset(("NodeAffinity", "TaintToleration"))),
                 {"score": ["NodeAffinity", "TaintToleration", "ImageLocality"]}, None,
                 id="plugins enabled both at an extension point and in MultiPoint keep their explicit order first"),
    pytest.param(plugins(BASE + ("TaintToleration", "NodeAffinity"),
                         score=pset(("ImageLocality", "NodeAffinity", "TaintToleration"))),
                 {"score": ["NodeAffinity", "TaintToleration", "ImageLocality"]}, None,
                 id="explicit plugins not in MultiPoint come after the MultiPoint ones"),
    pytest.param(plugins(BASE + (("TaintToleration", 3), ("NodeAffinity", 2)),
                         score=pset((("NodeAffinity", 5), "TaintToleration"))),
                 {"score": ["NodeAffinity", "TaintToleration"]}, {"NodeAffinity": 5, "TaintToleration": 1},
                 id="an explicit score entry wins over the MultiPoint weight and unset becomes 1"),
    pytest.param(plugins(BASE + (("ImageLocality", 0),)), {"score": ["ImageLocality"]}, {"ImageLocality": 1},
                 id="a zero weight becomes 1"),
    pytest.param(plugins(BASE + ("TaintToleration",), score=pset((("ImageLocality", 4),))),
                 {"score": ["TaintToleration", "ImageLocality"]}, {"ImageLocality": 4, "TaintToleration": 1},
                 id="a plugin enabled only at score keeps its explicit weight"),
    pytest.param(plugins(("DefaultBinder",), queueSort=pset(("PrioritySort",))),
                 {"queueSort": ["PrioritySort"], "bind": ["DefaultBinder"]}, {},
                 id="plugins can be enabled at extension points without MultiPoint"),
]


@pytest.mark.parametrize("given, want_points, want_weights", EXPANSION_CASES)
def test_multipoint_expansion(given, want_points, want_weights):
    points, weights = expand_plugins(given, (), "x")
    for point, names in want_points.items():
        assert points[point] == names, point
    if want_weights is not None:
        assert weights == want_weights


EXPANSION_ERRORS = [
    pytest.param(plugins(BASE + ("TaintToleration", "TaintToleration")),
                 'plugin "TaintToleration" already registered as "FilterPlugin"',
                 id="a plugin twice in MultiPoint is a double registration at its first extension point"),
    pytest.param(plugins(BASE, score=pset(("ImageLocality", "ImageLocality"))),
                 'plugin "ImageLocality" already registered as "ScorePlugin"',
                 id="a plugin twice at one extension point is a double registration"),
    pytest.param(plugins(BASE, filter=pset(("Foo",))), 'FilterPlugin "Foo" does not exist',
                 id="an unknown plugin at an extension point does not exist"),
    pytest.param(plugins(BASE + ("Foo",)), 'PreFilterPlugin "Foo" does not exist',
                 id="an unknown MultiPoint plugin is reported at the first extension point"),
    pytest.param(plugins(BASE, filter=pset(("ImageLocality",))),
                 'plugin "ImageLocality" does not extend FilterPlugin plugin',
                 id="a plugin at an extension point it does not implement is refused"),
    pytest.param(plugins(BASE, score=pset(("Foo",)), filter=pset(("Bar",))), 'FilterPlugin "Bar" does not exist',
                 id="extension points are checked filter before score"),
    pytest.param(plugins(BASE, preEnqueue=pset(("Foo",)), bind=pset(("Bar",))), 'BindPlugin "Bar" does not exist',
                 id="extension points are checked bind before preEnqueue"),
    pytest.param(plugins(("DefaultBinder",)),
                 'only one queue sort plugin required for profile with scheduler name "x", but got 0',
                 id="a profile without a queue sort plugin is refused"),
    pytest.param(plugins(("PrioritySort",)), 'at least one bind plugin is needed for profile with scheduler name "x"',
                 id="a profile without a bind plugin is refused"),
]


@pytest.mark.parametrize("given, want", EXPANSION_ERRORS)
def test_multipoint_expansion_errors(given, want):
    with pytest.raises(ProfileError) as caught:
        expand_plugins(given, (), "x")
    assert str(caught.value) == want


def test_the_plugin_table_matches_the_kwhatif_plugins():
    """Every kwhatif plugin implements a subset of its kube-scheduler interfaces (kwhatif does not
    model permit, preBind, postBind and a few preEnqueue/reserve hooks)."""
    from kwhatif.config.profile import KUBE_PLUGINS
    for name, cls in REGISTRY.items():
        implemented = {p for p, iface in EXTENSION_POINTS.items() if issubclass(cls, iface)}
        assert implemented <= KUBE_PLUGINS[name], name


# -- effective profiles from configuration files (§1.5) -------------------------------------------


def score_of(cfg: Any, i: int = 0) -> list[tuple[str, int]]:
    p = cfg.profiles[i]
    return [(n, p.weights[n]) for n in p.extension_points["score"]]


DEFAULT_SCORE = [("TaintToleration", 3), ("NodeAffinity", 2), ("NodeResourcesFit", 1), ("VolumeBinding", 1),
                 ("PodTopologySpread", 2), ("InterPodAffinity", 2), ("NodeResourcesBalancedAllocation", 1),
                 ("ImageLocality", 1)]


def test_without_a_file_the_profile_is_kube_schedulers_default():
    cfg = default_scheduler_config()
    assert [p.scheduler_name for p in cfg.profiles] == ["default-scheduler"]
    assert cfg.profiles[0].points == default_profile().points
    assert score_of(cfg) == DEFAULT_SCORE
    assert cfg.percentage_of_nodes_to_score == 0 and cfg.profiles[0].percentage_of_nodes_to_score is None


def test_the_default_profile_expands_as_reference_1_3():
    points = default_profile().extension_points
    assert points["preEnqueue"] == ["SchedulingGates", "DynamicResources", "DefaultPreemption"]
    assert points["postFilter"] == ["DynamicResources", "DefaultPreemption"]
    assert points["reserve"] == ["VolumeBinding", "DynamicResources"]
    assert points["preBind"] == ["VolumeBinding", "DynamicResources"]
    assert points["bind"] == ["DefaultBinder"] and points["permit"] == [] and points["postBind"] == []


PROFILE_CASES = [
    pytest.param("profiles:\n- plugins:\n    score:\n      enabled:\n      - {name: ImageLocality, weight: 5}\n"
                 "      - {name: TaintToleration, weight: 1}\n",
                 [("ImageLocality", 5), ("TaintToleration", 1), ("NodeAffinity", 2), ("NodeResourcesFit", 1),
                  ("VolumeBinding", 1), ("PodTopologySpread", 2), ("InterPodAffinity", 2),
                  ("NodeResourcesBalancedAllocation", 1)],
                 id="score plugins re-weighted at score come first in the user's order with the user's weights"),
    pytest.param("profiles:\n- plugins:\n    score:\n      enabled:\n      - name: TaintToleration\n",
                 [("TaintToleration", 1)] + DEFAULT_SCORE[1:],
                 id="a default score plugin listed at score without a weight gets weight 1 not its default 3"),
    pytest.param("profiles:\n- plugins:\n    score:\n      disabled:\n      - name: ImageLocality\n"
                 "      - name: NodeResourcesBalancedAllocation\n",
                 DEFAULT_SCORE[:6], id="score plugins disabled at score are not scored"),
    pytest.param("profiles:\n- plugins:\n    multiPoint:\n      disabled:\n      - name: TaintToleration\n",
                 DEFAULT_SCORE[1:], id="a plugin disabled in multiPoint is removed from score"),
    pytest.param("profiles:\n- plugins:\n    score:\n      disabled:\n      - name: '*'\n      enabled:\n"
                 "      - {name: ImageLocality, weight: 3}\n",
                 [("ImageLocality", 3)], id="star disabled at score keeps only the plugins enabled there"),
    pytest.param("profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - {name: TaintToleration, weight: 7}\n",
                 [("TaintToleration", 7)] + DEFAULT_SCORE[1:],
                 id="a default plugin enabled again in multiPoint keeps its place with the new weight"),
]


@pytest.mark.parametrize("body, want", PROFILE_CASES)
def test_score_point_and_weights_of_a_profile(body, want):
    assert score_of(config(body)) == want


def test_a_plugin_disabled_at_score_stays_at_its_other_extension_points():
    p = config("profiles:\n- plugins:\n    score:\n      disabled:\n      - name: NodeResourcesBalancedAllocation\n"
               ).profiles[0]
    assert "NodeResourcesBalancedAllocation" not in p.points["score"]
    assert "NodeResourcesBalancedAllocation" in p.points["preScore"]


def test_a_plugin_disabled_in_multipoint_is_gone_from_every_extension_point():
    p = config("profiles:\n- plugins:\n    multiPoint:\n      disabled:\n      - name: TaintToleration\n").profiles[0]
    assert all("TaintToleration" not in names for names in p.extension_points.values())


def test_default_preemption_disabled_at_post_filter_leaves_dynamic_resources():
    p = config("profiles:\n- plugins:\n    postFilter:\n      disabled:\n      - name: DefaultPreemption\n"
               ).profiles[0]
    assert p.extension_points["postFilter"] == ["DynamicResources"]
    assert p.points["postFilter"] == ["DynamicResources"]
    assert "DefaultPreemption" in p.extension_points["preEnqueue"]


def test_two_profiles_get_their_own_plugins_and_arguments():
    cfg = parse_scheduler_config((REPO / "samples" / "bin-packing.config.yaml").read_text().replace(
        "profiles:\n", "profiles:\n- schedulerName: spread\n", 1))
    assert [p.scheduler_name for p in cfg.profiles] == ["spread", "default-scheduler"]
    assert cfg.profiles[0].args["NodeResourcesFit"]["scoringStrategy"]["type"] == "LeastAllocated"
    assert cfg.profiles[1].args["NodeResourcesFit"]["scoringStrategy"]["type"] == "MostAllocated"
    assert "NodeResourcesBalancedAllocation" in cfg.profiles[0].points["score"]
    assert "NodeResourcesBalancedAllocation" not in cfg.profiles[1].points["score"]


@pytest.mark.parametrize("body, want_names", [
    pytest.param("", ["default-scheduler"], id="a file without profiles gets one default-scheduler profile"),
    pytest.param("profiles: []\n", ["default-scheduler"], id="an empty profile list gets the default profile"),
    pytest.param("profiles:\n- plugins: {}\n", ["default-scheduler"],
                 id="a single profile without schedulerName is default-scheduler"),
    pytest.param("profiles:\n- schedulerName: a\n- schedulerName: b\n", ["a", "b"],
                 id="several profiles keep their names and order"),
])
def test_profile_names(body, want_names):
    assert [p.scheduler_name for p in config(body).profiles] == want_names


def test_percentage_of_nodes_to_score_is_kept_globally_and_per_profile():
    cfg = config("percentageOfNodesToScore: 30\nprofiles:\n- schedulerName: a\n  percentageOfNodesToScore: 50\n"
                 "- schedulerName: b\n")
    assert cfg.percentage_of_nodes_to_score == 30
    assert [p.percentage_of_nodes_to_score for p in cfg.profiles] == [50, None]
    assert [p.global_percentage_of_nodes_to_score for p in cfg.profiles] == [30, 30]


def test_plugins_kwhatif_does_not_run_are_not_given_to_the_framework():
    p = default_profile()
    assert "DynamicResources" in p.extension_points["filter"]
    assert all(REGISTRY.get(n) is not None for names in p.points.values() for n in names)


def test_json_files_are_read_like_yaml():
    cfg = parse_scheduler_config(json.dumps({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "j", "pluginConfig": [
            {"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": 7}}]}]}))
    assert cfg.profiles[0].scheduler_name == "j"
    assert cfg.profiles[0].args["InterPodAffinity"]["hardPodAffinityWeight"] == 7


# -- plugin arguments (§1.4) ----------------------------------------------------------------

DEFAULT_ARGS = {
    "DefaultPreemption": {"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 100},
    "DynamicResources": {"filterTimeout": "10s"},
    "InterPodAffinity": {"hardPodAffinityWeight": 1, "ignorePreferredTermsOfExistingPods": False},
    "NodeAffinity": {},
    "NodeResourcesBalancedAllocation": {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]},
    "NodeResourcesFit": {"scoringStrategy": {"type": "LeastAllocated",
                                             "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}},
    "PodTopologySpread": {"defaultingType": "System"},
    "VolumeBinding": {"bindTimeoutSeconds": 600},
}


def test_every_plugin_with_arguments_gets_its_defaults_sorted_by_name():
    args = default_profile().args
    assert list(args) == sorted(DEFAULT_ARGS)
    assert args == DEFAULT_ARGS


ARGS_CASES = [
    pytest.param("NodeResourcesFit", {"scoringStrategy": {"type": "MostAllocated"}},
                 {"scoringStrategy": {"type": "MostAllocated",
                                      "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}},
                 id="a scoring strategy without resources gets cpu and memory weight 1"),
    pytest.param("NodeResourcesFit", {"ignoredResources": ["foo"]},
                 {"ignoredResources": ["foo"], **DEFAULT_ARGS["NodeResourcesFit"]},
                 id="without a scoring strategy NodeResourcesFit gets LeastAllocated"),
    pytest.param("NodeResourcesFit", {"scoringStrategy": {"type": "MostAllocated", "resources": [
        {"name": "cpu"}, {"name": "nvidia.com/gpu", "weight": 0}, {"name": "memory", "weight": 3}]}},
                 {"scoringStrategy": {"type": "MostAllocated", "resources": [
                     {"name": "cpu", "weight": 1}, {"name": "nvidia.com/gpu", "weight": 1},
                     {"name": "memory", "weight": 3}]}},
                 id="resource weights unset or 0 become 1"),
    pytest.param("NodeResourcesBalancedAllocation", {"resources": [
        {"name": "cpu"}, {"name": "memory", "weight": 0}, {"name": "scalar0", "weight": 1}, {"name": "scalar3", "weight": 2}]},
                 {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1},
                                {"name": "scalar0", "weight": 1}, {"name": "scalar3", "weight": 2}]},
                 id="balanced allocation weights unset or 0 become 1 and others are kept"),
    pytest.param("DefaultPreemption", {"minCandidateNodesPercentage": 50},
                 {"minCandidateNodesPercentage": 50, "minCandidateNodesAbsolute": 100},
                 id="a DefaultPreemption field left out gets its default"),
    pytest.param("InterPodAffinity", {"hardPodAffinityWeight": 0},
                 {"hardPodAffinityWeight": 0, "ignorePreferredTermsOfExistingPods": False},
                 id="an explicit hardPodAffinityWeight 0 is kept"),
    pytest.param("PodTopologySpread", {"defaultConstraints": []}, {"defaultConstraints": [], "defaultingType": "System"},
                 id="defaultingType defaults to System"),
    pytest.param("VolumeBinding", {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "VolumeBindingArgs"},
                 {"bindTimeoutSeconds": 600}, id="apiVersion and kind are dropped from the arguments"),
]


@pytest.mark.parametrize("plugin, given, want", ARGS_CASES)
def test_default_args(plugin, given, want):
    assert default_args(plugin, given) == want


def test_user_plugin_config_comes_first_then_the_defaults_sorted_by_name():
    p = config("profiles:\n- pluginConfig:\n  - name: InterPodAffinity\n    args:\n"
               "      ignorePreferredTermsOfExistingPods: true\n").profiles[0]
    assert list(p.args) == ["InterPodAffinity", "DefaultPreemption", "DynamicResources", "NodeAffinity",
                            "NodeResourcesBalancedAllocation", "NodeResourcesFit", "PodTopologySpread", "VolumeBinding"]
    assert p.args["InterPodAffinity"] == {"hardPodAffinityWeight": 1, "ignorePreferredTermsOfExistingPods": True}


def test_a_plugin_config_entry_without_args_gets_the_defaults():
    p = config("profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n  - name: PodTopologySpread\n    args:\n"
               ).profiles[0]
    assert p.args["NodeResourcesFit"] == DEFAULT_ARGS["NodeResourcesFit"]
    assert p.args["PodTopologySpread"] == {"defaultingType": "System"}


def test_arguments_of_an_out_of_tree_plugin_name_are_ignored():
    p = config("profiles:\n- pluginConfig:\n  - name: OutOfTreePlugin\n    args:\n      foo: bar\n").profiles[0]
    assert "OutOfTreePlugin" not in p.args


def test_list_defaulting_keeps_the_default_constraints():
    p = config("profiles:\n- pluginConfig:\n  - name: PodTopologySpread\n    args:\n      defaultingType: List\n"
               "      defaultConstraints:\n      - maxSkew: 1\n        topologyKey: topology.kubernetes.io/zone\n"
               "        whenUnsatisfiable: DoNotSchedule\n").profiles[0]
    assert p.args["PodTopologySpread"] == {"defaultConstraints": [
        {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule"}],
        "defaultingType": "List"}


@pytest.mark.parametrize("text, ns, shown", [
    ("10s", 10 * 10**9, "10s"), ("1h2m3.5s", 3723 * 10**9 + 5 * 10**8, "1h2m3.5s"), ("1.5ms", 1_500_000, "1.5ms"),
    ("-1s", -(10**9), "-1s"), ("90s", 90 * 10**9, "1m30s"), ("0", 0, "0s"),
])
def test_go_durations_parse_and_print_as_go_does(text, ns, shown):
    assert parse_duration(text) == ns and format_duration(ns) == shown


# -- validation: kube-scheduler's error texts ---------------------------------------------------

P0 = "profiles[0].pluginConfig[0].args"
FIT = "initializing profiles: creating profile for scheduler name default-scheduler: initializing plugin \"NodeResourcesFit\": "
PROFILE = "initializing profiles: creating profile for scheduler name default-scheduler: "
NAME_MSG = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
            "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
QUALIFIED_MSG = ("a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
                 "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
                 "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix "
                 "and '/' (e.g. 'example.com/MyName')")


def args_of(plugin: str, args: str) -> str:
    """A one-profile file with one pluginConfig entry (args as YAML flow)."""
    return HEADER + f"profiles:\n- pluginConfig:\n  - name: {plugin}\n    args: {args}\n"


VALIDATION_CASES = [
    # the conformance case inv-two-queuesort
    pytest.param(HEADER + "profiles:\n- plugins:\n    queueSort:\n      enabled:\n      - name: PrioritySort\n"
                 "      - name: PrioritySort\n",
                 "profiles[0].plugins.queueSort.Enabled: Invalid value: 2: only one queue sort plugin can be enabled",
                 id="two queue sort plugins in the first profile"),
    pytest.param(HEADER + "profiles:\n- schedulerName: a\n- schedulerName: b\n  plugins:\n    queueSort:\n"
                 "      enabled:\n      - name: PrioritySort\n",
                 'profiles[1].plugins.queueSort: Invalid value: config.PluginSet{Enabled:[]config.Plugin{'
                 'config.Plugin{Name:"PrioritySort", Weight:0}}, Disabled:[]config.Plugin(nil)}: '
                 "must be the same for all profiles",
                 id="profiles with different queue sort sets"),
    pytest.param(HEADER + "profiles:\n- schedulerName: a\n- schedulerName: a\n- {}\n",
                 "[profiles[1].schedulerName: Duplicate value: profiles[0].schedulerName, "
                 "profiles[2].schedulerName: Required value]",
                 id="a repeated scheduler name and a missing one with several profiles"),
    pytest.param(HEADER + "percentageOfNodesToScore: 101\nparallelism: 0\nprofiles:\n- percentageOfNodesToScore: -1\n",
                 "[parallelism: Invalid value: 0: should be an integer value greater than zero, "
                 "profiles[0].percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100], "
                 "percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]]",
                 id="several scheduler-wide errors are aggregated in kube-scheduler's order"),
    pytest.param(HEADER + "podInitialBackoffSeconds: 0\npodMaxBackoffSeconds: -1\n",
                 "[podInitialBackoffSeconds: Invalid value: 0: must be greater than 0, "
                 "podMaxBackoffSeconds: Invalid value: -1: must be greater than or equal to PodInitialBackoffSeconds]",
                 id="backoff seconds"),
    pytest.param(HEADER + "leaderElection:\n  leaseDuration: 5s\n",
                 "leaderElection.leaseDuration: Invalid value: 10s: must be greater than `RenewDeadline`",
                 id="a lease duration not above the default renew deadline"),
    pytest.param(HEADER + "leaderElection:\n  leaderElect: false\n  leaseDuration: 5s\n  resourceLock: endpoints\n",
                 None, id="leader election settings are not checked when leader election is off"),
    pytest.param(HEADER + "leaderElection:\n  resourceLock: endpoints\n",
                 'leaderElection.resourceLock: Invalid value: "endpoints": resourceLock value must be "leases"',
                 id="a resource lock other than leases"),
    pytest.param(HEADER + "clientConnection:\n  burst: -1\n",
                 "clientConnection.burst: Invalid value: -1: must be non-negative", id="a negative client burst"),
    pytest.param(HEADER + "profiles:\n- pluginConfig:\n  - name: InterPodAffinity\n  - name: InterPodAffinity\n",
                 'profiles[0].pluginConfig[1]: Duplicate value: "InterPodAffinity"',
                 id="two pluginConfig entries for one plugin"),
    pytest.param(HEADER + "profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: EBSLimits\n",
                 'profiles[0].plugins.filter.enabled[0]: Invalid value: "EBSLimits": was invalid in version '
                 '"kubescheduler.config.k8s.io/v1" (KubeSchedulerConfiguration is version '
                 '"kubescheduler.config.k8s.io/v1")',
                 id="a plugin removed from the v1 API"),
    pytest.param(args_of("DefaultPreemption", "{minCandidateNodesPercentage: -1}"),
                 f"{P0}.minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]",
                 id="a negative minCandidateNodesPercentage"),
    pytest.param(args_of("DefaultPreemption", "{minCandidateNodesPercentage: 900}"),
                 f"{P0}.minCandidateNodesPercentage: Invalid value: 900: not in valid range [0, 100]",
                 id="minCandidateNodesPercentage over 100"),
    pytest.param(args_of("DefaultPreemption", "{minCandidateNodesAbsolute: -1}"),
                 f"{P0}.minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)",
                 id="a negative minCandidateNodesAbsolute"),
    pytest.param(args_of("DefaultPreemption", "{minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 0}"),
                 f"[{P0}.minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as "
                 f"minCandidateNodesAbsolute, {P0}.minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at "
                 "the same time as minCandidateNodesPercentage]",
                 id="both DefaultPreemption minimums zero"),
    pytest.param(args_of("InterPodAffinity", "{hardPodAffinityWeight: 101}"),
                 f"{P0}.hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]",
                 id="hardPodAffinityWeight more than max"),
    pytest.param(args_of("InterPodAffinity", "{hardPodAffinityWeight: -1}"),
                 f"{P0}.hardPodAffinityWeight: Invalid value: -1: not in valid range [0, 100]",
                 id="hardPodAffinityWeight less than min"),
    pytest.param(args_of("PodTopologySpread", "{defaultingType: List, defaultConstraints: "
                                              "[{maxSkew: -1, topologyKey: node, whenUnsatisfiable: DoNotSchedule}]}"),
                 f"{P0}.defaultConstraints[0].maxSkew: Invalid value: -1: not in valid range (0, inf)",
                 id="maxSkew less than zero"),
    pytest.param(args_of("PodTopologySpread", "{defaultingType: List, defaultConstraints: "
                                              "[{maxSkew: 1, whenUnsatisfiable: DoNotSchedule}]}"),
                 f"{P0}.defaultConstraints[0].topologyKey: Required value: can not be empty",
                 id="an empty topology key"),
    pytest.param(args_of("PodTopologySpread", "{defaultingType: List, defaultConstraints: [{maxSkew: 1, topologyKey: node}]}"),
                 f"{P0}.defaultConstraints[0].whenUnsatisfiable: Required value: can not be empty",
                 id="an empty whenUnsatisfiable"),
    pytest.param(args_of("PodTopologySpread", "{defaultingType: List, defaultConstraints: "
                                              "[{maxSkew: 1, topologyKey: node, whenUnsatisfiable: unknown action}]}"),
                 f'{P0}.defaultConstraints[0].whenUnsatisfiable: Unsupported value: "unknown action": '
                 'supported values: "DoNotSchedule", "ScheduleAnyway"',
                 id="an unsupported whenUnsatisfiable"),
    pytest.param(args_of("PodTopologySpread", "{defaultingType: List, defaultConstraints: ["
                                              "{maxSkew: 1, topologyKey: node, whenUnsatisfiable: DoNotSchedule}, "
                                              "{maxSkew: 2, topologyKey: node, whenUnsatisfiable: DoNotSchedule}]}"),
                 f'{P0}.defaultConstraints[1]: Duplicate value: "{{node, DoNotSchedule}}"',
                 id="duplicated default constraints"),
    pytest.param(args_of("PodTopologySpread", "{defaultingType: List, defaultConstraints: [{maxSkew: 1, topologyKey: "
                                              "key, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: "
                                              "{a: b}}}]}"),
                 f"{P0}.defaultConstraints[0].labelSelector: Forbidden: constraint must not define a selector, as "
                 "they deduced for each pod",
                 id="a default constraint with a label selector"),
    pytest.param(args_of("PodTopologySpread", "{defaultingType: unknown}"),
                 f'{P0}.defaultingType: Unsupported value: "unknown": supported values: "System", "List"',
                 id="an unknown defaulting type"),
    pytest.param(args_of("PodTopologySpread", "{defaultConstraints: [{maxSkew: 1, topologyKey: key, "
                                              "whenUnsatisfiable: DoNotSchedule}]}"),
                 f'{P0}.defaultingType: Invalid value: "System": when .defaultConstraints are not empty',
                 id="default constraints with the System defaulting type"),
    pytest.param(args_of("PodTopologySpread", "{defaultingType: List, defaultConstraints: [{maxSkew: 1, "
                                              "topologyKey: -zone, whenUnsatisfiable: DoNotSchedule}]}"),
                 f'{P0}.defaultConstraints[0].topologyKey: Invalid value: "-zone": {NAME_MSG}',
                 id="a topology key that is not a qualified name"),
    pytest.param(args_of("NodeResourcesBalancedAllocation", "{resources: [{name: cpu, weight: 2}, {name: memory}]}"),
                 f"{P0}.resources[0].weight: Invalid value: 2: must be 1", id="a balanced allocation weight other than 1"),
    pytest.param(args_of("NodeResourcesBalancedAllocation", "{resources: [{name: cpu}, {name: cpu}]}"),
                 f'{P0}.resources[1].name: Duplicate value: "cpu"', id="a repeated balanced allocation resource"),
    pytest.param(args_of("VolumeBinding", "{bindTimeoutSeconds: -10}"),
                 f"{P0}.bindTimeoutSeconds: Invalid value: -10: invalid BindTimeoutSeconds, should not be a negative value",
                 id="a negative bind timeout"),
    pytest.param(args_of("VolumeBinding", "{shape: [{utilization: 1, score: 1}, {utilization: 3, score: 3}]}"),
                 f"{P0}.shape: Invalid value: []config.UtilizationShapePoint{{config.UtilizationShapePoint"
                 "{Utilization:1, Score:1}, config.UtilizationShapePoint{Utilization:3, Score:3}}: unexpected field "
                 "`shape`, remove it or turn on the feature gate StorageCapacityScoring",
                 id="a VolumeBinding shape while StorageCapacityScoring is off"),
    pytest.param(args_of("DynamicResources", "{filterTimeout: -1s}"),
                 f"{P0}.filterTimeout: Invalid value: -1s: must be zero or positive", id="a negative DRA filter timeout"),
    pytest.param(args_of("NodeAffinity", "{addedAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
                                         "{nodeSelectorTerms: [{matchExpressions: [{key: invalid/label/key, operator: "
                                         "In, values: [label-1-val]}]}]}, preferredDuringSchedulingIgnoredDuringExecution"
                                         ": [{weight: 1, preference: {matchFields: [{key: metadata.name, operator: In, "
                                         "values: [node-1, node-2]}]}}]}}"),
                 f'[{P0}.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]'
                 f'.matchExpressions[0].key: Invalid value: "invalid/label/key": {QUALIFIED_MSG}, '
                 f'{P0}.addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].matchFields[0].values: '
                 'Invalid value: []string{"node-1", "node-2"}: must have one element]',
                 id="invalid added affinity terms"),
    pytest.param(args_of("NodeAffinity", "{addedAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
                                         "{nodeSelectorTerms: [{matchExpressions: [{key: a, operator: In}, "
                                         "{key: b, operator: Gt, values: [x]}, {key: c, operator: Foo}]}]}}}"),
                 f"[{P0}.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
                 ".matchExpressions[0].values: Invalid value: []string(nil): for 'in', 'notin' operators, values set "
                 f"can't be empty, {P0}.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution"
                 ".nodeSelectorTerms[0].matchExpressions[1].values[0]: Invalid value: \"x\": for 'Gt', 'Lt' "
                 f"operators, the value must be an integer, {P0}.addedAffinity.requiredDuringScheduling"
                 'IgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[2].operator: Unsupported value: "Foo": '
                 'supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]',
                 id="added affinity requirements that do not parse"),
    # NodeResourcesFit arguments are only checked when the plugin is created
    pytest.param(args_of("NodeResourcesFit", "{scoringStrategy: {type: Foo}}"),
                 FIT + 'scoringStrategy.type: Unsupported value: "Foo": supported values: "LeastAllocated", '
                 '"MostAllocated", "RequestedToCapacityRatio"',
                 id="an unknown NodeResourcesFit scoring strategy"),
    pytest.param(args_of("NodeResourcesFit", "{scoringStrategy: {resources: [{name: cpu}]}}"),
                 FIT + 'scoringStrategy.type: Unsupported value: "": supported values: "LeastAllocated", '
                 '"MostAllocated", "RequestedToCapacityRatio"',
                 id="a scoring strategy without a type is not defaulted"),
    # v1.34.1 checks no presence of requestedToCapacityRatio; its shape errors carry `scoringStrategy.shape`
    pytest.param(args_of("NodeResourcesFit", "{scoringStrategy: {type: RequestedToCapacityRatio, "
                                             "resources: [{name: cpu, weight: 200}], requestedToCapacityRatio: "
                                             "{shape: [{utilization: 0, score: 0}]}}}"),
                 FIT + "scoringStrategy.resources[0].weight: Invalid value: 200: resource weight of cpu not in valid "
                 "range (0, 100]",
                 id="a resource weight over 100"),
    pytest.param(args_of("NodeResourcesFit", "{scoringStrategy: {type: RequestedToCapacityRatio, "
                                             "requestedToCapacityRatio: {shape: [{utilization: 50, score: 5}, "
                                             "{utilization: 10, score: 11}]}}}"),
                 FIT + "[scoringStrategy.shape[1].utilization: Invalid value: 10: values must "
                 "be sorted in increasing order, scoringStrategy.shape[1].score: Invalid "
                 "value: 11: not in valid range [0, 10]]",
                 id="a shape out of order with a score over 10"),
    pytest.param(args_of("NodeResourcesFit", "{scoringStrategy: {type: RequestedToCapacityRatio, "
                                             "requestedToCapacityRatio: {shape: []}}}"),
                 FIT + "scoringStrategy.shape: Required value: at least one point must be specified",
                 id="an empty shape"),
    pytest.param(args_of("NodeResourcesFit", "{scoringStrategy: {type: MostAllocated, requestedToCapacityRatio: "
                                             "{shape: []}}}"),
                 FIT + "scoringStrategy.shape: Required value: at least one point must be specified",
                 id="a shape is checked with another strategy too"),
    pytest.param(args_of("NodeResourcesFit", "{scoringStrategy: {type: MostAllocated, requestedToCapacityRatio: "
                                             "{shape: [{utilization: 0, score: 0}]}}}"),
                 None, id="a valid shape with another strategy is accepted (and unused)"),
    pytest.param(args_of("NodeResourcesFit", "{scoringStrategy: {type: RequestedToCapacityRatio, "
                                             "resources: [{name: cpu, weight: 1}]}}"),
                 FIT + "scoringStrategy.requestedToCapacityRatio is not set while type is RequestedToCapacityRatio: "
                 "kube-scheduler v1.34.1 crashes on this configuration (nil pointer dereference)",
                 id="a RequestedToCapacityRatio strategy without its parameters (v1.34.1 panics: kwhatif's words)"),
    pytest.param(args_of("NodeResourcesFit", "{ignoredResourceGroups: [example.com/foo]}"),
                 FIT + "ignoredResourceGroups[0]: Invalid value: \"example.com/foo\": resource group name can't "
                 "contain '/'",
                 id="an ignored resource group with a slash"),
    pytest.param(HEADER + "profiles:\n- plugins:\n    multiPoint:\n      disabled:\n      - name: NodeResourcesFit\n"
                 "  pluginConfig:\n  - name: NodeResourcesFit\n    args: {scoringStrategy: {type: Foo}}\n",
                 None, id="NodeResourcesFit arguments are not checked when the plugin is disabled"),
    # profile creation
    pytest.param(HEADER + "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: Foo\n",
                 PROFILE + 'ScorePlugin "Foo" does not exist', id="an unknown score plugin"),
    pytest.param(HEADER + "profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: Foo\n",
                 PROFILE + 'PreFilterPlugin "Foo" does not exist', id="an unknown multiPoint plugin"),
    pytest.param(HEADER + "profiles:\n- schedulerName: bin\n  plugins:\n    filter:\n      enabled:\n"
                 "      - name: ImageLocality\n",
                 "initializing profiles: creating profile for scheduler name bin: plugin \"ImageLocality\" does not "
                 "extend FilterPlugin plugin",
                 id="a plugin enabled where it has no hook names its profile"),
    pytest.param(HEADER + "profiles:\n- plugins:\n    multiPoint:\n      disabled:\n      - name: '*'\n",
                 PROFILE + 'only one queue sort plugin required for profile with scheduler name "default-scheduler", '
                 "but got 0",
                 id="every multiPoint plugin disabled"),
    pytest.param(HEADER + "profiles:\n- plugins:\n    multiPoint:\n      disabled:\n      - name: DefaultBinder\n",
                 PROFILE + 'at least one bind plugin is needed for profile with scheduler name "default-scheduler"',
                 id="the binder disabled"),
    pytest.param(HEADER + "profiles:\n- schedulerName: a\n- schedulerName: b\n  plugins:\n    score:\n"
                 "      enabled:\n      - name: Foo\n",
                 'initializing profiles: creating profile for scheduler name b: ScorePlugin "Foo" does not exist',
                 id="an error in the second profile names it"),
    pytest.param(HEADER + "extenders:\n- urlPrefix: http://x\n  prioritizeVerb: prio\n  weight: -2\n",
                 "extenders[0].weight: Invalid value: -2: must have a positive weight applied to it",
                 id="an extender with a negative weight"),
    pytest.param(HEADER + "extenders:\n- bindVerb: bind\n- bindVerb: bind\n",
                 'extenders: Invalid value: "found 2 extenders implementing bind": only one extender can implement bind',
                 id="two binding extenders"),
    pytest.param(HEADER + "extenders:\n- managedResources:\n  - name: kubernetes.io/foo\n",
                 'extenders[0].managedResources[0].name: Invalid value: "kubernetes.io/foo": is an invalid extended '
                 "resource name",
                 id="an extender managing a native resource"),
]


@pytest.mark.parametrize("text, want", VALIDATION_CASES)
def test_validation_errors(text, want):
    if want is None:
        parse_scheduler_config(text)
    else:
        assert error_of(text) == want


DECODE_CASES = [
    pytest.param("apiVersion: kubescheduler.config.k8s.io/v1\n",
                 "Object 'Kind' is missing in 'apiVersion: kubescheduler.config.k8s.io/v1\n'", id="no kind"),
    pytest.param("kind: KubeSchedulerConfiguration\n",
                 "Object 'apiVersion' is missing in 'kind: KubeSchedulerConfiguration\n'", id="no apiVersion"),
    pytest.param("", "Object 'Kind' is missing in ''", id="an empty file"),
    pytest.param("apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n",
                 'no kind "KubeSchedulerConfiguration" is registered for version "kubescheduler.config.k8s.io/v1beta3" '
                 'in scheme "k8s.io/kubernetes/pkg/scheduler/apis/config/scheme/scheme.go:30"',
                 id="a removed API version"),
    pytest.param("apiVersion: kubescheduler.config.k8s.io/v1\nkind: Policy\n",
                 'no kind "Policy" is registered for version "kubescheduler.config.k8s.io/v1" '
                 'in scheme "k8s.io/kubernetes/pkg/scheduler/apis/config/scheme/scheme.go:30"',
                 id="another kind"),
    pytest.param(HEADER + "parallelism: abc\n",
                 "json: cannot unmarshal string into Go struct field KubeSchedulerConfiguration.parallelism of type int32",
                 id="a string for an integer"),
    pytest.param(HEADER + "parallelism: 1.5\n",
                 "json: cannot unmarshal number 1.5 into Go struct field KubeSchedulerConfiguration.parallelism of "
                 "type int32",
                 id="a fraction for an integer"),
    pytest.param(HEADER + "profiles:\n- plugins:\n    score:\n      enabled:\n      - {name: X, weight: abc}\n",
                 "json: cannot unmarshal string into Go struct field Plugin.profiles.plugins.score.enabled.weight "
                 "of type int32",
                 id="a type error deep in the profiles names the field path"),
    pytest.param(HEADER + "profiles:\n- schedulerName: 5\n",
                 "json: cannot unmarshal number into Go struct field KubeSchedulerProfile.profiles.schedulerName of "
                 "type string",
                 id="a number for a string"),
    pytest.param(HEADER + "profiles: {}\n",
                 "json: cannot unmarshal object into Go struct field KubeSchedulerConfiguration.profiles of type "
                 "[]v1.KubeSchedulerProfile",
                 id="an object for a list"),
    pytest.param(HEADER + "leaderElection:\n  leaseDuration: 5\n",
                 "json: cannot unmarshal number into Go struct field LeaderElectionConfiguration.leaderElection"
                 ".leaseDuration of type string",
                 id="a number for a duration"),
    pytest.param(HEADER + "leaderElection:\n  leaseDuration: five\n",
                 'time: invalid duration "five"', id="a duration Go cannot parse"),
    pytest.param(HEADER + "leaderElection:\n  leaseDuration: 5 minutes\n",
                 'time: unknown unit " minutes" in duration "5 minutes"', id="a duration with an unknown unit"),
    pytest.param(HEADER + "foo: 1\nprofiles:\n- schedulerName: x\n  bar: 2\n  pluginConfig:\n"
                 "  - name: InterPodAffinity\n    args:\n      baz: 1\n",
                 'strict decoding error: unknown field "foo", unknown field "profiles[0].bar", decoding '
                 '.profiles[0].pluginConfig[0]: strict decoding error: decoding args for plugin InterPodAffinity: '
                 'strict decoding error: unknown field "baz"',
                 id="unknown fields at every level"),
    pytest.param(HEADER + "profiles:\n- SchedulerName: x\n",
                 'strict decoding error: unknown field "profiles[0].SchedulerName"',
                 id="field names are case sensitive"),
    pytest.param(args_of("NodeResourcesFit", "{scoringStrategy: {requestedToCapacityRatio: {shape: "
                                             "[{Score: 2, Utilization: 1}]}}}"),
                 'strict decoding error: decoding .profiles[0].pluginConfig[0]: strict decoding error: decoding args '
                 'for plugin NodeResourcesFit: strict decoding error: unknown field '
                 '"scoringStrategy.requestedToCapacityRatio.shape[0].Score", unknown field '
                 '"scoringStrategy.requestedToCapacityRatio.shape[0].Utilization"',
                 id="NodeResourcesFit shape encoding is strict"),
    pytest.param(args_of("InterPodAffinity", "{hardPodAffinityWeight: '5'}"),
                 "decoding .profiles[0].pluginConfig[0]: decoding args for plugin InterPodAffinity: json: cannot "
                 "unmarshal string into Go struct field InterPodAffinityArgs.hardPodAffinityWeight of type int32",
                 id="a type error in plugin arguments"),
    pytest.param(args_of("DefaultPreemption", "{apiVersion: kubescheduler.config.k8s.io/v1, kind: InterPodAffinityArgs}"),
                 "decoding .profiles[0].pluginConfig[0]: args for plugin DefaultPreemption were not of type "
                 "DefaultPreemptionArgs.kubescheduler.config.k8s.io, got InterPodAffinityArgs.kubescheduler.config.k8s.io",
                 id="plugin arguments of another kind"),
    pytest.param(HEADER + "parallelism: 2\nparallelism: 3\n",
                 'strict decoding error: error converting YAML to JSON: yaml: unmarshal errors:\n'
                 '  line 4: key "parallelism" already set in map',
                 id="a key repeated in YAML"),
    # go-yaml's reader (yaml_parser_set_reader_error): the reason alone, on one line.
    pytest.param(HEADER + "parallelism: 2\x00\n",
                 "error converting YAML to JSON: yaml: control characters are not allowed",
                 id="a control character"),
]


@pytest.mark.parametrize("text, want", DECODE_CASES)
def test_decoding_errors(text, want):
    assert error_of(text) == want


def test_a_missing_file_is_reported_as_go_does(tmp_path):
    from kwhatif.config.scheduler_config import load_scheduler_config
    with pytest.raises(ConfigError) as caught:
        load_scheduler_config(str(tmp_path / "nope.yaml"))
    assert str(caught.value) == f"open {tmp_path / 'nope.yaml'}: no such file or directory"


def test_extenders_are_accepted_with_a_warning():
    cfg = config("extenders:\n- urlPrefix: http://x\n  filterVerb: filter\n")
    assert cfg.warnings and "extender" in cfg.warnings[0]


# -- NodeAffinity addedAffinity -----------------------------------------------------------------


SSD = {"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
    {"matchExpressions": [{"key": "disktype", "operator": "In", "values": ["ssd"]}]}]}}}
PREFER_ZONE_A = {"addedAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    {"weight": 5, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}},
    {"weight": 0, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]}}]}}
ENFORCED = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) didn't match scheduler-enforced node affinity",))
POD_REASON = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) didn't match Pod's node affinity/selector",))


def _pod_requiring(key: str, value: str) -> Any:
    term = NodeSelectorTerm((Requirement(key, "In", (value,)),))
    return make_pod("p", affinity=Affinity(node_affinity=NodeAffinitySpec(required=NodeSelector((term,)))))


ADDED_FILTER_CASES = [
    pytest.param(SSD, make_pod("p"), {"disktype": "ssd"}, None, id="a node matching the added affinity fits"),
    pytest.param(SSD, make_pod("p"), {"disktype": "hdd"}, ENFORCED,
                 id="a node not matching the added affinity is rejected with the scheduler-enforced reason"),
    pytest.param(SSD, _pod_requiring("zone", "a"), {"disktype": "hdd"}, ENFORCED,
                 id="the added affinity is checked before the pod's own affinity"),
    pytest.param(SSD, _pod_requiring("zone", "a"), {"disktype": "ssd", "zone": "b"}, POD_REASON,
                 id="a node matching the added affinity is still checked against the pod's affinity"),
    pytest.param({"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}},
                 make_pod("p"), {"disktype": "ssd"}, ENFORCED,
                 id="an added required selector without terms admits no node"),
    pytest.param(PREFER_ZONE_A, make_pod("p"), {"zone": "b"}, None,
                 id="added preferred terms alone never reject"),
]


@pytest.mark.parametrize("args, pod, labels, want", ADDED_FILTER_CASES)
def test_added_affinity_filter(args, pod, labels, want):
    snap = Snapshot.build(Cluster(nodes=[make_node("n1", labels=labels)]), [])
    plugin = NodeAffinity(plugin_args("NodeAffinity", args), Handle(snap))
    info, state = PodInfo.of(pod), CycleState()
    _, status = plugin.pre_filter(state, info, snap.node_infos)
    if "requiredDuringSchedulingIgnoredDuringExecution" in args["addedAffinity"]:
        assert status is None or status.code != Code.SKIP  # PreFilter runs the Filter for every pod
    assert outcome(filter_node(plugin, state, info, snap.by_name["n1"])) == want


def test_added_preferred_terms_are_added_to_the_score():
    nodes = [make_node("n1", labels={"zone": "a", "ssd": "yes"}), make_node("n2", labels={"zone": "b", "ssd": "yes"})]
    snap = Snapshot.build(Cluster(nodes=nodes), [])
    plugin = NodeAffinity(plugin_args("NodeAffinity", PREFER_ZONE_A), Handle(snap))
    term = NodeSelectorTerm((Requirement("ssd", "Exists"),))
    pod = PodInfo.of(make_pod("p", affinity=Affinity(node_affinity=NodeAffinitySpec(
        preferred=(PreferredSchedulingTerm(3, term),)))))
    state = CycleState()
    assert plugin.pre_score(state, pod, snap.node_infos) is None
    assert score_nodes(plugin, state, pod, snap.node_infos) == {"n1": 8, "n2": 3}


def test_added_preferred_terms_score_pods_without_preferred_terms():
    snap = Snapshot.build(Cluster(nodes=[make_node("n1", labels={"zone": "a"}), make_node("n2")]), [])
    plugin = NodeAffinity(plugin_args("NodeAffinity", PREFER_ZONE_A), Handle(snap))
    pod, state = PodInfo.of(make_pod("p")), CycleState()
    assert plugin.pre_score(state, pod, snap.node_infos) is None
    assert score_nodes(plugin, state, pod, snap.node_infos) == {"n1": 5, "n2": 0}


def test_without_added_affinity_a_plain_pod_skips_pre_filter_and_pre_score():
    snap = Snapshot.build(Cluster(nodes=[make_node("n1")]), [])
    plugin = NodeAffinity(None, Handle(snap))
    pod, state = PodInfo.of(make_pod("p")), CycleState()
    assert plugin.pre_filter(state, pod, snap.node_infos)[1].code == Code.SKIP
    assert plugin.pre_score(state, pod, snap.node_infos).code == Code.SKIP


def test_added_affinity_drops_zero_weight_and_empty_preferred_terms():
    added = plugin_args("NodeAffinity", PREFER_ZONE_A).added_affinity
    assert added.required is None and [t.weight for t in added.preferred] == [5]


# -- command line ---------------------------------------------------------------------------


def _run(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


def test_an_invalid_config_prints_kube_schedulers_error_alone_and_exits_2(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(HEADER + "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: Foo\n")
    result = _run("schedule", "-c", str(REPO / "samples" / "cluster.yaml"), "--config", str(bad))
    assert result.exit_code == 2
    assert result.stderr == "initializing profiles: creating profile for scheduler name default-scheduler: " \
                            'ScorePlugin "Foo" does not exist\n'
    assert result.stdout == ""


@pytest.mark.parametrize("command", [
    pytest.param(["place", str(REPO / "samples" / "pods")], id="place"),
    pytest.param(["explain", "x/y"], id="explain"),
])
def test_place_and_explain_take_the_config_too(tmp_path, command):
    bad = tmp_path / "bad.yaml"
    bad.write_text(HEADER + "parallelism: 0\n")
    result = _run(*command, "-c", str(REPO / "samples" / "cluster.yaml"), "--config", str(bad))
    assert (result.exit_code, result.stderr) == (2, "parallelism: Invalid value: 0: should be an integer value "
                                                    "greater than zero\n")


def test_config_show_prints_the_effective_profiles_as_json():
    result = _run("config", "show", "--config", str(REPO / "samples" / "bin-packing.config.yaml"), "-o", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    profile = data["profiles"][0]
    assert profile["schedulerName"] == "default-scheduler"
    assert [e["name"] for e in profile["plugins"]["score"]] == [
        "TaintToleration", "NodeAffinity", "NodeResourcesFit", "VolumeBinding", "PodTopologySpread",
        "InterPodAffinity", "ImageLocality"]
    assert profile["plugins"]["score"][0] == {"name": "TaintToleration", "weight": 3, "simulated": True}
    fit = next(c for c in profile["pluginConfig"] if c["name"] == "NodeResourcesFit")
    assert fit["args"]["scoringStrategy"]["type"] == "MostAllocated"
    assert set(profile["plugins"]) == set(KUBE_POINTS)


def test_config_show_yaml_and_table_without_a_file_show_the_defaults():
    data = yaml.safe_load(_run("config", "show", "-o", "yaml").stdout)
    assert data["source"] is None and data["percentageOfNodesToScore"] == 0
    table = _run("config", "show").stdout
    assert "Profile default-scheduler" in table
    assert "TaintToleration (3), NodeAffinity (2), NodeResourcesFit (1)" in table
    assert "NodeResourcesFit" in table and "LeastAllocated" in table


def test_config_show_refuses_an_invalid_file_like_kube_scheduler(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(HEADER + "percentageOfNodesToScore: 101\n")
    result = _run("config", "show", "--config", str(bad))
    assert (result.exit_code, result.stderr) == (
        2, "percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]\n")


def test_a_config_changes_the_decision(tmp_path):
    """Two empty nodes, one already busier: LeastAllocated spreads to the idle one, the bin-packing
    sample (MostAllocated) fills the busy one."""
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text("""
apiVersion: v1
kind: Node
metadata: {name: busy, labels: {kubernetes.io/hostname: busy}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: idle, labels: {kubernetes.io/hostname: idle}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: running, namespace: default, uid: u1}
spec:
  nodeName: busy
  containers: [{name: c, image: i, resources: {requests: {cpu: "2", memory: 4Gi}}}]
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: new, namespace: default, uid: u2}
spec:
  containers: [{name: c, image: i, resources: {requests: {cpu: "1", memory: 1Gi}}}]
""")
    common = ["schedule", "-c", str(cluster), "-o", "json", "--now", "2026-01-01T00:00:00Z", "-q"]
    default = json.loads(_run(*common).stdout)["results"][0]["node"]
    packed = json.loads(_run(*common, "--config", str(REPO / "samples" / "bin-packing.config.yaml")).stdout)
    assert (default, packed["results"][0]["node"]) == ("idle", "busy")
