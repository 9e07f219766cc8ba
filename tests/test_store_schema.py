"""The store's schema declared as data: the guards and views it generates are, text for text,
the statements the tool has always written (the audit compares them with ``sqlite_master``), and
a database built by an older version opens and audits clean.

``FROZEN_TRIGGERS`` and ``FROZEN_VIEWS`` are copied from ``dealer/results/db.py`` as it was
before the schema became data (commit 73b45d7): do not edit them to make a test pass; a change
here is a change of every stored database's schema.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from dealer.store import schema
from dealer.store.db import ResultsStore
from dealer.store.migrations import MIGRATIONS, SCHEMA_VERSION
from dealer.store.rows import Entry, LevelEntry
from dealer.store.schema import BOARDS, LEVELS

FROZEN_TRIGGERS: dict[str, str] = {
    name: sql.strip() for name, sql in {
        "results_no_update": "CREATE TRIGGER results_no_update BEFORE UPDATE ON results "
                             "BEGIN SELECT RAISE(ABORT, 'results are append-only: use a correction'); END",
        "results_no_delete": "CREATE TRIGGER results_no_delete BEFORE DELETE ON results "
                             "BEGIN SELECT RAISE(ABORT, 'results are append-only: nothing is deleted'); END",
        # INSERT OR REPLACE deletes a conflicting row without firing the delete trigger: refuse
        # any insert that would conflict, before the conflict clause applies.
        # (One EXISTS per constraint, so that each is an index lookup.)
        "results_no_replace": "CREATE TRIGGER results_no_replace BEFORE INSERT ON results WHEN "
                              "EXISTS (SELECT 1 FROM results WHERE id = NEW.id) "
                              "OR EXISTS (SELECT 1 FROM results WHERE seq = NEW.seq) "
                              "OR EXISTS (SELECT 1 FROM results WHERE supersedes = NEW.supersedes) "
                              "OR (NEW.supersedes IS NULL AND EXISTS (SELECT 1 FROM results WHERE "
                              "round = NEW.round AND match = NEW.match AND tbl = NEW.tbl AND board = NEW.board "
                              "AND supersedes IS NULL)) "
                              "BEGIN SELECT RAISE(ABORT, 'results are append-only: nothing is replaced'); END",
        "imports_no_update": "CREATE TRIGGER imports_no_update BEFORE UPDATE ON imports "
                             "BEGIN SELECT RAISE(ABORT, 'the import log is append-only'); END",
        "imports_no_delete": "CREATE TRIGGER imports_no_delete BEFORE DELETE ON imports "
                             "BEGIN SELECT RAISE(ABORT, 'the import log is append-only'); END",
        "imports_no_replace": "CREATE TRIGGER imports_no_replace BEFORE INSERT ON imports WHEN "
                              "EXISTS (SELECT 1 FROM imports WHERE id = NEW.id) "
                              "OR EXISTS (SELECT 1 FROM imports WHERE seq = NEW.seq) "
                              "BEGIN SELECT RAISE(ABORT, 'the import log is append-only'); END",
        "actions_no_update": "CREATE TRIGGER actions_no_update BEFORE UPDATE ON actions "
                             "BEGIN SELECT RAISE(ABORT, 'the director''s actions are append-only'); END",
        "actions_no_delete": "CREATE TRIGGER actions_no_delete BEFORE DELETE ON actions "
                             "BEGIN SELECT RAISE(ABORT, 'the director''s actions are append-only'); END",
        "actions_no_replace": "CREATE TRIGGER actions_no_replace BEFORE INSERT ON actions WHEN "
                              "EXISTS (SELECT 1 FROM actions WHERE id = NEW.id) "
                              "OR EXISTS (SELECT 1 FROM actions WHERE seq = NEW.seq) "
                              "OR EXISTS (SELECT 1 FROM actions WHERE undoes = NEW.undoes) "
                              "BEGIN SELECT RAISE(ABORT, 'the director''s actions are append-only'); END",
        "level_results_no_update": "CREATE TRIGGER level_results_no_update BEFORE UPDATE ON level_results "
                                   "BEGIN SELECT RAISE(ABORT, 'results are append-only: use a correction'); END",
        "level_results_no_delete": "CREATE TRIGGER level_results_no_delete BEFORE DELETE ON level_results "
                                   "BEGIN SELECT RAISE(ABORT, 'results are append-only: nothing is deleted'); END",
        "level_results_no_replace": "CREATE TRIGGER level_results_no_replace BEFORE INSERT ON level_results WHEN "
                                    "EXISTS (SELECT 1 FROM level_results WHERE id = NEW.id) "
                                    "OR EXISTS (SELECT 1 FROM level_results WHERE seq = NEW.seq) "
                                    "OR EXISTS (SELECT 1 FROM level_results WHERE supersedes = NEW.supersedes) "
                                    "OR (NEW.supersedes IS NULL AND EXISTS (SELECT 1 FROM level_results WHERE "
                                    "round = NEW.round AND match = NEW.match AND tbl = NEW.tbl "
                                    "AND supersedes IS NULL)) "
                                    "BEGIN SELECT RAISE(ABORT, 'results are append-only: nothing is replaced'); END",
        "releases_no_update": "CREATE TRIGGER releases_no_update BEFORE UPDATE ON releases "
                              "BEGIN SELECT RAISE(ABORT, 'releases are append-only'); END",
        "releases_no_delete": "CREATE TRIGGER releases_no_delete BEFORE DELETE ON releases "
                              "BEGIN SELECT RAISE(ABORT, 'releases are append-only'); END",
        "releases_no_replace": "CREATE TRIGGER releases_no_replace BEFORE INSERT ON releases WHEN "
                               "EXISTS (SELECT 1 FROM releases WHERE id = NEW.id) "
                               "OR EXISTS (SELECT 1 FROM releases WHERE seq = NEW.seq) "
                               "OR EXISTS (SELECT 1 FROM releases WHERE kind = NEW.kind AND "
                               "set_number IS NEW.set_number) "
                               "BEGIN SELECT RAISE(ABORT, 'releases are append-only'); END",
        # Migration 8 (the director's penalties and warnings): the same three guards.
        "penalties_no_update": "CREATE TRIGGER penalties_no_update BEFORE UPDATE ON penalties "
                               "BEGIN SELECT RAISE(ABORT, "
                               "'penalties are append-only: withdraw one with --withdraw'); END",
        "penalties_no_delete": "CREATE TRIGGER penalties_no_delete BEFORE DELETE ON penalties "
                               "BEGIN SELECT RAISE(ABORT, "
                               "'penalties are append-only: withdraw one with --withdraw'); END",
        "penalties_no_replace": "CREATE TRIGGER penalties_no_replace BEFORE INSERT ON penalties WHEN "
                                "EXISTS (SELECT 1 FROM penalties WHERE id = NEW.id) "
                                "OR EXISTS (SELECT 1 FROM penalties WHERE seq = NEW.seq) "
                                "OR EXISTS (SELECT 1 FROM penalties WHERE undoes = NEW.undoes) "
                                "BEGIN SELECT RAISE(ABORT, "
                               "'penalties are append-only: withdraw one with --withdraw'); END",
        # Migration 10 (line-ups): the same three guards, and one first line-up per team and round.
        "lineups_no_update": "CREATE TRIGGER lineups_no_update BEFORE UPDATE ON lineups "
                             "BEGIN SELECT RAISE(ABORT, 'line-ups are append-only: record a change'); END",
        "lineups_no_delete": "CREATE TRIGGER lineups_no_delete BEFORE DELETE ON lineups "
                             "BEGIN SELECT RAISE(ABORT, 'line-ups are append-only: nothing is deleted'); END",
        "lineups_no_replace": "CREATE TRIGGER lineups_no_replace BEFORE INSERT ON lineups WHEN "
                              "EXISTS (SELECT 1 FROM lineups WHERE id = NEW.id) "
                              "OR EXISTS (SELECT 1 FROM lineups WHERE seq = NEW.seq) "
                              "OR EXISTS (SELECT 1 FROM lineups WHERE supersedes = NEW.supersedes) "
                              "OR (NEW.supersedes IS NULL AND EXISTS (SELECT 1 FROM lineups WHERE "
                              "round = NEW.round AND team = NEW.team AND supersedes IS NULL)) "
                              "BEGIN SELECT RAISE(ABORT, 'line-ups are append-only: nothing is replaced'); END",
        # Migration 13 (appeals, issue 38): the same three guards; one decision an appeal.
        "appeals_no_update": "CREATE TRIGGER appeals_no_update BEFORE UPDATE ON appeals "
                             "BEGIN SELECT RAISE(ABORT, 'appeals are append-only: an appeal is decided once'); END",
        "appeals_no_delete": "CREATE TRIGGER appeals_no_delete BEFORE DELETE ON appeals "
                             "BEGIN SELECT RAISE(ABORT, 'appeals are append-only: an appeal is decided once'); END",
        "appeals_no_replace": "CREATE TRIGGER appeals_no_replace BEFORE INSERT ON appeals WHEN "
                              "EXISTS (SELECT 1 FROM appeals WHERE id = NEW.id) "
                              "OR EXISTS (SELECT 1 FROM appeals WHERE seq = NEW.seq) "
                              "OR EXISTS (SELECT 1 FROM appeals WHERE decides = NEW.decides) "
                              "BEGIN SELECT RAISE(ABORT, 'appeals are append-only: an appeal is decided once'); END",
        "meta_no_update": "CREATE TRIGGER meta_no_update BEFORE UPDATE ON meta "
                          "BEGIN SELECT RAISE(ABORT, 'meta is fixed'); END",
        "meta_no_delete": "CREATE TRIGGER meta_no_delete BEFORE DELETE ON meta "
                          "BEGIN SELECT RAISE(ABORT, 'meta is fixed'); END",
        "meta_no_replace": "CREATE TRIGGER meta_no_replace BEFORE INSERT ON meta WHEN "
                           "EXISTS (SELECT 1 FROM meta WHERE key = NEW.key) "
                           "BEGIN SELECT RAISE(ABORT, 'meta is fixed'); END",
    }.items()
}
CURRENT_VIEW = ("CREATE VIEW current_results AS SELECT r.* FROM results r "
                "WHERE NOT EXISTS (SELECT 1 FROM results s WHERE s.supersedes = r.id)")
CURRENT_LEVEL_VIEW = ("CREATE VIEW current_level_results AS SELECT r.* FROM level_results r "
                      "WHERE NOT EXISTS (SELECT 1 FROM level_results s WHERE s.supersedes = r.id)")
CURRENT_LINEUPS_VIEW = ("CREATE VIEW current_lineups AS SELECT r.* FROM lineups r "
                        "WHERE NOT EXISTS (SELECT 1 FROM lineups s WHERE s.supersedes = r.id)")
FROZEN_VIEWS = {"current_results": CURRENT_VIEW, "current_level_results": CURRENT_LEVEL_VIEW,
                "current_lineups": CURRENT_LINEUPS_VIEW}


def stored_guards(path: Path) -> dict[str, str]:
    conn = sqlite3.connect(path)
    try:
        return dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type IN ('trigger', 'view')"))
    finally:
        conn.close()


def test_the_generated_guards_and_views_are_the_frozen_statements() -> None:
    assert list(schema.TRIGGERS) == list(FROZEN_TRIGGERS)  # the order they are made and checked in
    assert schema.TRIGGERS == FROZEN_TRIGGERS
    assert schema.VIEWS == FROZEN_VIEWS
    assert {BOARDS.view, LEVELS.view, "current_lineups"} == set(FROZEN_VIEWS)


def test_a_new_database_holds_exactly_the_frozen_statements(tmp_path: Path) -> None:
    path = tmp_path / "results.sqlite"
    with ResultsStore.open(path, "hand", result="boards") as store:
        assert store.audit().ok
    assert stored_guards(path) == {**FROZEN_TRIGGERS, **FROZEN_VIEWS}


def test_a_schema_1_database_upgrades_and_audits_clean(tmp_path: Path) -> None:
    """A database as the first version wrote it (migration 1, rows without links): every later
    migration runs, the rows are linked, the guards are the frozen ones, the audit is clean."""
    path = tmp_path / "results.sqlite"
    conn = sqlite3.connect(path, isolation_level=None)
    MIGRATIONS[0](conn)
    conn.execute("PRAGMA user_version = 1")
    conn.execute("INSERT INTO meta VALUES ('event', 'hand'), ('created', '2024-01-01')")
    conn.execute("INSERT INTO imports (id, source, kind, rows_added, rows_skipped, at)"
                 " VALUES (1, 'round1.csv', 'file', 2, 0, '2024-01-01')")
    for board, points in ((1, 40), (2, 85)):
        conn.execute("INSERT INTO results (round, match, tbl, board, defenders_points, entered_at, import_id)"
                     " VALUES (1, '1', 'A', ?, ?, '2024-01-01', 1)", (board, points))
    conn.close()
    with ResultsStore.open(path, "hand", result="boards") as store:
        report = store.audit()
        assert report.ok, [f.text() for f in report.findings]
        assert report.rows == 3
        assert store.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert [r["defenders_points"] for r in store.history(BOARDS)] == [40, 85]
    assert stored_guards(path) == {**FROZEN_TRIGGERS, **FROZEN_VIEWS}


def test_one_api_for_both_result_kinds(tmp_path: Path) -> None:
    """Board and level results go through the same methods, the kind's table spec saying which."""
    with ResultsStore.open(tmp_path / "boards.sqlite", "boards-event", result="boards") as store:
        with store.transaction():
            store.insert(BOARDS, [Entry(1, "1", "A", 1, 40, trump="S", ns_team="a", ew_team="b", played_set=1),
                                  Entry(1, "1", "B", 1, 85, ns_team="b", ew_team="a", played_set=1)],
                         source="f.csv", import_kind="file")
        old = store.current_row(BOARDS, (1, "1", "A", 1))
        assert old is not None and old["defenders_points"] == 40
        with store.transaction():
            store.insert(BOARDS, [Entry(1, "1", "A", 1, 45)], source="correct", import_kind="correct",
                         supersedes=[old["id"]], reason="slip misread")
        assert {slot: r["defenders_points"] for slot, r in store.current(BOARDS).items()} == {
            (1, "1", "A", 1): 45, (1, "1", "B", 1): 85}
        assert [r["defenders_points"] for r in store.superseded(BOARDS, [1])[(1, "1", "A", 1)]] == [40]
        assert [r["tbl"] for r in store.match_rows(BOARDS, 1, "1")] == ["A", "B"]
        assert sorted(store.scoring_rows(BOARDS)) == [(1, "1", "A", 1, 45, None), (1, "1", "B", 1, 85, None)]
        assert [(s.table, s.ns_team) for s in store.seatings(BOARDS)] == [("A", None), ("B", "b")]
        history = store.history(BOARDS, 1, "1", "A")
        assert [(r["defenders_points"], r.current, r.source) for r in history] == [
            (40, False, "f.csv"), (45, True, "correct")]
        assert history[1].supersedes == history[0].id and history[1].reason == "slip misread"
        assert history[0].as_dict()["table"] == "A"  # as `results history --json` always named it
        assert store.audit().ok
    with ResultsStore.open(tmp_path / "levels.sqlite", "level-event", result="levels") as store:
        with store.transaction():
            store.insert(LEVELS, [LevelEntry(1, "1", 1, "A", "5", last_game="home", home_team="a", away_team="b"),
                                  LevelEntry(1, "1", 2, "K", "过A", home_team="a", away_team="b")],
                         source="levels.csv", import_kind="file")
        old = store.current_row(LEVELS, (1, "1", 1))
        assert old is not None and old["home_level"] == "A"
        with store.transaction():
            store.insert(LEVELS, [LevelEntry(1, "1", 1, "K", "5", home_team="a", away_team="b")], source="correct",
                         import_kind="correct", supersedes=[old["id"]], reason="wrong level")
        assert {slot: r["home_level"] for slot, r in store.current(LEVELS).items()} == {(1, "1", 1): "K",
                                                                                     (1, "1", 2): "K"}
        assert [r["home_level"] for r in store.superseded(LEVELS, [1])[(1, "1", 1)]] == ["A"]
        assert [r["tbl"] for r in store.match_rows(LEVELS, 1, "1")] == [1, 2]
        # … with the games each side won (a best-of-three round), none recorded here.
        assert sorted(store.scoring_rows(LEVELS)) == [(1, "1", 1, "K", "5", None, None, None),
                                                     (1, "1", 2, "K", "过A", None, None, None)]
        assert store.seatings(LEVELS) == [(1, "1", "a", "b")]
        history = store.history(LEVELS, 1, "1", 1)
        assert [(r["home_level"], r.current, r.table) for r in history] == [("A", False, 1), ("K", True, 1)]
        assert history[0].as_dict()["tbl"] == 1 and history[0].as_dict()["last_game"] == "home"
        assert store.audit().ok
