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
import urllib.parse
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response

from dealer.app import live
from dealer.app.live import now
from dealer.errors import Phrase, Rejected, UserError
from dealer.numbers import whole_number_or_none
from dealer.render.strings import Strings
from dealer.words import local_time, words

if TYPE_CHECKING:
    from dealer.app.session import EventSession
    from dealer.render.engine import Document
    from dealer.serve.app import Server

PENALTY_KINDS = ("points", "levels", "board", "match", "match_points", "net_levels", "disqualify")
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
    import json

    detail = json.loads(flag["detail"]) if isinstance(flag["detail"], str) else flag["detail"]
    if flag["kind"] == "far-apart":
        return t.fmt("console_flag_far_apart", apart=detail.get("apart"), total=detail.get("total"))
    if flag["kind"] == "devices":
        return t.fmt("console_flag_devices", n=detail.get("devices"))
    return t.fmt("console_flag_conflict", first=_fields_text(detail.get("first")),
                 second=_fields_text(detail.get("second")))


def output_files(session: EventSession) -> list[dict[str, Any]]:
    """The files in the event's output folder (the print pack, the console's reprints), newest
    first; those written owner-only (they show cards) are listed, never served."""
    folder = session.folder.output_path
    if not folder.is_dir():
        return []
    import datetime as dt

    stats = sorted(((path, path.stat()) for path in folder.iterdir()
                    if path.is_file() and path.suffix in (".pdf", ".html")),
                   key=lambda found: (-found[1].st_mtime, found[0].name))
    zone = session.event.timezone
    return [{"name": path.name, "kib": round(stat.st_size / 1024), "secret": not stat.st_mode & 0o044,
             "at": local_time(dt.datetime.fromtimestamp(stat.st_mtime, dt.UTC).isoformat(timespec="seconds"), zone)}
            for path, stat in stats]


def console_context(session: EventSession, key: bytes, number: int | None, lang: str, who: str) -> dict[str, Any]:
    """The console's page: the round's grid, the open flags, what keeps the round open, and
    every form (each with its nonce)."""
    event = session.event
    t = _t(lang)
    rounds = [r.number for r in event.rounds]
    if number is None:
        number = live.open_round(session)
    if number is not None and event.round(number) is None:
        raise live.LiveRefused("console.no_such_round", 404, round=number)
    def nonce() -> str:
        return live.new_nonce(key)

    context: dict[str, Any] = {
        "kind": "console", "who": who,
        "event": {"id": event.id, "name": event.name, "levels": event.levels, "paired": event.format.paired},
        "round": number, "rounds": rounds, "matches": [], "sheets": [], "columns": [], "flags": [],
        "counts": {}, "oldest_unconfirmed": None, "pending": None,
        "teams": [{"id": team.id, "name": team.name} for team in event.teams],
        "tables": list(event.table_ids()), "sets": list(range(1, event.sets + 1)),
        "penalty_kinds": list(PENALTY_KINDS), "trumps": ["", "S", "H", "D", "C", "NT"],
        "next_round": live.next_round_number(session) if event.format.paired else None,
        "files": output_files(session),
        "nonces": {name: nonce() for name in ("correct", "forfeit", "late", "penalty", "lineup", "release",
                                               "pair", "print")},
        "said": None, "said_file": None, "refusal": None,
        "data_time": local_time(now(), event.timezone),
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
            "cells": [{"slot": s.slot, "state": s.state, "flagged": s.flagged} for s in state.slots.values()],
            "nonces": {"unlock": nonce(), "reprint": nonce()}})
    if grid.sheets:
        first = grid.sheets[0].sheet
        context["columns"] = [t.level_result if slot == live.LEVEL_SLOT else slot for slot in first.slots]
    context["counts"] = grid.counts()
    if grid.oldest_unconfirmed:
        age = live.age_seconds(grid.oldest_unconfirmed)
        context["oldest_unconfirmed"] = {"at": local_time(grid.oldest_unconfirmed, event.timezone), "age": age,
                                         "text": age_text(age, t)}
    for flag in grid.flags:
        age = live.age_seconds(flag["at"])
        context["flags"].append({
            "id": flag["id"], "kind": flag["kind"], "match": flag["match"], "table": flag["tbl"],
            "slot": flag["slot"] or None, "text": _flag_text(flag, t),
            "at": local_time(flag["at"], event.timezone), "age": age, "age_text": age_text(age, t),
            "nonce": nonce()})
    pending = live.round_pending(session, number)
    context["pending"] = {"unconfirmed": pending.unconfirmed, "flags": pending.flags}
    return context


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


async def page(server: Server, request: Request, lang: str, who: str) -> Response:
    from dealer.serve.web import refused, render, wants_json

    try:
        number = _round_param(request.query_params.get("round"))
        context = await server.live.run(lambda s: console_context(s, server.live.key, number, lang, who))
    except UserError as error:
        return refused(request, error, lang)
    said = request.query_params.get("said")
    if said:
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
                raise live.LiveRefused("console.secret_file", 403, name=name)
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

    names = ("round", "match", "table", "board", "defenders_points", "trump", "declarer", "level", "note",
             "home_level", "away_level", "last_game", "home_games", "away_games")
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
    table = _one(form, "table") or None
    ask = PenaltyAsk(kind, _number(form, "amount", required=False) or 0,
                     table.upper() if table and not table.isdigit() else table,
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
    from dealer.app.release import release

    key, unused = _ticked(form, "key"), _ticked(form, "unused")
    set_number = _number(form, "set", required=False)
    if (set_number is None) == (not key):
        raise UserError("console.set_or_key", field="set")
    if unused and key:
        raise UserError("site.unused_needs_set", field="unused")

    def use(s: EventSession) -> live.Outcome:
        outcome = release(s, None if key else set_number, _one(form, "reason"), entered_by=who,
                          accept_missing=_ticked(form, "accept_missing"), unused=unused)
        return live.phrase_outcome("release", outcome.phrase())
    return use


def _pair(form: dict[str, list[str]], who: str) -> Use:
    """``dealer round pair --round N`` for the next round; refused while the round before has
    results not confirmed or open flags, unless forced with a reason."""
    from dealer.app.rounds import pair_round

    force, reason = _ticked(form, "force"), _one(form, "reason")
    if force and not reason:
        raise live.LiveRefused("console.force_needs_reason", 400)

    def use(s: EventSession) -> live.Outcome:
        number = live.next_round_number(s)
        pending = live.round_pending(s, number - 1) if number > 1 else live.Pending(0, 0)
        if pending and not force:
            raise live.LiveRefused("console.round_pending", 409, round=number - 1,
                                   unconfirmed=pending.unconfirmed, flags=pending.flags)
        declared, lots = s.declared, None
        if number == 1 and declared.format.kind == "swiss" and declared.format.first_round == "lots":
            lots = s.folder.read_key(declared, None)
        view, stored = pair_round(s, number, accept_warnings=_ticked(form, "accept_warnings"),
                                  allow_incomplete=force, key=lots, entered_by=who)
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


#: action → (its use case from the form, whether the session is reopened after it).
ACTIONS: dict[str, tuple[Callable[[dict[str, list[str]], str], Use], bool]] = {
    "unlock": (_unlock, False), "clear-flag": (_clear_flag, False), "correct": (_correct, True),
    "forfeit": (_forfeit, True), "late": (_late, True), "penalty": (_penalty, True), "lineup": (_lineup, True),
    "release": (_release, True), "pair": (_pair, True),
}


async def action(server: Server, request: Request, lang: str, who: str) -> Response:
    from dealer.serve.web import _error_status, form_of, render, wants_json
    from dealer.serve.web import refused as refused_page

    name = request.path_params["action"]
    form = await form_of(request)
    nonce = _one(form, "nonce")
    back = whole_number_or_none(_one(form, "back") or _one(form, "round"))  # the round the console shows
    back = back if back is not None and back >= 1 else None
    state = server.live
    try:
        live.check_nonce(state.key, nonce)
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
            context = await state.run(lambda s: console_context(s, state.key, back, lang, who))
        except UserError:
            return refused_page(request, error, lang)
        w = words(lang)
        context["refusal"] = {
            "action": name,
            "message": w.text(error.key, error.params) if not isinstance(error, Rejected)
            else w.message(error).split("\n")[0],
            "problems": [p.text(w) for p in error.problems] if isinstance(error, Rejected) else []}
        return render("console.html", context, lang, _error_status(error), q=_query(lang))
    message = words(lang).text(outcome.key, outcome.params)
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


async def _reprint(server: Server, form: dict[str, list[str]], lang: str, who: str, nonce: str) -> live.Outcome:
    """Revoke a sheet (:func:`dealer.app.live.revoke`, with the reason) and render its new score
    sheet as ``dealer print score-sheets`` does (the same planning, then only this table's page)."""
    from dealer.render import plan_documents

    state = server.live
    reason = _one(form, "reason")
    async with _lock(server):
        done = await state.run(lambda s: live.outcome_of(s, nonce))
        if done is not None:
            return dataclasses.replace(done, repeated=True)

        def revoke_and_plan(s: EventSession) -> tuple[live.Outcome, Document]:
            sheet = _sheet(s, form)
            if not reason:
                raise UserError("results.correction_needs_reason", field="reason")
            kind = "score-sheets"
            sid = sheet.id
            options = _options(server, lang, round=sid.round, sets=None if s.event.levels else (sheet.match.set,))
            plan = plan_documents(s, kind, options)  # refused here, before the sheet is revoked
            made = live.revoke(s, sheet, reason, who)
            plan = plan_documents(s, kind, options)  # again: the new generation's sheet
            doc = plan.documents[0]
            pages = [p for p in doc.pages if str(p.get("match")) == sid.match and str(p.get("table")) == sid.table]
            name = f"score-sheet-round-{sid.round:02d}-match-{sid.match}-{sid.table}-g{made}-{lang}.pdf"
            doc = dataclasses.replace(doc, path=doc.path.parent / name, pages=pages or doc.pages,
                                      units={"score sheets": 1})
            return live.Outcome("reprint", "console.reprinted", {"round": sid.round, "match": sid.match,
                                                                 "table": sid.table, "generation": made,
                                                                 "file": name}), doc

        outcome, doc = await state.run(revoke_and_plan, wrote=True)
        await _render([doc])
        return await state.run(lambda s: live.director_once(s, nonce, who, "reprint", lambda _s: outcome,
                                                            (outcome.params["round"], outcome.params["match"],
                                                             outcome.params["table"])))


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
