"""The live pages (standings, a round's results, a team's match), from the static site's page
contexts, each with its JSON twin, woken by the server-sent events of :meth:`Server.events`.

They are the players' site's own pages (:mod:`dealer.site`): the same public read model
(:func:`dealer.app.public.published`: the audited report as players may see it, the released sets
only; live drafts never, only stored results), the same page plan
(:func:`dealer.site.pages.plan_pages`), contexts and templates
(:meth:`dealer.site.render.PageRender.page_context` and ``page_html``), rendered with a live frame:
the time of their data, a refresh every 30 s inside ``<noscript>``, and ``live.js``, which on
each ``changed`` event fetches the page again and swaps its content.

``/live/standings``, ``/live/round/{n}``, ``/live/match/{round}/{match}`` and, by its static name,
every other page the three link to (a team's, a released board's, the home page, the
cross-table or bracket) at ``/live/{name}.html``; each with ``.json`` for its twin (its context,
as the static site's twin, and ``live``: ``version``, ``data_time``, ``data_time_text``);
Chinese, English with ``?lang=en``. The templates make their links with :class:`LiveUrls`, which
gives these addresses.

What is built (the report, the plan, each page's context) is kept until the next write
(:attr:`dealer.serve.app.Live.version`): one rebuild per change, not per request.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from dealer.app import live
from dealer.app.live import now
from dealer.app.public import published
from dealer.errors import UserError
from dealer.render.strings import LANGS
from dealer.serve.web import words
from dealer.site.pages import plan_pages, site_data
from dealer.site.render import Addresses, PageRender, page_render, site_templates
from dealer.words import local_time

if TYPE_CHECKING:
    from dealer.app import AuditMark
    from dealer.app.session import EventSession
    from dealer.serve.app import Server
    from dealer.site.pages import SiteData

#: The kinds of site page served live: those the three live pages link to. Not the downloads
#: and the verification page (they name files the server does not serve).
LIVE_KINDS = frozenset({"home", "standings", "cross-table", "bracket", "round", "match", "team", "board"})
ASSETS = {"site.css": "text/css; charset=utf-8", "site.js": "text/javascript; charset=utf-8"}
ROOT = "/live/"


def with_lang(url: str, lang: str) -> str:
    return url + ("?lang=en" if lang == "en" else "")


class LiveUrls:
    """The live pages' addresses in ``lang`` (:class:`dealer.site.render.PageUrls`): the three
    live pages at their own (``/live/standings``, ``/live/round/2``, ``/live/match/2/1``), every
    other page by its static name (``/live/team-t1.html``), the site's files under ``/live/``
    (its assets); English with ``?lang=en``."""

    def __init__(self, site: SiteData, lang: str) -> None:
        self.lang = lang
        self._own: dict[str, str] = {"standings": f"{ROOT}standings"}
        for rnd in site.event.rounds:
            self._own[f"round-{rnd.number}"] = f"{ROOT}round/{rnd.number}"
        for (round_number, match), name in site.match_page.items():
            self._own[name] = f"{ROOT}match/{round_number}/{urllib.parse.quote(match, safe='')}"
        self.page = Addresses(lambda name: with_lang(self._address(name), lang))
        self.file = Addresses(lambda path: f"{ROOT}{path}")

    def _address(self, name: str) -> str:
        return self._own.get(name) or f"{ROOT}{name}.html"

    def twin(self, name: str, per_lang: bool) -> str:
        # A page whose data holds no words has one twin for both languages, as in the static site.
        return self._address(name).removesuffix(".html") + ".json" + ("?lang=en" if per_lang and self.lang == "en"
                                                                      else "")

    def other_lang(self, name: str) -> str:
        return with_lang(self._address(name), "en" if self.lang == "zh" else "zh")


@dataclass
class Built:
    """The site's pages as of one :attr:`~dealer.serve.app.Live.version` of the data."""

    version: int
    render: PageRender
    index: dict[str, int]  #: served page name → its index in the plan
    urls: dict[str, LiveUrls]  #: language → the pages' addresses
    audited: AuditMark | None  #: where the audit of the results chain stopped
    contexts: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)

    @property
    def site(self) -> SiteData:
        return self.render.site


class LivePages:
    """The live pages of one server: what is built, kept by data version."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self._built: Built | None = None

    def current(self, session: EventSession) -> Built:
        """The pages as of the data now (on the database thread, after its check for another
        process's writes): the kept ones while no write came since."""
        state = self.server.live
        built = self._built
        if built is not None and built.version == state.version:
            return built
        version = state.version
        shown = published(session, built.audited if built is not None else None)
        site = site_data(shown, {}, [])  # no verification, no downloads
        if built is not None:
            site.rank_cache = built.site.rank_cache  # only the rounds whose results changed ranked anew
        pages = plan_pages(site)
        render = page_render(site, pages)
        index = {p.name: i for i, p in enumerate(pages) if p.template.removesuffix(".html") in LIVE_KINDS}
        self._built = Built(version, render, index, {lang: LiveUrls(site, lang) for lang in LANGS},
                            shown.scores.audited)
        return self._built

    def answer(self, session: EventSession, name_of: Callable[[SiteData], str | None], lang: str,
               twin: bool) -> tuple[str, bytes] | None:
        """The page ``name_of(site)`` names (``None``: none such) as HTML or as its twin; ``None``
        if it is not a live page."""
        built = self.current(session)
        name = name_of(built.site)
        index = built.index.get(name) if name is not None else None
        if index is None:
            return None
        render = built.render
        page = render.pages[index]
        key = (page.name, lang if page.per_lang else "")
        context = built.contexts.get(key)
        if context is None:
            context = built.contexts[key] = render.page_context(index, lang, page.build(render.strings[lang]))
        stamp = now()  # the data is the database's as of now: no write came since it was read
        frame = {"version": built.version, "data_time": stamp,
                 "data_time_text": local_time(stamp, built.site.event.timezone)}
        if twin:
            return "application/json", built.site.twin_json({**context, "live": frame})
        html = render.page_html(index, lang, context, built.urls[lang], live=frame)
        return "text/html; charset=utf-8", html.encode("utf-8")

    async def serve(self, request: Request, name_of: Callable[[SiteData], str | None], what: str) -> Response:
        """Answer ``request`` with the page ``name_of(site)`` names, or its twin (``.json``);
        ``what``: the page asked for, for a refusal."""
        from dealer.serve.web import lang_of, refused

        lang = lang_of(request)
        twin = request.url.path.endswith(".json")
        try:
            found = await self.server.live.run(lambda s: self.answer(s, name_of, lang, twin))
        except UserError as error:
            return refused(request, error, lang)
        if found is None:
            missing = live.LiveRefused("serve.no_such_page", 404, page=what)
            if twin:
                return JSONResponse({"ok": False, "status": 404, "key": missing.key,
                                     "message": words(lang).text(missing.key, missing.params)}, status_code=404)
            return refused(request, missing, lang)
        media, body = found
        return Response(body, media_type=media)

    # --- the routes -----------------------------------------------------------------------

    async def standings(self, request: Request) -> Response:
        return await self.serve(request, lambda site: "standings", "standings")

    async def round(self, request: Request) -> Response:
        number = request.path_params["n"]
        return await self.serve(request, lambda site: f"round-{number}" if site.event.round(number) else None,
                                f"round/{number}")

    async def match(self, request: Request) -> Response:
        number, match = request.path_params["round"], request.path_params["match"]
        return await self.serve(request, lambda site: site.match_page.get((number, match)),
                                f"match/{number}/{match}")

    async def by_name(self, request: Request) -> Response:
        name = request.path_params["name"]
        return await self.serve(request, lambda site: name, name)

    async def asset(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in ASSETS:
            return Response(status_code=404)
        return Response((site_templates() / "assets" / name).read_bytes(), media_type=ASSETS[name])


def routes(server: Server) -> list[Route]:
    pages = LivePages(server)
    return [
        Route("/live/standings", pages.standings),
        Route("/live/standings.json", pages.standings),
        Route("/live/round/{n:int}", pages.round),
        Route("/live/round/{n:int}.json", pages.round),
        Route("/live/match/{round:int}/{match}.json", pages.match),
        Route("/live/match/{round:int}/{match}", pages.match),
        Route("/live/assets/{name}", pages.asset),
        Route("/live/{name}.html", pages.by_name),
        Route("/live/{name}.json", pages.by_name),
    ]
