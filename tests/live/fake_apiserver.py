"""A small Kubernetes API server for kubectl to talk to: legacy discovery (`/api`, `/apis`,
`/api/v1`, `/apis/<group>/<version>`), `/version`, and one List endpoint per served resource,
built from a case's objects the way the API server answers `GET /api/v1/pods` (a `PodList`, items
without kind/apiVersion, sorted by namespace and name as etcd keys sort).

kubectl 1.2x asks for aggregated discovery first (`Accept: application/json;g=apidiscovery.k8s.io;
v=v2;as=APIGroupDiscoveryList,...,application/json`); answering plain JSON makes it fall back to the
legacy resource lists, as an older API server would. Every request is recorded (method and path)
so a test can prove kubectl only read."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Served:
    """One resource of the server: its group ('' for core), version, plural, kind, scope."""

    group: str
    version: str
    plural: str
    kind: str
    namespaced: bool

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def path(self) -> str:
        return f"/apis/{self.group_version}/{self.plural}" if self.group else f"/api/v1/{self.plural}"


# What a v1.34 API server serves (the kinds kwhatif reads, and Secrets and ConfigMaps, which it must
# never ask for). Written from the Kubernetes API reference, not from kwhatif's own table.
V1_34 = (
    Served("", "v1", "namespaces", "Namespace", False),
    Served("", "v1", "nodes", "Node", False),
    Served("", "v1", "pods", "Pod", True),
    Served("", "v1", "services", "Service", True),
    Served("", "v1", "limitranges", "LimitRange", True),
    Served("", "v1", "resourcequotas", "ResourceQuota", True),
    Served("", "v1", "replicationcontrollers", "ReplicationController", True),
    Served("", "v1", "persistentvolumes", "PersistentVolume", False),
    Served("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", True),
    Served("", "v1", "secrets", "Secret", True),
    Served("", "v1", "configmaps", "ConfigMap", True),
    Served("apps", "v1", "deployments", "Deployment", True),
    Served("apps", "v1", "replicasets", "ReplicaSet", True),
    Served("apps", "v1", "statefulsets", "StatefulSet", True),
    Served("apps", "v1", "daemonsets", "DaemonSet", True),
    Served("batch", "v1", "jobs", "Job", True),
    Served("batch", "v1", "cronjobs", "CronJob", True),
    Served("autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", True),
    Served("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", True),
    Served("scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", False),
    Served("node.k8s.io", "v1", "runtimeclasses", "RuntimeClass", False),
    Served("storage.k8s.io", "v1", "storageclasses", "StorageClass", False),
    Served("storage.k8s.io", "v1", "csinodes", "CSINode", False),
    Served("storage.k8s.io", "v1", "csidrivers", "CSIDriver", False),
    Served("storage.k8s.io", "v1", "csistoragecapacities", "CSIStorageCapacity", True),
    Served("storage.k8s.io", "v1", "volumeattachments", "VolumeAttachment", False),
    Served("resource.k8s.io", "v1", "deviceclasses", "DeviceClass", False),
    Served("resource.k8s.io", "v1", "resourceclaims", "ResourceClaim", True),
    Served("resource.k8s.io", "v1", "resourceclaimtemplates", "ResourceClaimTemplate", True),
    Served("resource.k8s.io", "v1", "resourceslices", "ResourceSlice", False),
)

WITHOUT_DRA = tuple(s for s in V1_34 if s.group != "resource.k8s.io")
"""A cluster with the DRA API group switched off: kubectl cannot list those kinds."""


@dataclass
class FakeAPIServer:
    """The objects served, grouped by resource, and every request kubectl made."""

    served: tuple[Served, ...]
    objects: list[dict[str, Any]]
    requests: list[tuple[str, str]] = field(default_factory=list)
    url: str = ""
    silent: frozenset[str] = frozenset()
    """Paths the server accepts and never answers (an overloaded API server)."""
    released: threading.Event = field(default_factory=threading.Event)

    def answer(self, method: str, path: str) -> tuple[int, dict[str, Any]]:
        self.requests.append((method, path))
        if method != "GET":
            return 405, status(405, "MethodNotAllowed", f"{method} is not served here")
        body = self.discovery(path) or self.listing(path)
        return (200, body) if body is not None else (404, status(404, "NotFound", "the server could not find "
                                                                     "the requested resource"))

    def discovery(self, path: str) -> dict[str, Any] | None:
        groups = sorted({s.group for s in self.served if s.group})
        if path == "/version":
            return {"major": "1", "minor": "34", "gitVersion": "v1.34.1", "platform": "linux/amd64"}
        if path == "/api":
            return {"kind": "APIVersions", "versions": ["v1"],
                    "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}]}
        # A group's versions in the order served lists them, the first preferred.
        versions = {g: list(dict.fromkeys(s.version for s in self.served if s.group == g)) for g in groups}
        if path == "/apis":
            return {"kind": "APIGroupList", "apiVersion": "v1", "groups": [
                {"name": g, "versions": [{"groupVersion": f"{g}/{v}", "version": v} for v in versions[g]],
                 "preferredVersion": {"groupVersion": f"{g}/{versions[g][0]}", "version": versions[g][0]}}
                for g in groups]}
        for gv in ["v1", *(f"{g}/{v}" for g in groups for v in versions[g])]:
            if path == ("/api/v1" if gv == "v1" else f"/apis/{gv}"):
                return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": [
                    {"name": s.plural, "singularName": s.kind.lower(), "namespaced": s.namespaced, "kind": s.kind,
                     "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"]}
                    for s in self.served if s.group_version == gv]}
        return None

    def listing(self, path: str) -> dict[str, Any] | None:
        for s in self.served:
            if path == s.path:
                items = sorted((without_type(o) for o in self.objects if o.get("kind") == s.kind), key=etcd_key)
                return {"kind": f"{s.kind}List", "apiVersion": s.group_version,
                        "metadata": {"resourceVersion": "1000"}, "items": items}
        return None


def status(code: int, reason: str, message: str) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
            "reason": reason, "code": code}


def without_type(obj: dict[str, Any]) -> dict[str, Any]:
    """A List's items as the API server sends them: kind and apiVersion are the List's."""
    return {k: v for k, v in obj.items() if k not in ("kind", "apiVersion")}


def etcd_key(obj: dict[str, Any]) -> tuple[str, str]:
    meta = obj.get("metadata") or {}
    return (meta.get("namespace") or "", meta.get("name") or "")


def _handler(server: FakeAPIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _reply(self) -> None:
            if self.path.split("?", 1)[0] in server.silent:
                server.released.wait()  # until the test ends: kubectl must give up first
                return
            code, body = server.answer(self.command, self.path.split("?", 1)[0])
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _reply

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's name
            pass
    return Handler


@contextmanager
def serving(objects: Iterable[dict[str, Any]], served: tuple[Served, ...] = V1_34,
            silent: frozenset[str] = frozenset()) -> Iterator[FakeAPIServer]:
    """The server on an ephemeral port of 127.0.0.1 in a thread, for the block's duration; its URL
    is `server.url`."""
    fake = FakeAPIServer(served, list(objects), silent=silent)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        fake.url = f"http://127.0.0.1:{httpd.server_address[1]}"
        yield fake
    finally:
        fake.released.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def write_kubeconfig(path: Path, url: str) -> Path:
    """A kubeconfig with one context, `fake`, pointing kubectl at `url` (plain HTTP, no auth)."""
    path.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": "fake",
        "clusters": [{"name": "fake", "cluster": {"server": url}}],
        "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "fake"}}],
        "users": [{"name": "fake", "user": {}}],
    }))
    return path
