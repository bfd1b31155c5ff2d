"""Writing an output file whole or not at all, without replacing what the path is."""

from __future__ import annotations

import os
import stat


def write_whole(path: str, data: bytes) -> None:
    """`data` into `path`, as a whole or not at all: written to a file beside the path's real
    target (a symlink is followed — the link stays, what it points to changes), given that
    target's permissions (a 0600 snapshot stays 0600), then renamed over it, so that a reader
    never sees half a file. A path that is no regular file (a device such as /dev/stdout or
    /dev/full, a FIFO) is written in place: renaming over it would replace the device with a
    file. OSError as the system says it (no space left, permission denied...)."""
    target = os.path.realpath(path)
    try:
        mode: int | None = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        with open(target, "wb") as stream:
            stream.write(data)
        return
    partial = f"{target}.partial"
    try:
        with open(partial, "wb") as stream:
            stream.write(data)
        if mode is not None:
            os.chmod(partial, stat.S_IMODE(mode))
        os.replace(partial, target)
    except OSError:
        if os.path.lexists(partial):
            os.remove(partial)
        raise
