"""kwhatif's own account of DynamicResources on one node: which device of which slice each
request would get, and why every other device of the node's pools was not taken."""

from __future__ import annotations

from kwhatif.api.dra import Allocation, Device, DeviceSubRequest, ResourceClaim, ResourceSlice
from kwhatif.api.objects import Node
from kwhatif.plugins.dynamic_resources.allocator import attribute_of
from kwhatif.plugins.dynamic_resources.index import DraIndex
from kwhatif.api.cel import CelError


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


def _unused_match(claim: ResourceClaim, request: str, s: ResourceSlice, device: Device, feasible: bool) -> str:
    """Why a device that passes a request's selectors was not taken: on a feasible node other
    devices sufficed; on a rejected one, a matchAttribute constraint over the request, or too few
    such devices free for everything the claims ask."""
    head = f"matches request {request} of ResourceClaim {claim.key}"
    if feasible:
        return f"{head}, not needed: other devices came first"
    base = request.split("/")[0]
    for c in claim.constraints:
        if not c.requests or base in c.requests or request in c.requests:
            value = attribute_of(device, s.driver, c.match_attribute)
            has = "no such attribute" if value is None else f"{c.match_attribute}={getattr(value, 'text', value)}"
            return (f"{head}, but no choice of devices gave every request of the claim the same "
                    f"{c.match_attribute} (this device: {has})")
    return f"{head}, but fewer such devices are free than the claims ask for"


def _refusal(index: DraIndex, claims: list[ResourceClaim], s: ResourceSlice, device: Device, feasible: bool) -> str:
    holder = index.allocated.get((s.driver, s.pool, device.name))
    if holder is not None:
        return f"allocated to ResourceClaim {holder}"
    reasons = []
    for claim in claims:
        for name, sub in (a for request in claim.requests for a in request.alternatives()):
            why = _selector_refusal(index, sub, s, device)
            if why is None:
                return _unused_match(claim, name, s, device, feasible)
            reasons.append(f"request {name}: {why}")
    return "; ".join(reasons) or "no claim to allocate"


def devices_short(index: DraIndex, node: Node, claims: list[ResourceClaim]) -> int:
    """How many more devices the node would need: per request for exact counts, the count asked
    beyond the node's free devices that pass its selectors (of a `firstAvailable` request, its
    alternative nearest to fitting). A lower bound: requests sharing devices, constraints and
    `All` requests are not counted. What a summary over thousands of rejected nodes can spread."""
    devices = [(s, d) for pool in index.pools_for(node) for s in pool.slices for d in s.devices
               if index.allocated.get((s.driver, s.pool, d.name)) is None]

    def missing(sub: DeviceSubRequest) -> int:
        return max(sub.count - sum(1 for s, d in devices if _selector_refusal(index, sub, s, d) is None), 0)
    short = 0
    for claim in claims:
        for request in claim.requests:
            subs = [sub for _, sub in request.alternatives()]
            if subs and all(sub.allocation_mode == "ExactCount" for sub in subs):
                short += min(missing(sub) for sub in subs)
    return short


def explain_devices(index: DraIndex, node: Node, claims: list[ResourceClaim],
                    allocations: list[Allocation] | None) -> list[str]:
    """One sentence per device chosen, then one per device refused."""
    chosen: dict[tuple[str, str, str], str] = {}
    for claim, allocation in zip(claims, allocations or []):
        for r in allocation.results:
            chosen[(r.driver, r.pool, r.device)] = f"ResourceClaim {claim.key} request {r.request}"
    out = []
    for pool in index.pools_for(node):
        for s in pool.slices:
            for device in s.devices:
                who = chosen.get((s.driver, s.pool, device.name))
                if who is not None:
                    out.append(f"{who} would get device {device.name} of ResourceSlice {s.name} "
                               f"(driver {s.driver}, pool {s.pool})")
                else:
                    out.append(f"device {device.name} of ResourceSlice {s.name}: "
                               f"{_refusal(index, claims, s, device, allocations is not None)}")
    return out
