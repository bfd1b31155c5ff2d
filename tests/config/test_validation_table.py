"""KubeSchedulerConfiguration validation, the scenarios of kubernetes
`pkg/scheduler/apis/config/validation/validation_test.go` (TestValidateKubeSchedulerConfiguration)
that a v1 file can reach (the leader-election resource name and namespace are defaulted when
empty, so their scenarios cannot occur). The full texts are written by hand from validation.go's
format strings; the valid configuration is upstream's, as v1 YAML.
"""

from __future__ import annotations

import pytest

from kwhatif.config.scheduler_config import parse_scheduler_config
from tests.config.test_scheduler_config import HEADER, error_of

# validConfig: two profiles with the same (custom) queue sort, one extender with weight 1.
GOOD = """\
parallelism: 8
percentageOfNodesToScore: 35
profiles:
- schedulerName: me
  plugins:
    queueSort: {enabled: [{name: PrioritySort}]}
    score: {disabled: [{name: '*'}]}
  pluginConfig:
  - name: DefaultPreemption
    args: {minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100}
- schedulerName: other
  plugins:
    queueSort: {enabled: [{name: PrioritySort}]}
extenders:
- {urlPrefix: "http://x", prioritizeVerb: prioritize, weight: 1}
"""
SORT_SET = ('config.PluginSet{Enabled:[]config.Plugin{config.Plugin{Name:"PrioritySort", Weight:0}}, '
            "Disabled:[]config.Plugin(nil)}")


def test_good() -> None:
    parse_scheduler_config(HEADER + GOOD)


@pytest.mark.parametrize(("old", "new", "want"), [
    pytest.param("parallelism: 8", "parallelism: 0",
                 "parallelism: Invalid value: 0: should be an integer value greater than zero",
                 id="bad-parallelism-invalid-value"),
    pytest.param("percentageOfNodesToScore: 35", "percentageOfNodesToScore: 101",
                 "percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]",
                 id="bad-percentage-of-nodes-to-score"),
    pytest.param("- schedulerName: other\n", "- schedulerName: ''\n",
                 "profiles[1].schedulerName: Required value", id="scheduler-name-not-set"),
    pytest.param("- schedulerName: me\n", "- schedulerName: other\n",
                 "profiles[1].schedulerName: Duplicate value: profiles[0].schedulerName", id="repeated-scheduler-name"),
    # profile 0 keeps PrioritySort, profile 1's queue sort set is empty once its explicit entry is gone:
    # the sets differ (the empty one prints its nil lists).
    pytest.param("- schedulerName: other\n  plugins:\n    queueSort: {enabled: [{name: PrioritySort}]}\n",
                 "- schedulerName: other\n",
                 "profiles[1].plugins.queueSort: Invalid value: config.PluginSet{Enabled:[]config.Plugin(nil), "
                 "Disabled:[]config.Plugin(nil)}: must be the same for all profiles",
                 id="different-queue-sort"),
    pytest.param("- schedulerName: me\n  plugins:\n    queueSort: {enabled: [{name: PrioritySort}]}\n",
                 "- schedulerName: me\n  plugins:\n",
                 f"profiles[1].plugins.queueSort: Invalid value: {SORT_SET}: must be the same for all profiles",
                 id="one-empty-queue-sort"),
    pytest.param("weight: 1}", "weight: -1}",
                 "extenders[0].weight: Invalid value: -1: must have a positive weight applied to it",
                 id="extender-negative-weight"),
    # "foo" is a qualified name but not an extended resource name (no domain prefix): both entries
    # say so, and the second one is a duplicate.
    pytest.param("weight: 1}", "weight: 1, managedResources: [{name: foo}, {name: foo}]}",
                 '[extenders[0].managedResources[0].name: Invalid value: "foo": is an invalid extended resource name, '
                 'extenders[0].managedResources[1].name: Invalid value: "foo": is an invalid extended resource name, '
                 'extenders[0].managedResources[1].name: Invalid value: "foo": duplicate extender managed resource '
                 "name]",
                 id="extender-duplicate-managed-resources"),
    pytest.param("weight: 1}", "weight: 1, bindVerb: foo}\n- {prioritizeVerb: prioritize, weight: 1, bindVerb: bar}",
                 'extenders: Invalid value: "found 2 extenders implementing bind": only one extender can implement bind',
                 id="extender-duplicate-bind"),
    pytest.param("minCandidateNodesPercentage: 10", "minCandidateNodesPercentage: 200",
                 "profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: Invalid value: 200: not in valid range "
                 "[0, 100]",
                 id="invalid-node-percentage"),
    pytest.param("  - name: DefaultPreemption\n", "  - name: InterPodAffinity\n  - name: InterPodAffinity\n"
                 "  - name: DefaultPreemption\n",
                 'profiles[0].pluginConfig[1]: Duplicate value: "InterPodAffinity"', id="duplicated-plugin-config"),
    pytest.param("    score: {disabled: [{name: '*'}]}", "    score: {disabled: [{name: '*'}], enabled: [{name: "
                 "GCEPDLimits, weight: 2}]}",
                 'profiles[0].plugins.score.enabled[0]: Invalid value: "GCEPDLimits": was invalid in version '
                 '"kubescheduler.config.k8s.io/v1" (KubeSchedulerConfiguration is version '
                 '"kubescheduler.config.k8s.io/v1")',
                 id="bad-removed-plugins"),
])
def test_invalid(old: str, new: str, want: str) -> None:
    assert old in GOOD
    assert error_of(HEADER + GOOD.replace(old, new, 1)) == want
