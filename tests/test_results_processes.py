"""Real processes: concurrent imports lose nothing; a killed import leaves the database as it was."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from test_results_support import HEADER, db_state, hand_rows, run, write_csv, write_event

# The child process runs the real `dealer results import`; to stop it between inserting its rows
# and committing them, the script wraps the importer's insert step (in that process only).
PAUSING = """
import os, sys, time
from pathlib import Path
import dealer.results.importer as importer
inserting = importer.insert_batch
def insert_then_pause(*args, **kwargs):
    import_id = inserting(*args, **kwargs)
    Path(sys.argv[1]).write_text(str(os.getpid()))
    time.sleep(float(sys.argv[2]))
    return import_id
importer.insert_batch = insert_then_pause
from dealer.cli import main
main(sys.argv[3:])
"""
PLAIN = "import sys; from dealer.cli import main; main(sys.argv[1:])"


def _spawn(tmp_path: Path, event_path: Path, csv_path: Path, pause_at: Path | None = None,
           seconds: float = 600) -> subprocess.Popen[bytes]:
    args = ["results", "import", str(event_path), str(csv_path), "--boards-dir", str(tmp_path / "boards")]
    command = ([sys.executable, "-c", PAUSING, str(pause_at), str(seconds), *args] if pause_at
               else [sys.executable, "-c", PLAIN, *args])
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _wait_for(path: Path, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while not path.exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the import never reached the pause point"
        time.sleep(0.02)


def _rows(tmp_path: Path) -> list[tuple[object, ...]]:
    return [r for r in db_state(tmp_path) if r[0] == "results"]


def test_two_processes_importing_at_once_lose_nothing(tmp_path: Path) -> None:
    event_path = write_event(tmp_path)
    match_1 = write_csv(tmp_path / "m1.csv", HEADER, hand_rows())
    match_2 = write_csv(tmp_path / "m2.csv", HEADER, [[r[0], "2", *r[2:]] for r in hand_rows()])
    marker = tmp_path / "paused"
    # The first holds the write lock for a moment; the second must wait for it, not fail.
    first = _spawn(tmp_path, event_path, match_1, pause_at=marker, seconds=1.5)
    _wait_for(marker, first)
    second = _spawn(tmp_path, event_path, match_2)
    out_2 = second.communicate(timeout=120)
    out_1 = first.communicate(timeout=120)
    assert first.returncode == 0, out_1
    assert second.returncode == 0, out_2
    assert len(_rows(tmp_path)) == 64
    # And two without any pause, started together.
    more_1 = write_csv(tmp_path / "m1b.csv", HEADER, [[1, "1", "A", 1, 0]])  # already there: a no-op
    more_2 = write_csv(tmp_path / "m2b.csv", HEADER, [[1, "2", "A", 1, 0]])
    procs = [_spawn(tmp_path, event_path, p) for p in (more_1, more_2)]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    assert len(_rows(tmp_path)) == 64


def test_killed_import_leaves_the_database_as_it_was(tmp_path: Path) -> None:
    event_path = write_event(tmp_path)
    seed = write_csv(tmp_path / "seed.csv", HEADER, hand_rows()[:4])
    assert run("results", "import", str(event_path), str(seed), "--boards-dir",
               str(tmp_path / "boards")).exit_code == 0
    before = db_state(tmp_path)
    marker = tmp_path / "paused"
    process = _spawn(tmp_path, event_path, write_csv(tmp_path / "all.csv", HEADER, hand_rows()[4:]),
                     pause_at=marker)
    _wait_for(marker, process)  # rows inserted, not committed
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL
    assert db_state(tmp_path) == before
    # The database still works and takes the same file afterwards.
    result = run("results", "import", str(event_path), str(tmp_path / "all.csv"), "--boards-dir",
                 str(tmp_path / "boards"))
    assert result.exit_code == 0 and "imported 28 row(s)" in result.output
