"""The director's console (``/-/console``): the round grid and the director's actions, each the use
case its command-line command calls (docs/serve.md).

The grid is built from :func:`dealer.app.live.round_grid`; every action is a POST carrying a server
nonce (:func:`dealer.app.live.new_nonce`), run once (:func:`dealer.app.live.director_once`: a
double tap gets the first answer back) on the database thread, and answers 303 back to the
console with what it did (``?said=``), the console again with the refusal, or JSON when asked.
Use cases that change what the session holds (the rounds, forfeits, penalties, line-ups,
releases, results) run with ``reopen=True``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import urllib.parse
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response

from dealer.adjustments import PENALTY_KINDS
from dealer.app import live
from dealer.app.kinds import TYPED_FIELDS, kind_of
from dealer.app.live import now
from dealer.errors import Phrase, UserError
from dealer.numbers import whole_number_or_none
from dealer.render.strings import Strings
from dealer.scoring import TRUMPS
from dealer.serve.web import DIRECTOR_COOKIE, words
from dealer.words import local_time

if TYPE_CHECKING:
    from dealer.app.session import EventSession
    from dealer.formats.entry import SheetId
    from dealer.render.engine import Document
    from dealer.serve.app import Server

#: One print at a time (WeasyPrint is slow): a second request waits, then sees the first's answer.
_PRINTING: weakref.WeakKeyDictionary[Any, asyncio.Lock] = weakref.WeakKeyDictionary()


def _t(lang: str) -> Strings:
    from dealer.serve.web import page_words

    return page_words(lang)


def age_text(seconds: int | None, t: Strings) -> str:
    """How long ago, in the page's words."""
    if seconds is None:
        return str(t.console_never)
    if seconds < 60:
        return t.fmt("console_age_s", n=seconds)
    if seconds < 3600:
        return t.fmt("console_age_m", n=seconds // 60)
    return t.fmt("console_age_h", h=seconds // 3600, m=seconds // 60 % 60)


def _fields_text(fields: Any) -> str:
    if not isinstance(fields, dict):
        return str(fields)
    if "defenders_points" in fields:
        return str(fields["defenders_points"]) + (f" {fields['trump']}" if fields.get("trump") else "")
    return " / ".join(f"{v}" for v in fields.values())


def _flag_text(flag: dict[str, Any], t: Strings) -> str:
    detail = json.loads(flag["detail"]) if isinstance(flag["detail"], str) else flag["detail"]
    if flag["kind"] == "far-apart":
        return t.fmt("console_flag_far_apart", apart=detail.get("apart"), total=detail.get("total"))
    if flag["kind"] == "devices":
        return t.fmt("console_flag_devices", n=detail.get("devices"))
    return t.fmt("console_flag_conflict", first=_fields_text(detail.get("first")),
                 second=_fields_text(detail.get("second")))


#: What an owner-only file of the output folder holds, by the start of its name (the console lists
#: it, never serves it): the team cards hold the teams' codes; every other such file shows cards.
SECRET_FILES = (("team-cards", "codes"),)


def _secret_kind(name: str) -> str:
    return next((kind for prefix, kind in SECRET_FILES if name.startswith(prefix)), "cards")


def output_files(session: EventSession) -> list[dict[str, Any]]:
    """The files in the event's output folder (the print pack, the console's reprints), newest
    first; those written owner-only (cards, team codes: ``secret`` says which) are listed, never
    served."""
    folder = session.folder.output_path
    if not folder.is_dir():
        return []
    import datetime as dt

    stats = sorted(((path, path.stat()) for path in folder.iterdir()
                    if path.is_file() and path.suffix in (".pdf", ".html")),
                   key=lambda found: (-found[1].st_mtime, found[0].name))
    zone = session.event.timezone
    return [{"name": path.name, "kib": round(stat.st_size / 1024),
             "secret": None if stat.st_mode & 0o044 else _secret_kind(path.name),
             "at": local_time(dt.datetime.fromtimestamp(stat.st_mtime, dt.UTC).isoformat(timespec="seconds"), zone)}
            for path, stat in stats]


#: The console's forms (each nonce is bound to one, and to the director's session).
FORMS = ("correct", "forfeit", "late", "penalty", "lineup", "release", "pair", "print", "clear-flag", "settle",
         "unlock", "reprint")


def console_context(session: EventSession, key: bytes, number: int | None, lang: str, who: str,
                    token: str, version: int = 0) -> dict[str, Any]:
    """The console's page: what needs the director first (open flags, locked sheets), the
    round's grid, what keeps the round open, and every form (each with its nonce, bound to the
    form and the director's session ``token``); ``version``: the data's, as the page's stream
    counts it."""
    event = session.event
    t = _t(lang)
    rounds = [r.number for r in event.rounds]
    if number is None:
        number = live.open_round(session)
    if number is not None and event.round(number) is None:
        raise live.LiveRefused("console.no_such_round", 404, round=number)

    def nonce(form: str) -> str:
        return live.new_nonce(key, live.console_form(token, form))

    context: dict[str, Any] = {
        "kind": "console", "who": who,
        "event": {"id": event.id, "name": event.name, "levels": event.levels, "paired": event.format.paired},
        "round": number, "rounds": rounds, "matches": [], "sheets": [], "columns": [], "flags": [],
        "counts": {}, "oldest_unconfirmed": None, "pending": None,
        "teams": [{"id": team.id, "name": team.name} for team in event.teams],
        "tables": list(event.table_ids()), "sets": list(range(1, event.sets + 1)),
        "penalty_kinds": list(PENALTY_KINDS), "trumps": list(TRUMPS),
        "next_round": live.next_round_number(session) if event.format.paired else None,
        "files": output_files(session),
        "nonces": {name: nonce(name) for name in ("correct", "forfeit", "late", "penalty", "lineup", "release",
                                                   "pair", "print")},
        "said": None, "said_file": None, "refusal": None, "attention": [], "version": version,
        "data_time": local_time(now(), event.timezone),
        "appeals": _appeals(session, lang),
    }
    if number is None:
        return context
    grid = live.round_grid(session, number)
    forfeited = live.forfeited_matches(session, number)
    rnd = event.round(number)
    assert rnd is not None
    by_match: dict[str, list[live.SheetState]] = {}
    for state in grid.sheets:
        by_match.setdefault(state.sheet.id.match, []).append(state)
    for match in rnd.matches:
        states = by_match.get(match.id, [])
        counts = {"missing": 0, "entered": 0, "confirmed": 0, "conflict": 0}
        for state in states:
            for slot in state.slots.values():
                counts[slot.state] += 1
        context["matches"].append({
            "match": match.id, "home": event.team(match.home).name, "away": event.team(match.away).name,
            "set": match.set, "counts": counts, "forfeited": match.id in forfeited,
            "flags": sum(len(s.flags) for s in states),
            "done": match.id in forfeited or counts["confirmed"] == sum(counts.values())})
    names = {m.id: event.table_names(m) for m in rnd.matches}
    for state in grid.sheets:
        sid = state.sheet.id
        contact = live.age_seconds(state.last_contact)
        context["sheets"].append({
            "match": sid.match, "table": sid.table, "table_name": names[sid.match].get(sid.table, sid.table),
            "generation": live.generation(session.store, *state.sheet.key),
            "locked": state.locked, "wrong_codes": state.wrong_codes, "devices": state.devices,
            "last_contact": local_time(state.last_contact, event.timezone) if state.last_contact else None,
            "last_contact_age": contact, "last_contact_text": age_text(contact, t),
            "closed": state.closed, "forfeited": sid.match in forfeited,
            "cells": [{"slot": s.slot, "state": s.state, "flagged": s.flagged,
                       "shown": "flagged" if s.flagged else s.state} for s in state.slots.values()],
            "nonces": {"unlock": nonce("unlock"), "reprint": nonce("reprint")}})
    if grid.sheets:
        first = grid.sheets[0].sheet
        kind = kind_of(event)
        context["columns"] = [slot if kind.board_of(slot) is not None else t.level_result for slot in first.slots]
    context["counts"] = grid.counts()
    if grid.oldest_unconfirmed:
        age = live.age_seconds(grid.oldest_unconfirmed)
        context["oldest_unconfirmed"] = {"at": local_time(grid.oldest_unconfirmed, event.timezone), "age": age,
                                         "text": age_text(age, t)}
    for flag in grid.flags:
        age = live.age_seconds(flag["at"])
        detail = json.loads(flag["detail"]) if isinstance(flag["detail"], str) else flag["detail"]
        context["flags"].append({
            "id": flag["id"], "kind": flag["kind"], "match": flag["match"], "table": flag["tbl"],
            "table_name": names.get(flag["match"], {}).get(flag["tbl"], flag["tbl"]),
            "slot": flag["slot"] or None, "text": _flag_text(flag, t),
            "at": local_time(flag["at"], event.timezone), "age": age, "age_text": age_text(age, t),
            # a dispute is settled in one action: the scorer's value, the other side's, or another
            "choices": [{"choice": side, "fields": detail.get(side), "text": _fields_text(detail.get(side))}
                        for side in ("first", "second")] if flag["kind"] == "conflict" else [],
            "nonce": nonce("settle" if flag["kind"] == "conflict" else "clear-flag")})
    # what needs the director, first on a phone: flags, then locked sheets, oldest first
    context["attention"] = [{**f, "what": "flag", "flag_kind": f["kind"]} for f in context["flags"]] + [
        {**sheet, "what": "locked"} for sheet in context["sheets"] if sheet["locked"]]
    pending = live.round_pending(session, number)
    context["pending"] = {"unconfirmed": pending.unconfirmed, "flags": pending.flags}
    return context


def _appeals(session: EventSession, lang: str) -> dict[str, Any]:
    """The appeals (申诉) and their decisions, and whether one keeps the standings provisional."""
    from dealer.app.appeals import appeal_lines, provisional_line, stored_appeals
    from dealer.words import section

    appeals = stored_appeals(session.store)
    return {"title": section("appeals", lang)["title"], "lines": appeal_lines(session.event, appeals, lang),
            "provisional": provisional_line(appeals, lang)}


def _round_param(text: str | None) -> int | None:
    if not text:
        return None
    number = whole_number_or_none(text)
    if number is None or number < 1:
        raise live.LiveRefused("console.bad_number", 400, field="round", value=text)
    return number


def _query(lang: str, **values: object) -> str:
    query = {k: str(v) for k, v in (("lang", lang if lang != "zh" else None), *values.items()) if v is not None}
    return "?" + urllib.parse.urlencode(query) if query else ""


def _token(request: Request) -> str:
    return request.cookies.get(DIRECTOR_COOKIE, "")


async def page(server: Server, request: Request, lang: str, who: str) -> Response:
    from dealer.serve.web import refused, render, wants_json

    token = _token(request)
    try:
        number = _round_param(request.query_params.get("round"))
        context = await server.live.run(lambda s: console_context(s, server.live.key, number, lang, who, token,
                                                                          server.live.version))
    except UserError as error:
        return refused(request, error, lang)
    said = request.query_params.get("said")
    # only the outcome of this director's own forms (another's nonce tells this page nothing)
    if said and any(live.nonce_for(server.live.key, said, live.console_form(token, form)) for form in FORMS):
        outcome = await server.live.run(lambda s: live.outcome_of(s, said))
        if outcome is not None:
            context["said"] = words(lang).text(outcome.key, outcome.params)
            file = outcome.params.get("file")
            context["said_file"] = file if isinstance(file, str) else None
    if request.url.path.endswith(".json") or wants_json(request):
        return JSONResponse(context)
    return render("console.html", context, lang, q=_query(lang))


# --- the printable pages and the downloads ----------------------------------------------------


async def view(server: Server, request: Request, lang: str, who: str) -> Response:
    """GET ``/-/console/missing`` (the missing results as a printable list) and
    ``/-/console/file?name=…`` (a file of the output folder)."""
    from dealer.serve.web import refused, render

    name = request.path_params["view"]
    try:
        if name == "missing":
            number = _round_param(request.query_params.get("round"))
            context = await server.live.run(lambda s: missing_context(s, number, lang))
            return render("console-missing.html", context, lang, q=_query(lang))
        if name == "file":
            path = await server.live.run(lambda s: _served_file(s, request.query_params.get("name", "")))
            return FileResponse(path, filename=path.name,
                                headers={"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"})
        raise live.LiveRefused("serve.no_such_action", 404)
    except UserError as error:
        return refused(request, error, lang)


def missing_context(session: EventSession, number: int | None, lang: str) -> dict[str, Any]:
    """``dealer results missing --round N`` as a page: each match still missing results."""
    from dealer.app.results import missing

    if number is None:
        number = live.open_round(session)
    if number is None or session.event.round(number) is None:
        raise live.LiveRefused("console.no_such_round", 404, round=number)
    w = words(lang)
    lines = [w.text(r.phrase().key, r.phrase().params) for r in missing(session, number) if r.gaps]
    return {"kind": "missing", "event": {"id": session.event.id, "name": session.event.name}, "round": number,
            "lines": lines, "data_time": local_time(now(), session.event.timezone)}


def _served_file(session: EventSession, name: str) -> Path:
    for found in output_files(session):
        if found["name"] == name:
            if found["secret"]:
                if found["secret"] == "codes":
                    raise live.LiveRefused("console.secret_file_codes", 403, name=name)
                raise live.LiveRefused("console.secret_file_cards", 403, name=name)
            return session.folder.output_path / name
    raise live.LiveRefused("console.no_such_file", 404, name=name)


# --- the actions ---------------------------------------------------------------------------


def _one(form: dict[str, list[str]], name: str) -> str:
    values = form.get(name)
    return values[-1].strip() if values else ""


def _ticked(form: dict[str, list[str]], name: str) -> bool:
    return _one(form, name) not in ("", "0", "off", "false")


def _number(form: dict[str, list[str]], name: str, required: bool = True) -> int | None:
    text = _one(form, name)
    if not text and not required:
        return None
    number = whole_number_or_none(text)
    if number is None:
        raise live.LiveRefused("console.bad_number", 400, field=name, value=text)
    return number


def _sheet(session: EventSession, form: dict[str, list[str]]) -> live.Sheet:
    number = _number(form, "round")
    assert number is not None
    match, table = _one(form, "match"), _one(form, "table")
    return live.sheet_of(session.event, number, match, table, live.generation(session.store, number, match, table))


Use = Callable[["EventSession"], live.Outcome]


def _correct(form: dict[str, list[str]], who: str) -> Use:
    from dealer.app.results import correct

    names = ("round", "match", "table", "board", "declarer", "level", "note", *TYPED_FIELDS)
    fields: dict[str, str | None] = {name: _one(form, name) or None for name in names}
    fields["entered_by"] = who
    return lambda s: live.phrase_outcome("correct", correct(
        s, fields, _one(form, "reason"), withdraw=_ticked(form, "withdraw"),
        check_plausible=not _ticked(form, "accept_implausible")).phrase())


def _forfeit(form: dict[str, list[str]], who: str) -> Use:
    from dealer.app.rounds import record_forfeit, withdraw_adjustment

    number, team, reason = _number(form, "round"), _one(form, "team"), _one(form, "reason")
    assert number is not None
    if _ticked(form, "withdraw"):
        return lambda s: live.phrase_outcome("forfeit", withdraw_adjustment(s, number, team, "forfeit", reason, who))
    return lambda s: live.phrase_outcome("forfeit", record_forfeit(s, number, _one(form, "match"), team, reason, who))


def _late(form: dict[str, list[str]], who: str) -> Use:
    from dealer.app.rounds import record_lateness, withdraw_adjustment

    number, team, reason = _number(form, "round"), _one(form, "team"), _one(form, "reason")
    assert number is not None
    if _ticked(form, "withdraw"):
        return lambda s: live.phrase_outcome("late", withdraw_adjustment(s, number, team, "late", reason, who))
    minutes = _number(form, "minutes")
    assert minutes is not None
    return lambda s: live.phrase_outcome("late", record_lateness(s, number, team, minutes, reason, who))


def _penalty(form: dict[str, list[str]], who: str) -> Use:
    from dealer.app.penalties import PenaltyAsk, record_penalty, withdraw_penalty

    number, team, reason = _number(form, "round"), _one(form, "team"), _one(form, "reason")
    assert number is not None
    kind = _one(form, "kind")
    if _ticked(form, "withdraw"):
        return lambda s: live.phrase_outcome("penalty", withdraw_penalty(s, number, team, kind or None, reason, who))
    ask = PenaltyAsk(kind, _number(form, "amount", required=False) or 0, _one(form, "table") or None,
                     _number(form, "board", required=False), _one(form, "choice") or None)
    return lambda s: live.phrase_outcome("penalty", record_penalty(s, number, _one(form, "match") or None, team, ask,
                                                                   reason, who))


def _lineup(form: dict[str, list[str]], who: str) -> Use:
    from dealer.app.lineups import record_lineup

    number, team = _number(form, "round"), _one(form, "team")
    assert number is not None
    if not team:
        raise UserError("lineup.needs_team", field="team")
    tables = [(name.removeprefix("players_"), _one(form, name)) for name in form
              if name.startswith("players_") and _one(form, name)]
    return lambda s: live.phrase_outcome("lineup", record_lineup(s, number, team, tables,
                                                                 reason=_one(form, "reason") or None, entered_by=who))


def _release(form: dict[str, list[str]], who: str) -> Use:
    from dealer.app.release import asked_set, release

    asked = asked_set(_number(form, "set", required=False), _ticked(form, "key"))

    def use(s: EventSession) -> live.Outcome:
        outcome = release(s, asked, _one(form, "reason"), entered_by=who,
                          accept_missing=_ticked(form, "accept_missing"), unused=_ticked(form, "unused"))
        return live.phrase_outcome("release", outcome.phrase())
    return use


def _pair(form: dict[str, list[str]], who: str) -> Use:
    """``dealer round pair --round N`` for the next round; refused while the round before is
    not settled (:func:`dealer.app.rounds.pair_round`), unless forced (``--allow-incomplete``)
    with a reason, which the console's log keeps."""
    from dealer.app.rounds import pair_round

    force, reason = _ticked(form, "force"), _one(form, "reason")
    if force and not reason:
        raise live.LiveRefused("console.force_needs_reason", 400)

    def use(s: EventSession) -> live.Outcome:
        number = live.next_round_number(s)
        view, stored = pair_round(s, number, accept_warnings=_ticked(form, "accept_warnings"),
                                  allow_incomplete=force, entered_by=who)
        if not stored:
            raise live.LiveRefused("console.round_has_warnings", 409, round=number,
                                   warnings=list(view.warning_phrases()))
        forced = Phrase.of("console.forced_part", reason=reason) if force else ""
        return live.Outcome("pair", "console.paired", {"round": number, "matches": len(view.matches),
                                                       "byes": len(view.byes), "forced": forced})
    return use


def _unlock(form: dict[str, list[str]], who: str) -> Use:
    return lambda s: live.unlock(s, _sheet(s, form), who)


def _clear_flag(form: dict[str, list[str]], who: str) -> Use:
    flag = _number(form, "flag")
    assert flag is not None

    def use(s: EventSession) -> live.Outcome:
        live.clear_flag(s, flag, _one(form, "reason"), who)
        return live.Outcome("clear-flag", "console.flag_cleared", {"flag": flag})
    return use


def _settle(form: dict[str, list[str]], who: str) -> Use:
    """A dispute settled in one action (:func:`dealer.app.live.settle`): the scorer's value
    (``first``), the other side's (``second``), or the value typed, with a reason."""
    flag_id = _number(form, "flag")
    assert flag_id is not None
    choice = _one(form, "choice") or "typed"
    if choice not in ("first", "second", "typed"):
        raise live.LiveRefused("console.bad_choice", 400, value=choice)

    def use(s: EventSession) -> live.Outcome:
        found = live.flag(s, flag_id)
        if found is None or found["kind"] != "conflict":
            raise live.LiveRefused("live.no_such_flag", 404, flag=flag_id)
        round_number, match, table = int(found["round"]), str(found["match"]), str(found["tbl"])
        sheet = live.sheet_of(s.event, round_number, match, table, live.generation(s.store, round_number, match,
                                                                                     table))
        if choice == "typed":
            typed: dict[str, str | None] = {name: _one(form, name) or None for name in TYPED_FIELDS}
        else:
            chosen = found["detail"].get(choice) or {}
            typed = {name: None if value is None else str(value) for name, value in chosen.items()}
        return live.settle(s, sheet, str(found["slot"]), typed, _one(form, "reason"), who)
    return use


#: action → (its use case from the form, whether the session is reopened after it).
ACTIONS: dict[str, tuple[Callable[[dict[str, list[str]], str], Use], bool]] = {
    "unlock": (_unlock, False), "clear-flag": (_clear_flag, False), "settle": (_settle, True),
    "correct": (_correct, True), "forfeit": (_forfeit, True), "late": (_late, True), "penalty": (_penalty, True),
    "lineup": (_lineup, True), "release": (_release, True), "pair": (_pair, True),
}


async def action(server: Server, request: Request, lang: str, who: str) -> Response:
    from dealer.serve.web import _error_status, error_text, form_of, render, wants_json
    from dealer.serve.web import refused as refused_page

    name = request.path_params["action"]
    form = await form_of(request)
    nonce = _one(form, "nonce")
    back = whole_number_or_none(_one(form, "back") or _one(form, "round"))  # the round the console shows
    back = back if back is not None and back >= 1 else None
    state = server.live
    token = _token(request)
    try:
        if name not in FORMS:
            raise live.LiveRefused("serve.no_such_action", 404)
        live.check_nonce(state.key, nonce, live.console_form(token, name))
        if name in ("reprint", "print"):
            outcome = await (_reprint(server, form, lang, who, nonce) if name == "reprint"
                             else _print(server, form, lang, who, nonce))
        elif name in ACTIONS:
            build, reopen = ACTIONS[name]
            use = build(form, who)
            where = (whole_number_or_none(_one(form, "round")), _one(form, "match") or None,
                     _one(form, "table") or None)
            if name == "release":  # it reads the report: the session's own must be today's
                await state.run(lambda s: None, reopen=True)
            outcome = await state.run(lambda s: live.director_once(
                s, nonce, who, name, use, where, _one(form, "reason") if name == "pair" else None),
                reopen=reopen, wrote=True)
        else:
            raise live.LiveRefused("serve.no_such_action", 404)
    except UserError as error:
        if wants_json(request):
            return refused_page(request, error, lang)
        try:
            context = await state.run(lambda s: console_context(s, state.key, back, lang, who, token, state.version))
        except UserError:
            return refused_page(request, error, lang)
        message, problems = error_text(error, lang)
        context["refusal"] = {"action": name, "message": message, "problems": problems}
        return render("console.html", context, lang, _error_status(error), q=_query(lang))
    message = words(lang).text(outcome.key, outcome.params)
    if outcome.action == "pair":  # the console goes on with the round just paired
        back = int(outcome.params["round"])
    if wants_json(request):
        file = outcome.params.get("file")
        return JSONResponse({"ok": True, "action": outcome.action, "message": message, "repeated": outcome.repeated,
                             "file": f"/-/console/file?name={urllib.parse.quote(file)}" if isinstance(file, str)
                             else None})
    return RedirectResponse("/-/console" + _query(lang, round=back, said=nonce), status_code=303)


# --- printing: planned on the database thread, rendered beside it ----------------------------------


def _lock(server: Server) -> asyncio.Lock:
    if server not in _PRINTING:
        _PRINTING[server] = asyncio.Lock()
    return _PRINTING[server]


def _options(server: Server, lang: str, **values: Any) -> Any:
    from dealer.render import PrintOptions

    # The entry QR codes of a reprinted score sheet point at this server, as the phones reach it.
    return PrintOptions(lang=lang, serve_url=server.base_url, **values)


async def _render(documents: list[Document]) -> list[Any]:
    """``render_documents`` in a worker thread (one process: the server's own), so that the
    database thread keeps answering the tables."""
    from dealer.render import render_documents

    return await asyncio.to_thread(render_documents, documents, "pdf", 1)


def _sheet_file(sid: SheetId, generation: int, lang: str) -> str:
    return f"score-sheet-round-{sid.round:02d}-match-{sid.match}-{sid.table}-g{generation}-{lang}.pdf"


def _sheet_document(server: Server, s: EventSession, sheet: live.Sheet, lang: str) -> tuple[str, Document]:
    """The score sheet of one table as ``dealer print score-sheets`` plans it (the same planning,
    then only this table's page), in the sheet's current generation, and its file's name."""
    from dealer.render import plan_documents

    sid = sheet.id
    made = live.generation(s.store, sid.round, sid.match, sid.table)
    options = _options(server, lang, round=sid.round, sets=None if s.event.levels else (sheet.match.set,))
    doc = plan_documents(s, "score-sheets", options).documents[0]
    pages = [p for p in doc.pages if str(p.get("match")) == sid.match and str(p.get("table")) == sid.table]
    name = _sheet_file(sid, made, lang)
    return name, dataclasses.replace(doc, path=doc.path.parent / name, pages=pages or doc.pages,
                                     units={"score sheets": 1})


async def _reprint(server: Server, form: dict[str, list[str]], lang: str, who: str, nonce: str) -> live.Outcome:
    """Revoke a sheet (:func:`dealer.app.live.revoke`, with the reason, the form's nonce spent in
    the same transaction) and render its new score sheet. The same form sent again (a lost
    answer, a server killed mid-print) revokes nothing more: it makes the PDF again if it is not
    there and the sheet is still in that generation."""
    state = server.live
    reason = _one(form, "reason")
    async with _lock(server):
        done = await state.run(lambda s: live.outcome_of(s, nonce))
        if done is not None:
            def again(s: EventSession) -> Document | None:
                params = done.params
                sheet = live.sheet_of(s.event, int(params["round"]), str(params["match"]), str(params["table"]),
                                      int(params["generation"]))
                if live.generation(s.store, *sheet.key) != sheet.id.generation:
                    return None  # reprinted again since: that later sheet is the one to print
                name, doc = _sheet_document(server, s, sheet, lang)
                return None if name != params.get("file") or doc.path.exists() else doc
            missing = await state.run(again)
            if missing is not None:
                await _render([missing])
            return dataclasses.replace(done, repeated=True)

        def revoke_and_plan(s: EventSession) -> tuple[live.Outcome, Document]:
            sheet = _sheet(s, form)
            if not reason:
                raise UserError("results.correction_needs_reason", field="reason")
            _sheet_document(server, s, sheet, lang)  # refused here, before the sheet is revoked
            sid = sheet.id

            def said(made: int) -> live.Outcome:
                return live.Outcome("reprint", "console.reprinted", {"round": sid.round, "match": sid.match,
                                                                     "table": sid.table, "generation": made,
                                                                     "file": _sheet_file(sid, made, lang)})
            made = live.revoke(s, sheet, reason, who, nonce=nonce, said=said)
            _name, doc = _sheet_document(server, s, sheet, lang)  # the new generation's, as the store has it
            return said(made), doc

        outcome, doc = await state.run(revoke_and_plan, wrote=True)
        await _render([doc])
        return outcome


async def _print(server: Server, form: dict[str, list[str]], lang: str, who: str, nonce: str) -> live.Outcome:
    """``dealer print all --round N``: the round's paperwork, into the event's output folder."""
    from dealer.render import plan_documents

    state = server.live
    number = _number(form, "round")
    paper_lang = _one(form, "paper_lang") or lang
    if paper_lang not in ("zh", "en"):
        raise live.LiveRefused("console.bad_lang", 400, value=paper_lang)
    async with _lock(server):
        done = await state.run(lambda s: live.outcome_of(s, nonce))
        if done is not None:
            return dataclasses.replace(done, repeated=True)
        plan = await state.run(lambda s: plan_documents(s, "all", _options(server, paper_lang, round=number)))
        written = await _render(plan.documents)
        outcome = live.Outcome("print", "console.printed", {"round": number, "files": len(written),
                                                            "pages": sum(w.pages for w in written)})
        return await state.run(lambda s: live.director_once(s, nonce, who, "print", lambda _s: outcome,
                                                            (number, None, None)))
