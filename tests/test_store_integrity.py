"""The results database keeps what the tool wrote and shows what was changed behind its back.

SQLite itself refuses a row replaced or deleted (the guards); a row replaced, deleted, edited,
added, forged with a right link or cut from the end with the guards dropped is found by ``results
audit`` (exit 1, naming the row) and stops every writing command; a head published before a
rewrite that recomputed every link still shows it. A schema edited by hand, chain columns dropped
or ``user_version`` set back is one error or an idempotent migration, never a re-linked chain.
Found by the reliability reviews; each test drives ``dealer`` as the reviewer did, expected values
from the hand-worked event (``test_results_support``) or seed 001's level race (``test_levels``).
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import assert_one_error, report_json_of
from test_levels import seed_001_database, seed_001_race
from test_results_support import (
    HEADER,
    db_path,
    db_state,
    dealer_at,
    edit_database,
    hand_rows,
    scored_hand_event,
    write_csv,
)

from dealer.store.migrations import SCHEMA_VERSION

ROW_1 = ("SELECT id, round, match, tbl, board, 200, withdrawn, trump, declarer, level, ns_team, ew_team, note,"
         " entered_by, entered_at, import_id, source_row, supersedes, reason, played_set, seq, chain FROM results"
         " WHERE id = 1")
COLUMNS = ("id, round, match, tbl, board, defenders_points, withdrawn, trump, declarer, level, ns_team, ew_team,"
           " note, entered_by, entered_at, import_id, source_row, supersedes, reason, played_set, seq, chain")


def test_replace_is_refused_by_the_database_itself(tmp_path: Path) -> None:
    """``INSERT OR REPLACE`` / ``REPLACE INTO`` on results, imports and meta (which
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
            edit_database(db_path(tmp_path), statement)
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
def test_tampering_is_found_by_the_audit_and_blocks_writing(tmp_path: Path, kind: str) -> None:
    """A row replaced, deleted, edited or added behind the tool's back (guards dropped
    where needed): ``results audit`` exits 1 naming each row and kind; every writing command then
    refuses with "changed outside the tool" and stores nothing."""
    event = scored_hand_event(tmp_path, hand_rows())
    statements, named = TAMPERING[kind]
    edit_database(db_path(tmp_path), *statements)
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


def test_a_clean_database_audits_and_its_chain_head_is_published(tmp_path: Path) -> None:
    """An untouched database passes the audit (exit 0) and prints its chain head, the
    same as ``report --json``'s ``results_chain_head`` and the line ``report`` prints."""
    event = scored_hand_event(tmp_path, hand_rows())
    assert dealer_at(tmp_path, "results", "correct", event, "--round", 1, "--match", 1, "--table", "A",
                     "--board", 2, "--points", 40, "--reason", "misread").exit_code == 0
    audit = dealer_at(tmp_path, "results", "audit", event)
    assert audit.exit_code == 0, audit.output
    assert "audit passed" in audit.output
    head = audit.stdout.split("chain head ", 1)[1].split()[0]
    assert len(head) == 64 and int(head, 16) >= 0
    assert report_json_of(event, tmp_path / "boards")["results_chain_head"] == head
    written = dealer_at(tmp_path, "report", event, "--format", "csv,html", "--out", tmp_path / "rep")
    assert written.exit_code == 0, written.output
    assert f"results chain head: {head}" in written.output
    assert head in (tmp_path / "rep" / "hand-results.html").read_text(encoding="utf-8")
    # Any later entry moves the head: a published report shows a rewrite.
    assert dealer_at(tmp_path, "results", "correct", event, "--round", 1, "--match", 1, "--table", "A",
                     "--board", 2, "--points", 45, "--reason", "misread again").exit_code == 0
    assert report_json_of(event, tmp_path / "boards")["results_chain_head"] != head


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


def test_a_row_forged_with_a_right_link_is_found(tmp_path: Path) -> None:
    """The chain has no key, so a forger can append a row with the right link (the
    last link is in the database). What the tool always writes together gives it away: a
    correction outside any import record; and the head published before it still checks."""
    from dealer.store.schema import RESULT_COLUMNS

    event = scored_hand_event(tmp_path, hand_rows())
    published = report_json_of(event, tmp_path / "boards")["results_chain_head"]
    forge = tmp_path / "forge.py"
    forge.write_text(FORGE.format(columns=repr(RESULT_COLUMNS)), encoding="utf-8")
    subprocess.run([sys.executable, str(forge), str(db_path(tmp_path))], check=True)
    audit = dealer_at(tmp_path, "results", "audit", event)
    assert audit.exit_code == 1, audit.output
    assert "results #1000" in audit.output and "added" in audit.output
    assert report_json_of(event, tmp_path / "boards")["results_chain_head"] != published
    # Against the head a report published before, the earlier results are still all there.
    checked = dealer_at(tmp_path, "results", "audit", event, "--head", published)
    assert "the published head is link" in checked.output


def test_rows_cut_from_the_end_are_found(tmp_path: Path) -> None:
    """The last rows deleted behind the tool's back (the guard dropped and put back
    as it was): the count still equals the last link, but the import says how many rows it
    wrote; writing refuses, and the audit names the import."""
    event = scored_hand_event(tmp_path, hand_rows())
    from dealer.store.schema import TRIGGERS

    stored = db_state(tmp_path)
    edit_database(db_path(tmp_path), "DROP TRIGGER results_no_delete", "DELETE FROM results WHERE id > 27",
                  TRIGGERS["results_no_delete"])
    audit = dealer_at(tmp_path, "results", "audit", event)
    assert audit.exit_code == 1 and "imports #1: deleted: recorded 32 row(s), has 27" in audit.output, audit.output
    added = dealer_at(tmp_path, "results", "add", event, "--round", 1, "--match", 2, "--table", "A",
                      "--board", 1, "--points", 5)
    assert_one_error(added, "changed outside the tool", "recorded 32 row(s) and has 27")
    assert len(db_state(tmp_path)) == len(stored) - 5


def test_a_published_head_shows_a_rewrite_that_recomputed_every_link(tmp_path: Path) -> None:
    """An edit whose links were all recomputed passes the chain walk; the head that a
    report published before it does not: ``results audit --head`` exits 1."""
    from dealer.store.chain import genesis, link
    from dealer.store.db import ResultsStore

    event = scored_hand_event(tmp_path, hand_rows())
    published = report_json_of(event, tmp_path / "boards")["results_chain_head"]
    edit_database(db_path(tmp_path), "DROP TRIGGER results_no_update", "DROP TRIGGER imports_no_update",
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

    edit_database(db_path(tmp_path), TRIGGERS["results_no_update"], TRIGGERS["imports_no_update"])
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
def test_odd_rows_are_named_not_crashed_on(tmp_path: Path, statement: str) -> None:
    """A row written behind the tool's back with a BLOB, a text link, link 0 or the
    link of another row: the audit names it (added) and never crashes; writing refuses."""
    event = scored_hand_event(tmp_path, hand_rows()[:8])
    edit_database(db_path(tmp_path), "DROP INDEX results_seq", "DROP TRIGGER results_no_replace", statement)
    audit = dealer_at(tmp_path, "results", "audit", event)
    assert audit.exit_code == 1 and "added" in audit.output, audit.output
    number = statement.split("SELECT ", 1)[1].split(",", 1)[0]
    assert f"results #{number}" in audit.output, audit.output
    added = dealer_at(tmp_path, "results", "add", event, "--round", 1, "--match", 2, "--table", "B",
                      "--board", 9, "--points", 5)
    assert_one_error(added, "changed outside the tool")


def test_a_database_whose_chain_columns_were_dropped_is_not_relinked(tmp_path: Path) -> None:
    """A row edited, then the chain columns dropped and ``user_version`` set
    back so that the migration would link the rows afresh: every command refuses instead."""
    event = scored_hand_event(tmp_path, hand_rows()[:10])
    edit_database(db_path(tmp_path), "DROP TRIGGER results_no_update",
                  "UPDATE results SET defenders_points = 200 WHERE id = 1",
                  "DROP INDEX results_seq", "DROP INDEX imports_seq",
                  "ALTER TABLE results DROP COLUMN chain", "ALTER TABLE imports DROP COLUMN chain",
                  "PRAGMA user_version = 2")
    for args in (("results", "audit", event), ("report", event, "--json"),
                 ("results", "add", event, "--round", 1, "--match", 2, "--table", "A", "--board", 1,
                  "--points", 5)):
        assert_one_error(dealer_at(tmp_path, *args), "changed outside the tool", "chain columns are gone")


SCHEMA_EDITS = {
    "view dropped": "DROP VIEW current_results",
    "points renamed": "ALTER TABLE results RENAME COLUMN defenders_points TO points",
    "source renamed": "ALTER TABLE imports RENAME COLUMN source TO src",
    "chain dropped": "ALTER TABLE results DROP COLUMN chain",
}


@pytest.mark.parametrize("edit", list(SCHEMA_EDITS))
def test_a_hand_edited_schema_is_one_error(tmp_path: Path, edit: str) -> None:
    """A results schema edited by hand (view dropped, column renamed or dropped) makes
    every results command fail with one line naming the database (audit: exit 1 or 2), never a
    traceback, and nothing stored."""
    event = scored_hand_event(tmp_path, hand_rows()[:10])
    edit_database(db_path(tmp_path), SCHEMA_EDITS[edit])
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


@pytest.mark.parametrize("version", [0, 1, 2])
def test_a_user_version_set_back_migrates_idempotently(tmp_path: Path, version: int) -> None:
    """``user_version`` set back by hand on a current database: the next command
    (a report upgrades a writable database before reading it; then a writing command) migrates
    again without "duplicate column", every stored row and chain link is kept, and the audit
    passes."""
    event = scored_hand_event(tmp_path, hand_rows()[:10])
    conn = sqlite3.connect(db_path(tmp_path))
    links = conn.execute("SELECT id, seq, chain FROM results ORDER BY id").fetchall()
    current = conn.execute("PRAGMA user_version").fetchone()[0]
    conn.close()
    stored = db_state(tmp_path)
    edit_database(db_path(tmp_path), f"PRAGMA user_version = {version}")
    assert dealer_at(tmp_path, "report", event, "--json").exit_code == 0
    edit_database(db_path(tmp_path), f"PRAGMA user_version = {version}")
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


def test_a_user_version_set_back_does_not_launder_tampering(tmp_path: Path) -> None:
    """Setting ``user_version`` back after editing a row (its guard dropped)
    must not make the migration re-link the chain over the edit: the writing command refuses and
    the audit still names the row."""
    event = scored_hand_event(tmp_path, hand_rows()[:10])
    edit_database(db_path(tmp_path), "DROP TRIGGER results_no_update",
                  "UPDATE results SET defenders_points = 200 WHERE id = 3",
                  "PRAGMA user_version = 2")
    stored = db_state(tmp_path)
    added = dealer_at(tmp_path, "results", "add", event, "--round", 1, "--match", 2, "--table", "A", "--board", 1,
                      "--points", 5)
    assert_one_error(added, "changed outside the tool")
    assert db_state(tmp_path) == stored
    edit_database(db_path(tmp_path), f"PRAGMA user_version = {SCHEMA_VERSION}")
    audit = dealer_at(tmp_path, "results", "audit", event)
    assert audit.exit_code == 1 and "results #3" in audit.output and "edited" in audit.output, audit.output


@pytest.mark.parametrize("table", ["actions", "level_results", "imports", "meta"])
def test_the_audit_finds_a_column_added_and_filled(tmp_path: Path, table: str) -> None:
    """A column added to `actions` (or any chained table) and filled was not noticed: its values
    are outside the hash chain. Found, naming the table and the column; writes refuse too."""
    event = seed_001_race(tmp_path)
    forfeit = dealer_at(tmp_path, "results", "forfeit", event, "--round", 1, "--match", 2, "--team", "U4",
                        "--reason", "did not come")
    assert forfeit.exit_code == 0, forfeit.output  # a row of actions
    assert dealer_at(tmp_path, "results", "audit", event).exit_code == 0
    edit_database(seed_001_database(tmp_path), f"ALTER TABLE {table} ADD COLUMN verdict TEXT DEFAULT 'kept'")
    audit = dealer_at(tmp_path, "results", "audit", event)
    assert audit.exit_code == 1, audit.output
    assert f"table {table}: column-added: column verdict" in audit.stderr
    assert_one_error(dealer_at(tmp_path, "results", "add", event, "--round", 2, "--match", 1, "--table", 1,
                               "--home-level", "5", "--away-level", "3"), "changed outside the tool",
                     f"table {table}")


def test_the_audit_reports_meta_edited_to_another_event(tmp_path: Path) -> None:
    """`meta` edited to another event's id (its guard dropped and put back) gave exit 2 "belongs
    to event …": the audit is the command that must say it, as a finding (exit 1). Every other
    command still refuses the database."""
    from dealer.store.schema import TRIGGERS

    event = seed_001_race(tmp_path)
    edit_database(seed_001_database(tmp_path), "DROP TRIGGER meta_no_update",
                  "UPDATE meta SET value = 'another-event' WHERE key = 'event'", TRIGGERS["meta_no_update"])
    audit = dealer_at(tmp_path, "results", "audit", event)
    assert audit.exit_code == 1, audit.output
    assert "table meta: meta:" in audit.stderr and "'another-event'" in audit.stderr
    assert "1 finding(s)" in audit.stderr  # the chain itself is intact: only meta was edited
    assert_one_error(dealer_at(tmp_path, "report", event, "--json"), "belongs to event 'another-event'")


@pytest.mark.parametrize("head", ["zz", "0000", "g" * 64])
def test_a_published_head_that_is_no_link_is_refused_not_called_tampering(tmp_path: Path, head: str) -> None:
    """Found by our own fuzzing: `--head zz` said the database was changed outside the tool."""
    event = seed_001_race(tmp_path)
    refused = dealer_at(tmp_path, "results", "audit", event, "--head", head)
    assert refused.exit_code == 2 and refused.stderr.startswith("error: --head:"), refused.output
