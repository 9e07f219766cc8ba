"""Dealing an event on disk: the key and commitment, the board sets, and verifying a set file.

The library behind ``dealer commit``, ``dealer deal`` and ``dealer verify``. Nothing here prints a
hand or the key. Paths come from :class:`~dealer.store.folder.EventFolder`; the documents from
:mod:`dealer.formats.boardset`.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dealer.commitment import ALGORITHM, commitment_of_digest, key_id, new_key
from dealer.errors import FileProblem, Phrase, UserError
from dealer.event import Event
from dealer.files import (
    OWNER_ONLY,
    OWNER_ONLY_FOLDER,
    flush_to_disk,
    json_bytes,
    make_folder,
    os_problem,
    parse_json,
    read_bytes,
    read_json,
    read_key,
    sha256_hex,
    write_atomic,
    write_key,
    write_new_files,
)
from dealer.formats.boardset import (
    BOARDSET_SCHEMA,
    BoardSetError,
    PlanOf,
    VerifyReport,
    against_announced,
    dealt_as_written,
    set_files,
    verify_boardset,
    written_set,
)
from dealer.formats.dealfiles import COMMITMENT_SCHEMA, MANIFEST_SCHEMA
from dealer.store.folder import COMMITMENT_FILE, MANIFEST_FILE, SET_FILE_LIMIT, EventFolder, read_commitment

#: A commitment as a person may paste it: 64 hex digits, either case.
_TYPED_HEX64 = re.compile(r"[0-9a-fA-F]{64}")


@dataclass
class DealReport:
    folder: Path
    commitment: str
    key_file: Path
    key_created: bool
    files: list[Path] = field(default_factory=list)
    kept: list[Path] = field(default_factory=list)  # set files of an unfinished deal, found identical
    warnings: list[Phrase] = field(default_factory=list)
    folder_created: bool = False  # the event's folder was made by this command (its commit)


def _other_events_with_key(root: Path, this_event: str, this_key_id: str) -> list[str]:
    found = []
    for manifest in sorted(root.glob(f"*/{MANIFEST_FILE}")):
        try:
            data = read_json(manifest, Phrase("files.what_manifest"))
        except FileProblem:
            continue
        if isinstance(data, Mapping) and data.get("key_id") == this_key_id and data.get("event") != this_event:
            found.append(str(data.get("event")))
    return found


def _key(folder: EventFolder, key_file: str | Path | None) -> tuple[bytes, Path, bool]:
    if key_file is not None:
        return read_key(key_file), Path(key_file), False
    path = folder.key_path
    if path.exists():
        return read_key(path), path, False
    make_folder(folder.path, OWNER_ONLY_FOLDER)
    key = new_key()
    try:
        write_key(path, key)
    except FileProblem:
        if not path.exists():
            raise
        return read_key(path), path, False  # another command made it meanwhile: that is the key
    return key, path, True


def refuse_level_race(event: Event) -> None:
    """A level race (``result = "levels"``) plays no fixed boards: nothing to commit or deal."""
    if event.levels:
        raise UserError("dealing.level_race_not_dealt", field="event", event_id=event.id)


def commit_event(event: Event, folder: EventFolder, key_file: str | Path | None = None) -> DealReport:
    """Create (or reuse) the key and write the publishable ``commitment.json``.

    Publishing it before the public value is known and before play binds the director to the
    key and plan: nothing can be re-dealt afterwards without the commitment changing.
    """
    return _commit(event, folder, key_file, PlanOf(event.plan(ALGORITHM)))


def _commit(event: Event, folder: EventFolder, key_file: str | Path | None, plan: PlanOf) -> DealReport:
    refuse_level_race(event)
    folder.check_kind(event)  # not into the folder of a level race of the same id
    folder_created = not folder.path.is_dir()
    make_folder(folder.path, OWNER_ONLY_FOLDER)
    key, path, created = _key(folder, key_file)
    committed = commitment_of_digest(key, plan.sha256)
    document = {
        "schema": COMMITMENT_SCHEMA,
        "commitment": committed,
        "plan_sha256": plan.sha256,
        "plan": plan.plan,
    }
    target = folder.commitment_path
    report = DealReport(folder.path, committed, path, created, folder_created=folder_created)
    if not target.exists():
        try:
            write_atomic(target, commitment_bytes(document))
            report.files.append(target)
            return report
        except FileExistsError:
            pass  # another command published it meanwhile: it must be this one
    existing = folder.read_committed()
    if existing is None or existing.commitment != committed:
        raise FileProblem(
            "dealing.other_commitment_published", target=target
        )
    return report


def commitment_bytes(document: Mapping[str, Any]) -> bytes:
    """``json_bytes(document)`` of a commitment (docs/dealing.md §8.1), its plan's boards written
    from a template: json's indenting encoder is pure Python, and for a large event it cost more
    than dealing every board (the tests check that the bytes are the same)."""
    plan = document["plan"]
    boards = plan["boards"]
    marker = "\0boards\0"  # json writes NUL escaped, so the encoded marker cannot occur otherwise
    text = json_bytes({**document, "plan": {**plan, "boards": marker}}).decode("utf-8")
    words = {value: json.dumps(value, ensure_ascii=False) for value in {value for row in boards for value in row[2:]}}
    rows = ",\n".join(f"   [\n    {set_number:d},\n    {number:d},\n    {words[declarer]},\n    {words[level]}\n   ]"
                      for set_number, number, declarer, level in boards)
    listed = f"[\n{rows}\n  ]" if boards else "[]"
    return text.replace(json.dumps(marker), listed, 1).encode("utf-8")


def check_public_value(event: Event, public_value: str | None) -> None:
    if event.public_value_source and public_value is None:
        raise UserError("dealing.public_value_needed",
                          field="public_value", public_value_source=event.public_value_source)
    if event.public_value_source and public_value is not None and not public_value.strip():
        raise UserError("dealing.public_value_empty", field="public_value",
                        public_value_source=event.public_value_source)
    if public_value is not None and not event.public_value_source:
        raise UserError(
            "dealing.public_value_unexpected", field="public_value")


def deal_event(
    event: Event,
    folder: EventFolder,
    key_file: str | Path | None = None,
    public_value: str | None = None,
) -> DealReport:
    """Deal every board set of the event into its folder; never replaces a set.

    A deal that stopped midway (set files, no manifest) is finished: dealing is deterministic, so
    each set file left over must be byte for byte the one this key and public value deal (else it
    is refused; :func:`discard_incomplete` removes them). The manifest is written last.
    """
    refuse_level_race(event)
    check_public_value(event, public_value)
    if folder.deal_state() == "complete":
        raise FileProblem(
            "dealing.already_dealt", folder_path=folder.path, event_id=event.id, manifest_file=MANIFEST_FILE)
    plan = PlanOf(event.plan(ALGORITHM))
    report = _commit(event, folder, key_file, plan)
    key = read_key(report.key_file)
    this_key_id = key_id(key)
    others = _other_events_with_key(folder.boards_root, event.id, this_key_id)
    if others:
        report.warnings.append(Phrase.of("dealing.key_used_before", events=", ".join(others)))
    hashes: dict[str, str] = {}
    written: dict[str, bytes] = {}

    def dealt() -> Iterator[tuple[str, bytes]]:
        for set_number, data in set_files(key, plan, public_value):
            name = folder.set_path(set_number).name
            hashes[name] = sha256_hex(data)
            written[name] = data
            yield name, data

    # Each set file appears whole or not at all; they reach the disk together, below, before the
    # manifest says the deal is complete (one flush, not one per file: dealing a large event is
    # then limited by hashing, not by waiting for the disk). One left by an unfinished deal (or
    # by another `deal` of the same event running at once) must be byte for byte the same.
    kept = set(write_new_files(folder.path, dealt(), OWNER_ONLY))
    for name in written:
        target = folder.path / name
        if name in kept:
            _same_as_written(target, written[name])
            report.kept.append(target)
        else:
            report.files.append(target)
    flush_to_disk(folder.path, [folder.set_path(n) for n in range(1, event.sets + 1)])
    manifest = {
        "schema": MANIFEST_SCHEMA,
        "event": event.id,
        "algorithm": ALGORITHM,
        "commitment": report.commitment,
        "key_id": this_key_id,
        "files": hashes,
    }
    if _write_or_same(folder.manifest_path, json_bytes(manifest), None):
        report.files.append(folder.manifest_path)
    return report


def _write_or_same(target: Path, data: bytes, mode: int | None, durable: bool = True) -> bool:
    """Write a file of the deal; one already there (an unfinished deal, or another ``deal`` of
    the same event running at once) must be byte for byte the same. Whether it was written."""
    try:
        write_atomic(target, data, mode=mode, durable=durable)
        return True
    except FileExistsError:
        pass
    _same_as_written(target, data)
    return False


def _same_as_written(target: Path, data: bytes) -> None:
    """Refuse a file of the deal found already there unless it is byte for byte ``data``."""
    try:
        same = target.read_bytes() == data
    except OSError as error:
        raise os_problem(error, target, Phrase("files.do_read_file")) from None
    if not same:
        raise FileProblem(
            "dealing.unfinished_other_deal",
            hint="discard_incomplete", target=target)


def discard_incomplete(folder: EventFolder) -> list[Path]:
    """Remove the set files of a deal that did not finish (no manifest: nothing can have been
    printed or scored from them). A finished deal is never touched."""
    if folder.deal_state() != "incomplete":
        raise FileProblem("dealing.nothing_to_discard", folder_path=folder.path, deal_state=folder.deal_state())
    removed = []
    for path in folder.set_files():
        try:
            os.unlink(path)
        except OSError as error:
            raise os_problem(error, path, Phrase("files.do_remove_set")) from None
        removed.append(path)
    return removed


def read_published(value: str) -> str:
    """The published commitment from ``value``: 64 hex digits, or a ``commitment.json`` file."""
    text = value.strip()
    if _TYPED_HEX64.fullmatch(text):
        return text.lower()
    data = read_json(value, Phrase("files.what_published_commitment"))
    found = data.get("commitment") if isinstance(data, Mapping) else None
    if not isinstance(found, str) or not _TYPED_HEX64.fullmatch(found):
        raise FileProblem("dealing.not_a_commitment_file",
                          field="published", value=value)
    return found.lower()


def _plan_for(path: Path, published: str | None, plans: dict[Path, PlanOf]) -> PlanOf:
    """The committed plan that a schema-3 set file names by its hash: from the published
    ``commitment.json`` when ``--commitment`` names that file, else from the one beside the set
    file (the folder ``dealer deal`` writes). ``plans``: those already read, by file."""
    given = Path(published) if published is not None and not _TYPED_HEX64.fullmatch(published.strip()) else None
    source = given or path.parent / COMMITMENT_FILE
    if source not in plans:
        if given is None and not source.exists():
            raise FileProblem(
                "dealing.plan_needed",
                field="published", path=path, boardset_schema=BOARDSET_SCHEMA, commitment_file=COMMITMENT_FILE)
        plans[source] = read_commitment(source).plan_of
    return plans[source]


def verify_files(paths: Sequence[str | Path], key_file: str | Path, public_value: str | None = None,
                 published: str | None = None) -> list[VerifyReport]:
    """:func:`~dealer.formats.boardset.verify_boardset` of set files on disk, one report per file (the
    key, the published commitment and the plan are read once). Files as ``dealer deal`` wrote
    them are recognised by their bytes, all at once (:func:`~dealer.formats.boardset.dealt_as_written`);
    any other is read and checked field by field."""
    key = read_key(key_file)
    expected = read_published(published) if published is not None else None
    plans: dict[Path, PlanOf] = {}
    raws = [read_bytes(path, Phrase("files.what_board_set"), SET_FILE_LIMIT) for path in paths]
    reports: list[VerifyReport | None] = [None] * len(paths)
    by_plan: dict[int, tuple[PlanOf, list[int]]] = {}
    for index, (path, raw) in enumerate(zip(paths, raws, strict=True)):
        if written_set(raw) is not None:
            plan = _plan_for(Path(path), published, plans)
            by_plan.setdefault(id(plan), (plan, []))[1].append(index)
    for plan, indexes in by_plan.values():
        for index, report in zip(indexes, dealt_as_written([raws[i] for i in indexes], key, plan), strict=True):
            reports[index] = report and against_announced(report, public_value, expected)
    for index, (path, raw) in enumerate(zip(paths, raws, strict=True)):
        if reports[index] is not None:
            continue
        data = parse_json(raw, path, Phrase("files.what_board_set"))
        named: PlanOf | None = None
        if isinstance(data, Mapping) and data.get("schema") == BOARDSET_SCHEMA:
            named = _plan_for(Path(path), published, plans)
        try:
            reports[index] = verify_boardset(data, key, public_value, expected, named)
        except BoardSetError as error:
            raise FileProblem("dealing.unreadable_set_file", path=path, error=error) from None
    return [report for report in reports if report is not None]


def verify_file(path: str | Path, key_file: str | Path, public_value: str | None = None,
                published: str | None = None) -> VerifyReport:
    """:func:`verify_files` of one set file."""
    (report,) = verify_files([path], key_file, public_value, published)
    return report
