"""NodeResourcesFit: lower the one container's request to what the nearest node has free."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from kwhatif.api.objects import Container, LimitRange, Pod
from kwhatif.api.quantity import format_amount
from kwhatif.explain.pod import NodeVerdict
from kwhatif.load.admission import admit_limit_ranges
from kwhatif.load.pods import overcommit_allowed
from kwhatif.explain.suggest.model import FIT, Candidate, Suggestion, Variant, pod_change, quantity, rejected_alone, scale


def lower_requests(pod: Pod, verdicts: list[NodeVerdict], limit_ranges: list[LimitRange]) -> list[Candidate]:
    """Per resource: the node short by the least of it, and nothing else (no other reason, no
    other filter failing); the one container asking for that resource asks that much less. A
    request the manifest leaves to its namespace's LimitRange (defaultRequest) is set in the
    manifest: the pod asks what LimitRanger gave it (`admit_limit_ranges`), and the page says so —
    "pod requests 2000m" of a container that states none is the LimitRange's doing."""
    defaulted = admit_limit_ranges(pod, limit_ranges)
    out: list[Candidate] = []
    for resource, (node, short) in sorted(_nearest_nodes(verdicts).items(), key=lambda kv: kv[1][1]):
        index = _only_container_asking(defaulted, resource)
        if index is None:
            continue
        container, asked = pod.containers[index], defaulted.containers[index]
        by = Fraction(short, scale(resource))
        lowered = asked.requests[resource] - by
        if lowered <= 0 or not _pod_asks_as_much_less(defaulted, resource, by):
            continue
        # An extended resource (or hugepages) cannot be overcommitted: its limit must equal the
        # request (validation.go:ValidateResourceRequirements), so it is lowered alongside.
        with_limit = resource in asked.limits and not overcommit_allowed(resource)
        variant = _with_request(pod, index, resource, lowered, with_limit)
        amount = quantity(resource, lowered)
        what = "request and limit" if with_limit else "request"
        if resource in container.requests:
            summary = f"lower container {container.name}'s {resource} {what} to {amount} (by {format_amount(resource, short)})"
        else:
            summary = (f"set container {container.name}'s {resource} {what} to {amount} (it states none, and its "
                       f"namespace's LimitRange defaults it to {quantity(resource, asked.requests[resource])})")
        maps = {key: _lowered_map(getattr(container, key), resource, lowered)
                for key in (("requests", "limits") if with_limit else ("requests",))}
        change = pod_change(pod, _resources_ops(pod, container, index, maps))
        out.append((Suggestion(f"{summary}: it then fits on {node}", [change]), Variant(variant)))
    return out


def _resources_ops(pod: Pod, container: Container, index: int, maps: dict[str, dict[str, str]]) -> list[dict]:
    """The JSON patch setting the container's resource maps. Each map is set whole ("add" creates
    or replaces it: a container whose requests were defaulted from its limits has no requests to
    replace one of) — under `resources`, unless the container states no amount at all and the
    pod claims no device: its manifest may have no `resources` to add a map under, so `resources`
    itself is set (with claims, it holds the container's `claims`, which that would drop)."""
    path = f"/spec/containers/{index}/resources"
    if not container.requests and not container.limits and not pod.resource_claims:
        return [{"op": "add", "path": path, "value": maps}]
    return [{"op": "add", "path": f"{path}/{key}", "value": value} for key, value in maps.items()]


def _lowered_map(amounts: dict[str, Fraction], resource: str, lowered: Fraction) -> dict[str, str]:
    return {name: quantity(name, value) for name, value in sorted({**amounts, resource: lowered}.items())}


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
    """The index of the one regular container requesting `resource` (with several, which one to
    lower is the owner's call; a sidecar — a mesh proxy, a log shipper — or the overhead adds to
    the pod's request whatever the container asks)."""
    asking = [i for i, c in enumerate(pod.containers) if c.requests.get(resource)]
    return asking[0] if len(asking) == 1 else None


def _pod_asks_as_much_less(pod: Pod, resource: str, by: Fraction) -> bool:
    """resource helpers.go:PodRequests: the larger of the running pod (containers and sidecars)
    and each init step (a plain init container with the sidecars started before it, a sidecar
    with those and itself). Lowering a container lowers the first alone: the pod asks `by` less
    only while it stays the larger."""
    started = peak = Fraction(0)
    for c in pod.init_containers:
        own = c.requests.get(resource, Fraction(0))
        started += own if c.is_sidecar else 0
        peak = max(peak, started if c.is_sidecar else own + started)
    running = sum((c.requests.get(resource, Fraction(0)) for c in pod.containers), Fraction(0)) + started
    return running - by >= peak

def _with_request(pod: Pod, index: int, resource: str, amount: Fraction, with_limit: bool) -> Pod:
    container: Container = pod.containers[index]
    limits = {**container.limits, resource: amount} if with_limit else container.limits
    lowered = replace(container, requests={**container.requests, resource: amount}, limits=limits)
    return pod.evolve(containers=pod.containers[:index] + (lowered,) + pod.containers[index + 1:])
