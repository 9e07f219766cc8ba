"""Language and format slips (issue 21, item 10; newcomer run 3, findings 26-30), each through
the command a director runs: Chinese outputs carry no English label of the tool's own (trumps as
无主/♠♥♦♣, 级分 not LP, a named team-name column), every time is local with its zone from the
event's ``timezone``, ``results history --json`` is one document, a release message does not
contradict itself, and English pages declare ``lang="en"`` and carry no Chinese of the tool's."""

from __future__ import annotations

import csv
import html
import json
import re
from pathlib import Path

from conftest import demo_event, run_dealer
from site_support import EIGHT_TEAM_SWISS, demo_site
from test_results_support import EVENT_TOML, HEADER, hand_rows, write_csv, write_event

from dealer.app import EventSession
from dealer.app.dealing import deal_event
from dealer.app.rounds import pair_round
from dealer.files import load_event_text
from dealer.resources import demo_event_text
from dealer.store.folder import EventFolder

#: Chinese (and full-width) characters.
CJK = re.compile(r"[\u3000-\u30ff\u3400-\u9fff\uff00-\uffef]+")


def _text(page: str) -> str:
    """What a reader sees of an HTML page: no styles, scripts or tags."""
    page = re.sub(r"(?s)<(style|script)\b.*?</\1>", " ", page)
    return html.unescape(re.sub(r"(?s)<[^>]*>", " ", page))


def _scored(tmp_path: Path, text: str = EVENT_TOML) -> tuple[Path, str]:
    """The hand-worked match with every board's result and a trump at table A."""
    event_path = write_event(tmp_path, text)
    boards = str(tmp_path / "boards")
    trumps = ["NT", "S", "H", "D", "C"]
    rows = [[*row, trumps[(int(str(row[3])) - 1) % 5] if row[2] == "A" else ""] for row in hand_rows()]
    imported = run_dealer("results", "import", event_path, write_csv(tmp_path / "t.csv", [*HEADER, "trump"], rows),
                          "--boards-dir", boards)
    assert imported.exit_code == 0, imported.output
    return event_path, boards


def test_chinese_report_names_trumps_seats_level_points_and_the_name_column_in_chinese(tmp_path: Path) -> None:
    event_path, boards = _scored(tmp_path)
    out = tmp_path / "zh"
    done = run_dealer("report", event_path, "--out", out, "--format", "html,csv", "--boards-dir", boards)
    assert done.exit_code == 0, done.output
    with (out / "matches.csv").open(encoding="utf-8-sig") as stream:
        head = next(csv.reader(stream))
    assert head[4:6] == ["主队 级分", "客队 级分"]
    with (out / "standings.csv").open(encoding="utf-8-sig") as stream:
        head = next(csv.reader(stream))
    assert head[:3] == ["名次", "队", "队名"] and "" not in head
    page = _text((out / "hand-results.html").read_text(encoding="utf-8"))
    assert "2 副牌" in page and "decks" not in page
    # Board 1 (N declares) at A: no trump; board 2 (E) at A: spades.
    assert re.search(r"\b1\s+北\s+2\s+0\s+无主\s", page), page[:3000]
    assert re.search(r"\b2\s+东\s+3\s+35\s+♠\s", page)
    # No word of English left but the event's own (its name, team ids), the profile's id and the
    # zone's "UTC".
    own = {"Hand", "worked", "match", "H", "V", "X", "Y", "official", "UTC"}
    words = set(re.findall(r"\b[A-Za-z]{2,}\b", re.sub(r"\b[0-9a-f]{64}\b", " ", page))) - own
    assert not words, sorted(words)
    en = tmp_path / "en"
    assert run_dealer("report", event_path, "--out", en, "--format", "html,csv", "--lang", "en",
                      "--boards-dir", boards).exit_code == 0
    page = _text((en / "hand-results.html").read_text(encoding="utf-8"))
    assert re.search(r"\b1\s+N\s+2\s+0\s+NT\s", page) and "2 decks" in page


ZONED = EVENT_TOML.replace('profile = "official-2002"', 'timezone = "Asia/Shanghai"\nprofile = "official-2002"')


def test_every_time_is_local_with_its_zone_from_the_events_timezone(tmp_path: Path) -> None:
    event_path, boards = _scored(tmp_path, ZONED)
    history = run_dealer("results", "history", event_path, "--round", 1, "--match", 1, "--table", "A",
                         "--board", 1, "--boards-dir", boards)
    stored = json.loads(run_dealer("results", "history", event_path, "--round", 1, "--match", 1, "--table", "A",
                                   "--board", 1, "--json", "--boards-dir", boards).stdout)[0]["entered_at"]
    import datetime as dt
    import zoneinfo

    shanghai = dt.datetime.fromisoformat(stored).astimezone(zoneinfo.ZoneInfo("Asia/Shanghai"))
    assert f"{shanghai:%Y-%m-%d %H:%M:%S} (UTC+08:00)" in history.stdout, history.stdout
    # A conflicting entry names the stored result's time in the same zone.
    points = next(row[4] for row in hand_rows() if row[2] == "A" and row[3] == 1)
    conflict = run_dealer("results", "add", event_path, "--round", 1, "--match", 1, "--table", "A", "--board", 1,
                          "--points", int(str(points)) + 5, "--boards-dir", boards)
    assert conflict.exit_code != 0 and f"{shanghai:%Y-%m-%d %H:%M:%S} (UTC+08:00)" in conflict.stderr, conflict.stderr
    out = tmp_path / "reports"
    assert run_dealer("report", event_path, "--out", out, "--format", "html", "--boards-dir", boards).exit_code == 0
    page = (out / "hand-results.html").read_text(encoding="utf-8")
    assert re.search(r"生成时间: \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \(UTC\+08:00\)", page)
    wrong = tmp_path / "wrong.toml"
    wrong.write_text(ZONED.replace("Asia/Shanghai", "Beijing"), encoding="utf-8")
    refused = run_dealer("results", "history", wrong, "--boards-dir", boards)
    assert refused.exit_code == 2 and "event.timezone" in refused.stderr and "Beijing" in refused.stderr


def test_site_and_release_times_are_local_with_their_zone(tmp_path: Path) -> None:
    text = demo_event_text().replace('profile = "official-2002"', 'timezone = "America/New_York"\n'
                                     'profile = "official-2002"', 1)
    event_path = tmp_path / "event.toml"
    event_path.write_text(text, encoding="utf-8")
    event = load_event_text(text, str(event_path))
    folder = EventFolder(event.id, tmp_path / "boards", tmp_path / "output")
    deal_event(event, folder)
    from importlib import resources

    with resources.as_file(resources.files("dealer") / "data" / "sample-travellers.csv") as sample:
        assert run_dealer("results", "import", event_path, sample, "--boards-dir", tmp_path / "boards").exit_code == 0
    released = run_dealer("release", event_path, "--set", 1, "--reason", "played", "--boards-dir", tmp_path / "boards")
    assert released.exit_code == 0, released.output
    assert re.search(r"\d{2}:\d{2}:\d{2} \(UTC-0[45]:00\)", released.stdout), released.stdout
    site = tmp_path / "site"
    assert run_dealer("site", event_path, "--out", site, "--no-pdf", "--boards-dir", tmp_path / "boards").exit_code == 0
    home = (site / "index.html").read_text(encoding="utf-8")
    assert re.search(r"最近更新: <time datetime=\"[^\"]+\+00:00\">\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} "
                     r"\(UTC-0[45]:00\)</time>", home), home
    verify = _text((site / "verify.html").read_text(encoding="utf-8"))
    assert re.search(r"\d{2}:\d{2}:\d{2} \(UTC-0[45]:00\) — played", verify)


def test_history_json_is_one_document(tmp_path: Path) -> None:
    event_path, boards = _scored(tmp_path)
    lines = run_dealer("results", "history", event_path, "--round", 1, "--match", 1, "--boards-dir", boards)
    found = json.loads(run_dealer("results", "history", event_path, "--round", 1, "--match", 1, "--json",
                                  "--boards-dir", boards).stdout)
    assert isinstance(found, list) and len(found) == len(lines.stdout.splitlines()) == 32
    assert {row["table"] for row in found} == {"A", "B"} and all(row["current"] for row in found)


def test_releasing_a_set_no_match_has_played_says_so_once(tmp_path: Path) -> None:
    event_path = tmp_path / "event.toml"
    event_path.write_text(EIGHT_TEAM_SWISS, encoding="utf-8")
    event = load_event_text(EIGHT_TEAM_SWISS, str(event_path))
    folder = EventFolder(event.id, tmp_path / "boards")
    deal_event(event, folder)
    with EventSession.open(event, folder, write=True, as_played=False) as session:
        pair_round(session, 1, entered_by="test")
    refused = run_dealer("release", event_path, "--set", 2, "--reason", "r", "--boards-dir", tmp_path / "boards")
    assert refused.exit_code == 2
    assert "no match has played set 2 yet: nothing to release" in refused.stderr, refused.stderr
    assert "still being played" not in refused.stderr
    # Set 1, paired but without results, is still being played: that message stands.
    playing = run_dealer("release", event_path, "--set", 1, "--reason", "r", "--boards-dir", tmp_path / "boards")
    assert playing.exit_code == 2 and "set 1 is still being played" in playing.stderr


def _own_texts(event_text: str) -> list[str]:
    """The event's own texts (its name, team and player names) and the site's link to Chinese,
    longest first: what an English page may show in Chinese."""
    event = load_event_text(event_text, "event.toml")
    own = [event.name, *(t.name for t in event.teams), *(p for t in event.teams for p in t.players), "中文"]
    return sorted(own, key=len, reverse=True)


def test_english_print_pack_declares_en_and_has_no_chinese_of_the_tools(tmp_path: Path) -> None:
    event_path = tmp_path / "event.toml"
    event_path.write_text(demo_event_text(), encoding="utf-8")
    event = demo_event()
    deal_event(event, EventFolder(event.id, tmp_path / "boards"))
    out = tmp_path / "pack"
    done = run_dealer("print", "all", event_path, "--lang", "en", "--format", "html", "--set", 1, "--out", out,
                      "--boards-dir", tmp_path / "boards")
    assert done.exit_code == 0, done.output
    own = _own_texts(demo_event_text())
    pages = sorted(out.rglob("*.html"))
    assert {p.name.split("-set-")[0] for p in pages} >= {"travellers", "score-sheets", "hand-records"}
    for page in pages:
        source = page.read_text(encoding="utf-8")
        assert '<html lang="en">' in source, page.name
        text = _text(source)
        for name in own:
            text = text.replace(name, " ")
        assert not CJK.findall(text), (page.name, CJK.findall(text)[:10])


def test_english_site_has_no_chinese_of_the_tools(tmp_path: Path) -> None:
    _event, _folder, site = demo_site(tmp_path)
    own = _own_texts(demo_event_text())
    pages = sorted((site / "en").glob("*.html"))
    assert len(pages) > 40
    found = {}
    for page in pages:
        source = page.read_text(encoding="utf-8")
        assert '<html lang="en">' in source, page.name
        text = _text(source)
        # The demo's own recorded reasons (bilingual, as its director typed them) are the event's texts.
        text = re.sub(r"样例[^—\n]*?(?=demo:)", " ", text)
        for name in own:
            text = text.replace(name, " ")
        if CJK.findall(text):
            found[page.name] = CJK.findall(text)[:10]
    assert not found, found
    # The Chinese downloads page names each file's kind and language in Chinese, not by its code.
    downloads = _text((site / "downloads.html").read_text(encoding="utf-8"))
    assert "成绩表（CSV） · 中文" in downloads and "report-csv" not in downloads and "(zh)" not in downloads
