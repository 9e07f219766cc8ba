"""Dealing an event on disk: the key and commitment, the board sets, and verifying a set file.

The library behind ``dealer commit``, ``dealer deal`` and ``dealer verify``. Nothing here prints a
hand or the key. Paths come from :class:`~dealer.folder.EventFolder`; the documents from
:mod:`dealer.boardset`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dealer.boardset import (
    BOARDSET_SCHEMA,
    COMMITMENT_SCHEMA,
    MANIFEST_SCHEMA,
    BoardSetError,
    PlanOf,
    VerifyReport,
    boardset_bytes,
    boardset_documents,
    verify_boardset,
)
from dealer.deal import ALGORITHM, commitment, key_id, new_key, plan_digest
from dealer.errors import FileProblem, UserError
from dealer.event import Event
from dealer.files import (
    OWNER_ONLY,
    OWNER_ONLY_FOLDER,
    json_bytes,
    make_folder,
    os_problem,
    read_json,
    read_key,
    sha256_hex,
    write_atomic,
    write_key,
)
from dealer.folder import COMMITMENT_FILE, MANIFEST_FILE, SET_FILE_LIMIT, EventFolder, read_commitment

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
    warnings: list[str] = field(default_factory=list)


def _other_events_with_key(root: Path, this_event: str, this_key_id: str) -> list[str]:
    found = []
    for manifest in sorted(root.glob(f"*/{MANIFEST_FILE}")):
        try:
            data = read_json(manifest, "manifest")
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
        raise UserError(f'event {event.id} is a level race (result = "levels"): it plays no fixed boards, so '
                        "there is nothing to commit or deal; pair its rounds and enter its table results "
                        "(docs/tournaments.md, Level races)", field="event")


def commit_event(event: Event, folder: EventFolder, key_file: str | Path | None = None) -> DealReport:
    """Create (or reuse) the key and write the publishable ``commitment.json``.

    Publishing it before the public value is known and before play binds the director to the
    key and plan: nothing can be re-dealt afterwards without the commitment changing.
    """
    refuse_level_race(event)
    make_folder(folder.path, OWNER_ONLY_FOLDER)
    key, path, created = _key(folder, key_file)
    plan = event.plan(ALGORITHM)
    committed = commitment(key, plan)
    document = {
        "schema": COMMITMENT_SCHEMA,
        "commitment": committed,
        "plan_sha256": plan_digest(plan),
        "plan": plan,
    }
    target = folder.commitment_path
    report = DealReport(folder.path, committed, path, created)
    if not target.exists():
        try:
            write_atomic(target, json_bytes(document))
            report.files.append(target)
            return report
        except FileExistsError:
            pass  # another command published it meanwhile: it must be this one
    existing = folder.read_committed()
    if existing is None or existing.commitment != committed:
        raise FileProblem(
            f"{target}: a different commitment is already published for this event "
            "(another key or a changed event plan); not replacing it"
        )
    return report


def check_public_value(event: Event, public_value: str | None) -> None:
    if event.public_value_source and public_value is None:
        raise UserError(f"the event names a public value ({event.public_value_source}): give it",
                          field="public_value")
    if event.public_value_source and public_value is not None and not public_value.strip():
        raise UserError("the public value is empty: with it the boards would be known before the "
                          f"draw ({event.public_value_source}); give the drawn value", field="public_value")
    if public_value is not None and not event.public_value_source:
        raise UserError(
            "a public value was given but the event file does not name its source "
            "(event.public_value_source), so the commitment would not cover it", field="public_value")


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
            f"{folder.path}: event {event.id} is already dealt ({MANIFEST_FILE}); not overwriting "
            "any board set (move the folder away to deal again)")
    report = commit_event(event, folder, key_file)
    key = read_key(report.key_file)
    this_key_id = key_id(key)
    others = _other_events_with_key(folder.boards_root, event.id, this_key_id)
    if others:
        report.warnings.append(
            f"this key was already used for event(s) {', '.join(others)}: revealing it for "
            "one event reveals the other's boards"
        )
    hashes: dict[str, str] = {}
    for set_number, document in boardset_documents(event, key, public_value):
        target = folder.set_path(set_number)
        data = boardset_bytes(document)
        if _write_or_same(target, data, OWNER_ONLY):
            report.files.append(target)
        else:
            report.kept.append(target)
        hashes[target.name] = sha256_hex(data)
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


def _write_or_same(target: Path, data: bytes, mode: int | None) -> bool:
    """Write a file of the deal; one already there (an unfinished deal, or another ``deal`` of
    the same event running at once) must be byte for byte the same. Whether it was written."""
    try:
        write_atomic(target, data, mode=mode)
        return True
    except FileExistsError:
        pass
    try:
        same = target.read_bytes() == data
    except OSError as error:
        raise os_problem(error, target, "read the file") from None
    if not same:
        raise FileProblem(
            f"{target}: left by a deal that did not finish, and not what this key and public "
            "value deal; not overwriting it (remove the unfinished deal first)",
            hint="discard_incomplete")
    return False


def discard_incomplete(folder: EventFolder) -> list[Path]:
    """Remove the set files of a deal that did not finish (no manifest: nothing can have been
    printed or scored from them). A finished deal is never touched."""
    if folder.deal_state() != "incomplete":
        raise FileProblem(f"{folder.path}: no unfinished deal to discard (state: {folder.deal_state()})")
    removed = []
    for path in folder.set_files():
        try:
            os.unlink(path)
        except OSError as error:
            raise os_problem(error, path, "remove the board set") from None
        removed.append(path)
    return removed


def read_published(value: str) -> str:
    """The published commitment from ``value``: 64 hex digits, or a ``commitment.json`` file."""
    text = value.strip()
    if _TYPED_HEX64.fullmatch(text):
        return text.lower()
    data = read_json(value, "published commitment")
    found = data.get("commitment") if isinstance(data, Mapping) else None
    if not isinstance(found, str) or not _TYPED_HEX64.fullmatch(found):
        raise FileProblem(f"{value}: not a commitment file (no 64-hex-digit commitment in it)",
                          field="published")
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
                f"{path}: the set file names its plan by its hash only (schema {BOARDSET_SCHEMA}); give the event's "
                f"{COMMITMENT_FILE}, which holds the plan, with --commitment (or keep it beside the set file)",
                field="published")
        plans[source] = read_commitment(source).plan_of
    return plans[source]


def verify_files(paths: Sequence[str | Path], key_file: str | Path, public_value: str | None = None,
                 published: str | None = None) -> list[VerifyReport]:
    """:func:`~dealer.boardset.verify_boardset` of set files on disk, one report per file (the
    key, the published commitment and the plan are read once)."""
    key = read_key(key_file)
    expected = read_published(published) if published is not None else None
    plans: dict[Path, PlanOf] = {}
    reports = []
    for path in paths:
        data = read_json(path, "board set", SET_FILE_LIMIT)
        plan = None
        if isinstance(data, Mapping) and data.get("schema") == BOARDSET_SCHEMA:
            plan = _plan_for(Path(path), published, plans)
        try:
            reports.append(verify_boardset(data, key, public_value, expected, plan))
        except BoardSetError as error:
            raise FileProblem(f"{path}: {error}") from None
    return reports


def verify_file(path: str | Path, key_file: str | Path, public_value: str | None = None,
                published: str | None = None) -> VerifyReport:
    """:func:`verify_files` of one set file."""
    (report,) = verify_files([path], key_file, public_value, published)
    return report
