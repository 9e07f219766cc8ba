"""Helpers shared by the scoring, results and report tests (no tests of its own).

The hand-worked match: team H (home) v team V (away), profile official-2002, 2 decks, the default
schedule (declarer N, E, S, W, …; levels 2, 3, … A). Level points by hand (2 decks: P < 0 →
declarer 3 + ceil(-P/40); 0 → 3; 5–35 → 2; 40–75 → 1; 80–115 上台 0; ≥ 120 → defenders
1 + floor((P-120)/40)). At A home (H) sits E-W, at B home sits N-S.
"""

from __future__ import annotations

import csv
import sqlite3
from pathlib import Path

from conftest import Outcome, run_dealer

from dealer.app.dealing import deal_event
from dealer.files import load_event
from dealer.store.folder import EventFolder

EVENT_TOML = """
[event]
id = "hand"
name = "Hand-worked match"
profile = "official-2002"
decks = 2
boards_per_set = 16
sets = 1

[[teams]]
id = "H"
name = "主队"

[[teams]]
id = "V"
name = "客队"

[[teams]]
id = "X"
name = "第三队"

[[teams]]
id = "Y"
name = "第四队"

[[rounds]]
number = 1
matches = [ { id = "1", home = "H", away = "V", set = 1 }, { id = "2", home = "X", away = "Y", set = 1 } ]
"""

# board: (A points, B points, (A NS, A EW), (B NS, B EW), home, away) — worked out by hand.
HAND: dict[int, tuple[int, int, tuple[int, int], tuple[int, int], int, int]] = {
    1: (0, 80, (3, 0), (0, 0), 0, 3),        # N declares: A NS +3; B 上台
    2: (35, 40, (0, 2), (0, 1), 2, 1),       # E declares: A EW +2; B EW +1
    3: (120, 75, (0, 1), (1, 0), 2, 0),      # S: A defenders EW +1; B NS +1
    4: (-5, 160, (0, 4), (2, 0), 6, 0),      # W: A EW 3+1; B defenders NS 1+1
    5: (200, 5, (0, 3), (2, 0), 5, 0),       # N: A defenders EW 1+2; B NS +2
    6: (115, 155, (0, 0), (1, 0), 1, 0),     # E: A 上台; B defenders NS +1
    7: (40, 35, (1, 0), (2, 0), 2, 1),       # S: A NS +1; B NS +2
    8: (80, 0, (0, 0), (0, 3), 0, 3),        # W: A 上台; B EW +3
    9: (-40, -45, (4, 0), (5, 0), 5, 4),     # N: A 3+1; B 3+2
    10: (240, 120, (4, 0), (1, 0), 1, 4),    # E: A defenders NS 1+3; B defenders NS +1
    11: (60, 60, (1, 0), (1, 0), 1, 1),      # S: NS +1 at both
    12: (10, 100, (0, 2), (0, 0), 2, 0),     # W: A EW +2; B 上台
    13: (155, 195, (0, 1), (0, 2), 1, 2),    # N: A defenders EW +1; B defenders EW 1+1
    14: (75, 25, (0, 1), (0, 2), 1, 2),      # E: A EW +1; B EW +2
    15: (-80, 45, (5, 0), (1, 0), 1, 5),     # S: A 3+2; B NS +1
    16: (125, 235, (1, 0), (3, 0), 3, 1),    # W: A defenders NS +1; B defenders NS 1+2
}
HOME_TOTAL = 33  # 0+2+2+6+5+1+2+0+5+1+1+2+1+1+1+3
AWAY_TOTAL = 27  # 3+1+0+0+0+0+1+3+4+4+1+0+2+2+5+1
MARGIN = 6

run = run_dealer  # the CLI helper of conftest, under the name these tests use

HEADER = ["round", "match", "table", "board", "defenders_points"]


def hand_rows() -> list[list[object]]:
    rows: list[list[object]] = []
    for board, (a, b, *_rest) in HAND.items():
        rows.append([1, "1", "A", board, a])
        rows.append([1, "1", "B", board, b])
    return rows


def write_event(tmp_path: Path, text: str = EVENT_TOML) -> Path:
    """The hand-worked event file, dealt into tmp_path/boards (results need a dealt event)."""
    path = tmp_path / "hand.toml"
    path.write_text(text, encoding="utf-8")
    folder = EventFolder("hand", tmp_path / "boards")
    if folder.deal_state() != "complete":
        deal_event(load_event(path), folder)
    return path


def write_csv(path: Path, header: list[str], rows: list[list[object]], encoding: str = "utf-8") -> Path:
    with path.open("w", encoding=encoding, newline="") as stream:
        writer = csv.writer(stream)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def db_path(tmp_path: Path) -> Path:
    return tmp_path / "boards" / "hand" / "results.sqlite"


def snapshot_rows(conn: sqlite3.Connection) -> list[tuple[object, ...]]:
    """Every row of every table, in a stable order (to compare a database before and after)."""
    out: list[tuple[object, ...]] = []
    for table in ("meta", "imports", "results"):
        out.extend((table, *tuple(r)) for r in conn.execute(f"SELECT * FROM {table} ORDER BY 1"))
    return out


def db_state(tmp_path: Path) -> list[tuple[object, ...]]:
    path = db_path(tmp_path)
    if not path.exists():
        return []
    conn = sqlite3.connect(path)
    try:
        return snapshot_rows(conn)
    finally:
        conn.close()


def dealer_at(tmp_path: Path, *args: object) -> Outcome:
    """``dealer ARGS… --boards-dir tmp_path/boards``."""
    return run_dealer(*args, "--boards-dir", tmp_path / "boards")


def scored_hand_event(tmp_path: Path, rows: list[list[object]]) -> Path:
    """The hand event dealt, with ``rows`` imported; the event file's path."""
    event = write_event(tmp_path)
    result = dealer_at(tmp_path, "results", "import", event, write_csv(tmp_path / "seed.csv", HEADER, rows))
    assert result.exit_code == 0, result.output
    return event


def match_2_rows() -> list[list[object]]:
    """The hand match's slips as round 1 match 2's (X v Y)."""
    return [[1, "2", table, board, points] for _round, _match, table, board, points in hand_rows()]


def results_rows(tmp_path: Path) -> list[tuple[object, ...]]:
    """The imports and results stored (an empty database may have been created)."""
    return [row for row in db_state(tmp_path) if row[0] != "meta"]


def edit_database(path: Path, *statements: str) -> None:
    """Run SQL on a results database as another program would (the sqlite3 shell), each
    statement on its own."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        for statement in statements:
            conn.execute(statement)
    finally:
        conn.close()
