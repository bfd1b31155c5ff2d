"""The structured-parameters allocator of v1.34.1 with its default features (structured/
internal/stable/allocator_stable.go, pools_stable.go): a depth-first search over the claims'
requests that takes the first devices that are free, pass the class and request CEL selectors
and keep every `matchAttribute` constraint, backtracking when a later request cannot be met.

Where Go iterates a map (the pools), kwhatif goes in (driver, pool) order and a pool's slices by
name, as the reference cases do; devices in the order their slice lists them."""

from __future__ import annotations

from dataclasses import dataclass, field

from kwhatif.api.affinity import NodeSelector, NodeSelectorTerm
from kwhatif.api.cel import CelCompileError, CelError
from kwhatif.api.dra import (
    Allocation, Device, DeviceConstraint, DeviceRequest, DeviceResult, DeviceSubRequest, ResourceClaim, ResourceSlice,
)
from kwhatif.api.objects import Node
from kwhatif.api.selectors import Requirement
from kwhatif.plugins.dynamic_resources.index import DeviceID, DraIndex
from kwhatif.plugins.dynamic_resources.selectors import qualified

ALLOCATION_RESULTS_MAX_SIZE = 32


class AllocatorError(Exception):
    """Something wrong with a claim, class or pool: Filter returns an Error (scheduling aborts)."""


@dataclass(frozen=True)
class Candidate:
    id: DeviceID
    device: Device
    slice: ResourceSlice


@dataclass
class RequestData:
    """One request (or one sub-request of a `firstAvailable` list) ready to allocate."""

    claim_index: int
    parent: str  # the request's name for a sub-request, "" otherwise
    request: DeviceSubRequest
    class_selectors: tuple[str, ...]
    num_devices: int = 0
    all_devices: list[Candidate] = field(default_factory=list)

    @property
    def result_name(self) -> str:
        return f"{self.parent}/{self.request.name}" if self.parent else self.request.name


def attribute_of(device: Device, driver: str, name: str) -> object | None:
    """lookupAttribute: a fully qualified name, or the bare identifier within the driver's domain."""
    if name in device.attributes:
        return device.attributes[name]
    domain, ident = qualified(driver, name)
    return device.attributes.get(ident) if domain == driver else None


class MatchAttribute:
    """matchAttributeConstraint: every device of the named requests has the same value."""

    def __init__(self, constraint: DeviceConstraint) -> None:
        self.requests = frozenset(constraint.requests)
        self.name = constraint.match_attribute
        self.value: object | None = None
        self.count = 0

    def _applies(self, base: str, sub: str) -> bool:
        if not self.requests:
            return True
        return base in self.requests or (bool(sub) and f"{base}/{sub}" in self.requests)

    def add(self, base: str, sub: str, c: Candidate) -> bool:
        if not self._applies(base, sub):
            return True
        value = attribute_of(c.device, c.id[0], self.name)
        if value is None:
            return False
        if self.count and not _same(value, self.value):
            return False
        self.value = value if not self.count else self.value
        self.count += 1
        return True

    def remove(self, base: str, sub: str, c: Candidate) -> None:
        if self._applies(base, sub):
            self.count -= 1
            if self.count == 0:
                self.value = None


def _same(a: object, b: object) -> bool:
    """Equal values of one type (a bool never equals an int, a version only a version)."""
    return type(a) is type(b) and a == b


class Allocator:
    """One Allocate call for one node (allocator.Allocate)."""

    def __init__(self, index: DraIndex, node: Node, claims: list[ResourceClaim]) -> None:
        self.index = index
        self.node = node
        self.claims = claims
        self.pools = index.pools_for(node)
        self.in_use = index.allocated
        self.allocating: dict[DeviceID, set[int]] = {}
        self.results: list[list[tuple[RequestData, Candidate]]] = [[] for _ in claims]
        self.constraints = [[MatchAttribute(c) for c in claim.constraints] for claim in claims]
        self.requests: list[list[list[RequestData]]] = []

    # Preparation --------------------------------------------------------------------------------
    def _validate_request(self, claim_index: int, claim: ResourceClaim, request: DeviceRequest) -> list[RequestData]:
        """The alternatives of a request, each ready to allocate."""
        parent = "" if request.exactly is not None else request.name
        return [self._request_data(claim_index, claim, parent, sub) for _, sub in request.alternatives()]

    def _request_data(self, claim_index: int, claim: ResourceClaim, parent: str, sub: DeviceSubRequest) -> RequestData:
        name = sub.name  # request.name(): a subrequest's own name, not parent/sub (deviceSubRequestAccessor)
        device_class = self.index.classes.get(sub.device_class_name)
        if device_class is None:
            raise AllocatorError(f"claim {claim.key}, request {name}: could not retrieve device class "
                                 f'{sub.device_class_name}: deviceclass.resource.k8s.io "{sub.device_class_name}" not found')
        data = RequestData(claim_index, parent, sub, device_class.selectors)
        if sub.allocation_mode == "ExactCount":
            data.num_devices = sub.count
            return data
        for pool in self.pools:
            if pool.incomplete:
                raise AllocatorError(f"claim {claim.key}, request {name}: asks for all devices, but resource pool "
                                     f"{pool.driver}/{pool.name} is currently being updated")
            if pool.invalid_reason:
                raise AllocatorError(f"claim {claim.key}, request {name}: asks for all devices, but resource pool "
                                     f"{pool.driver}/{pool.name} is currently invalid")
            for s in pool.slices:
                for device in s.devices:
                    c = Candidate((s.driver, s.pool, device.name), device, s)
                    if self.selectable(data, c):
                        data.all_devices.append(c)
        data.num_devices = len(data.all_devices)
        return data

    def selectable(self, data: RequestData, c: Candidate) -> bool:
        """isSelectable: the class's selectors, then the request's, all true."""
        for selectors, owner in ((data.class_selectors, f"class {data.request.device_class_name}"),
                                 (data.request.selectors, f"claim {self.claims[data.claim_index].key}")):
            for i, expression in enumerate(selectors):
                try:
                    if not self.index.selector_matches(expression, c.slice, c.device):
                        return False
                except CelError as err:
                    stage = "compile" if isinstance(err, CelCompileError) else "runtime"
                    raise AllocatorError(f"{owner}: selector #{i}: CEL {stage} error: {err}") from None
        return True

    # Search -------------------------------------------------------------------------------------
    def allocate(self) -> list[Allocation] | None:
        """The allocations of all claims on this node, or None when there is none; AllocatorError
        for a claim, class or pool that cannot be worked with."""
        if not self.pools and all(claim.requests for claim in self.claims):
            # Most nodes of a cluster publish no devices: every request needs one at least, so
            # only the claim-size check (All counts no device here) can still say something.
            self._check_sizes([[[0 if sub.allocation_mode == "All" else sub.count for _, sub in r.alternatives()]
                                for r in claim.requests] for claim in self.claims])
            return None
        self.requests = [[self._validate_request(i, claim, r) for r in claim.requests]
                         for i, claim in enumerate(self.claims)]
        self._check_sizes([[[d.num_devices for d in alternatives] for alternatives in requests]
                           for requests in self.requests])
        if not self._claim(0):
            return None
        return [Allocation(tuple(DeviceResult(d.result_name, c.id[0], c.id[1], c.id[2], d.request.admin_access)
                                 for d, c in found), self._node_selector([c for _, c in found]))
                for found in self.results]

    def _check_sizes(self, counts: list[list[list[int]]]) -> None:
        """A claim may not ask for more than 32 devices, counting the smallest alternative of
        each `firstAvailable` request (allocator.Allocate)."""
        for claim, requests in zip(self.claims, counts):
            wanted = sum(min(alternatives) for alternatives in requests if alternatives)
            if wanted > ALLOCATION_RESULTS_MAX_SIZE:
                raise AllocatorError(f"claim {claim.key}: number of requested devices {wanted} exceeds the claim "
                                     f"limit of {ALLOCATION_RESULTS_MAX_SIZE}")

    def _claim(self, claim_index: int) -> bool:
        if claim_index >= len(self.claims):
            return True
        return self._request(claim_index, 0)

    def _request(self, claim_index: int, request_index: int) -> bool:
        if request_index >= len(self.requests[claim_index]):
            return self._claim(claim_index + 1)
        for data in self.requests[claim_index][request_index]:  # firstAvailable: the first that works
            if self._device(data, request_index, 0):
                return True
        return False

    def _device(self, data: RequestData, request_index: int, device_index: int) -> bool:
        """Allocate device number `device_index` of a request, then the rest of the search."""
        if data.request.allocation_mode == "All" and not data.all_devices:
            return False
        if device_index >= data.num_devices:
            return self._request(data.claim_index, request_index + 1)
        if len(self.results[data.claim_index]) + data.num_devices - device_index > ALLOCATION_RESULTS_MAX_SIZE:
            return False
        if data.request.allocation_mode == "All":
            return self._try(data, request_index, device_index, data.all_devices[device_index], must=True)
        for pool in self.pools:
            if pool.invalid_reason:
                raise AllocatorError(f"pool {pool.name} is invalid: {pool.invalid_reason}")
            for s in pool.slices:
                for device in s.devices:
                    c = Candidate((s.driver, s.pool, device.name), device, s)
                    if not self._free(data, c.id) or not self.selectable(data, c):
                        continue
                    if self._try(data, request_index, device_index, c, must=False):
                        return True
        return False

    def _free(self, data: RequestData, device_id: DeviceID) -> bool:
        holders = self.allocating.get(device_id, set())
        if data.request.admin_access:
            return data.claim_index not in holders
        return device_id not in self.in_use and not holders

    def _try(self, data: RequestData, request_index: int, device_index: int, c: Candidate, must: bool) -> bool:
        """allocateDevice, then continue; rolls back when the rest of the search fails."""
        if not self._free(data, c.id):
            return False
        base, sub = (data.parent, data.request.name) if data.parent else (data.request.name, "")
        constraints = self.constraints[data.claim_index]
        for i, constraint in enumerate(constraints):
            if not constraint.add(base, sub, c):
                if must:
                    raise AllocatorError(f"claim {self.claims[data.claim_index].key}, request {data.result_name}: cannot "
                                         f"add device {'/'.join(c.id)} because a claim constraint would not be satisfied")
                for earlier in constraints[:i]:
                    earlier.remove(base, sub, c)
                return False
        self.allocating.setdefault(c.id, set()).add(data.claim_index)
        self.results[data.claim_index].append((data, c))
        if self._device(data, request_index, device_index + 1):
            return True
        self.results[data.claim_index].pop()
        self.allocating[c.id].discard(data.claim_index)
        for constraint in constraints:
            constraint.remove(base, sub, c)
        return False

    def _node_selector(self, found: list[Candidate]) -> NodeSelector | None:
        """createNodeSelector: a node-local device pins the claim to that node; otherwise the
        slices' node selectors are combined; all-nodes devices add nothing."""
        expressions: list[Requirement] = []
        fields: list[Requirement] = []
        for c in found:
            if c.slice.node_name is not None:
                return NodeSelector((NodeSelectorTerm((), (Requirement("metadata.name", "In", (c.slice.node_name,)),)),))
            if c.slice.node_selector is not None and c.slice.node_selector.terms:
                term = c.slice.node_selector.terms[0]
                expressions.extend(term.match_expressions)
                fields.extend(term.match_fields)
        if not expressions and not fields:
            return None
        return NodeSelector((NodeSelectorTerm(tuple(expressions), tuple(fields)),))
