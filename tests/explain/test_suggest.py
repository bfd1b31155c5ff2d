"""Suggestions are shown only when a re-run binds the pod; the re-run is the judge."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import (
    ContainerPort, Controller, DaemonSet, OwnerReference, Pod, PodDisruptionBudget, PriorityClass,
)
from kwhatif.api.selectors import selector_from_map
from kwhatif.engine import input_pod, rerun_with, simulate
from kwhatif.explain.run import explain_pod
from kwhatif.explain.pod import AttemptExplanation, Explanation, NodeVerdict, explain
from kwhatif.explain.suggest import Size, Suggestion, Variant, suggestions
from kwhatif.api.objects import CORDON_TAINT
from kwhatif.explain.suggest.owner import template_owner
from kwhatif.explain.suggest.ports import free_ports
from kwhatif.explain.suggest.priority import raise_priority
from kwhatif.explain.suggest.resources import lower_requests
from kwhatif.explain.suggest.taints import tolerate_taint
from kwhatif.framework.scheduler import Outcome, PodResult
from kwhatif.load.cluster import load_cluster
from kwhatif.load.decode import decode
from kwhatif.plugins.node_affinity import ERR_REASON_POD
from kwhatif.snapshot.node_info import NodeInfo
from kwhatif.snapshot.snapshot import Snapshot
from tests.builders import make_container, make_node, make_pod, make_taint

CLUSTER = Path(__file__).parents[1] / "cli" / "data" / "cluster"
NOW = "2026-01-01T00:00:00Z"


def _big() -> tuple[Cluster, Explanation, Pod, Snapshot]:
    cluster = load_cluster([str(CLUSTER)])
    sim = simulate(cluster, NOW, explain=frozenset({"default/big"}))
    result = next(r for r in sim.results if r.pod.key == "default/big")
    exp = explain(result, [n.name for n in sim.snapshot.node_infos])
    original = input_pod(cluster, [], "default/big")
    assert original is not None
    return cluster, exp, original, sim.snapshot


def test_a_change_the_re_run_does_not_bind_is_dropped() -> None:
    _, exp, original, snapshot = _big()
    still_pending = PodResult(original, Outcome.UNSCHEDULABLE)
    assert suggestions(original, exp, lambda variant: still_pending, snapshot) == []


def test_the_re_run_sees_the_changed_pod_in_the_same_queue() -> None:
    """1800m -> 1200m: node-b's 1200m free after urgent (placed before big in the queue); node-c
    is big enough but tainted dedicated=gpu:NoSchedule."""
    cluster, exp, original, snapshot = _big()
    made = suggestions(original, exp, lambda v: rerun_with(cluster, NOW, [], v.pod, None, v.nodes, v.removed), snapshot,
                       list(cluster.priority_classes.values()))
    assert [s.summary for s in made] == [
        "lower container app's cpu request to 1200m (by 600m): it then fits on node-b",
        "tolerate the taint dedicated=gpu:NoSchedule: it then may land on node-c",
        "add 2 node(s) like node-a: the pod then fits",
        "give the pod priorityClassName high (1000): preemption then makes room on node-a, evicting default/bound-a",
    ]


def test_suggestions_are_ranked_by_the_size_of_the_change_and_cut_at_five() -> None:
    """One node per family, every re-run binding. Pod fields first (lower the request, tolerate the
    taint, drop the nodeSelector entry: one operation each, in family order), then one node
    (labelling nearest: one operation; uncordon: two, its flag and its taint), which makes five:
    deleting the host-port holder and adding nodes are left out, and the add-node search never
    re-runs (the five verifications are all the re-runs)."""
    port = (ContainerPort(80, host_port=8080),)
    pod = make_pod("p", node_selector={"tier": "gold"}, containers=[make_container("c", cpu="1", ports=port)])
    holder = make_pod("agent", node_name="n-port", containers=[make_container("a", ports=port)])
    nodes = [make_node("n-fit"), make_node("n-taint", taints=(make_taint("dedicated", "gpu"),)), make_node("n-aff"),
             make_node("n-cordon", unschedulable=True, taints=(make_taint(CORDON_TAINT.key),)), make_node("n-port")]
    snapshot = Snapshot.build(Cluster(nodes=nodes), [holder])
    verdicts = [NodeVerdict("n-fit", False, "NodeResourcesFit", "Unschedulable", ["Insufficient cpu"],
                            measures={"cpu": 500}),
                NodeVerdict("n-taint", False, "TaintToleration", "UnschedulableAndUnresolvable", ["taint"]),
                NodeVerdict("n-aff", False, "NodeAffinity", "UnschedulableAndUnresolvable", [ERR_REASON_POD]),
                NodeVerdict("n-cordon", False, "NodeUnschedulable", "UnschedulableAndUnresolvable", ["cordon"],
                            also_fails={"TaintToleration": ["taint"]}),
                NodeVerdict("n-port", False, "NodePorts", "Unschedulable", ["ports"])]
    exp = Explanation("default/p", Outcome.UNSCHEDULABLE, None, "0/5 nodes are available", [],
                      [AttemptExplanation(Outcome.UNSCHEDULABLE, None, None, [], verdicts, False)], None)
    reruns: list[Variant] = []

    def binds(variant: Variant) -> PodResult:
        reruns.append(variant)
        return PodResult(variant.pod, Outcome.BOUND)

    made = suggestions(pod, exp, binds, snapshot)
    assert [s.summary.split(" ")[0] for s in made] == ["lower", "tolerate", "change", "label", "uncordon"]
    assert [s.size for s in made] == [Size.POD_FIELD] * 3 + [Size.ONE_NODE] * 2
    assert len(reruns) == 5


def test_added_nodes_are_tried_with_the_pods_of_the_daemonsets() -> None:
    """A system-node-critical DaemonSet taking 500m on each node: a node like node-a (2 cpu) joins
    with 1500m left, short of big's 1800m, whatever the number added — no add-node suggestion.
    Without the DaemonSet, two such nodes fit big (test above). The other fixes stand."""
    cluster = load_cluster([str(CLUSTER)])
    template = {"metadata": {"labels": {"app": "agent"}},
                "spec": {"priorityClassName": "system-node-critical",
                         "containers": [{"name": "agent", "image": "agent:1", "resources": {"requests": {"cpu": "500m"}}}]}}
    manifest = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "kube-system"},
                "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": template}}
    cluster.daemonsets[("kube-system", "agent")] = DaemonSet("kube-system", "agent", manifest)
    explained = explain_pod(cluster, NOW, "default/big", [], None)
    assert explained is not None
    summaries = [s.summary for s in explained.explanation.suggestions]
    assert ("lower container app's cpu request to 1200m (by 600m): it then fits on node-b (a pod's spec cannot "
            "change in place: delete it and create it again with the change)") in summaries
    assert not any(s.startswith("add ") for s in summaries)


def _port_holder(name: str, node: str, **kw: object) -> Pod:
    return make_pod(name, node_name=node, containers=[make_container("a", ports=(ContainerPort(80, host_port=9100),))],
                    **kw)


def test_a_host_port_held_by_a_daemonsets_pod_is_never_freed_by_deleting_it() -> None:
    """The DaemonSet's controller makes its pod again on the same node (a static pod's kubelet
    keeps its mirror): only n-plain, whose holder is a bare pod, is worth a deletion."""
    daemon = _port_holder("exporter", "n-daemon", owner_references=(OwnerReference("apps/v1", "DaemonSet", "exporter",
                                                                                    controller=True),))
    mirror = _port_holder("static", "n-mirror", annotations={"kubernetes.io/config.mirror": "x"})
    plain = _port_holder("plain", "n-plain")
    snapshot = Snapshot.build(Cluster(nodes=[make_node("n-daemon"), make_node("n-mirror"), make_node("n-plain")]),
                              [daemon, mirror, plain])
    pod = _port_holder("p", "")
    verdicts = [NodeVerdict(n, False, "NodePorts", "Unschedulable", ["ports"]) for n in ("n-daemon", "n-mirror", "n-plain")]
    [(made, variant)] = free_ports(pod, verdicts, lambda name: snapshot.by_name[name])
    assert made.summary == "delete (or move) default/plain on n-plain, holding host port(s) 9100/TCP the pod wants"
    assert variant.removed == frozenset({"default/plain"})


def test_a_host_port_fix_prefers_a_node_whose_holder_no_budget_protects_and_says_when_all_are() -> None:
    """prot (n-a) is covered by PDB prot allowing 0 disruptions; free (n-b) by none: deleting free
    breaks nothing, so n-b is chosen though n-a's name is smaller. With n-a alone, the deletion of
    prot is offered with the budget it breaks (a delete goes through; an eviction is refused)."""
    prot = _port_holder("prot", "n-a", labels={"app": "prot"})
    free = _port_holder("free", "n-b")
    pdb = PodDisruptionBudget("default", "prot", selector_from_map({"app": "prot"}), disruptions_allowed=0)
    snapshot = Snapshot.build(Cluster(nodes=[make_node("n-a"), make_node("n-b")]), [prot, free])
    pod = _port_holder("p", "")
    verdicts = [NodeVerdict(n, False, "NodePorts", "Unschedulable", ["ports"]) for n in ("n-a", "n-b")]
    [(made, _)] = free_ports(pod, verdicts, lambda name: snapshot.by_name[name], [pdb])
    assert made.summary == "delete (or move) default/free on n-b, holding host port(s) 9100/TCP the pod wants"
    [(made, _)] = free_ports(pod, verdicts[:1], lambda name: snapshot.by_name[name], [pdb])
    assert made.summary == ("delete (or move) default/prot on n-a, holding host port(s) 9100/TCP the pod wants; this "
                            "breaks PodDisruptionBudget default/prot (an eviction is refused; a delete goes through "
                            "and leaves the app below its budget)")


def _ports(*spec: tuple[str, int]) -> tuple[ContainerPort, ...]:
    """Host ports as (hostIP, port), TCP; "" is the API's unset hostIP (0.0.0.0)."""
    return tuple(ContainerPort(port, host_port=port, host_ip=ip) for ip, port in spec)


@pytest.mark.parametrize("wanted, on_node, deleted, named", [
    # the pod wants two ports, the holder holds one: only the held one is named (QA report #4)
    (_ports(("", 8080), ("", 9090)), {"rs-b": _ports(("", 8080))}, ["default/rs-b"], "8080/TCP"),
    # reference 5.5 / node_ports.go fitsPorts: a specific hostIP clashes with 0.0.0.0 or the same
    # IP only — the pod on 10.0.0.2 is not in the way of one wanting 10.0.0.1
    (_ports(("10.0.0.1", 8080)), {"any-ip": _ports(("", 8080)), "other-ip": _ports(("10.0.0.2", 8080))},
     ["default/any-ip"], "8080/TCP"),
    (_ports(("10.0.0.1", 8080)), {"same-ip": _ports(("10.0.0.1", 8080))}, ["default/same-ip"], "10.0.0.1:8080/TCP"),
    # 0.0.0.0 wanted: any use of the port on any IP is in the way, named with its IP
    (_ports(("", 8080)), {"one-ip": _ports(("10.0.0.2", 8080))}, ["default/one-ip"], "10.0.0.2:8080/TCP"),
    # two holders: each of the ports they hold between them, port order
    (_ports(("", 8080), ("", 9090)), {"c2": _ports(("", 9090)), "c1": _ports(("", 8080))},
     ["default/c1", "default/c2"], "8080/TCP, 9090/TCP"),
])
def test_a_host_port_fix_deletes_and_names_only_what_is_in_the_way(
        wanted: tuple[ContainerPort, ...], on_node: dict[str, tuple[ContainerPort, ...]], deleted: list[str],
        named: str) -> None:
    pods = [make_pod(name, node_name="n", containers=[make_container("a", ports=ports)])
            for name, ports in sorted(on_node.items())]
    snapshot = Snapshot.build(Cluster(nodes=[make_node("n")]), pods)
    pod = make_pod("p", containers=[make_container("c", ports=wanted)])
    verdicts = [NodeVerdict("n", False, "NodePorts", "Unschedulable", ["ports"])]
    [(made, variant)] = free_ports(pod, verdicts, lambda name: snapshot.by_name[name])
    assert made.summary == f"delete (or move) {', '.join(deleted)} on n, holding host port(s) {named} the pod wants"
    assert variant.removed == frozenset(deleted)
    assert [c["target"]["name"] for c in made.changes] == [d.split("/")[1] for d in deleted]


def test_an_extended_resource_request_is_lowered_with_its_limit() -> None:
    """Extended resources cannot be overcommitted (request = limit, validation.go): the patch sets
    both, or the API server would refuse the pod."""
    gpu = {"nvidia.com/gpu": "4"}
    pod = make_pod("p", containers=[make_container("c", requests=gpu, limits=gpu)])
    verdicts = [NodeVerdict("g1", False, "NodeResourcesFit", "Unschedulable", ["Insufficient nvidia.com/gpu"],
                            measures={"nvidia.com/gpu": 1})]
    [(made, variant)] = lower_requests(pod, verdicts, [])
    assert made.summary == "lower container c's nvidia.com/gpu request and limit to 3 (by 1): it then fits on g1"
    assert [op["path"] for op in made.changes[0]["patch"]] == ["/spec/containers/0/resources/requests",
                                                              "/spec/containers/0/resources/limits"]
    container = variant.pod.containers[0]
    assert container.requests["nvidia.com/gpu"] == container.limits["nvidia.com/gpu"] == 3


@pytest.mark.parametrize("short, lowered", [
    pytest.param(500, "1000m", id="1500m - 500m = 1000m, above the LimitRange's min of 800m: offered"),
    pytest.param(1000, None, id="1500m - 1000m = 500m, under the min: LimitRanger refuses the pod, so never offered"),
])
def test_a_request_is_never_lowered_under_the_namespaces_limit_range_min(short: int, lowered: str | None) -> None:
    """limitranger admission.go: a Container request under `min` refuses the pod; a pod of the
    snapshot is not admitted again by the re-run, so the family checks it itself."""
    limit_range = decode({"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "lr", "namespace": "default"},
                          "spec": {"limits": [{"type": "Container", "min": {"cpu": "800m"}}]}}, None)
    pod = make_pod("p", containers=[make_container("app", cpu="1500m")])
    verdicts = [NodeVerdict("w1", False, "NodeResourcesFit", "Unschedulable", ["Insufficient cpu"],
                            measures={"cpu": short})]
    made = lower_requests(pod, verdicts, [limit_range])
    assert [s.summary.split(" (by")[0] for s, _ in made] == (
        [f"lower container app's cpu request to {lowered}"] if lowered else [])


@pytest.mark.parametrize("inits, said", [
    ([("init", "1", None)], "2350m"),            # max(3, 1): app 3 → 2.35 still tops init's 1
    ([("init", "2500m", None)], None),           # max(2.35, 2.5) = 2.5: the pod would ask 500m less, not 650m
    ([("mesh", "500m", "Always")], "2350m"),     # 3 + 0.5 → 2.35 + 0.5: the sidecar's share stays
    ([("mesh", "500m", "Always"), ("migrate", "2", None)], "2350m"),       # 2.85 + 0 tops 2 + 0.5 = 2.5
    ([("mesh", "500m", "Always"), ("migrate", "2500m", None)], None),      # 2.85 < 2.5 + 0.5 = 3: 500m less only
], ids=["a plain init container below the new request", "a plain init container above it",
        "a sidecar adds its own share", "an init step after a sidecar, below", "an init step after a sidecar, above"])
def test_a_container_is_lowered_while_the_pod_then_asks_that_much_less(inits, said) -> None:
    """PodRequests: max(containers + sidecars, each init step: a plain init container with the
    sidecars started before it). The suggestion lowers `app` (3 cpu) by the 650m w1 is short of,
    and only when the pod's request then drops by 650m."""
    verdicts = [NodeVerdict("w1", False, "NodeResourcesFit", "Unschedulable", ["Insufficient cpu"],
                            measures={"cpu": 650})]
    pod = make_pod("p", containers=[make_container("app", cpu="3")],
                   init_containers=[make_container(n, cpu=cpu, restart_policy=rp) for n, cpu, rp in inits])
    made = [s.summary for s, _ in lower_requests(pod, verdicts, [])]
    assert made == ([f"lower container app's cpu request to {said} (by 650m): it then fits on w1"] if said else [])


@pytest.mark.parametrize("key", ["node-role.kubernetes.io/control-plane", "node.kubernetes.io/not-ready",
                                 "node.kubernetes.io/disk-pressure", "ToBeDeletedByClusterAutoscaler",
                                 "kubernetes.io/arch", "karpenter.sh/disrupted", "node.cilium.io/agent-not-ready",
                                 "ebs.csi.aws.com/agent-not-ready", "example.com/node-uninitialized"])
def test_a_taint_kept_for_the_nodes_sake_is_never_tolerated(key: str) -> None:
    """The control plane's taint, a node condition's, a node the autoscaler or Karpenter removes,
    an Arm node's (only arm64 images may tolerate it), a network or storage agent not ready yet:
    tolerating it lands the pod where it must not run. Only the other taint is suggested."""
    nodes = {"sys1": make_node("sys1", taints=(make_taint(key, effect="NoSchedule"),)),
             "sys2": make_node("sys2", taints=(make_taint(key, effect="NoSchedule"),)),
             "gpu": make_node("gpu", taints=(make_taint("dedicated", "gpu"),))}
    infos = {name: NodeInfo.of(node) for name, node in nodes.items()}
    verdicts = [NodeVerdict(n, False, "TaintToleration", "UnschedulableAndUnresolvable", ["taint"]) for n in nodes]
    made = tolerate_taint(make_pod("p", cpu="1"), verdicts, lambda name: infos[name])
    assert [s.summary for s, _ in made] == ["tolerate the taint dedicated=gpu:NoSchedule: it then may land on gpu"]


def test_a_teams_node_role_taint_may_be_tolerated() -> None:
    """node-role.kubernetes.io/infra is a convention the pods meant for those nodes tolerate (the
    control plane's role taint never is)."""
    nodes = {"infra": make_node("infra", taints=(make_taint("node-role.kubernetes.io/infra", "", effect="NoSchedule"),))}
    infos = {name: NodeInfo.of(node) for name, node in nodes.items()}
    verdicts = [NodeVerdict("infra", False, "TaintToleration", "UnschedulableAndUnresolvable", ["taint"])]
    made = tolerate_taint(make_pod("p", cpu="1"), verdicts, lambda name: infos[name])
    assert [s.summary for s, _ in made] == [
        "tolerate the taint node-role.kubernetes.io/infra:NoSchedule: it then may land on infra"]


def test_a_taint_without_value_is_written_as_kubectl_writes_it() -> None:
    """kubectl taint writes `key:effect` for a taint with no value, not `key=:effect`."""
    nodes = {"gpu": make_node("gpu", taints=(make_taint("example.com/gpu", "", effect="NoSchedule"),))}
    infos = {name: NodeInfo.of(node) for name, node in nodes.items()}
    verdicts = [NodeVerdict("gpu", False, "TaintToleration", "UnschedulableAndUnresolvable", ["taint"])]
    made = tolerate_taint(make_pod("p", cpu="1"), verdicts, lambda name: infos[name])
    assert [s.summary for s, _ in made] == ["tolerate the taint example.com/gpu:NoSchedule: it then may land on gpu"]


def test_a_system_priority_class_is_never_given_to_a_workload() -> None:
    """system-cluster-critical would let the pod evict the cluster's own critical pods: the
    lowest other class above the pod's is tried, and only it."""
    pod = make_pod("p", cpu="1")
    exp = Explanation("default/p", Outcome.UNSCHEDULABLE, None, "0/1 nodes are available", [], [],
                      {"potential_nodes": ["n1"]})
    tried: list[str] = []

    def rerun(variant: Variant) -> PodResult:
        tried.append(variant.pod.priority_class_name)
        return PodResult(variant.pod, Outcome.UNSCHEDULABLE)
    classes = [PriorityClass("system-cluster-critical", 2_000_000_000), PriorityClass("high", 1000)]
    assert raise_priority(pod, exp, classes, rerun) == []
    assert tried == ["high"]


def _priority_for_x(tmp_path: Path) -> list[Suggestion]:
    """`raise_priority` for the pending pod default/x of tmp_path/c.yaml (on node n1), each try
    re-run on that cluster."""
    cluster = load_cluster([str(tmp_path / "c.yaml")])
    sim = simulate(cluster, NOW, explain=frozenset({"default/x"}))
    result = next(r for r in sim.results if r.pod.key == "default/x")
    pod = input_pod(cluster, [], "default/x")
    assert pod is not None

    def rerun(variant: Variant) -> PodResult | None:
        return rerun_with(cluster, NOW, [], variant.pod, None, variant.nodes, variant.removed)
    return raise_priority(pod, explain(result, ["n1"]), list(cluster.priority_classes.values()), rerun, cluster.pdbs)


def test_a_priority_that_binds_without_evicting_says_the_pod_goes_ahead_in_the_queue(tmp_path: Path) -> None:
    """n1 has 1 cpu; y (queued first) takes 800m of it and x (800m) stays pending: nothing
    evictable (y is as important). With high (1000), x is scheduled before y and binds on n1
    with no victim — y then finds no room, which the suggestion must not hide behind
    "preemption makes room"."""
    (tmp_path / "c.yaml").write_text(
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n---\n"
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {kubernetes.io/hostname: n1}}\n"
        "status: {allocatable: {cpu: '1', memory: 1Gi, pods: '10'}}\n---\n"
        + "---\n".join(f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {n}, namespace: default, creationTimestamp: "
                       f"'2025-01-01T00:00:0{i}Z'}}\nspec:\n  containers: [{{name: c, image: x, resources: "
                       "{requests: {cpu: 800m}}}]\n" for i, n in enumerate(("y", "x"))))
    [made] = _priority_for_x(tmp_path)
    assert made.summary == ("give the pod priorityClassName high (1000): it then binds on n1 without evicting anyone, "
                            "scheduled ahead of the lower-priority pods queued before it, which may then find no room")


def test_a_priority_whose_preemption_breaks_a_budget_says_so(tmp_path: Path) -> None:
    """n1 (1 cpu) runs db-a (800m, priority 0), covered by PDB db allowing 0 disruptions; x (800m)
    pending. With high (1000) x preempts db-a (no other node, so the budget cannot be spared):
    the suggestion names the budget broken, as the preemption section does."""
    (tmp_path / "c.yaml").write_text(
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n---\n"
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {kubernetes.io/hostname: n1}}\n"
        "status: {allocatable: {cpu: '1', memory: 1Gi, pods: '10'}}\n---\n"
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: db, namespace: default}\n"
        "spec: {minAvailable: 1, selector: {matchLabels: {app: db}}}\nstatus: {disruptionsAllowed: 0}\n---\n"
        "apiVersion: v1\nkind: Pod\nmetadata: {name: db-a, namespace: default, labels: {app: db}}\n"
        "spec: {nodeName: n1, containers: [{name: c, image: x, resources: {requests: {cpu: 800m}}}]}\n"
        "status: {phase: Running}\n---\n"
        "apiVersion: v1\nkind: Pod\nmetadata: {name: x, namespace: default}\n"
        "spec: {containers: [{name: c, image: x, resources: {requests: {cpu: 800m}}}]}\n")
    [made] = _priority_for_x(tmp_path)
    assert made.summary == ("give the pod priorityClassName high (1000): preemption then makes room on n1, evicting "
                            "default/db-a; this breaks PodDisruptionBudget default/db (preemption spares budgets only "
                            "when another node lets it)")


@pytest.mark.parametrize("kind, prefix", [("Deployment", "/spec/template"), ("CronJob", "/spec/jobTemplate/spec/template")])
def test_a_fix_for_a_pod_a_workload_makes_patches_the_workloads_template(kind: str, prefix: str) -> None:
    pod_patch = {"op": "patch", "target": {"kind": "Pod", "namespace": "shop", "name": "web-7d4b9-x2x8q"},
                 "patch": [{"op": "remove", "path": "/spec/nodeSelector/disk"}]}
    node_patch = {"op": "patch", "target": {"kind": "Node", "namespace": None, "name": "n1"},
                  "patch": [{"op": "add", "path": "/metadata/labels/disk", "value": "nvme"}]}
    made = Suggestion("drop it", [pod_patch, node_patch]).on_template(kind, "shop", "web")
    assert made.changes == [{"op": "patch", "target": {"kind": kind, "namespace": "shop", "name": "web"},
                             "patch": [{"op": "remove", "path": f"{prefix}/spec/nodeSelector/disk"}]}, node_patch]


@pytest.mark.parametrize("patch, recreate", [
    pytest.param({"op": "remove", "path": "/spec/nodeSelector/disk"}, True,
                 id="nodeSelector: ValidatePodUpdate refuses it on a running pod: delete and create again"),
    pytest.param({"op": "add", "path": "/spec/tolerations", "value": [{"key": "a", "operator": "Exists"}]}, False,
                 id="tolerations added: the one change kwhatif suggests that a pod takes in place"),
])
def test_a_fix_for_a_bare_pod_says_when_the_pod_must_be_made_again(patch: dict, recreate: bool) -> None:
    change = {"op": "patch", "target": {"kind": "Pod", "namespace": "shop", "name": "solo"}, "patch": [patch]}
    made = Suggestion("fix it", [change]).on_bare_pod()
    assert made.changes == [{**change, "recreate": True} if recreate else change]
    assert made.summary == ("fix it (a pod's spec cannot change in place: delete it and create it again with the change)"
                            if recreate else "fix it")


def _rs_pod(owner: str, digest: str) -> Pod:
    return make_pod("web-abc-xyz", ns="shop", labels={"pod-template-hash": digest},
                    owner_references=(OwnerReference("apps/v1", "ReplicaSet", owner, controller=True),))


@pytest.mark.parametrize("pod, owners, expected", [
    pytest.param(_rs_pod("web-abc", "abc"), {"web-abc": "web"}, ("Deployment", "shop", "web"),
                 id="a set the snapshot has, owned by a Deployment it lacks: the Deployment (its controller "
                    "overwrites the set's template)"),
    pytest.param(_rs_pod("web-abc", "abc"), {}, ("Deployment", "shop", "web"),
                 id="no set in the snapshot, named <deployment>-<pod-template-hash>: that Deployment"),
    pytest.param(_rs_pod("web-abc", "abc"), {"web-abc": None}, ("ReplicaSet", "shop", "web-abc"),
                 id="a set the snapshot has, owned by nobody: the set"),
    pytest.param(_rs_pod("cache", "abc"), {}, ("ReplicaSet", "shop", "cache"),
                 id="a set not named after its pod-template-hash: the set"),
])
def test_the_workload_a_fix_patches(pod: Pod, owners: dict[str, str | None], expected: tuple[str, str, str]) -> None:
    cluster = Cluster()
    for name, parent in owners.items():
        owner = OwnerReference("apps/v1", "Deployment", parent, controller=True) if parent else None
        cluster.controllers[("ReplicaSet", "shop", name)] = Controller(
            "ReplicaSet", "shop", name, selector=selector_from_map({"pod-template-hash": "abc"}), owner=owner)
    assert template_owner(cluster, pod) == expected


def test_a_toleration_names_only_the_nodes_it_frees() -> None:
    """a=1 is on all three nodes, but n0 also has b (NoExecute) and n2 d (NoSchedule): tolerating
    a frees n1 alone — the other two stay rejected by TaintToleration for their other taint."""
    taints = {"n0": (make_taint("a", "1"), make_taint("b", "2", "NoExecute")), "n1": (make_taint("a", "1"),),
              "n2": (make_taint("c", "", "PreferNoSchedule"), make_taint("a", "1"), make_taint("d"))}
    infos = {name: NodeInfo.of(make_node(name, taints=t)) for name, t in taints.items()}
    verdicts = [NodeVerdict(n, False, "TaintToleration", "UnschedulableAndUnresolvable", ["taint"]) for n in taints]
    made = tolerate_taint(make_pod("p", cpu="1"), verdicts, lambda name: infos[name])
    assert [s.summary for s, _ in made] == ["tolerate the taint a=1:NoSchedule: it then may land on n1"]


@pytest.mark.parametrize("gpu_request, caveat", [(None, True), ("1", False)],
                         ids=["a pod asking no GPU: the caveat", "a pod asking one: none"])
def test_tolerating_a_device_nodes_taint_says_whom_the_nodes_are_kept_for(gpu_request, caveat) -> None:
    """The only node is a GPU node tainted nvidia.com/gpu: tolerating the taint fits the pod, and
    lands a pod that asks no GPU on it — said, since the taint most likely keeps the node for
    pods that request the device."""
    node = make_node("gpu", taints=(make_taint("nvidia.com/gpu", "present"),), allocatable={"nvidia.com/gpu": "4"})
    info = NodeInfo.of(node)
    requests = {"nvidia.com/gpu": gpu_request} if gpu_request else {}
    pod = make_pod("p", containers=[make_container("c", requests=requests, limits=requests)])
    verdicts = [NodeVerdict("gpu", False, "TaintToleration", "UnschedulableAndUnresolvable", ["taint"])]
    [(made, _)] = tolerate_taint(pod, verdicts, lambda name: info)
    said = " — nodes offering nvidia.com/gpu, which the pod does not request: the taint likely keeps them for pods"
    assert (said in made.summary) == caveat


@pytest.mark.parametrize("inits, made", [
    # init 4 cpu sets the pod's request (max(3, 4)): 4 - 650m = 3350m still tops app's 3 → lower init
    ([("init", "4", None)], ["lower init container init's cpu request to 3350m (by 650m): it then fits on w1"]),
    # init 3.5: 3.5 - 650m = 2850m < app's 3, and app cannot go below the init step: nothing asks 650m less
    ([("init", "3500m", None)], []),
    # behind a 500m sidecar, the init step is 4 + 0.5 against 3 + 0.5 running: lowered alike
    ([("mesh", "500m", "Always"), ("init", "4", None)],
     ["lower init container init's cpu request to 3350m (by 650m): it then fits on w1"]),
], ids=["an init container that alone sets the request", "one that sets it by less than the shortfall",
        "one after a sidecar"])
def test_an_init_container_that_sets_the_pods_request_is_the_one_lowered(inits, made) -> None:
    """PodRequests' max over the init steps and the running pod: when a plain init container's
    step is the pod's request by at least the shortfall, lowering it is what makes the pod ask
    less (it said "no single change" though one does)."""
    verdicts = [NodeVerdict("w1", False, "NodeResourcesFit", "Unschedulable", ["Insufficient cpu"],
                            measures={"cpu": 650})]
    pod = make_pod("p", containers=[make_container("app", cpu="3")],
                   init_containers=[make_container(n, cpu=cpu, restart_policy=rp) for n, cpu, rp in inits])
    found = lower_requests(pod, verdicts, [])
    assert [s.summary for s, _ in found] == made
    if made:
        [(suggestion, variant)] = found
        index = len(inits) - 1
        assert [op["path"] for op in suggestion.changes[0]["patch"]] == [
            f"/spec/initContainers/{index}/resources/requests"]
        assert variant.pod.init_containers[index].requests["cpu"] == Fraction(3350, 1000)
