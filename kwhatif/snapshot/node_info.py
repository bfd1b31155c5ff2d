"""NodeInfo: a node and the aggregates of the pods on it (types.go:NodeInfo.update)."""

from __future__ import annotations

from dataclasses import dataclass, field

from kwhatif.api.objects import Node
from kwhatif.api.quantity import value
from kwhatif.api.resources import PODS, Resources
from kwhatif.snapshot.pod_info import HostPort, PodInfo


@dataclass(eq=False, slots=True)
class NodeInfo:
    """Mutable per-node state. Pods are appended at the end; removing a pod moves the last pod
    into its slot, as kube-scheduler's NodeInfo does (it decides the order of equal victims)."""

    node: Node
    name: str
    allocatable: Resources
    allowed_pods: int
    pods: list[PodInfo] = field(default_factory=list)
    requested: Resources = field(default_factory=Resources)
    non_zero_cpu: int = 0
    non_zero_mem: int = 0
    used_ports: dict[tuple[str, int], dict[str, int]] = field(default_factory=dict)
    pods_with_affinity: int = 0
    pods_with_required_anti_affinity: int = 0
    pvc_ref_counts: dict[str, int] = field(default_factory=dict)  # `namespace/claim` -> pods using it (types.go:NodeInfo.update)
    generation: int = 0
    _lowest: tuple[int, int | None] = field(default=(-1, None), repr=False)

    @classmethod
    def of(cls, node: Node) -> NodeInfo:
        pods_q = node.allocatable.get(PODS)
        return cls(node=node, name=node.name, allocatable=Resources.from_list(node.allocatable),
                   allowed_pods=value(pods_q) if pods_q is not None else 0)

    def add_pod(self, info: PodInfo) -> None:
        self.pods.append(info)
        self._account(info, 1)

    def remove_pod(self, key: str) -> PodInfo | None:
        """Remove a pod by `namespace/name`; returns it, or None if it is not on this node."""
        taken = self.take_pod(key)
        return taken[0] if taken is not None else None

    def take_pod(self, key: str) -> tuple[PodInfo, int] | None:
        """`remove_pod`, also telling the slot the pod held: `put_back` with it is the exact
        inverse, so a what-if that is undone leaves the pods in the order that decides ties."""
        namespace, _, name = key.partition("/")
        for i, info in enumerate(self.pods):
            pod = info.pod  # compared by name first: no key string made per pod scanned
            if pod.name == name and pod.namespace == namespace:
                last = self.pods.pop()
                if i < len(self.pods):
                    self.pods[i] = last
                self._account(info, -1)
                return info, i
        return None

    def put_back(self, info: PodInfo, slot: int) -> None:
        """Undo `take_pod`: the pod moved into `slot` goes back to the end, the pod to its slot."""
        if slot < len(self.pods):
            self.pods.append(self.pods[slot])
            self.pods[slot] = info
        else:
            self.pods.append(info)
        self._account(info, 1)

    def _account(self, info: PodInfo, sign: int) -> None:
        self.requested.add(info.requests, sign)
        self.non_zero_cpu += sign * info.non_zero_cpu
        self.non_zero_mem += sign * info.non_zero_mem
        for ip, proto, port in info.host_ports:
            ips = self.used_ports.setdefault((proto, port), {})
            ips[ip] = ips.get(ip, 0) + sign
            if ips[ip] <= 0:
                del ips[ip]
                if not ips:
                    del self.used_ports[(proto, port)]
        self.pods_with_affinity += sign * info.with_affinity
        self.pods_with_required_anti_affinity += sign * info.with_required_anti_affinity
        for claim in info.pvc_names:
            key = f"{info.pod.namespace}/{claim}"
            count = self.pvc_ref_counts.get(key, 0) + sign
            if count > 0:
                self.pvc_ref_counts[key] = count
            else:
                self.pvc_ref_counts.pop(key, None)
        self.generation += 1

    def lowest_priority(self) -> int | None:
        """The lowest priority of the node's pods (None without pods), kept until its pods
        change: each failing pod's preemption asks it of every node, and the pods that fail
        one after another (their peers, of the same priority) bind nowhere in between."""
        at, lowest = self._lowest
        if at != self.generation:
            lowest = min((p.pod.effective_priority for p in self.pods), default=None)
            self._lowest = (self.generation, lowest)
        return lowest

    def port_conflicts(self, wanted: HostPort) -> bool:
        """node_ports.go:fitsPorts: 0.0.0.0 conflicts with any use of (protocol, port); a specific ip conflicts with
        0.0.0.0 or the same ip."""
        ip, proto, port = wanted
        ips = self.used_ports.get((proto, port))
        if not ips:
            return False
        return ip == "0.0.0.0" or "0.0.0.0" in ips or ip in ips

    def clone(self) -> NodeInfo:
        """A copy whose pod list and aggregates can change without touching this one."""
        return NodeInfo(
            node=self.node, name=self.name, allocatable=self.allocatable, allowed_pods=self.allowed_pods,
            pods=list(self.pods), requested=self.requested.copy(), non_zero_cpu=self.non_zero_cpu,
            non_zero_mem=self.non_zero_mem, used_ports={k: dict(v) for k, v in self.used_ports.items()},
            pods_with_affinity=self.pods_with_affinity,
            pods_with_required_anti_affinity=self.pods_with_required_anti_affinity,
            pvc_ref_counts=dict(self.pvc_ref_counts), generation=self.generation,
        )
