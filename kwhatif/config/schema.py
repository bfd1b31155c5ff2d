"""The v1 KubeSchedulerConfiguration types (kubescheduler.config.k8s.io/v1) as the strict decoder
walks them: field names in declaration order, Go type names for the decoder's errors."""

from __future__ import annotations

from kwhatif.config.types import BOOL, DURATION, FLOAT32, INT32, INT64, STRING, TYPE_META, ListOf, Raw, Struct
from kwhatif.framework.interfaces import POINTS

GROUP = "kubescheduler.config.k8s.io"
API_VERSION = f"{GROUP}/v1"
KIND = "KubeSchedulerConfiguration"
SCHEME = "k8s.io/kubernetes/pkg/scheduler/apis/config/scheme/scheme.go:30"

_PLUGIN = Struct("Plugin", "v1.Plugin", {"name": STRING, "weight": INT32})
_PLUGIN_SET = Struct("PluginSet", "v1.PluginSet", {"enabled": ListOf(_PLUGIN), "disabled": ListOf(_PLUGIN)})
_PLUGINS = Struct("Plugins", "v1.Plugins",
                  {name: _PLUGIN_SET for name in tuple(p.name for p in POINTS) + ("multiPoint",)})
_PROFILE = Struct("KubeSchedulerProfile", "v1.KubeSchedulerProfile", {
    "schedulerName": STRING, "percentageOfNodesToScore": INT32, "plugins": _PLUGINS,
    "pluginConfig": ListOf(Struct("PluginConfig", "v1.PluginConfig", {"name": STRING, "args": Raw()})),
})
_EXTENDER = Struct("Extender", "v1.Extender", {
    "urlPrefix": STRING, "filterVerb": STRING, "preemptVerb": STRING, "prioritizeVerb": STRING, "weight": INT64,
    "bindVerb": STRING, "enableHTTPS": BOOL,
    "tlsConfig": Struct("ExtenderTLSConfig", "v1.ExtenderTLSConfig", {
        "insecure": BOOL, "serverName": STRING, "certFile": STRING, "keyFile": STRING, "caFile": STRING,
        "certData": STRING, "keyData": STRING, "caData": STRING}),
    "httpTimeout": DURATION, "nodeCacheCapable": BOOL,
    "managedResources": ListOf(Struct("ExtenderManagedResource", "v1.ExtenderManagedResource",
                                      {"name": STRING, "ignoredByScheduler": BOOL})),
    "ignorable": BOOL,
})
CONFIG_SCHEMA = Struct("KubeSchedulerConfiguration", "v1.KubeSchedulerConfiguration", {
    **TYPE_META,
    "parallelism": INT32,
    "leaderElection": Struct("LeaderElectionConfiguration", "v1alpha1.LeaderElectionConfiguration", {
        "leaderElect": BOOL, "leaseDuration": DURATION, "renewDeadline": DURATION, "retryPeriod": DURATION,
        "resourceLock": STRING, "resourceName": STRING, "resourceNamespace": STRING}),
    "clientConnection": Struct("ClientConnectionConfiguration", "v1alpha1.ClientConnectionConfiguration", {
        "kubeconfig": STRING, "acceptContentTypes": STRING, "contentType": STRING, "qps": FLOAT32,
        "burst": INT32}),
    "enableProfiling": BOOL, "enableContentionProfiling": BOOL,
    "percentageOfNodesToScore": INT32, "podInitialBackoffSeconds": INT64, "podMaxBackoffSeconds": INT64,
    "profiles": ListOf(_PROFILE), "extenders": ListOf(_EXTENDER), "delayCacheUntilActive": BOOL,
})
