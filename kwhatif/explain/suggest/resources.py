"""NodeResourcesFit: lower the one container's request to what the nearest node has free."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from kwhatif.api.objects import Container, Pod
from kwhatif.api.quantity import format_amount
from kwhatif.explain.pod import NodeVerdict
from kwhatif.load.pods import overcommit_allowed
from kwhatif.explain.suggest.model import FIT, Candidate, Suggestion, Variant, pod_change, quantity, rejected_alone, scale


def lower_requests(pod: Pod, verdicts: list[NodeVerdict]) -> list[Candidate]:
    """Per resource: the node short by the least of it, and nothing else (no other reason, no
    other filter failing); the one container asking for that resource asks that much less."""
    out: list[Candidate] = []
    for resource, (node, short) in sorted(_nearest_nodes(verdicts).items(), key=lambda kv: kv[1][1]):
        index = _only_container_asking(pod, resource)
        if index is None:
            continue
        container = pod.containers[index]
        lowered = container.requests[resource] - Fraction(short, scale(resource))
        if lowered <= 0 or lowered < _init_peak(pod, resource):
            continue
        # An extended resource (or hugepages) cannot be overcommitted: its limit must equal the
        # request (validation.go:ValidateResourceRequirements), so it is lowered alongside.
        with_limit = resource in container.limits and not overcommit_allowed(resource)
        variant = _with_request(pod, index, resource, lowered, with_limit)
        amount = quantity(resource, lowered)
        what = "request and limit" if with_limit else "request"
        summary = (f"lower container {container.name}'s {resource} {what} to {amount} "
                   f"(by {format_amount(resource, short)}): it then fits on {node}")
        # The whole map is set ("add" creates or replaces it): a container whose requests were
        # defaulted from its limits has no requests to replace one of.
        fields = ("requests", "limits") if with_limit else ("requests",)
        change = pod_change(pod, [{"op": "add", "path": f"/spec/containers/{index}/resources/{key}",
                                   "value": _lowered_map(getattr(container, key), resource, lowered)}
                                  for key in fields])
        out.append((Suggestion(summary, [change]), Variant(variant)))
    return out


def _lowered_map(amounts: dict[str, Fraction], resource: str, lowered: Fraction) -> dict[str, str]:
    return {name: quantity(name, value if name != resource else lowered) for name, value in sorted(amounts.items())}


def _nearest_nodes(verdicts: list[NodeVerdict]) -> dict[str, tuple[str, int]]:
    """resource -> (node, shortfall) over the nodes NodeResourcesFit alone rejects for that one
    resource: the smallest shortfall, then the smallest node name."""
    best: dict[str, tuple[str, int]] = {}
    for v in rejected_alone(verdicts, FIT):
        if len(v.measures) != 1:
            continue
        [(resource, short)] = v.measures.items()
        if resource == "pods":
            continue
        if resource not in best or (short, v.node) < (best[resource][1], best[resource][0]):
            best[resource] = (v.node, short)
    return best


def _only_container_asking(pod: Pod, resource: str) -> int | None:
    """The index of the one regular container requesting `resource` (sidecars and overhead also
    count towards the pod's request; with them, or with several containers, which one to lower
    is the owner's call). Plain init containers run before it, alone: `_init_peak`."""
    asking = [i for i, c in enumerate(pod.containers) if c.requests.get(resource)]
    sidecars = any(c.requests.get(resource) for c in pod.init_containers if c.restart_policy == "Always")
    others = sidecars or (pod.overhead or {}).get(resource)
    return asking[0] if len(asking) == 1 and not others else None


def _init_peak(pod: Pod, resource: str) -> Fraction:
    """The largest plain init container's request: the pod asks for at least that much
    (resource helpers.go:PodRequests: max(containers, each init container)), so a container
    lowered below it does not lower the pod's request by the amount said."""
    return max((c.requests.get(resource, Fraction(0)) for c in pod.init_containers), default=Fraction(0))


def _with_request(pod: Pod, index: int, resource: str, amount: Fraction, with_limit: bool) -> Pod:
    container: Container = pod.containers[index]
    limits = {**container.limits, resource: amount} if with_limit else container.limits
    lowered = replace(container, requests={**container.requests, resource: amount}, limits=limits)
    return pod.evolve(containers=pod.containers[:index] + (lowered,) + pod.containers[index + 1:])
