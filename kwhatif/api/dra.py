"""Dynamic Resource Allocation objects of resource.k8s.io/v1 as the scheduler reads them:
DeviceClass, ResourceSlice, ResourceClaim and ResourceClaimTemplate (only the fields the
DynamicResources plugin and its structured allocator consult)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Union

from kwhatif.api.affinity import NodeSelector
from kwhatif.api.objects import Pod
from kwhatif.errors import Source

AttributeValue = Union[bool, int, str]
"""A device attribute: `bool`, `int`, `string` or `version` (a version is kept as `Version`)."""


@dataclass(frozen=True, slots=True)
class Version:
    """A semantic version attribute (`version:` in a slice), compared as semver."""

    text: str


@dataclass(frozen=True, slots=True)
class Device:
    """One device of a slice: its attributes and capacities keyed by their qualified name as
    written (an unqualified name belongs to the driver's domain)."""

    name: str
    attributes: dict[str, AttributeValue | Version] = field(default_factory=dict)
    capacity: dict[str, Fraction] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ResourceSlice:
    """Devices of one pool published by one driver, for one node (`node_name`), every node
    (`all_nodes`) or the nodes a `node_selector` matches."""

    name: str
    driver: str
    pool: str
    generation: int
    slice_count: int
    devices: tuple[Device, ...]
    node_name: str | None = None
    all_nodes: bool = False
    node_selector: NodeSelector | None = None
    source: Source | None = None


@dataclass(frozen=True, slots=True)
class DeviceClass:
    """A class: CEL selectors every device allocated through it must pass."""

    name: str
    selectors: tuple[str, ...] = ()
    source: Source | None = None


@dataclass(frozen=True, slots=True)
class DeviceSubRequest:
    """One alternative of a `firstAvailable` list, or the `exactly` part of a request."""

    name: str
    device_class_name: str
    selectors: tuple[str, ...] = ()
    allocation_mode: str = "ExactCount"
    count: int = 1
    admin_access: bool = False


@dataclass(frozen=True, slots=True)
class DeviceRequest:
    """A named request: `exactly` one kind of device, or the first of `first_available` that works."""

    name: str
    exactly: DeviceSubRequest | None = None
    first_available: tuple[DeviceSubRequest, ...] = ()

    def alternatives(self) -> tuple[tuple[str, DeviceSubRequest], ...]:
        """(name in allocation results, what to allocate): `exactly` under the request's name,
        else each `firstAvailable` entry as `<request>/<sub-request>`, in order."""
        if self.exactly is not None:
            return ((self.name, self.exactly),)
        return tuple((f"{self.name}/{sub.name}", sub) for sub in self.first_available)


@dataclass(frozen=True, slots=True)
class DeviceConstraint:
    """`matchAttribute` over the named requests (all requests when empty)."""

    requests: tuple[str, ...]
    match_attribute: str


@dataclass(frozen=True, slots=True)
class DeviceResult:
    """One allocated device (status.allocation.devices.results[])."""

    request: str
    driver: str
    pool: str
    device: str
    admin_access: bool = False


@dataclass(frozen=True, slots=True)
class Allocation:
    """status.allocation: the devices, and the nodes they can be used from (None: every node)."""

    results: tuple[DeviceResult, ...]
    node_selector: NodeSelector | None = None


@dataclass(frozen=True, slots=True)
class ConsumerRef:
    """status.reservedFor[]: a pod (or another consumer) using the claim."""

    resource: str
    name: str
    uid: str

    def is_pod(self, uid: str, name: str) -> bool:
        """resourceclaim.IsReservedForPod compares UIDs; pods written as manifests often have
        none, so unless both sides have one the pod's name (the claim's namespace) decides."""
        if self.resource != "pods":
            return False
        return self.uid == uid if self.uid and uid else self.name == name


@dataclass(frozen=True, slots=True)
class ResourceClaim:
    namespace: str
    name: str
    uid: str = ""
    requests: tuple[DeviceRequest, ...] = ()
    constraints: tuple[DeviceConstraint, ...] = ()
    allocation: Allocation | None = None
    reserved_for: tuple[ConsumerRef, ...] = ()
    deleting: bool = False
    owner_pod_uid: str | None = None
    """The UID of the pod that controls the claim (a claim made from a template), else None."""
    pod_claim_name: str = ""
    """A generated claim's `resource.kubernetes.io/pod-claim-name` annotation: the pod's entry."""
    source: Source | None = None

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def evolve(self, **changes: object) -> ResourceClaim:
        return replace(self, **changes)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class ResourceClaimTemplate:
    """A template: the spec of the claims the resourceclaim controller makes for pods."""

    namespace: str
    name: str
    requests: tuple[DeviceRequest, ...] = ()
    constraints: tuple[DeviceConstraint, ...] = ()
    source: Source | None = None


def released_claims(claims: Mapping[tuple[str, str], ResourceClaim], gone: Sequence[Pod]
                    ) -> dict[tuple[str, str], ResourceClaim]:
    """The claims of `claims` that `gone` held, as `release_claims` leaves them."""
    by_namespace: dict[str, list[Pod]] = {}
    for pod in gone:
        by_namespace.setdefault(pod.namespace, []).append(pod)
    out = {}
    for key, claim in claims.items():
        pods = by_namespace.get(claim.namespace)
        if not pods or not claim.reserved_for:
            continue
        kept = tuple(r for r in claim.reserved_for if not any(r.is_pod(p.uid, p.name) for p in pods))
        if len(kept) < len(claim.reserved_for):
            out[key] = claim.evolve(reserved_for=kept, allocation=claim.allocation if kept else None)
    return out


def reserved_claims(claims: Mapping[tuple[str, str], ResourceClaim], pod: Pod) -> tuple[ResourceClaim, ...]:
    """The claims of `claims` reserved for `pod`."""
    return tuple(c for c in claims.values()
                 if c.namespace == pod.namespace and any(r.is_pod(pod.uid, pod.name) for r in c.reserved_for))
