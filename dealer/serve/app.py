"""``dealer serve``: the third face of the use cases (after the command line and the static site), an
ASGI application on Starlette (docs/serve.md).

One process and one SQLite connection: every use case runs on one database thread
(:class:`Live`), in order, as datasette runs its writes; the event loop only parses requests,
renders pages from the one Jinja environment and holds the live pages' streams. Pages are
server-rendered forms that work with JavaScript off; a little script keeps typed values and
posts without leaving the page.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import sqlite3
import sys
import threading
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from dealer.app import live
from dealer.app.kinds import TYPED_FIELDS
from dealer.app.live import new_director_link as new_director_link  # the command line's, the tests'
from dealer.app.live import now
from dealer.app.session import EventSession
from dealer.errors import Rejected, UserError
from dealer.formats.entry import EntryUrlError, SheetId, entry_path, parse_entry_path
from dealer.resources import templates_dir
from dealer.serve import pages
from dealer.serve.security import Guard, RateLimit, allowed_hosts
from dealer.serve.web import (
    DIRECTOR_COOKIE,
    ClientGone,
    _error_status,
    device_of,
    error_text,
    form_of,
    lang_of,
    one,
    page_words,
    refusal_page,
    refused,
    render,
    wants_json,
    with_device,
    words,
)

T = TypeVar("T")
STATIC = {"serve.css": "text/css; charset=utf-8", "table.js": "text/javascript; charset=utf-8",
          "live.js": "text/javascript; charset=utf-8", "refresh.js": "text/javascript; charset=utf-8"}
#: A live page's stream tells of changes at most this often (seconds): the writes of a busy round
#: make one event, not one each. Without it every entry woke every open stream: 240 streams cut
#: the entry rate of tests/test_serve_load.py by more than half, and each page would fetch its
#: JSON twin once a write.
EVENTS_EVERY_S = 1.0


class Live:
    """The event's one session, used from one database thread; reopened when another process
    (the command line) changed the database, or after a use case that changes the rounds."""

    def __init__(self, event_file: str | Path, boards_root: str | Path | None = None, *,
                 double_entry: bool = False) -> None:
        self.event_file = event_file
        self.boards_root = boards_root
        self._double_entry = double_entry
        self.executor = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="dealer-db")
        self.session: EventSession
        self.key: bytes
        self.version = 0  #: bumped after every write: the live pages' streams wake on it
        self.changed: asyncio.Event | None = None
        self._data_version: int | None = None
        #: The phones' writes waiting for the database thread (:meth:`write`), and whether a
        #: drain of them is already on its way there.
        self._queued: list[tuple[Callable[[EventSession], Any], asyncio.Future[Any]]] = []
        self._queue_lock = threading.Lock()
        self._drain_due = False
        self.executor.submit(self._open).result()

    def _open(self) -> None:
        session = EventSession.open(self.event_file, self.boards_root, write=True)
        try:
            session.writable_store()
            key = session.folder.entry_key(create=True)
            assert key is not None
        except BaseException:
            session.close()
            raise
        if getattr(self, "session", None) is not None:
            self.session.close()
        self.session, self.key = session, key
        self._data_version = self._read_data_version()

    @property
    def double_entry(self) -> bool:
        """Whether a second matching entry confirms (``--double-entry`` or the event's
        ``live_confirmation``) instead of the other side's team code."""
        return self._double_entry or self.session.event.live_confirmation == "double-entry"

    def _read_data_version(self) -> int | None:
        store = self.session.store
        return None if store is None else store.data_version()

    def _fresh(self) -> None:
        if self._read_data_version() != self._data_version:  # another process wrote
            self._open()
            self.version += 1

    async def run(self, use: Callable[[EventSession], T], *, reopen: bool = False, wrote: bool = False) -> T:
        """Run ``use(session)`` on the database thread; ``reopen``: the event as played changed."""
        def call() -> T:
            self._fresh()
            try:
                return use(self.session)
            finally:
                if reopen:
                    self._open()
                elif wrote:  # what the session read before is stale; a read queued after sees it
                    self.session.forget()
                if wrote:
                    self.version += 1
        result = await asyncio.get_running_loop().run_in_executor(self.executor, call)
        if wrote:
            self._wake()
        return result

    @property
    def queued(self) -> int:
        """Writes waiting for the next batch."""
        with self._queue_lock:
            return len(self._queued)

    async def write(self, use: Callable[[EventSession], T]) -> T:
        """Run a phone's write ``use(session)`` on the database thread, committed with the others
        that queued meanwhile (group commit: the writes that arrive while one COMMIT's fsync runs
        share the next). Each runs in its own savepoint, so a refused one rolls back alone; it is
        answered only after the COMMIT. A COMMIT that fails stores none of them and answers each
        :func:`not_stored` (the phone sends it again with the same nonce)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        with self._queue_lock:
            self._queued.append((use, future))
            due, self._drain_due = self._drain_due, True
        if not due:
            loop.run_in_executor(self.executor, self._drain, loop)
        try:
            return await future
        finally:
            self._wake()

    def _drain(self, loop: asyncio.AbstractEventLoop) -> None:
        """On the database thread: every queued write, in one transaction."""
        with self._queue_lock:
            batch, self._queued = self._queued, []
            self._drain_due = False
        answers: list[tuple[asyncio.Future[Any], Any, BaseException | None]] = []
        began = False
        try:
            self._fresh()
            store = self.session.writable_store()
            with store.batch():
                began = True
                for use, future in batch:
                    try:
                        answers.append((future, use(self.session), None))
                    except Exception as refused_with:  # its answer; its savepoint is rolled back
                        answers.append((future, None, refused_with))
                    finally:
                        self.session.forget_results()
                    if not store.in_transaction:  # SQLite ended it (a full disk): store none
                        raise sqlite3.OperationalError("the batch's transaction ended before its COMMIT")
        except Exception as error:
            # Before the batch began (the database refused the write), each write gets that
            # refusal; once it began, nothing of it is stored: each phone is told to send again.
            if began:
                print(f"dealer serve: {len(batch)} write(s) not stored, the phones send them again: "
                      f"{error}", file=sys.stderr, flush=True)
                self.session.forget()  # what it read inside the batch may be what was rolled back
            answers = [(future, None, not_stored() if began else error) for _use, future in batch]
        finally:
            self.version += 1
        loop.call_soon_threadsafe(_settle, answers)  # the whole batch answered in one turn of the loop

    def touch(self) -> None:
        self.version += 1
        self._wake()

    def _wake(self) -> None:
        if self.changed is not None:
            self.changed.set()
            self.changed = asyncio.Event()

    def close(self) -> None:
        def shut() -> None:
            self.session.close()
        self.executor.submit(shut).result()
        self.executor.shutdown()


def not_stored() -> live.LiveRefused:
    """The answer to every write of a batch whose COMMIT failed: nothing of it was stored."""
    return live.LiveRefused("serve.not_stored", 503)


def _settle(answers: list[tuple[asyncio.Future[Any], Any, BaseException | None]]) -> None:
    for future, result, error in answers:
        if future.cancelled():
            continue  # its request is gone; what it did is stored (or not) all the same
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)


# --- the application -----------------------------------------------------------------------------


class Server:
    """The routes over one :class:`Live` session."""

    def __init__(self, state: Live, base_url: str) -> None:
        self.live = state
        self.base_url = base_url.rstrip("/")

    # --- the table ---------------------------------------------------------------------

    def _sheet_id(self, request: Request) -> tuple[SheetId, str]:
        p = request.path_params
        path = "/t/SJE1/{event}/{round}/{match}/{table}/{generation}/{tag}".format(**p)
        return parse_entry_path(path)

    async def _authorised(self, request: Request) -> live.Sheet:
        sheet_id, tag = self._sheet_id(request)
        return await self.live.run(lambda s: live.authorise(s, self.live.key, sheet_id, tag))

    def sheet_url(self, sheet: live.Sheet | SheetId, lang: str, said: str | None = None) -> str:
        from dealer.formats.entry import sheet_tag

        sheet_id = sheet.id if isinstance(sheet, live.Sheet) else sheet
        path = entry_path(sheet_id, sheet_tag(self.live.key, sheet_id))
        query = {k: v for k, v in (("lang", lang if lang != "zh" else None), ("said", said)) if v}
        return path + ("?" + urllib.parse.urlencode(query) if query else "")

    async def table(self, request: Request) -> Response:
        lang = lang_of(request)
        device, new = device_of(request)
        try:
            sheet = await self._authorised(request)
            context = await self.live.run(lambda s: self._table_context(s, sheet, device, lang))
        except (UserError, EntryUrlError) as error:
            return with_device(refused(request, error, lang), device, new)
        said = request.query_params.get("said")
        if said:
            context["said"] = await self.live.run(lambda s: self._said(s, sheet, said, lang))
        if request.url.path.endswith(".json") or wants_json(request):
            context.pop("nonces", None)
            context.pop("dispute_nonces", None)
            return with_device(JSONResponse(context), device, new)
        return with_device(render("table.html", context, lang, url=self.sheet_url(sheet, lang)), device, new)

    def _table_context(self, session: EventSession, sheet: live.Sheet, device: live.Device,
                       lang: str) -> dict[str, Any]:
        live.seen(session, sheet, device)
        context = pages.table_page(session, self.live.key, sheet, device, page_words(lang),
                                   double_entry=self.live.double_entry)
        key = self.live.key

        def nonce(form: str) -> str:
            return live.new_nonce(key, live.sheet_form(sheet.id, form))
        context["nonces"] = {**{slot: nonce(f"enter/{slot}") for slot in sheet.slots}, "confirm": nonce("confirm"),
                             "recap-scorer": nonce("recap/scorer"), "recap-confirmer": nonce("recap/confirmer")}
        context["dispute_nonces"] = {slot: nonce(f"dispute/{slot}") for slot in sheet.slots}
        closed = context["closed_reason"]
        context["closed_reason"] = None if closed is None else words(lang).text(closed.key, closed.params)
        context["lang"] = lang
        context["version"] = self.live.version  # what refresh.js compares the stream's events with
        context["said"] = None
        context["refusal"] = None
        return context

    def _said(self, session: EventSession, sheet: live.Sheet, nonce: str, lang: str) -> str | None:
        """What the request of ``nonce`` did, for the page it redirected to: only a nonce of this
        sheet's own forms (another sheet's outcome is not this page's to tell)."""
        if not any(live.nonce_for(self.live.key, nonce, live.sheet_form(sheet.id, form))
                   for form in live.sheet_forms(sheet)):
            return None
        outcome = live.outcome_of(session, nonce)
        return None if outcome is None else words(lang).text(outcome.key, outcome.params)

    async def table_post(self, request: Request) -> Response:
        lang = lang_of(request)
        device, new = device_of(request)
        action = request.path_params["action"]
        form = await form_of(request)
        nonce = one(form, "nonce")
        try:
            sheet_id, tag = self._sheet_id(request)
            key = self.live.key
            typed = {name: one(form, name) for name in form}
            act: Callable[[EventSession, live.Sheet], live.Outcome]
            if action == "enter":
                slot = one(form, "slot")
                name = f"enter/{slot}"
                act = lambda s, sheet: live.enter(s, sheet, slot, typed, device, nonce,  # noqa: E731
                                                  double_entry=self.live.double_entry)
            elif action == "confirm":
                chosen = form.get("slots") or None
                name = "confirm"
                act = lambda s, sheet: live.confirm(s, key, sheet, chosen, one(form, "code"), device,  # noqa: E731
                                                    nonce)
            elif action == "dispute":
                name = f"dispute/{one(form, 'slot')}"
                act = lambda s, sheet: live.dispute(s, key, sheet, one(form, "slot"), typed,  # noqa: E731
                                                    one(form, "code"), device, nonce)
            elif action == "recap":
                name = f"recap/{one(form, 'side')}"
                act = lambda s, sheet: live.confirm_recap(s, key, sheet, one(form, "side"),  # noqa: E731
                                                          one(form, "code"), device, nonce)
            else:
                return refused(request, live.LiveRefused("serve.no_such_action", 404), lang)

            def use(s: EventSession) -> live.Outcome:
                # authorised on the database thread, in the write's own turn: one trip there an entry
                sheet = live.authorise(s, key, sheet_id, tag)
                live.check_nonce(key, nonce, live.sheet_form(sheet.id, name))
                return act(s, sheet)
            outcome = await self.live.write(use)
        except (UserError, EntryUrlError) as error:
            if isinstance(error, Rejected | live.LiveRefused) and not wants_json(request):
                # the table's page again, with the refusal and what was typed
                try:
                    sheet = await self._authorised(request)
                except (UserError, EntryUrlError):
                    return with_device(refused(request, error, lang), device, new)
                context = await self.live.run(lambda s: self._table_context(s, sheet, device, lang))
                message, problems = error_text(error, lang)
                context["refusal"] = {
                    "slot": one(form, "slot"), "message": "" if isinstance(error, Rejected) else message,
                    "problems": problems,
                    "typed": {k: one(form, k) for k in TYPED_FIELDS}}
                return with_device(render("table.html", context, lang, _error_status(error),
                                          url=self.sheet_url(sheet, lang)), device, new)
            return with_device(refused(request, error, lang), device, new)
        phrase = words(lang).text(outcome.key, outcome.params)
        if wants_json(request):
            return with_device(JSONResponse({"ok": True, "action": outcome.action, "message": phrase,
                                             "repeated": outcome.repeated}), device, new)
        return with_device(RedirectResponse(self.sheet_url(sheet_id, lang, said=nonce), status_code=303), device, new)

    async def sheet_events(self, request: Request) -> Response:
        """The table page's own stream: ``changed`` when what its page shows changed (an entry, the
        other side's confirmation or dispute, the other table's result, a director's unlock,
        correction or reprint), at most once in :data:`EVENTS_EVERY_S`; only to a URL that opens
        the sheet."""
        try:
            sheet = await self._authorised(request)
        except (UserError, EntryUrlError) as error:
            return refused(request, error, lang_of(request))
        state = self.live

        async def stamp() -> Any:
            return await state.run(lambda s: live.sheet_stamp(s, sheet))

        return self._stream(request, stamp)

    def _stream(self, request: Request, stamp: Callable[[], Any] | None = None) -> Response:
        """Server-sent events: ``changed`` after a write (``stamp``: only when what it stamps
        changed), at most one in :data:`EVENTS_EVERY_S`; every 15 s a comment, to keep the
        connection."""
        state = self.live
        if state.changed is None:
            state.changed = asyncio.Event()

        async def stream() -> Any:
            seen = state.version
            marked = await stamp() if stamp is not None else None
            yield f"retry: 3000\nevent: changed\ndata: {seen}\n\n"
            while True:
                if state.version == seen:
                    changed = state.changed
                    assert changed is not None
                    try:
                        await asyncio.wait_for(changed.wait(), 15)
                    except TimeoutError:
                        if await request.is_disconnected():
                            return
                        yield ": keep-alive\n\n"
                    continue
                seen = state.version
                if stamp is not None:
                    now_marked = await stamp()
                    if now_marked == marked:
                        continue
                    marked = now_marked
                yield f"event: changed\ndata: {seen}\n\n"
                await asyncio.sleep(EVENTS_EVERY_S)  # the writes meanwhile make one event, after it

        return StreamingResponse(stream(), media_type="text/event-stream")

    # --- the home page and the fallback code ----------------------------------------------------

    async def home(self, request: Request) -> Response:
        lang = lang_of(request)
        context = await self.live.run(lambda s: {"event": {"id": s.event.id, "name": s.event.name},
                                                 "round": live.open_round(s),
                                                 "nonce": live.new_nonce(self.live.key, "code")})
        return render("home.html", context, lang)

    async def code(self, request: Request) -> Response:
        lang = lang_of(request)
        form = await form_of(request)
        try:
            live.check_nonce(self.live.key, one(form, "nonce"), "code")
            sheet, _tag = await self.live.run(lambda s: live.sheet_by_code(s, self.live.key, one(form, "code")))
        except UserError as error:
            return refused(request, error, lang)
        return RedirectResponse(self.sheet_url(sheet, lang), status_code=303)

    # --- the director ----------------------------------------------------------------------

    async def login(self, request: Request) -> Response:
        lang = lang_of(request)
        token = request.query_params.get("token", "")
        client = request.client
        try:
            session_token = await self.live.run(lambda s: live.use_director_link(
                s, token, client.host if client else None, request.headers.get("user-agent")))
        except UserError as error:
            return refused(request, error, lang)
        response = RedirectResponse("/-/console" + ("?lang=en" if lang == "en" else ""), status_code=303)
        response.set_cookie(DIRECTOR_COOKIE, session_token, max_age=live.DIRECTOR_HOURS * 3600, httponly=True,
                            samesite="strict", path="/")
        return response

    async def director(self, request: Request) -> str | None:
        """The director's session of the request (its cookie), or ``None``."""
        token = request.cookies.get(DIRECTOR_COOKIE)
        if not token:
            return None
        return await self.live.run(lambda s: live.director_of(s, token))

    async def console(self, request: Request) -> Response:
        lang = lang_of(request)
        who = await self.director(request)
        if who is None:
            return refused(request, live.LiveRefused("serve.director_only", 403), lang)
        from dealer.serve import console

        return await console.page(self, request, lang, who)

    async def console_post(self, request: Request) -> Response:
        lang = lang_of(request)
        who = await self.director(request)
        if who is None:
            return refused(request, live.LiveRefused("serve.director_only", 403), lang)
        from dealer.serve import console

        return await console.action(self, request, lang, who)

    async def console_get(self, request: Request) -> Response:
        """The console's printable pages and downloads (``/-/console/missing``, ``/-/console/file``)."""
        lang = lang_of(request)
        who = await self.director(request)
        if who is None:
            return refused(request, live.LiveRefused("serve.director_only", 403), lang)
        from dealer.serve import console

        return await console.view(self, request, lang, who)

    # --- live pages --------------------------------------------------------------------------

    async def events(self, request: Request) -> Response:
        """Server-sent events: ``changed`` after a write, for the live pages and the console to
        fetch their page again (:meth:`_stream`)."""
        return self._stream(request)

    async def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return Response(status_code=404)
        return Response((templates_dir() / "serve" / "static" / name).read_bytes(), media_type=STATIC[name])

    async def health(self, request: Request) -> Response:
        version = await self.live.run(lambda s: s.event.id)
        return JSONResponse({"ok": True, "event": version, "time": now()})

    async def data_version_watch(self) -> None:
        """Wake the live pages when another process (the command line) writes."""
        while True:
            await asyncio.sleep(2)
            before = self.live.version
            await self.live.run(lambda s: None)
            if self.live.version != before:
                self.live.touch()


def create_app(state: Live, host: str, port: int, *, base_url: str | None = None,
               rate: RateLimit | None = None) -> Guard:
    """The application for ``state``, bound at ``host``:``port`` (its Host allow-list)."""
    server = Server(state, base_url or f"http://{host}:{port}")
    sheet = "/t/SJE1/{event}/{round}/{match}/{table}/{generation}/{tag}"
    routes = [
        Route("/", server.home),
        Route("/code", server.code, methods=["POST"]),
        Route(sheet, server.table),
        Route(sheet + "/state.json", server.table),
        Route(sheet + "/events", server.sheet_events),
        Route(sheet + "/{action}", server.table_post, methods=["POST"]),
        Route("/-/login", server.login),
        Route("/-/console", server.console),
        Route("/-/console.json", server.console),
        Route("/-/console/{action}", server.console_post, methods=["POST"]),
        Route("/-/console/{view}", server.console_get),
        Route("/-/events", server.events),
        Route("/-/static/{name}", server.static),
        Route("/-/health", server.health),
    ]
    from dealer.serve import livepages

    routes.extend(livepages.routes(server))

    async def watch() -> Any:
        task = asyncio.get_running_loop().create_task(server.data_version_watch())
        try:
            yield
        finally:
            task.cancel()

    import contextlib

    async def gone(request: Request, error: Exception) -> Response:
        return Response(status_code=400)  # nobody is left to read it

    async def refuse(request: Request, error: Exception) -> Response:
        assert isinstance(error, UserError)
        return refused(request, error, lang_of(request))

    # An expected failure a route did not answer itself (a form too large to read) is refused
    # in words, never a 500; a client gone mid-body needs no answer and no traceback.
    handlers: dict[Any, Callable[[Request, Exception], Any]] = {ClientGone: gone, UserError: refuse}
    app = Starlette(routes=routes, exception_handlers=handlers,
                    lifespan=contextlib.asynccontextmanager(lambda _app: watch()))
    app.state.server = server
    return Guard(app, allowed_hosts(host, port), rate or RateLimit(), refusal_page)
