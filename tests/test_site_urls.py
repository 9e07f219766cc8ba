"""One way to address a page: the site's templates ask the ``urls`` they are given for every
link (:mod:`dealer.site.render`), the static site's make relative file names, the live pages'
their ``/live/`` addresses; the live pages are rendered so, never rewritten, and carry no inline
script (the server's Content-Security-Policy runs none)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from conftest import demo_event, release_of, site_of
from serve_support import served

from dealer.app import EventSession
from dealer.app.dealing import deal_event
from dealer.app.result_files import import_file
from dealer.resources import demo_event_text
from dealer.site.render import FileUrls, lang_dirs, site_templates
from dealer.store.folder import EventFolder

SAMPLE = Path(__file__).resolve().parents[1] / "dealer" / "data" / "sample-travellers.csv"


def test_every_link_of_the_sites_templates_is_made_by_the_urls_object() -> None:
    # A link or a script's address is an expression (``urls.page[…]``, ``urls.file[…]``, the
    # page's own ``twin`` and ``other_href``), a place on the page, or the server's live.js.
    literal = re.compile(r'\b(?:href|src)="(?!\{\{ |#|data:,"|/-/static/live\.js")([^"]*)"')
    texts = {path.name: path.read_text(encoding="utf-8") for path in sorted(site_templates().glob("*.html"))}
    assert {name: literal.findall(text) for name, text in texts.items() if literal.search(text)} == {}
    assert [name for name, text in texts.items() if re.search(r"\{\{ *root\b", text)] == []


def test_the_static_sites_urls_are_relative_file_names_from_either_language() -> None:
    zh, en = FileUrls("zh", lang_dirs("zh")), FileUrls("en", lang_dirs("zh"))
    assert zh.page["round-2"] == en.page["round-2"] == "round-2.html"  # beside the page in its folder
    assert (zh.file["assets/site.css"], en.file["assets/site.css"]) == ("assets/site.css", "../assets/site.css")
    assert (zh.other_lang("standings"), en.other_lang("standings")) == ("en/standings.html", "../standings.html")
    # One twin at the root for a page without words; a board's, with words, in each language.
    assert (zh.twin("standings", False), en.twin("standings", False)) == ("standings.json", "../standings.json")
    assert en.twin("board-1-1", True) == "board-1-1.json"
    english_root = FileUrls("zh", lang_dirs("en"))  # `dealer site --lang en`: Chinese under zh/
    assert (english_root.file["assets/site.js"], english_root.other_lang("index")) == ("../assets/site.js",
                                                                                       "../index.html")


def test_the_live_pages_link_to_live_addresses_and_run_no_inline_script(tmp_path: Path) -> None:
    event = demo_event()
    folder = EventFolder(event.id, tmp_path / "boards", tmp_path / "output")
    deal_event(event, folder)
    event_file = tmp_path / "demo.toml"
    event_file.write_text(demo_event_text(), encoding="utf-8")
    with EventSession.open(event, folder, write=True) as session:
        import_file(session, SAMPLE)
    release_of(event, folder, 1, "round 1 played", entered_by="test")
    site_of(event, folder, pdf=False)
    static = (folder.output_path / "site" / "round-1.html").read_text(encoding="utf-8")
    assert ' onsubmit="return false"' in static and 'href="match-1-1.html"' in static

    async def pages() -> list[str]:
        with served(event_file, tmp_path / "boards") as server:
            async with server.client() as client:
                return [(await client.get(url)).text for url in
                        ("/live/round/1", "/live/round/1?lang=en", "/live/standings", "/live/board-1-1.html?lang=en")]

    shown = asyncio.run(pages())
    for html in shown:
        assert "onsubmit" not in html and "<script>" not in html
        links = re.findall(r'\b(?:href|src)="([^"#]*)"', html)
        assert links and all(link.startswith(("/live/", "/-/static/", "data:")) for link in links), links
    round_zh, round_en, _standings, board_en = shown
    assert 'href="/live/match/1/1"' in round_zh and 'href="/live/match/1/1?lang=en"' in round_en
    assert 'href="/live/round/1?lang=en"' in round_zh and 'href="/live/round/1.json"' in round_zh
    assert 'href="/live/board-1-2.html?lang=en"' in board_en and 'href="/live/board-1-1.json?lang=en"' in board_en
