"""One event for the length of one command (later one request): :class:`EventSession`.

A session holds what every use case of an event needs and would otherwise derive again: the
event as its file declares it and as it is played (the stored pairings applied), its folder,
its results database (read-only or for writing), the deal checked once, the stored forfeits and
deductions, the releases. Use cases take the session; faces open it, call them and close it.

The rule that an unreleased set's hands never reach public output lives here:
:meth:`EventSession.public_board_set` refuses a set that is not released.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dealer.adjustments import Adjustments
from dealer.errors import FileProblem, UserError
from dealer.event import Event
from dealer.files import OWNER_ONLY_FOLDER, load_event, make_folder
from dealer.store.db import ResultsStore
from dealer.store.folder import DEFAULT_BOARDS_ROOT, GIVEN, RESULTS_FILE, CheckedDeal, EventFolder
from dealer.store.rows import Action, Release

if TYPE_CHECKING:
    from dealer.app.standings import ReportData
    from dealer.formats.boardset import BoardSet
    from dealer.lineups import Lineups
    from dealer.scoring import ScoredEvent
    from dealer.store.chain import AuditMark


def _existing_store(event: Event, folder: EventFolder, check_identity: bool) -> ResultsStore | None:
    """The results database read-only if there is one, else ``None`` (none created). A level race
    without its folder yet has no results, as long as the boards folder itself is there or was
    found by the rule of :meth:`EventFolder.for_file` (a mistyped ``--boards-dir`` is still
    refused)."""
    if event.levels and not folder.path.exists() and (folder.boards_root.is_dir() or folder.found != GIVEN):
        return None
    if event.levels and not folder.path.is_dir():
        # Not folder.require()'s "was not committed or dealt": a level race is never dealt.
        raise FileProblem("entry.no_level_race_folder", field="boards_root", folder=folder.boards_root,
                          event=event.id)
    folder.require()
    folder.check_kind(event, database=False)
    return ResultsStore.open_existing(folder.results_path, event.id, check_identity=check_identity,
                                      result=event.result)


def _require_boards_root(event: Event, folder: EventFolder) -> None:
    """A level race's write with its boards folder given (``--boards-dir``): the boards folder
    must be there (a mistyped one is refused, never created); the event's own folder is made by
    its first write."""
    if not folder.path.is_dir() and not folder.boards_root.is_dir():
        raise FileProblem("entry.no_level_race_folder", field="boards_root", folder=folder.boards_root,
                          event=event.id)


class NotReleased(UserError):
    """A set's hands were asked for public output before the director released them."""


class EventSession:
    """The event ``declared`` (as its file says) and ``event`` (as played), its ``folder`` and
    ``store`` (``None``: no results database yet, in a read-only session), for one command.

    Open it with :meth:`open`; use it as a context manager (the store is closed at the end).
    """

    def __init__(self, declared: Event, event: Event, folder: EventFolder, store: ResultsStore | None, *,
                 write: bool, deal: CheckedDeal | None, deal_checked: bool) -> None:
        self.declared = declared
        self.event = event
        self.folder = folder
        self.store = store
        self.write = write
        self._deal = deal
        self._deal_checked = deal_checked
        self._sets: dict[int, BoardSet] = {}
        self._reports: dict[bool, ReportData] = {}
        #: What use cases worked out from the stored results and the director's actions, by name
        #: (the round in play: every request of a table's page asks), forgotten with the reports.
        self.derived: dict[str, Any] = {}
        self._chained_writes_seen = 0
        #: The event's folder when this session created it (a level race's first write), for the
        #: face to say so; ``None`` when it was there.
        self.created: Path | None = None

    @classmethod
    def open(cls, event: Event | str | Path, boards_root: str | Path | EventFolder | None = None, *,
             write: bool = False, check_deal: bool = True, check_identity: bool = True,
             results: bool = True, as_played: bool = True) -> EventSession:
        """The session of ``event`` (an :class:`Event`, or its file), its folder under
        ``boards_root`` (or that folder itself, an :class:`EventFolder`).

        ``write``: the results database for writing, created owner-only when new (a level race,
        which deals nothing, gets its folder made by its first write: :attr:`created`); refused
        when the folder holds another
        kind of event (a new database is made by the first write, :meth:`writable_store`).
        Read-only: the database if there is one, none created; a level race
        without its folder yet simply has no results. ``check_deal``: the deal is checked as the
        session opens (scoring uses the event's declarers: they must be the dealt ones; every
        set file is hashed, once, and what was read is kept for :meth:`board_set`).
        ``check_identity=False`` only for the audit, which reports a foreign database itself.
        ``results=False``: the event file alone (a label test sheet needs no folder).
        ``as_played=False``: the event as its file declares it, the stored rounds not applied (the
        round loop's own use cases apply them in their transaction; the audit checks them).
        """
        from dealer.app.played import scheduled

        declared = event if isinstance(event, Event) else load_event(event)
        if isinstance(boards_root, EventFolder):
            folder = boards_root
        elif isinstance(event, Event):  # no file to find the folder from: the caller's, or boards/
            folder = EventFolder.of(declared, boards_root if boards_root is not None else DEFAULT_BOARDS_ROOT)
        else:
            folder = EventFolder.for_file(event, declared, boards_root)
        store: ResultsStore | None = None
        try:
            if write:
                folder.check_kind(declared, database=False)
                if not declared.levels:
                    folder.require()
                elif folder.found == GIVEN:
                    _require_boards_root(declared, folder)
                if folder.results_path.exists():
                    store = ResultsStore.open(folder.results_path, declared.id, result=declared.result)
            elif results:
                store = _existing_store(declared, folder, check_identity)
            played = scheduled(declared, store) if as_played else declared
            deal = folder.check_deal(declared) if check_deal and (store is not None or not declared.levels) \
                else None
            return cls(declared, played, folder, store, write=write, deal=deal, deal_checked=check_deal)
        except BaseException:
            if store is not None:
                store.close()
            raise

    # --- lifetime -------------------------------------------------------------------------

    def close(self) -> None:
        if self.store is not None:
            self.store.close()

    def __enter__(self) -> EventSession:
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        self.close()
        if kind is not None and self.created is not None:
            self._remove_created()

    def _remove_created(self) -> None:
        """Remove the folder this session created for a request that was then refused: it holds
        only the new database (anything else in it is left alone)."""
        path = self.created
        assert path is not None
        try:
            names = [p.name for p in path.iterdir()]
            if all(name.startswith(RESULTS_FILE) for name in names):
                for name in names:
                    (path / name).unlink()
                path.rmdir()
                self.created = None
        except OSError:
            pass

    def writable_store(self) -> ResultsStore:
        """The store of a session opened for writing, created owner-only when it is new (only
        now: a request refused before it writes leaves no database behind). A level race's
        folder is created here, by its first write (recorded in :attr:`created`)."""
        if not self.write:
            raise AssertionError("a use case that writes was given a read-only session")
        if self.store is None:
            if self.declared.levels and not self.folder.path.is_dir():
                make_folder(self.folder.path, OWNER_ONLY_FOLDER, field="boards_root")
                self.created = self.folder.path
            self.store = ResultsStore.open(self.folder.results_path, self.declared.id, result=self.declared.result)
        return self.store

    # --- the deal -------------------------------------------------------------------------

    @property
    def deal(self) -> CheckedDeal | None:
        """The deal as checked (``None``: the event is not dealt here, or a level race); checked
        once per session, the first time it is needed."""
        if not self._deal_checked:
            self._deal = self.folder.check_deal(self.declared)
            self._deal_checked = True
        return self._deal

    def board_set(self, set_number: int) -> BoardSet:
        """Set ``set_number`` as dealt, checked (the director's: any set). Read once per session."""
        if set_number not in self._sets:
            self._sets[set_number] = self.folder.read_set(self.event, set_number, self.deal)
        return self._sets[set_number]

    def _dealt(self) -> CheckedDeal:
        deal = self.deal
        if deal is None:
            raise FileProblem("folder.not_dealt", hint="deal", path=self.folder.path, event_id=self.event.id)
        return deal

    def public_set_file(self, set_number: int) -> bytes:
        """The bytes of set file ``set_number`` for public output (refused unless released),
        checked against the manifest; read once."""
        self._require_released(set_number)
        return self.folder.set_bytes(set_number, self._dealt())

    def _require_released(self, set_number: int) -> None:
        if set_number not in self.released_sets():
            raise NotReleased("session.not_released", field="set", set=set_number)

    def public_board_set(self, set_number: int) -> BoardSet:
        """Set ``set_number`` for public output (the players' site, later a server): refused
        unless the director released it."""
        self._require_released(set_number)
        return self.board_set(set_number)

    # --- what the store holds -------------------------------------------------------------

    @functools.cached_property
    def adjustments(self) -> Adjustments:
        """The forfeits and deductions in force."""
        from dealer.app.played import stored_adjustments

        return stored_adjustments(self.store)

    @functools.cached_property
    def end(self) -> Action | None:
        """The director's declaration that the event is over (``dealer round end``), if any."""
        from dealer.app.played import declared_end

        return declared_end(self.store)

    @functools.cached_property
    def lineups(self) -> Lineups:
        """The line-ups in force (:mod:`dealer.app.lineups`)."""
        from dealer.app.lineups import stored_lineups

        return stored_lineups(self.store)

    @functools.cached_property
    def releases(self) -> list[Release]:
        return self.store.releases() if self.store is not None else []

    def released_sets(self) -> dict[int, Release]:
        """Set → its release (kind ``set``)."""
        return {r.set_number: r for r in self.releases if r.kind == "set" and r.set_number is not None}

    def forget(self) -> None:
        """Forget what was read from the store (the reports, the adjustments, line-ups, releases
        and a declared end): a session that outlives one request (``dealer serve``) calls it after
        a write."""
        self._reports.clear()
        self.derived.clear()
        for name in ("adjustments", "lineups", "releases", "end"):
            self.__dict__.pop(name, None)

    def forget_results(self) -> None:
        """After a write of live entry's (a phone's): forget what the stored results gave (the
        reports, :attr:`derived`) if it stored any; what the director's actions gave is still
        today's."""
        written = 0 if self.store is None else self.store.chained_writes
        if written != self._chained_writes_seen:
            self._chained_writes_seen = written
            self._reports.clear()
            self.derived.clear()

    def check_attribution(self) -> None:
        """Refuse results that the event file, as edited, would credit to other teams or boards."""
        from dealer.app.played import stored_attribution_problems
        from dealer.attribution import AttributionError

        if self.store is not None:
            found = stored_attribution_problems(self.event, self.store)
            if found:
                raise AttributionError(found)

    def scored(self) -> ScoredEvent:
        """Every match scored from the current results and the adjustments."""
        from dealer.app.played import score_stored

        return score_stored(self.event, self.store, self.adjustments)

    def report(self, *, publishing: bool = False, audited: AuditMark | None = None) -> ReportData:
        """The standings, places and groups of the event as played (:func:`dealer.app.standings.build_report`);
        ``audited``: publishing, the mark of the last audit (the site's last build)."""
        from dealer.app.standings import build_report

        if publishing not in self._reports:
            self._reports[publishing] = build_report(self.event, self.store, self.folder, publishing=publishing,
                                                     audited=audited)
        return self._reports[publishing]


def event_as_played(event: Event, where: str | Path | EventFolder | None = None) -> Event:
    """The event with its stored rounds applied (nothing created, the deal not checked)."""
    with EventSession.open(event, where, check_deal=False) as session:
        return session.event
