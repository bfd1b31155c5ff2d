"""What the API server checks of a pod's volumes and its containers' termination message policy,
mounts, port names, claim names, env, pull policy, security context, lifecycle hooks and probes
(core validation.go: ValidateVolumes, validateVolumeSource, validateContainerCommon,
ValidateVolumeMounts, validateContainerPorts, validateResourceClaimNames, ValidateEnv,
validatePullPolicy, ValidateSecurityContext, validateLifecycle, validateProbe), with its texts. kwhatif keeps only the volumes scheduling reads, but a
template that mounts a volume it does not declare — a typo, a volume dropped in a refactor — is
refused by `kubectl apply`, and must not pass a check. (A big JSON dump's fast reader keeps no
mounts, hooks, probes nor security contexts, nor the volumes scheduling does not read: its pods are
those the API server accepted, and each replica's service-account token volume and mount have a
name of their own. Port names it keeps, and checks.)"""

from __future__ import annotations

from collections.abc import Callable

from kwhatif.api.names import is_dns1123_label, is_valid_port_name
from kwhatif.golang import go_quote, not_supported
from kwhatif.load.fields import Fields
from kwhatif.load.security_checks import check_container_security

VOLUME_SOURCES: tuple[tuple[str, str], ...] = (
    ("emptyDir", "emptyDir"), ("hostPath", "hostPath"), ("gitRepo", "gitRepo"),
    ("gcePersistentDisk", "gcePersistentDisk"), ("awsElasticBlockStore", "awsElasticBlockStore"),
    ("secret", "secret"), ("nfs", "nfs"), ("iscsi", "iscsi"), ("glusterfs", "glusterfs"), ("flocker", "flocker"),
    ("persistentVolumeClaim", "persistentVolumeClaim"), ("rbd", "rbd"), ("cinder", "cinder"), ("cephfs", "cephFS"),
    ("quobyte", "quobyte"), ("downwardAPI", "downwarAPI"), ("fc", "fc"), ("flexVolume", "flexVolume"),
    ("configMap", "configMap"), ("azureFile", "azureFile"), ("vsphereVolume", "vsphereVolume"),
    ("photonPersistentDisk", "photonPersistentDisk"), ("portworxVolume", "portworxVolume"),
    ("azureDisk", "azureDisk"), ("storageos", "storageos"), ("projected", "projected"), ("scaleIO", "scaleIO"),
    ("csi", "csi"), ("ephemeral", "ephemeral"), ("image", "image"),
)
"""(field, the path a second source is refused at) in validateVolumeSource's order — its paths
as written there, typo ("downwarAPI") and case ("cephFS") included."""


def check_pod(f: Fields, spec: dict) -> None:
    """The volumes, then each container's fields (ValidatePodSpec's order): validateContainerCommon's
    that kwhatif judges, then the lifecycle and probes a regular container or a sidecar may have
    and a plain init container may not."""
    names = _check_volumes(f, f.items(spec, "volumes", "spec", lambda e, p: e))
    claims = {f.str(claim, "name", f"spec.resourceClaims[{i}]")
              for i, claim in enumerate(f.items(spec, "resourceClaims", "spec", lambda e, p: e))}
    host_users = spec.get("hostUsers") is not False  # the default is true
    grace = f.int(spec, "terminationGracePeriodSeconds", "spec", bits=64)
    for key in ("containers", "initContainers"):
        for i, container in enumerate(f.items(spec, key, "spec", lambda e, p: e)):
            path = f"spec.{key}[{i}]"
            _check_termination_message_policy(f, container, path)
            _check_container(f, container, path, names)
            _check_claim_names(f, container, path, claims)
            _check_env(f, container, path)
            _check_pull_policy(f, container, path)
            check_container_security(f, container, path, host_users)
            if key == "containers" or container.get("restartPolicy") == "Always":
                _check_lifecycle_and_probes(f, container, path, DEFAULT_GRACE_PERIOD if grace is None else grace)
            else:
                _forbid_lifecycle_and_probes(f, container, path)


DEFAULT_GRACE_PERIOD = 30  # core v1 defaults.go: SetDefaults_PodSpec (DefaultTerminationGracePeriodSeconds)
TERMINATION_MESSAGE_POLICIES = ("File", "FallbackToLogsOnError")
LIFECYCLE_HOOKS = ("postStart", "preStop")
LIFECYCLE_HANDLERS = ("exec", "httpGet", "tcpSocket", "sleep")
"""handlerFromLifecycle's handlers, in validateHandler's order (no grpc)."""


def _check_termination_message_policy(f: Fields, container: dict, path: str) -> None:
    """validateContainerCommon: File or FallbackToLogsOnError (empty: defaulted to File)."""
    policy = f.str(container, "terminationMessagePolicy", path)
    if policy and policy not in TERMINATION_MESSAGE_POLICIES:
        raise f.error(f"{path}.terminationMessagePolicy", not_supported(policy, TERMINATION_MESSAGE_POLICIES))


def _check_lifecycle_and_probes(f: Fields, container: dict, path: str, grace: int) -> None:
    """validateContainers (and a sidecar's validateInitContainers): validateLifecycle, then the
    probes (a liveness or startup probe succeeds once)."""
    lifecycle = f.map(container, "lifecycle", path)
    for hook in LIFECYCLE_HOOKS:
        handler = f.opt_map(lifecycle, hook, f"{path}.lifecycle")
        if handler is not None:
            _check_lifecycle_handler(f, handler, f"{path}.lifecycle.{hook}", grace)
    for probe in PROBES:
        if container.get(probe) is not None:
            _check_probe(f, f.map(container, probe, path), f"{path}.{probe}",
                         probe == "livenessProbe" or probe == "startupProbe")


def _forbid_lifecycle_and_probes(f: Fields, container: dict, path: str) -> None:
    """validateInitContainers: an init container that is not a sidecar runs to completion, so has
    no lifecycle hooks nor probes."""
    for key in ("lifecycle", *PROBES):
        if container.get(key) is not None:
            raise f.error(f"{path}.{key}", "Forbidden: may not be set for init containers without restartPolicy=Always")


def _check_lifecycle_handler(f: Fields, handler: dict, path: str, grace: int) -> None:
    """validateHandler of a hook: one handler; a sleep within the grace period
    (PodLifecycleSleepActionAllowZero, on in v1.34: zero allowed). A negative grace period is
    not compared with: the API server treats it as 1 after validation's warning."""
    kind = _one_handler(f, handler, path, LIFECYCLE_HANDLERS)
    if kind != "sleep" or grace < 0:
        return
    seconds = f.int(f.map(handler, "sleep", path), "seconds", f"{path}.sleep", 0, bits=64) or 0
    if not 0 <= seconds <= grace:
        raise f.error(f"{path}.sleep", f"Invalid value: {seconds}: must be non-negative and less than "
                                       f"terminationGracePeriodSeconds ({grace})")


def _one_handler(f: Fields, handler: dict, path: str, kinds: tuple[str, ...]) -> str:
    """validateHandler's count: exactly one of `kinds`, the second one refused; the one set."""
    present = [key for key in kinds if handler.get(key) is not None]
    if not present:
        raise f.error(path, "Required value: must specify a handler type")
    if len(present) > 1:
        raise f.error(f"{path}.{present[1]}", "Forbidden: may not specify more than 1 handler type")
    return present[0]


def unique_name(f: Fields, name: str, path: str, judge: Callable[[str], tuple[str, ...]], seen: set[str]) -> None:
    """A name `judge` takes (its first message is the error) and `seen` lacks (field.Duplicate);
    added to `seen`."""
    wrong = judge(name)
    if wrong:
        raise f.error(path, f"Invalid value: {go_quote(name)}: {wrong[0]}")
    if name in seen:
        raise f.error(path, f"Duplicate value: {go_quote(name)}")
    seen.add(name)


def _check_volumes(f: Fields, volumes: tuple[dict, ...]) -> set[str]:
    """ValidateVolumes: each volume named (an RFC 1123 label, unique) with exactly one source;
    the names, for the mounts."""
    names: set[str] = set()
    for i, volume in enumerate(volumes):
        path = f"spec.volumes[{i}]"
        name = f.str(volume, "name", path)
        if not name:
            raise f.error(f"{path}.name", "Required value")
        unique_name(f, name, f"{path}.name", is_dns1123_label, names)
        sources = [shown for key, shown in VOLUME_SOURCES if volume.get(key) is not None]
        if not sources:
            raise f.error(path, "Required value: must specify a volume type")
        if len(sources) > 1:
            raise f.error(f"{path}.{sources[1]}", "Forbidden: may not specify more than 1 volume type")
        _check_claim_source(f, volume, path)
    return names


def _check_claim_source(f: Fields, volume: dict, path: str) -> None:
    """validatePersistentClaimVolumeSource (a claimName) and validateEphemeralVolumeSource (a
    volumeClaimTemplate): a volume naming no claim is refused, not left waiting for one."""
    if volume.get("persistentVolumeClaim") is not None:
        at = f"{path}.persistentVolumeClaim"
        if not f.str(f.map(volume, "persistentVolumeClaim", path), "claimName", at):
            raise f.error(f"{at}.claimName", "Required value")
    if volume.get("ephemeral") is not None and f.map(volume, "ephemeral", path).get("volumeClaimTemplate") is None:
        raise f.error(f"{path}.ephemeral.volumeClaimTemplate", "Required value")


def _check_container(f: Fields, container: dict, path: str, volumes: set[str]) -> None:
    """validateContainerPorts' names (an IANA service name, unique in the container) and
    ValidateVolumeMounts (each mount names a declared volume, at a path of its own)."""
    seen: set[str] = set()
    for i, port in enumerate(f.items(container, "ports", path, lambda e, p: e)):
        name = f.str(port, "name", f"{path}.ports[{i}]")
        if name:
            unique_name(f, name, f"{path}.ports[{i}].name", is_valid_port_name, seen)
    mount_points: set[str] = set()
    for i, mount in enumerate(f.items(container, "volumeMounts", path, lambda e, p: e)):
        at = f"{path}.volumeMounts[{i}]"
        name, mount_path = f.str(mount, "name", at), f.str(mount, "mountPath", at)
        if not name:
            raise f.error(f"{at}.name", "Required value")
        if name not in volumes:
            raise f.error(f"{at}.name", f"Not found: {go_quote(name)}")
        if not mount_path:
            raise f.error(f"{at}.mountPath", "Required value")
        if mount_path in mount_points:
            raise f.error(f"{at}.mountPath", f"Invalid value: {go_quote(mount_path)}: must be unique")
        mount_points.add(mount_path)


def _check_claim_names(f: Fields, container: dict, path: str, pod_claims: set[str]) -> None:
    """validateResourceClaimNames: a container's `resources.claims` each name a claim of the pod's
    `spec.resourceClaims` — one naming none would never get its devices —, each claim (or claim
    and `request`, an RFC 1123 label) once."""
    resources, path = f.map(container, "resources", path), f"{path}.resources"
    seen: set[str] = set()
    for i, claim in enumerate(f.items(resources, "claims", path, lambda e, p: e)):
        at = f"{path}.claims[{i}]"
        name, request = f.str(claim, "name", at), f.str(claim, "request", at)
        wrong = is_dns1123_label(request) if request else ()
        if wrong:
            raise f.error(f"{at}.request", f"Invalid value: {go_quote(request)}: {wrong[0]}")
        if not name:
            raise f.error(at, "Required value")
        key = f"{name}/{request}" if request else name
        if key in seen:
            raise f.error(at, f"Duplicate value: {go_quote(key)}")
        seen.add(key)
        if name not in pod_claims:
            listed = f": {', '.join(sorted(pod_claims))}" if pod_claims else " which is empty"
            raise f.error(at, f"Not found: {go_quote(name)}: must be one of the names in pod.spec.resourceClaims"
                              f"{listed}")


def _check_env(f: Fields, container: dict, path: str) -> None:
    """ValidateEnv with relaxed names (RelaxedEnvironmentVariableValidation, on in v1.34): each
    named, in printable ASCII but '='; a valueFrom with one source, never beside a value."""
    for i, var in enumerate(f.items(container, "env", path, lambda e, p: e)):
        at = f"{path}.env[{i}]"
        name = f.str(var, "name", at)
        if not name:
            raise f.error(f"{at}.name", "Required value")
        if any(not 32 <= ord(ch) < 127 or ch == "=" for ch in name):
            raise f.error(f"{at}.name", f"Invalid value: {go_quote(name)}: a valid environment variable name must "
                          "consist only of printable ASCII characters other than '='")
        source = f.opt_map(var, "valueFrom", at)
        if source is None:
            continue
        count = sum(1 for key in ENV_SOURCES if source.get(key) is not None)
        if count == 0:
            raise f.error(f"{at}.valueFrom", 'Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, '
                          "`configMapKeyRef` or `secretKeyRef`")
        if f.str(var, "value", at):
            raise f.error(f"{at}.valueFrom", 'Invalid value: "": may not be specified when `value` is not empty')
        if count > 1:
            raise f.error(f"{at}.valueFrom", 'Invalid value: "": may not have more than one field specified at a time')


ENV_SOURCES = ("fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef", "fileKeyRef")
PULL_POLICIES = ("Always", "IfNotPresent", "Never")
PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
PROBE_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
PROBE_COUNTS = ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold")


def _check_pull_policy(f: Fields, container: dict, path: str) -> None:
    """validatePullPolicy (empty: defaulted from the image's tag)."""
    policy = f.str(container, "imagePullPolicy", path)
    if policy and policy not in PULL_POLICIES:
        raise f.error(f"{path}.imagePullPolicy", not_supported(policy, PULL_POLICIES))


def _check_probe(f: Fields, probe: dict, path: str, once: bool) -> None:
    """validateProbe: exactly one handler (in validateHandler's order), counts not negative; a
    liveness or startup probe succeeds once (successThreshold 1, its default)."""
    _one_handler(f, probe, path, PROBE_HANDLERS)
    for key in PROBE_COUNTS:
        value = f.int(probe, key, path)
        if value is not None and value < 0:
            raise f.error(f"{path}.{key}", f"Invalid value: {value}: must be greater than or equal to 0")
    threshold = f.int(probe, "successThreshold", path)
    if once and threshold not in (None, 0, 1):  # 0 is defaulted to 1 first
        raise f.error(f"{path}.successThreshold", f"Invalid value: {threshold}: must be 1")
