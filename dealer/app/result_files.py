"""Result files: import travellers or a level race's table results (each file whole or not at all:
read and validated first, then checked against the database and inserted inside one ``BEGIN
IMMEDIATE`` transaction), and write a round's template to fill in. One result at a time is
:mod:`dealer.app.results`; rows are validated as its entries are (:mod:`dealer.app.kinds`).
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from dealer.app.kinds import ResultKind, kind_of
from dealer.app.results import check_seating
from dealer.app.validate import not_paired_yet
from dealer.errors import FileProblem, Phrase, Problem, Rejected, UserError, quote
from dealer.event import Event
from dealer.files import read_bytes, write_atomic
from dealer.formats.columns import TRAVELLERS, Layout
from dealer.formats.travellers import FILE_LIMIT, ParsedFile, file_kind, header_spelling, parse_file, template_bytes
from dealer.store.db import DatabaseRefused

if TYPE_CHECKING:
    from dealer.app.session import EventSession

Slot = TypeVar("Slot", tuple[int, str, str, int], tuple[int, str, int])


# --- what a use case did ---------------------------------------------------------------------



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


def read_file(path: str | Path, sheet: str | None = None, layout: Layout = TRAVELLERS) -> ParsedFile:
    """A result file read (:func:`dealer.formats.travellers.parse_file`): its kind from its suffix
    before anything is read, then its bytes (a regular file, at most ``FILE_LIMIT``)."""
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
    header = [header_spelling(kind.layout, key, lang) for key in kind.template]
    rows = [[slot.get(key, "") for key in kind.template] for slot in slots]
    try:
        write_atomic(target, template_bytes(header, rows, fmt, sheet=f"round {round_number}"), field="output")
    except FileExistsError:  # appeared meanwhile
        raise FileProblem("results.template_exists", field="output", path=target) from None
    return TemplateWritten(target, round_number, len(slots), forfeited)
