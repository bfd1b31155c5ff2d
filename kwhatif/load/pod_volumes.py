"""What the API server checks of a pod's volumes and its containers' mounts and port names
(core validation.go: ValidateVolumes, validateVolumeSource, ValidateVolumeMounts,
validateContainerPorts), with its texts. kwhatif keeps only the volumes scheduling reads, but a
template that mounts a volume it does not declare — a typo, a volume dropped in a refactor — is
refused by `kubectl apply`, and must not pass a check. (A big JSON dump's fast reader keeps no
mounts, nor the volumes scheduling does not read: its pods are those the API server accepted, and
each replica's service-account token volume and mount have a name of their own. Port names it
keeps, and checks.)"""

from __future__ import annotations

from kwhatif.api.names import is_dns1123_label, is_valid_port_name
from kwhatif.golang import go_quote
from kwhatif.load.fields import Fields

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
    """The volumes, then each container's port names and mounts (ValidatePodSpec's order)."""
    names = _check_volumes(f, f.items(spec, "volumes", "spec", lambda e, p: e))
    for key in ("containers", "initContainers"):
        for i, container in enumerate(f.items(spec, key, "spec", lambda e, p: e)):
            _check_container(f, container, f"spec.{key}[{i}]", names)


def _check_volumes(f: Fields, volumes: tuple[dict, ...]) -> set[str]:
    """ValidateVolumes: each volume named (an RFC 1123 label, unique) with exactly one source;
    the names, for the mounts."""
    names: set[str] = set()
    for i, volume in enumerate(volumes):
        path = f"spec.volumes[{i}]"
        name = f.str(volume, "name", path)
        if not name:
            raise f.error(f"{path}.name", "Required value")
        wrong = is_dns1123_label(name)
        if wrong:
            raise f.error(f"{path}.name", f"Invalid value: {go_quote(name)}: {wrong[0]}")
        if name in names:
            raise f.error(f"{path}.name", f"Duplicate value: {go_quote(name)}")
        names.add(name)
        sources = [shown for key, shown in VOLUME_SOURCES if volume.get(key) is not None]
        if not sources:
            raise f.error(path, "Required value: must specify a volume type")
        if len(sources) > 1:
            raise f.error(f"{path}.{sources[1]}", "Forbidden: may not specify more than 1 volume type")
    return names


def _check_container(f: Fields, container: dict, path: str, volumes: set[str]) -> None:
    """validateContainerPorts' names (an IANA service name, unique in the container) and
    ValidateVolumeMounts (each mount names a declared volume, at a path of its own)."""
    seen: set[str] = set()
    for i, port in enumerate(f.items(container, "ports", path, lambda e, p: e)):
        name = f.str(port, "name", f"{path}.ports[{i}]")
        wrong = is_valid_port_name(name) if name else ()
        if wrong:
            raise f.error(f"{path}.ports[{i}].name", f"Invalid value: {go_quote(name)}: {wrong[0]}")
        if name and name in seen:
            raise f.error(f"{path}.ports[{i}].name", f"Duplicate value: {go_quote(name)}")
        seen.add(name)
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
