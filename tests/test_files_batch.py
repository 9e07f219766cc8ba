"""Many new files written at once (``dealer.files.write_new_files``, what ``dealer deal`` writes its
set files with): each whole or not at all, owner-only whatever the umask, never replacing a file;
and one file (``write_atomic``) the same on a file system without hard links (a FAT USB stick)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from dealer.files import OWNER_ONLY, write_new_files


def test_new_files_are_written_whole_owner_only_whatever_the_umask(tmp_path: Path) -> None:
    folder = tmp_path / "new" / "event"
    old = os.umask(0)
    try:
        kept = write_new_files(folder, ((f"set-{n:02d}.json", b"x" * n) for n in range(1, 6)), OWNER_ONLY)
    finally:
        os.umask(old)
    assert kept == []
    assert sorted(p.name for p in folder.iterdir()) == [f"set-{n:02d}.json" for n in range(1, 6)]
    for n in range(1, 6):
        path = folder / f"set-{n:02d}.json"
        assert path.read_bytes() == b"x" * n
        assert stat.S_IMODE(path.stat().st_mode) == OWNER_ONLY


def test_a_file_already_there_is_kept_untouched_and_named(tmp_path: Path) -> None:
    (tmp_path / "b.json").write_bytes(b"before")
    kept = write_new_files(tmp_path, [("a.json", b"A"), ("b.json", b"B"), ("c.json", b"C")], OWNER_ONLY)
    assert kept == ["b.json"]
    assert [(tmp_path / n).read_bytes() for n in ("a.json", "b.json", "c.json")] == [b"A", b"before", b"C"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.json", "c.json"]  # no temporary left


def test_a_file_system_without_hard_links_still_gets_new_files_atomically(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """FAT and exFAT USB sticks have no hard links (``os.link`` fails with EPERM): a new file is
    still written whole, and an existing one is still never replaced."""
    import errno

    from dealer.files import write_atomic

    def no_links(source: str, target: str, **_options: object) -> None:
        raise OSError(errno.EPERM, "Operation not permitted", source)

    monkeypatch.setattr(os, "link", no_links)
    target = tmp_path / "stick" / "set-01.json"
    write_atomic(target, b"dealt")
    assert target.read_bytes() == b"dealt"
    with pytest.raises(FileExistsError):
        write_atomic(target, b"other")
    assert target.read_bytes() == b"dealt"
    assert sorted(p.name for p in target.parent.iterdir()) == ["set-01.json"]
