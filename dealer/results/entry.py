"""The scorer's day-to-day work: single entries, corrections, withdrawals, missing travellers.

Entries are validated exactly like file rows (:mod:`.validate`); problems name fields, never an
interface's words for them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from dealer.errors import FileProblem, Phrase, Problem, Rejected, UserError
from dealer.event import Event, Match
from dealer.numbers import NotAWholeNumber, read_whole_number, whole_number_or_none
from dealer.qr import PayloadError, ScoreSheetId, TravellerId, parse_payload
from dealer.results.importer import check_seating
from dealer.results.validate import entry_row, slot_text, stored_text, validate_row
from dealer.scoring import (
    Adjustments,
    AttributionError,
    Misattributed,
    ResultColumns,
    ScoredEvent,
    attribution_problems,
    score_event,
)
from dealer.store.db import ResultsStore
from dealer.store.files import OWNER_ONLY_FOLDER, make_folder
from dealer.store.folder import EventFolder
from dealer.store.rows import Entry
from dealer.store.schema import BOARDS, LEVELS


def open_results(event: Event, folder: EventFolder) -> ResultsStore:
    """The event's results database, for writing (created owner-only when new). A level race
    deals nothing: its folder is made by its first result or pairing. Refused when the folder
    holds another kind of event (:meth:`EventFolder.check_kind`; the database's kind is checked,
    and remembered, as it is opened)."""
    folder.check_kind(event, database=False)
    if event.levels:
        make_folder(folder.path, OWNER_ONLY_FOLDER, field="boards_root")
    folder.require()
    folder.check_deal(event)  # scoring uses the event's declarers: they must be the dealt ones
    return ResultsStore.open(folder.results_path, event.id, result=event.result)


def open_existing_results(event: Event, folder: EventFolder, *, check_deal: bool = True,
                          check_identity: bool = True) -> ResultsStore | None:
    """For read-only commands: the results database read-only if there is one, else ``None``
    (none created). A level race without its folder yet has no results, as long as the boards
    folder itself is there (a mistyped ``--boards-dir`` is still refused). ``check_deal=False``
    only for a caller whose command checks the deal itself; ``check_identity=False`` only for
    the audit (:meth:`ResultsStore.open_existing`)."""
    if event.levels and not folder.path.exists() and folder.boards_root.is_dir():
        return None
    if event.levels and not folder.path.is_dir():
        # Not folder.require()'s "was not committed or dealt": a level race is never dealt.
        raise FileProblem("entry.no_level_race_folder", field="boards_root", folder=folder.boards_root,
                          event=event.id)
    folder.require()
    folder.check_kind(event, database=False)
    if check_deal:
        folder.check_deal(event)
    return ResultsStore.open_existing(folder.results_path, event.id, check_identity=check_identity,
                                      result=event.result)


def score_stored(event: Event, store: ResultsStore | None, adjustments: Adjustments | None = None) -> ScoredEvent:
    """Every match of ``event`` scored from the current results in ``store`` (``None``: none):
    board results, or a level race's table results (:mod:`dealer.levels`)."""
    if event.levels:
        from dealer.levels import LevelColumns, score_levels

        return score_levels(event, LevelColumns.from_rows(store.scoring_rows(LEVELS) if store else []), adjustments)
    return score_event(event, ResultColumns.from_rows(store.scoring_rows(BOARDS) if store else []), adjustments)


def stored_attribution_problems(event: Event, store: ResultsStore) -> list[Misattributed]:
    """Matches whose stored results (boards or levels) the event file, as edited, would credit to
    other teams or boards."""
    if event.levels:
        from dealer.results.levels import level_attribution_problems

        return level_attribution_problems(event, store)
    return attribution_problems(event, store.seatings(BOARDS))


def _rejected(field: str | None, value: str | None, message: str, hint: str | None = None,
              **params: object) -> Rejected:
    return Rejected(None, [Problem(None, None, field, None, value, message, hint, params)], 1)


def apply_qr(event: Event, values: dict[str, str | None], payload: str) -> None:
    """Fill round/match/board or round/match/table from a traveller or score-sheet QR payload."""
    try:
        parsed = parse_payload(payload)
    except PayloadError as error:
        # the message quotes the payload
        raise Rejected(None, [Problem(None, None, "qr", None, None, error.key, params=error.params)], 1) from None
    if not isinstance(parsed, TravellerId | ScoreSheetId):
        raise _rejected("qr", payload, "entry.wallet_label_qr")
    if parsed.event != event.id:
        raise _rejected("qr", payload, "entry.other_event", event=parsed.event, event_id=event.id)
    found: dict[str, str] = {"round": str(parsed.round), "match": parsed.match}
    if isinstance(parsed, TravellerId):
        found["board"] = str(parsed.board)
    else:
        found["table"] = parsed.table
    problems = [
        Problem(None, None, key, None, values[key], "entry.disagrees_with_qr", params={"value": value})
        for key, value in found.items()
        if values.get(key) not in (None, "") and str(values[key]).strip() != value
    ]
    if problems:
        raise Rejected(None, problems, 1)
    values.update(found)


def _entry(event: Event, values: Mapping[str, str | None], check_plausible: bool = True) -> Entry:
    entry, problems = validate_row(event, None, entry_row(values), check_plausible)
    if entry is None:
        raise Rejected(None, problems, 1)
    return entry


def add_result(
    store: ResultsStore, event: Event, values: Mapping[str, str | None], check_plausible: bool = True
) -> str:
    """Store one new result; a different value for a filled slot needs a correction."""
    entry = _entry(event, values, check_plausible)
    with store.transaction():
        check_seating(store, event, {(entry.round, entry.match)})
        old = store.current_row(BOARDS, entry.slot)
        if old is not None:
            if entry.same_result(old):
                return f"nothing changed: {slot_text(entry.slot)} already has {stored_text(old)}"
            raise _rejected("defenders_points", str(entry.defenders_points),
                            "level_result.duplicate",
                            hint="use_correct", slot=slot_text(entry.slot), stored=stored_text(old))
        import_id = store.insert(BOARDS, [entry], source="add", import_kind="add", entered_by=entry.entered_by)
    return f"added {slot_text(entry.slot)}: {entry.defenders_points} points (import #{import_id})"


def _stored_slot(values: Mapping[str, str | None]) -> tuple[int, str, str, int]:
    """The slot an entry names, read without the event: a withdrawal reaches results of matches
    the event file no longer has."""
    problems: list[Problem] = []
    numbers: dict[str, int] = {}
    for key in ("round", "board"):
        try:
            what = Phrase("terms.the_round_number") if key == "round" else Phrase("terms.the_board_number")
            numbers[key] = read_whole_number(values.get(key), what, low=1)
        except NotAWholeNumber as refused:
            problems.append(Problem(None, None, key, None, (values.get(key) or "").strip() or None, refused.key,
                                    params=refused.params))
    match = (values.get("match") or "").strip()
    if not match:
        problems.append(Problem(None, None, "match", None, None, "entry.match_missing"))
    table = (values.get("table") or "").strip().upper()
    if table not in ("A", "B"):
        problems.append(Problem(None, None, "table", None, table or None, "result.table_not_a_or_b"))
    if problems:
        raise Rejected(None, problems, 1)
    return numbers["round"], match, table, numbers["board"]


def correct_result(
    store: ResultsStore,
    event: Event,
    values: Mapping[str, str | None],
    reason: str,
    withdraw: bool = False,
    check_plausible: bool = True,
    expect_current: str | None = None,
) -> str:
    """Supersede the current result of a slot with a new value (or withdraw it), with a reason.

    ``expect_current`` (points, or ``withdrawn``) is the value the scorer believes is stored: if
    another correction changed it meanwhile, this one is refused instead of silently winning.
    """
    if not reason.strip():
        raise _rejected("reason", reason, "results.correction_needs_reason")
    with store.transaction():
        if withdraw:
            slot = _stored_slot(values)
            old = store.current_row(BOARDS, slot)
            if old is None:
                raise _rejected(None, None, "level_result.nothing_to_withdraw", hint="use_add",
                                slot=slot_text(slot))
            entry = Entry(*slot, None, ns_team=old["ns_team"], ew_team=old["ew_team"],
                          played_set=old["played_set"], note=(values.get("note") or None),
                          entered_by=(values.get("entered_by") or None), withdrawn=True)
        else:
            entry = _entry(event, values, check_plausible)
            check_seating(store, event, {(entry.round, entry.match)})
            old = store.current_row(BOARDS, entry.slot)
            if old is None:
                raise _rejected(None, None, "level_result.nothing_to_correct",
                                hint="use_add", slot=slot_text(entry.slot))
        if expect_current is not None:
            stored = "withdrawn" if old["withdrawn"] else str(old["defenders_points"])
            expected = whole_number_or_none(expect_current)
            wanted = str(expected) if expected is not None else expect_current.strip().lower()
            if wanted != stored:
                raise _rejected("expect_current", expect_current,
                                "entry.changed_meanwhile", slot=slot_text(entry.slot), stored=stored_text(old))
        if entry.same_result(old):
            return f"nothing changed: {slot_text(entry.slot)} already has {stored_text(old)}"
        import_id = store.insert(BOARDS, [entry], source="correct", import_kind="correct",
                                 entered_by=entry.entered_by, supersedes=[old["id"]], reason=reason.strip())
    new = "withdrawn" if withdraw else f"{entry.defenders_points} points"
    was = "withdrawn" if old["withdrawn"] else f"{old['defenders_points']} points"
    return f"corrected {slot_text(entry.slot)}: {was} → {new} (import #{import_id}, reason: {reason.strip()})"


def withdraw_match(store: ResultsStore, values: Mapping[str, str | None], reason: str
                   ) -> list[tuple[int, str, str, int]]:
    """Withdraw every current result of one match (``round`` and ``match`` of ``values``: e.g. a
    match the event file no longer has, or entered under the wrong seating), with a reason; the
    slots withdrawn."""
    if not reason.strip():
        raise _rejected("reason", reason, "results.correction_needs_reason")
    problems: list[Problem] = []
    round_number = 0
    try:
        round_number = read_whole_number(values.get("round"), Phrase("terms.the_round_number"), low=1)
    except NotAWholeNumber as refused:
        problems.append(Problem(None, None, "round", None, (values.get("round") or "").strip() or None,
                                refused.key, params=refused.params))
    match = (values.get("match") or "").strip()
    if not match:
        problems.append(Problem(None, None, "match", None, None, "result.match_missing"))
    if problems:
        raise Rejected(None, problems, 1)
    entered_by = values.get("entered_by") or None
    with store.transaction():
        rows = store.match_rows(BOARDS, round_number, match)
        if not rows:
            raise _rejected(None, None, "level_result.nothing_to_withdraw_in_match", round=round_number,
                            match=match)
        entries = [Entry(r["round"], r["match"], r["tbl"], r["board"], None, ns_team=r["ns_team"],
                         ew_team=r["ew_team"], played_set=r["played_set"], entered_by=entered_by,
                         withdrawn=True) for r in rows]
        store.insert(BOARDS, entries, source="correct", import_kind="correct", entered_by=entered_by,
                     supersedes=[r["id"] for r in rows], reason=reason.strip())
    return [e.slot for e in entries]


@dataclass(frozen=True)
class MissingReport:
    match: Match
    gaps: list[tuple[int, str]]  # (board, table); a level race: (table, "")
    match_boards: int  # a level race: the match's tables
    levels: bool = False

    def text(self) -> str:
        head = f"round {self.match.round} match {self.match.id} ({self.match.home} v {self.match.away})"
        if not self.gaps:
            return f"{head}: complete"
        if self.levels:
            return f"{head}: {len(self.gaps)} missing: table(s) {' '.join(str(t) for t, _ in self.gaps)}"
        boards = self.match_boards
        a = [b for b, t in self.gaps if t == "A"]
        b = [b for b, t in self.gaps if t == "B"]
        if len(a) == len(b) == boards:
            detail = "all boards at both tables"
        else:
            detail = "; ".join(f"table {t} boards {' '.join(map(str, bs))}" for t, bs in (("A", a), ("B", b)) if bs)
        return f"{head}: {len(self.gaps)} missing: {detail}"


def missing(
    store: ResultsStore | None, event: Event, round_number: int | None = None
) -> list[MissingReport]:
    """Per match, the missing (board, table) results (a level race: the tables); ``store=None``:
    no database yet, all missing."""
    if round_number is not None and event.round(round_number) is None:
        raise UserError("entry.round_not_in_event", field="round", round=round_number)
    if store is not None:
        found = stored_attribution_problems(event, store)
        if found:
            raise AttributionError(found)
    from dealer.results.rounds import stored_adjustments

    scored = score_stored(event, store, stored_adjustments(store))
    units = event.tables if event.levels else event.boards_per_set
    return [MissingReport(m, [] if scored.score(m.round, m.id).forfeited_by else gaps, units, event.levels)
            for m, gaps in scored.missing(round_number)]


def missing_results(
    event: Event, folder: EventFolder, round_number: int | None = None
) -> list[MissingReport]:
    """:func:`missing` for ``dealer results missing``: reads the database only if it exists."""
    store = open_existing_results(event, folder)
    try:
        return missing(store, event, round_number)
    finally:
        if store is not None:
            store.close()
