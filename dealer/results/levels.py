"""A level race's table results (``result = "levels"``): validate, import, add, correct, withdraw.

The same standards as board results (:mod:`.validate`, :mod:`.importer`, :mod:`.entry`): every
problem names the file, row, column and value (or, for an entry, the field); a file goes in whole
or not at all, in one ``BEGIN IMMEDIATE`` transaction; results are append-only (table
``level_results``, in the hash chain), a correction supersedes the current row with a reason.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from pathlib import Path

from dealer.errors import FileProblem, Phrase, Problem, Rejected, quote
from dealer.event import Event, Match
from dealer.levels import RACE_LEVELS, SIDES, climbed, level_names, race_level
from dealer.numbers import NotAWholeNumber, read_whole_number, whole_number_or_none
from dealer.results.importer import ImportReport, Layout, against_stored, read_file
from dealer.results.validate import TEXT_LIMIT, Cell, RawRow
from dealer.scoring import AttributionError, Misattributed
from dealer.store.db import ResultsStore
from dealer.store.rows import LevelEntry, level_value_text
from dealer.store.schema import LEVELS

#: Canonical field → accepted header spellings of a level race's result file.
LEVEL_FIELDS: dict[str, tuple[str, ...]] = {
    "round": ("round", "轮次", "轮"),
    "match": ("match", "场次", "场"),
    "table": ("table", "桌", "桌次", "桌号"),
    "home_level": ("home_level", "主队级数", "主队级别"),
    "away_level": ("away_level", "客队级数", "客队级别"),
    "last_game": ("last_game", "末局胜方"),
    "home_games": ("home_games", "主队胜局"),
    "away_games": ("away_games", "客队胜局"),
    "home_team": ("home_team", "主队"),
    "away_team": ("away_team", "客队"),
    "note": ("note", "备注"),
    "entered_by": ("entered_by", "记分员"),
}
LEVEL_LAYOUT = Layout(LEVEL_FIELDS, ("round", "match", "table", "home_level", "away_level"))
#: Most games a side can win at one table in a session (a plausibility bound on the games).
GAMES_LIMIT = 200


def slot_text(slot: tuple[int, str, int]) -> str:
    return f"round {slot[0]} match {slot[1]} table {slot[2]}"


def _stored_text(row: sqlite3.Row) -> str:
    value = "withdrawn" if row["withdrawn"] else level_value_text(row["home_level"], row["away_level"],
                                                                   row["last_game"])
    by = f" by {row['entered_by']}" if row["entered_by"] else ""
    return f"{value} (entered {row['entered_at'][:19]}{by})"


def table_number(text: str | None) -> int | None:
    """A table as written: its number (1 …, as :func:`~dealer.numbers.whole_number` reads it) or
    its ASCII letter (A = 1, B = 2 …); ``None`` for anything else. The one reading of a level
    race's table: files, ``results add``, ``correct``, withdrawals and ``history``."""
    text = (text or "").strip()
    if len(text) == 1 and text.isascii() and text.isalpha():
        return ord(text.upper()) - ord("A") + 1
    number = whole_number_or_none(text)
    return number if number is not None and number >= 1 else None


#: What a table that is not one is told (a withdrawal or ``history``, which need no event).
TABLE_EXPECTED = "expected the table's number (1, 2 …) or its letter (A = 1, B = 2 …)"


def stored_slot(values: Mapping[str, str | None], table: bool = True) -> tuple[int, str, int | None]:
    """The slot (round, match, table) or, ``table=False``, the match (table ``None``) an entry
    names, read without the event (a withdrawal reaches results of matches the event file no
    longer has) by the same rules as a file row; :class:`Rejected` naming each bad field."""
    problems: list[Problem] = []

    def refuse(key: str, message: str, **params: object) -> None:
        problems.append(Problem(None, None, key, None, (values.get(key) or "").strip() or None, message,
                                params=params))

    round_number = None
    try:
        round_number = read_whole_number(values.get("round"), Phrase("terms.the_round_number"), low=1)
    except NotAWholeNumber as refused:
        refuse("round", refused.key, **refused.params)
    match = (values.get("match") or "").strip()
    if not match:
        refuse("match", "result.match_missing")
    number = None
    if table:
        text = (values.get("table") or "").strip()
        number = table_number(text)
        if number is None:
            if not text:
                refuse("table", "level_result.table_missing")
            else:
                refuse("table", "level_result.table_expected")
    if problems or round_number is None:
        raise Rejected(None, problems, 1)
    return round_number, match, number


def validate_level_row(event: Event, source: str | None, row: RawRow) -> tuple[LevelEntry | None, list[Problem]]:
    """Check one table result against the event; the entry to store, or the problems."""
    problems: list[Problem] = []
    cells = row.cells
    empty = Cell("")

    def cell(key: str) -> Cell:
        return cells.get(key, empty)

    def problem(key: str, message: str, **params: object) -> None:
        c = cell(key)
        problems.append(Problem(source, row.number, key, c.column, c.value, message, params=params))

    for key, value in cells.items():
        if len(value.value) > TEXT_LIMIT:
            problem(key, "result.text_too_long", limit=TEXT_LIMIT, length=len(value.value))
    if problems:
        return None, problems

    def number(key: str, what: str, required: bool = True) -> int | None:
        if not cell(key).value and not required:
            return None
        try:
            return read_whole_number(cell(key).value, Phrase(what))
        except NotAWholeNumber as refused:
            problem(key, refused.key, **refused.params)
            return None

    round_number = number("round", "terms.the_round_number")
    rnd = event.round(round_number) if round_number is not None else None
    if round_number is not None and rnd is None:
        problem("round", "level_result.round_not_in_event", round=round_number,
                rounds=', '.join(str(r.number) for r in event.rounds) or Phrase("terms.none_yet"))
    teams: dict[str, str] = {}
    for key in ("home_team", "away_team"):
        text = cell(key).value
        if not text:
            continue
        team = event.team_named(text)
        if team is None:
            problem(key, "result.unknown_team")
        elif rnd is not None and team in rnd.byes:
            problem(key, "level_result.team_had_bye", team=team, round=rnd.number)
        else:
            teams[key] = team
    match: Match | None = None
    match_id = cell("match").value
    if not match_id:
        problem("match", "result.match_missing")
    elif rnd is not None:
        match = rnd.match(match_id)
        if match is None:
            byes = Phrase.of("level_result.byes", teams=", ".join(rnd.byes)) if rnd.byes else ""
            problem("match", "level_result.match_not_in_round", match=quote(match_id), round=rnd.number,
                    matches=', '.join(m.id for m in rnd.matches), byes=byes)
    if match is not None:
        for key, expected in (("home_team", match.home), ("away_team", match.away)):
            if key in teams and teams[key] != expected:
                side = Phrase("terms.home") if key == "home_team" else Phrase("terms.away")
                problem(key, "level_result.wrong_team", side=side, round=match.round, match=match.id,
                        expected=expected, home=match.home, away=match.away)

    table = None
    table_text = cell("table").value
    if not table_text:
        problem("table", "level_result.table_number_missing")
    else:
        table = table_number(table_text)
        if table is None or not 1 <= table <= event.tables:
            problem("table", "level_result.no_such_table", tables=event.tables)
            table = None

    start = event.profile.level_race.start
    levels: dict[str, str] = {}
    for key in ("home_level", "away_level"):
        text = cell(key).value
        if not text:
            problem(key, "level_result.final_level_missing", levels=' '.join(level_names(start)))
            continue
        try:
            level = race_level(text)
        except ValueError:
            if "".join(text.split()) == "过":
                problem(key, "level_result.guo_alone")
            else:
                problem(key, "level_result.no_such_level", levels=' '.join(RACE_LEVELS))
            continue
        if climbed(level, start) < 0:
            problem(key, "level_result.below_start", start=start, profile=event.profile.id,
                    levels=' '.join(level_names(start)))
            continue
        levels[key] = level
    if levels.get("home_level") == levels.get("away_level") == RACE_LEVELS[-1]:
        problem("away_level", "level_result.both_past_a")

    last_game = None
    text = cell("last_game").value
    if text:
        last_game = SIDES.get("".join(text.split()).upper())
        if last_game is None and match is not None:
            team = next((t.id for t in event.teams if text.strip() in (t.id, t.name)), None)
            last_game = "home" if team == match.home else "away" if team == match.away else None
        if last_game is None:
            problem("last_game", "level_result.bad_last_game")
    elif (len(levels) == 2 and levels["home_level"] == levels["away_level"]
          and event.profile.level_race.match_winner == "tables"):
        problem("last_game", "level_result.last_game_missing")
    games: dict[str, int] = {}
    for key in ("home_games", "away_games"):
        won = number(key, "terms.the_games_won", required=False)
        if won is not None and not 0 <= won <= GAMES_LIMIT:
            problem(key, "level_result.games_out_of_range", limit=GAMES_LIMIT)
        elif won is not None:
            games[key] = won

    if problems or round_number is None or match is None or table is None or len(levels) != 2:
        return None, problems
    return LevelEntry(
        round=round_number, match=match.id, table=table, home_level=levels["home_level"],
        away_level=levels["away_level"], last_game=last_game, home_games=games.get("home_games"),
        away_games=games.get("away_games"), home_team=match.home, away_team=match.away,
        note=cell("note").value or None, entered_by=cell("entered_by").value or None, source_row=row.number,
    ), []


def level_attribution_problems(event: Event, store: ResultsStore,
                               matches: set[tuple[int, str]] | None = None) -> list[Misattributed]:
    """Matches whose stored level results were entered for teams the event no longer has there."""
    found: dict[tuple[int, str], Phrase] = {}
    for round_number, match_id, home, away in store.seatings(LEVELS):
        key = (round_number, match_id)
        if (matches is not None and key not in matches) or key in found:
            continue
        rnd = event.round(round_number)
        match = rnd.match(match_id) if rnd is not None else None
        if match is None:
            found[key] = Phrase("scoring.match_gone")
        elif (home, away) != (match.home, match.away):
            found[key] = Phrase.of("level_result.teams_changed", home=home, away=away, now_home=match.home,
                                   now_away=match.away)
    return [Misattributed(r, m, reason) for (r, m), reason in sorted(found.items())]


def _check_seating(store: ResultsStore, event: Event, matches: set[tuple[int, str]]) -> None:
    from dealer.results.importer import refuse_forfeited

    found = level_attribution_problems(event, store, matches)
    if found:
        raise AttributionError(found)
    refuse_forfeited(store, matches)


def import_level_file(store: ResultsStore, event: Event, path: str | Path, entered_by: str | None = None,
                      sheet: str | None = None) -> ImportReport:
    """Import one file of table results in one transaction; raises :class:`Rejected` on any
    problem (nothing stored). Re-importing is a no-op; a row equal to a value a correction has
    superseded keeps the correction; a different value for a stored slot is a duplicate."""
    parsed = read_file(path, sheet, LEVEL_LAYOUT)
    source = parsed.source
    entries: list[LevelEntry] = []
    problems: list[Problem] = []
    first_row: dict[tuple[int, str, int], int | None] = {}
    for raw in parsed.rows:
        entry, row_problems = validate_level_row(event, source, raw)
        problems.extend(row_problems)
        if entry is None:
            continue
        if entry.slot in first_row:
            problems.append(Problem(source, raw.number, None, None, None,
                                    "import.duplicate_row", params={"slot": slot_text(entry.slot),
                                                                    "row": first_row[entry.slot]}))
            continue
        first_row[entry.slot] = raw.number
        entries.append(entry)
    if problems:
        raise Rejected(source, problems, len(parsed.rows))
    if not entries:
        raise FileProblem("import.no_result_rows", source=source)
    rounds = sorted({e.round for e in entries})
    with store.transaction():
        _check_seating(store, event, {(e.round, e.match) for e in entries})
        stored = store.current(LEVELS, rounds)
        chosen, corrected = against_stored(source, [e.slot for e in entries], entries.__getitem__, stored,
                                           store.superseded(LEVELS, rounds), slot_text, _stored_text,
                                           len(parsed.rows))
        skipped = len(entries) - len(chosen) - corrected
        if not chosen:
            return ImportReport(source, 0, skipped, None, corrected, sheet=parsed.sheet)
        fresh = [entries[i] for i in chosen]
        import_id = store.insert(LEVELS, fresh, source=source, import_kind="file", sha256=parsed.sha256,
                                 entered_by=entered_by, skipped=skipped + corrected, sample=parsed.sample)
    return ImportReport(source, len(fresh), skipped, import_id, corrected, parsed.sample, parsed.sheet)


def _entry(event: Event, values: Mapping[str, str | None]) -> LevelEntry:
    row = RawRow(None, {k: Cell("" if v is None else str(v).strip()) for k, v in values.items() if k in LEVEL_FIELDS})
    entry, problems = validate_level_row(event, None, row)
    if entry is None:
        raise Rejected(None, problems, 1)
    return entry


def _rejected(field: str | None, value: str | None, message: str, hint: str | None = None,
              **params: object) -> Rejected:
    return Rejected(None, [Problem(None, None, field, None, value, message, hint, params)], 1)


def add_level_result(store: ResultsStore, event: Event, values: Mapping[str, str | None]) -> str:
    """Store one table's result; a different value for a filled slot needs a correction."""
    entry = _entry(event, values)
    with store.transaction():
        _check_seating(store, event, {(entry.round, entry.match)})
        old = store.current_row(LEVELS, entry.slot)
        if old is not None:
            if entry.same_result(old):
                return f"nothing changed: {slot_text(entry.slot)} already has {_stored_text(old)}"
            raise _rejected("home_level", entry.home_level, "level_result.duplicate", hint="use_correct",
                            slot=slot_text(entry.slot), stored=_stored_text(old))
        import_id = store.insert(LEVELS, [entry], source="add", import_kind="add", entered_by=entry.entered_by)
    return f"added {slot_text(entry.slot)}: {entry.value_text()} (import #{import_id})"


def correct_level_result(store: ResultsStore, event: Event, values: Mapping[str, str | None], reason: str,
                         withdraw: bool = False) -> str:
    """Supersede a table's current result with a new one (or withdraw it), with a reason."""
    if not reason.strip():
        raise _rejected("reason", reason, "results.correction_needs_reason")
    with store.transaction():
        if withdraw:
            round_number, match, table = stored_slot(values)
            assert table is not None
            slot = (round_number, match, table)
            old = store.current_row(LEVELS, slot)
            if old is None or old["withdrawn"]:
                raise _rejected(None, None, "level_result.nothing_to_withdraw", hint="use_add",
                                slot=slot_text(slot))
            entry = LevelEntry(*slot, None, None, home_team=old["home_team"], away_team=old["away_team"],
                               note=values.get("note") or None, entered_by=values.get("entered_by") or None,
                               withdrawn=True)
        else:
            entry = _entry(event, values)
            _check_seating(store, event, {(entry.round, entry.match)})
            old = store.current_row(LEVELS, entry.slot)
            if old is None:
                raise _rejected(None, None, "level_result.nothing_to_correct", hint="use_add",
                                slot=slot_text(entry.slot))
        if entry.same_result(old):
            return f"nothing changed: {slot_text(entry.slot)} already has {_stored_text(old)}"
        import_id = store.insert(LEVELS, [entry], source="correct", import_kind="correct",
                                 entered_by=entry.entered_by, supersedes=[old["id"]], reason=reason.strip())
    was = "withdrawn" if old["withdrawn"] else level_value_text(old["home_level"], old["away_level"], old["last_game"])
    return (f"corrected {slot_text(entry.slot)}: {was} → {entry.value_text()} (import #{import_id}, reason: "
            f"{reason.strip()})")


def withdraw_level_match(store: ResultsStore, values: Mapping[str, str | None], reason: str
                         ) -> list[tuple[int, str, int]]:
    """Withdraw every current table result of one match (``round`` and ``match`` of ``values``,
    read as :func:`stored_slot` reads them), with a reason; the slots withdrawn."""
    if not reason.strip():
        raise _rejected("reason", reason, "results.correction_needs_reason")
    round_number, match, _table = stored_slot(values, table=False)
    entered_by = values.get("entered_by") or None
    with store.transaction():
        rows = store.match_rows(LEVELS, round_number, match)
        if not rows:
            raise _rejected(None, None, "level_result.nothing_to_withdraw_in_match", round=round_number,
                            match=match)
        entries = [LevelEntry(r["round"], r["match"], r["tbl"], None, None, home_team=r["home_team"],
                              away_team=r["away_team"], entered_by=entered_by, withdrawn=True) for r in rows]
        store.insert(LEVELS, entries, source="correct", import_kind="correct", entered_by=entered_by,
                     supersedes=[r["id"] for r in rows], reason=reason.strip())
    return [e.slot for e in entries]
