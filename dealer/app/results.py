"""Results one at a time, one path for both kinds (:mod:`dealer.app.kinds`): add one result,
correct or withdraw it, withdraw a whole match, what is missing, the history (result files:
:mod:`dealer.app.result_files`).

Entries are validated exactly like file rows (:mod:`dealer.app.validate`); problems name fields,
never an interface's words for them. Every use case takes an :class:`~dealer.app.EventSession`
(for writing, where it stores) and returns what it did as data (:class:`Added`,
:class:`Unchanged`, :class:`Corrected`, :class:`WithdrawnMatch`), each with the phrase a face
words in its language. Each change is checked against the database and stored inside one
``BEGIN IMMEDIATE`` transaction.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from dealer.app.kinds import ResultKind, kind_of
from dealer.app.validate import entry_row, not_paired_yet
from dealer.attribution import AttributionError
from dealer.errors import Phrase, Problem, Rejected, UserError
from dealer.event import Event, Match
from dealer.numbers import whole_number_or_none
from dealer.store.db import ResultsStore
from dealer.store.rows import StoredRow
from dealer.store.schema import BOARDS, LEVELS

if TYPE_CHECKING:
    from dealer.app.session import EventSession

Slot = TypeVar("Slot", tuple[int, str, str, int], tuple[int, str, int])


# --- what a use case did ---------------------------------------------------------------------


@dataclass(frozen=True)
class Added:
    """A result stored in an empty slot."""

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
    """A stored result replaced by an explicit correction with its reason."""

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
    """Every stored result of one match withdrawn, with the reason."""

    round: int
    match: str
    slots: list[tuple[Any, ...]]
    reason: str

    def phrase(self) -> Phrase:
        return Phrase.of("outcome.withdrew_match", count=len(self.slots), round=self.round, match=self.match,
                         reason=self.reason)


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


# --- what is missing, and the scores ----------------------------------------------------------


@dataclass(frozen=True)
class MissingReport:
    """The results one match still lacks: (board, table) gaps, or a level race's tables."""

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
