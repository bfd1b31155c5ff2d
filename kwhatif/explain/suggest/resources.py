"""NodeResourcesFit: lower the one container's request (or the init container's that sets the pod's)
to what the nearest node has free."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from kwhatif.api.objects import Container, LimitRange, Pod
from kwhatif.api.quantity import format_amount
from kwhatif.explain.pod import NodeVerdict
from kwhatif.load.admission import AdmissionRejected, admit_limit_ranges, validate_limit_ranges
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
        by = Fraction(short, scale(resource))
        slot = _container_to_lower(defaulted, resource, by)
        if slot is None:
            continue
        field, index = slot
        container, asked = _containers(pod, field)[index], _containers(defaulted, field)[index]
        lowered = asked.requests[resource] - by
        # An extended resource (or hugepages) cannot be overcommitted: its limit must equal the
        # request (validation.go:ValidateResourceRequirements), so it is lowered alongside.
        with_limit = resource in asked.limits and not overcommit_allowed(resource)
        variant = _with_request(pod, field, index, resource, lowered, with_limit)
        if not _limit_ranges_admit(variant, limit_ranges):
            continue
        amount = quantity(resource, lowered)
        what = "request and limit" if with_limit else "request"
        named = f"{'init container' if field == INIT else 'container'} {container.name}"
        if resource in container.requests:
            summary = f"lower {named}'s {resource} {what} to {amount} (by {format_amount(resource, short)})"
        else:
            summary = (f"set {named}'s {resource} {what} to {amount} (it states none, and its namespace's "
                       f"LimitRange defaults it to {quantity(resource, asked.requests[resource])})")
        maps = {key: _lowered_map(getattr(container, key), resource, lowered)
                for key in (("requests", "limits") if with_limit else ("requests",))}
        change = pod_change(pod, _resources_ops(pod, container, f"/spec/{field}/{index}/resources", maps))
        out.append((Suggestion(f"{summary}: it then fits on {node}", [change]), Variant(variant)))
    return out


def _limit_ranges_admit(pod: Pod, limit_ranges: list[LimitRange]) -> bool:
    """Whether LimitRanger would let the changed pod be created (a request under the namespace's
    min is refused): the pod is made again from the changed manifest, and a pod of the snapshot is
    not admitted again by the re-run."""
    try:
        validate_limit_ranges(admit_limit_ranges(pod, limit_ranges), limit_ranges)
    except AdmissionRejected:
        return False
    return True


INIT = "initContainers"
_FIELDS = {"containers": "containers", INIT: "init_containers"}
"""The manifest's field of a pod's containers -> the Pod's."""


def _containers(pod: Pod, field: str) -> tuple[Container, ...]:
    return tuple(getattr(pod, _FIELDS[field]))


def _resources_ops(pod: Pod, container: Container, path: str, maps: dict[str, dict[str, str]]) -> list[dict]:
    """The JSON patch setting the container's resource maps. Each map is set whole ("add" creates
    or replaces it: a container whose requests were defaulted from its limits has no requests to
    replace one of) — under `resources`, unless the container states no amount at all and the
    pod claims no device: its manifest may have no `resources` to add a map under, so `resources`
    itself is set (with claims, it holds the container's `claims`, which that would drop)."""
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


def _container_to_lower(pod: Pod, resource: str, by: Fraction) -> tuple[str, int] | None:
    """Which container to lower so that the pod asks `by` less of `resource` (resource
    helpers.go:PodRequests: the larger of the running pod — containers and sidecars — and each
    init step — a plain init container with the sidecars started before it, a sidecar with those
    and itself): the one regular container asking for it while the running pod stays the larger;
    else the plain init container whose step alone is that much larger than every other. None
    otherwise (with several asking, which one to lower is the owner's call; a sidecar or the
    overhead adds to the pod's request whatever a container asks)."""
    started = Fraction(0)
    steps: list[tuple[Fraction, int | None]] = []  # (the step's request, the plain init container making it)
    for i, c in enumerate(pod.init_containers):
        own = c.requests.get(resource, Fraction(0))
        started += own if c.is_sidecar else 0
        steps.append((started, None) if c.is_sidecar else (own + started, i))
    running = sum((c.requests.get(resource, Fraction(0)) for c in pod.containers), Fraction(0)) + started
    asking = [i for i, c in enumerate(pod.containers) if c.requests.get(resource)]
    peak = max((step for step, _ in steps), default=Fraction(0))
    if len(asking) == 1 and running - by >= peak and pod.containers[asking[0]].requests[resource] > by:
        return "containers", asking[0]
    for n, (step, index) in enumerate(steps):
        others = max([running] + [s for m, (s, _) in enumerate(steps) if m != n])
        if index is not None and step - by >= others and pod.init_containers[index].requests.get(resource, 0) > by:
            return INIT, index
    return None


def _with_request(pod: Pod, field: str, index: int, resource: str, amount: Fraction, with_limit: bool) -> Pod:
    containers = _containers(pod, field)
    container = containers[index]
    limits = {**container.limits, resource: amount} if with_limit else container.limits
    lowered = replace(container, requests={**container.requests, resource: amount}, limits=limits)
    return pod.evolve(**{_FIELDS[field]: containers[:index] + (lowered,) + containers[index + 1:]})
