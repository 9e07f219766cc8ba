"""Who may read each file the tool writes, whatever the umask (000 or 077): what shows the cards
(the set files, the key, the results database with its -wal and -shm, the printed pages that show
hands) is the owner's alone (0600, the event folder 0700); what is public (the commitment, the
manifest, labels, travellers) follows the umask. Found by the reliability reviews.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import SAMPLE_TRAVELLERS, dealt_demo
from test_results_support import dealer_at


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


@pytest.fixture
def umask_set(request: pytest.FixtureRequest) -> Iterator[int]:
    value: int = request.param
    old = os.umask(value)
    try:
        yield value
    finally:
        os.umask(old)


@pytest.mark.parametrize("umask_set", [0o000, 0o077], indirect=True, ids=["umask000", "umask077"])
def test_secret_files_are_owner_only_whatever_the_umask(tmp_path: Path, umask_set: int) -> None:
    """Set files, the key, the results database (and its -wal/-shm) and every page
    that shows cards are 0600, the event folder 0700, under umask 000 and 077; public files
    (commitment, manifest, labels, travellers) follow the umask."""
    event = dealt_demo(tmp_path)
    folder = tmp_path / "boards" / "demo"
    assert dealer_at(tmp_path, "results", "import", event, SAMPLE_TRAVELLERS).exit_code == 0
    database = folder / "results.sqlite"
    reader = sqlite3.connect(database)  # held open so that the -wal and -shm files stay
    try:
        reader.execute("SELECT count(*) FROM results").fetchone()
        added = dealer_at(tmp_path, "results", "add", event, "--round", 3, "--match", 2, "--table", "B",
                          "--board", 16, "--points", 40)
        assert added.exit_code == 0, added.output  # the one slot the sample file leaves empty
        for suffix in ("-wal", "-shm"):
            side = database.with_name(database.name + suffix)
            assert side.exists(), side
            assert mode(side) == 0o600, (side, oct(mode(side)))
    finally:
        reader.close()
    out = tmp_path / "out"
    for kind in ("hand-records", "curtain-cards", "dealing-guide", "labels", "travellers"):
        result = dealer_at(tmp_path, "print", kind, event, "--set", 1, "--format", "html", "--out", out)
        assert result.exit_code == 0, result.output
    public = 0o666 & ~umask_set
    assert mode(folder) == 0o700
    for name in ("deal.key", "set-01.json", "set-02.json", "set-03.json", "results.sqlite"):
        assert mode(folder / name) == 0o600, (name, oct(mode(folder / name)))
    for name in ("commitment.json", "manifest.json"):
        assert mode(folder / name) == public, (name, oct(mode(folder / name)))
    for kind in ("hand-records", "curtain-cards", "dealing-guide"):
        page = out / f"{kind}-set-01-zh.html"
        assert mode(page) == 0o600, (kind, oct(mode(page)))
    for kind in ("labels", "travellers"):
        page = out / f"{kind}-set-01-zh.html"
        assert mode(page) == public, (kind, oct(mode(page)))
