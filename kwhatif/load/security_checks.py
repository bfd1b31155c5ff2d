"""What the API server refuses of a pod's and a container's securityContext (core validation.go:
validatePodSpecSecurityContext, ValidateSecurityContext, validateSeccompProfileField,
ValidateAppArmorProfileField, ValidateProcMountType), with its texts. kwhatif schedules without
reading them, but a manifest `kubectl apply` refuses must not pass a check. Not judged: sysctls
against host namespaces, seLinuxChangePolicy, supplementalGroupsPolicy and windowsOptions (their
rules hang on feature gates or on details kwhatif does not model); `privileged` is taken (a cluster
that refuses it says so with --allow-privileged=false, which kwhatif cannot see)."""

from __future__ import annotations

import re
from collections.abc import Callable

from kwhatif.api import settings
from kwhatif.golang import go_quote, not_supported
from kwhatif.load.fields import Fields
from kwhatif.load.refs import describe_value

ID_RANGE = "must be between 0 and 2147483647, inclusive"
"""validation.IsValidUserID / IsValidGroupID: InclusiveRangeError(0, math.MaxInt32)."""
PROFILE_TYPES = ("Localhost", "RuntimeDefault", "Unconfined")  # seccomp's and AppArmor's alike
FS_GROUP_CHANGE_POLICIES = ("Always", "OnRootMismatch")  # sets.List: sorted
PROC_MOUNTS = ("Default", "Unmasked")
_SYSCTL_SEGMENT = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
SYSCTL_PATTERN = f"^({_SYSCTL_SEGMENT}[\\./])*{_SYSCTL_SEGMENT}$"
"""sysctlContainSlashRegexp, as its String() prints it in the error."""
_SYSCTL = re.compile(SYSCTL_PATTERN)
SYSCTL_MAX_LENGTH = 253


def check_pod_security(f: Fields, spec: dict) -> None:
    """validatePodSpecSecurityContext: ids in range, shareProcessNamespace not beside hostPID (the
    internal type keeps both in the security context, hence its path), sysctls named once, known
    fsGroupChangePolicy, seccomp and AppArmor profiles."""
    path = "spec.securityContext"
    context = f.map(spec, "securityContext", "spec")
    _check_ids(f, context, path, ("fsGroup", "runAsUser", "runAsGroup"))
    for i, gid in enumerate(f.list(context, "supplementalGroups", path)):
        at = f"{path}.supplementalGroups[{i}]"
        if isinstance(gid, bool) or not isinstance(gid, int):
            raise f.error(at, f"expected an integer, got {describe_value(gid)}")
        _in_range(f, gid, at)
    if f.bool(spec, "shareProcessNamespace", "spec") and f.bool(spec, "hostPID", "spec"):
        raise f.error(f"{path}.shareProcessNamespace",
                      "Invalid value: true: ShareProcessNamespace and HostPID cannot both be enabled")
    _check_sysctls(f, context, path)
    policy = f.opt_str(context, "fsGroupChangePolicy", path)
    if policy is not None and policy not in FS_GROUP_CHANGE_POLICIES:
        raise f.error(f"{path}.fsGroupChangePolicy", not_supported(policy, FS_GROUP_CHANGE_POLICIES))
    _check_seccomp(f, context, path)
    _check_apparmor(f, context, path)


def check_container_security(f: Fields, container: dict, path: str, host_users: bool) -> None:
    """ValidateSecurityContext: ids in range, a known procMount (Unmasked only in a user
    namespace), the seccomp profile, no privileged container that may not escalate (nor one
    adding CAP_SYS_ADMIN), the AppArmor profile."""
    context = f.opt_map(container, "securityContext", path)
    if context is None:
        return
    path = f"{path}.securityContext"
    _check_ids(f, context, path, ("runAsUser", "runAsGroup"))
    proc_mount = f.opt_str(context, "procMount", path)
    if proc_mount is not None and proc_mount not in PROC_MOUNTS:
        raise f.error(f"{path}.procMount", not_supported(proc_mount, PROC_MOUNTS))
    if proc_mount == "Unmasked" and host_users:
        raise f.error(f"{path}.procMount", 'Invalid value: "Unmasked": `hostUsers` must be false to use `Unmasked`')
    _check_seccomp(f, context, path)
    if context.get("allowPrivilegeEscalation") is False:
        _check_no_escalation(f, context, path)
    _check_apparmor(f, context, path)


def _check_no_escalation(f: Fields, context: dict, path: str) -> None:
    """allowPrivilegeEscalation false contradicts privileged true and an added CAP_SYS_ADMIN (the
    value printed is the whole security context, as JSON for Go's struct)."""
    shown = settings.canonical(context)
    if f.bool(context, "privileged", path):
        raise f.error(path, f"Invalid value: {shown}: cannot set `allowPrivilegeEscalation` to false and "
                            "`privileged` to true")
    capabilities = f.map(context, "capabilities", path)
    if "CAP_SYS_ADMIN" in f.str_list(capabilities, "add", f"{path}.capabilities"):
        raise f.error(path, f"Invalid value: {shown}: cannot set `allowPrivilegeEscalation` to false and "
                            "`capabilities.Add` CAP_SYS_ADMIN")


def _check_ids(f: Fields, context: dict, path: str, keys: tuple[str, ...]) -> None:
    """User and group ids (int64 fields) each in range, in `keys`' order."""
    for key in keys:
        value = f.int(context, key, path, bits=64)
        if value is not None:
            _in_range(f, value, f"{path}.{key}")


def _in_range(f: Fields, value: int, path: str) -> None:
    """validation.IsValidUserID / IsValidGroupID: [0, MaxInt32]."""
    if not 0 <= value <= 2147483647:
        raise f.error(path, f"Invalid value: {value}: {ID_RANGE}")


def _check_sysctls(f: Fields, context: dict, path: str) -> None:
    """validateSysctls: each named, by a valid name, once."""
    seen: set[str] = set()
    for i, sysctl in enumerate(f.items(context, "sysctls", path, lambda e, p: e)):
        at = f"{path}.sysctls[{i}].name"
        name = f.str(sysctl, "name", f"{path}.sysctls[{i}]")
        if not name:
            raise f.error(at, "Required value")
        if len(name.encode()) > SYSCTL_MAX_LENGTH or _SYSCTL.match(name) is None or "\n" in name:
            raise f.error(at, f"Invalid value: {go_quote(name)}: must have at most {SYSCTL_MAX_LENGTH} characters "
                              f"and match regex {SYSCTL_PATTERN}")
        if name in seen:
            raise f.error(at, f"Duplicate value: {go_quote(name)}")
        seen.add(name)


def _check_seccomp(f: Fields, context: dict, path: str) -> None:
    """validateSeccompProfileField: a known type; Localhost names its profile."""
    _check_profile(f, context, path, "seccompProfile", "seccomp", lambda name: name is not None)


def _check_apparmor(f: Fields, context: dict, path: str) -> None:
    """ValidateAppArmorProfileField: a known type; Localhost names its profile (not blank)."""
    _check_profile(f, context, path, "appArmorProfile", "AppArmor", lambda name: name is not None and bool(name.strip()))


def _check_profile(f: Fields, context: dict, path: str, field: str, said: str,
                   named: Callable[[str | None], bool]) -> None:
    """A seccomp or AppArmor profile, judged alike upstream but for their words and what names a
    Localhost profile (`named`)."""
    profile = f.opt_map(context, field, path)
    if profile is None:
        return
    path = f"{path}.{field}"
    kind = f.str(profile, "type", path)
    if not kind:
        raise f.error(f"{path}.type", f"Required value: type is required when {field} is set")
    if kind not in PROFILE_TYPES:
        raise f.error(f"{path}.type", not_supported(kind, PROFILE_TYPES))
    if kind == "Localhost" and not named(f.opt_str(profile, "localhostProfile", path)):
        raise f.error(f"{path}.localhostProfile", f"Required value: must be set when {said} type is Localhost")
