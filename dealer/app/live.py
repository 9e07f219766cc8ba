"""Live entry at the table (``dealer serve``, docs/serve.md): the use cases behind the table's page
and the director's console, over an :class:`~dealer.app.EventSession`.

A printed table score sheet opens its page by a URL holding a tag made from the event's entry key
(:mod:`dealer.formats.entry`). The side that keeps score (East's team at a board table, 第十八条;
the home team at a level race's table) enters each result; it counts only once the *other* side
confirms it with its own team code from its own phone (or, where the event says
``live_confirmation = "double-entry"``, by entering the same result on another device). A
confirmed entry is stored as a result through the one results path (:mod:`dealer.app.results`:
the same validation, the hash-chained store) in the transaction that marks it confirmed. When every
result is confirmed, both sides confirm the recap and the sheet is closed: from then on only the
director changes it, with a reason, as a correction.

Every write carries a server nonce (:func:`new_nonce`): a retry or a double tap gets the first
answer back and stores nothing again.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import hashlib
import hmac
import json
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dealer.app.kinds import kind_of
from dealer.app.results import check_seating, validated_entry
from dealer.errors import Phrase, UserError
from dealer.event import Event, Match
from dealer.formats.entry import SheetId, check_tag, same_code, sheet_code, team_code
from dealer.store.db import ResultsStore
from dealer.store.db import now as now  # the faces' clock too (they reach the store only through here)
from dealer.store.live import LiveStore, SheetRow

if TYPE_CHECKING:
    from dealer.app.session import EventSession

#: Wrong team codes on one sheet before it locks (the director unlocks it).
LOCK_AFTER = 5
#: Devices that wrote on one sheet (in one generation) before it is flagged: one per side. A
#: device is the address a phone has on the venue's network (one phone, one address: WeChat's
#: browser and the phone's own share it), or its cookie where the address is the laptop's own.
DEVICES_PER_SHEET = 2
#: Addresses that many people's browsers may share: the laptop's own (its browsers, the tests).
LOCAL_ADDRESSES = frozenset({"127.0.0.1", "::1", "::ffff:127.0.0.1"})
#: A board's defenders' points at the two tables of a match this far apart (as a share of the
#: deal's points) raise a flag for the director.
FAR_APART_SHARE = 0.4
#: A table's last contact is kept to this many seconds (a page view within it writes nothing).
CONTACT_S = 30
NONCE = b"shengji-dealer/form-nonce/v1\x00"


class LiveRefused(UserError):
    """A live request refused; ``status`` is the HTTP status the server answers with (docs/serve.md)."""

    def __init__(self, key: str, status: int, **params: object) -> None:
        super().__init__(key)
        self.params = dict(params)
        self.status = status


# --- who sits where ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Sheet:
    """A table of a match, as its page shows it: the sheet, the match, who enters and who confirms."""

    id: SheetId
    match: Match
    scorer: str  #: the team that keeps score (enters)
    confirmer: str  #: the team that confirms with its code
    slots: tuple[str, ...]  #: board numbers, or ``("levels",)`` for a level race's table

    @property
    def key(self) -> tuple[int, str, str]:
        return (self.id.round, self.id.match, self.id.table)


def sheet_of(event: Event, round_number: int, match_id: str, table: str, generation: int = 1) -> Sheet:
    """The sheet of ``table`` of a match of the event as played; :class:`LiveRefused` (404) if none."""
    rnd = event.round(round_number)
    match = rnd.match(match_id) if rnd is not None else None
    if match is None or table not in event.table_ids():
        raise LiveRefused("live.no_such_sheet", 404, round=round_number, match=match_id, table=table)
    if event.levels:
        scorer, confirmer = match.home, match.away
    else:
        seats = match.seats(table)
        scorer, confirmer = seats["EW"], seats["NS"]  # East keeps score (第十八条)
    return Sheet(SheetId(event.id, round_number, match_id, table, generation), match, scorer, confirmer,
                 slots_of(event, match))


def slots_of(event: Event, match: Match) -> tuple[str, ...]:
    """The results each table of ``match`` holds: its set's board numbers, or the level race's one."""
    return kind_of(event).sheet_slots(event, match)


def sheets_of_round(session: EventSession, round_number: int) -> list[Sheet]:
    """Every sheet of a round, each in its current generation."""
    event = session.event
    rnd = event.round(round_number)
    if rnd is None:
        return []
    return [sheet_of(event, round_number, m.id, table, generation(session.store, round_number, m.id, table))
            for m in rnd.matches for table in event.table_ids()]


def generation(store: ResultsStore | None, round_number: int, match: str, table: str) -> int:
    """The sheet's current generation (1 until reprinted, or until its round's pairing is undone)."""
    return 1 if store is None else store.live.generation((round_number, match, table))


def open_round(session: EventSession) -> int | None:
    """The round in play, the only one whose sheets take entries: the first round with a match
    not done (:func:`matches_done`), else the last round (its tables may still confirm their
    recap); ``None`` before any round is paired. Forfeited matches are done; byes and withdrawn
    teams have no match; once the event is declared over no sheet takes entries
    (:func:`closed_reason`)."""
    if "open_round" not in session.derived:
        session.derived["open_round"] = _open_round(session)
    found: int | None = session.derived["open_round"]
    return found


def _open_round(session: EventSession) -> int | None:
    event = session.event
    if not event.rounds:
        return None
    for rnd in event.rounds:
        if len(matches_done(session, rnd.number)) < len(rnd.matches):
            return rnd.number
    return event.rounds[-1].number


def matches_done(session: EventSession, round_number: int) -> set[str]:
    """The matches of a round that await no result: every result of their tables stored (not
    withdrawn), or a forfeit recorded. Counted, not read: every request of a table's page asks
    (docs/serve.md, "Load")."""
    event = session.event
    rnd = event.round(round_number)
    store = session.store
    if rnd is None or store is None:
        return set()
    stored = store.stored_by_match(kind_of(event).table, round_number)
    tables = len(event.table_ids())
    wanted: dict[int, int] = {}  # each set's boards counted once, not once a match
    done = forfeited_matches(session, round_number)
    for m in rnd.matches:
        if m.set not in wanted:
            wanted[m.set] = tables * len(slots_of(event, m))
        if stored.get(m.id, 0) >= wanted[m.set]:
            done.add(m.id)
    return done


def closed_reason(session: EventSession, sheet: Sheet) -> Phrase | None:
    """Why a sheet takes no entry although its round is in play: its match is forfeited (which
    team, the director's reason), or the event was declared over; ``None``: it takes entries.
    Read from what the session holds (forgotten after every write, the session opened again
    after another process's)."""
    end = session.end
    if end is not None:
        return Phrase.of("live.event_over", round=end.round, reason=end.reason or "")
    for forfeit in session.adjustments.forfeits:
        if forfeit.round == sheet.id.round and forfeit.match == sheet.id.match:
            return Phrase.of("live.match_forfeited", team=session.event.team(forfeit.team).name,
                             reason=forfeit.reason)
    return None


# --- the device and the nonce -------------------------------------------------------------------


@dataclass(frozen=True)
class Device:
    """Who sent a request: the device cookie's id, the address and the user agent (kept with every
    write)."""

    id: str
    address: str | None = None
    agent: str | None = None


def new_device_id() -> str:
    return secrets.token_urlsafe(12)


def _nonce_key(key: bytes) -> bytes:
    return hmac.digest(key, NONCE, "sha256")


def _nonce_mac(key: bytes, form: str, body: str) -> str:
    message = f"{form}\x00{body}".encode("utf-8", "replace")
    return base64.urlsafe_b64encode(hmac.digest(_nonce_key(key), message, "sha256")[:9]).decode()


def new_nonce(key: bytes, form: str) -> str:
    """A form's nonce: random, signed with a key made from the entry key (only the server makes
    them; a restarted server still accepts the forms it printed before) and bound to ``form``
    (:func:`sheet_form`, :func:`console_form`): it is good for that form only."""
    body = secrets.token_urlsafe(12)
    return f"{body}.{_nonce_mac(key, form, body)}"


def nonce_for(key: bytes, nonce: str, form: str) -> bool:
    """Whether ``nonce`` is one the server made for ``form``."""
    body, _, mac = nonce.partition(".")
    return bool(body) and hmac.compare_digest(_nonce_mac(key, form, body).encode(), mac.encode("ascii", "replace"))


def check_nonce(key: bytes, nonce: str, form: str) -> None:
    if not nonce_for(key, nonce, form):
        raise LiveRefused("live.bad_nonce", 400)


def sheet_form(sheet_id: SheetId, form: str) -> str:
    """The name a nonce of a table's page is bound to: the sheet (its generation included) and
    the form (``enter/3``, ``dispute/3``, ``confirm``, ``recap/scorer``)."""
    return f"sheet\x00{sheet_id.fields()}\x00{form}"


def sheet_forms(sheet: Sheet) -> list[str]:
    """Every form of a sheet's page (a ``?said=`` nonce must be one of them)."""
    return [*(f"{action}/{slot}" for slot in sheet.slots for action in ("enter", "dispute")), "confirm",
            "recap/scorer", "recap/confirmer"]


def console_form(session_token: str, form: str) -> str:
    """The name a nonce of the director's console is bound to: the director's session (its
    cookie) and the form (``unlock``, ``settle``, ``pair``, …)."""
    digest = hashlib.sha256(session_token.encode("utf-8", "replace")).hexdigest()[:32]
    return f"console\x00{digest}\x00{form}"


# --- opening a sheet ----------------------------------------------------------------------------


def authorise(session: EventSession, key: bytes, sheet_id: SheetId, tag: str) -> Sheet:
    """The sheet a URL names, if its tag is genuine, its generation current and its round open;
    :class:`LiveRefused` otherwise (403 forged, 410 replaced, saying why, 409 another round)."""
    event = session.event
    if sheet_id.event != event.id:
        raise LiveRefused("live.other_event", 404, event=sheet_id.event)
    if not check_tag(key, sheet_id, tag):
        raise LiveRefused("live.forged_tag", 403)
    current = generation(session.store, sheet_id.round, sheet_id.match, sheet_id.table)
    if sheet_id.generation != current:
        raise LiveRefused("live.sheet_replaced", 410, generation=sheet_id.generation, current=current,
                          why=_replaced_why(session, sheet_id))
    sheet = sheet_of(event, sheet_id.round, sheet_id.match, sheet_id.table, sheet_id.generation)
    opened = open_round(session)
    if opened is not None and sheet_id.round != opened:
        raise LiveRefused("live.other_round", 409, round=sheet_id.round, match=sheet_id.match,
                          table=sheet_id.table, open=opened)
    return sheet


def sheet_by_code(session: EventSession, key: bytes, typed: str) -> tuple[Sheet, str]:
    """The sheet of the open round whose fallback code was typed, and its tag; 404 if none."""
    from dealer.formats.entry import normal_code, sheet_tag

    code = normal_code(typed)
    opened = open_round(session)
    if opened is not None:
        for sheet in sheets_of_round(session, opened):
            if same_code(sheet_code(key, sheet.id), code):
                return sheet, sheet_tag(key, sheet.id)
    raise LiveRefused("live.no_such_code", 404)


def _replaced_why(session: EventSession, sheet_id: SheetId) -> Phrase | str:
    """Why the sheet's generation after ``sheet_id``'s was made (its revocation in the live log):
    a reprint with the director's reason, or its round's pairing undone."""
    store = session.store
    details = [] if store is None else store.live.revocations((sheet_id.round, sheet_id.match, sheet_id.table))
    for detail in details:
        try:
            said = json.loads(detail)
        except (TypeError, ValueError):
            said = {"reason": str(detail)}
        if not isinstance(said, dict):
            said = {"reason": str(said)}
        if said.get("generation", sheet_id.generation + 1) == sheet_id.generation + 1:
            reason = str(said.get("reason", ""))
            if said.get("why") == "undo":
                return Phrase.of("live.why_undone", round=sheet_id.round, reason=reason)
            return Phrase.of("live.why_reprint", reason=reason)
    return ""


def seen(session: EventSession, sheet: Sheet, device: Device) -> None:
    """Record that ``device`` opened the sheet (the console shows each table's last contact). A
    device seen in the last :data:`CONTACT_S` seconds is not written again (a page view is a
    read); a view never raises the devices flag, a third writer does (:func:`_wrote`)."""
    store = session.writable_store()
    last = store.live.last_seen(sheet.key, device.id)
    if last is not None and (age_seconds(last) or 0) < CONTACT_S:
        return
    with store.transaction():
        store.live.saw(sheet.key, device.id, now(), device.address, device.agent)


def writer_of(device: Device) -> str:
    """Who wrote, as the devices flag counts them: the device's address on the venue's network
    (one phone keeps it across its browsers: WeChat's and its own), else its cookie."""
    if device.address and device.address not in LOCAL_ADDRESSES:
        return f"address {device.address}"
    return f"device {device.id}"


def _wrote(rows: LiveStore, sheet: Sheet, device: Device, at: str) -> None:
    """Record ``device`` as a writer of the sheet's current generation; a writer beyond one a
    side raises the devices flag."""
    if not rows.add_writer(sheet.key, sheet.id.generation, writer_of(device), at, device.address, device.agent):
        return  # a writer known already: nothing new to count (most writes)
    count = rows.writers(sheet.key, sheet.id.generation)
    if count > DEVICES_PER_SHEET:
        rows.raise_flag(sheet.key, None, "devices", {"devices": count}, at)


# --- the state of a sheet -------------------------------------------------------------------------


@dataclass
class SlotState:
    """One result of a sheet as its page and the console show it."""

    slot: str
    state: str  #: missing, entered, confirmed, conflict
    fields: dict[str, Any] = field(default_factory=dict)
    device: str | None = None
    at: str | None = None
    disputed: dict[str, Any] | None = None  #: the other side's different values (a conflict)
    flagged: bool = False


@dataclass
class SheetState:
    sheet: Sheet
    slots: dict[str, SlotState]
    wrong_codes: int
    locked: bool
    recap_scorer: bool
    recap_confirmer: bool
    devices: int
    last_contact: str | None
    flags: list[dict[str, Any]]

    @property
    def all_confirmed(self) -> bool:
        return all(s.state == "confirmed" for s in self.slots.values())

    @property
    def closed(self) -> bool:
        return self.all_confirmed and self.recap_scorer and self.recap_confirmer

    @property
    def missing(self) -> list[str]:
        return [s.slot for s in self.slots.values() if s.state == "missing"]


def sheet_state(session: EventSession, sheet: Sheet) -> SheetState:
    store = session.store
    slots = {slot: SlotState(slot, "missing") for slot in sheet.slots}
    if store is None:
        return SheetState(sheet, slots, 0, False, False, False, 0, None, [])
    rows = store.live
    # what was entered with an earlier generation (a sheet reprinted, a round paired again) is void;
    # what was confirmed is a result, whichever sheet confirmed it
    for entry in rows.entries(sheet.key, sheet.id.generation):
        if entry.slot not in slots:
            continue
        state = slots[entry.slot]
        if entry.state == "conflict" and state.state in ("entered", "conflict"):
            state.state, state.disputed = "conflict", entry.fields
            continue
        slots[entry.slot] = SlotState(entry.slot, entry.state, entry.fields, entry.device, entry.at)
    stored = _match_results(session, sheet)
    for slot, state in slots.items():
        key = _stored_slot(session.event, sheet, slot)
        if key in stored and state.state != "confirmed":
            # stored by other means (a file, `results add`, a director's correction): it counts
            state.state = "confirmed"
            state.fields = state.fields or {"stored": True}
    row = rows.sheet(sheet.key)
    flags = rows.open_flags(sheet.id.round, sheet.key)
    for flag in flags:
        if flag["slot"] in slots:
            slots[flag["slot"]].flagged = True
    return SheetState(
        sheet, slots, wrong_codes=row.wrong_codes, locked=row.locked_at is not None,
        recap_scorer=row.recap_scorer_at is not None, recap_confirmer=row.recap_confirmer_at is not None,
        devices=rows.writers(sheet.key, sheet.id.generation), last_contact=rows.last_contact(sheet.key), flags=flags)


def sheet_stamp(session: EventSession, sheet: Sheet) -> tuple[Any, ...]:
    """What a sheet's page shows, as a few counts that change whenever it does (its entries, the
    sheet's row, its flags and writers, the match's stored results, the director's actions): the
    table page's stream says ``changed`` only when this changes. Counted, not read: every open
    table page asks after each write of the hall, at most once a second."""
    store = session.store
    if store is None:
        return ()
    return (*store.live.stamp(sheet.key),
            *store.match_stamp(kind_of(session.event).table, sheet.id.round, sheet.id.match))


def _match_results(session: EventSession, sheet: Sheet) -> dict[tuple[Any, ...], Any]:
    """The stored (current, not withdrawn) results of the sheet's match, by slot."""
    table = kind_of(session.event).table
    assert session.store is not None
    rows = session.store.match_rows(table, sheet.id.round, sheet.id.match)
    return {tuple(row[column] for column in table.slot): row for row in rows}


def _stored_slot(event: Event, sheet: Sheet, slot: str) -> tuple[Any, ...]:
    return kind_of(event).sheet_stored_slot(*sheet.key, slot)


def other_table(session: EventSession, sheet: Sheet, slot: str) -> dict[str, Any] | None:
    """The other table's confirmed result on the same deal, shown only once this table's is
    confirmed too (a table never learns a board's result before it has played it)."""
    kind = kind_of(session.event)
    twin = kind.twin_slot(*sheet.key, slot)
    if session.store is None or twin is None:
        return None
    rows = _match_results(session, sheet)
    own = rows.get(_stored_slot(session.event, sheet, slot))
    theirs = rows.get(twin)
    if own is None or theirs is None:
        return None
    return {"table": twin[2], kind.value_field: theirs[kind.value_field]}


# --- writes ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What a write did, as its page says it (``key``/``params``: a catalog phrase); ``repeated``:
    the same nonce came again, and nothing more was stored."""

    action: str
    key: str
    params: Mapping[str, Any]
    repeated: bool = False

    def phrase(self) -> Phrase:
        return Phrase.of(self.key, **self.params)

    def as_dict(self) -> dict[str, Any]:
        return {"action": self.action, "key": self.key, "params": _plain(self.params)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], repeated: bool = False) -> Outcome:
        return cls(data["action"], data["key"], _phrased(data["params"]), repeated)


def _plain(value: Any) -> Any:
    """Phrases inside a stored outcome as JSON (``{"phrase": key, "params": …}``)."""
    if isinstance(value, Phrase):
        return {"phrase": value.key, "params": _plain(dict(value.params))}
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _phrased(value: Any) -> Any:
    if isinstance(value, Mapping):
        if set(value) == {"phrase", "params"}:
            return Phrase.of(value["phrase"], **_phrased(value["params"]))
        return {k: _phrased(v) for k, v in value.items()}
    return value


def _once(store: ResultsStore, nonce: str, sheet: Sheet | None, device: Device, action: str,
          slot: str | None, write: Callable[[LiveStore], Outcome]) -> Outcome:
    """Run ``write`` (inside one transaction) unless ``nonce`` was used: then its first outcome."""
    with store.transaction():
        rows = store.live
        used = rows.outcome(nonce)
        if used is not None:
            return Outcome.from_dict(used, repeated=True)
        outcome = write(rows)
        at = now()
        said = rows.spend(nonce, at, outcome.as_dict())
        if sheet is not None:
            _wrote(rows, sheet, device, at)
        rows.log(at, sheet.key if sheet is not None else (None, None, None), action, slot=slot, device=device.id,
                 address=device.address, agent=device.agent or "", detail=said)
        return outcome


def _sheet_row(rows: LiveStore, sheet: Sheet) -> SheetRow:
    """The sheet's row (made at its first write); 410 when the sheet was replaced since its page
    was authorised (a reprint or an undone pairing in between)."""
    row = rows.made_sheet(sheet.key)
    if row.generation != sheet.id.generation:
        raise LiveRefused("live.sheet_replaced", 410, generation=sheet.id.generation, current=row.generation,
                          why="")
    return row


def _refuse_if_locked(row: SheetRow) -> None:
    if row.locked_at:
        raise LiveRefused("live.sheet_locked", 423)


def _refuse_if_closed(session: EventSession, sheet: Sheet) -> None:
    """A forfeited match's sheet, or any sheet once the event is declared over, takes nothing."""
    reason = closed_reason(session, sheet)
    if reason is not None:
        raise LiveRefused("live.sheet_closed", 409, why=reason)


def entry_values(session: EventSession, sheet: Sheet, slot: str, typed: Mapping[str, str | None],
                 device: Device) -> dict[str, str | None]:
    """The fields of one result as the results path validates them: what the schedule fixes of
    the sheet's result (round, match, table, board, teams, declarer, level) and what was typed."""
    kind = kind_of(session.event)
    return {**kind.sheet_values(session.event, sheet.match, sheet.id.table, slot),
            "entered_by": f"live {device.id[:8]}", **kind.typed(typed)}


def _validated(session: EventSession, sheet: Sheet, slot: str, typed: Mapping[str, str | None],
               device: Device, entered_by: str | None = None) -> tuple[Any, dict[str, Any]]:
    """The entry of ``typed`` as the results path validates it (:class:`Rejected` if not one), and
    the fields a live entry keeps of it; ``entered_by``: who it is stored as entered by, if not
    the device."""
    event = session.event
    if slot not in sheet.slots:
        raise LiveRefused("live.no_such_slot", 404, slot=slot)
    values = entry_values(session, sheet, slot, typed, device)
    if entered_by is not None:
        values["entered_by"] = entered_by
    kind = kind_of(event)
    entry = validated_entry(event, kind, values)
    fields = {name: getattr(entry, name) for name in kind.typed_fields}
    return entry, {k: v for k, v in fields.items() if v is not None}


def enter(session: EventSession, sheet: Sheet, slot: str, typed: Mapping[str, str | None], device: Device,
          nonce: str, *, double_entry: bool = False) -> Outcome:
    """The scorer's (or, in a double-entry event, either side's) entry of one result. Refused with
    the profile's reasons (:class:`Rejected`) when the value is not one; a confirmed result is
    the director's to change (409)."""
    entry, fields = _validated(session, sheet, slot, typed, device)
    store = session.writable_store()

    def write(rows: LiveStore) -> Outcome:
        row = _sheet_row(rows, sheet)
        _refuse_if_locked(row)
        _refuse_if_closed(session, sheet)
        state = rows.current_entry(sheet.key, slot, sheet.id.generation)
        if (state is not None and state.state == "confirmed") or _stored(session, sheet, slot):
            raise LiveRefused("live.already_confirmed", 409, slot=slot)
        at = now()
        if double_entry and state is not None and state.device != device.id:
            if state.fields == fields:
                _add_entry(rows, sheet, slot, fields, device, at, "entered")
                return _confirm_rows(session, store, sheet, [slot], f"second entry {device.id[:8]}", at)
            _add_entry(rows, sheet, slot, fields, device, at, "conflict")
            rows.raise_flag(sheet.key, slot, "conflict", {"first": state.fields, "second": fields}, at)
            return Outcome("enter", "live.conflict", {"slot": slot})
        if state is not None:
            rows.replace_open(sheet.key, slot)
        _add_entry(rows, sheet, slot, fields, device, at, "entered")
        return Outcome("enter", "live.entered", {"slot": slot, "value": entry.value_text()})

    return _once(store, nonce, sheet, device, "enter", slot, write)


def _add_entry(rows: LiveStore, sheet: Sheet, slot: str, fields: Mapping[str, Any], device: Device, at: str,
               state: str) -> None:
    rows.add_entry(sheet.key, slot, sheet.id.generation, fields, device.id, at, state)


def _stored(session: EventSession, sheet: Sheet, slot: str) -> bool:
    store = session.store
    kind = kind_of(session.event)
    return store is not None and store.current_row(kind.table, _stored_slot(session.event, sheet, slot)) is not None


def _code_of(session: EventSession, key: bytes, team: str) -> str:
    return team_code(key, session.event.id, team)


def _check_code(session: EventSession, key: bytes, sheet: Sheet, team: str, code: str) -> None:
    """The team code typed, or :class:`_WrongCode` (counted by :func:`_with_code`)."""
    if not same_code(_code_of(session, key, team), code):
        raise _WrongCode()


class _WrongCode(Exception):
    """Inside a write: roll back everything but the count (see :func:`_with_code`)."""


def _with_code(session: EventSession, key: bytes, sheet: Sheet, team: str, code: str, nonce: str,
               device: Device, action: str, slot: str | None, write: Callable[[LiveStore], Outcome]) -> Outcome:
    store = session.writable_store()
    try:
        def checked(rows: LiveStore) -> Outcome:
            row = _sheet_row(rows, sheet)
            _refuse_if_locked(row)
            _refuse_if_closed(session, sheet)
            _check_code(session, key, sheet, team, code)
            return write(rows)
        return _once(store, nonce, sheet, device, action, slot, checked)
    except _WrongCode:
        with store.transaction():  # the count, on its own (the write above was rolled back)
            rows = store.live
            _sheet_row(rows, sheet)
            at = now()
            left = LOCK_AFTER - rows.count_wrong_code(sheet.key, LOCK_AFTER, at)
            rows.log(at, sheet.key, "wrong-code", slot=slot, device=device.id, address=device.address,
                     agent=device.agent or "", detail=team)
        if left <= 0:
            raise LiveRefused("live.sheet_locked", 423) from None
        raise LiveRefused("live.wrong_code", 403, left=left) from None


def confirm(session: EventSession, key: bytes, sheet: Sheet, slots: Sequence[str] | None, code: str,
            device: Device, nonce: str) -> Outcome:
    """The other side confirms entered results (``slots``; ``None``: every one entered) with its
    team code, from a device that entered none of them: each becomes a stored result."""
    store = session.writable_store()

    def write(rows: LiveStore) -> Outcome:
        entered = {e.slot: e for e in rows.entered(sheet.key, sheet.id.generation)}
        wanted = list(entered) if slots is None else list(dict.fromkeys(slots))  # a slot named twice: once
        if not wanted:
            raise LiveRefused("live.nothing_to_confirm", 409)
        for slot in wanted:
            if slot not in entered:
                raise LiveRefused("live.not_entered", 409, slot=slot)
            if entered[slot].device == device.id:
                raise LiveRefused("live.own_entry", 403, slot=slot)
        return _confirm_rows(session, store, sheet, wanted, f"team code {sheet.confirmer}", now())

    return _with_code(session, key, sheet, sheet.confirmer, code, nonce, device, "confirm",
                      ",".join(slots) if slots else None, write)


def dispute(session: EventSession, key: bytes, sheet: Sheet, slot: str, typed: Mapping[str, str | None],
            code: str, device: Device, nonce: str) -> Outcome:
    """The other side says an entered result is wrong, with its own values and its code: a
    conflict on both phones and the console, until the scorer enters it again or the director
    decides."""
    _, fields = _validated(session, sheet, slot, typed, device)

    def write(rows: LiveStore) -> Outcome:
        state = rows.current_entry(sheet.key, slot, sheet.id.generation)
        if state is None or state.state != "entered":
            raise LiveRefused("live.not_entered", 409, slot=slot)
        at = now()
        _add_entry(rows, sheet, slot, fields, device, at, "conflict")
        rows.raise_flag(sheet.key, slot, "conflict", {"first": state.fields, "second": fields}, at)
        return Outcome("dispute", "live.conflict", {"slot": slot})

    return _with_code(session, key, sheet, sheet.confirmer, code, nonce, device, "dispute", slot, write)


def entered_live(event: Event, sheet: Sheet, by: str) -> str:
    """Who a result entered live is stored as entered by (the paper slips' import names it when
    they differ): the side that entered it and the side that confirmed it, ``live T1 长城队 → T2
    东风队``; in a double-entry event, the two devices that agreed."""
    if by.startswith("second entry"):
        return "live: two devices agreed"
    scorer, confirmer = event.team(sheet.scorer), event.team(sheet.confirmer)
    return f"live {scorer.id} {scorer.name} → {confirmer.id} {confirmer.name}"


def _confirm_rows(session: EventSession, store: ResultsStore, sheet: Sheet, slots: Sequence[str], by: str,
                  at: str) -> Outcome:
    """Store the entered results of ``slots`` as results (one import) and mark them confirmed."""
    event = session.event
    kind = kind_of(event)
    rows = store.live
    check_seating(store, event, {(sheet.id.round, sheet.id.match)})
    entries = []
    confirmed = []
    for slot in slots:
        live_entry = rows.current_entry(sheet.key, slot, sheet.id.generation)
        assert live_entry is not None  # the caller found it entered, in this transaction
        typed = {k: None if v is None else str(v) for k, v in live_entry.fields.items()}
        values = entry_values(session, sheet, slot, typed, Device(live_entry.device))
        values["entered_by"] = entered_live(event, sheet, by)
        entry = validated_entry(event, kind, values)
        if store.current_row(kind.table, entry.slot) is not None:
            raise LiveRefused("live.already_confirmed", 409, slot=slot)
        entries.append(entry)
        confirmed.append(live_entry)
    import_id = store.insert(kind.table, entries, source=f"live {sheet.id.round}/{sheet.id.match}/{sheet.id.table}",
                             import_kind="add", entered_by=f"live ({by})")
    for live_entry in confirmed:
        rows.mark_confirmed(live_entry.id, by, at, import_id)
    for slot in slots:
        # a dispute the two sides settled at the table (entered again, then confirmed) is closed
        rows.clear_conflict(sheet.key, slot, at, by, "settled at the table: entered again and confirmed")
        _check_far_apart(session, store, sheet, slot, at)
    return Outcome("confirm", "live.confirmed", {"count": len(slots), "import_id": import_id})


def _check_far_apart(session: EventSession, store: ResultsStore, sheet: Sheet, slot: str, at: str) -> None:
    kind = kind_of(session.event)
    twin = kind.twin_slot(*sheet.key, slot)
    if twin is None:
        return
    own = store.current_row(kind.table, _stored_slot(session.event, sheet, slot))
    theirs = store.current_row(kind.table, twin)
    if own is None or theirs is None or own["withdrawn"] or theirs["withdrawn"]:
        return
    total = session.event.profile.rules_for(session.event.decks).total_points
    apart = abs(int(own["defenders_points"]) - int(theirs["defenders_points"]))
    if apart >= FAR_APART_SHARE * total:
        store.live.raise_flag(sheet.key, slot, "far-apart", {"apart": apart, "total": total}, at)


def confirm_recap(session: EventSession, key: bytes, sheet: Sheet, side: str, code: str, device: Device,
                  nonce: str) -> Outcome:
    """One side (``scorer`` or ``confirmer``) confirms the whole sheet with its team code; once
    both have, the sheet is closed. Refused while a result is not confirmed (the page lists them)."""
    if side not in ("scorer", "confirmer"):
        raise LiveRefused("live.bad_side", 400)
    team = sheet.scorer if side == "scorer" else sheet.confirmer

    def write(rows: LiveStore) -> Outcome:
        state = sheet_state(session, sheet)
        waiting = [s.slot for s in state.slots.values() if s.state != "confirmed"]
        if waiting:
            raise LiveRefused("live.recap_waiting", 409, slots=", ".join(waiting))
        done = rows.close_recap(sheet.key, side, now())
        return Outcome("recap", "live.closed" if done else "live.recap_confirmed",
                       {"team": session.event.team(team).name})

    return _with_code(session, key, sheet, team, code, nonce, device, "recap", None, write)


# --- the director's side ----------------------------------------------------------------------------


def unlock(session: EventSession, sheet: Sheet, by: str) -> Outcome:
    store = session.writable_store()
    with store.transaction():
        _sheet_row(store.live, sheet)
        store.live.unlock(sheet.key)
        store.live.log(now(), sheet.key, "unlock", detail=by)
    return Outcome("unlock", "live.unlocked", {})


def revoke(session: EventSession, sheet: Sheet, reason: str, by: str, *, nonce: str | None = None,
           said: Callable[[int], Outcome] | None = None) -> int:
    """A new generation of the sheet (to reprint): the printed one stops working, and what was
    entered with it and not confirmed is void. Its new number. ``nonce`` (the director's form)
    is spent in the same transaction, with ``said(generation)`` as its outcome: a form sent again
    after a crash finds it spent and revokes nothing more."""
    if not reason.strip():
        raise UserError("results.correction_needs_reason", field="reason")
    store = session.writable_store()
    with store.transaction():
        rows = store.live
        _sheet_row(rows, sheet)
        made = rows.next_generation(sheet.key)
        at = now()
        rows.log(at, sheet.key, "revoke", detail={"generation": made, "why": "reprint", "reason": reason.strip(),
                                                  "by": by})
        if nonce is not None and said is not None:
            rows.spend(nonce, at, said(made).as_dict())
        return made


def void_pairing(store: ResultsStore, event: Event, round_number: int, matches: Sequence[str], reason: str,
                 by: str | None) -> None:
    """Inside the transaction that undoes round ``round_number``'s pairing: every sheet of it
    (``matches`` × the event's tables, printed or not) gets a new generation, so that its paper
    answers 410 saying why and a new pairing's sheets print anew; what was entered on them and not
    confirmed is void; locks, recaps and open flags of the round go with the pairing."""
    rows = store.live
    at = now()
    for match in matches:
        for table in event.table_ids():
            key = (round_number, match, table)
            made = rows.void_sheet(key)
            rows.log(at, key, "revoke", device=by, detail={"generation": made, "why": "undo", "reason": reason,
                                                           "by": by})
    rows.clear_round_flags(round_number, at, by, f"pairing undone: {reason}")


def settle(session: EventSession, sheet: Sheet, slot: str, typed: Mapping[str, str | None], reason: str,
           by: str) -> Outcome:
    """The director's decision on a disputed result (or any result not stored yet): the value
    chosen or typed is stored as the result, with the reason, through the one results path; the
    slot's entries are settled (confirmed), its conflict flag cleared, and the table goes on to
    its recap. A result already stored is changed only by a correction (409 if it differs)."""
    if not reason.strip():
        raise UserError("results.correction_needs_reason", field="reason")
    if slot not in sheet.slots:
        raise LiveRefused("live.no_such_slot", 404, slot=slot)
    event = session.event
    kind = kind_of(event)
    entry, fields = _validated(session, sheet, slot, typed, Device(by), f"{by} (settled: {reason.strip()})")
    store = session.writable_store()
    with store.transaction():
        rows = store.live
        _sheet_row(rows, sheet)
        _refuse_if_closed(session, sheet)
        check_seating(store, event, {(sheet.id.round, sheet.id.match)})
        old = store.current_row(kind.table, entry.slot)
        if old is not None and not entry.same_result(old):
            raise LiveRefused("live.settle_stored", 409, slot=slot, stored=kind.stored_text(old, event.timezone))
        import_id = old["import_id"] if old is not None else store.insert(
            kind.table, [entry], source=f"live {sheet.id.round}/{sheet.id.match}/{sheet.id.table}",
            import_kind="add", entered_by=entry.entered_by)
        at = now()
        rows.replace_open(sheet.key, slot)
        rows.add_entry(sheet.key, slot, sheet.id.generation, fields, by, at, "confirmed",
                       confirmed_by=f"director ({by})", result_import=import_id)
        rows.clear_conflict(sheet.key, slot, at, by, reason.strip())
        _check_far_apart(session, store, sheet, slot, at)
        rows.log(at, sheet.key, "settle", slot=slot, detail={"fields": fields, "reason": reason.strip(), "by": by})
    names = event.table_names(sheet.match)
    return Outcome("settle", "live.settled", {"round": sheet.id.round, "match": sheet.id.match,
                                              "table": names.get(sheet.id.table, sheet.id.table),
                                              "slot": slot, "value": entry.value_text()})


def clear_flag(session: EventSession, flag_id: int, reason: str, by: str) -> None:
    if not reason.strip():
        raise UserError("results.correction_needs_reason", field="reason")
    store = session.writable_store()
    with store.transaction():
        if not store.live.clear_flag(flag_id, now(), by, reason.strip()):
            raise LiveRefused("live.no_such_flag", 404, flag=flag_id)


def open_flags(session: EventSession, round_number: int) -> list[dict[str, Any]]:
    return [] if session.store is None else session.store.live.open_flags(round_number)


def flag(session: EventSession, flag_id: int) -> dict[str, Any] | None:
    """An open flag, with its detail read (``None``: no such open flag)."""
    return None if session.store is None else session.store.live.open_flag(flag_id)


@dataclass
class RoundGrid:
    """The console's grid of a round: every sheet's state, the oldest unconfirmed entry and the
    flags to clear."""

    round: int
    sheets: list[SheetState]
    oldest_unconfirmed: str | None
    flags: list[dict[str, Any]]

    def counts(self) -> dict[str, int]:
        counts = {"missing": 0, "entered": 0, "confirmed": 0, "conflict": 0}
        for state in self.sheets:
            for slot in state.slots.values():
                counts[slot.state] += 1
        return counts


def round_grid(session: EventSession, round_number: int) -> RoundGrid:
    states = [sheet_state(session, sheet) for sheet in sheets_of_round(session, round_number)]
    oldest = min((s.at for st in states for s in st.slots.values() if s.state == "entered" and s.at),
                 default=None)
    return RoundGrid(round_number, states, oldest, open_flags(session, round_number))


def age_seconds(at: str | None, at_now: dt.datetime | None = None) -> int | None:
    if at is None:
        return None
    when = dt.datetime.fromisoformat(at)
    return max(0, int(((at_now or dt.datetime.now(dt.UTC)) - when).total_seconds()))





# --- the director's console --------------------------------------------------------------------


def forfeited_matches(session: EventSession, round_number: int) -> set[str]:
    """The matches of a round that a forfeit (or a lateness scored as one) decides: no result is
    awaited from them."""
    return {f.match for f in session.adjustments.forfeits if f.round == round_number}


@dataclass(frozen=True)
class Pending:
    """What keeps a round from being closed: results not confirmed (forfeited matches aside) and
    open flags."""

    unconfirmed: int
    flags: int

    def __bool__(self) -> bool:
        return bool(self.unconfirmed or self.flags)


def round_pending(session: EventSession, round_number: int) -> Pending:
    grid = round_grid(session, round_number)
    forfeited = forfeited_matches(session, round_number)
    unconfirmed = sum(1 for state in grid.sheets if state.sheet.id.match not in forfeited
                      for slot in state.slots.values() if slot.state != "confirmed")
    return Pending(unconfirmed, len(grid.flags))


def next_round_number(session: EventSession) -> int:
    """The round a pairing would make next (after the last one paired)."""
    return max((r.number for r in session.event.rounds), default=0) + 1


def outcome_of(session: EventSession, nonce: str) -> Outcome | None:
    """What the request of ``nonce`` did (for the page it redirected to), or ``None``."""
    stored = None if session.store is None else session.store.live.outcome(nonce)
    return None if stored is None else Outcome.from_dict(stored)


def director_once(session: EventSession, nonce: str, by: str, action: str, use: Any,
                  where: tuple[int | None, str | None, str | None] = (None, None, None),
                  note: str | None = None) -> Outcome:
    """Run a director's action ``use(session)`` (a use case with its own transaction) unless its
    form's ``nonce`` was spent: then its first outcome, nothing done again. The outcome and
    ``note`` (a forced pairing's reason) are logged with the director and ``where`` it applied."""
    found = outcome_of(session, nonce)
    if found is not None:
        return dataclasses.replace(found, repeated=True)
    outcome: Outcome = use(session)
    store = session.writable_store()
    with store.transaction():
        at = now()
        store.live.spend(nonce, at, outcome.as_dict())
        store.live.log(at, where, action, device=by,
                       detail=_plain({**outcome.as_dict(), "by": by, **({"note": note} if note else {})}))
    return outcome


def phrase_outcome(action: str, phrase: Phrase) -> Outcome:
    """A use case's phrase (what the command line tells) as a console outcome."""
    return Outcome(action, phrase.key, dict(phrase.params))


# --- directors' links ---------------------------------------------------------------------------

#: A director's session lasts the event's day (the cookie and the stored session).
DIRECTOR_HOURS = 18


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_director_link(session: EventSession) -> str:
    """A one-time login token (256 bits), kept only as its digest."""
    token = secrets.token_urlsafe(32)
    store = session.writable_store()
    with store.transaction():
        store.live.add_director_link(_digest(token), now())
    return token


def use_director_link(session: EventSession, token: str, address: str | None, agent: str | None) -> str:
    """Spend a one-time link; the session token its cookie carries. A used or unknown link: 403."""
    store = session.writable_store()
    session_token = secrets.token_urlsafe(32)
    expires = (dt.datetime.now(dt.UTC) + dt.timedelta(hours=DIRECTOR_HOURS)).isoformat(timespec="seconds")
    with store.transaction():
        if not store.live.use_director_link(_digest(token or "-"), _digest(session_token), expires, now(), address,
                                            agent):
            raise LiveRefused("serve.link_used", 403)
    return session_token


def director_of(session: EventSession, token: str) -> str | None:
    """Who a director's session cookie names (``director`` and the link's first digits), or
    ``None``: unknown or expired."""
    found = None if session.store is None else session.store.live.director_session(_digest(token))
    if found is None or found[1] < dt.datetime.now(dt.UTC).isoformat(timespec="seconds"):
        return None
    return f"director {found[0][:6]}"
