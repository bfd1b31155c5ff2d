"""A file nobody may read, root included, for the tests of "cannot read file" errors.

`chmod 0` is enough for an ordinary user, but root reads any file whatever its mode; procfs
write-only entries (`/proc/sys/vm/drop_caches`, mode 0200) refuse reads even to root, so a
symlink to one gives the real EACCES there too and the tests run everywhere instead of skipping."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

WRITE_ONLY = Path("/proc/sys/vm/drop_caches")


def make_unreadable(path: Path, content: bytes) -> None:
    """Create `path` so that opening it for reading fails with permission denied."""
    if os.geteuid() != 0:
        path.write_bytes(content)
        path.chmod(0)
        return
    if not WRITE_ONLY.exists():
        pytest.skip(f"running as root without {WRITE_ONLY}: no file is unreadable to root here")
    path.symlink_to(WRITE_ONLY)
