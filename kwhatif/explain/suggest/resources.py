"""NodeResourcesFit: lower the one container's request to what the nearest node has free."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from kwhatif.api.objects import Container, Pod
from kwhatif.api.quantity import format_amount
from kwhatif.explain.pod import NodeVerdict
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
        if lowered <= 0:
            continue
        variant = _with_request(pod, index, resource, lowered)
        amount = quantity(resource, lowered)
        summary = (f"lower container {container.name}'s {resource} request to {amount} "
                   f"(by {format_amount(resource, short)}): it then fits on {node}")
        # The whole requests map is set ("add" creates or replaces it): a container whose requests
        # were defaulted from its limits has no requests to replace one of.
        requests = {name: quantity(name, value if name != resource else lowered)
                    for name, value in sorted(container.requests.items())}
        change = pod_change(pod, [{"op": "add", "path": f"/spec/containers/{index}/resources/requests",
                                   "value": requests}])
        out.append((Suggestion(summary, [change]), Variant(variant)))
    return out


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
    """The index of the one regular container requesting `resource` (init containers and
    overhead also count towards the pod's request; with them, or with several containers, which
    one to lower is the owner's call)."""
    asking = [i for i, c in enumerate(pod.containers) if c.requests.get(resource)]
    others = any(c.requests.get(resource) for c in pod.init_containers) or (pod.overhead or {}).get(resource)
    return asking[0] if len(asking) == 1 and not others else None


def _with_request(pod: Pod, index: int, resource: str, amount: Fraction) -> Pod:
    container: Container = pod.containers[index]
    lowered = replace(container, requests={**container.requests, resource: amount})
    return pod.evolve(containers=pod.containers[:index] + (lowered,) + pod.containers[index + 1:])
