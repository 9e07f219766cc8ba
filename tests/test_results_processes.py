"""Real processes: concurrent imports lose nothing; a killed import leaves the database as it was."""

from __future__ import annotations

import datetime as dt
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from test_results_support import HEADER, db_path, db_state, hand_rows, run, write_csv, write_event

# The child process runs the real `dealer results import`; to stop it between inserting its rows
# and committing them, the script wraps the store's insert step (in that process only). It
# writes its pid to the marker file, then waits until the "go" file exists (or the time is up),
# writes the time it let go, and returns: the commit follows, so the write lock is held from
# before the marker until after the release time.
PAUSING = """
import os, sys, time
from pathlib import Path
from dealer.store.db import ResultsStore
inserting = ResultsStore.insert
marker, go, seconds = Path(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3])
def insert_then_pause(*args, **kwargs):
    import_id = inserting(*args, **kwargs)
    marker.write_text(str(os.getpid()))
    deadline = time.monotonic() + seconds
    while not go.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    Path(str(marker) + ".released").write_text(repr(time.time()))
    return import_id
ResultsStore.insert = insert_then_pause
from dealer.cli import main
main(sys.argv[4:])
"""
# A second importer that records the moment it asks for the write lock (BEGIN IMMEDIATE).
ASKING = """
import sys, time
from pathlib import Path
from dealer.store.db import ResultsStore
beginning = ResultsStore.transaction
def ask_then_begin(store):
    Path(sys.argv[1]).write_text(repr(time.time()))
    return beginning(store)
ResultsStore.transaction = ask_then_begin
from dealer.cli import main
main(sys.argv[2:])
"""
PLAIN = "import sys; from dealer.cli import main; main(sys.argv[1:])"


def _spawn(tmp_path: Path, event_path: Path, csv_path: Path, pause_at: Path | None = None,
           seconds: float = 600, asking_at: Path | None = None) -> subprocess.Popen[bytes]:
    args = ["results", "import", str(event_path), str(csv_path), "--boards-dir", str(tmp_path / "boards")]
    if pause_at:
        command = [sys.executable, "-c", PAUSING, str(pause_at), str(tmp_path / "go"), str(seconds), *args]
    elif asking_at:
        command = [sys.executable, "-c", ASKING, str(asking_at), *args]
    else:
        command = [sys.executable, "-c", PLAIN, *args]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _wait_for(path: Path, process: subprocess.Popen[bytes], holder: subprocess.Popen[bytes] | None = None) -> None:
    """Wait until ``process`` writes ``path``; ``holder`` (if given) must stay alive meanwhile."""
    deadline = time.monotonic() + 60
    while not path.exists():
        assert process.poll() is None, process.communicate()
        assert holder is None or holder.poll() is None, holder.communicate()
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.02)


def _import_times(tmp_path: Path) -> dict[str, float]:
    """Source file name → when its import record was written (inside its transaction)."""
    conn = sqlite3.connect(db_path(tmp_path))
    try:
        return {Path(source).name: dt.datetime.fromisoformat(at).timestamp()
                for source, at in conn.execute("SELECT source, at FROM imports ORDER BY id")}
    finally:
        conn.close()


def _rows(tmp_path: Path) -> list[tuple[object, ...]]:
    return [r for r in db_state(tmp_path) if r[0] == "results"]


def test_two_processes_importing_at_once_lose_nothing(tmp_path: Path) -> None:
    event_path = write_event(tmp_path)
    match_1 = write_csv(tmp_path / "m1.csv", HEADER, hand_rows())
    match_2 = write_csv(tmp_path / "m2.csv", HEADER, [[r[0], "2", *r[2:]] for r in hand_rows()])
    marker, asking = tmp_path / "paused", tmp_path / "asking"
    # The first holds the write lock (rows inserted, not committed) until the test says go.
    first = _spawn(tmp_path, event_path, match_1, pause_at=marker)
    _wait_for(marker, first)
    second = _spawn(tmp_path, event_path, match_2, asking_at=asking)
    assert first.poll() is None  # still paused, holding the lock, when the second starts
    # The second asks for the write lock while the first still holds it ...
    _wait_for(asking, second, holder=first)
    time.sleep(0.5)
    assert first.poll() is None and second.poll() is None, "the second did not wait for the lock"
    (tmp_path / "go").write_text("")
    out_1 = first.communicate(timeout=120)
    out_2 = second.communicate(timeout=120)
    assert first.returncode == 0, out_1
    assert second.returncode == 0, out_2
    assert len(_rows(tmp_path)) == 64
    # ... and gets it only after the first let go: its import record is written after that.
    released = float(Path(str(marker) + ".released").read_text())
    asked = float(asking.read_text())
    times = _import_times(tmp_path)
    assert list(times) == ["m1.csv", "m2.csv"]
    assert asked < released < times["m2.csv"] + 0.001  # imports.at is kept to the millisecond
    assert times["m1.csv"] < asked
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
