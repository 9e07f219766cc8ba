"""The one owner of an event's files: ``boards/<event>/`` and ``output/<event>/``.

``boards/<event>/`` holds what must be kept: the key (``deal.key``, secret until play ends), the
published commitment (``commitment.json``), the board sets (``set-NN.json``, secret until play
ends), the manifest of their hashes (``manifest.json``, written last: a deal without it did not
finish) and the results database (``results.sqlite``). ``output/<event>/`` holds what can be
rebuilt: the print pack, ``reports/`` and ``site/``.

Nothing read from disk is trusted without a check: the commitment's plan against its hash and
the event file, the manifest against the commitment, every set file against the manifest's hash
and then whole (:func:`dealer.formats.boardset.parse_boardset`), a key against the commitment.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dealer.commitment import ALGORITHM, commitment, plan_digest
from dealer.errors import FileProblem, Phrase, UserError
from dealer.event import Event
from dealer.files import parse_json, read_bytes, read_json, read_key, sha256_hex
from dealer.formats.dealfiles import COMMITMENT_SCHEMA, HEX64, MANIFEST_SCHEMA, set_file_name

if TYPE_CHECKING:
    from dealer.formats.boardset import BoardSet, PlanOf

DEFAULT_BOARDS_ROOT = Path("boards")
DEFAULT_OUTPUT_ROOT = Path("output")

KEY_FILE = "deal.key"
COMMITMENT_FILE = "commitment.json"
MANIFEST_FILE = "manifest.json"
RESULTS_FILE = "results.sqlite"
#: Live entry's key (docs/serve.md): never the dealing key, which is revealed when play ends.
ENTRY_KEY_FILE = "entry.key"
SET_FILE = re.compile(r"set-(\d{2,3})\.json")
SET_FILE_LIMIT = 8 * 1024 * 1024



@dataclass(frozen=True)
class Committed:
    """The published commitment, read back and found consistent with its plan."""

    commitment: str
    plan_sha256: str
    plan: Mapping[str, Any]

    @functools.cached_property
    def plan_of(self) -> PlanOf:
        """The plan as set files of schema 3 are read against (hashed once)."""
        from dealer.formats.boardset import PlanOf  # a set is read: checking the folder does not need it

        return PlanOf(self.plan, self.plan_sha256)


def read_commitment(path: str | Path, event_id: str | None = None) -> Committed:
    """A ``commitment.json``, refused unless its plan is the one it names (and, given
    ``event_id``, that event's)."""
    data = read_json(path, Phrase("files.what_commitment"))
    if not isinstance(data, Mapping) or data.get("schema") != COMMITMENT_SCHEMA:
        raise FileProblem("folder.not_a_commitment", path=path, schema=COMMITMENT_SCHEMA)
    plan, value = data.get("plan"), data.get("commitment")
    if not isinstance(plan, Mapping) or not isinstance(value, str) or not HEX64.fullmatch(value):
        raise FileProblem("folder.commitment_incomplete", path=path)
    try:
        digest = plan_digest(plan)
    except (TypeError, ValueError):
        raise FileProblem("folder.plan_unreadable", path=path) from None
    if data.get("plan_sha256") != digest or (event_id is not None and plan.get("event") != event_id):
        raise FileProblem("folder.commitment_changed", path=path)
    return Committed(value, digest, plan)


@dataclass(frozen=True)
class CheckedDeal:
    """A finished deal's files as checked: the commitment, the manifest's set-file hashes and,
    when it is in the folder, the key (``None`` when kept elsewhere)."""

    committed: Committed
    hashes: Mapping[str, str]
    key: bytes | None
    #: The set files as read and found right, by name: a command reads each one once.
    read: dict[str, bytes] = field(default_factory=dict, compare=False, repr=False)


#: How the boards folder of an event file was found (:meth:`EventFolder.for_file`).
GIVEN = "given"  # --boards-dir, or a caller's own folder
EVENT_KEY = "event_key"  # [event] boards_dir, relative to the event file
OWN_FOLDER = "own_folder"  # the event file sits in its own event folder (boards/demo/event.toml)
BESIDE = "beside"  # a boards/ beside the event file, or beside its folder
FOUND_BY = (GIVEN, EVENT_KEY, OWN_FOLDER, BESIDE)


@dataclass(frozen=True)
class EventFolder:
    """Where the files of event ``event_id`` live, and the checked way to read them. ``found``:
    how its boards folder was found (one of :data:`FOUND_BY`)."""

    event_id: str
    boards_root: Path = DEFAULT_BOARDS_ROOT
    output_root: Path = DEFAULT_OUTPUT_ROOT
    found: str = GIVEN

    @classmethod
    def of(cls, event: Event, boards_root: str | Path | None = None,
           output_root: str | Path | None = None) -> EventFolder:
        return cls(event.id, Path(boards_root) if boards_root is not None else DEFAULT_BOARDS_ROOT,
                   Path(output_root) if output_root is not None else DEFAULT_OUTPUT_ROOT)

    @classmethod
    def for_file(cls, event_file: str | Path, event: Event, boards_root: str | Path | None = None,
                 output_root: str | Path | None = None) -> EventFolder:
        """The folder of the event that ``event_file`` declares: the one rule every command uses,
        so that a command run from any directory finds the same folder and database.

        1. ``boards_root`` when given (``--boards-dir``, relative to the current directory);
        2. else ``boards_dir`` of the file's ``[event]``, relative to the event file's folder;
        3. else, when the event file sits in its own event folder (a folder named the event id,
           inside a folder named ``boards`` or holding the event's commitment or results database:
           the demo's ``boards/demo/event.toml``), that folder's parent;
        4. else the ``boards/`` beside the event file if there is one, else the ``boards/``
           beside the event file's folder if there is one (``events/x.toml`` next to ``boards/``);
        5. else (no such folder yet) ``boards/`` beside the event file, which ``dealer commit``
           (a level race: its first pairing or result) creates, saying so.
        """
        if boards_root is not None:
            return cls.of(event, boards_root, output_root)
        place = Path(event_file).parent
        where, up = place.absolute(), Path(os.path.normpath(place / ".."))
        root, found = place / "boards", BESIDE
        if event.boards_dir is not None:
            root, found = place / event.boards_dir, EVENT_KEY
        elif where.name == event.id and (where.parent.name == "boards" or (where / COMMITMENT_FILE).exists()
                                         or (where / RESULTS_FILE).exists()):
            root, found = up, OWN_FOLDER
        elif not root.is_dir() and (up / "boards").is_dir():
            root = up / "boards"
        return cls(event.id, root, Path(output_root) if output_root is not None else DEFAULT_OUTPUT_ROOT, found)

    # --- paths ---------------------------------------------------------------------------

    @property
    def path(self) -> Path:
        return self.boards_root / self.event_id

    @property
    def key_path(self) -> Path:
        return self.path / KEY_FILE

    @property
    def commitment_path(self) -> Path:
        return self.path / COMMITMENT_FILE

    @property
    def manifest_path(self) -> Path:
        return self.path / MANIFEST_FILE

    @property
    def results_path(self) -> Path:
        return self.path / RESULTS_FILE

    def set_path(self, set_number: int) -> Path:
        return self.path / set_file_name(set_number)

    @property
    def entry_key_path(self) -> Path:
        return self.path / ENTRY_KEY_FILE

    def entry_key(self, create: bool = False) -> bytes | None:
        """The event's entry key (sheet tags, fallback codes, team codes); ``create``: made now
        (32 bytes from :mod:`secrets`, owner-only) when the folder has none, the folder too (a
        level race deals nothing, so it may have none yet). ``None``: none, and not created."""
        path = self.entry_key_path
        if path.exists() or not create:
            return read_key(path) if path.exists() else None
        import secrets

        from dealer.files import OWNER_ONLY_FOLDER, write_key

        self.path.mkdir(mode=OWNER_ONLY_FOLDER, parents=True, exist_ok=True)
        try:
            write_key(path, secrets.token_bytes(32))
        except FileProblem:
            pass  # another process made it first: read that one
        return read_key(path)

    @property
    def output_path(self) -> Path:
        """The print pack (``output/<event>/``)."""
        return self.output_root / self.event_id

    @property
    def reports_path(self) -> Path:
        return self.output_path / "reports"

    # --- state ---------------------------------------------------------------------------

    def require(self) -> None:
        """Refuse a folder that is not there: a mistyped boards folder must not look empty."""
        if not self.path.is_dir():
            raise FileProblem(
                "folder.no_event_folder", field="boards_root", path=self.path, event_id=self.event_id,
                boards_root=self.boards_root)

    def check_kind(self, event: Event, *, database: bool = True) -> None:
        """Refuse an event file of another kind of event than the one this folder holds: a level
        race over a folder holding a deal (a commitment, a manifest, set files or a key), or an
        event whose results database holds the other kind of results (``database``: checked
        here too; :func:`dealer.app.results.open_results` checks it as it opens the database).
        Every command that uses an event's folder goes through this check."""
        if not self.path.is_dir():
            return
        if event.levels:
            dealt = [name for name in (COMMITMENT_FILE, MANIFEST_FILE, KEY_FILE) if (self.path / name).exists()]
            sets = self.set_files()
            if sets:
                dealt.append(f"{len(sets)} set file(s)")
            if dealt:
                raise FileProblem(
                    "folder.dealt_boards_event", path=self.path, dealt=', '.join(dealt), event_id=self.event_id)
        if database and self.results_path.exists():
            from dealer.store.db import ResultsStore

            store = ResultsStore.open_existing(self.results_path, self.event_id, result=event.result)
            if store is not None:
                store.close()

    def set_files(self) -> list[Path]:
        if not self.path.is_dir():
            return []
        return sorted(p for p in self.path.iterdir() if SET_FILE.fullmatch(p.name))

    def deal_state(self) -> str:
        """``none`` (no commitment), ``committed``, ``incomplete`` (set files, no manifest) or
        ``complete``."""
        if self.manifest_path.exists():
            return "complete"
        if self.set_files():
            return "incomplete"
        return "committed" if self.commitment_path.exists() else "none"

    # --- checked reads -------------------------------------------------------------------

    def read_committed(self) -> Committed | None:
        """The published commitment (``None`` when the event was never committed here)."""
        path = self.commitment_path
        if not path.exists():
            return None
        return read_commitment(path, self.event_id)

    def check_plan(self, event: Event) -> Committed | None:
        """Refuse an event file whose plan differs from the one that was committed and dealt.

        Labels, travellers, score sheets and scoring take declarers and levels from the event
        file; if it was edited after the deal (say a new declarer rotation), they would disagree
        with the dealt boards and credit level points to the wrong side. Teams and rounds are not
        part of the plan and may change (later rounds of a Swiss, a substitute team).
        """
        committed = self.read_committed()
        if committed is None:
            return None
        plan = event.plan(ALGORITHM)
        if committed.plan_sha256 == plan_digest(plan):
            return committed
        old = committed.plan
        changed = sorted(k for k in set(plan) | set(old) if plan.get(k) != old.get(k)) or ["plan"]
        raise FileProblem(
            "folder.plan_changed", path=self.commitment_path, changed=', '.join(changed)
        )

    def read_manifest(self, committed: Committed) -> dict[str, str]:
        """The manifest's file hashes, checked against the commitment."""
        path = self.manifest_path
        state = self.deal_state()
        if state == "incomplete":
            raise FileProblem("folder.deal_unfinished", hint="finish_deal", path=self.path, event_id=self.event_id)
        if state != "complete":
            raise FileProblem("folder.not_dealt", hint="deal", path=self.path, event_id=self.event_id)
        data = read_json(path, Phrase("files.what_manifest"))
        files = data.get("files") if isinstance(data, Mapping) else None
        if (not isinstance(data, Mapping) or data.get("schema") != MANIFEST_SCHEMA
                or not isinstance(files, Mapping)
                or not all(isinstance(v, str) and HEX64.fullmatch(v) for v in files.values())):
            raise FileProblem("folder.manifest_damaged", path=path, schema=MANIFEST_SCHEMA)
        if data.get("event") != self.event_id or data.get("commitment") != committed.commitment:
            raise FileProblem("folder.manifest_not_of_deal", path=path)
        return {str(name): str(digest) for name, digest in files.items()}

    def _deal(self, event: Event) -> CheckedDeal | None:
        """The commitment (against the event file), the manifest (against the commitment) and the
        folder's key (against the commitment); ``None`` for an event never committed here."""
        committed = self.check_plan(event)
        if committed is None and self.deal_state() == "none":
            return None
        if committed is None:
            raise FileProblem("folder.set_files_without_commitment", path=self.path, commitment_file=COMMITMENT_FILE)
        return CheckedDeal(committed, self.read_manifest(committed), self._folder_key(committed))

    def check_deal(self, event: Event) -> CheckedDeal | None:
        """Refuse a deal whose files changed after it was made: :meth:`_deal`, and every set file
        against the manifest's hash. Cheap (one hash per set file). ``None``: an event never
        committed here; otherwise the deal is complete, and :meth:`read_set` takes what was read."""
        deal = self._deal(event)
        if deal is None:
            return None
        expected = {set_file_name(n) for n in range(1, event.sets + 1)}
        found = {p.name for p in self.set_files()}
        for name in sorted((found | set(deal.hashes)) - expected):
            raise FileProblem("folder.foreign_set_file", path=self.path / name, sets=event.sets)
        for name in sorted(expected):
            if name not in deal.hashes:
                raise FileProblem("folder.not_in_manifest", path=self.path / name)
            self._set_bytes(name, deal)
        return deal

    def _set_bytes(self, name: str, deal: CheckedDeal) -> bytes:
        if name in deal.read:
            return deal.read[name]
        path = self.path / name
        data = read_bytes(path, Phrase("files.what_board_set"), SET_FILE_LIMIT)
        if sha256_hex(data) != deal.hashes[name]:
            raise FileProblem("folder.set_changed", path=path)
        deal.read[name] = data
        return data

    def set_bytes(self, set_number: int, deal: CheckedDeal) -> bytes:
        """Set file ``set_number`` as dealt (its bytes, checked against the manifest)."""
        return self._set_bytes(self.set_path(set_number).name, deal)

    def read_set(self, event: Event, set_number: int, deal: CheckedDeal | None = None) -> BoardSet:
        """Board set ``set_number``, refused unless it is byte for byte the dealt file (the
        manifest's hash, the manifest the commitment's) and whole and consistent, and, with the
        key in the folder, every board the one the key deals. ``deal``: what
        :meth:`check_deal` already read (else it is read here)."""
        from dealer.formats.boardset import BoardSetError, dealt_codes, layout_of, parse_boardset

        if not 1 <= set_number <= event.sets:
            raise UserError("site.no_such_set", field="set", set=set_number, sets=event.sets)
        deal = deal or self._deal(event)
        if deal is None:
            raise FileProblem("folder.not_dealt_no_commitment", hint="deal", path=self.path, event_id=self.event_id,
                              commitment_file=COMMITMENT_FILE)
        path = self.set_path(set_number)
        if path.name not in deal.hashes:
            raise FileProblem("folder.set_not_in_manifest", path=path, set_number=set_number)
        data = self._set_bytes(path.name, deal)
        try:
            parsed, problems = parse_boardset(parse_json(data, path, Phrase("files.what_board_set")),
                                              deal.committed.plan_of)
        except BoardSetError as error:
            raise FileProblem("files.at_path", path=path, error=error) from None
        if parsed is None:
            more = Phrase.of("folder.more_problems", more=len(problems) - 1) if len(problems) > 1 else ""
            raise FileProblem("folder.damaged_set", path=path, problem=problems[0], more=more)
        committed = deal.committed
        if parsed.commitment != committed.commitment or parsed.plan_sha256 != committed.plan_sha256 \
                or parsed.set_number != set_number:
            raise FileProblem("folder.set_not_of_deal", path=path, set_number=set_number)
        if deal.key is not None:
            # With the key at hand, the cards themselves are checked: a set file rewritten
            # together with its manifest is still caught.
            codes = dealt_codes(deal.key, event.id, set_number, [(b.number, b.declarer) for b in parsed.boards],
                                layout_of(event), parsed.public_value)
            for board, code in zip(parsed.boards, codes, strict=True):
                if code != board.deal.code:
                    raise FileProblem("folder.board_not_dealt_by_key", path=path, board=board.number)
        return parsed

    def _folder_key(self, committed: Committed) -> bytes | None:
        """The key in the folder, checked against the commitment; ``None`` when it is kept
        elsewhere (then the manifest and the set files' own consistency are the checks)."""
        if not self.key_path.exists():
            return None
        key = read_key(self.key_path)
        if commitment(key, committed.plan) != committed.commitment:
            raise FileProblem("folder.key_not_committed", path=self.commitment_path, key_path=self.key_path)
        return key

    def read_key(self, event: Event, key_file: str | Path | None = None, purpose: str | None = None) -> bytes:
        """The dealing key (``key_file`` or the folder's), refused unless it is the committed one."""
        path = Path(key_file) if key_file is not None else self.key_path
        if not path.exists():
            needed = Phrase.of("folder.key_needed_for", purpose=purpose) if purpose else ""
            raise FileProblem("folder.no_key_file", field="key_file", path=path, needed=needed)
        key = read_key(path)
        self.check_kind(event)
        committed = self.check_plan(event)
        if committed is None:
            raise FileProblem("folder.nothing_to_check_key", hint="deal", path=self.path, event_id=self.event_id)
        if commitment(key, committed.plan) != committed.commitment:
            raise FileProblem("folder.wrong_key", field="key_file", path=path, event_id=self.event_id,
                              commitment_path=self.commitment_path)
        return key
