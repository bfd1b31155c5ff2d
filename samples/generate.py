#!/usr/bin/env python3
"""Write samples/cluster.yaml: a deterministic, realistic dump of a 12-node cluster.

The output has the shape of

    kubectl get nodes,pods,priorityclasses,runtimeclasses,pdb,namespaces,services,replicasets -A -o yaml

(one `kind: List`, kinds in that order, objects sorted by namespace/name, keys sorted, as kubectl
prints them). Everything is derived from fixed inputs: uids are uuid5 of the object's kind,
namespace and name, timestamps are fixed 2025 instants, resourceVersions come from a counter.

Self-contained: Python 3.11 and pyyaml only. Usage:

    python3 samples/generate.py            # writes samples/cluster.yaml next to this script
    python3 samples/generate.py --check    # also prints per-node requested/free resources

The script also checks that no node's pod requests exceed its allocatable, and computes the
"0/12 nodes are available: ..." messages of the pending pods with a small model of the default
filters (NodeUnschedulable, TaintToleration, NodeAffinity, NodeResourcesFit) and of preemption.
"""

from __future__ import annotations

import copy
import hashlib
import sys
import uuid
from collections import Counter
from datetime import datetime, timedelta, timezone
from fractions import Fraction
from pathlib import Path

import yaml

OUT = Path(__file__).resolve().parent / "cluster.yaml"

UID_NAMESPACE = uuid.UUID("6f1c2d3e-4b5a-5c6d-8e7f-90a1b2c3d4e5")
SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # k8s.io/apimachinery/pkg/util/rand
K8S_VERSION = "v1.34.1"
REGION = "eu-west-1"
SA_TOKEN_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"


# --------------------------------------------------------------------------------------------
# deterministic helpers


def uid(kind: str, namespace: str, name: str) -> str:
    return str(uuid.uuid5(UID_NAMESPACE, f"{kind}/{namespace}/{name}"))


def digest(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()


def rand_suffix(seed: str, n: int = 5) -> str:
    raw = hashlib.sha256(seed.encode()).digest()
    return "".join(SAFE_ALPHABET[b % len(SAFE_ALPHABET)] for b in raw[:n])


def ts(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def at(day: str, seconds: int = 0) -> datetime:
    """`day` like "2025-03-10T08:00:00" plus `seconds`."""
    base = datetime.fromisoformat(day).replace(tzinfo=timezone.utc)
    return base + timedelta(seconds=seconds)


class Counter_:
    def __init__(self, start: int) -> None:
        self.value = start

    def next(self, step: int = 1) -> str:
        self.value += step
        return str(self.value)


RV = Counter_(4800)


def rv(seed: str) -> str:
    """A resourceVersion: increasing, with deterministic gaps."""
    return RV.next(1 + int(digest(seed)[:4], 16) % 97)


# --------------------------------------------------------------------------------------------
# quantities (for the capacity check and the pending messages)

_SUFFIX = {
    "Ki": 1024, "Mi": 1024**2, "Gi": 1024**3, "Ti": 1024**4,
    "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "m": Fraction(1, 1000), "": 1,
}


def q(text: str | int) -> Fraction:
    s = str(text)
    for suf in ("Ki", "Mi", "Gi", "Ti", "k", "M", "G", "T", "m"):
        if s.endswith(suf):
            return Fraction(s[: -len(suf)]) * _SUFFIX[suf]
    return Fraction(s)


def add_into(total: dict, rl: dict | None) -> None:
    for k, v in (rl or {}).items():
        total[k] = total.get(k, 0) + q(v)


def pod_requests(pod: dict) -> dict:
    """Effective requests: max(sum of containers, each init container) + overhead."""
    spec = pod["spec"]
    total: dict = {}
    for c in spec["containers"]:
        add_into(total, c.get("resources", {}).get("requests"))
    for c in spec.get("initContainers", []):
        req: dict = {}
        add_into(req, c.get("resources", {}).get("requests"))
        for k, v in req.items():
            total[k] = max(total.get(k, 0), v)
    add_into(total, spec.get("overhead"))
    return total


# --------------------------------------------------------------------------------------------
# images: name -> (digest seed, size)

IMAGES = {
    "registry.k8s.io/pause:3.10.1": 320368,
    "registry.k8s.io/etcd:3.6.4-0": 22862374,
    f"registry.k8s.io/kube-apiserver:{K8S_VERSION}": 27061991,
    f"registry.k8s.io/kube-controller-manager:{K8S_VERSION}": 22819474,
    f"registry.k8s.io/kube-scheduler:{K8S_VERSION}": 17385568,
    f"registry.k8s.io/kube-proxy:{K8S_VERSION}": 25963718,
    "registry.k8s.io/coredns/coredns:v1.12.1": 20939036,
    "registry.k8s.io/metrics-server/metrics-server:v0.8.0": 20558066,
    "registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.16.0": 18203144,
    "docker.io/calico/node:v3.30.3": 156944180,
    "docker.io/calico/cni:v3.30.3": 71882517,
    "quay.io/prometheus/node-exporter:v1.9.1": 12655201,
    "quay.io/brancz/kube-rbac-proxy:v0.19.1": 20802104,
    "quay.io/prometheus/prometheus:v3.5.0": 128843765,
    "quay.io/prometheus-operator/prometheus-config-reloader:v0.85.0": 15406533,
    "quay.io/prometheus/alertmanager:v0.28.1": 31917722,
    "docker.io/grafana/grafana:12.1.1": 199734662,
    "nvcr.io/nvidia/k8s-device-plugin:v0.17.4": 195237418,
    "nvcr.io/nvidia/pytorch:25.08-py3": 10837521704,
    "nvcr.io/nvidia/tritonserver:25.08-py3": 8412937160,
    "quay.io/jupyter/pytorch-notebook:cuda12-2025-09-01": 6120839355,
    "ghcr.io/acme/shop-frontend:2.14.0": 48213960,
    "ghcr.io/acme/shop-frontend:2.13.2": 48190114,
    "ghcr.io/acme/shop-checkout:1.22.0": 96338172,
    "ghcr.io/acme/shop-cart:3.4.1": 61129530,
    "ghcr.io/acme/shop-search:0.31.0": 412882037,
    "ghcr.io/acme/payments-api:5.2.3": 88302615,
    "ghcr.io/acme/payments-ledger:5.2.3": 90455118,
    "ghcr.io/acme/fraud-scorer:1.9.0": 734027719,
    "ghcr.io/acme/feature-extract:1.8.2": 1289004177,
    "ghcr.io/acme/db-migrate:1.22.0": 39581204,
    "docker.io/library/redis:7.4.5-alpine": 17238301,
    "docker.io/library/nginx:1.27-alpine": 20950254,
    "docker.io/library/busybox:1.37": 2167176,
    "docker.io/nicolaka/netshoot:v0.14": 202640715,
    "docker.io/library/postgres:17.6": 158772544,
}


def image_id(image: str) -> str:
    repo = image.rsplit(":", 1)[0]
    return f"{repo}@sha256:{digest('image:' + image)}"


# --------------------------------------------------------------------------------------------
# nodes

SIZES = {
    "m5.xlarge": {
        "capacity": {"cpu": "4", "memory": "16253720Ki", "ephemeral-storage": "104845292Ki"},
        "allocatable": {"cpu": "3920m", "memory": "15950616Ki", "ephemeral-storage": "95551679124"},
    },
    "m5.2xlarge": {
        "capacity": {"cpu": "8", "memory": "32408640Ki", "ephemeral-storage": "104845292Ki"},
        "allocatable": {"cpu": "7910m", "memory": "31594048Ki", "ephemeral-storage": "95551679124"},
    },
    "g5.12xlarge": {
        "capacity": {"cpu": "48", "memory": "195968768Ki", "ephemeral-storage": "209702892Ki",
                     "nvidia.com/gpu": "4"},
        "allocatable": {"cpu": "47810m", "memory": "191451392Ki",
                        "ephemeral-storage": "193255321596", "nvidia.com/gpu": "4"},
    },
}

# name, zone letter, instance type, role
NODE_SPECS = [
    ("cp-1", "a", "m5.xlarge", "control-plane"),
    ("gpu-a1", "a", "g5.12xlarge", "gpu"),
    ("gpu-b1", "b", "g5.12xlarge", "gpu"),
    ("gpu-c1", "c", "g5.12xlarge", "gpu"),
    ("worker-a1", "a", "m5.2xlarge", "worker"),
    ("worker-a2", "a", "m5.xlarge", "worker"),
    ("worker-a3", "a", "m5.2xlarge", "worker"),
    ("worker-b1", "b", "m5.2xlarge", "worker"),
    ("worker-b2", "b", "m5.xlarge", "worker"),
    ("worker-b3", "b", "m5.2xlarge", "worker"),
    ("worker-c1", "c", "m5.2xlarge", "worker"),
    ("worker-c2", "c", "m5.2xlarge", "cordoned"),
]
ZONE_SUBNET = {"a": 1, "b": 2, "c": 3}
NODE_CREATED = {
    "cp-1": at("2025-03-10T08:02:11"),
    "gpu-a1": at("2025-07-14T10:21:37"), "gpu-b1": at("2025-07-14T10:22:05"),
    "gpu-c1": at("2025-07-14T10:22:49"),
}
NODE_INDEX = {name: i for i, (name, *_rest) in enumerate(NODE_SPECS)}
NODE_ZONE = {name: zone for name, zone, *_rest in NODE_SPECS}
NODE_TYPE = {name: itype for name, _z, itype, _r in NODE_SPECS}
NODE_ROLE = {name: role for name, _z, _t, role in NODE_SPECS}
CORDONED_AT = at("2025-12-31T22:47:03")
HEARTBEAT = at("2025-12-31T23:58:41")


def node_ip(name: str) -> str:
    zone = NODE_ZONE[name]
    return f"10.0.{ZONE_SUBNET[zone]}.{20 + 7 * NODE_INDEX[name]}"


def node_created(name: str) -> datetime:
    if name in NODE_CREATED:
        return NODE_CREATED[name]
    return at("2025-03-10T08:09:00", 47 * NODE_INDEX[name])


# --------------------------------------------------------------------------------------------
# pods

PRIORITY = {
    "system-node-critical": (2000001000, "PreemptLowerPriority"),
    "system-cluster-critical": (2000000000, "PreemptLowerPriority"),
    "high-priority": (100000, "PreemptLowerPriority"),
    "default-priority": (0, "PreemptLowerPriority"),
    "batch-low": (-10, "Never"),
}

DEFAULT_TOLERATIONS = [
    {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists",
     "tolerationSeconds": 300},
    {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists",
     "tolerationSeconds": 300},
]

DAEMONSET_TOLERATIONS = [
    {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists"},
    {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists"},
    {"effect": "NoSchedule", "key": "node.kubernetes.io/disk-pressure", "operator": "Exists"},
    {"effect": "NoSchedule", "key": "node.kubernetes.io/memory-pressure", "operator": "Exists"},
    {"effect": "NoSchedule", "key": "node.kubernetes.io/pid-pressure", "operator": "Exists"},
    {"effect": "NoSchedule", "key": "node.kubernetes.io/unschedulable", "operator": "Exists"},
]
HOSTNET_TOLERATION = {"effect": "NoSchedule", "key": "node.kubernetes.io/network-unavailable",
                      "operator": "Exists"}
GPU_TOLERATION = {"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"}

POD_IPS: Counter = Counter()
PODS: list[dict] = []
OWNERS: dict[tuple[str, str, str], str] = {}  # (kind, ns, name) -> uid


def owner_ref(kind: str, ns: str, name: str) -> dict:
    api = {"ReplicaSet": "apps/v1", "StatefulSet": "apps/v1", "DaemonSet": "apps/v1",
           "Deployment": "apps/v1", "Job": "batch/v1", "Node": "v1"}[kind]
    the_uid = uid(kind, "" if kind == "Node" else ns, name)
    OWNERS[(kind, ns, name)] = the_uid
    ref = {"apiVersion": api, "blockOwnerDeletion": True, "controller": True, "kind": kind,
           "name": name, "uid": the_uid}
    if kind == "Node":  # mirror pods of static pods
        del ref["blockOwnerDeletion"]
    return ref


def container(name: str, image: str, requests: dict | None = None, limits: dict | None = None,
              ports: list | None = None, args: list | None = None, env: list | None = None,
              host_network: bool = False, **extra) -> dict:
    c: dict = {"name": name, "image": image,
               "imagePullPolicy": "Always" if image.endswith(":latest") else "IfNotPresent",
               "terminationMessagePath": "/dev/termination-log",
               "terminationMessagePolicy": "File"}
    res: dict = {}
    if limits:
        res["limits"] = dict(limits)
    if requests:
        res["requests"] = dict(requests)
    elif limits:
        res["requests"] = dict(limits)  # defaulted from limits by the API server
    c["resources"] = res
    if ports:
        out = []
        for p in ports:
            port = {"containerPort": p[1], "name": p[0], "protocol": "TCP"}
            if host_network or (len(p) > 2 and p[2]):
                port["hostPort"] = p[1]
            out.append(port)
        c["ports"] = out
    if args:
        c["args"] = list(args)
    if env:
        c["env"] = [{"name": k, "value": v} for k, v in env]
    c.update(extra)
    return c


def qos_class(containers: list[dict]) -> str:
    any_set = False
    guaranteed = True
    for c in containers:
        res = c.get("resources", {})
        req, lim = res.get("requests", {}), res.get("limits", {})
        if req or lim:
            any_set = True
        for r in ("cpu", "memory"):
            if r not in lim or q(lim[r]) != q(req.get(r, lim[r])):
                guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


def make_pod(name: str, ns: str, node: str | None, *, labels: dict, containers: list[dict],
             owner: dict | None = None, priority_class: str = "default-priority",
             tolerations: list | None = None, node_selector: dict | None = None,
             affinity: dict | None = None, spread: list | None = None,
             host_network: bool = False, service_account: str | None = "default",
             annotations: dict | None = None, runtime_class: str | None = None,
             overhead: dict | None = None, restart_policy: str = "Always",
             init_containers: list[dict] | None = None, volumes: list | None = None,
             generate_name: str | None = None, created: datetime, started: datetime | None = None,
             pending_message: str | None = None, grace: int = 30, static: bool = False,
             extra_spec: dict | None = None, finalizers: list | None = None,
             hostname: str | None = None, subdomain: str | None = None,
             default_tolerations: bool = True) -> dict:
    """A pod as the API server returns it: defaulted, admitted (priority, SA token volume,
    default tolerations, runtime class overhead) and, when `node` is set, bound and running."""
    containers = copy.deepcopy(containers)
    init_containers = copy.deepcopy(init_containers or [])
    prio, policy = PRIORITY[priority_class]
    meta: dict = {"creationTimestamp": ts(created), "generation": 1, "labels": dict(labels),
                  "name": name, "namespace": ns, "resourceVersion": rv(f"pod/{ns}/{name}"),
                  "uid": uid("Pod", ns, name)}
    if generate_name:
        meta["generateName"] = generate_name
    if annotations:
        meta["annotations"] = dict(annotations)
    if owner:
        meta["ownerReferences"] = [owner]
    if finalizers:
        meta["finalizers"] = list(finalizers)

    vols = copy.deepcopy(volumes or [])
    if service_account:
        token_vol = f"kube-api-access-{rand_suffix('kaa/' + ns + '/' + name)}"
        vols.append({"name": token_vol, "projected": {"defaultMode": 420, "sources": [
            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
            {"configMap": {"items": [{"key": "ca.crt", "path": "ca.crt"}],
                           "name": "kube-root-ca.crt"}},
            {"downwardAPI": {"items": [{"fieldRef": {"apiVersion": "v1",
                                                     "fieldPath": "metadata.namespace"},
                                        "path": "namespace"}]}},
        ]}})
        for c in containers + init_containers:
            c.setdefault("volumeMounts", []).append(
                {"mountPath": SA_TOKEN_PATH, "name": token_vol, "readOnly": True})

    tols = list(tolerations or [])
    if default_tolerations and not static:
        keys = {t.get("key") for t in tols}
        tols += [t for t in DEFAULT_TOLERATIONS if t["key"] not in keys]

    spec: dict = {
        "containers": containers,
        "dnsPolicy": "ClusterFirstWithHostNet" if host_network and not static else "ClusterFirst",
        "enableServiceLinks": True,
        "preemptionPolicy": policy,
        "priority": prio,
        "priorityClassName": priority_class,
        "restartPolicy": restart_policy,
        "schedulerName": "default-scheduler",
        "securityContext": {},
        "terminationGracePeriodSeconds": grace,
        "tolerations": tols,
    }
    if static:
        spec["securityContext"] = {"seccompProfile": {"type": "RuntimeDefault"}}
    if init_containers:
        spec["initContainers"] = init_containers
    if vols:
        spec["volumes"] = vols
    if service_account:
        spec["serviceAccount"] = service_account
        spec["serviceAccountName"] = service_account
    if host_network:
        spec["hostNetwork"] = True
    if node:
        spec["nodeName"] = node
    if node_selector:
        spec["nodeSelector"] = dict(node_selector)
    if affinity:
        spec["affinity"] = copy.deepcopy(affinity)
    if spread:
        spec["topologySpreadConstraints"] = copy.deepcopy(spread)
    if runtime_class:
        spec["runtimeClassName"] = runtime_class
    if overhead:
        spec["overhead"] = dict(overhead)
    if hostname:
        spec["hostname"] = hostname
    if subdomain:
        spec["subdomain"] = subdomain
    if extra_spec:
        spec.update(copy.deepcopy(extra_spec))

    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
    qos = qos_class(containers + init_containers)
    if node is None:
        pod["status"] = {
            "conditions": [{"lastProbeTime": None, "lastTransitionTime": ts(created),
                            "message": pending_message or "", "observedGeneration": 1,
                            "reason": "Unschedulable", "status": "False",
                            "type": "PodScheduled"}],
            "observedGeneration": 1, "phase": "Pending", "qosClass": qos}
        PODS.append(pod)
        return pod

    started = started or created + timedelta(seconds=2)
    if host_network:
        ip = node_ip(node)
    else:
        POD_IPS[node] += 1
        ip = f"10.244.{NODE_INDEX[node]}.{POD_IPS[node] + 1}"
    ready_at = started + timedelta(seconds=3 + len(name) % 9)

    def cstatus(c: dict, init: bool) -> dict:
        cs: dict = {
            "containerID": f"containerd://{digest('ctr/' + ns + '/' + name + '/' + c['name'])}",
            "image": c["image"], "imageID": image_id(c["image"]), "lastState": {},
            "name": c["name"], "ready": not init, "restartCount": 0,
            "started": not init,
        }
        if c.get("resources"):
            cs["resources"] = copy.deepcopy(c["resources"])
            if "requests" in c["resources"]:
                cs["allocatedResources"] = dict(c["resources"]["requests"])
        if init:
            cs["state"] = {"terminated": {
                "containerID": cs["containerID"], "exitCode": 0,
                "finishedAt": ts(started + timedelta(seconds=2)), "reason": "Completed",
                "startedAt": ts(started + timedelta(seconds=1))}}
        else:
            cs["state"] = {"running": {"startedAt": ts(ready_at - timedelta(seconds=1))}}
        mounts = [{"mountPath": m["mountPath"], "name": m["name"],
                   **({"readOnly": True, "recursiveReadOnly": "Disabled"}
                      if m.get("readOnly") else {})}
                  for m in c.get("volumeMounts", [])]
        if mounts:
            cs["volumeMounts"] = mounts
        return cs

    def cond(kind: str, when: datetime) -> dict:
        return {"lastProbeTime": None, "lastTransitionTime": ts(when), "observedGeneration": 1,
                "status": "True", "type": kind}

    status: dict = {
        "conditions": [cond("PodReadyToStartContainers", started + timedelta(seconds=1)),
                       cond("Initialized", started + timedelta(seconds=3 if init_containers else 0)),
                       cond("Ready", ready_at), cond("ContainersReady", ready_at),
                       cond("PodScheduled", created + timedelta(seconds=1 if not static else 0))],
        "containerStatuses": sorted((cstatus(c, False) for c in containers),
                                    key=lambda s: s["name"]),
        "hostIP": node_ip(node), "hostIPs": [{"ip": node_ip(node)}],
        "observedGeneration": 1, "phase": "Running", "podIP": ip, "podIPs": [{"ip": ip}],
        "qosClass": qos, "startTime": ts(started),
    }
    if init_containers:
        status["initContainerStatuses"] = [cstatus(c, True) for c in init_containers]
    pod["status"] = status
    PODS.append(pod)
    return pod


# --------------------------------------------------------------------------------------------
# workload templates (what the user wrote, as stored in the ReplicaSet template)

REPLICASETS: list[dict] = []


def template_spec(containers: list[dict], *, affinity=None, spread=None, tolerations=None,
                  node_selector=None, service_account="default", runtime_class=None,
                  init_containers=None, volumes=None, grace=30, priority_class=None) -> dict:
    spec: dict = {"containers": copy.deepcopy(containers), "dnsPolicy": "ClusterFirst",
                  "restartPolicy": "Always", "schedulerName": "default-scheduler",
                  "securityContext": {}, "terminationGracePeriodSeconds": grace}
    if service_account and service_account != "default":
        spec["serviceAccount"] = service_account
        spec["serviceAccountName"] = service_account
    for key, val in (("affinity", affinity), ("topologySpreadConstraints", spread),
                     ("tolerations", tolerations), ("nodeSelector", node_selector),
                     ("runtimeClassName", runtime_class), ("initContainers", init_containers),
                     ("volumes", volumes), ("priorityClassName", priority_class)):
        if val:
            spec[key] = copy.deepcopy(val)
    return spec


def deployment(ns: str, app: str, pod_hash: str, nodes: list[str], containers: list[dict], *,
               created: datetime, extra_labels: dict | None = None, revision: int = 1,
               pending: list[tuple[str, str]] | None = None, old_rs: list[tuple] | None = None,
               **pod_kwargs) -> None:
    """A Deployment's current ReplicaSet with its running pods on `nodes`, plus `pending` pods
    (name, message), plus old ReplicaSets scaled to zero: (hash, revision, image_overrides)."""
    rs_name = f"{app}-{pod_hash}"
    labels = {"app": app, **(extra_labels or {}), "pod-template-hash": pod_hash}
    replicas = len(nodes) + len(pending or [])
    template_kwargs = {k: v for k, v in pod_kwargs.items()
                       if k in ("affinity", "spread", "tolerations", "node_selector",
                                "service_account", "runtime_class", "init_containers",
                                "volumes", "grace")}
    if pod_kwargs.get("priority_class") and pod_kwargs["priority_class"] != "default-priority":
        template_kwargs["priority_class"] = pod_kwargs["priority_class"]
    _replicaset(ns, app, rs_name, labels, containers, template_kwargs, replicas, len(nodes),
                created, revision, replicas)
    for old_hash, old_rev, old_containers in old_rs or []:
        old_labels = dict(labels, **{"pod-template-hash": old_hash})
        _replicaset(ns, app, f"{app}-{old_hash}", old_labels, old_containers, template_kwargs,
                    0, 0, created - timedelta(days=9 * old_rev + 3), old_rev, replicas)
    owner = owner_ref("ReplicaSet", ns, rs_name)
    for i, node in enumerate(nodes):
        name = f"{rs_name}-{rand_suffix(f'{ns}/{rs_name}/{i}')}"
        make_pod(name, ns, node, labels=labels, containers=containers, owner=owner,
                 generate_name=f"{rs_name}-", created=created + timedelta(minutes=3 * i,
                                                                          seconds=17 * i),
                 **pod_kwargs)
    for pname, message in pending or []:
        make_pod(pname, ns, None, labels=labels, containers=containers, owner=owner,
                 generate_name=f"{rs_name}-", created=at("2025-12-31T23:41:09"),
                 pending_message=message, **pod_kwargs)


def _replicaset(ns, app, rs_name, labels, containers, template_kwargs, replicas, ready, created,
                revision, desired) -> None:
    dep_name = app
    surge = desired + (desired + 3) // 4  # maxSurge 25%, rounded up
    meta = {
        "annotations": {"deployment.kubernetes.io/desired-replicas": str(desired),
                        "deployment.kubernetes.io/max-replicas": str(surge),
                        "deployment.kubernetes.io/revision": str(revision)},
        "creationTimestamp": ts(created), "generation": 1 if replicas else 2,
        "labels": dict(labels), "name": rs_name, "namespace": ns,
        "ownerReferences": [owner_ref("Deployment", ns, dep_name)],
        "resourceVersion": rv(f"rs/{ns}/{rs_name}"), "uid": uid("ReplicaSet", ns, rs_name),
    }
    status: dict = {"observedGeneration": meta["generation"], "replicas": replicas}
    if replicas:
        status.update({"availableReplicas": ready, "fullyLabeledReplicas": replicas,
                       "readyReplicas": ready})
    REPLICASETS.append({
        "apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": meta,
        "spec": {"replicas": replicas,
                 "selector": {"matchLabels": {"app": app,
                                              "pod-template-hash": labels["pod-template-hash"]}},
                 "template": {"metadata": {"creationTimestamp": None, "labels": dict(labels)},
                              "spec": template_spec(containers, **template_kwargs)}},
        "status": status,
    })


def daemonset(ns: str, ds: str, nodes: list[str], containers: list[dict], *, labels: dict,
              rev_hash: str, created: datetime, tolerations: list, host_network: bool,
              priority_class: str, service_account: str, init_containers=None,
              volumes=None) -> None:
    owner = owner_ref("DaemonSet", ns, ds)
    tols = list(tolerations) + DAEMONSET_TOLERATIONS + ([HOSTNET_TOLERATION] if host_network
                                                         else [])
    for node in nodes:
        name = f"{ds}-{rand_suffix(f'{ns}/{ds}/{node}')}"
        make_pod(
            name, ns, node,
            labels={**labels, "controller-revision-hash": rev_hash,
                    "pod-template-generation": "1"},
            containers=containers, owner=owner, generate_name=f"{ds}-",
            priority_class=priority_class, tolerations=tols, host_network=host_network,
            service_account=service_account, init_containers=init_containers, volumes=volumes,
            affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchFields": [
                    {"key": "metadata.name", "operator": "In", "values": [node]}]}]}}},
            created=max(created, node_created(node) + timedelta(seconds=31)),
            default_tolerations=False)


def statefulset(ns: str, sts: str, nodes: list[str], containers: list[dict], *, labels: dict,
                rev_hash: str, created: datetime, **kwargs) -> None:
    owner = owner_ref("StatefulSet", ns, sts)
    for i, node in enumerate(nodes):
        name = f"{sts}-{i}"
        make_pod(name, ns, node,
                 labels={**labels, "apps.kubernetes.io/pod-index": str(i),
                         "controller-revision-hash": f"{sts}-{rev_hash}",
                         "statefulset.kubernetes.io/pod-name": name},
                 containers=containers, owner=owner, generate_name=f"{sts}-",
                 hostname=name, created=created + timedelta(minutes=2 * i, seconds=11 * i),
                 **kwargs)


def job_pods(ns: str, job: str, nodes: list[str | None], containers: list[dict], *,
             created: datetime, indexed: bool = False,
             pending_messages: dict | None = None, **kwargs) -> None:
    owner = owner_ref("Job", ns, job)
    job_uid = owner["uid"]
    for i, node in enumerate(nodes):
        labels = {"batch.kubernetes.io/controller-uid": job_uid,
                  "batch.kubernetes.io/job-name": job, "controller-uid": job_uid,
                  "job-name": job}
        annotations = {}
        if indexed:
            labels["batch.kubernetes.io/job-completion-index"] = str(i)
            annotations["batch.kubernetes.io/job-completion-index"] = str(i)
            gen = f"{job}-{i}-"
        else:
            gen = f"{job}-"
        name = f"{gen}{rand_suffix(f'{ns}/{job}/{i}')}"
        make_pod(name, ns, node, labels=labels, containers=containers, owner=owner,
                 generate_name=gen, annotations=annotations or None,
                 finalizers=["batch.kubernetes.io/job-tracking"], restart_policy="Never",
                 created=created + timedelta(seconds=4 * i),
                 pending_message=(pending_messages or {}).get(i), **kwargs)


# --------------------------------------------------------------------------------------------
# the cluster

WORKERS = ["worker-a1", "worker-a2", "worker-a3", "worker-b1", "worker-b2", "worker-b3",
           "worker-c1", "worker-c2"]
GPUS = ["gpu-a1", "gpu-b1", "gpu-c1"]
ALL_NODES = [n for n, *_ in NODE_SPECS]


def build_pods() -> None:
    # ---- control plane static (mirror) pods
    cp_created = at("2025-03-10T08:02:40")
    statics = [
        ("etcd", f"registry.k8s.io/etcd:3.6.4-0", {"cpu": "100m", "memory": "100Mi"},
         ["--advertise-client-urls=https://10.0.1.20:2379", "--data-dir=/var/lib/etcd"]),
        ("kube-apiserver", f"registry.k8s.io/kube-apiserver:{K8S_VERSION}", {"cpu": "250m"},
         ["--advertise-address=10.0.1.20", "--secure-port=6443",
          "--service-cluster-ip-range=10.96.0.0/12"]),
        ("kube-controller-manager", f"registry.k8s.io/kube-controller-manager:{K8S_VERSION}",
         {"cpu": "200m"}, ["--cluster-cidr=10.244.0.0/16", "--leader-elect=true"]),
        ("kube-scheduler", f"registry.k8s.io/kube-scheduler:{K8S_VERSION}", {"cpu": "100m"},
         ["--kubeconfig=/etc/kubernetes/scheduler.conf", "--leader-elect=true"]),
    ]
    node_owner = owner_ref("Node", "", "cp-1")
    for comp, image, req, args in statics:
        cfg_hash = digest("static/" + comp)[:32]
        annotations = {"kubernetes.io/config.hash": cfg_hash,
                       "kubernetes.io/config.mirror": cfg_hash,
                       "kubernetes.io/config.seen": "2025-03-10T08:02:13.418290154Z",
                       "kubernetes.io/config.source": "file"}
        if comp == "etcd":
            annotations["kubeadm.kubernetes.io/etcd.advertise-client-urls"] = \
                "https://10.0.1.20:2379"
        if comp == "kube-apiserver":
            annotations["kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint"] = \
                "10.0.1.20:6443"
        make_pod(f"{comp}-cp-1", "kube-system", "cp-1",
                 labels={"component": comp, "tier": "control-plane"},
                 containers=[container(comp, image, req, command=[comp], args=args)],
                 owner=node_owner, priority_class="system-node-critical",
                 tolerations=[{"effect": "NoExecute", "operator": "Exists"}],
                 host_network=True, service_account=None, annotations=annotations,
                 created=cp_created, started=at("2025-03-10T08:02:13"), static=True,
                 volumes=[{"hostPath": {"path": "/etc/kubernetes/pki",
                                        "type": "DirectoryOrCreate"}, "name": "k8s-certs"}])

    # ---- daemonsets on every node
    daemonset("kube-system", "kube-proxy", ALL_NODES,
              [container("kube-proxy", f"registry.k8s.io/kube-proxy:{K8S_VERSION}",
                         {"cpu": "100m"},
                         command=["/usr/local/bin/kube-proxy",
                                  "--config=/var/lib/kube-proxy/config.conf",
                                  "--hostname-override=$(NODE_NAME)"],
                         securityContext={"privileged": True})],
              labels={"k8s-app": "kube-proxy"}, rev_hash="7b9c6d5f84",
              created=at("2025-03-10T08:02:51"),
              tolerations=[{"operator": "Exists"}], host_network=True,
              priority_class="system-node-critical", service_account="kube-proxy")
    daemonset("kube-system", "calico-node", ALL_NODES,
              [container("calico-node", "docker.io/calico/node:v3.30.3", {"cpu": "250m"},
                         env=[("DATASTORE_TYPE", "kubernetes"), ("CALICO_NETWORKING_BACKEND",
                                                                  "bird")],
                         securityContext={"privileged": True})],
              init_containers=[container("install-cni", "docker.io/calico/cni:v3.30.3",
                                         command=["/opt/cni/bin/install"],
                                         securityContext={"privileged": True})],
              labels={"k8s-app": "calico-node"}, rev_hash="5f9d8c7b64",
              created=at("2025-03-10T08:04:02"),
              tolerations=[{"effect": "NoSchedule", "operator": "Exists"},
                           {"key": "CriticalAddonsOnly", "operator": "Exists"},
                           {"effect": "NoExecute", "operator": "Exists"}],
              host_network=True, priority_class="system-node-critical",
              service_account="calico-node")
    daemonset("monitoring", "node-exporter", ALL_NODES,
              [container("node-exporter", "quay.io/prometheus/node-exporter:v1.9.1",
                         {"cpu": "50m", "memory": "64Mi"}, {"cpu": "250m", "memory": "180Mi"},
                         args=["--web.listen-address=127.0.0.1:9101",
                               "--path.sysfs=/host/sys", "--path.rootfs=/host/root"]),
               container("kube-rbac-proxy", "quay.io/brancz/kube-rbac-proxy:v0.19.1",
                         {"cpu": "10m", "memory": "20Mi"}, {"cpu": "20m", "memory": "40Mi"},
                         ports=[("https", 9100)], host_network=True,
                         args=["--secure-listen-address=[$(IP)]:9100",
                               "--upstream=http://127.0.0.1:9101/"])],
              labels={"app.kubernetes.io/component": "exporter",
                      "app.kubernetes.io/name": "node-exporter",
                      "app.kubernetes.io/part-of": "kube-prometheus",
                      "app.kubernetes.io/version": "1.9.1"},
              rev_hash="6d4f9b8c57", created=at("2025-03-11T14:20:10"),
              tolerations=[{"operator": "Exists"}], host_network=True,
              priority_class="system-node-critical", service_account="node-exporter")
    daemonset("kube-system", "nvidia-device-plugin-daemonset", GPUS,
              [container("nvidia-device-plugin-ctr", "nvcr.io/nvidia/k8s-device-plugin:v0.17.4",
                         {"cpu": "10m", "memory": "32Mi"}, {"memory": "128Mi"},
                         env=[("FAIL_ON_INIT_ERROR", "false")],
                         securityContext={"allowPrivilegeEscalation": False,
                                          "capabilities": {"drop": ["ALL"]}})],
              labels={"name": "nvidia-device-plugin-ds"}, rev_hash="84c9f6d7b5",
              created=at("2025-07-14T10:12:00"),
              tolerations=[GPU_TOLERATION, {"key": "CriticalAddonsOnly", "operator": "Exists"}],
              host_network=False, priority_class="system-node-critical",
              service_account="default")

    # ---- kube-system deployments
    cp_toleration = [{"effect": "NoSchedule", "key": "node-role.kubernetes.io/control-plane"},
                     {"key": "CriticalAddonsOnly", "operator": "Exists"}]
    deployment("kube-system", "coredns", "66bc5c9577", ["cp-1", "worker-b2"],
               [container("coredns", "registry.k8s.io/coredns/coredns:v1.12.1",
                          {"cpu": "100m", "memory": "70Mi"}, {"memory": "170Mi"},
                          ports=[("dns", 53), ("metrics", 9153)],
                          args=["-conf", "/etc/coredns/Corefile"])],
               extra_labels={"k8s-app": "kube-dns"}, created=at("2025-03-10T08:02:52"),
               priority_class="system-cluster-critical", service_account="coredns",
               tolerations=cp_toleration, grace=30,
               affinity={"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                   {"podAffinityTerm": {"labelSelector": {"matchExpressions": [
                       {"key": "k8s-app", "operator": "In", "values": ["kube-dns"]}]},
                       "topologyKey": "kubernetes.io/hostname"}, "weight": 100}]}})
    deployment("kube-system", "metrics-server", "5dd7b49d79", ["worker-a2"],
               [container("metrics-server", "registry.k8s.io/metrics-server/metrics-server:v0.8.0",
                          {"cpu": "100m", "memory": "200Mi"},
                          ports=[("https", 10250)],
                          args=["--cert-dir=/tmp", "--secure-port=10250",
                                "--kubelet-preferred-address-types=InternalIP"])],
               extra_labels={"k8s-app": "metrics-server"}, created=at("2025-03-10T09:30:00"),
               priority_class="system-cluster-critical", service_account="metrics-server")

    # ---- shop
    fe_anti = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "frontend"}},
                             "topologyKey": "kubernetes.io/hostname"}, "weight": 100}]}}

    def fe(img):
        return [container("frontend", img, {"cpu": "250m", "memory": "256Mi"},
                          {"cpu": "500m", "memory": "512Mi"}, ports=[("http", 8080)],
                          readinessProbe={"failureThreshold": 3, "httpGet": {
                              "path": "/healthz", "port": 8080, "scheme": "HTTP"},
                              "periodSeconds": 10, "successThreshold": 1,
                              "timeoutSeconds": 1})]
    deployment("shop", "frontend", "5b7c9d8f6d",
               ["worker-a1", "worker-a2", "worker-a3", "worker-b1", "worker-b2", "worker-b3",
                "worker-c2", "worker-c2"],
               fe("ghcr.io/acme/shop-frontend:2.14.0"),
               extra_labels={"tier": "web"}, created=at("2025-11-18T10:04:12"), revision=7,
               old_rs=[("6f8d4c7b59", 6, fe("ghcr.io/acme/shop-frontend:2.13.2"))],
               affinity=fe_anti)

    checkout_containers = [container(
        "checkout", "ghcr.io/acme/shop-checkout:1.22.0", {"cpu": "3", "memory": "4Gi"},
        {"cpu": "4", "memory": "6Gi"}, ports=[("http", 8080), ("grpc", 9090)],
        env=[("PAYMENTS_URL", "http://api.payments.svc:8080")])]
    checkout_init = [container("db-migrate", "ghcr.io/acme/db-migrate:1.22.0",
                               {"cpu": "500m", "memory": "256Mi"},
                               {"cpu": "1", "memory": "512Mi"}, args=["--wait", "--apply"])]
    checkout_spread = [{"labelSelector": {"matchLabels": {"app": "checkout"}}, "maxSkew": 1,
                        "topologyKey": "topology.kubernetes.io/zone",
                        "whenUnsatisfiable": "ScheduleAnyway"}]
    PENDING_CHECKOUT = "checkout-7d9f8-pending"
    deployment("shop", "checkout", "7d9f8", ["worker-a1", "worker-b1", "worker-c1"],
               checkout_containers, extra_labels={"tier": "backend"},
               created=at("2025-12-02T15:31:40"), revision=12,
               pending=[(PENDING_CHECKOUT, "@computed")],
               init_containers=checkout_init, spread=checkout_spread)
    deployment("shop", "cart", "6c9b8d7f5c", ["worker-a1", "worker-a2", "worker-b1", "worker-b3"],
               [container("cart", "ghcr.io/acme/shop-cart:3.4.1", {"cpu": "500m", "memory": "512Mi"},
                          {"memory": "1Gi"}, ports=[("http", 8080)],
                          env=[("REDIS_ADDR", "cart-redis:6379")])],
               extra_labels={"tier": "backend"}, created=at("2025-11-25T09:12:33"), revision=4)
    deployment("shop", "search", "84f6d9c7b5", ["worker-a3", "worker-b1", "worker-b3", "worker-b3"],
               [container("search", "ghcr.io/acme/shop-search:0.31.0",
                          {"cpu": "1", "memory": "2Gi"}, {"cpu": "2", "memory": "3Gi"},
                          ports=[("http", 9200)])],
               extra_labels={"tier": "backend"}, created=at("2025-10-07T12:00:19"), revision=3)
    statefulset("shop", "cart-redis", ["worker-a2", "worker-b2", "worker-c1"],
                [container("redis", "docker.io/library/redis:7.4.5-alpine",
                           {"cpu": "250m", "memory": "1Gi"}, {"cpu": "500m", "memory": "1Gi"},
                           ports=[("redis", 6379)],
                           args=["--maxmemory", "768mb", "--appendonly", "yes"])],
                labels={"app": "cart-redis"}, rev_hash="79d5c8b4f6",
                created=at("2025-09-03T07:45:00"), subdomain="cart-redis",
                volumes=[{"emptyDir": {}, "name": "data"}])

    # ---- payments
    deployment("payments", "api", "7f9c6d8b4", ["worker-a1", "worker-a2", "worker-b1", "worker-b2"],
               [container("api", "ghcr.io/acme/payments-api:5.2.3",
                          {"cpu": "500m", "memory": "1Gi"}, {"cpu": "1", "memory": "1Gi"},
                          ports=[("http", 8080)])],
               extra_labels={"tier": "backend"}, created=at("2025-12-09T11:02:55"), revision=9,
               service_account="payments-api")
    deployment("payments", "ledger", "5d7f8b9c6", ["worker-a1", "worker-a3", "worker-b3"],
               [container("ledger", "ghcr.io/acme/payments-ledger:5.2.3",
                          {"cpu": "1", "memory": "2Gi"}, {"cpu": "1", "memory": "2Gi"},
                          ports=[("grpc", 9090)])],
               extra_labels={"tier": "data"}, created=at("2025-12-09T11:03:10"), revision=9,
               service_account="payments-ledger",
               affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                   {"labelSelector": {"matchLabels": {"app": "ledger"}},
                    "topologyKey": "kubernetes.io/hostname"}]}})
    deployment("payments", "fraud-scorer", "b8d46c7f9", ["worker-a3", "worker-b2", "worker-c1"],
               [container("scorer", "ghcr.io/acme/fraud-scorer:1.9.0",
                          {"cpu": "750m", "memory": "1536Mi"}, {"cpu": "1500m", "memory": "2Gi"},
                          ports=[("http", 8080)])],
               extra_labels={"tier": "backend"}, created=at("2025-11-30T16:40:21"), revision=2,
               runtime_class="gvisor", overhead={"cpu": "250m", "memory": "120Mi"})

    deployment("payments", "webhooks", "6d5b7c8f94", ["worker-a3", "worker-c1"],
               [container("webhooks", "ghcr.io/acme/payments-api:5.2.3",
                          {"cpu": "300m", "memory": "384Mi"}, {"memory": "512Mi"},
                          ports=[("http", 8080)], args=["webhooks"])],
               extra_labels={"tier": "backend"}, created=at("2025-12-09T11:03:31"), revision=9,
               service_account="payments-api")

    # ---- monitoring
    statefulset("monitoring", "prometheus-k8s", ["worker-a3", "worker-b3"],
                [container("prometheus", "quay.io/prometheus/prometheus:v3.5.0",
                           {"cpu": "1", "memory": "3Gi"}, {"memory": "6Gi"},
                           ports=[("web", 9090)],
                           args=["--storage.tsdb.retention.time=15d",
                                 "--storage.tsdb.path=/prometheus"]),
                 container("config-reloader",
                           "quay.io/prometheus-operator/prometheus-config-reloader:v0.85.0",
                           {"cpu": "100m", "memory": "50Mi"}, {"cpu": "100m", "memory": "50Mi"},
                           ports=[("reloader-web", 8080)])],
                labels={"app.kubernetes.io/instance": "k8s", "app.kubernetes.io/name": "prometheus",
                        "operator.prometheus.io/name": "k8s", "prometheus": "k8s"},
                rev_hash="5d8c7b9f64", created=at("2025-10-21T08:15:00"),
                service_account="prometheus-k8s", subdomain="prometheus-operated", grace=600,
                volumes=[{"emptyDir": {}, "name": "prometheus-k8s-db"}],
                affinity={"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                    {"podAffinityTerm": {"labelSelector": {"matchLabels": {
                        "app.kubernetes.io/name": "prometheus", "prometheus": "k8s"}},
                        "topologyKey": "kubernetes.io/hostname"}, "weight": 100}]}})
    statefulset("monitoring", "alertmanager-main", ["worker-a2", "worker-b2"],
                [container("alertmanager", "quay.io/prometheus/alertmanager:v0.28.1",
                           {"cpu": "100m", "memory": "200Mi"}, {"cpu": "200m", "memory": "400Mi"},
                           ports=[("web", 9093), ("mesh-tcp", 9094)]),
                 container("config-reloader",
                           "quay.io/prometheus-operator/prometheus-config-reloader:v0.85.0",
                           {"cpu": "10m", "memory": "10Mi"}, {"cpu": "10m", "memory": "10Mi"})],
                labels={"alertmanager": "main", "app.kubernetes.io/name": "alertmanager"},
                rev_hash="6b7f58c9d4", created=at("2025-10-21T08:15:30"),
                service_account="alertmanager-main", subdomain="alertmanager-operated", grace=120)
    deployment("monitoring", "grafana", "7c6d9f58b4", ["worker-c1"],
               [container("grafana", "docker.io/grafana/grafana:12.1.1",
                          {"cpu": "200m", "memory": "256Mi"}, {"cpu": "500m", "memory": "512Mi"},
                          ports=[("http", 3000)])],
               created=at("2025-10-21T08:16:02"), revision=3, service_account="grafana")
    deployment("monitoring", "kube-state-metrics", "6f9d7c5b48", ["worker-a2"],
               [container("kube-state-metrics",
                          "registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.16.0",
                          {"cpu": "100m", "memory": "190Mi"}, {"cpu": "200m", "memory": "250Mi"},
                          ports=[("http-metrics", 8080), ("telemetry", 8081)])],
               created=at("2025-10-21T08:16:20"), revision=2,
               service_account="kube-state-metrics")

    # ---- ml: GPU pods (tolerate the GPU taint, select the A10 pool)
    gpu_sel = {"accelerator": "nvidia-a10"}
    train = lambda cpu, mem, gpus: [container(  # noqa: E731
        "trainer", "nvcr.io/nvidia/pytorch:25.08-py3",
        limits={"cpu": cpu, "memory": mem, "nvidia.com/gpu": gpus},
        command=["torchrun"], args=["--nproc-per-node", gpus, "train.py"])]
    job_pods("ml", "llm-finetune", ["gpu-a1"], train("16", "96Gi", "2"),
             created=at("2025-12-30T20:11:45"), tolerations=[GPU_TOLERATION],
             node_selector=gpu_sel, service_account="trainer")
    job_pods("ml", "resnet-train", ["gpu-b1", "gpu-b1"], train("20", "80Gi", "2"),
             created=at("2025-12-31T02:30:00"), indexed=True, tolerations=[GPU_TOLERATION],
             node_selector=gpu_sel, service_account="trainer",
             extra_spec={"subdomain": "resnet-train"})
    deployment("ml", "embeddings-inference", "59c8d7b6f4", ["gpu-a1"],
               [container("triton", "nvcr.io/nvidia/tritonserver:25.08-py3",
                          {"cpu": "4", "memory": "24Gi", "nvidia.com/gpu": "1"},
                          {"cpu": "4", "memory": "24Gi", "nvidia.com/gpu": "1"},
                          ports=[("http", 8000), ("grpc", 8001), ("metrics", 8002)])],
               created=at("2025-12-15T13:48:02"), revision=5, tolerations=[GPU_TOLERATION],
               node_selector=gpu_sel)
    statefulset("ml", "notebook-alice", ["gpu-c1"],
                [container("notebook", "quay.io/jupyter/pytorch-notebook:cuda12-2025-09-01",
                           {"cpu": "8", "memory": "48Gi", "nvidia.com/gpu": "1"},
                           {"cpu": "8", "memory": "48Gi", "nvidia.com/gpu": "1"},
                           ports=[("notebook-port", 8888)])],
                labels={"app": "notebook", "owner": "alice"}, rev_hash="7d58f96c4b",
                created=at("2025-12-22T09:05:13"), tolerations=[GPU_TOLERATION],
                node_selector=gpu_sel, subdomain="notebook-alice")

    # ---- ml: low-priority batch on the general workers (never preempts)
    job_pods("ml", "feature-extract",
             ["worker-a1", "worker-a2", "worker-a3", "worker-b1", "worker-b2", "worker-b3",
              "worker-c1"],
             [container("extract", "ghcr.io/acme/feature-extract:1.8.2",
                        {"cpu": "500m", "memory": "1Gi"}, {"cpu": "1", "memory": "2Gi"},
                        args=["--shard=$(JOB_COMPLETION_INDEX)", "--of=7"])],
             created=at("2025-12-31T21:00:03"), indexed=True, priority_class="batch-low",
             service_account="batch")
    # pending but fits now: it waited while the workers were full and never preempts
    job_pods("ml", "embed-backfill", [None],
             [container("backfill", "ghcr.io/acme/feature-extract:1.8.2",
                        {"cpu": "200m", "memory": "256Mi"}, {"cpu": "500m", "memory": "512Mi"},
                        args=["backfill", "--since=2025-12-01"])],
             created=at("2025-12-31T23:52:30"), priority_class="batch-low",
             service_account="batch", pending_messages={0: "@stale"})
    # pending: asks for a GPU but forgot the toleration (and the pool selector)
    job_pods("ml", "llm-eval", [None],
             [container("eval", "nvcr.io/nvidia/pytorch:25.08-py3",
                        limits={"cpu": "500m", "memory": "4Gi", "nvidia.com/gpu": "1"},
                        command=["python"], args=["eval.py", "--suite=mmlu"])],
             created=at("2025-12-31T23:37:14"), service_account="trainer",
             pending_messages={0: "@computed"})

    # ---- default
    make_pod("toolbox", "default", "worker-c2", labels={"run": "toolbox"},
             containers=[container("toolbox", "docker.io/nicolaka/netshoot:v0.14",
                                   {"cpu": "100m", "memory": "128Mi"},
                                   command=["sleep", "infinity"])],
             created=at("2025-12-29T14:02:18"))
    make_pod("disk-bench", "default", None, labels={"run": "disk-bench"},
             containers=[container("fio", "docker.io/library/postgres:17.6",
                                   {"cpu": "2", "memory": "4Gi"}, {"cpu": "2", "memory": "4Gi"},
                                   command=["pgbench"], args=["-c", "16", "-T", "600"])],
             node_selector={"disktype": "nvme"}, created=at("2025-12-31T23:12:40"),
             pending_message="@computed")


# --------------------------------------------------------------------------------------------
# node objects


def node_images(name: str) -> list[dict]:
    used = {"registry.k8s.io/pause:3.10.1"}
    for pod in PODS:
        if pod["spec"].get("nodeName") == name:
            for c in pod["spec"]["containers"] + pod["spec"].get("initContainers", []):
                used.add(c["image"])
    # images cached from earlier rollouts / pulls
    extra = {
        "worker-a1": ["ghcr.io/acme/shop-frontend:2.13.2", "docker.io/library/nginx:1.27-alpine"],
        "worker-a2": ["ghcr.io/acme/shop-frontend:2.13.2", "docker.io/library/busybox:1.37"],
        "worker-b1": ["ghcr.io/acme/shop-frontend:2.13.2"],
        "worker-b3": ["docker.io/library/nginx:1.27-alpine"],
        "worker-c1": ["ghcr.io/acme/shop-frontend:2.14.0", "docker.io/library/nginx:1.27-alpine"],
        "worker-c2": ["ghcr.io/acme/shop-checkout:1.22.0", "ghcr.io/acme/db-migrate:1.22.0"],
        "gpu-c1": ["nvcr.io/nvidia/pytorch:25.08-py3"],
    }
    used.update(extra.get(name, []))
    out = []
    for image in used:
        out.append({"names": [image_id(image), image], "sizeBytes": IMAGES[image]})
    out.sort(key=lambda i: (-i["sizeBytes"], i["names"][1]))
    return out


def make_node(name: str, zone: str, itype: str, role: str) -> dict:
    created = node_created(name)
    zone_full = f"{REGION}{zone}"
    labels = {
        "beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/instance-type": itype,
        "beta.kubernetes.io/os": "linux",
        "failure-domain.beta.kubernetes.io/region": REGION,
        "failure-domain.beta.kubernetes.io/zone": zone_full,
        "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": itype,
        "topology.kubernetes.io/region": REGION, "topology.kubernetes.io/zone": zone_full,
    }
    taints = []
    if role == "control-plane":
        labels["node-role.kubernetes.io/control-plane"] = ""
        labels["node.kubernetes.io/exclude-from-external-load-balancers"] = ""
        taints.append({"effect": "NoSchedule", "key": "node-role.kubernetes.io/control-plane"})
    elif role == "gpu":
        labels.update({"accelerator": "nvidia-a10", "nvidia.com/gpu.count": "4",
                       "nvidia.com/gpu.product": "NVIDIA-A10G", "node-pool": "gpu"})
        taints.append({"effect": "NoSchedule", "key": "nvidia.com/gpu", "value": "present"})
    else:
        labels["node-pool"] = "general"
        labels["node-role.kubernetes.io/worker"] = ""
    spec: dict = {
        "podCIDR": f"10.244.{NODE_INDEX[name]}.0/24",
        "podCIDRs": [f"10.244.{NODE_INDEX[name]}.0/24"],
        "providerID": f"aws:///{zone_full}/i-0{digest('ec2/' + name)[:16]}",
    }
    if role == "cordoned":
        taints.append({"effect": "NoSchedule", "key": "node.kubernetes.io/unschedulable",
                       "timeAdded": ts(CORDONED_AT)})
        spec["unschedulable"] = True
    if taints:
        spec["taints"] = taints
    size = SIZES[itype]
    cap = dict(size["capacity"], **{"hugepages-1Gi": "0", "hugepages-2Mi": "0", "pods": "110"})
    alloc = dict(size["allocatable"], **{"hugepages-1Gi": "0", "hugepages-2Mi": "0",
                                         "pods": "110"})
    hb = HEARTBEAT + timedelta(seconds=NODE_INDEX[name] * 5)
    ready_at = created + timedelta(seconds=38)

    def cond(kind, status, reason, message):
        return {"lastHeartbeatTime": ts(hb), "lastTransitionTime": ts(created + timedelta(
            seconds=2)) if kind != "Ready" else ts(ready_at), "message": message,
                "reason": reason, "status": status, "type": kind}

    kernel = "6.8.0-1039-aws"
    node = {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {
            "annotations": {
                "kubeadm.alpha.kubernetes.io/cri-socket": "unix:///run/containerd/containerd.sock",
                "node.alpha.kubernetes.io/ttl": "0",
                "projectcalico.org/IPv4Address": f"{node_ip(name)}/20",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
            },
            "creationTimestamp": ts(created), "labels": labels, "name": name,
            "resourceVersion": rv("node/" + name), "uid": uid("Node", "", name),
        },
        "spec": spec,
        "status": {
            "addresses": [{"address": node_ip(name), "type": "InternalIP"},
                          {"address": name, "type": "Hostname"}],
            "allocatable": alloc, "capacity": cap,
            "conditions": [
                {"lastHeartbeatTime": ts(created + timedelta(seconds=61)),
                 "lastTransitionTime": ts(created + timedelta(seconds=61)),
                 "message": "Calico is running on this node", "reason": "CalicoIsUp",
                 "status": "False", "type": "NetworkUnavailable"},
                cond("MemoryPressure", "False", "KubeletHasSufficientMemory",
                     "kubelet has sufficient memory available"),
                cond("DiskPressure", "False", "KubeletHasNoDiskPressure",
                     "kubelet has no disk pressure"),
                cond("PIDPressure", "False", "KubeletHasSufficientPID",
                     "kubelet has sufficient PID available"),
                cond("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
            ],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "features": {"supplementalGroupsPolicy": True},
            "images": node_images(name),
            "nodeInfo": {
                "architecture": "amd64", "bootID": str(uuid.uuid5(UID_NAMESPACE, "boot/" + name)),
                "containerRuntimeVersion": "containerd://2.1.4",
                "kernelVersion": kernel, "kubeProxyVersion": "", "kubeletVersion": K8S_VERSION,
                "machineID": digest("machine/" + name)[:32], "operatingSystem": "linux",
                "osImage": "Ubuntu 24.04.3 LTS",
                "systemUUID": "ec2" + str(uuid.uuid5(UID_NAMESPACE, "sys/" + name))[3:],
            },
            "runtimeHandlers": [
                {"features": {"recursiveReadOnlyMounts": True, "userNamespaces": True},
                 "name": "runc"},
                {"features": {"recursiveReadOnlyMounts": True, "userNamespaces": True},
                 "name": ""},
                {"features": {"recursiveReadOnlyMounts": False, "userNamespaces": False},
                 "name": "runsc"},
            ],
        },
    }
    if role == "gpu":
        node["status"]["runtimeHandlers"].insert(0, {
            "features": {"recursiveReadOnlyMounts": True, "userNamespaces": True},
            "name": "nvidia"})
    return node


# --------------------------------------------------------------------------------------------
# other kinds


def meta(kind: str, name: str, ns: str | None, created: datetime, **extra) -> dict:
    m = {"creationTimestamp": ts(created), "name": name,
         "resourceVersion": rv(f"{kind}/{ns}/{name}"), "uid": uid(kind, ns or "", name)}
    if ns:
        m["namespace"] = ns
    m.update(extra)
    return m


def priority_classes() -> list[dict]:
    t0 = at("2025-03-10T08:02:20")
    out = []
    for name, value, desc, policy, default in [
        ("batch-low", -10, "Best-effort batch work; never preempts other pods.", "Never", False),
        ("default-priority", 0, "Default for pods without a priorityClassName.",
         "PreemptLowerPriority", True),
        ("high-priority", 100000, "Customer-facing incident and recovery workloads.",
         "PreemptLowerPriority", False),
        ("system-cluster-critical", 2000000000,
         "Used for system critical pods that must run in the cluster, but can be moved to "
         "another node if necessary.", "PreemptLowerPriority", False),
        ("system-node-critical", 2000001000,
         "Used for system critical pods that must not be moved from their current node.",
         "PreemptLowerPriority", False),
    ]:
        created = t0 if name.startswith("system-") else at("2025-03-10T09:14:52")
        pc = {"apiVersion": "scheduling.k8s.io/v1", "description": desc,
              "kind": "PriorityClass",
              "metadata": meta("PriorityClass", name, None, created, generation=1),
              "preemptionPolicy": policy, "value": value}
        if default:
            pc["globalDefault"] = True
        out.append(pc)
    return out


def runtime_classes() -> list[dict]:
    return [{"apiVersion": "node.k8s.io/v1", "handler": "runsc", "kind": "RuntimeClass",
             "metadata": meta("RuntimeClass", "gvisor", None, at("2025-04-02T10:00:00")),
             "overhead": {"podFixed": {"cpu": "250m", "memory": "120Mi"}}}]


def pdbs() -> list[dict]:
    def healthy(ns: str, app: str) -> int:
        return sum(1 for p in PODS if p["metadata"]["namespace"] == ns
                   and p["metadata"]["labels"].get("app") == app
                   and p["status"]["phase"] == "Running")

    out = []
    for ns, name, app, spec_extra, created in [
        ("payments", "ledger-pdb", "ledger", {"minAvailable": 2}, at("2025-06-02T09:00:00")),
        ("shop", "frontend-pdb", "frontend", {"maxUnavailable": 1}, at("2025-05-12T13:20:00")),
    ]:
        expected = healthy(ns, app)
        desired = spec_extra.get("minAvailable", expected - spec_extra.get("maxUnavailable", 0))
        allowed = max(0, expected - desired)
        out.append({
            "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": meta("PodDisruptionBudget", name, ns, created, generation=1,
                             labels={"app": app}),
            "spec": {**spec_extra, "selector": {"matchLabels": {"app": app}}},
            "status": {"conditions": [{"lastTransitionTime": ts(at("2025-12-09T11:05:41")),
                                       "message": "", "observedGeneration": 1,
                                       "reason": "SufficientPods", "status": "True",
                                       "type": "DisruptionAllowed"}],
                       "currentHealthy": expected, "desiredHealthy": desired,
                       "disruptionsAllowed": allowed, "expectedPods": expected,
                       "observedGeneration": 1},
        })
    return out


NAMESPACES = [
    ("default", "platform", at("2025-03-10T08:02:19")),
    ("kube-system", "platform", at("2025-03-10T08:02:19")),
    ("ml", "data-science", at("2025-07-14T09:40:00")),
    ("monitoring", "sre", at("2025-03-11T14:18:31")),
    ("payments", "payments", at("2025-04-22T10:05:12")),
    ("shop", "storefront", at("2025-04-22T10:03:57")),
]


def namespaces() -> list[dict]:
    return [{"apiVersion": "v1", "kind": "Namespace",
             "metadata": meta("Namespace", name, None, created,
                              labels={"kubernetes.io/metadata.name": name, "team": team}),
             "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}}
            for name, team, created in NAMESPACES]


def services() -> list[dict]:
    out = []
    for ns, name, ip, ports, selector, created, headless in [
        ("default", "kubernetes", "10.96.0.1", [("https", 443, 6443)], None,
         at("2025-03-10T08:02:19"), False),
        ("kube-system", "kube-dns", "10.96.0.10", [("dns", 53, 53), ("dns-tcp", 53, 53),
                                                   ("metrics", 9153, 9153)],
         {"k8s-app": "kube-dns"}, at("2025-03-10T08:02:52"), False),
        ("monitoring", "prometheus-k8s", "10.101.44.17", [("web", 9090, "web")],
         {"app.kubernetes.io/name": "prometheus", "prometheus": "k8s"},
         at("2025-10-21T08:15:00"), False),
        ("payments", "api", "10.103.12.201", [("http", 8080, "http")], {"app": "api"},
         at("2025-04-22T10:06:40"), False),
        ("payments", "ledger", "10.99.201.5", [("grpc", 9090, "grpc")], {"app": "ledger"},
         at("2025-04-22T10:06:41"), False),
        ("shop", "cart", "10.108.3.92", [("http", 80, "http")], {"app": "cart"},
         at("2025-04-22T10:04:30"), False),
        ("shop", "cart-redis", "None", [("redis", 6379, "redis")], {"app": "cart-redis"},
         at("2025-04-22T10:04:31"), True),
        ("shop", "checkout", "10.110.77.14", [("http", 80, "http"), ("grpc", 9090, "grpc")],
         {"app": "checkout"}, at("2025-04-22T10:04:33"), False),
        ("shop", "frontend", "10.97.150.8", [("http", 80, "http")], {"app": "frontend"},
         at("2025-04-22T10:04:29"), False),
    ]:
        svc_ports = []
        for pname, port, target in ports:
            proto = "UDP" if pname == "dns" else "TCP"
            svc_ports.append({"name": pname, "port": port, "protocol": proto,
                              "targetPort": target})
        spec: dict = {"clusterIP": ip, "clusterIPs": [ip], "internalTrafficPolicy": "Cluster",
                      "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack",
                      "ports": svc_ports, "sessionAffinity": "None", "type": "ClusterIP"}
        if selector:
            spec["selector"] = selector
        labels = {"component": "apiserver", "provider": "kubernetes"} if name == "kubernetes" \
            else {"app": name} if ns in ("shop", "payments") else \
            {"k8s-app": "kube-dns", "kubernetes.io/cluster-service": "true",
             "kubernetes.io/name": "CoreDNS"} if name == "kube-dns" else \
            {"app.kubernetes.io/name": "prometheus"}
        out.append({"apiVersion": "v1", "kind": "Service",
                    "metadata": meta("Service", name, ns, created, labels=labels),
                    "spec": spec, "status": {"loadBalancer": {}}})
    return out


# --------------------------------------------------------------------------------------------
# a small model of the default filters, to fill in the pending pods' messages and to check


def node_used(node_name: str) -> dict:
    used: dict = {"pods": 0}
    for pod in PODS:
        if pod["spec"].get("nodeName") == node_name:
            for k, v in pod_requests(pod).items():
                used[k] = used.get(k, 0) + v
            used["pods"] += 1
    return used


def tolerated(pod: dict, taint: dict) -> bool:
    for t in pod["spec"].get("tolerations", []):
        if t.get("effect") and t["effect"] != taint["effect"]:
            continue
        if t.get("key") and t["key"] != taint["key"]:
            continue
        if t.get("operator") == "Exists":
            return True
        if t.get("value", "") == taint.get("value", ""):
            return True
    return False


def filter_reasons(pod: dict, node: dict, without: set[str] = frozenset()) -> tuple[list, bool]:
    """(reasons, resolvable) of the first failing filter; ([], True) when the pod fits."""
    if node["spec"].get("unschedulable") and not any(
            t.get("key") == "node.kubernetes.io/unschedulable" and t.get("operator") == "Exists"
            for t in pod["spec"].get("tolerations", [])):
        return ["node(s) were unschedulable"], False
    for taint in node["spec"].get("taints", []):
        if taint["effect"] in ("NoSchedule", "NoExecute") and not tolerated(pod, taint):
            return [f"node(s) had untolerated taint {{{taint['key']}: {taint.get('value', '')}}}"
                    ], False
    sel = pod["spec"].get("nodeSelector") or {}
    if any(node["metadata"]["labels"].get(k) != v for k, v in sel.items()):
        return ["node(s) didn't match Pod's node affinity/selector"], False
    req = pod_requests(pod)
    used: dict = {"pods": 0}
    for other in PODS:
        if other["spec"].get("nodeName") == node["metadata"]["name"] \
                and other["metadata"]["uid"] not in without:
            for k, v in pod_requests(other).items():
                used[k] = used.get(k, 0) + v
            used["pods"] += 1
    alloc = {k: q(v) for k, v in node["status"]["allocatable"].items()}
    reasons = []
    if used["pods"] + 1 > alloc["pods"]:
        reasons.append("Too many pods")
    for r in ("cpu", "memory", "ephemeral-storage"):
        if req.get(r, 0) and used.get(r, 0) + req[r] > alloc.get(r, 0):
            reasons.append(f"Insufficient {r}")
    for r, v in req.items():
        if "/" in r and v and used.get(r, 0) + v > alloc.get(r, 0):
            reasons.append(f"Insufficient {r}")
    return reasons, True


def unschedulable_message(pod: dict, nodes: list[dict]) -> str | None:
    hist: Counter = Counter()
    resolvable = []
    for node in nodes:
        reasons, ok = filter_reasons(pod, node)
        if not reasons:
            return None  # fits somewhere
        for r in reasons:
            hist[r] += 1
        if ok:
            resolvable.append(node)
    msg = f"0/{len(nodes)} nodes are available: " + ", ".join(
        sorted(f"{v} {k}" for k, v in hist.items())) + "."
    if pod["spec"].get("preemptionPolicy") == "Never":
        return msg + " preemption: not eligible due to preemptionPolicy=Never."
    prio = pod["spec"]["priority"]
    post: Counter = Counter()
    post["Preemption is not helpful for scheduling"] = len(nodes) - len(resolvable)
    for node in resolvable:
        victims = {p["metadata"]["uid"] for p in PODS
                   if p["spec"].get("nodeName") == node["metadata"]["name"]
                   and p["spec"]["priority"] < prio}
        if not victims:
            post["No preemption victims found for incoming pod"] += 1
            continue
        reasons, _ = filter_reasons(pod, node, victims)
        if not reasons:
            raise SystemExit(f"{pod['metadata']['name']}: preemption would help on "
                             f"{node['metadata']['name']}; adjust the sample")
        for r in reasons:
            post[r] += 1
    post_msg = ", ".join(sorted(f"{v} {k}" for k, v in post.items() if v))
    return f"{msg} preemption: 0/{len(nodes)} nodes are available: {post_msg}."


# --------------------------------------------------------------------------------------------


def build() -> tuple[dict, list[dict]]:
    build_pods()
    nodes = [make_node(*spec) for spec in NODE_SPECS]
    nodes.sort(key=lambda n: n["metadata"]["name"])

    for pod in PODS:
        if pod["status"]["phase"] != "Pending":
            continue
        cond = pod["status"]["conditions"][0]
        computed = unschedulable_message(pod, nodes)
        if cond["message"] == "@computed":
            if computed is None:
                raise SystemExit(f"{pod['metadata']['name']} should not fit but does")
            cond["message"] = computed
        elif cond["message"] == "@stale":
            if computed is not None:
                raise SystemExit(f"{pod['metadata']['name']} should fit but does not")
            # recorded while the feature-extract shards were starting and the workers were full
            n_workers = sum(1 for n in nodes if NODE_ROLE[n["metadata"]["name"]] == "worker")
            cond["message"] = (
                f"0/{len(nodes)} nodes are available: 1 node(s) had untolerated taint "
                "{node-role.kubernetes.io/control-plane: }, 1 node(s) were unschedulable, "
                f"3 node(s) had untolerated taint {{nvidia.com/gpu: present}}, {n_workers} "
                "Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.")

    pods = sorted(PODS, key=lambda p: (p["metadata"]["namespace"], p["metadata"]["name"]))
    rss = sorted(REPLICASETS, key=lambda r: (r["metadata"]["namespace"], r["metadata"]["name"]))
    items = (nodes + pods + priority_classes() + runtime_classes() + pdbs() + namespaces()
             + services() + rss)
    return {"apiVersion": "v1", "items": items, "kind": "List",
            "metadata": {"resourceVersion": ""}}, nodes


def check(nodes: list[dict], verbose: bool) -> None:
    problems = []
    rows = []
    for node in nodes:
        name = node["metadata"]["name"]
        alloc = {k: q(v) for k, v in node["status"]["allocatable"].items()}
        used = node_used(name)
        for r, v in used.items():
            if v > alloc.get(r, 0):
                problems.append(f"{name}: {r} requested {v} > allocatable {alloc.get(r, 0)}")
        free_cpu = alloc["cpu"] - used.get("cpu", 0)
        free_mem = alloc["memory"] - used.get("memory", 0)
        gpu = alloc.get("nvidia.com/gpu")
        rows.append((name, used["pods"], int(free_cpu * 1000), int(free_mem / 2**20),
                     f"{int(gpu - used.get('nvidia.com/gpu', 0))}/{int(gpu)}" if gpu else "-"))
    if verbose:
        print(f"{'node':<11} {'pods':>4} {'free cpu':>10} {'free mem':>11} {'free gpu':>8}")
        for name, n, cpu, mem, gpu in rows:
            print(f"{name:<11} {n:>4} {cpu:>9}m {mem:>9}Mi {gpu:>8}")
        running = sum(1 for p in PODS if p["status"]["phase"] == "Running")
        print(f"pods: {running} running, {len(PODS) - running} pending")
        for p in PODS:
            if p["status"]["phase"] == "Pending":
                print(f"  {p['metadata']['namespace']}/{p['metadata']['name']}: "
                      f"{p['status']['conditions'][0]['message']}")
    if problems:
        raise SystemExit("\n".join(problems))


class KubectlDumper(yaml.SafeDumper):
    """Quote like kubectl (go-yaml): strings that would read back as another type ("110",
    "2025-...Z", "", "true") in double quotes; other strings needing quotes in single quotes."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if dumper.resolve(yaml.ScalarNode, value, (True, False)) != "tag:yaml.org,2002:str":
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"')
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


KubectlDumper.add_representer(str, _represent_str)


def main() -> None:
    doc, nodes = build()
    check(nodes, "--check" in sys.argv)
    text = yaml.dump(doc, Dumper=KubectlDumper, sort_keys=True, default_flow_style=False,
                     allow_unicode=True)
    OUT.write_text(text)
    if "--check" in sys.argv:
        print(f"wrote {OUT} ({len(doc['items'])} items)")


if __name__ == "__main__":
    main()
