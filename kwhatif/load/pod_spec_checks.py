"""What the API server refuses of a pod's own fields that scheduling does not read (core
validation.go, ValidatePodSpec: validateRestartPolicy, validateDNSPolicy,
validatePodSpecSecurityContext, validatePodDNSConfig, validateReadinessGates, validateHostUsers,
the service account's name, the hostname and subdomain, validateOS with validateLinux and
validateWindows), with its texts and in its order. A manifest `kubectl apply` refuses — a typo in
an enum, a hostname with an underscore — must be reported as refused, not scheduled.

Defaults come first, as on the API server: an empty restartPolicy is Always, an empty dnsPolicy
ClusterFirst. A negative terminationGracePeriodSeconds is taken (the API server only warns, and
treats it as 1)."""

from __future__ import annotations

import ipaddress

from kwhatif.api.names import is_dns1123_label, is_dns1123_subdomain, is_qualified_name
from kwhatif.golang import go_quote, go_strings, not_supported
from kwhatif.load.fields import Fields
from kwhatif.load.security_checks import check_pod_security
from kwhatif.load.selectors import check_name

RESTART_POLICIES = ("Always", "OnFailure", "Never")
DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
OSES = ("linux", "windows")  # sets.List(validOS): sorted
MAX_DNS_NAMESERVERS = 3
MAX_DNS_SEARCH_PATHS = 32
MAX_DNS_SEARCH_LIST_CHARS = 2048
IP_EXAMPLE = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
"""validation.IsValidIP's detail."""


def check_pod_spec(f: Fields, spec: dict) -> None:
    """The pod-level checks of ValidatePodSpec, in its order (the containers', the node
    selector's, affinity's and the rest kwhatif reads are judged where they are decoded)."""
    restart_policy(f, spec, "spec")
    dns_policy = f.str(spec, "dnsPolicy", "spec") or "ClusterFirst"
    if dns_policy not in DNS_POLICIES:
        raise f.error("spec.dnsPolicy", not_supported(dns_policy, DNS_POLICIES))
    check_pod_security(f, spec)
    _check_dns_config(f, spec, dns_policy)
    for i, gate in enumerate(f.items(spec, "readinessGates", "spec", lambda e, p: e)):
        check_name(f, f.str(gate, "conditionType", f"spec.readinessGates[{i}]"),
                    f"spec.readinessGates[{i}].conditionType", is_qualified_name)
    _check_host_users(f, spec)
    account = f.str(spec, "serviceAccountName", "spec")
    if account:
        check_name(f, account, "spec.serviceAccountName", is_dns1123_subdomain)
    _check_os(f, spec)


def restart_policy(f: Fields, spec: dict, path: str) -> str:
    """validateRestartPolicy, after defaulting (empty: Always): the policy. Also the first
    refusal of a workload's template, whose kind then narrows the values (Always for the
    long-running controllers, OnFailure or Never for a Job)."""
    policy = f.str(spec, "restartPolicy", path) or "Always"
    if policy not in RESTART_POLICIES:
        raise f.error(f"{path}.restartPolicy", not_supported(policy, RESTART_POLICIES))
    return policy


def check_host_names(f: Fields, spec: dict) -> None:
    """The hostname and subdomain, each an RFC 1123 label when set. Per pod, not per template:
    a StatefulSet's pods are each their own hostname."""
    for key in ("hostname", "subdomain"):
        name = f.str(spec, key, "spec")
        if name:
            check_name(f, name, f"spec.{key}", is_dns1123_label)


def _check_dns_config(f: Fields, spec: dict, dns_policy: str) -> None:
    """validatePodDNSConfig: policy None needs nameservers; at most 3 nameservers, each an IP;
    at most 32 search paths in 2048 characters; options named. (The search paths' names are
    not judged: RelaxedDNSSearchValidation's pattern is not modelled.)"""
    path = "spec.dnsConfig"
    config = f.opt_map(spec, "dnsConfig", "spec")
    nameservers = f.str_list(config, "nameservers", path) if config is not None else ()
    if dns_policy == "None" and config is None:
        raise f.error(path, "Required value: must provide `dnsConfig` when `dnsPolicy` is None")
    if dns_policy == "None" and not nameservers:
        raise f.error(f"{path}.nameservers", "Required value: must provide at least one DNS nameserver when "
                                             "`dnsPolicy` is None")
    if config is None:
        return
    if len(nameservers) > MAX_DNS_NAMESERVERS:
        raise f.error(f"{path}.nameservers", f"Invalid value: {go_strings(nameservers).text}: must not have "
                                             f"more than {MAX_DNS_NAMESERVERS} nameservers")
    for i, server in enumerate(nameservers):
        if not is_ip(server):
            raise f.error(f"{path}.nameservers[{i}]", f"Invalid value: {go_quote(server)}: {IP_EXAMPLE}")
    searches = f.str_list(config, "searches", path)
    if len(searches) > MAX_DNS_SEARCH_PATHS:
        raise f.error(f"{path}.searches", f"Invalid value: {go_strings(searches).text}: must not have more "
                                          f"than {MAX_DNS_SEARCH_PATHS} search paths")
    if len(" ".join(searches).encode()) > MAX_DNS_SEARCH_LIST_CHARS:
        raise f.error(f"{path}.searches", f"Invalid value: {go_strings(searches).text}: must not have more "
                                          f"than {MAX_DNS_SEARCH_LIST_CHARS} characters (including spaces) in the "
                                          "search list")
    for i, option in enumerate(f.items(config, "options", path, lambda e, p: e)):
        if not f.str(option, "name", f"{path}.options[{i}]"):
            raise f.error(f"{path}.options[{i}]", "Required value: must not be empty")


def is_ip(text: str) -> bool:
    """netutils.ParseIPSloppy: IPv4 (leading zeros read as decimal) or IPv6, without a zone."""
    if ":" in text:
        if "%" in text:
            return False
        try:
            ipaddress.IPv6Address(text)
        except ValueError:
            return False
        return True
    parts = text.split(".")
    return len(parts) == 4 and all(p.isascii() and p.isdigit() and len(p) <= 3 and int(p) <= 255 for p in parts)


def _check_host_users(f: Fields, spec: dict) -> None:
    """validateHostUsers: a pod in its own user namespace (hostUsers false) shares no host
    namespace (the paths are upstream's, capitals included)."""
    if spec.get("hostUsers") is not False:
        f.bool(spec, "hostUsers", "spec")  # its type
        return
    for key, shown in (("hostNetwork", "hostNetwork"), ("hostPID", "HostPID"), ("hostIPC", "HostIPC")):
        if f.bool(spec, key, "spec"):
            raise f.error(f"spec.{shown}", "Forbidden: when `pod.Spec.HostUsers` is false")


WINDOWS_POD_FORBIDDEN = (
    ("securityContext", "appArmorProfile", "spec.securityContext.appArmorProfile"),
    ("securityContext", "seLinuxOptions", "spec.securityContext.seLinuxOptions"),
    ("", "hostUsers", "spec.hostUsers"), ("", "hostPID", "spec.hostPID"), ("", "hostIPC", "spec.hostIPC"),
    ("securityContext", "seccompProfile", "spec.securityContext.seccompProfile"),
    ("securityContext", "fsGroup", "spec.securityContext.fsGroup"),
    ("securityContext", "fsGroupChangePolicy", "spec.securityContext.fsGroupChangePolicy"),
    ("securityContext", "sysctls", "spec.securityContext.sysctls"),
    ("", "shareProcessNamespace", "spec.shareProcessNamespace"),
    ("securityContext", "runAsUser", "spec.securityContext.runAsUser"),
    ("securityContext", "runAsGroup", "spec.securityContext.runAsGroup"),
    ("securityContext", "supplementalGroups", "spec.securityContext.supplementalGroups"),
    ("securityContext", "supplementalGroupsPolicy", "spec.securityContext.supplementalGroupsPolicy"),
    ("securityContext", "seLinuxChangePolicy", "spec.securityContext.seLinuxChangePolicy"),
)
"""validateWindows' pod fields in its order: (object, field, path refused at). hostPID, hostIPC
(booleans) and sysctls (a list) count when true or not empty, the others when set."""
WINDOWS_CONTAINER_FORBIDDEN = ("appArmorProfile", "seLinuxOptions", "seccompProfile", "capabilities",
                               "readOnlyRootFilesystem", "privileged", "allowPrivilegeEscalation", "procMount",
                               "runAsUser", "runAsGroup")
"""validateWindows' container security context fields, in its order."""


def _check_os(f: Fields, spec: dict) -> None:
    """validateOS (the name required, linux or windows, refused at `spec.os`), then what the OS
    forbids: Windows options on Linux, Linux-only fields on Windows."""
    os = f.opt_map(spec, "os", "spec")
    if os is None:
        return
    name = f.str(os, "name", "spec.os")
    if not name:
        raise f.error("spec.os.name", "Required value: cannot be empty")
    if name not in OSES:
        raise f.error("spec.os", not_supported(name, OSES))
    if name == "linux":
        _forbid_windows_options(f, spec)
    else:
        _forbid_on_windows(f, spec)


def _containers_with_paths(f: Fields, spec: dict) -> list[tuple[dict, str]]:
    """podshelper.VisitContainersWithPath's order: init containers, then containers."""
    return [(c, f"spec.{key}[{i}]") for key in ("initContainers", "containers")
            for i, c in enumerate(f.items(spec, key, "spec", lambda e, p: e))]


def _forbid_windows_options(f: Fields, spec: dict) -> None:
    """validateLinux: windowsOptions in no security context."""
    contexts = [(f.map(spec, "securityContext", "spec"), "spec.securityContext")]
    contexts += [(f.map(c, "securityContext", p), f"{p}.securityContext") for c, p in _containers_with_paths(f, spec)]
    for context, path in contexts:
        if context.get("windowsOptions") is not None:
            raise f.error(f"{path}.windowsOptions", "Forbidden: windows options cannot be set for a linux pod")


def _forbid_on_windows(f: Fields, spec: dict) -> None:
    """validateWindows: the pod's Linux-only fields, then each container's."""
    pod_context = f.map(spec, "securityContext", "spec")
    for parent, key, path in WINDOWS_POD_FORBIDDEN:
        if _set_on_windows(key, (pod_context if parent else spec).get(key)):
            raise f.error(path, "Forbidden: cannot be set for a windows pod")
    for container, path in _containers_with_paths(f, spec):
        context = f.map(container, "securityContext", path)
        for key in WINDOWS_CONTAINER_FORBIDDEN:
            if context.get(key) is not None:
                raise f.error(f"{path}.securityContext.{key}", "Forbidden: cannot be set for a windows pod")


def _set_on_windows(key: str, value: object) -> bool:
    """Whether validateWindows counts a pod field as set: hostPID and hostIPC (Go booleans) when
    true, sysctls when not empty, the others (pointers, a slice) when present — hostUsers false
    and a fsGroup of 0 included."""
    if key in ("hostPID", "hostIPC"):
        return value is True
    if key == "sysctls":
        return bool(value)
    return value is not None
