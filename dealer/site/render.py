"""The site's pages rendered: :class:`PageRender` (one build's pages and how to render each in a
language) and the objects that make a page's addresses (:class:`PageUrls`).

A page's context (its JSON twin, :mod:`dealer.site.pages`) names the pages it links to by their
names (``round-2``, ``team-t1``); the templates ask the ``urls`` they are given for the address
of each: the static site's :class:`FileUrls` gives relative file names (``round-2.html``), the
live pages of ``dealer serve`` their own (:class:`dealer.serve.livepages.LiveUrls`:
``/live/round/2``). The same contexts and templates serve both; nothing is rewritten afterwards.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from dealer.event import Event
from dealer.explain import supplement_text
from dealer.render.strings import LANGS, strings
from dealer.render.templates import environment
from dealer.resources import package_folder, templates_dir

if TYPE_CHECKING:
    from dealer.site.pages import PlannedPage, SiteData

#: Where the site's templates are, in the templates folder (:func:`dealer.resources.templates_dir`).
SITE_TEMPLATES = "site/"
HTML_LANG = {"zh": "zh-Hans", "en": "en"}


def site_templates() -> Path:
    return templates_dir() / SITE_TEMPLATES


def lang_dirs(lang: str) -> dict[str, str]:
    """Where each language's pages go: ``lang`` at the root, every other in its own folder."""
    return {other: "" if other == lang else f"{other}/" for other in LANGS}


@functools.cache
def _templates_digest() -> bytes:
    """Templates, assets, the tool's code and data (scoring and standings decide what pages
    show): a change renders every page again."""
    h = hashlib.sha256()
    for root in (site_templates(), package_folder()):
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.suffix in (".html", ".css", ".js", ".py", ".svg", ".toml", ".json"):
                h.update(path.name.encode() + b"\x00" + path.read_bytes())
    h.update(json.dumps({lang: strings(lang) for lang in LANGS}, sort_keys=True, ensure_ascii=False).encode())
    return h.digest()


def file_key(*parts: object) -> str:
    """The key of a file of the site: a digest of what it is made from and of the templates and
    code (:func:`_templates_digest`); the manifest keeps it, a rebuild keeps a file whose key
    is unchanged."""
    h = hashlib.sha256(_templates_digest())
    for part in parts:
        h.update(part if isinstance(part, bytes) else repr(part).encode("utf-8"))
        h.update(b"\x00")
    return h.hexdigest()[:32]


# --- addresses ---------------------------------------------------------------------------------


class Addresses(dict[str, str]):
    """Name → address, each made on first asking by ``make`` and kept (a league's pages link
    the same few thousand pages some million times)."""

    def __init__(self, make: Callable[[str], str]) -> None:
        super().__init__()
        self._make = make

    def __missing__(self, name: str) -> str:
        address = self[name] = self._make(name)
        return address


class PageUrls(Protocol):
    """Where the links of a page in one language lead: what a template is given as ``urls``
    (``{{ urls.page['standings'] }}``, ``{{ urls.file['assets/site.css'] }}``), and what makes
    the page's own twin and other-language addresses."""

    #: A page of the site by its name (``round-2``) → its address.
    page: Addresses
    #: A file of the site by its path in the site's folder (``assets/site.css``) → its address.
    file: Addresses

    def twin(self, name: str, per_lang: bool) -> str:
        """The address of page ``name``'s JSON twin (``per_lang``: one twin per language)."""

    def other_lang(self, name: str) -> str:
        """The address of page ``name`` in the other language."""


class FileUrls:
    """The static site's addresses, from a page in the folder of ``lang`` (:func:`lang_dirs`):
    a page's file name beside it (``round-2.html``: every language's pages are in one folder),
    a file by its path from the site's root (``../assets/site.css`` under ``en/``)."""

    def __init__(self, lang: str, dirs: dict[str, str]) -> None:
        self.lang = lang
        self.dirs = dirs
        self.root = "../" if dirs[lang] else ""
        self.page = Addresses(lambda name: f"{name}.html")
        self.file = Addresses(lambda path: f"{self.root}{path}")

    def twin(self, name: str, per_lang: bool) -> str:
        # A page whose data holds no words has one JSON twin, at the root (both languages link it).
        return f"{name}.json" if per_lang or not self.dirs[self.lang] else f"{self.root}{name}.json"

    def other_lang(self, name: str) -> str:
        other = next(lang for lang in LANGS if lang != self.lang)
        return f"{self.root}{self.dirs[other]}{name}.html"


# --- the pages, rendered -----------------------------------------------------------------------


@dataclass
class PageRender:
    """One build's pages and how to render them (:func:`page_render`): read by the static build
    and the worker processes it forks (which inherit it), and by the live pages of ``dealer
    serve`` (one per version of the data)."""

    pages: Sequence[PlannedPage]
    site: SiteData
    dirs: dict[str, str]
    schema: int
    key_base: Any  # a hashlib object: the digest of what every page shows around its own data
    strings: dict[str, Any]
    event_head: dict[str, Any]
    nav: dict[str, Any]
    tie_break_names: dict[str, dict[str, str]]
    #: The rules in force, per language: the profile's id, version and name, and the event's own
    #: rules (补充规定) when it has any (every page's footer).
    rules_line: dict[str, str] = field(default_factory=dict)
    #: Table cells the same on many rows (:mod:`dealer.render.rows`), made once per process.
    cells: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    #: The static site's addresses, per language (:class:`FileUrls`).
    file_urls: dict[str, FileUrls] = field(init=False)

    def __post_init__(self) -> None:
        self.file_urls = {lang: FileUrls(lang, self.dirs) for lang in LANGS}

    def page_files(self, index: int, lang: str, built: dict[str, Any]) -> tuple[str, bytes, bytes]:
        """One page of the static site in one language: (name, HTML, JSON). ``built``: the page's
        own context."""
        context = self.page_context(index, lang, built)
        html = self.page_html(index, lang, context, self.file_urls[lang])
        return self.dirs[lang] + self.pages[index].name, html.encode("utf-8"), self.site.twin_json(context)

    def page_context(self, index: int, lang: str, built: dict[str, Any]) -> dict[str, Any]:
        """The context of a page (its JSON twin): the page's own (``built``) in the site's frame."""
        page = self.pages[index]
        return {"schema": self.schema, "kind": page.template.removesuffix(".html"), "name": page.name,
                **({"lang": lang} if page.per_lang else {}), "event": self.event_head, **built}

    def page_html(self, index: int, lang: str, context: dict[str, Any], urls: PageUrls,
                  live: dict[str, Any] | None = None) -> str:
        """A page's HTML from its context, its links made by ``urls``; ``live``: served by
        ``dealer serve`` (:mod:`dealer.serve.livepages`), ``None`` in the static site."""
        page = self.pages[index]
        t = self.strings[lang]
        return environment().get_template(SITE_TEMPLATES + page.template).render(
            c=context, t=t["site"], words=t, lang=lang, html_lang=HTML_LANG[lang], urls=urls,
            twin=urls.twin(page.name, page.per_lang), other_href=urls.other_lang(page.name), nav=self.nav,
            tb=self.tie_break_names[lang], cells=self.cells, rules_line=self.rules_line.get(lang, ""), live=live)

    def render_files(self, items: Sequence[tuple[int, tuple[str, ...]]]) -> list[tuple[str, str, bytes]]:
        """Render each (page, languages) of ``items`` (in a worker process, or here): its files
        as (name, key, bytes). One process writes them all: on the 2-core machine two processes
        creating files at once took 5 to 30 times as long per file as one."""
        files = []
        for index, langs in items:
            page = self.pages[index]
            page_key = self.page_key(page)
            shared: dict[str, Any] | None = None
            for lang in langs:
                if page.per_lang:
                    built = page.build(self.strings[lang])
                else:
                    if shared is None:
                        shared = page.build(self.strings[lang])
                    built = shared
                name, html, data = self.page_files(index, lang, built)
                key = f"{page_key}-{lang}"
                files.append((name + ".html", key, html))
                if page.per_lang or not self.dirs[lang]:
                    files.append((name + ".json", key, data))
        return files

    def page_key(self, page: PlannedPage) -> str:
        """A digest of what a page's files are made from: the templates and code, the header and
        links every page shows, its template and its own key (its files' keys add their language)."""
        h = self.key_base.copy()
        h.update(page.template.encode("utf-8") + b"\x00" + page.key)
        return str(h.hexdigest()[:32])


def page_render(site: SiteData, pages: Sequence[PlannedPage], lang: str = "zh") -> PageRender:
    """How the pages of ``site`` are rendered (``lang``: the language at the root)."""
    from dealer.site.pages import SCHEMA

    scheduled = site.event
    return PageRender(
        pages=pages, site=site, dirs=lang_dirs(lang), schema=SCHEMA,
        key_base=hashlib.sha256(bytes.fromhex(file_key(site.global_key()))),
        strings={code: strings(code) for code in LANGS},
        event_head={"id": scheduled.id, "name": scheduled.name, "date": scheduled.date,
                    "profile": scheduled.profile.id, "profile_version": scheduled.profile.version,
                    "supplement": {k: scheduled.profile.data.get(k) for k in scheduled.profile.supplement},
                    "format": scheduled.format.kind,
                    "result": scheduled.result, "teams": len(scheduled.teams),
                    "timezone": scheduled.timezone},
        nav={"bracket": site.knockout, "boards": bool(site.released), "levels": scheduled.levels,
             "rounds": [r.number for r in scheduled.rounds]},
        tie_break_names={code: _tie_break_names(scheduled, code) for code in LANGS},
        rules_line={code: _rules_line(scheduled, code) for code in LANGS})


def _rules_line(event: Event, lang: str) -> str:
    """The rules in force, as every page's footer says them (:attr:`PageRender.rules_line`)."""
    profile = event.profile
    line = f"{profile.id} v{profile.version} ({profile.name_zh if lang == 'zh' else profile.name_en})"
    if profile.supplement:
        line += f" · {strings(lang)['site']['supplement']}: {supplement_text(profile, lang)}"
    return line


def _tie_break_names(event: Event, lang: str) -> dict[str, str]:
    from dealer.explain import tie_break_name

    return {k: tie_break_name(k, lang) for k in event.profile.tie_breaks}
