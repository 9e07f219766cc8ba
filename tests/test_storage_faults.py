"""When the machine refuses: a disk that fills up during an import, a read-only medium (a results
database archived on it, with or without its -wal and -shm; a copy whose -wal still holds
changes), a database another program holds longer than the busy timeout. Each is exit 3 ("the
machine refused"), one line saying why and that nothing was stored; the database stays whole and
readable, and usable once the machine allows it again.

The faults that need a real machine run the command in a subprocess inside a private mount
namespace (``unshare --mount``), as root, on a small tmpfs or a read-only bind mount. Found by
the reliability reviews; each test drives ``dealer`` as the reviewer did, on the hand-worked event
(``test_results_support``).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from conftest import assert_one_error, files_under, report_json_of
from test_results_support import (
    HAND,
    HEADER,
    db_path,
    db_state,
    dealer_at,
    edit_database,
    hand_rows,
    match_2_rows,
    scored_hand_event,
    write_csv,
)

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent


def run_in_mount_namespace(tmp_path: Path, shell_setup: str, script: str) -> dict[str, Any]:
    """Run ``shell_setup`` then the Python ``script`` (after :data:`SCRIPT_PRELUDE`; it prints one
    JSON object on its last line) in a private mount namespace as root; its JSON. A machine
    without ``unshare`` or ``mount`` fails the test: these faults need a real filesystem."""
    assert os.geteuid() == 0, "these tests mount filesystems: run them as root"
    for tool in ("unshare", "mount"):
        assert shutil.which(tool), f"{tool} is needed to test a real full or read-only filesystem"
    program = tmp_path / "in_namespace.py"
    program.write_text(SCRIPT_PRELUDE + textwrap.dedent(script), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(TESTS)])}
    command = f"set -e\n{shell_setup}\nexec {sys.executable} {program}"
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", command],
                          capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


#: Prelude of the namespace scripts: the CLI helper, and what one run did as a JSON-able dict.
SCRIPT_PRELUDE = """
import json, sqlite3, sys
from pathlib import Path
from conftest import run_dealer

def run(*args):
    outcome = run_dealer(*args)
    return {"exit": outcome.exit_code, "out": outcome.output}
"""


def big_event(tmp_path: Path) -> Path:
    """40 teams, 8 rounds of 20 matches on one set of 16 boards: 5,120 table results."""
    teams = [f"T{i:02d}" for i in range(1, 41)]
    lines = ["[event]", 'id = "big"', 'name = "Big"', 'profile = "official-2002"', "decks = 2",
             "boards_per_set = 16", "sets = 1", ""]
    for team in teams:
        lines += ["[[teams]]", f'id = "{team}"', ""]
    for number in range(1, 9):
        turn = teams[number:] + teams[:number]
        matches = ", ".join(f'{{ id = "{k + 1}", home = "{turn[2 * k]}", away = "{turn[2 * k + 1]}", set = 1 }}'
                            for k in range(20))
        lines += ["[[rounds]]", f"number = {number}", f"matches = [ {matches} ]", ""]
    path = tmp_path / "big.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def big_rows() -> list[list[object]]:
    return [[r, str(m), t, b, (b * 5) % 200] for r in range(1, 9) for m in range(1, 21) for t in "AB"
            for b in range(1, 17)]


def test_a_full_disk_during_an_import_stores_nothing(tmp_path: Path) -> None:
    """The disk fills up in the middle of an import (a real 1 MB tmpfs holding the
    boards folder, a traveller file of 5,120 rows): exit 3 "disk is full", nothing stored, the
    database intact (integrity check, audit) and usable once there is room again."""
    event = big_event(tmp_path)
    assert dealer_at(tmp_path, "deal", event).exit_code == 0
    rows = big_rows()
    first = write_csv(tmp_path / "first.csv", HEADER, rows[:16])
    assert dealer_at(tmp_path, "results", "import", event, first).exit_code == 0
    travellers = write_csv(tmp_path / "travellers.csv", HEADER, rows[16:])
    small = tmp_path / "small"
    small.mkdir()
    found = run_in_mount_namespace(
        tmp_path,
        f"mount -t tmpfs -o size=1m tmpfs {small}\ncp -a {tmp_path / 'boards'} {small}/boards",
        f"""
        import shutil
        B = "{small}/boards"
        database = Path(B) / "big" / "results.sqlite"
        def rows():
            conn = sqlite3.connect(database)
            try:
                return conn.execute("SELECT count(*) FROM results").fetchone()[0], \\
                    conn.execute("PRAGMA integrity_check").fetchone()[0]
            finally:
                conn.close()
        before = rows()
        full = run("results", "import", "{event}", "{travellers}", "--boards-dir", B)
        free = shutil.disk_usage("{small}").free
        after = rows()
        audit = run("results", "audit", "{event}", "--boards-dir", B)
        print(json.dumps({{"before": before, "full": full, "free": free, "after": after, "audit": audit}}))
        """)
    assert found["full"]["exit"] == 3, found["full"]
    assert "disk is full" in found["full"]["out"] and "nothing" in found["full"]["out"], found["full"]
    assert "Traceback" not in found["full"]["out"] and "cannot rollback" not in found["full"]["out"]
    assert found["before"] == [16, "ok"] and found["after"] == [16, "ok"], found
    assert found["audit"]["exit"] == 0, found["audit"]
    # the same import, with room: every row goes in
    result = dealer_at(tmp_path, "results", "import", event, travellers)
    assert result.exit_code == 0 and f"imported {len(rows) - 16} row(s)" in result.output, result.output


@pytest.mark.parametrize("side_files", [True, False], ids=["with-wal-and-shm", "database-file-alone"])
def test_a_read_only_database_can_be_read_and_refuses_writes(tmp_path: Path, side_files: bool) -> None:
    """On a read-only medium (a read-only bind mount), ``report --json``, ``results
    missing``, ``history`` and ``audit`` work and create nothing; writing commands exit 3
    ("read-only"), nothing stored. Both as the tool leaves the folder and as an archive holding
    the database file alone (no -wal or -shm, which a read-only medium cannot create)."""
    event = scored_hand_event(tmp_path, hand_rows())
    expected = report_json_of(event, tmp_path / "boards")
    folder = tmp_path / "boards" / "hand"
    if side_files:  # a read-only reader (the report above) cannot checkpoint: it leaves them
        reader = sqlite3.connect(f"file:{db_path(tmp_path)}?mode=ro", uri=True)
        reader.execute("SELECT count(*) FROM results").fetchone()
        reader.close()
        assert (folder / "results.sqlite-shm").exists() and (folder / "results.sqlite-wal").exists()
    else:
        edit_database(db_path(tmp_path), "PRAGMA journal_mode = WAL", "PRAGMA wal_checkpoint(TRUNCATE)")
        for suffix in ("-wal", "-shm"):
            folder.joinpath("results.sqlite" + suffix).unlink(missing_ok=True)
    before = files_under(folder)
    more = write_csv(tmp_path / "more.csv", HEADER, match_2_rows()[:2])
    b = tmp_path / "boards"
    found = run_in_mount_namespace(tmp_path, f"mount --bind {b} {b}\nmount -o remount,bind,ro {b}", f"""
        B = "{b}"
        reads = {{
            "report": run("report", "{event}", "--json", "--boards-dir", B),
            "missing": run("results", "missing", "{event}", "--boards-dir", B),
            "history": run("results", "history", "{event}", "--round", "1", "--match", "1", "--table", "A",
                           "--board", "1", "--boards-dir", B),
            "audit": run("results", "audit", "{event}", "--boards-dir", B),
        }}
        writes = {{
            "add": run("results", "add", "{event}", "--round", "1", "--match", "2", "--table", "A", "--board",
                       "1", "--points", "5", "--boards-dir", B),
            "import": run("results", "import", "{event}", "{more}", "--boards-dir", B),
            "correct": run("results", "correct", "{event}", "--round", "1", "--match", "1", "--table", "A",
                           "--board", "1", "--points", "5", "--reason", "typo", "--boards-dir", B),
        }}
        names = sorted(p.name for p in Path(B, "hand").iterdir())
        print(json.dumps({{"reads": reads, "writes": writes, "names": names}}))
        """)
    for what, outcome in found["reads"].items():
        assert outcome["exit"] == 0, (what, outcome)
    assert json.loads(found["reads"]["report"]["out"]) == expected
    assert "round 1 match 1 (H v V): complete" in found["reads"]["missing"]["out"]
    assert f"R1 M1 A board  1:{HAND[1][0]:>5}" in found["reads"]["history"]["out"]
    assert "audit passed" in found["reads"]["audit"]["out"]
    for what, outcome in found["writes"].items():
        assert outcome["exit"] == 3, (what, outcome)
        assert "read-only" in outcome["out"] and "Traceback" not in outcome["out"], (what, outcome)
    assert found["names"] == sorted(before)
    assert files_under(folder).keys() == before.keys()
    assert report_json_of(event, tmp_path / "boards") == expected


def test_a_read_only_copy_with_unwritten_changes_is_refused_not_misread(tmp_path: Path) -> None:
    """A database copied to a read-only medium with a -wal file that still holds
    changes, but without its -shm (a process was killed): reading it as immutable would ignore
    those changes and report old results. It is refused with the reason (exit 3)."""
    event = scored_hand_event(tmp_path, hand_rows())
    folder = tmp_path / "boards" / "hand"
    holder = sqlite3.connect(db_path(tmp_path), isolation_level=None)  # keeps the WAL from being checkpointed
    holder.execute("PRAGMA wal_autocheckpoint = 0")
    holder.execute("SELECT count(*) FROM results").fetchone()
    assert dealer_at(tmp_path, "results", "add", event, "--round", 1, "--match", 2, "--table", "A",
                     "--board", 1, "--points", 5).exit_code == 0
    archive = tmp_path / "archive"
    shutil.copytree(tmp_path / "boards", archive / "boards")
    holder.close()
    (archive / "boards" / "hand" / "results.sqlite-shm").unlink()
    assert (archive / "boards" / "hand" / "results.sqlite-wal").stat().st_size > 0
    b = archive / "boards"
    found = run_in_mount_namespace(tmp_path, f"mount --bind {b} {b}\nmount -o remount,bind,ro {b}", f"""
        print(json.dumps({{"report": run("report", "{event}", "--json", "--boards-dir", "{b}")}}))
        """)
    assert found["report"]["exit"] == 3, found
    assert "-wal file holds changes" in found["report"]["out"], found
    assert folder.exists()


def test_a_database_locked_too_long_is_the_machines_refusal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another program holding the results database longer than the busy timeout:
    writing commands exit 3 "locked … nothing stored" (not a traceback); reading still works."""
    import dealer.store.db

    event = scored_hand_event(tmp_path, hand_rows()[:10])
    monkeypatch.setattr(dealer.store.db, "BUSY_TIMEOUT_S", 0.3)
    stored = db_state(tmp_path)
    holder = sqlite3.connect(db_path(tmp_path), isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        more = write_csv(tmp_path / "more.csv", HEADER, hand_rows()[10:12])
        for args in (("results", "add", event, "--round", 1, "--match", 2, "--table", "A", "--board", 1,
                      "--points", 5),
                     ("results", "import", event, more),
                     ("results", "correct", event, "--round", 1, "--match", 1, "--table", "A", "--board", 1,
                      "--points", 5, "--reason", "typo")):
            result = dealer_at(tmp_path, *args)
            assert_one_error(result, "locked", "nothing stored", status=3)
        assert dealer_at(tmp_path, "report", event, "--json").exit_code == 0
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert db_state(tmp_path) == stored
