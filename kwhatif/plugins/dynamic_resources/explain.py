"""kwhatif's own account of DynamicResources on one node: which device of which slice each
request would get, and why every other device of the node's pools was not taken. On a node that
cannot allocate the claims, the requests that no device there can serve by themselves come
first, with what to change: the allocator's one verdict (`cannot allocate all claims`) never
names the request, and blaming the devices that are free would point at the wrong one."""

from __future__ import annotations

from kwhatif.api.cel import CelError
from kwhatif.api.dra import Allocation, Device, DeviceSubRequest, ResourceClaim, ResourceSlice
from kwhatif.api.objects import Node
from kwhatif.plugins.dynamic_resources.allocator import attribute_of
from kwhatif.plugins.dynamic_resources.index import DraIndex
from kwhatif.text import listed


def _selector_refusal(index: DraIndex, sub: DeviceSubRequest, s: ResourceSlice, device: Device) -> str | None:
    """Why `device` cannot serve `sub`: the first failing class or request selector, else None."""
    device_class = index.classes.get(sub.device_class_name)
    owned = [(f"class {sub.device_class_name}", e) for e in (device_class.selectors if device_class else ())]
    owned += [("the request's", e) for e in sub.selectors]
    for owner, expression in owned:
        try:
            if not index.selector_matches(expression, s, device):
                return f"{owner} selector {expression} is false"
        except CelError as err:
            return f"{owner} selector {expression} fails: {err}"
    return None


Found = list[tuple[ResourceSlice, Device]]
"""Devices of a node, with the slice that publishes each."""


def _node_devices(index: DraIndex, node: Node) -> Found:
    return [(s, d) for pool in index.pools_for(node) for s in pool.slices for d in s.devices]


def _free(index: DraIndex, devices: Found) -> Found:
    return [(s, d) for s, d in devices if index.allocated.get((s.driver, s.pool, d.name)) is None]


def _matching(index: DraIndex, sub: DeviceSubRequest, devices: Found) -> Found:
    return [(s, d) for s, d in devices if _selector_refusal(index, sub, s, d) is None]


def _constrained(claim: ResourceClaim, base: str, name: str) -> list[str]:
    """The attributes the claim's matchAttribute constraints compare for request `name` (a
    subrequest's `base/sub`, its request's `base`): every device it gets must have them."""
    return [c.match_attribute for c in claim.constraints
            if not c.requests or base in c.requests or name in c.requests]


TAKEN = " of them free, and it asks for"
"""What a request's sentence says when the node has such devices, but too few free (`taken`)."""


def taken(sentence: str) -> bool:
    """Whether one of this module's sentences says the node has devices a request matches but
    too few of them free: a copy of the node, its devices free, may serve it."""
    return TAKEN in sentence and not sentence.split(TAKEN)[0].endswith(" 0 device(s) pass")


def _alternative_problem(index: DraIndex, claim: ResourceClaim, base: str, name: str, sub: DeviceSubRequest,
                         devices: Found) -> str | None:
    """Why this request (or alternative) alone cannot be met on the node, and what to change; None
    when enough free devices pass its selectors and carry the attributes its constraints compare."""
    wanted = sub.count if sub.allocation_mode == "ExactCount" else 1
    selectors = f"class {sub.device_class_name}'s selectors" + (" and its own" if sub.selectors else "")
    which = f"{name}: " if name != base else ""  # a firstAvailable alternative
    matching = _matching(index, sub, devices)
    if not matching:
        return (f"{which}no device of this node passes {selectors}: publish such a device for this node, run "
                "the pod where one is, or change the request")
    free = _free(index, matching)
    if len(free) < wanted:  # too few free, whatever they carry: no attribute is to blame
        return (f"{which}{len(matching)} device(s) pass {selectors}, {len(free)}{TAKEN} {wanted}: lower its count, "
                "or free devices held by other claims")
    for attribute in _constrained(claim, base, name):
        having = [(s, d) for s, d in free if attribute_of(d, s.driver, attribute) is not None]
        if len(having) < wanted:
            return (f"{which}{len(having)} of its {len(free)} free matching device(s) have attribute {attribute}, "
                    f"which a matchAttribute constraint of the claim compares, and it asks for {wanted}: publish "
                    "the attribute on the devices or leave the request out of the constraint")
        free = having
    return None


def request_problems(index: DraIndex, claims: list[ResourceClaim], devices: Found) -> dict[str, str]:
    """The requests no alternative of which can be met on the node by itself — the reason the
    allocator fails there, whatever the other requests do —, as `request <r> of ResourceClaim
    <claim>` → the sentence that says why and what to change."""
    out = {}
    for claim in claims:
        for request in claim.requests:
            problems = [_alternative_problem(index, claim, request.name, name, sub, devices)
                        for name, sub in request.alternatives()]
            if problems and all(problems):
                who = f"request {request.name} of ResourceClaim {claim.key}"
                out[who] = f"{who} cannot be met on this node: " + "; ".join(p for p in problems if p)
    return out


def _unused_match(claim: ResourceClaim, request: str, s: ResourceSlice, device: Device, feasible: bool,
                  blocked: list[str]) -> str:
    """Why a device that passes a request's selectors was not taken: on a feasible node other
    devices sufficed; on a rejected one, another request that cannot be met at all (`blocked`,
    said above), a matchAttribute constraint over the request, or too few such devices free for
    everything the claims ask together."""
    head = f"matches request {request} of ResourceClaim {claim.key}"
    if feasible:
        return f"{head}, not needed: other devices came first"
    base = request.split("/")[0]
    own = f"request {base} of ResourceClaim {claim.key}"
    if blocked and own not in blocked:
        return f"{head}, not what stops this node: {listed(blocked)} cannot be met here (above)"
    attributes = _constrained(claim, base, request)
    if own in blocked:  # the constraint's words only where this device lacks what it compares
        attributes = [a for a in attributes if attribute_of(device, s.driver, a) is None]
        if not attributes:
            return f"{head}, but {own} cannot be met here (above)"
    for attribute in attributes:
        value = attribute_of(device, s.driver, attribute)
        has = "no such attribute" if value is None else f"{attribute}={getattr(value, 'text', value)}"
        return (f"{head}, but no choice of devices gave every request of the claim the same "
                f"{attribute} (this device: {has})")
    return (f"{head}, but the requests of the claims together ask for more such devices than are free: "
            "lower a count or free devices held by other claims")


def _refusal(index: DraIndex, claims: list[ResourceClaim], s: ResourceSlice, device: Device, feasible: bool,
             blocked: list[str]) -> str:
    holder = index.allocated.get((s.driver, s.pool, device.name))
    if holder is not None:
        return f"allocated to ResourceClaim {holder}"
    reasons = []
    for claim in claims:
        for name, sub in (a for request in claim.requests for a in request.alternatives()):
            why = _selector_refusal(index, sub, s, device)
            if why is None:
                return _unused_match(claim, name, s, device, feasible, blocked)
            reasons.append(f"request {name}: {why}")
    return "; ".join(reasons) or "no claim to allocate"


def devices_short(index: DraIndex, node: Node, claims: list[ResourceClaim]) -> int:
    """How many more devices the node would need: per request for exact counts, the count asked
    beyond the node's free devices that pass its selectors (of a `firstAvailable` request, its
    alternative nearest to fitting). A lower bound: requests sharing devices, constraints and
    `All` requests are not counted. What a summary over thousands of rejected nodes can spread."""
    devices = _free(index, _node_devices(index, node))

    def missing(sub: DeviceSubRequest) -> int:
        return max(sub.count - len(_matching(index, sub, devices)), 0)
    short = 0
    for claim in claims:
        for request in claim.requests:
            subs = [sub for _, sub in request.alternatives()]
            if subs and all(sub.allocation_mode == "ExactCount" for sub in subs):
                short += min(missing(sub) for sub in subs)
    return short


def explain_devices(index: DraIndex, node: Node, claims: list[ResourceClaim],
                    allocations: list[Allocation] | None) -> list[str]:
    """On a rejected node, first each request that cannot be met there at all
    (`request_problems`); then one sentence per device chosen, and one per device refused."""
    chosen: dict[tuple[str, str, str], str] = {}
    for claim, allocation in zip(claims, allocations or []):
        for r in allocation.results:
            chosen[(r.driver, r.pool, r.device)] = f"ResourceClaim {claim.key} request {r.request}"
    devices = _node_devices(index, node)
    feasible = allocations is not None
    problems = {} if feasible else request_problems(index, claims, devices)
    blocked, out = list(problems), list(problems.values())
    for s, device in devices:
        who = chosen.get((s.driver, s.pool, device.name))
        if who is not None:
            out.append(f"{who} would get device {device.name} of ResourceSlice {s.name} "
                       f"(driver {s.driver}, pool {s.pool})")
        else:
            out.append(f"device {device.name} of ResourceSlice {s.name}: "
                       f"{_refusal(index, claims, s, device, feasible, blocked)}")
    return out
