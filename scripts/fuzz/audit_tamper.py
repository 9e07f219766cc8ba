"""Tampering with the results database through plain sqlite3, then the publishing commands.

Each case: a fresh copy of a base state (``demo``: dealt, sample results, set 1 released, a site
built; ``swiss``: rounds 1-2 paired and scored, set 1 released, a site built), one edit of its
results database with the sqlite3 module (rows inserted, edited or deleted, with the triggers
dropped and put back where they would refuse), then:

- ``results audit`` (expected: 1, naming the row);
- ``site --no-pdf --out s`` (the existing site) and ``--out s-new`` (a first build);
- ``release --set 3 --accept-missing``, ``release --key``;
- ``round pair --round 3`` (Swiss);
- ``results import`` of a file (the demo's missing slip / the Swiss round 3).

Every command but the audit must exit 2, leave the database exactly as the tampering left it
(every table and the schema), the site folder and its previous generation byte for byte as
they were, create no ``s-new``, and print no traceback. The no-op edits (a row rewritten with
its own values; a trigger dropped and put back as it was) are the negative controls: there the
commands may succeed.

Usage: audit_tamper.py [--work /tmp/fuzz-tamper]
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common
import scanner
from common import run

B = ["--boards-dir", "b"]


def with_trigger_off(con: sqlite3.Connection, trigger: str, sql: str, params: tuple = ()) -> None:
    """Run ``sql`` with ``trigger`` dropped, then put it back exactly as it was."""
    (text,) = con.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?", (trigger,)).fetchone()
    con.execute(f"DROP TRIGGER {trigger}")
    con.execute(sql, params)
    con.execute(text)


def t_insert_release(kind: str, n: int | None) -> Callable[[sqlite3.Connection], None]:
    def edit(con: sqlite3.Connection) -> None:
        con.execute("INSERT INTO releases (kind, set_number, reason, at) VALUES (?, ?, 'forged', "
                    "'2026-12-01T23:00:00.000+00:00')", (kind, n))
    return edit


def t_insert_release_chained(con: sqlite3.Connection) -> None:
    """A release row given the next seq and the last row's chain value (looks linked)."""
    seq = max(con.execute(f"SELECT coalesce(max(seq), 0) FROM {t}").fetchone()[0]
              for t in ("results", "imports", "actions", "releases", "level_results")) + 1
    (chain,) = con.execute("SELECT chain FROM releases ORDER BY seq DESC LIMIT 1").fetchone()
    con.execute("INSERT INTO releases (kind, set_number, reason, at, seq, chain) VALUES ('set', 3, 'forged', "
                "'2026-12-01T23:00:00.000+00:00', ?, ?)", (seq, chain))


def t_edit_release_set(con: sqlite3.Connection) -> None:
    with_trigger_off(con, "releases_no_update", "UPDATE releases SET set_number = 3 WHERE set_number = 1")


def t_edit_release_kind_key(con: sqlite3.Connection) -> None:
    with_trigger_off(con, "releases_no_update", "UPDATE releases SET kind = 'key', set_number = NULL WHERE id = 1")


def t_delete_release(con: sqlite3.Connection) -> None:
    with_trigger_off(con, "releases_no_delete", "DELETE FROM releases WHERE id = 1")


def t_edit_result(con: sqlite3.Connection) -> None:
    with_trigger_off(con, "results_no_update",
                     "UPDATE results SET defenders_points = defenders_points + 5 WHERE id = 10")


def t_edit_result_noop(con: sqlite3.Connection) -> None:
    with_trigger_off(con, "results_no_update", "UPDATE results SET defenders_points = defenders_points WHERE id = 10")


def t_trigger_noop(con: sqlite3.Connection) -> None:
    with_trigger_off(con, "releases_no_update", "SELECT 1")


def t_drop_trigger(con: sqlite3.Connection) -> None:
    con.execute("DROP TRIGGER releases_no_update")


def t_insert_result_missing_slot(con: sqlite3.Connection) -> None:
    """The demo's missing slip (3-2-B-16) inserted as a row the tool did not write: board 16
    would no longer be in play."""
    (imp,) = con.execute("SELECT max(id) FROM imports").fetchone()
    con.execute("INSERT INTO results (round, match, tbl, board, defenders_points, trump, declarer, level, ns_team, "
                "ew_team, entered_at, import_id, played_set) VALUES (3, '2', 'B', 16, 40, 'S', 'W', '4', 'T2', 'T3', "
                "'2026-12-01T23:00:00.000+00:00', ?, 3)", (imp,))


def t_withdraw_result(con: sqlite3.Connection) -> None:
    with_trigger_off(con, "results_no_update", "UPDATE results SET withdrawn = 1 WHERE id = 5")


def t_delete_result(con: sqlite3.Connection) -> None:
    with_trigger_off(con, "results_no_delete", "DELETE FROM results WHERE id = (SELECT max(id) FROM results)")


def t_edit_import(con: sqlite3.Connection) -> None:
    with_trigger_off(con, "imports_no_update", "UPDATE imports SET sample = 0")


def t_edit_chain(con: sqlite3.Connection) -> None:
    with_trigger_off(con, "results_no_update", "UPDATE results SET chain = substr(chain, 2) || '0' WHERE id = 20")


def t_insert_end(con: sqlite3.Connection) -> None:
    con.execute("INSERT INTO actions (kind, round, data, reason, at) VALUES ('end', 2, '{\"unfinished\": []}', "
                "'forged end', '2026-12-01T23:00:00.000+00:00')")


def t_edit_pairing(con: sqlite3.Connection) -> None:
    (data,) = con.execute("SELECT data FROM actions WHERE kind = 'pair' AND round = 2").fetchone()
    forged = data.replace('"home":"T3"', '"home":"TX"').replace('"away":"T7"', '"away":"T3"').replace('"home":"TX"',
                                                                                                      '"home":"T7"')
    with_trigger_off(con, "actions_no_update", "UPDATE actions SET data = ? WHERE kind = 'pair' AND round = 2",
                     (forged,))


def t_insert_undo_pairing(con: sqlite3.Connection) -> None:
    (aid,) = con.execute("SELECT id FROM actions WHERE kind = 'pair' AND round = 2").fetchone()
    con.execute("INSERT INTO actions (kind, round, data, reason, undoes, at) VALUES ('undo', 2, '{}', 'forged', ?, "
                "'2026-12-01T23:00:00.000+00:00')", (aid,))


def t_insert_forfeit(con: sqlite3.Connection) -> None:
    con.execute("INSERT INTO actions (kind, round, data, reason, at) VALUES ('forfeit', 3, "
                "'{\"match\": \"2\", \"team\": \"T2\", \"forfeit\": true}', 'forged', '2026-12-01T23:00:00.000+00:00')")


def t_meta_event(con: sqlite3.Connection) -> None:
    with_trigger_off(con, "meta_no_update", "UPDATE meta SET value = 'created-x' WHERE key = 'created'")


def t_meta_chain(con: sqlite3.Connection) -> None:
    with_trigger_off(con, "meta_no_update", "UPDATE meta SET value = 'shengji-dealer/results-chain/v0' "
                     "WHERE key = 'chain'")


def t_meta_result(con: sqlite3.Connection) -> None:
    with_trigger_off(con, "meta_no_update", "UPDATE meta SET value = 'levels' WHERE key = 'result'")


def t_meta_chain_deleted(con: sqlite3.Connection) -> None:
    with_trigger_off(con, "meta_no_delete", "DELETE FROM meta WHERE key = 'chain'")


def t_add_column(con: sqlite3.Connection) -> None:
    con.execute("ALTER TABLE releases ADD COLUMN extra TEXT")
    with_trigger_off(con, "releases_no_update", "UPDATE releases SET extra = 'x'")


def t_view(con: sqlite3.Connection) -> None:
    (text,) = con.execute("SELECT sql FROM sqlite_master WHERE type = 'view' AND name = 'current_results'").fetchone()
    con.execute("DROP VIEW current_results")
    con.execute("CREATE VIEW current_results AS SELECT r.* FROM results r WHERE r.id > 0 AND NOT EXISTS "
                "(SELECT 1 FROM results s WHERE s.supersedes = r.id)")


CASES: list[tuple[str, str, Callable[[sqlite3.Connection], None], bool]] = [
    # name, state, edit, is a negative control (no change of data)
    ("release set 3 inserted", "demo", t_insert_release("set", 3), False),
    ("release set 2 inserted", "demo", t_insert_release("set", 2), False),
    ("key release inserted", "demo", t_insert_release("key", None), False),
    ("unused set 3 inserted", "demo", t_insert_release("unused", 3), False),
    ("release set 3 inserted with copied seq/chain", "demo", t_insert_release_chained, False),
    ("release set 1 -> 3 edited", "demo", t_edit_release_set, False),
    ("release set 1 -> key edited", "demo", t_edit_release_kind_key, False),
    ("release deleted (the last row)", "demo", t_delete_release, False),
    ("result points edited", "demo", t_edit_result, False),
    ("result withdrawn by edit", "demo", t_withdraw_result, False),
    ("last result deleted", "demo", t_delete_result, False),
    ("missing slip inserted unlinked", "demo", t_insert_result_missing_slot, False),
    ("import sample flag edited", "demo", t_edit_import, False),
    ("a chain value edited", "demo", t_edit_chain, False),
    ("end inserted", "demo", t_insert_end, False),
    ("forfeit inserted", "demo", t_insert_forfeit, False),
    ("meta created edited", "demo", t_meta_event, False),
    ("meta chain version edited", "demo", t_meta_chain, False),
    ("meta result kind edited", "demo", t_meta_result, False),
    ("meta chain row deleted", "demo", t_meta_chain_deleted, False),
    ("column added to releases and filled", "demo", t_add_column, False),
    ("view current_results replaced", "demo", t_view, False),
    ("trigger dropped", "demo", t_drop_trigger, False),
    ("no-op: result rewritten as it was", "demo", t_edit_result_noop, True),
    ("no-op: trigger dropped and restored", "demo", t_trigger_noop, True),
    ("swiss: release set 2 inserted", "swiss", t_insert_release("set", 2), False),
    ("swiss: key inserted", "swiss", t_insert_release("key", None), False),
    ("swiss: end inserted", "swiss", t_insert_end, False),
    ("swiss: round 2 pairing edited", "swiss", t_edit_pairing, False),
    ("swiss: round 2 pairing undone by an inserted undo", "swiss", t_insert_undo_pairing, False),
    ("swiss: unused set 3 inserted", "swiss", t_insert_release("unused", 3), False),
    ("swiss: no-op trigger", "swiss", t_trigger_noop, True),
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", default="/tmp/fuzz-tamper")
    a = ap.parse_args()
    work = Path(a.work)
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    tally = common.Tally()
    rows = []
    for i, (name, state, edit, control) in enumerate(CASES):
        base = common.build_state(state)
        case = work / f"t{i:02d}"
        common.copy_tree(base, case)
        event_id = "demo" if state == "demo" else "demo-swiss"
        dbp = case / "b" / event_id / "results.sqlite"
        con = sqlite3.connect(dbp)
        try:
            edit(con)
            con.commit()
        finally:
            con.close()
        commands = [["results", "audit", "e.toml", *B],
                    ["site", "e.toml", "--no-pdf", *B, "--out", "s"],
                    ["site", "e.toml", "--no-pdf", *B, "--out", "s-new"],
                    ["release", "e.toml", "--set", "3", "--accept-missing", "--reason", "x", *B],
                    ["release", "e.toml", "--key", "--reason", "x", *B]]
        if state == "swiss":
            commands.append(["round", "pair", "e.toml", "--round", "3", *B])
            commands.append(["results", "import", "e.toml", "r3.csv", *B])
        else:
            commands.append(["results", "import", "e.toml", "missing.csv", *B])
        line = []
        for args in commands:
            db_before = common.dump_db(dbp)
            snap_before = common.snapshot(case)
            r = run(args, case, timeout=240)
            cname = " ".join(args[:2]) if args[0] in ("results", "round") else args[0] + (
                " --key" if "--key" in args else " --set" if args[0] == "release" else "")
            tally.count(cname + (" (control)" if control else ""), r.rc)
            changed_db = common.db_diff(db_before, common.dump_db(dbp))
            changed_files = common.snap_diff(snap_before, common.snapshot(case))
            line.append((cname, r.rc))
            expected = (1,) if args[:2] == ["results", "audit"] else (2,)
            if r.traceback or r.rc == "timeout":
                tally.find("traceback", case=name, args=args, err=r.err[-1500:])
            informational = args[:2] == ["results", "import"]  # writes check the last link only (documented)
            if not control and r.rc not in expected and not informational:
                tally.find("tampering-not-refused", case=name, args=args, rc=r.rc, out=r.out[-300:], err=r.short())
            if r.rc != 0 and (changed_db or changed_files):
                tally.find("failed-command-changed-state", case=name, args=args, rc=r.rc, db=changed_db,
                           files=changed_files[:10])
            if not control and r.rc == 0 and args[0] == "site":
                db = scanner.read_db(dbp)
                sec = scanner.secrets(case / "b" / event_id, {1}, False)  # only set 1 was really released
                hits = scanner.scan(case / args[-1], sec).hits
                if hits:
                    tally.find("tampered-release-published", case=name, hits=len(hits), sample=hits[:3],
                               db_released=sorted(db["released"]))
        rows.append({"case": name, "state": state, "control": control, "statuses": line,
                     "audit_message": ""})
        print(f"{'CONTROL' if control else 'edit':7} {name:52} " + " ".join(f"{c.split()[-1]}={rc}" for c, rc in line))
        shutil.rmtree(case)
    common.write_json(work / "report.json", {"cases": rows, "statuses": tally.statuses, "findings": tally.findings})
    print(f"findings: {len(tally.findings)}")
    for f in tally.findings:
        print(" ", str(f)[:500])


if __name__ == "__main__":
    main()
