"""Results, one path for both kinds (:mod:`dealer.app.kinds`): import result files, add one result,
correct or withdraw it, withdraw a whole match, what is missing, the history.

Entries are validated exactly like file rows (:mod:`dealer.app.validate`); problems name fields,
never an interface's words for them. Every use case takes an :class:`~dealer.app.EventSession`
(for writing, where it stores) and returns what it did as data (:class:`Added`,
:class:`Unchanged`, :class:`Corrected`, :class:`WithdrawnMatch`, :class:`ImportOutcome`), each
with the phrase a face words in its language. A file goes in whole or not at all: it is read and
validated first, then checked against the database and inserted inside one ``BEGIN IMMEDIATE``
transaction.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from dealer.app.kinds import ResultKind, kind_of
from dealer.app.validate import entry_row, not_paired_yet
from dealer.errors import FileProblem, Phrase, Problem, Rejected, UserError, quote
from dealer.event import Event, Match
from dealer.files import read_bytes, write_atomic
from dealer.formats.columns import TRAVELLERS, Layout
from dealer.numbers import whole_number_or_none
from dealer.scoring import (
    AttributionError,
)
from dealer.store.db import DatabaseRefused, ResultsStore
from dealer.store.rows import StoredRow
from dealer.store.schema import BOARDS, LEVELS

if TYPE_CHECKING:
    from dealer.app.session import EventSession
    from dealer.formats.travellers import ParsedFile

Slot = TypeVar("Slot", tuple[int, str, str, int], tuple[int, str, int])


# --- what a use case did ---------------------------------------------------------------------


@dataclass(frozen=True)
class Added:
    slot: tuple[Any, ...]
    slot_text: Phrase
    value: Phrase
    import_id: int

    def phrase(self) -> Phrase:
        return Phrase.of("outcome.added", slot=self.slot_text, value=self.value, import_id=self.import_id)


@dataclass(frozen=True)
class Unchanged:
    """Nothing stored: the slot already holds this result."""

    slot: tuple[Any, ...]
    slot_text: Phrase
    stored: Phrase

    def phrase(self) -> Phrase:
        return Phrase.of("outcome.unchanged", slot=self.slot_text, stored=self.stored)


@dataclass(frozen=True)
class Corrected:
    slot: tuple[Any, ...]
    slot_text: Phrase
    was: Phrase
    now: Phrase
    import_id: int
    reason: str

    def phrase(self) -> Phrase:
        return Phrase.of("outcome.corrected", slot=self.slot_text, was=self.was, now=self.now,
                         import_id=self.import_id, reason=self.reason)


@dataclass(frozen=True)
class WithdrawnMatch:
    round: int
    match: str
    slots: list[tuple[Any, ...]]
    reason: str

    def phrase(self) -> Phrase:
        return Phrase.of("outcome.withdrew_match", count=len(self.slots), round=self.round, match=self.match,
                         reason=self.reason)


@dataclass(frozen=True)
class ImportOutcome:
    """One file imported: rows added, rows already recorded (skipped), rows a correction has
    replaced since (the correction kept)."""

    source: str
    added: int
    skipped: int  # rows equal to the current value of their slot
    import_id: int | None
    corrected: int = 0  # rows equal to a value a correction has since superseded (kept the correction)
    sample: bool = False  # recorded as sample data
    sheet: str | None = None  # the sheet read, for a workbook

    def phrase(self) -> Phrase:
        where: object = self.source if self.sheet is None else \
            Phrase.of("outcome.source_sheet", source=self.source, sheet=quote(self.sheet))
        kept = Phrase.of("outcome.kept_corrections", corrected=self.corrected) if self.corrected else ""
        if not self.added:
            if self.corrected:
                recorded = Phrase.of("outcome.already_recorded_part", skipped=self.skipped) if self.skipped else ""
                return Phrase.of("outcome.import_unchanged_corrected", where=where, recorded=recorded, kept=kept)
            return Phrase.of("outcome.import_unchanged", where=where, skipped=self.skipped)
        return Phrase.of("outcome.imported", where=where, added=self.added,
                         skipped=Phrase.of("outcome.skipped_part", skipped=self.skipped) if self.skipped else "",
                         kept=Phrase.of("outcome.kept_part", kept=kept) if kept else "",
                         import_id=self.import_id, marked=Phrase("outcome.sample_part") if self.sample else "")

    def summary(self) -> str:
        """In English (the demo's lines)."""
        return str(self.phrase())




def _rejected(field: str | None, value: str | None, message: str, hint: str | None = None,
              **params: object) -> Rejected:
    return Rejected(None, [Problem(None, None, field, None, value, message, hint, params)], 1)


def apply_qr(event: Event, values: dict[str, str | None], payload: str) -> None:
    """Fill round/match/board or round/match/table from a traveller QR payload or a table score
    sheet's QR: its entry URL (``SJE1``, a boards or level race sheet; the tag is not checked here:
    the QR only saves typing) or an older sheet's ``SJD1:S`` payload."""
    from dealer.formats.entry import EntryUrlError, parse_entry_path
    from dealer.formats.qr import PayloadError, ScoreSheetId, TravellerId, parse_payload  # a slip scanned

    text = payload.strip()
    try:
        if "://" in text or text.startswith("/t/"):
            sheet, _tag = parse_entry_path(text)
            parsed: object = ScoreSheetId(sheet.event, sheet.round, sheet.match, sheet.table)
        else:
            parsed = parse_payload(text)
    except (PayloadError, EntryUrlError) as error:
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


def check_seating(store: ResultsStore, event: Event, matches: set[tuple[int, str]]) -> None:
    """Refuse to add results to a match whose stored results were entered under another seating
    or set than the event file now gives (they would be mixed up), or that a forfeit is
    recorded for."""
    found = kind_of(event).misattributed(event, store, matches)
    if found:
        raise AttributionError(found)
    refuse_forfeited(store, matches)


def refuse_forfeited(store: ResultsStore, matches: set[tuple[int, str]]) -> None:
    """A match a forfeit is recorded for takes no result (it would be stored and never counted):
    the forfeit is withdrawn first."""
    for action in store.actions(("forfeit", "late")):
        data = action.data
        if not action.undone and data.get("forfeit") and (action.round, str(data.get("match"))) in matches:
            raise UserError("import.match_forfeited",
                            field="match", hint="withdraw_forfeit", round=action.round, match=data.get('match'),
                            team=data.get('team'), reason=action.reason)


# --- files ------------------------------------------------------------------------------


def read_file(path: str | Path, sheet: str | None = None, layout: Layout = TRAVELLERS) -> ParsedFile:
    """A result file read (:func:`dealer.formats.travellers.parse_file`): its kind from its suffix
    before anything is read, then its bytes (a regular file, at most ``FILE_LIMIT``)."""
    from dealer.formats.travellers import FILE_LIMIT, file_kind, parse_file  # file reading only here

    source = str(path)
    if file_kind(source) != "xlsx" and sheet is not None:  # an unknown kind is refused here too
        raise FileProblem("import.csv_has_no_sheets", field="sheet", source=source)
    data = read_bytes(Path(path), Phrase("files.what_traveller_file"), FILE_LIMIT)
    return parse_file(data, source, sheet, layout)


def import_file(session: EventSession, path: str | Path, entered_by: str | None = None,
                sheet: str | None = None) -> ImportOutcome:
    """Import one result file (travellers, or a level race's table results) in one transaction;
    raises :class:`Rejected` on any problem (nothing stored). Re-importing is a no-op; a row
    equal to a value a correction has superseded keeps the correction; a different value for a
    stored slot is a duplicate. ``sheet`` names the sheet of an XLSX workbook."""
    event = session.event
    kind = kind_of(event)
    parsed = read_file(path, sheet, kind.layout)
    source = parsed.source
    entries = _validate_rows(event, kind, parsed)
    if not entries:
        raise FileProblem("import.no_result_rows", source=source)
    slots = [e.slot for e in entries]
    rounds = sorted({e.round for e in entries})
    store = session.writable_store()
    with store.transaction():
        check_seating(store, event, {(e.round, e.match) for e in entries})
        stored = store.current(kind.table, rounds)
        fresh, corrected = against_stored(source, slots, entries.__getitem__, stored,
                                          store.superseded(kind.table, rounds), kind.slot_text,
                                          functools.partial(kind.stored_text, zone=event.timezone),
                                          len(parsed.numbers))
        skipped = len(entries) - len(fresh) - corrected
        if not fresh:
            return ImportOutcome(source, 0, skipped, None, corrected, sheet=parsed.sheet)
        import_id = store.insert(kind.table, [entries[i] for i in fresh], source=source, import_kind="file",
                                 sha256=parsed.sha256, entered_by=entered_by, skipped=skipped + corrected,
                                 sample=parsed.sample)
    return ImportOutcome(source, len(fresh), skipped, import_id, corrected, parsed.sample, parsed.sheet)


class _Stored(Protocol):
    """A validated row to store (:class:`Entry`, :class:`LevelEntry`)."""

    @property
    def source_row(self) -> int | None: ...
    def same_result(self, row: sqlite3.Row) -> bool: ...
    def value_text(self) -> str: ...


def against_stored(
    source: str, slots: Sequence[Slot], entry: Callable[[int], _Stored], stored: Mapping[Slot, sqlite3.Row],
    superseded: Mapping[Slot, Sequence[sqlite3.Row]], slot_text: Callable[[Slot], object],
    stored_text: Callable[[sqlite3.Row], object], rows: int,
) -> tuple[list[int], int]:
    """A file's rows (their slots; ``entry(i)`` the row ``i``) against what the database holds:
    the rows to store (indexes) and how many repeat a value a correction replaced (the correction
    is kept). A row equal to the stored value is skipped: re-importing a file is a no-op. Raises
    :class:`Rejected` naming every row whose slot holds another value (``rows``: the file's)."""
    if not stored:  # nothing of these rounds yet (a round's first file): every row is new
        return list(range(len(slots))), 0
    fresh: list[int] = []
    corrected = 0
    problems: list[Problem] = []
    for i, slot in enumerate(slots):
        old = stored.get(slot)
        if old is None:
            fresh.append(i)
            continue
        row = entry(i)
        if row.same_result(old):
            continue
        if any(row.same_result(replaced) for replaced in superseded.get(slot, ())):
            corrected += 1
        else:
            problems.append(Problem(
                source, row.source_row, None, None, None,
                "import.duplicate_of_stored",
                hint="use_correct", params={"slot_text": slot_text(slot), "stored": stored_text(old),
                                            "value": row.value_text()}))
    if problems:
        raise Rejected(source, problems, rows)
    return fresh, corrected


def _validate_rows(event: Event, kind: ResultKind, parsed: ParsedFile) -> list[Any]:
    """Every row checked on its own; raises :class:`Rejected` listing every problem, each naming
    its row (a slot given twice: both rows)."""
    source = parsed.source
    entries: list[Any] = []
    problems: list[Problem] = []
    first_row: dict[tuple[Any, ...], int | None] = {}
    for raw in parsed.rows:
        entry, row_problems = kind.validate(event, source, raw, True)
        problems.extend(row_problems)
        if entry is None:
            continue
        if entry.slot in first_row:
            problems.append(Problem(source, raw.number, None, None, None, "import.duplicate_row",
                                    params={"slot": kind.slot_text(entry.slot), "row": first_row[entry.slot]}))
            continue
        first_row[entry.slot] = raw.number
        entries.append(entry)
    if problems:
        raise Rejected(source, problems, len(parsed.numbers))
    return entries


def import_files(session: EventSession, paths: Sequence[str | Path], entered_by: str | None = None,
                 sheet: str | None = None) -> list[ImportOutcome | UserError]:
    """Import each file on its own (one refused file does not stop the others); per file its
    outcome or the error that refused it. A refusal of the database itself (locked, disk full,
    read-only) stops there: the files after it are not tried. ``sheet`` names the sheet of every
    XLSX workbook."""
    outcomes: list[ImportOutcome | UserError] = []
    for path in paths:
        try:
            outcomes.append(import_file(session, path, entered_by, sheet))
        except UserError as error:
            outcomes.append(error)
            if isinstance(error, DatabaseRefused):
                break
    return outcomes


# --- one result at a time -------------------------------------------------------------------


def validated_entry(event: Event, kind: ResultKind, values: Mapping[str, str | None], check_plausible: bool = True
                    ) -> Any:
    """One entry's values checked as a file row is: the entry to store, or :class:`Rejected`."""
    entry, problems = kind.validate(event, None, entry_row(values, kind.layout), check_plausible)
    if entry is None:
        raise Rejected(None, problems, 1)
    return entry


def add_result(session: EventSession, values: Mapping[str, str | None], check_plausible: bool = True
               ) -> Added | Unchanged:
    """Store one new result (a board at a table, or a level race's table); a different value for
    a filled slot needs a correction."""
    event = session.event
    kind = kind_of(event)
    entry = validated_entry(event, kind, values, check_plausible)
    store = session.writable_store()
    with store.transaction():
        check_seating(store, event, {(entry.round, entry.match)})
        old = store.current_row(kind.table, entry.slot)
        if old is not None:
            if entry.same_result(old):
                return Unchanged(entry.slot, kind.slot_text(entry.slot), kind.stored_text(old, event.timezone))
            raise _rejected(kind.value_field, kind.entry_value(entry), "level_result.duplicate", hint="use_correct",
                            slot=kind.slot_text(entry.slot), stored=kind.stored_text(old, event.timezone))
        import_id = store.insert(kind.table, [entry], source="add", import_kind="add", entered_by=entry.entered_by)
    return Added(entry.slot, kind.slot_text(entry.slot), entry.value_text(), import_id)


def correct_result(
    session: EventSession,
    values: Mapping[str, str | None],
    reason: str,
    withdraw: bool = False,
    check_plausible: bool = True,
    expect_current: str | None = None,
) -> Corrected | Unchanged:
    """Supersede the current result of a slot with a new value (or withdraw it), with a reason.

    ``expect_current`` (points, or ``withdrawn``; board results) is the value the scorer
    believes is stored: if another correction changed it meanwhile, this one is refused instead
    of silently winning.
    """
    event = session.event
    kind = kind_of(event)
    if not reason.strip():
        raise _rejected("reason", reason, "results.correction_needs_reason")
    if expect_current is not None and not kind.expect_current:
        raise UserError("cli.expect_current_for_boards")
    store = session.writable_store()
    with store.transaction():
        if withdraw:
            slot = kind.stored_slot(values)
            old = store.current_row(kind.table, slot)
            if old is None:
                raise _rejected(None, None, "level_result.nothing_to_withdraw", hint="use_add",
                                slot=kind.slot_text(slot))
            entry = kind.withdrawal(old, values.get("note") or None, values.get("entered_by") or None)
        else:
            # A correction changes only the fields it gives: the others are the stored result's.
            try:
                previous = store.current_row(kind.table, kind.stored_slot(values))
            except Rejected:  # a slot that is not one: the validation below names every problem
                previous = None
            entry = validated_entry(event, kind, kind.keep_stored(values, previous), check_plausible)
            check_seating(store, event, {(entry.round, entry.match)})
            old = store.current_row(kind.table, entry.slot)
            if old is None:
                raise _rejected(None, None, "level_result.nothing_to_correct", hint="use_add",
                                slot=kind.slot_text(entry.slot))
        if expect_current is not None:
            stored = "withdrawn" if old["withdrawn"] else str(old[kind.value_field])
            expected = whole_number_or_none(expect_current)
            wanted = str(expected) if expected is not None else expect_current.strip().lower()
            if wanted != stored:
                raise _rejected("expect_current", expect_current, "entry.changed_meanwhile",
                                slot=kind.slot_text(entry.slot), stored=kind.stored_text(old, event.timezone))
        if entry.same_result(old):
            return Unchanged(entry.slot, kind.slot_text(entry.slot), kind.stored_text(old, event.timezone))
        import_id = store.insert(kind.table, [entry], source="correct", import_kind="correct",
                                 entered_by=entry.entered_by, supersedes=[old["id"]], reason=reason.strip())
    was = kind.stored_value(old)
    return Corrected(entry.slot, kind.slot_text(entry.slot), was, entry.value_text(), import_id, reason.strip())


def correct(session: EventSession, values: Mapping[str, str | None], reason: str, *, withdraw: bool = False,
            check_plausible: bool = True, expect_current: str | None = None
            ) -> Corrected | Unchanged | WithdrawnMatch:
    """``results correct``: a new value for one slot, or its withdrawal; with only the round and
    the match, every current result of that match withdrawn (:func:`withdraw_match`)."""
    given = kind_of(session.event).changes(values)
    if session.event.levels:
        if withdraw == given:
            raise UserError("cli.levels_or_withdraw")
        if expect_current is not None:
            raise UserError("cli.expect_current_for_boards")
    elif withdraw == given:
        raise UserError("cli.points_or_withdraw")
    whole_match = withdraw and values.get("table") is None and values.get("board") is None
    if whole_match and expect_current is not None:
        raise UserError("cli.expect_current_needs_slot")
    if whole_match:
        return withdraw_match(session, values, reason)
    return correct_result(session, values, reason, withdraw, check_plausible, expect_current)


def withdraw_match(session: EventSession, values: Mapping[str, str | None], reason: str) -> WithdrawnMatch:
    """Withdraw every current result of one match (``round`` and ``match`` of ``values``: e.g. a
    match the event file no longer has, or entered under the wrong seating), with a reason."""
    kind = kind_of(session.event)
    if not reason.strip():
        raise _rejected("reason", reason, "results.correction_needs_reason")
    round_number, match = kind.stored_match(values)
    entered_by = values.get("entered_by") or None
    store = session.writable_store()
    with store.transaction():
        rows = store.match_rows(kind.table, round_number, match)
        if not rows:
            raise _rejected(None, None, "level_result.nothing_to_withdraw_in_match", round=round_number,
                            match=match)
        entries = [kind.withdrawal(r, None, entered_by) for r in rows]
        store.insert(kind.table, entries, source="correct", import_kind="correct", entered_by=entered_by,
                     supersedes=[r["id"] for r in rows], reason=reason.strip())
    return WithdrawnMatch(round_number, match, [e.slot for e in entries], reason.strip())


def history(session: EventSession, round_number: int | None = None, match: str | None = None,
            table: str | int | None = None, board: int | None = None) -> list[StoredRow]:
    """Every stored row of the slots asked for, superseded ones included (oldest first)."""
    if session.store is None:
        return []
    kind = kind_of(session.event)
    if kind.table is LEVELS:
        return session.store.history(LEVELS, round_number, match, table)
    return session.store.history(BOARDS, round_number, match, table, board)


# --- a round's result template ------------------------------------------------------------------


@dataclass(frozen=True)
class TemplateWritten:
    """A round's result template written: where, and how many slots it lists."""

    path: Path
    round: int
    slots: int
    left_out: tuple[str, ...] = ()  # matches left out: a forfeit is recorded for them

    def phrase(self) -> Phrase:
        forfeited = Phrase.of("outcome.template_forfeited", matches=", ".join(self.left_out)) if self.left_out else ""
        return Phrase.of("outcome.template_written", path=self.path, round=self.round, slots=self.slots,
                         forfeited=forfeited)


def template_path(session: EventSession, round_number: int, fmt: str) -> Path:
    """Where a round's template goes by default: ``output/<event>/results-template-round-NN.<fmt>``."""
    return session.folder.output_path / f"results-template-round-{round_number:02d}.{fmt}"


def write_template(session: EventSession, round_number: int, fmt: str = "csv", path: Path | None = None,
                   lang: str = "zh") -> TemplateWritten:
    """Write round ``round_number``'s result file to fill in: every slot of every match (a level
    race: every table), pre-filled with what the event fixes (round, match, table, board, the
    teams as they sit, the scheduled declarer and level), in the columns and the header language
    (``lang``) the importer reads; :func:`import_file` takes it back as filled. A match a forfeit
    is recorded for takes no result and is left out. Never replaces a file."""
    event = session.event
    kind = kind_of(event)
    rnd = event.round(round_number)
    if rnd is None and not_paired_yet(event, round_number):
        raise UserError("round.not_paired_yet", field="round", number=round_number)
    if rnd is None:
        raise UserError("entry.round_not_in_event", field="round", round=round_number)
    target = path if path is not None else template_path(session, round_number, fmt)
    if target.exists():
        raise FileProblem("results.template_exists", field="output", path=target)
    forfeited = tuple(m.id for m in rnd.matches if session.adjustments.forfeiters(rnd.number, m.id))
    slots = [slot for m in rnd.matches if m.id not in forfeited for slot in kind.slots(event, m)]
    from dealer.formats.travellers import header_spelling, template_bytes

    header = [header_spelling(kind.layout, key, lang) for key in kind.template]
    rows = [[slot.get(key, "") for key in kind.template] for slot in slots]
    try:
        write_atomic(target, template_bytes(header, rows, fmt, sheet=f"round {round_number}"), field="output")
    except FileExistsError:  # appeared meanwhile
        raise FileProblem("results.template_exists", field="output", path=target) from None
    return TemplateWritten(target, round_number, len(slots), forfeited)


# --- what is missing, and the scores ----------------------------------------------------------


@dataclass(frozen=True)
class MissingReport:
    match: Match
    gaps: list[tuple[int, str]]  # (board, table); a level race: (table, "")
    match_boards: int  # a level race: the match's tables
    levels: bool = False

    def phrase(self) -> Phrase:
        match = self.match
        head = Phrase.of("said_missing.head", round=match.round, match=match.id, home=match.home, away=match.away)
        if not self.gaps:
            return Phrase.of("said_missing.complete", head=head)
        if self.levels:
            return Phrase.of("said_missing.tables", head=head, count=len(self.gaps),
                             tables=" ".join(str(t) for t, _ in self.gaps))
        a = [b for b, t in self.gaps if t == "A"]
        b = [b for b, t in self.gaps if t == "B"]
        detail: Phrase | list[Phrase]
        if len(a) == len(b) == self.match_boards:
            detail = Phrase("said_missing.all_boards")
        else:
            detail = [Phrase.of("said_missing.table_boards", table=t, boards=" ".join(map(str, bs)))
                      for t, bs in (("A", a), ("B", b)) if bs]
        return Phrase.of("said_missing.boards", head=head, count=len(self.gaps), detail=detail)

    def text(self) -> str:
        """In English (the demo's log)."""
        return str(self.phrase())


def missing(session: EventSession, round_number: int | None = None) -> list[MissingReport]:
    """Per match, the missing (board, table) results (a level race: the tables); no database
    yet: all missing."""
    event = session.event
    if round_number is not None and not_paired_yet(event, round_number):
        raise UserError("round.not_paired_yet", field="round", number=round_number)
    if round_number is not None and event.round(round_number) is None:
        raise UserError("entry.round_not_in_event", field="round", round=round_number)
    session.check_attribution()
    scored = session.scored()
    units = event.tables if event.levels else event.boards_per_set
    return [MissingReport(m, [] if scored.score(m.round, m.id).forfeited_by else gaps, units, event.levels)
            for m, gaps in scored.missing(round_number)]
