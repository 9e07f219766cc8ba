"""The reliability review (``reliability-review.md``), defect by defect, through the command line.

Each test is named after the review's number and drives ``dealer`` the way the reviewer did (the
one helper :func:`conftest.run_dealer`); expected values come from the hand-worked event
(``test_results_support``) or the demo event, never from the code under test. The faults that
need a real machine (a full disk, a read-only medium) run the command in a subprocess inside a
private mount namespace (``unshare --mount``), as root, on a small tmpfs or a read-only bind mount.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import Outcome, run_dealer
from test_results_support import (
    AWAY_TOTAL,
    EVENT_TOML,
    HAND,
    HEADER,
    HOME_TOTAL,
    db_path,
    db_state,
    hand_rows,
    write_csv,
    write_event,
)

from dealer.resources import demo_event_text
from dealer.store.migrations import SCHEMA_VERSION

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
SAMPLE = REPO / "dealer" / "data" / "sample-travellers.csv"

MATCH_1 = '{ id = "1", home = "H", away = "V", set = 1 }'
MATCH_2 = '{ id = "2", home = "X", away = "Y", set = 1 }'
SWAPPED_1 = '{ id = "1", home = "V", away = "H", set = 1 }'
#: Board 16 of the hand match gives home 3, away 1 (test_results_support.HAND).
HOME_15 = HOME_TOTAL - 3
AWAY_15 = AWAY_TOTAL - 1

ESC = "\x1b"


# --- helpers ---------------------------------------------------------------------------------


def boards(tmp_path: Path) -> Path:
    return tmp_path / "boards"


def dealer_at(tmp_path: Path, *args: object) -> Outcome:
    """``dealer ARGS… --boards-dir tmp_path/boards``."""
    return run_dealer(*args, "--boards-dir", boards(tmp_path))


def edited_event(tmp_path: Path, name: str, old: str, new: str) -> Path:
    """The hand event file with ``old`` replaced by ``new`` (an edit made after the deal)."""
    assert old in EVENT_TOML
    path = tmp_path / name
    path.write_text(EVENT_TOML.replace(old, new), encoding="utf-8")
    return path


def match_2_rows() -> list[list[object]]:
    return [[1, "2", table, board, points] for _round, _match, table, board, points in hand_rows()]


def scored_hand_event(tmp_path: Path, rows: list[list[object]]) -> Path:
    """The hand event dealt, with ``rows`` imported; the event file's path."""
    event = write_event(tmp_path)
    result = dealer_at(tmp_path, "results", "import", event, write_csv(tmp_path / "seed.csv", HEADER, rows))
    assert result.exit_code == 0, result.output
    return event


def report_json(tmp_path: Path, event: Path) -> dict[str, Any]:
    result = dealer_at(tmp_path, "report", event, "--json")
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def standing(data: dict[str, Any], team: str) -> dict[str, Any]:
    found: dict[str, Any] = next(s for s in data["standings"] if s["team"] == team)
    return found


def demo_event_file(tmp_path: Path, text: str | None = None, name: str = "demo.toml") -> Path:
    path = tmp_path / name
    path.write_text(text if text is not None else demo_event_text(), encoding="utf-8")
    return path


def dealt_demo(tmp_path: Path) -> Path:
    """The demo event dealt by ``dealer deal`` into tmp_path/boards; the event file."""
    event = demo_event_file(tmp_path)
    result = dealer_at(tmp_path, "deal", event)
    assert result.exit_code == 0, result.output
    return event


def files_under(path: Path) -> dict[str, bytes]:
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


def results_rows(tmp_path: Path) -> list[tuple[object, ...]]:
    """The imports and results stored (an empty database may have been created)."""
    return [row for row in db_state(tmp_path) if row[0] != "meta"]


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def assert_one_error(result: Outcome, *texts: str, status: int = 2) -> None:
    """Refused with ``status``, an ``error:`` line, the texts named, no traceback, short lines."""
    assert result.exit_code == status, result.output
    assert "error: " in result.stderr, result.output
    assert "Traceback" not in result.output
    for text in texts:
        assert text in result.output, (text, result.output)
    assert max(len(line) for line in result.output.splitlines()) < 400, result.output


def _sql(tmp_path: Path, *statements: str) -> None:
    """Run SQL on the hand event's results database as another program would (the sqlite3 shell)."""
    conn = sqlite3.connect(db_path(tmp_path), isolation_level=None)
    try:
        for statement in statements:
            conn.execute(statement)
    finally:
        conn.close()


def run_in_mount_namespace(tmp_path: Path, shell_setup: str, script: str) -> dict[str, Any]:
    """Run ``shell_setup`` then the Python ``script`` (after :data:`SCRIPT_PRELUDE`; it prints one
    JSON object on its last line) in a private mount namespace as root; its JSON. A machine
    without ``unshare`` or ``mount`` fails the test: these defects need a real filesystem."""
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


# --- 1. home/away of a scored match edited ---------------------------------------------------


def test_defect_01_swapping_home_and_away_after_results_is_refused(tmp_path: Path) -> None:
    """Review 1: the stored slips say which team sat where; an event file edited to swap home and
    away of that match must not move the results to the other team (report, missing, correct,
    add and import all refuse, naming the match); restoring the file restores the report."""
    rows = [r for r in hand_rows() if r[3] != 16]  # boards 1-15 at both tables
    event = scored_hand_event(tmp_path, rows)
    before = report_json(tmp_path, event)
    assert (standing(before, "H")["level_points_for"], standing(before, "V")["level_points_for"]) == (
        HOME_15, AWAY_15)
    swapped = edited_event(tmp_path, "swapped.toml", MATCH_1, SWAPPED_1)
    stored = db_state(tmp_path)
    board_16 = write_csv(tmp_path / "board16.csv", HEADER, [[1, "1", "A", 16, HAND[16][0]]])
    attempts = {
        "report --json": ("report", swapped, "--json"),
        "report": ("report", swapped, "--format", "csv", "--out", tmp_path / "rep"),
        "results missing": ("results", "missing", swapped),
        "results correct": ("results", "correct", swapped, "--round", 1, "--match", 1, "--table", "A",
                            "--board", 1, "--points", 5, "--reason", "typo"),
        "results add": ("results", "add", swapped, "--round", 1, "--match", 1, "--table", "A",
                        "--board", 16, "--points", HAND[16][0]),
        "results import": ("results", "import", swapped, board_16),
    }
    for what, args in attempts.items():
        result = dealer_at(tmp_path, *args)
        assert result.exit_code == 2, (what, result.output)
        assert "round 1 match 1" in result.output, (what, result.output)
        assert "Traceback" not in result.output
    assert db_state(tmp_path) == stored  # nothing stored by any of them
    assert not (tmp_path / "rep").exists() or not any((tmp_path / "rep").iterdir())
    assert report_json(tmp_path, event)["standings"] == before["standings"]  # the file restored


def test_defect_01_withdrawing_the_match_lets_the_new_seating_report(tmp_path: Path) -> None:
    """Review 1: withdrawing every current result of the match (``correct --round --match
    --withdraw``) is the way out: the report then runs with the new seating, match 1 unscored."""
    rows = [r for r in hand_rows() if r[3] != 16]
    scored_hand_event(tmp_path, rows)
    swapped = edited_event(tmp_path, "swapped.toml", MATCH_1, SWAPPED_1)
    result = dealer_at(tmp_path, "results", "correct", swapped, "--round", 1, "--match", 1, "--withdraw",
                       "--reason", "home and away were entered the wrong way round")
    assert result.exit_code == 0, result.output
    assert f"withdrew {len(rows)} result(s) of round 1 match 1" in result.output
    data = report_json(tmp_path, swapped)
    match_1 = next(m for m in data["matches"] if (m["round"], m["match"]) == (1, "1"))
    assert (match_1["home"], match_1["away"], match_1["boards_counted"]) == ("V", "H", 0)
    assert data["no_results_yet"] is True
    history = dealer_at(tmp_path, "results", "history", swapped, "--round", 1, "--match", 1, "--table", "A",
                        "--board", 1)
    assert "withdrawn" in history.output and "home and away were entered" in history.output


# --- 2. board set files tampered with ---------------------------------------------------------


def _swap_a_card(doc: dict[str, Any]) -> str:
    hands = doc["boards"][0]["hands"]
    north, east = hands["N"], hands["E"]
    i = next(i for i, c in enumerate(north) if c not in east)
    j = next(j for j, c in enumerate(east) if c not in north)
    north[i], east[j] = east[j], north[i]
    return "board 1"


def _duplicate_board(doc: dict[str, Any]) -> str:
    doc["boards"].append(json.loads(json.dumps(doc["boards"][0])))
    return "board 1 appears twice"


def _extra_hand(doc: dict[str, Any]) -> str:
    doc["boards"][3]["hands"]["X"] = ["SA"]
    return "board 4"


def _fingerprint(doc: dict[str, Any]) -> str:
    doc["fingerprint"] = "deadbeefdeadbeef"
    return "fingerprint"


def _decks(doc: dict[str, Any]) -> str:
    doc["decks"] = 3
    return "decks is 3"


def _number_true(doc: dict[str, Any]) -> str:
    doc["boards"][0]["number"] = True
    return "board True is not in set 1"


def _plan_sha(doc: dict[str, Any]) -> str:
    doc["plan_sha256"] = "0" * 64
    return "plan_sha256"


def _commitment(doc: dict[str, Any]) -> str:
    doc["commitment"] = "f" * 64
    return "the commitment does not match this key"


def _event_name(doc: dict[str, Any]) -> str:
    doc["event_name"] = "Another Cup"  # schema 1 had it; no commitment covers it
    return "unknown field 'event_name'"


TAMPERS: dict[str, Callable[[dict[str, Any]], str]] = {
    "card swapped": _swap_a_card, "board duplicated": _duplicate_board, "extra hand X": _extra_hand,
    "fingerprint changed": _fingerprint, "top-level decks changed": _decks,
    "number true": _number_true, "plan_sha256 changed": _plan_sha, "commitment changed": _commitment,
    "event_name added": _event_name,
}
#: What printing says of each, once the manifest was edited to match the file.
WHOLE_FILE_CHECK = {
    "card swapped": "board 1: deal_code is not the code of its hands", "board duplicated": "board 1 appears twice",
    "extra hand X": "board 4: not one whole pack", "fingerprint changed": "the fingerprint is not that of the boards",
    "top-level decks changed": "decks is 3, the plan says 2", "number true": "board True is not in set 1",
    "plan_sha256 changed": "plan_sha256 is not the hash of the plan",
    "commitment changed": "not set 1 of the committed deal", "event_name added": "unknown field 'event_name'",
}
PRINT_KINDS = ("hand-records", "labels", "curtain-cards", "dealing-guide", "travellers", "score-sheets")


def tamper(set_file: Path, change: Callable[[dict[str, Any]], str]) -> str:
    """Apply ``change`` to a set file as a person with an editor would; what verify must name."""
    doc = json.loads(set_file.read_text(encoding="utf-8"))
    expected = change(doc)
    set_file.write_text(json.dumps(doc, ensure_ascii=False, indent=1), encoding="utf-8")
    return expected


@pytest.mark.parametrize("what", list(TAMPERS))
def test_defect_02_a_tampered_set_file_is_refused_everywhere(tmp_path: Path, what: str) -> None:
    """Review 2: printing (every kind), results import/add/missing and report refuse a set file
    that is not the dealt one, naming it; ``verify`` exits 1 naming the problem."""
    event = dealt_demo(tmp_path)
    set_file = boards(tmp_path) / "demo" / "set-01.json"
    expected = tamper(set_file, TAMPERS[what])
    out = tmp_path / "out"
    for kind in PRINT_KINDS:
        result = dealer_at(tmp_path, "print", kind, event, "--set", 1, "--format", "html", "--out", out)
        assert result.exit_code == 2, (kind, result.output)
        assert str(set_file) in result.output, (kind, result.output)
    assert not out.exists() or not any(out.iterdir())
    for args in (("results", "import", event, SAMPLE),
                 ("results", "add", event, "--round", 1, "--match", 1, "--table", "A", "--board", 1,
                  "--points", 30),
                 ("results", "missing", event),
                 ("report", event, "--json")):
        result = dealer_at(tmp_path, *args)
        assert result.exit_code == 2, (args, result.output)
        assert str(set_file) in result.output, (args, result.output)
    assert not (boards(tmp_path) / "demo" / "results.sqlite").exists()
    key = boards(tmp_path) / "demo" / "deal.key"
    result = run_dealer("verify", set_file, "--key-file", key)
    assert result.exit_code == 1, result.output
    assert expected in result.output, result.output


@pytest.mark.parametrize("what", list(TAMPERS))
def test_defect_02_a_manifest_edited_to_match_is_still_caught_when_printing(tmp_path: Path, what: str) -> None:
    """Review 2: whoever edits the manifest's hash to match the tampered file is still refused,
    the problem named: the set file is read whole (commitment, plan, boards, fingerprint) before
    anything is printed."""
    event = dealt_demo(tmp_path)
    folder = boards(tmp_path) / "demo"
    set_file = folder / "set-01.json"
    tamper(set_file, TAMPERS[what])
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest["files"]["set-01.json"] = hashlib.sha256(set_file.read_bytes()).hexdigest()
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    for kind in ("dealing-guide", "hand-records"):
        result = dealer_at(tmp_path, "print", kind, event, "--set", 1, "--format", "html", "--out",
                           tmp_path / "out")
        assert result.exit_code == 2, (kind, result.output)
        assert str(set_file) in result.output and WHOLE_FILE_CHECK[what] in result.output, (kind, result.output)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_defect_02_verify_without_a_commitment_says_what_it_did_not_check(tmp_path: Path) -> None:
    """Review 2: without ``--commitment`` verify shows only that the file agrees with the key
    given, and says so; with the published commitment.json it says nothing of the kind."""
    dealt_demo(tmp_path)
    folder = boards(tmp_path) / "demo"
    alone = run_dealer("verify", folder / "set-02.json", "--key-file", folder / "deal.key")
    assert alone.exit_code == 0, alone.output
    assert "note: no published commitment given" in alone.output
    published = run_dealer("verify", folder / "set-02.json", "--key-file", folder / "deal.key",
                           "--commitment", folder / "commitment.json")
    assert published.exit_code == 0, published.output
    assert "no published commitment" not in published.output
    assert "the published commitment" in published.output


# --- 3. file modes ----------------------------------------------------------------------------


@pytest.fixture
def umask_set(request: pytest.FixtureRequest) -> Iterator[int]:
    value: int = request.param
    old = os.umask(value)
    try:
        yield value
    finally:
        os.umask(old)


@pytest.mark.parametrize("umask_set", [0o000, 0o077], indirect=True, ids=["umask000", "umask077"])
def test_defect_03_secret_files_are_owner_only_whatever_the_umask(tmp_path: Path, umask_set: int) -> None:
    """Review 3: set files, the key, the results database (and its -wal/-shm) and every page
    that shows cards are 0600, the event folder 0700, under umask 000 and 077; public files
    (commitment, manifest, labels, travellers) follow the umask."""
    event = dealt_demo(tmp_path)
    folder = boards(tmp_path) / "demo"
    assert dealer_at(tmp_path, "results", "import", event, SAMPLE).exit_code == 0
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


# --- 4. append-only and tamper-evident results --------------------------------------------------


ROW_1 = ("SELECT id, round, match, tbl, board, 200, withdrawn, trump, declarer, level, ns_team, ew_team, note,"
         " entered_by, entered_at, import_id, source_row, supersedes, reason, played_set, seq, chain FROM results"
         " WHERE id = 1")
COLUMNS = ("id, round, match, tbl, board, defenders_points, withdrawn, trump, declarer, level, ns_team, ew_team,"
           " note, entered_by, entered_at, import_id, source_row, supersedes, reason, played_set, seq, chain")


def test_defect_04_replace_is_refused_by_the_database_itself(tmp_path: Path) -> None:
    """Review 4: ``INSERT OR REPLACE`` / ``REPLACE INTO`` on results, imports and meta (which
    would rewrite a row without firing the delete guard) are refused by SQLite."""
    scored_hand_event(tmp_path, hand_rows())
    stored = db_state(tmp_path)
    for statement in (
        f"INSERT OR REPLACE INTO results ({COLUMNS}) {ROW_1}",
        f"REPLACE INTO results ({COLUMNS}) {ROW_1}",
        "REPLACE INTO imports (id, source, kind, rows_added, rows_skipped, at, sample) "
        "VALUES (1, 'forged.csv', 'file', 32, 0, '2026-01-01', 0)",
        "INSERT OR REPLACE INTO meta (key, value) VALUES ('event', 'other')",
        "UPDATE meta SET value = 'other' WHERE key = 'event'",
        "DELETE FROM meta",
    ):
        with pytest.raises(sqlite3.DatabaseError):
            _sql(tmp_path, statement)
    assert db_state(tmp_path) == stored


TAMPERING = {
    # kind: (statements, what the audit names)
    "replaced": (["DROP TRIGGER results_no_replace", f"INSERT OR REPLACE INTO results ({COLUMNS}) {ROW_1}"],
                 ["results #1", "edited", "trigger results_no_replace", "trigger-missing"]),
    "deleted": (["DROP TRIGGER results_no_delete", "DELETE FROM results WHERE id = 5"],
                ["deleted", "1 row(s) deleted before results #6", "trigger results_no_delete", "trigger-missing"]),
    "edited": (["DROP TRIGGER results_no_update", "UPDATE results SET defenders_points = 200 WHERE id = 3"],
               ["results #3", "edited", "trigger results_no_update", "trigger-missing"]),
    "added": ([f"INSERT INTO results ({COLUMNS}) SELECT 99, 1, '2', 'A', 1, 200, 0, NULL, NULL, NULL, 'Y', 'X',"
               " NULL, 'mallory', entered_at, import_id, NULL, NULL, NULL, 1, NULL, NULL FROM results WHERE id = 1"],
              ["results #99", "added"]),
}


@pytest.mark.parametrize("kind", list(TAMPERING))
def test_defect_04_tampering_is_found_by_the_audit_and_blocks_writing(tmp_path: Path, kind: str) -> None:
    """Review 4: a row replaced, deleted, edited or added behind the tool's back (guards dropped
    where needed): ``results audit`` exits 1 naming each row and kind; every writing command then
    refuses with "changed outside the tool" and stores nothing."""
    event = scored_hand_event(tmp_path, hand_rows())
    statements, named = TAMPERING[kind]
    _sql(tmp_path, *statements)
    audit = dealer_at(tmp_path, "results", "audit", event)
    assert audit.exit_code == 1, audit.output
    for text in named:
        assert text in audit.output, (text, audit.output)
    stored = db_state(tmp_path)
    more = write_csv(tmp_path / "more.csv", HEADER, [[1, "2", "B", 2, 40]])
    for args in (("results", "add", event, "--round", 1, "--match", 2, "--table", "A", "--board", 3,
                  "--points", 40),
                 ("results", "import", event, more),
                 ("results", "correct", event, "--round", 1, "--match", 1, "--table", "B", "--board", 9,
                  "--points", 50, "--reason", "typo"),
                 ("results", "correct", event, "--round", 1, "--match", 1, "--withdraw", "--reason", "x")):
        result = dealer_at(tmp_path, *args)
        assert result.exit_code == 2, (args, result.output)
        assert "changed outside the tool" in result.output, (args, result.output)
    assert db_state(tmp_path) == stored


def test_defect_04_a_clean_database_audits_and_its_chain_head_is_published(tmp_path: Path) -> None:
    """Review 4: an untouched database passes the audit (exit 0) and prints its chain head, the
    same as ``report --json``'s ``results_chain_head`` and the line ``report`` prints."""
    event = scored_hand_event(tmp_path, hand_rows())
    assert dealer_at(tmp_path, "results", "correct", event, "--round", 1, "--match", 1, "--table", "A",
                     "--board", 2, "--points", 40, "--reason", "misread").exit_code == 0
    audit = dealer_at(tmp_path, "results", "audit", event)
    assert audit.exit_code == 0, audit.output
    assert "audit passed" in audit.output
    head = audit.stdout.split("chain head ", 1)[1].split()[0]
    assert len(head) == 64 and int(head, 16) >= 0
    assert report_json(tmp_path, event)["results_chain_head"] == head
    written = dealer_at(tmp_path, "report", event, "--format", "csv,html", "--out", tmp_path / "rep")
    assert written.exit_code == 0, written.output
    assert f"results chain head: {head}" in written.output
    assert head in (tmp_path / "rep" / "hand-results.html").read_text(encoding="utf-8")
    # Any later entry moves the head: a published report shows a rewrite.
    assert dealer_at(tmp_path, "results", "correct", event, "--round", 1, "--match", 1, "--table", "A",
                     "--board", 2, "--points", 45, "--reason", "misread again").exit_code == 0
    assert report_json(tmp_path, event)["results_chain_head"] != head


FORGE = """
import hashlib, json, sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.row_factory = sqlite3.Row
last = conn.execute("SELECT seq, chain FROM (SELECT seq, chain FROM imports UNION ALL SELECT seq, chain"
                    " FROM results) ORDER BY seq DESC LIMIT 1").fetchone()
victim = conn.execute("SELECT * FROM results WHERE id = 1").fetchone()
row = dict(victim)
row.update(id=1000, defenders_points=200, supersedes=1, reason="misread", seq=last["seq"] + 1)
columns = {columns}
content = json.dumps([row["seq"], "results", *(row[c] for c in columns)], ensure_ascii=False,
                     separators=(",", ":")).encode()
row["chain"] = hashlib.sha256(bytes.fromhex(last["chain"]) + content).hexdigest()
names = [*columns, "seq", "chain"]
conn.execute(f"INSERT INTO results ({{', '.join(names)}}) VALUES ({{', '.join('?' * len(names))}})",
             [row[n] for n in names])
"""


def test_defect_04_a_row_forged_with_a_right_link_is_found(tmp_path: Path) -> None:
    """Review 4: the chain has no key, so a forger can append a row with the right link (the
    last link is in the database). What the tool always writes together gives it away: a
    correction outside any import record; and the head published before it still checks."""
    from dealer.store.schema import RESULT_COLUMNS

    event = scored_hand_event(tmp_path, hand_rows())
    published = report_json(tmp_path, event)["results_chain_head"]
    forge = tmp_path / "forge.py"
    forge.write_text(FORGE.format(columns=repr(RESULT_COLUMNS)), encoding="utf-8")
    subprocess.run([sys.executable, str(forge), str(db_path(tmp_path))], check=True)
    audit = dealer_at(tmp_path, "results", "audit", event)
    assert audit.exit_code == 1, audit.output
    assert "results #1000" in audit.output and "added" in audit.output
    assert report_json(tmp_path, event)["results_chain_head"] != published
    # Against the head a report published before, the earlier results are still all there.
    checked = dealer_at(tmp_path, "results", "audit", event, "--head", published)
    assert "the published head is link" in checked.output


def test_defect_04_rows_cut_from_the_end_are_found(tmp_path: Path) -> None:
    """Review 4: the last rows deleted behind the tool's back (the guard dropped and put back
    as it was): the count still equals the last link, but the import says how many rows it
    wrote; writing refuses, and the audit names the import."""
    event = scored_hand_event(tmp_path, hand_rows())
    from dealer.store.schema import TRIGGERS

    stored = db_state(tmp_path)
    _sql(tmp_path, "DROP TRIGGER results_no_delete", "DELETE FROM results WHERE id > 27",
         TRIGGERS["results_no_delete"])
    audit = dealer_at(tmp_path, "results", "audit", event)
    assert audit.exit_code == 1 and "imports #1: deleted: recorded 32 row(s), has 27" in audit.output, audit.output
    added = dealer_at(tmp_path, "results", "add", event, "--round", 1, "--match", 2, "--table", "A",
                      "--board", 1, "--points", 5)
    assert_one_error(added, "changed outside the tool", "recorded 32 row(s) and has 27")
    assert len(db_state(tmp_path)) == len(stored) - 5


def test_defect_04_a_published_head_shows_a_rewrite_that_recomputed_every_link(tmp_path: Path) -> None:
    """Review 4: an edit whose links were all recomputed passes the chain walk; the head that a
    report published before it does not: ``results audit --head`` exits 1."""
    from dealer.store.chain import genesis, link
    from dealer.store.db import ResultsStore

    event = scored_hand_event(tmp_path, hand_rows())
    published = report_json(tmp_path, event)["results_chain_head"]
    _sql(tmp_path, "DROP TRIGGER results_no_update", "DROP TRIGGER imports_no_update",
         "UPDATE results SET defenders_points = 200 WHERE id = 3")
    conn = sqlite3.connect(db_path(tmp_path), isolation_level=None)
    conn.row_factory = sqlite3.Row
    previous = genesis("hand")
    for table, row in sorted(((t, r) for t in ("imports", "results") for r in conn.execute(f"SELECT * FROM {t}")),
                             key=lambda item: item[1]["seq"]):
        previous = link(previous, row["seq"], table, row)
        conn.execute(f"UPDATE {table} SET chain = ? WHERE id = ?", (previous.hex(), row["id"]))
    conn.close()
    from dealer.store.schema import TRIGGERS

    _sql(tmp_path, TRIGGERS["results_no_update"], TRIGGERS["imports_no_update"])
    assert dealer_at(tmp_path, "results", "audit", event).exit_code == 0  # a perfect rewrite …
    checked = dealer_at(tmp_path, "results", "audit", event, "--head", published)
    assert checked.exit_code == 1 and "is not a link of the chain" in checked.output  # … but not the published one
    assert ResultsStore  # the store's own link() was used: the rewrite is exact


@pytest.mark.parametrize("statement", [
    "INSERT INTO results (id, round, match, tbl, board, defenders_points, entered_at, import_id, note, seq, chain)"
    " SELECT 500, 1, '2', 'A', 1, 0, entered_at, import_id, X'00ff', 500, 'x' FROM results WHERE id = 1",
    "INSERT INTO results (id, round, match, tbl, board, defenders_points, entered_at, import_id, seq, chain)"
    " SELECT 501, 1, '2', 'A', 2, 0, entered_at, import_id, 'x', chain FROM results WHERE id = 1",
    "INSERT INTO results (id, round, match, tbl, board, defenders_points, entered_at, import_id, seq, chain)"
    " SELECT 502, 1, '2', 'A', 3, 0, entered_at, import_id, 0, chain FROM results WHERE id = 1",
    "INSERT INTO results (id, round, match, tbl, board, defenders_points, entered_at, import_id, seq, chain)"
    " SELECT 503, 1, '2', 'A', 4, 0, entered_at, import_id, seq, chain FROM results WHERE id = 1",
], ids=["blob", "text-link", "link-0", "same-link"])
def test_defect_04_odd_rows_are_named_not_crashed_on(tmp_path: Path, statement: str) -> None:
    """Review 4: a row written behind the tool's back with a BLOB, a text link, link 0 or the
    link of another row: the audit names it (added) and never crashes; writing refuses."""
    event = scored_hand_event(tmp_path, hand_rows()[:8])
    _sql(tmp_path, "DROP INDEX results_seq", "DROP TRIGGER results_no_replace", statement)
    audit = dealer_at(tmp_path, "results", "audit", event)
    assert audit.exit_code == 1 and "added" in audit.output, audit.output
    number = statement.split("SELECT ", 1)[1].split(",", 1)[0]
    assert f"results #{number}" in audit.output, audit.output
    added = dealer_at(tmp_path, "results", "add", event, "--round", 1, "--match", 2, "--table", "B",
                      "--board", 9, "--points", 5)
    assert_one_error(added, "changed outside the tool")


def test_defect_14_a_database_whose_chain_columns_were_dropped_is_not_relinked(tmp_path: Path) -> None:
    """Review 4 and 14: a row edited, then the chain columns dropped and ``user_version`` set
    back so that the migration would link the rows afresh: every command refuses instead."""
    event = scored_hand_event(tmp_path, hand_rows()[:10])
    _sql(tmp_path, "DROP TRIGGER results_no_update", "UPDATE results SET defenders_points = 200 WHERE id = 1",
         "DROP INDEX results_seq", "DROP INDEX imports_seq",
         "ALTER TABLE results DROP COLUMN chain", "ALTER TABLE imports DROP COLUMN chain",
         "PRAGMA user_version = 2")
    for args in (("results", "audit", event), ("report", event, "--json"),
                 ("results", "add", event, "--round", 1, "--match", 2, "--table", "A", "--board", 1,
                  "--points", 5)):
        assert_one_error(dealer_at(tmp_path, *args), "changed outside the tool", "chain columns are gone")


# --- 5. formula injection in the reports --------------------------------------------------------

INJECTED = ("=1+1", '=HYPERLINK("http://evil.example","x")', "-2+3", "+X", "@SUM(A1)", "-cmd")


def injected_event(tmp_path: Path) -> Path:
    """The hand event with team ids ``007`` (was H), ``=1+1`` (was V) and ``+X`` (was X), and names starting with
    ``=``, ``-`` and ``@`` (a leading tab cannot reach a report: the event file's names are
    stripped, and notes are not reported; :func:`safe_cell` is checked for it directly)."""
    text = EVENT_TOML.replace('"V"', '"=1+1"').replace('"X"', '"+X"').replace('"H"', '"007"')
    text = text.replace('name = "主队"', 'name = "=HYPERLINK(\\"http://evil.example\\",\\"x\\")"')
    text = text.replace('name = "客队"', 'name = "-2+3"').replace('name = "第三队"', 'name = "@SUM(A1)"')
    text = text.replace('name = "第四队"', 'name = "-cmd"')
    return write_event(tmp_path, text)


def test_defect_05_report_cells_never_become_formulas(tmp_path: Path) -> None:
    """Review 5: team ids and names from registration forms (``=1+1``, ``=HYPERLINK(…)``, ``@…``,
    ``+…``, ``-…``) are written as text: CSV cells get a leading ``'`` (a plain number
    like ``-3`` stays a number); XLSX cells are strings, no formula anywhere."""
    event = injected_event(tmp_path)
    rows = [r for r in hand_rows() if r[3] <= 8]
    assert dealer_at(tmp_path, "results", "import", event, write_csv(tmp_path / "r.csv", HEADER, rows)).exit_code == 0
    out = tmp_path / "rep"
    result = dealer_at(tmp_path, "report", event, "--format", "csv,xlsx", "--out", out, "--lang", "en")
    assert result.exit_code == 0, result.output
    cells = [c for name in ("standings.csv", "crosstable.csv", "matches.csv")
             for row in csv.reader((out / name).read_text(encoding="utf-8-sig").splitlines()) for c in row]
    for text in INJECTED:
        assert "'" + text in cells, (text, cells)
        assert text not in cells, text
    assert all(not c.startswith(("=", "+", "@", "\t", "\r")) for c in cells)
    negatives = [c for c in cells if c.startswith("-")]
    assert negatives and all(c.lstrip("-").isdigit() for c in negatives), negatives  # -3 stays -3
    import openpyxl

    book = openpyxl.load_workbook(out / "hand-results.xlsx")
    texts = {}
    for sheet in book.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                assert cell.data_type != "f", (sheet.title, cell.coordinate, cell.value)
                if isinstance(cell.value, str):
                    texts[cell.value] = cell.data_type
    for text in (*INJECTED, "007", "Y"):  # ids stay text: "007" is not the number 7
        assert texts.get(text) == "s", (text, texts.get(text))
    with zipfile.ZipFile(out / "hand-results.xlsx") as archive:
        for name in archive.namelist():
            if name.startswith("xl/worksheets/"):
                assert b"<f>" not in archive.read(name) and b"<f " not in archive.read(name), name


@pytest.mark.parametrize(("text", "shown"), [("\tcmd", "'\tcmd"), ("\r=1", "'\r=1"), ("-3", "-3"), ("-", "'-"),
                                             ("@x", "'@x"), ("+1", "'+1"), ("0042", "0042")])
def test_defect_05_csv_cell_quoting(text: str, shown: str) -> None:
    """Review 5 (OWASP CSV injection): every formula start is quoted, whole numbers are not."""
    from dealer.report import safe_cell

    assert safe_cell(text) == shown


# --- 6. ordinary bad input: one error line, never a traceback -----------------------------------


@pytest.mark.parametrize("qr", ["SJD1:T:hand:²:1:5", "SJD1:T:hand:١:1:5", "SJD1:T:hand:" + "1" * 5000 + ":1:5",
                                "SJD1:T:hand:01:1:5"], ids=["superscript", "arabic-indic", "5000-digits",
                                                            "leading-zero"])
def test_defect_06_qr_payload_with_odd_digits_is_one_error(tmp_path: Path, qr: str) -> None:
    """Review 6 (and 14): a QR payload's numbers are decimal digits 0-9 without a leading zero
    (docs/qr.md); ``²``, ``١``, 5,000 digits and ``01`` are refused with one line, nothing stored."""
    event = write_event(tmp_path)
    result = dealer_at(tmp_path, "results", "add", event, "--qr", qr, "--table", "A", "--points", 35)
    assert_one_error(result, "--qr", "round must be a positive decimal number")
    assert results_rows(tmp_path) == []


def test_defect_06_huge_or_garbage_points_are_one_error(tmp_path: Path) -> None:
    """Review 6: ``--points`` of 5,000 digits (results add, rules level) and garbage are refused
    with one line that quotes the value cut short with its length."""
    event = write_event(tmp_path)
    huge = "5" * 5000
    result = dealer_at(tmp_path, "results", "add", event, "--round", 1, "--match", 1, "--table", "A",
                       "--board", 1, "--points", huge)
    assert_one_error(result, "--points", "5,000")
    assert results_rows(tmp_path) == []
    for points in (huge, "5" * 5000 + "x", "abc", "1e3", "٥٠"):
        result = run_dealer("rules", "level", "official-2002", "--decks", 2, "--points", points)
        assert_one_error(result, "--points")
        if len(points) > 100:
            assert "5,00" in result.output and huge not in result.output, result.output


@pytest.fixture
def no_rendering(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the calls of the print renderer and of the report writers: a refused ``--out`` must
    be found before any page or report is made."""
    import dealer.render
    import dealer.report

    calls: list[int] = []

    def counted(real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            calls.append(1)
            return real(*args, **kwargs)
        return call

    monkeypatch.setattr(dealer.render, "render_documents", counted(dealer.render.render_documents))
    for name, writer in list(dealer.report.REPORT_WRITERS.items()):
        monkeypatch.setitem(dealer.report.REPORT_WRITERS, name, counted(writer))
    return calls


def test_defect_06_a_bad_out_folder_is_refused_before_rendering(tmp_path: Path, no_rendering: list[int]) -> None:
    """Review 6: ``--out`` a file, a folder under a file, ``/proc/x`` or ``/dev/null`` is refused
    with one line (exit 2 or 3) for ``print`` and ``report``, and nothing is rendered first."""
    event = scored_hand_event(tmp_path, hand_rows())
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder", encoding="utf-8")
    for out in (a_file, a_file / "sub", Path("/proc/x"), Path("/dev/null")):
        for args in (("print", "travellers", event, "--set", 1, "--format", "html"),
                     ("print", "labels", event, "--set", 1),
                     ("report", event, "--format", "csv,html")):
            result = dealer_at(tmp_path, *args, "--out", out)
            assert result.exit_code in (2, 3), (args, out, result.output)
            assert "Traceback" not in result.output
            assert str(out) in result.output or repr(str(out)) in result.output, (args, out, result.output)
    assert no_rendering == []
    assert a_file.read_text(encoding="utf-8") == "not a folder"
    assert not Path("/proc/x").exists()


def test_defect_06_a_commitment_that_is_a_json_list_is_one_error(tmp_path: Path) -> None:
    """Review 6: ``verify --commitment`` naming a JSON list is a rejected input (exit 2), not a
    traceback (which read as exit 1, "tampered")."""
    write_event(tmp_path)
    folder = boards(tmp_path) / "hand"
    listed = tmp_path / "c.json"
    listed.write_text("[1]", encoding="utf-8")
    result = run_dealer("verify", folder / "set-01.json", "--key-file", folder / "deal.key", "--commitment", listed)
    assert_one_error(result, str(listed), "not a commitment file")


@pytest.mark.parametrize("where", ["integer", "nesting"])
def test_defect_06_a_pathological_event_file_is_one_error_and_writes_nothing(tmp_path: Path, where: str) -> None:
    """Review 6: an event TOML with a 5,000-digit integer or an array nested 5,000 deep is
    refused by ``deal`` and ``results missing`` with one line naming the file; nothing written."""
    text = (EVENT_TOML.replace("boards_per_set = 16", "boards_per_set = " + "1" * 5000) if where == "integer"
            else EVENT_TOML + "\nx = " + "[" * 5000 + "]" * 5000 + "\n")
    event = tmp_path / "odd.toml"
    event.write_text(text, encoding="utf-8")
    for args in (("deal", event), ("results", "missing", event)):
        result = dealer_at(tmp_path, *args)
        assert_one_error(result, str(event))
        assert "set_int_max_str_digits" not in result.output  # advice for programmers, not users
    assert not boards(tmp_path).exists()


SCHEMA_EDITS = {
    "view dropped": "DROP VIEW current_results",
    "points renamed": "ALTER TABLE results RENAME COLUMN defenders_points TO points",
    "source renamed": "ALTER TABLE imports RENAME COLUMN source TO src",
    "chain dropped": "ALTER TABLE results DROP COLUMN chain",
}


@pytest.mark.parametrize("edit", list(SCHEMA_EDITS))
def test_defect_06_a_hand_edited_schema_is_one_error(tmp_path: Path, edit: str) -> None:
    """Review 6: a results schema edited by hand (view dropped, column renamed or dropped) makes
    every results command fail with one line naming the database (audit: exit 1 or 2), never a
    traceback, and nothing stored."""
    event = scored_hand_event(tmp_path, hand_rows()[:10])
    _sql(tmp_path, SCHEMA_EDITS[edit])
    stored = db_state(tmp_path) if edit == "view dropped" else None
    more = write_csv(tmp_path / "more.csv", HEADER, hand_rows()[10:12])
    for args in (("report", event, "--json"), ("results", "missing", event), ("results", "history", event),
                 ("results", "import", event, more),
                 ("results", "add", event, "--round", 1, "--match", 2, "--table", "A", "--board", 1,
                  "--points", 5)):
        result = dealer_at(tmp_path, *args)
        if edit == "view dropped" and args[1] == "history":
            assert result.exit_code == 0, result.output  # the history does not need the view
            continue
        assert_one_error(result, str(db_path(tmp_path)))
    audit = dealer_at(tmp_path, "results", "audit", event)
    assert audit.exit_code in (1, 2), audit.output
    assert "Traceback" not in audit.output and str(db_path(tmp_path)) in audit.output
    if stored is not None:
        assert db_state(tmp_path) == stored


def test_defect_06_a_database_locked_too_long_is_the_machines_refusal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Review 6: another program holding the results database longer than the busy timeout:
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


def test_defect_06_a_full_disk_during_an_import_stores_nothing(tmp_path: Path) -> None:
    """Review 6: the disk fills up in the middle of an import (a real 1 MB tmpfs holding the
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
        f"mount -t tmpfs -o size=1m tmpfs {small}\ncp -a {boards(tmp_path)} {small}/boards",
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


# --- 7. a scored match removed from the event ----------------------------------------------------


def test_defect_07_a_removed_match_is_named_and_its_results_can_be_withdrawn(tmp_path: Path) -> None:
    """Review 7: with round 1 match 2 removed from the event file after its results were stored,
    ``report`` and ``results missing`` exit 2 naming it; ``results correct --withdraw`` reaches
    those results (one slot, then the whole match), after which the report runs."""
    event = scored_hand_event(tmp_path, hand_rows() + match_2_rows())
    removed = edited_event(tmp_path, "removed.toml", ", " + MATCH_2, "")
    for args in (("report", removed, "--json"), ("results", "missing", removed)):
        result = dealer_at(tmp_path, *args)
        assert_one_error(result, "round 1 match 2", "not in the event file any more")
    one = dealer_at(tmp_path, "results", "correct", removed, "--round", 1, "--match", 2, "--table", "A",
                    "--board", 1, "--withdraw", "--reason", "match cancelled")
    assert one.exit_code == 0, one.output
    assert "withdrawn" in one.output
    still = dealer_at(tmp_path, "report", removed, "--json")
    assert_one_error(still, "round 1 match 2")
    rest = dealer_at(tmp_path, "results", "correct", removed, "--round", 1, "--match", 2, "--withdraw",
                     "--reason", "match cancelled")
    assert rest.exit_code == 0, rest.output
    assert "withdrew 31 result(s) of round 1 match 2" in rest.output
    data = report_json(tmp_path, removed)
    assert (standing(data, "H")["level_points_for"], standing(data, "V")["level_points_for"]) == (
        HOME_TOTAL, AWAY_TOTAL)
    assert [(m["round"], m["match"]) for m in data["matches"]] == [(1, "1")]
    missing = dealer_at(tmp_path, "results", "missing", removed)
    assert missing.exit_code == 0 and "nothing missing" in missing.output, missing.output
    assert report_json(tmp_path, event)["matches"][1]["boards_counted"] == 0  # the file restored: withdrawn


# --- 11. a read-only results database ------------------------------------------------------------


@pytest.mark.parametrize("side_files", [True, False], ids=["with-wal-and-shm", "database-file-alone"])
def test_defect_11_a_read_only_database_can_be_read_and_refuses_writes(tmp_path: Path, side_files: bool) -> None:
    """Review 11: on a read-only medium (a read-only bind mount), ``report --json``, ``results
    missing``, ``history`` and ``audit`` work and create nothing; writing commands exit 3
    ("read-only"), nothing stored. Both as the tool leaves the folder and as an archive holding
    the database file alone (no -wal or -shm, which a read-only medium cannot create)."""
    event = scored_hand_event(tmp_path, hand_rows())
    expected = report_json(tmp_path, event)
    folder = boards(tmp_path) / "hand"
    if side_files:  # a read-only reader (the report above) cannot checkpoint: it leaves them
        reader = sqlite3.connect(f"file:{db_path(tmp_path)}?mode=ro", uri=True)
        reader.execute("SELECT count(*) FROM results").fetchone()
        reader.close()
        assert (folder / "results.sqlite-shm").exists() and (folder / "results.sqlite-wal").exists()
    else:
        _sql(tmp_path, "PRAGMA journal_mode = WAL", "PRAGMA wal_checkpoint(TRUNCATE)")
        for suffix in ("-wal", "-shm"):
            folder.joinpath("results.sqlite" + suffix).unlink(missing_ok=True)
    before = files_under(folder)
    more = write_csv(tmp_path / "more.csv", HEADER, match_2_rows()[:2])
    b = boards(tmp_path)
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
    assert report_json(tmp_path, event) == expected


def test_defect_11_a_read_only_copy_with_unwritten_changes_is_refused_not_misread(tmp_path: Path) -> None:
    """Review 11: a database copied to a read-only medium with a -wal file that still holds
    changes, but without its -shm (a process was killed): reading it as immutable would ignore
    those changes and report old results. It is refused with the reason (exit 3)."""
    event = scored_hand_event(tmp_path, hand_rows())
    folder = boards(tmp_path) / "hand"
    holder = sqlite3.connect(db_path(tmp_path), isolation_level=None)  # keeps the WAL from being checkpointed
    holder.execute("PRAGMA wal_autocheckpoint = 0")
    holder.execute("SELECT count(*) FROM results").fetchone()
    assert dealer_at(tmp_path, "results", "add", event, "--round", 1, "--match", 2, "--table", "A",
                     "--board", 1, "--points", 5).exit_code == 0
    archive = tmp_path / "archive"
    shutil.copytree(boards(tmp_path), archive / "boards")
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


# --- 12. a deal that did not finish -------------------------------------------------------------


def test_defect_12_an_unfinished_deal_is_refused_then_finished_by_dealing_again(tmp_path: Path) -> None:
    """Review 12: a deal killed midway (no manifest, a set file missing) is "did not finish" for
    printing, results and reports; ``dealer deal`` again finishes it, keeping the identical files,
    and the folder is byte for byte the uninterrupted deal's."""
    event = dealt_demo(tmp_path)
    folder = boards(tmp_path) / "demo"
    dealt = files_under(folder)
    (folder / "manifest.json").unlink()
    (folder / "set-02.json").unlink()
    for args in (("print", "dealing-guide", event, "--set", 1, "--format", "html", "--out", tmp_path / "out"),
                 ("results", "import", event, SAMPLE),
                 ("results", "add", event, "--round", 1, "--match", 1, "--table", "A", "--board", 1,
                  "--points", 30),
                 ("report", event, "--json"),
                 ("results", "missing", event)):
        result = dealer_at(tmp_path, *args)
        assert_one_error(result, "did not finish", "dealer deal")
    assert not (tmp_path / "out").exists() and not (folder / "results.sqlite").exists()
    again = dealer_at(tmp_path, "deal", event)
    assert again.exit_code == 0, again.output
    for name in ("set-01.json", "set-03.json"):
        assert f"kept {folder / name}" in again.output, again.output
    for name in ("set-02.json", "manifest.json"):
        assert f"wrote {folder / name}" in again.output, again.output
    assert files_under(folder) == dealt
    elsewhere = tmp_path / "elsewhere"
    other = run_dealer("deal", event, "--key-file", folder / "deal.key", "--boards-dir", elsewhere)
    assert other.exit_code == 0, other.output
    assert files_under(elsewhere / "demo") == {k: v for k, v in dealt.items() if k != "deal.key"}


def test_defect_12_a_leftover_set_that_differs_is_refused_and_can_be_discarded(tmp_path: Path) -> None:
    """Review 12: a leftover set file that is not what the key deals is never overwritten: the
    message points to ``--discard-incomplete``, which removes the unfinished deal's set files
    (never a finished deal's); dealing again then gives the uninterrupted deal."""
    event = dealt_demo(tmp_path)
    folder = boards(tmp_path) / "demo"
    dealt = files_under(folder)
    assert_one_error(dealer_at(tmp_path, "deal", event, "--discard-incomplete"), "no unfinished deal")
    assert files_under(folder) == dealt  # a finished deal is never touched
    (folder / "manifest.json").unlink()
    changed = (folder / "set-01.json").read_bytes().replace(b'"set":1', b'"set": 1')
    assert changed != dealt["set-01.json"]
    (folder / "set-01.json").write_bytes(changed)
    refused = dealer_at(tmp_path, "deal", event)
    assert_one_error(refused, str(folder / "set-01.json"), "--discard-incomplete")
    assert (folder / "set-01.json").read_bytes() == changed and not (folder / "manifest.json").exists()
    discarded = dealer_at(tmp_path, "deal", event, "--discard-incomplete")
    assert discarded.exit_code == 0, discarded.output
    assert all(f"removed {folder / f'set-0{n}.json'}" in discarded.output for n in (1, 2, 3)), discarded.output
    assert sorted(p.name for p in folder.iterdir()) == ["commitment.json", "deal.key"]
    assert dealer_at(tmp_path, "deal", event).exit_code == 0
    assert files_under(folder) == dealt


# The child process runs the real `dealer deal`; to stop it at a known point, the script wraps
# the deal's file writer (in that process only, as tests/test_results_processes.py does): once
# the given number of set files is written, it writes its pid to the marker file and sleeps until
# it is killed. The kill so always finds exactly that many set files, however loaded the machine.
DEAL_THEN_PAUSE = """
import os, sys, time
from pathlib import Path
import dealer.app.dealing as dealing
from dealer.files import write_atomic
writing = dealing.write_new_files
marker, after = Path(sys.argv[1]), int(sys.argv[2])
def write_then_pause(folder, files, *args, **kwargs):
    def pausing():
        for count, item in enumerate(files):
            if count == after:  # the first `after` set files are written
                # whole or not at all: the test reads it the moment it exists
                write_atomic(marker, str(os.getpid()).encode("ascii"), durable=False)
                time.sleep(600)
            yield item
    return writing(folder, pausing(), *args, **kwargs)
dealing.write_new_files = write_then_pause
from dealer.cli import main
main(sys.argv[3:])
"""


def test_defect_12_a_deal_killed_with_sigkill_is_finished_by_dealing_again(tmp_path: Path) -> None:
    """Review 12, as the reviewer did it: ``dealer deal`` of a larger event killed with SIGKILL
    once some set files are written (here: stopped right after the third, then killed); the next
    ``dealer deal`` finishes it, and the files are byte for byte those of a deal never
    interrupted (same key)."""
    import signal
    import time

    text = demo_event_text().replace("sets = 3 ", "sets = 60 ", 1)
    assert "sets = 60" in text
    event = tmp_path / "big.toml"
    event.write_text(text, encoding="utf-8")
    key = tmp_path / "k.key"
    key.write_text("ab" * 32 + "\n", encoding="ascii")
    folder = boards(tmp_path) / "demo"
    marker = tmp_path / "paused"
    process = subprocess.Popen(
        [sys.executable, "-c", DEAL_THEN_PAUSE, str(marker), "3",
         "deal", str(event), "--key-file", str(key), "--boards-dir", str(boards(tmp_path))],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while not marker.exists():
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the deal never reached its third set file"
            time.sleep(0.01)
        assert marker.read_text() == str(process.pid)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == -signal.SIGKILL
    written = sorted(p.name for p in folder.glob("set-*.json"))
    assert written == ["set-01.json", "set-02.json", "set-03.json"]
    assert not (folder / "manifest.json").exists()
    assert_one_error(dealer_at(tmp_path, "report", event, "--json"), "did not finish")
    again = dealer_at(tmp_path, "deal", event, "--key-file", key)
    assert again.exit_code == 0, again.output
    assert again.output.count("kept ") == len(written)
    other = run_dealer("deal", event, "--key-file", key, "--boards-dir", tmp_path / "elsewhere")
    assert other.exit_code == 0, other.output
    assert files_under(folder) == files_under(tmp_path / "elsewhere" / "demo")


# --- 13. labels and the key -----------------------------------------------------------------------


def test_defect_13_labels_printed_with_another_key_are_refused(tmp_path: Path) -> None:
    """Review 13: the labels' check tag needs the committed key; another valid key is refused
    (exit 2) naming the key file and the commitment, before anything is written."""
    event = dealt_demo(tmp_path)
    folder = boards(tmp_path) / "demo"
    wrong = tmp_path / "wrong.key"
    wrong.write_text(hashlib.sha256(b"not the dealt key").hexdigest() + "\n", encoding="utf-8")
    out = tmp_path / "out"
    for kind in ("labels", "all"):
        result = dealer_at(tmp_path, "print", kind, event, "--set", 1, "--key-file", wrong, "--format", "html",
                           "--out", out)
        assert_one_error(result, str(wrong), "commitment", str(folder / "commitment.json"))
    assert not out.exists() or not any(out.iterdir())
    right = dealer_at(tmp_path, "print", "labels", event, "--set", 1, "--key-file", folder / "deal.key",
                      "--format", "html", "--out", out)
    assert right.exit_code == 0, right.output


# --- 14. smaller issues -----------------------------------------------------------------------------


def test_defect_14_a_set_no_match_plays_gets_no_travellers(tmp_path: Path) -> None:
    """Review 14: ``print travellers --set 4`` of a set no match plays is refused (no 0-byte
    file); ``print all`` skips its travellers and score sheets and prints the rest."""
    text = demo_event_text()
    assert "sets = 3 " in text
    event = demo_event_file(tmp_path, text.replace('id = "demo"', 'id = "four"').replace("sets = 3 ", "sets = 4 "))
    assert dealer_at(tmp_path, "deal", event).exit_code == 0
    out = tmp_path / "out"
    for kind in ("travellers", "score-sheets"):
        result = dealer_at(tmp_path, "print", kind, event, "--set", 4, "--format", "html", "--out", out)
        assert_one_error(result, "--set", "set 4")
    assert not out.exists() or not any(out.iterdir())
    every = dealer_at(tmp_path, "print", "all", event, "--set", 4, "--format", "html", "--out", out)
    assert every.exit_code == 0, every.output
    written = sorted(p.name for p in out.iterdir())
    assert written == sorted(f"{k}-set-04-zh.html" for k in ("hand-records", "labels", "curtain-cards",
                                                             "dealing-guide")), written
    assert all((out / name).stat().st_size > 0 for name in written)


def test_defect_14_a_mistyped_boards_folder_is_said(tmp_path: Path) -> None:
    """Review 14: ``--boards-dir`` with a typo is "no such folder" (exit 2) for every command
    that reads the event's folder, not empty standings; nothing is created."""
    event = scored_hand_event(tmp_path, hand_rows())
    typo = tmp_path / "bords"
    for args in (("report", event, "--json"), ("report", event, "--format", "csv", "--out", tmp_path / "rep"),
                 ("results", "missing", event), ("results", "history", event), ("results", "audit", event),
                 ("results", "add", event, "--round", 1, "--match", 2, "--table", "A", "--board", 1, "--points", 5),
                 ("print", "travellers", event, "--format", "html", "--out", tmp_path / "out")):
        result = run_dealer(*args, "--boards-dir", typo)
        assert_one_error(result, "no such folder", "--boards-dir")
    assert not typo.exists() and not (tmp_path / "rep").exists() and not (tmp_path / "out").exists()


def test_defect_14_an_empty_results_database_is_no_results_yet(tmp_path: Path) -> None:
    """Review 14: a results database that exists but holds no result reports
    ``"no_results_yet": true`` (every team 0 played)."""
    from dealer.store.db import ResultsStore

    event = write_event(tmp_path)
    ResultsStore.open(db_path(tmp_path), "hand").close()
    data = report_json(tmp_path, event)
    assert data["no_results_yet"] is True
    assert sorted(s["team"] for s in data["standings"]) == ["H", "V", "X", "Y"]
    assert all(s["played"] == 0 for s in data["standings"])


def test_defect_14_an_empty_or_unknown_report_format_is_refused(tmp_path: Path) -> None:
    """Review 14: ``report --format ""`` and ``--format nonsense`` (with ``--json`` too) exit 2."""
    event = scored_hand_event(tmp_path, hand_rows())
    for formats in ("", "nonsense", " , ", "csv,nonsense"):
        for extra in ((), ("--json",)):
            result = dealer_at(tmp_path, "report", event, "--format", formats, "--out", tmp_path / "rep", *extra)
            assert_one_error(result, "--format")
    assert not (tmp_path / "rep").exists()


def test_defect_14_reading_commands_never_create_the_database(tmp_path: Path) -> None:
    """Review 14: ``results history`` (and missing, audit, report) on an event without results
    create no database."""
    event = write_event(tmp_path)
    for args in (("results", "history", event), ("results", "missing", event), ("results", "audit", event),
                 ("report", event, "--json")):
        result = dealer_at(tmp_path, *args)
        assert result.exit_code == 0, (args, result.output)
    assert sorted(p.name for p in (boards(tmp_path) / "hand").iterdir()) == [
        "commitment.json", "deal.key", "manifest.json", "set-01.json"]


def test_defect_14_control_characters_are_shown_escaped(tmp_path: Path) -> None:
    """Review 14: terminal escapes in ``--by``, ``--reason``, team ids and file names never reach
    the terminal raw (``\\x1b]0;title\\x07`` would retitle it); they are shown as ``\\x1b``."""
    title = ESC + "]0;owned" + "\x07"
    text = EVENT_TOML.replace('"X"', '"X\\u001b[2J"')
    event = write_event(tmp_path, text)
    odd_file = write_csv(tmp_path / f"slips{ESC}[31m.csv", HEADER, hand_rows()[:2])
    outcomes = [
        dealer_at(tmp_path, "results", "import", event, odd_file, "--by", title),
        dealer_at(tmp_path, "results", "add", event, "--round", 1, "--match", 1, "--table", "A", "--board", 2,
                  "--points", HAND[2][0], "--by", title),
        dealer_at(tmp_path, "results", "correct", event, "--round", 1, "--match", 1, "--table", "A", "--board",
                  1, "--points", 5, "--reason", f"misread {ESC}[8m hidden", "--by", title),
        dealer_at(tmp_path, "results", "history", event),
        dealer_at(tmp_path, "results", "missing", event),
        dealer_at(tmp_path, "results", "import", event, tmp_path / f"missing{ESC}[31m.csv"),
        dealer_at(tmp_path, "results", "add", event, "--round", 1, "--match", 2, "--table", "A", "--board", 1,
                  "--points", 5, "--ns-team", f"Y{ESC}[2J"),
    ]
    for outcome in outcomes:
        assert ESC not in outcome.output and "\x07" not in outcome.output, outcome.output
    shown = "".join(o.output for o in outcomes)
    for escaped in ("\\x1b]0;owned\\x07", "misread \\x1b[8m hidden", "slips\\x1b[31m.csv", "X\\x1b[2J",
                    "missing\\x1b[31m.csv", "Y\\x1b[2J"):
        assert escaped in shown, (escaped, shown)


def test_defect_14_long_values_are_quoted_cut_with_their_length(tmp_path: Path) -> None:
    """Review 14: an error quotes at most about 60 characters of a value, then its length."""
    event = write_event(tmp_path)
    for flag_name, value in (("--match", "M" * 5000), ("--table", "T" * 5000), ("--board", "9" * 5000),
                             ("--by", "b" * 5000), ("--note", "n" * 5000)):
        values = {"--round": "1", "--match": "1", "--table": "A", "--board": "1", "--points": "5",
                  flag_name: value}
        args = [item for pair in values.items() for item in pair]
        result = dealer_at(tmp_path, "results", "add", event, *args)
        assert_one_error(result, "5,000")
        assert value[:61] not in result.output, (flag_name, result.output)


@pytest.mark.parametrize("version", [0, 1, 2])
def test_defect_14_a_user_version_set_back_migrates_idempotently(tmp_path: Path, version: int) -> None:
    """Review 14: ``user_version`` set back by hand on a current database: the next command
    (a report upgrades a writable database before reading it; then a writing command) migrates
    again without "duplicate column", every stored row and chain link is kept, and the audit
    passes."""
    event = scored_hand_event(tmp_path, hand_rows()[:10])
    conn = sqlite3.connect(db_path(tmp_path))
    links = conn.execute("SELECT id, seq, chain FROM results ORDER BY id").fetchall()
    current = conn.execute("PRAGMA user_version").fetchone()[0]
    conn.close()
    stored = db_state(tmp_path)
    _sql(tmp_path, f"PRAGMA user_version = {version}")
    assert dealer_at(tmp_path, "report", event, "--json").exit_code == 0
    _sql(tmp_path, f"PRAGMA user_version = {version}")
    added = dealer_at(tmp_path, "results", "add", event, "--round", 1, "--match", 2, "--table", "A", "--board", 1,
                      "--points", 5)
    assert added.exit_code == 0, added.output
    assert "duplicate column" not in added.output
    conn = sqlite3.connect(db_path(tmp_path))
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == current
        assert conn.execute("SELECT id, seq, chain FROM results WHERE id <= 10 ORDER BY id").fetchall() == links
    finally:
        conn.close()
    assert set(stored) <= set(db_state(tmp_path))
    audit = dealer_at(tmp_path, "results", "audit", event)
    assert audit.exit_code == 0, audit.output


def test_defect_14_a_user_version_set_back_does_not_launder_tampering(tmp_path: Path) -> None:
    """Review 4 and 14: setting ``user_version`` back after editing a row (its guard dropped)
    must not make the migration re-link the chain over the edit: the writing command refuses and
    the audit still names the row."""
    event = scored_hand_event(tmp_path, hand_rows()[:10])
    _sql(tmp_path, "DROP TRIGGER results_no_update", "UPDATE results SET defenders_points = 200 WHERE id = 3",
         "PRAGMA user_version = 2")
    stored = db_state(tmp_path)
    added = dealer_at(tmp_path, "results", "add", event, "--round", 1, "--match", 2, "--table", "A", "--board", 1,
                      "--points", 5)
    assert_one_error(added, "changed outside the tool")
    assert db_state(tmp_path) == stored
    _sql(tmp_path, f"PRAGMA user_version = {SCHEMA_VERSION}")
    audit = dealer_at(tmp_path, "results", "audit", event)
    assert audit.exit_code == 1 and "results #3" in audit.output and "edited" in audit.output, audit.output


def test_defect_14_event_file_leniencies(tmp_path: Path) -> None:
    """Review 14: an event file saved with a UTF-8 BOM reads; a match ``id = true``, a date with a
    time and a team playing itself are refused naming the key; nothing is written."""
    bom = tmp_path / "bom.toml"
    bom.write_bytes(b"\xef\xbb\xbf" + EVENT_TOML.encode("utf-8"))
    assert dealer_at(tmp_path, "deal", bom).exit_code == 0
    assert dealer_at(tmp_path, "results", "missing", bom).exit_code == 0
    cases = {
        "id-true": (EVENT_TOML.replace('{ id = "1", home', "{ id = true, home"), "rounds[0].matches[0].id"),
        "datetime": (EVENT_TOML.replace('name = "Hand-worked match"',
                                        'name = "Hand-worked match"\ndate = 2026-12-05T10:00:00'), "event.date"),
        "plays-itself": (EVENT_TOML.replace('home = "X", away = "Y"', 'home = "X", away = "X"'),
                         "cannot play itself"),
    }
    for name, (text, expected) in cases.items():
        path = tmp_path / f"{name}.toml"
        path.write_text(text, encoding="utf-8")
        for args in (("deal", path, "--boards-dir", tmp_path / name), ("results", "missing", path)):
            result = run_dealer(*args) if args[0] == "deal" else dealer_at(tmp_path, *args)
            assert_one_error(result, str(path), expected)
            assert "plays twice" not in result.output
        assert not (tmp_path / name).exists()


# --- exit statuses ----------------------------------------------------------------------------------


def test_exit_statuses_are_documented() -> None:
    """Review 6: each exit status means one thing, and ``dealer --help`` says which."""
    result = run_dealer("--help")
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    for status, meaning in (("0", "done"), ("1", "found a difference"), ("2", "rejected"),
                            ("3", "the machine refused"), ("70", "internal error")):
        assert f"{status} " in text and meaning in text, (status, meaning, text)


def test_an_internal_error_is_a_traceback_and_status_70(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Review 6: a bug (here a library function made to raise) is not dressed up as a user
    error: a traceback, "internal error … please report", exit 70."""
    from click.testing import CliRunner

    import dealer.app.standings
    from dealer.cli import main

    event = write_event(tmp_path)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug on purpose")

    monkeypatch.setattr(dealer.app.standings, "build_report", broken)
    result = CliRunner().invoke(main, ["report", str(event), "--json", "--boards-dir", str(boards(tmp_path))])
    assert result.exit_code == 70, result.output
    assert "Traceback" in result.output and "RuntimeError: a bug on purpose" in result.output
    assert "internal error" in result.output and "please report" in result.output


def test_defect_14_a_correction_can_require_the_value_it_replaces(tmp_path: Path) -> None:
    """Review 14: concurrent corrections of one slot each supersede the last (last writer wins);
    ``--expect-current`` makes a correction refuse when the stored value is not the one the
    scorer saw, and stores nothing."""
    event = scored_hand_event(tmp_path, hand_rows())
    slot = ["--round", 1, "--match", 1, "--table", "A", "--board", 2]  # stored: 35 (HAND[2])
    first = dealer_at(tmp_path, "results", "correct", event, *slot, "--points", 40, "--reason", "slip A",
                      "--expect-current", 35)
    assert first.exit_code == 0, first.output
    stored = db_state(tmp_path)
    second = dealer_at(tmp_path, "results", "correct", event, *slot, "--points", 45, "--reason", "slip B",
                       "--expect-current", 35)
    assert_one_error(second, "--expect-current", "now has 40 points", "changed meanwhile")
    assert db_state(tmp_path) == stored


# --- found by the review of this change -----------------------------------------------------------


def _rewrite_set_and_manifest(folder: Path, change: Callable[[dict[str, Any]], None]) -> None:
    """Change set 1 as a careful forger would: the deal code, the fingerprint and the manifest's
    hash made to agree with the change."""
    from dealer.cards import Deal, parse_card
    from dealer.formats.boardset import fingerprint

    path = folder / "set-01.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    for board in data["boards"]:
        hands = {seat: [parse_card(c) for c in cards] for seat, cards in board["hands"].items()}
        board["deal_code"] = Deal.build(data["decks"], hands, []).code
    data["fingerprint"] = fingerprint(data["boards"])
    text = json.dumps(data, ensure_ascii=False, indent=1) + "\n"
    path.write_text(text, encoding="utf-8")
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest["files"]["set-01.json"] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")


def _move_a_card(data: dict[str, Any]) -> None:
    hands = data["boards"][0]["hands"]
    hands["E"].append(hands["N"].pop(0))


def _swap_two_cards(data: dict[str, Any]) -> None:
    hands = data["boards"][0]["hands"]
    other = next(i for i, card in enumerate(hands["E"]) if card != hands["N"][0])
    hands["N"][0], hands["E"][other] = hands["E"][other], hands["N"][0]


@pytest.mark.parametrize("change", [_move_a_card, _swap_two_cards], ids=["hand-sizes", "same-sizes"])
def test_defect_02_a_set_rewritten_with_its_manifest_is_refused(tmp_path: Path,
                                                                 change: Callable[[dict[str, Any]], None]) -> None:
    """Review 2: a set file changed together with its deal code, fingerprint and manifest hash.
    Hand sizes that the plan does not deal are refused from the file alone; with the key in the
    folder every card is re-derived, so even a swap that keeps the sizes is refused."""
    event = dealt_demo(tmp_path)
    folder = boards(tmp_path) / "demo"
    _rewrite_set_and_manifest(folder, change)
    guide = dealer_at(tmp_path, "print", "dealing-guide", event, "--set", 1, "--format", "html",
                      "--out", tmp_path / "out")
    expected = "hands of N 32, E 26" if change is _move_a_card else "board 1 is not the board the key deals"
    assert_one_error(guide, "set-01.json", expected)
    assert not (tmp_path / "out").exists()
    if change is _swap_two_cards:  # without the key at hand the file reads as consistent …
        (folder / "deal.key").rename(tmp_path / "deal.key")
        again = dealer_at(tmp_path, "print", "dealing-guide", event, "--set", 1, "--format", "html",
                          "--out", tmp_path / "out")
        assert again.exit_code == 0, again.output
        verified = run_dealer("verify", folder / "set-01.json", "--key-file", tmp_path / "deal.key")
        assert verified.exit_code == 1 and "board 1 differs" in verified.output  # … verify still finds it


def test_defect_02_a_key_that_is_not_the_commitments_stops_every_command(tmp_path: Path) -> None:
    """Review 2 and 13: the key in the folder replaced by another one: printing, results and
    reports refuse, naming the commitment and the key."""
    event = dealt_demo(tmp_path)
    (boards(tmp_path) / "demo" / "deal.key").write_text("cd" * 32 + "\n", encoding="ascii")
    for args in (("print", "travellers", event, "--set", 1, "--format", "html", "--out", tmp_path / "out"),
                 ("report", event, "--json"), ("results", "missing", event)):
        assert_one_error(dealer_at(tmp_path, *args), "the commitment is not that of the key")


def test_defect_12_two_deals_at_once_both_finish_with_the_same_files(tmp_path: Path) -> None:
    """Review 12 (and the review of this change): two ``dealer deal`` of one event started
    together: each finishes the deal (exit 0) or, when the other one finished first, says the
    event is already dealt (exit 2); never an error about a temporary file; the files are those
    of one deal."""
    event = demo_event_file(tmp_path)
    key = tmp_path / "k.key"
    key.write_text("ef" * 32 + "\n", encoding="ascii")
    command = [sys.executable, "-c", "import sys; from dealer.cli import main; main(sys.argv[1:])",
               "deal", str(event), "--key-file", str(key), "--boards-dir", str(boards(tmp_path))]
    for _attempt in range(3):
        shutil.rmtree(boards(tmp_path), ignore_errors=True)
        processes = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
        outputs = [p.communicate(timeout=120) for p in processes]
        codes = [p.returncode for p in processes]
        assert 0 in codes and set(codes) <= {0, 2}, outputs
        for code, (_out, err) in zip(codes, outputs, strict=True):
            assert code == 0 or b"is already dealt" in err, err
            assert b".json." not in err, err  # no temporary file named
    alone = run_dealer("deal", event, "--key-file", key, "--boards-dir", tmp_path / "alone")
    assert alone.exit_code == 0
    assert files_under(boards(tmp_path) / "demo") == files_under(tmp_path / "alone" / "demo")


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


def test_an_interrupted_command_exits_130(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C is not "a check found a difference" (1): it exits 130, with no traceback."""
    from click.testing import CliRunner

    from dealer.app.session import EventSession
    from dealer.cli import main

    def interrupted(*args: object, **options: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(EventSession, "open", interrupted)
    result = CliRunner().invoke(main, ["report", str(tmp_path / "e.toml"), "--json"])
    assert result.exit_code == 130 and "Traceback" not in result.output


def test_whole_match_withdraw_and_expect_current_parse_their_values(tmp_path: Path) -> None:
    """A whole-match withdrawal with a round number of 11 digits is one error; --expect-current
    reads a number as typed (+35 is 35) and is refused for a whole match."""
    event = scored_hand_event(tmp_path, hand_rows())
    stored = db_state(tmp_path)
    assert_one_error(dealer_at(tmp_path, "results", "correct", event, "--round", "99999999999", "--match", 1,
                               "--withdraw", "--reason", "x"), "--round", "round number")
    assert_one_error(dealer_at(tmp_path, "results", "correct", event, "--round", 1, "--match", 1, "--withdraw",
                               "--reason", "x", "--expect-current", 35), "--expect-current", "--table")
    assert db_state(tmp_path) == stored
    ok = dealer_at(tmp_path, "results", "correct", event, "--round", 1, "--match", 1, "--table", "A", "--board", 2,
                   "--points", 40, "--reason", "x", "--expect-current", "+35")
    assert ok.exit_code == 0, ok.output


def test_long_values_in_a_qr_payload_are_quoted_cut(tmp_path: Path) -> None:
    event = scored_hand_event(tmp_path, hand_rows()[:2])
    result = dealer_at(tmp_path, "results", "add", event, "--qr", "SJD1:T:" + "x" * 5000 + ":1:1:1", "--table", "A",
                       "--points", 5)
    assert_one_error(result, "5,000 characters")


def test_copies_are_checked_for_every_kind(tmp_path: Path) -> None:
    event = dealt_demo(tmp_path)
    for kind in ("travellers", "hand-records"):
        assert_one_error(dealer_at(tmp_path, "print", kind, event, "--copies", -5, "--format", "html",
                                   "--out", tmp_path / "out"), "--copies", "expected 1 to 200")
