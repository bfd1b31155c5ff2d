"""`kwhatif.files.write_whole`: an output written whole or not at all, into what the path is —
the file a symlink points to, with the permissions it had, a device in place."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from kwhatif.files import write_whole


def test_a_new_file_is_written_and_nothing_is_left_beside_it(tmp_path: Path) -> None:
    write_whole(str(tmp_path / "out.json"), b"{}")
    assert (tmp_path / "out.json").read_bytes() == b"{}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_an_existing_file_keeps_its_permissions(tmp_path: Path) -> None:
    target = tmp_path / "private.json"
    target.write_bytes(b"old")
    target.chmod(0o600)
    write_whole(str(target), b"new")
    assert target.read_bytes() == b"new" and stat.S_IMODE(target.stat().st_mode) == 0o600


def test_a_symlink_stays_and_its_target_is_written(tmp_path: Path) -> None:
    (tmp_path / "real.json").write_bytes(b"old")
    (tmp_path / "link.json").symlink_to("real.json")
    write_whole(str(tmp_path / "link.json"), b"new")
    assert (tmp_path / "link.json").is_symlink() and (tmp_path / "real.json").read_bytes() == b"new"


@pytest.mark.skipif(not os.path.exists("/dev/full") or not os.access("/dev/full", os.W_OK),
                    reason="no writable /dev/full on this system")
def test_a_device_is_written_in_place_never_replaced(tmp_path: Path) -> None:
    """/dev/full: every write fails with ENOSPC — said, and the device is still a device."""
    (tmp_path / "full.json").symlink_to("/dev/full")
    with pytest.raises(OSError) as err:
        write_whole(str(tmp_path / "full.json"), b"x" * 65536)
    assert err.value.errno == errno.ENOSPC
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_a_failed_write_leaves_the_old_file_and_no_partial_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "out.json"
    target.write_bytes(b"old")

    def no_rename(_src: str, _dst: str) -> None:
        raise OSError(errno.EXDEV, "Invalid cross-device link")
    monkeypatch.setattr(os, "replace", no_rename)
    with pytest.raises(OSError):
        write_whole(str(target), b"new")
    assert target.read_bytes() == b"old" and sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
