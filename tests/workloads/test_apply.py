"""kubectl apply's three-way merge (strategicpatch CreateThreeWayMergePatch) of the spec the last
apply wrote, the manifest's and the live one, field by field. Each expected spec is worked out
by hand from patch.go: the delta current→modified ignores deletions, the deletions come from
original→modified only; maps and structs merge key by key, lists with a patchMergeKey entry by
entry (core/v1 types.go), the rest are replaced whole."""

from __future__ import annotations

from typing import Any

import pytest

from kwhatif.api.objects import ApplyBase
from kwhatif.workloads.apply import applied_spec

REQUIRED = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "pool", "operator": "In", "values": ["web"]}]}]}
PREFERRED = [{"weight": 10, "preference": {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}}]
WEB = {"key": "dedicated", "operator": "Equal", "value": "web", "effect": "NoSchedule"}
SPOT = {"key": "spot", "operator": "Exists"}
APP = {"name": "app", "image": "app:1"}


def _spec(**pod: Any) -> dict[str, Any]:
    """A workload spec whose pod template spec is `pod` (containers: [APP] unless given)."""
    return {"template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [APP], **pod}}}


def _pod(spec: dict[str, Any]) -> dict[str, Any]:
    return spec["template"]["spec"]


@pytest.mark.parametrize("live, applied, manifest, field, expected", [
    # A field neither the last apply nor the manifest writes stays as another hand set it.
    pytest.param(_spec(tolerations=[WEB, SPOT]), _spec(), _spec(), "tolerations", [WEB, SPOT],
                 id="patched tolerations stay"),
    # An atomic list the manifest writes replaces the live one whole, even empty.
    pytest.param(_spec(tolerations=[WEB, SPOT]), _spec(), _spec(tolerations=[]), "tolerations", [],
                 id="tolerations: [] is written"),
    pytest.param(_spec(tolerations=[WEB, SPOT]), _spec(tolerations=[WEB]), _spec(tolerations=[WEB]), "tolerations",
                 [WEB], id="an atomic list the apply wrote is replaced with its patched entries"),
    # One the last apply wrote and the manifest leaves out is deleted.
    pytest.param(_spec(tolerations=[WEB]), _spec(tolerations=[WEB]), _spec(), "tolerations", None,
                 id="dropped by the manifest"),
    # A scalar the manifest writes is its own, even the default.
    pytest.param(_spec(schedulerName="batch"), _spec(), _spec(schedulerName="default-scheduler"), "schedulerName",
                 "default-scheduler", id="an explicit default is written"),
    pytest.param(_spec(hostNetwork=True), _spec(), _spec(), "hostNetwork", True, id="patched scalar stays"),
    # Structs merge field by field: a patched `required` beside the `preferred` the apply wrote.
    pytest.param(_spec(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": REQUIRED,
                                                  "preferredDuringSchedulingIgnoredDuringExecution": PREFERRED}}),
                 _spec(affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": PREFERRED}}),
                 _spec(affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": PREFERRED}}),
                 "affinity", {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": PREFERRED,
                                               "requiredDuringSchedulingIgnoredDuringExecution": REQUIRED}},
                 id="node affinity merged field by field"),
    # Lists with a merge key merge entry by entry, and each entry field by field.
    pytest.param(_spec(containers=[{**APP, "ports": [{"containerPort": 8080, "hostPort": 8080}]}]),
                 _spec(containers=[{**APP, "ports": [{"containerPort": 8080}]}]),
                 _spec(containers=[{**APP, "image": "app:2", "ports": [{"containerPort": 8080}]}]),
                 "containers", [{**APP, "image": "app:2", "ports": [{"containerPort": 8080, "hostPort": 8080}]}],
                 id="a patched hostPort stays in its port"),
    pytest.param(_spec(containers=[APP, {"name": "proxy", "image": "envoy:1"}]), _spec(), _spec(), "containers",
                 [APP, {"name": "proxy", "image": "envoy:1"}], id="a patched container stays"),
    pytest.param(_spec(containers=[APP, {"name": "proxy", "image": "envoy:1"}]),
                 _spec(containers=[APP, {"name": "proxy", "image": "envoy:1"}]), _spec(), "containers", [APP],
                 id="a container the apply wrote and the manifest drops goes"),
    pytest.param(_spec(containers=[{**APP, "resources": {"requests": {"cpu": "500m"}, "limits": {"cpu": "1"}}}]),
                 _spec(containers=[{**APP, "resources": {"requests": {"cpu": "500m"}}}]),
                 _spec(containers=[{**APP, "resources": {"requests": {"cpu": "250m"}}}]), "containers",
                 [{**APP, "resources": {"requests": {"cpu": "250m"}, "limits": {"cpu": "1"}}}],
                 id="kubectl set resources' limit stays beside a new request"),
    pytest.param(_spec(topologySpreadConstraints=[{"topologyKey": "zone", "maxSkew": 1, "minDomains": 3}]),
                 _spec(topologySpreadConstraints=[{"topologyKey": "zone", "maxSkew": 1}]),
                 _spec(topologySpreadConstraints=[{"topologyKey": "zone", "maxSkew": 2}]),
                 "topologySpreadConstraints", [{"topologyKey": "zone", "maxSkew": 2, "minDomains": 3}],
                 id="a spread constraint merged by topologyKey"),
    # retainKeys (volumes): a patched entry keeps only the keys the manifest's names: a source
    # replaced, not two sources.
    pytest.param(_spec(volumes=[{"name": "data", "emptyDir": {}}]), _spec(volumes=[{"name": "data", "emptyDir": {}}]),
                 _spec(volumes=[{"name": "data", "configMap": {"name": "c"}}]), "volumes",
                 [{"name": "data", "configMap": {"name": "c"}}], id="a volume's source replaced"),
    # A null the manifest writes deletes.
    pytest.param(_spec(priorityClassName="high"), _spec(), _spec(priorityClassName=None), "priorityClassName", None,
                 id="null deletes"),
])
def test_a_template_field_is_merged_as_kubectl_apply_merges_it(live, applied, manifest, field, expected):
    assert _pod(applied_spec(ApplyBase(live, applied), manifest)).get(field) == expected


def test_the_live_order_of_a_merged_list_is_kept_new_entries_last():
    """The running pods carry the live order: entries the manifest names merge in place."""
    live = _spec(containers=[{"name": "proxy", "image": "envoy:1"}, APP])
    merged = applied_spec(ApplyBase(live, _spec()), _spec(containers=[APP, {"name": "log", "image": "log:1"}]))
    assert [c["name"] for c in _pod(merged)["containers"]] == ["proxy", "app", "log"]


@pytest.mark.parametrize("applied, manifest, expected", [
    # The last apply wrote replicas, the manifest leaves them out: deleted, and the API server
    # defaults them to 1 (SetDefaults_Deployment) — the autoscaling docs' migration warning.
    ({"replicas": 3}, {}, 1),
    # Never written (an HPA's workload): not patched, the live spec's count stays.
    ({}, {}, 3),
    ({"replicas": 3}, {"replicas": 5}, 5),
])
def test_replicas_the_manifest_drops_default_to_one(applied, manifest, expected):
    merged = applied_spec(ApplyBase({"replicas": 3, **_spec()}, {**applied, **_spec()}), {**manifest, **_spec()})
    assert merged.get("replicas") == expected


DNS_PORTS = [{"containerPort": 53, "protocol": "UDP", "hostPort": 53}, {"containerPort": 53, "protocol": "TCP",
                                                                         "hostPort": 53}]
ZONE_PAIR = [{"topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule", "maxSkew": 1},
             {"topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway", "maxSkew": 1}]


@pytest.mark.parametrize("field, value", [
    # Two entries on one patchMergeKey value (a DNS pod's 53/UDP and 53/TCP; a zone's hard and
    # soft constraints): the same list applied again sends no patch (diffListsOfMaps compares
    # them pair by pair), and both stay — matched by their listMapKeys, never collapsed.
    ("ports", DNS_PORTS),
    ("topologySpreadConstraints", ZONE_PAIR),
])
def test_entries_sharing_a_merge_key_value_both_stay(field, value):
    if field == "ports":
        spec = _spec(containers=[{**APP, "ports": value}])
        merged = _pod(applied_spec(ApplyBase(spec, spec), spec))["containers"][0]["ports"]
    else:
        spec = _spec(topologySpreadConstraints=value)
        merged = _pod(applied_spec(ApplyBase(spec, spec), spec))[field]
    assert merged == value


@pytest.mark.parametrize("live, manifest, expected", [
    # The manifest's order wins (normalizeElementOrder): a native sidecar put before an init
    # container adds its requests to it — its place is what the pod requests.
    (["migrate"], ["log", "migrate"], ["log", "migrate"]),
    (["a", "b"], ["b", "a"], ["b", "a"]),
    (["a", "c"], ["a", "b", "c"], ["a", "b", "c"]),
    # A kept live entry slots in before the manifest's next entry it preceded live (mergeSortedSlice).
    (["proxy", "a", "c"], ["a", "b", "c"], ["proxy", "a", "b", "c"]),
])
def test_a_merged_lists_order_is_the_manifests_with_kept_entries_slotted_in(live, manifest, expected):
    def names(*which: str) -> dict[str, Any]:
        return _spec(initContainers=[{"name": n, "image": "x"} for n in which])
    merged = applied_spec(ApplyBase(names(*live), _spec()), names(*manifest))
    assert [c["name"] for c in _pod(merged)["initContainers"]] == expected


@pytest.mark.parametrize("live, manifest, expected", [
    # DeploymentSpec.strategy is retainKeys: the manifest's strategy keeps only the keys it names
    # (applyRetainKeysDirective; #70436), the rest goes and the API server defaults it again.
    ({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}}, {"type": "Recreate"},
     {"type": "Recreate"}),
    ({"type": "Recreate"}, {"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}},
     {"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}}),
    # One the manifest does not write is left as it runs.
    ({"type": "Recreate"}, None, {"type": "Recreate"}),
])
def test_a_deployments_strategy_keeps_only_the_keys_the_manifest_writes(live, manifest, expected):
    written = {} if manifest is None else {"strategy": manifest}
    merged = applied_spec(ApplyBase({"strategy": live, **_spec()}, _spec()), {**written, **_spec()})
    assert merged["strategy"] == expected


def test_replicas_written_null_default_to_one():
    """`replicas: null` in the manifest deletes them (mergeMap), and the API server defaults 1."""
    merged = applied_spec(ApplyBase({"replicas": 3, **_spec()}, _spec()), {"replicas": None, **_spec()})
    assert merged["replicas"] == 1


def test_an_entry_a_last_applied_annotation_misspells_is_matched_by_what_it_holds():
    """The annotation is never validated: an entry whose name is a map, or that is no map, is an
    entry like another — no crash, nothing of the live list lost."""
    bad = _spec(containers=[{"name": {"x": 1}}, [1, 2]])
    assert _pod(applied_spec(ApplyBase(_spec(), bad), _spec()))["containers"] == [APP]
