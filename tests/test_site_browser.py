"""The players' site in a real browser: Debian's Chromium driven by Playwright for Python (never a
downloaded browser), over every page of the demo site (as `make demo` builds it) and of a
generated 16-team knockout and of a generated 8-team Swiss, served by Python's http.server on localhost and opened from file://.

One browser for the module, pages visited in a loop, each event built once."""

from __future__ import annotations

import functools
import http.server
import json
import shutil
import threading
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import run_dealer
from serve_support import CHROMIUM, launched_chromium
from site_support import demo_site, sixteen_team_site, swiss_site

from dealer.event import Event
from dealer.render.strings import strings
from dealer.store.folder import EventFolder

pytestmark = pytest.mark.slow  # a real browser over every page of three sites

# Without the background-networking flags Chromium keeps calling Google's services.
WIDTHS = (375, 1280)
HTML_LANG = {"": "zh-Hans", "en/": "en"}

if not Path(CHROMIUM).exists():  # `make test` installs it (browser-deps): a missing browser fails, never skips
    pytest.fail(f"Debian's chromium is not at {CHROMIUM}: run `make browser-deps` (apt-get install chromium)",
                pytrace=False)


class Site:
    def __init__(self, label: str, event: Event, folder: EventFolder, path: Path, url: str) -> None:
        self.label, self.event, self.folder, self.path, self.url = label, event, folder, path, url

    def pages(self) -> list[str]:
        """Every HTML page, relative to the site's root (Chinese at the root, English in en/)."""
        return sorted(str(p.relative_to(self.path)) for p in self.path.rglob("*.html"))


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Site]]:
    root = tmp_path_factory.mktemp("sites")
    built = [("demo", *demo_site(root / "demo")), ("cup16", *sixteen_team_site(root / "cup16")),
             ("swiss8", *swiss_site(root / "swiss8"))]
    served = root / "www"
    served.mkdir()
    for label, _event, _folder, path in built:
        (served / label).symlink_to(path)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             functools.partial(QuietHandler, directory=str(served)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    yield [Site(label, event, folder, path, f"{base}/{label}/") for label, event, folder, path in built]
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with launched_chromium() as chromium:
        yield chromium


class Watch:
    """What went wrong while a page loaded: console errors, page errors, failed requests, and any
    request that left the folder (the site must never reach outside it)."""

    def __init__(self, page: Any, allowed: str) -> None:
        self.problems: list[str] = []
        self.allowed = allowed
        page.on("console", lambda m: self.problems.append(f"console {m.type}: {m.text}")
                if m.type == "error" else None)
        page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        page.on("requestfailed", lambda r: self.problems.append(f"failed: {r.url} {r.failure}"))
        page.on("response", lambda r: self.problems.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)
        page.on("request", lambda r: None if r.url.startswith(allowed) or r.url.startswith("data:")
                else self.problems.append(f"outside request: {r.url}"))


def _links(page: Any) -> list[str]:
    return [link for link in page.eval_on_selector_all("a[href], link[href], script[src], img[src]",
                                                       "els => els.map(e => e.href || e.src)")
            if not link.startswith("data:")]


PAGE_FACTS = """() => ({
    lang: document.documentElement.lang,
    wide: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    links: Array.from(document.querySelectorAll("a[href], link[href], script[src], img[src]"))
        .map(e => e.href || e.src).filter(u => !u.startsWith("data:")),
})"""


def test_every_page_loads_without_errors_links_resolve_and_nothing_scrolls_sideways(sites: list[Site],
                                                                                    browser: Any) -> None:
    context = browser.new_context(viewport={"width": WIDTHS[0], "height": 800})
    tab = context.new_page()
    problems: list[str] = []
    for site in sites:
        watch = Watch(tab, site.url)
        pages = site.pages()
        assert len(pages) > 60, (site.label, len(pages))
        resolved: set[str] = set()
        for name in pages:
            watch.problems.clear()
            tab.goto(site.url + name, wait_until="load")
            for width in WIDTHS:  # the first is the one it loaded at; back to it after the others
                if width != WIDTHS[0]:
                    tab.set_viewport_size({"width": width, "height": 800})
                facts = tab.evaluate(PAGE_FACTS)
                if facts["wide"] > 0:
                    problems.append(f"{site.label}/{name}: scrolls sideways by {facts['wide']}px at {width}px")
            tab.set_viewport_size({"width": WIDTHS[0], "height": 800})
            problems += [f"{site.label}/{name}: {p}" for p in watch.problems]
            prefix = "en/" if name.startswith("en/") else ""
            if facts["lang"] != HTML_LANG[prefix]:
                problems.append(f"{site.label}/{name}: lang {facts['lang']!r}")
            for link in facts["links"]:
                if not link.startswith(site.url):
                    problems.append(f"{site.label}/{name}: a link outside the site: {link}")
                    continue
                target = urllib.parse.unquote(urllib.parse.urlsplit(link).path.removeprefix(
                    urllib.parse.urlsplit(site.url).path))
                if target not in resolved:
                    if not (site.path / target).is_file():
                        problems.append(f"{site.label}/{name}: broken link {link}")
                    resolved.add(target)
    context.close()
    assert not problems, "\n".join(problems[:40])


def test_pages_work_opened_from_file(sites: list[Site], browser: Any) -> None:
    """One page of each kind in each language, opened from the folder (file://): the styles and
    the script load, the links point at files there."""
    page = browser.new_page()
    problems: list[str] = []
    for site in sites:
        kinds: dict[str, str] = {}
        for name in site.pages():
            kinds.setdefault(("en/" if name.startswith("en/") else "") + name.split("/")[-1].split("-")[0], name)
        root = site.path.resolve().as_uri() + "/"
        watch = Watch(page, root)
        for name in kinds.values():
            watch.problems.clear()
            page.goto(root + name, wait_until="load")
            color = page.evaluate("getComputedStyle(document.querySelector('header.top')).backgroundColor")
            if color == "rgba(0, 0, 0, 0)":
                problems.append(f"{site.label}/{name}: the style sheet did not load from file://")
            for link in _links(page):
                path = urllib.parse.unquote(urllib.parse.urlsplit(link).path)
                if not link.startswith("file://") or not Path(path).is_file():
                    problems.append(f"{site.label}/{name}: {link} is not a file of the folder")
            problems += [f"{site.label}/{name}: {p}" for p in watch.problems]
    page.close()
    assert not problems, "\n".join(problems[:40])


def test_standings_shown_equal_report_json(sites: list[Site], browser: Any) -> None:
    page = browser.new_page()
    for site in sites:
        outcome = run_dealer("report", _event_file(site), "--json",
                             "--boards-dir", site.folder.boards_root)
        assert outcome.exit_code == 0, outcome.output
        expected = json.loads(outcome.stdout)["standings"]
        twin = json.loads((site.path / "standings.json").read_text(encoding="utf-8"))
        # The knockout's final is still being played: its standings are those after round 3 (by
        # its places then), not a ranking that counts the final's boards played so far.
        assert twin["standings_after"] == (3 if site.label == "cup16" else None)
        if twin["standings_after"] is not None:
            from conftest import report_of

            from dealer.standings import by_places

            data = report_of(site.event, site.folder)
            table = data.standings_after(twin["standings_after"])
            expected = [s.as_dict() for s in (table if data.places is None else by_places(table, data.places))]
        for prefix in ("", "en/"):
            page.goto(site.url + prefix + "standings.html")
            rows = page.eval_on_selector_all(
                "table.standings tbody tr",
                "rows => rows.map(r => [r.dataset.team, ...Array.from(r.children).map(c => c.textContent.trim())])")
            shown = [(team, cells[0].rstrip("="), int(cells[2]), int(cells[3]), int(cells[4]),
                      int(cells[5].split()[0]), int(cells[6].split()[0])) for team, *cells in rows]
            assert shown == [(s["team"], str(s["rank"]), s["match_points"], s["level_points_for"],
                              s["level_points_against"], s["net_level_points"], s["played"]) for s in expected]
        assert [{k: v for k, v in row.items() if k not in ("name", "page")} for row in twin["standings"]] == expected
    page.close()


def _event_file(site: Site) -> Path:
    """The event file as the director has it (the demo's and the generated one, written out)."""
    from site_support import EIGHT_TEAM_SWISS, SIXTEEN_TEAMS

    from dealer.resources import demo_event_text

    path = site.path.parent.parent.parent / f"{site.label}-event.toml"
    if not path.exists():
        text = {"demo": demo_event_text(), "cup16": SIXTEEN_TEAMS, "swiss8": EIGHT_TEAM_SWISS}[site.label]
        path.write_text(text, encoding="utf-8")
    return path


SHOWN_HANDS = """() => Object.fromEntries(["N", "E", "S", "W"].map(seat => [seat,
    Array.from(document.querySelectorAll(`.hand.seat-${seat} li`)).flatMap(li =>
        Array.from(li.querySelectorAll(".card")).map(c =>
            (li.classList.contains("jokers") ? "" : li.querySelector(".sym").textContent) + c.textContent))]))"""


def test_every_released_board_shows_the_dealt_hands(sites: list[Site], browser: Any) -> None:
    page = browser.new_page()
    checked = 0
    for site in sites:
        released = sorted({int(p.name.split("-")[1]) for p in site.path.glob("board-*.html")})
        for set_number in released:
            boardset = site.folder.read_set(site.event, set_number)
            for board in boardset.boards:
                for prefix, lang in (("", "zh"), ("en/", "en")):
                    t = strings(lang)
                    page.goto(f"{site.url}{prefix}board-{set_number}-{board.number}.html",
                              wait_until="domcontentloaded")
                    shown = page.evaluate(SHOWN_HANDS)
                    for seat in "NESW":
                        expected = sorted(
                            (t.big_joker if c.is_big_joker else t.small_joker) if c.is_joker
                            else c.suit.symbol + c.display_rank
                            for c in board.deal.hands[seat])
                        assert sorted(shown[seat]) == expected, (site.label, set_number, board.number, seat)
                    twin = json.loads((site.path / f"{prefix}board-{set_number}-{board.number}.json").read_text())
                    assert {s: sorted(cards) for s, cards in twin["hands"].items()} == \
                        {s: sorted(c.ascii for c in board.deal.hands[s]) for s in "NESW"}
                    assert twin["deal_code"] == board.deal.code
                    checked += 1
    assert checked == 2 * (3 * 16 + 3 * 4 + 2 * 4)  # the demo's 3 sets, the cup's 3, the Swiss's 2
    page.close()


AXE_KINDS = ("index", "standings", "cross-table", "round-1", "match-1-1", "team-", "board-1-1", "bracket",
             "verify", "downloads", "pairs")
#: The kinds checked in English too: those with the most words of their own (the board's review,
#: the pairs' ranking and a team's pairs against the field).
AXE_ENGLISH = ("index", "board-1-1", "pairs", "team-")


def test_no_serious_or_critical_accessibility_violation(sites: list[Site], browser: Any) -> None:
    from axe_playwright_python.sync_playwright import Axe

    axe = Axe()
    page = browser.new_page(viewport={"width": 375, "height": 800})
    found: list[str] = []
    seen = set()
    for site in sites:
        for name in site.pages():
            short = name.removeprefix("en/")
            kind = next((k for k in AXE_KINDS if short.startswith(k)), None)
            english = name.startswith("en/")
            # Every kind in Chinese; in English the two with the most words of their own.
            if kind is None or (site.label, english, kind) in seen or (english and kind not in AXE_ENGLISH):
                continue
            seen.add((site.label, english, kind))
            page.goto(site.url + name)
            result = axe.run(page)
            for violation in result.response["violations"]:
                if violation["impact"] in ("serious", "critical"):
                    found.append(f"{site.label}/{name}: {violation['id']} ({violation['impact']}): "
                                 f"{violation['nodes'][0]['html'][:120]}")
    page.close()
    assert {kind for _label, _en, kind in seen} == set(AXE_KINDS)
    assert not found, "\n".join(found)


def test_follow_my_team_sorting_and_filtering(sites: list[Site], browser: Any) -> None:
    """The small scripts: the team followed stays highlighted on other pages (kept in the
    browser), a column head sorts, the filter hides the other rows."""
    site = sites[1]
    context = browser.new_context()
    page = context.new_page()
    page.goto(site.url + "standings.html")
    page.select_option("#follow", "K5")
    assert page.eval_on_selector("tr[data-team='K5']", "r => r.classList.contains('followed')")
    page.goto(site.url + "round-1.html")
    assert page.eval_on_selector_all("tr.followed", "rows => rows.length") == 1
    page.goto(site.url + "standings.html")
    page.click("table.standings thead th:nth-child(3)")
    points = page.eval_on_selector_all("table.standings tbody tr td:nth-child(3)",
                                       "cells => cells.map(c => Number(c.textContent))")
    assert points == sorted(points)
    page.fill("#filter", "K12")
    visible = page.eval_on_selector_all("table.standings tbody tr:not([hidden])",
                                        "rows => rows.map(r => r.dataset.team)")
    assert visible == ["K12"]
    context.close()


def test_an_unreleased_set_appears_nowhere(sites: list[Site]) -> None:
    """The final's set (4) is not released: none of its cards, deal codes or its fingerprint is in
    any file of the site (pages, JSON, downloads), and no file name points at it."""
    site = sites[1]
    boardset = site.folder.read_set(site.event, 4)
    secrets = {boardset.fingerprint}
    for board in boardset.boards:
        secrets.add(board.deal.code)
        for seat in "NESW":
            secrets.add(" ".join(c.ascii for c in board.deal.hands[seat]))
            secrets.add(" ".join(sorted(c.ascii for c in board.deal.hands[seat])))
    names = [p.relative_to(site.path).as_posix() for p in site.path.rglob("*")]
    assert not [n for n in names if "board-4-" in n or "set-04" in n]
    for path in site.path.rglob("*"):
        if path.is_file():
            text = path.read_bytes().decode("utf-8", "replace")
            assert not [s for s in secrets if s in text], path
    # The released sets are there, with their files.
    assert (site.path / "downloads" / "boards" / "set-03.json").is_file()
    verify = json.loads((site.path / "verify.json").read_text(encoding="utf-8"))
    assert [s["released"] for s in verify["sets"]] == [True, True, True, False]
    assert set(verify["sets"][3]) == {"set", "released"}
    assert verify["key"] is None and verify["verify_command"] is None


def test_the_verify_command_shown_verifies(sites: list[Site], tmp_path: Path) -> None:
    """The demo reveals its key: the command the verify page shows, run in a copy of the site's
    folder, re-derives every board (exit 0)."""
    site = sites[0]
    verify = json.loads((site.path / "verify.json").read_text(encoding="utf-8"))
    assert verify["key"] and verify["verify_command"].startswith("dealer verify ")
    copy = tmp_path / "site"
    shutil.copytree(site.path, copy)
    args = verify["verify_command"].split()[2:]
    outcome = run_dealer("verify", *[copy / a if a.startswith("downloads/") else a for a in args])
    assert outcome.exit_code == 0, outcome.output


#: The columns a player looks for first on a phone (issue 21; newcomer run 3, finding 29): the
#: standings' rank, team, match points, net level points and played count; a board's field
#: results: the two teams, the defenders' points and each side's difference from the field.
KEY_COLUMNS = {"standings": ("table.standings", (1, 2, 3, 6, 7)), "board": ("table.field", (3, 4, 5, 8, 9))}

KEY_CELLS = """([table, columns]) => Array.from(document.querySelectorAll(table + " tr")).flatMap(row =>
    columns.map(n => row.children[n - 1]).filter(cell => cell).map(cell => {
        const box = cell.getBoundingClientRect(), frame = cell.closest(".scroll");
        const limit = Math.min(window.innerWidth, frame ? frame.getBoundingClientRect().right : window.innerWidth);
        return {text: cell.textContent.trim(), left: box.left, right: box.right, width: box.width, limit: limit};
    }))"""


def test_phone_shows_the_key_columns_without_sideways_scrolling(sites: list[Site], browser: Any) -> None:
    """At 375 px every key cell of the standings and of each board's field results lies within
    the screen, in both languages."""
    context = browser.new_context(viewport={"width": 375, "height": 800})
    tab = context.new_page()
    problems, checked = [], 0
    for site in sites:
        names = [n for n in site.pages() if n.removeprefix("en/") == "standings.html"
                 or n.removeprefix("en/").startswith("board-")]
        for name in names:
            table, columns = KEY_COLUMNS["standings" if name.endswith("standings.html") else "board"]
            tab.goto(site.url + name, wait_until="load")
            for cell in tab.evaluate(KEY_CELLS, [table, list(columns)]):
                checked += 1
                if cell["width"] == 0 or cell["left"] < 0 or cell["right"] > cell["limit"] + 0.5:
                    problems.append(f"{site.label}/{name}: {cell['text']!r} at "
                                    f"{cell['left']:.0f}…{cell['right']:.0f}px (seen up to {cell['limit']:.0f}px)")
    context.close()
    assert checked > 1000, checked
    assert not problems, "\n".join(problems[:40])


def test_the_pairs_page_and_the_board_review_show_what_the_field_says(sites: list[Site], browser: Any) -> None:
    """The pairs-in-teams ranking shows every pair of its JSON twin with its butler, each row's
    link reaching the pair's boards on its team's page; each released board's review shows its
    datum and every trump the field chose; in Chinese and English, at 375 and 1280 px without
    sideways scrolling (issue 39)."""
    page = browser.new_page(viewport={"width": 375, "height": 800})
    checked = 0
    for site in sites:
        for prefix in ("", "en/"):
            twin = json.loads((site.path / "pairs.json").read_text(encoding="utf-8"))
            assert twin["pairs"], site.label
            page.goto(site.url + prefix + "pairs.html")
            rows = page.eval_on_selector_all("table.pairs >> nth=0 >> tbody tr",
                                             "rows => rows.map(r => Array.from(r.cells).map(c => c.innerText))")
            assert len(rows) == len(twin["pairs"])
            for row, pair in zip(rows, twin["pairs"], strict=True):
                assert row[0] == (str(pair["rank"]) if pair["rank"] is not None else "—")
                assert row[4] == f"{pair['butler']:+g}" and row[5] == f"{pair['per_board']:+g}"
            for width in WIDTHS:
                page.set_viewport_size({"width": width, "height": 800})
                assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 0
            page.set_viewport_size({"width": 375, "height": 800})
            first = twin["pairs"][0]
            page.click("table.pairs tbody tr >> nth=0 >> a >> nth=0")
            assert page.url.endswith(f"{first['boards_page']}.html#{first['anchor']}")
            assert page.locator(f"#{first['anchor']} + .scroll tbody tr").count() == first["boards"]
            words = strings("en" if prefix else "zh")["field"]
            board = json.loads((site.path / "board-1-1.json").read_text(encoding="utf-8"))
            page.goto(site.url + prefix + "board-1-1.html")
            text = page.inner_text("main")
            review = board["review"]
            assert review is not None, site.label  # set 1 of each site is released and played out
            assert words["review_note"].split("{")[0] in text and f"{review['datum']:+g}" in text
            assert page.locator("table.trumps tbody tr").count() == len(review["trumps"])
            assert page.locator("table.swings tbody tr").count() == len(review["swings"])
            checked += 1
    page.close()
    assert checked == 2 * len(sites)
