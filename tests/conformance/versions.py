"""Reference cases rewritten at another API version, as the API server would serve them."""

from __future__ import annotations

import json
from typing import Any


def as_v1beta1(obj: dict[str, Any]) -> dict[str, Any]:
    """A resource.k8s.io/v1 object as the API server serves it at v1beta1: a device's fields
    move under `basic`, a request's `exactly` fields up into the request itself."""
    if not str(obj.get("apiVersion", "")).startswith("resource.k8s.io/"):
        return obj
    out = json.loads(json.dumps(obj))
    out["apiVersion"] = "resource.k8s.io/v1beta1"
    spec = out.get("spec") or {}
    if out["kind"] == "ResourceSlice":
        spec["devices"] = [{"name": d["name"], "basic": {k: v for k, v in d.items() if k != "name"}}
                           for d in spec.get("devices") or []]
    if out["kind"] in ("ResourceClaim", "ResourceClaimTemplate"):
        claim_spec = spec.get("spec") or {} if out["kind"] == "ResourceClaimTemplate" else spec
        for request in (claim_spec.get("devices") or {}).get("requests") or []:
            request.update(request.pop("exactly", None) or {})
    return out
