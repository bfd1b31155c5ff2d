"""A pod's ResourceClaims as the plugin finds them (dynamicresources.go:foreachPodResourceClaim,
resourceclaim.Name, resourceclaim.IsForPod), including the claims the resourceclaim controller
makes from a `resourceClaimTemplateName`."""

from __future__ import annotations

import hashlib
from typing import Mapping

from kwhatif.api.dra import ResourceClaim, ResourceClaimTemplate
from kwhatif.api.objects import Pod
from kwhatif.plugins.dynamic_resources.index import DraIndex

CLAIM_NOT_CREATED = "ResourceClaim not created yet"
MAX_BASE_LEN = 57  # resourceclaim controller: 63 minus a hyphen and five random characters
_SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # apimachinery rand.String's alphabet


class ClaimLookupError(Exception):
    """The pod cannot be scheduled yet; the text is the scheduler's reason."""


def _generate_base(pod: Pod, pod_claim: str) -> str:
    """The controller's GenerateName `<pod>-<claim>-`, both parts cut in proportion when longer
    than 57 characters."""
    base = f"{pod.name}-{pod_claim}-"
    if len(base) > MAX_BASE_LEN:
        base = (pod.name[: len(pod.name) * MAX_BASE_LEN // len(base)] + "-"
                + pod_claim[: len(pod_claim) * MAX_BASE_LEN // len(base)])
    return base


def generated_name(pod: Pod, pod_claim: str) -> str:
    """The name the API server gives a generated claim: the GenerateName plus five characters,
    random there; kwhatif takes them from a hash of the pod and claim names so runs repeat."""
    digest = hashlib.sha256(f"{pod.namespace}/{pod.name}/{pod_claim}".encode()).hexdigest()
    return _generate_base(pod, pod_claim) + "".join(
        _SUFFIX_ALPHABET[int(digest[i * 2:i * 2 + 2], 16) % len(_SUFFIX_ALPHABET)] for i in range(5))


def _made_for(claim: ResourceClaim, pod: Pod, pod_claim: str) -> bool:
    """A claim the controller made for this pod's entry: controlled by the pod, annotated with the
    entry, and named from the pod's name (copies of a pod that keep its UID are told apart)."""
    base = _generate_base(pod, pod_claim)
    return (claim.namespace == pod.namespace and claim.owner_pod_uid == pod.uid and claim.pod_claim_name == pod_claim
            and claim.name.startswith(base) and len(claim.name) == len(base) + 5)


class NoClaimNeeded(Exception):
    """The pod's status says no claim was made for this entry (resourceclaim.Name: a nil name)."""


def _from_status(pod: Pod, name: str, index: DraIndex) -> ResourceClaim | None:
    """The claim the pod's status names for the entry (resourceclaim.Name): what the scheduler
    uses, as it is — never the template again; None when the status does not name one yet."""
    for entry_name, claim_name in pod.resource_claim_statuses:
        if entry_name != name:
            continue
        if claim_name is None:
            raise NoClaimNeeded(name)
        return _existing(pod, claim_name, index)
    return None


def _existing(pod: Pod, name: str, index: DraIndex) -> ResourceClaim:
    """A claim by name, as the scheduler's claim cache answers (assumecache NotFoundError)."""
    claim = index.claims.get((pod.namespace, name))
    if claim is None:
        raise ClaimLookupError(f'could not find ResourceClaim "{pod.namespace}/{name}"')
    return claim


def _from_template(pod: Pod, entry: Mapping, index: DraIndex) -> ResourceClaim:
    """The claim made for this pod from its template: the one its status names, else one already
    there (in the input, or made by an earlier cycle), else the one the controller would create
    now — kwhatif's what-if for a pod just created (the scheduler waits the moment until the
    controller has made it and written the status)."""
    name = str(entry.get("name", ""))
    named = _from_status(pod, name, index)
    if named is not None:
        return named
    for claim in index.claims.values():
        if _made_for(claim, pod, name):
            return claim
    template = index.templates.get((pod.namespace, str(entry["resourceClaimTemplateName"])))
    if template is None:
        raise ClaimLookupError(f'pod "{pod.namespace}/{pod.name}": {CLAIM_NOT_CREATED}')
    claim = ResourceClaim(pod.namespace, generated_name(pod, name), uid=f"{pod.uid}-{pod.name}-{name}",
                          requests=template.requests, constraints=template.constraints,
                          owner_pod_uid=pod.uid, pod_claim_name=name)
    index.create(claim)
    return claim


def pod_claims(pod: Pod, index: DraIndex) -> list[ResourceClaim]:
    """Every claim of the pod, in `spec.resourceClaims` order; ClaimLookupError with the
    scheduler's reason when one is missing, being deleted or not the pod's own."""
    claims = []
    for entry in pod.resource_claims:
        if entry.get("resourceClaimName"):
            claim = _existing(pod, str(entry["resourceClaimName"]), index)
        elif entry.get("resourceClaimTemplateName"):
            try:
                claim = _from_template(pod, entry, index)
            except NoClaimNeeded:
                continue  # foreachPodResourceClaim: "valid use cases", skipped
            if claim.owner_pod_uid != pod.uid:
                raise ClaimLookupError(f"ResourceClaim {claim.key} was not created for pod "
                                       f"{pod.namespace}/{pod.name} (pod is not owner)")
        else:
            raise ClaimLookupError(f'pod "{pod.namespace}/{pod.name}", spec.resourceClaim {entry.get("name", "")}: '
                                   "none of the supported fields are set")
        if claim.deleting:
            raise ClaimLookupError(f'resourceclaim "{claim.name}" is being deleted')
        claims.append(claim)
    return claims


def never_created(pod: Pod, templates: Mapping[tuple[str, str], ResourceClaimTemplate],
                  claims: Mapping[tuple[str, str], ResourceClaim]) -> list[str]:
    """Why a pod held with `ResourceClaim not created yet` waits for ever, when it does: an entry
    whose ResourceClaimTemplate does not exist in the pod's namespace, and whose claim was never
    made. The resourceclaim controller (controller.go handleClaim) then fails to create the claim
    at each sync and says so only in a FailedResourceClaimCreation event on the pod; the
    scheduler's text reads as a moment's wait. One sentence an entry, with what to change."""
    out = []
    for i, entry in enumerate(pod.resource_claims):
        template = str(entry.get("resourceClaimTemplateName") or "")
        name = str(entry.get("name", ""))
        if not template or (pod.namespace, template) in templates:
            continue
        if any(entry_name == name for entry_name, _ in pod.resource_claim_statuses) \
                or any(_made_for(claim, pod, name) for claim in claims.values()):
            continue  # made already: the template is no longer needed
        event = (f'PodResourceClaim {name}: resource claim template "{template}": '
                 f'resourceclaimtemplate.resource.k8s.io "{template}" not found')
        out.append(f'the resourceclaim controller can never create the claim of spec.resourceClaims[{i}] ({name}): '
                   f'resourceclaimtemplate "{template}" does not exist in namespace {pod.namespace} (its '
                   f'FailedResourceClaimCreation event on the pod: "{event}"). Create the template, or fix '
                   "resourceClaimTemplateName: the pod waits until then")
    return out
