"""The printed side of live entry (issue 23): each table score sheet's entry QR code (an ``SJE1``
URL made with the entry key, in the sheet's current generation) and the fallback code under it,
a level race's QR per table, the team cards (队卡) with each team's code, ``[event] serve_url``
and ``--serve-url``. Real PDFs from WeasyPrint, pages rasterised by pypdfium2, QR codes read back
by zxing-cpp."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from conftest import documents_of
from conftest import run_dealer as run
from layout_check import check_html
from print_support import page_images, page_texts

from dealer.app import EventSession, live
from dealer.app.dealing import deal_event
from dealer.event import Event
from dealer.files import load_event, read_key
from dealer.formats.entry import SheetId, check_tag, entry_url, parse_entry_path, sheet_code, sheet_tag, team_code
from dealer.render import PrintOptions
from dealer.render.engine import render_html
from dealer.resources import demo_event_text
from dealer.store.folder import EventFolder

pytestmark = pytest.mark.slow  # real PDFs, rasterised, their QR codes decoded

LAN = "http://192.168.1.20:8000"
LEVELS = Path(__file__).resolve().parent.parent / "dealer" / "data" / "demo-levels.toml"


def qr_per_page(path: Path) -> list[list[str]]:
    """The QR codes of each page of a PDF, rasterised at 150 dpi, read by zxing-cpp."""
    import zxingcpp

    return [[r.text for r in zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode)]
            for image in page_images(path)]


@pytest.fixture
def demo(tmp_path: Path) -> tuple[Event, Path, Path]:
    """The demo event's file and the event dealt into tmp_path/boards."""
    event_file = tmp_path / "demo.toml"
    event_file.write_text(demo_event_text(), encoding="utf-8")
    event = load_event(event_file)
    boards = tmp_path / "boards"
    deal_event(event, EventFolder(event.id, boards))
    return event, event_file, boards


def _sheets_of_set(event: Event, set_number: int) -> list[tuple[int, str, str]]:
    """The score sheets of a set in print order: each match playing it, table A then B."""
    return [(m.round, m.id, table) for rnd in event.rounds for m in rnd.matches if m.set == set_number
            for table in ("A", "B")]


def test_each_score_sheet_carries_its_entry_url_and_fallback_code(demo: tuple[Event, Path, Path],
                                                                   tmp_path: Path) -> None:
    event, event_file, boards = demo
    folder = EventFolder(event.id, boards)
    assert not folder.entry_key_path.exists()
    out = tmp_path / "out"
    code, said, err = run("print", "score-sheets", event_file, "--boards-dir", boards, "--set", 1, "--out", out,
                          "--serve-url", LAN + "/")
    assert code == 0, err
    assert "made the entry key" in said and "this machine only" not in said
    # The entry key: made at the first print, owner-only, not the dealing key.
    assert stat.S_IMODE(folder.entry_key_path.stat().st_mode) == 0o600
    key = folder.entry_key()
    assert key is not None and len(key) == 32 and key != read_key(folder.key_path)
    pdf = out / "score-sheets-set-01-zh.pdf"
    found, texts = qr_per_page(pdf), page_texts(pdf)
    sheets = _sheets_of_set(event, 1)
    assert len(found) == len(sheets) == 4
    for (round_number, match, table), codes, text in zip(sheets, found, texts, strict=True):
        sheet = SheetId(event.id, round_number, match, table, 1)
        assert codes == [entry_url(LAN, key, sheet)]
        assert codes[0].startswith(f"{LAN}/t/SJE1/{event.id}/{round_number}/{match}/{table}/1/")
        parsed, tag = parse_entry_path(codes[0])
        assert parsed == sheet and check_tag(key, parsed, tag)
        assert sheet_code(key, sheet) in text
        assert f"或在 {LAN} 输入二维码下的代码" in text.replace("\n", "")
        assert "SJD1" not in text
    # A reprint keeps the key and the codes.
    code, said, err = run("print", "score-sheets", event_file, "--boards-dir", boards, "--set", 1, "--out", out,
                          "--serve-url", LAN, "--lang", "en")
    assert code == 0 and "made the entry key" not in said, err
    assert folder.entry_key() == key
    assert qr_per_page(out / "score-sheets-set-01-en.pdf") == found
    assert "or type the code under the QR at http://192.168.1.20:8000" in page_texts(
        out / "score-sheets-set-01-en.pdf")[0].replace("\n", " ")


def test_the_serve_url_comes_from_the_event_file_and_the_option_overrides_it(
        demo: tuple[Event, Path, Path], tmp_path: Path) -> None:
    _event, event_file, boards = demo
    out = tmp_path / "out"
    # Neither: this machine's address, and the summary says so and how to set it.
    code, said, err = run("print", "score-sheets", event_file, "--boards-dir", boards, "--set", 2, "--out", out)
    assert code == 0, err
    assert ("the score sheets' entry QR codes point at http://127.0.0.1:8000: this machine only, no phone "
            "reaches it; set [event] serve_url") in said and "--serve-url" in said
    assert all(c.startswith("http://127.0.0.1:8000/t/SJE1/") for page in qr_per_page(
        out / "score-sheets-set-02-zh.pdf") for c in page)
    # [event] serve_url.
    text = event_file.read_text(encoding="utf-8").replace(
        "[event]\n", '[event]\nserve_url = "https://hall.example:8443"\n', 1)
    event_file.write_text(text, encoding="utf-8")
    code, said, err = run("print", "score-sheets", event_file, "--boards-dir", boards, "--set", 2, "--out", out)
    assert code == 0 and "this machine only" not in said, err
    assert all(c.startswith("https://hall.example:8443/t/SJE1/") for page in qr_per_page(
        out / "score-sheets-set-02-zh.pdf") for c in page)
    code, said, err = run("print", "score-sheets", event_file, "--boards-dir", boards, "--set", 2, "--out", out,
                          "--serve-url", LAN)
    assert code == 0, err
    assert all(c.startswith(f"{LAN}/t/SJE1/") for page in qr_per_page(out / "score-sheets-set-02-zh.pdf")
               for c in page)
    # Bad addresses: refused, naming the key or the option, nothing printed.
    for bad in ("http://192.168.1.20:8000/entry", "ftp://hall", "192.168.1.20:8000", "http://hall:99999"):
        code, _said, err = run("print", "score-sheets", event_file, "--boards-dir", boards, "--set", 2,
                               "--out", tmp_path / "bad", "--serve-url", bad)
        assert code == 2 and err.startswith(f"error: --serve-url: {bad!r} must be http:// or https://"), err
    event_file.write_text(text.replace("https://hall.example:8443", "https://hall.example/live"), encoding="utf-8")
    code, _said, err = run("print", "score-sheets", event_file, "--boards-dir", boards, "--set", 2,
                           "--out", tmp_path / "bad")
    assert code == 2 and "event.serve_url: 'https://hall.example/live' must be http:// or https://" in err, err
    assert not (tmp_path / "bad").exists()


def test_a_reprint_after_a_revoke_prints_the_next_generation(demo: tuple[Event, Path, Path], tmp_path: Path) -> None:
    event, event_file, boards = demo
    out = tmp_path / "out"
    assert run("print", "score-sheets", event_file, "--boards-dir", boards, "--set", 1, "--out", out,
               "--serve-url", LAN).exit_code == 0
    first = qr_per_page(out / "score-sheets-set-01-zh.pdf")
    round_number, match, table = _sheets_of_set(event, 1)[1]  # match 1's table B
    with EventSession.open(event_file, boards, write=True) as session:
        assert live.revoke(session, live.sheet_of(session.event, round_number, match, table),
                           "coffee on the sheet", "director") == 2
    assert run("print", "score-sheets", event_file, "--boards-dir", boards, "--set", 1, "--out", out,
               "--serve-url", LAN).exit_code == 0
    second = qr_per_page(out / "score-sheets-set-01-zh.pdf")
    key = EventFolder(event.id, boards).entry_key()
    assert key is not None
    assert second[0] == first[0] and second[2:] == first[2:]
    sheet, tag = parse_entry_path(second[1][0])
    assert sheet == SheetId(event.id, round_number, match, table, 2) and check_tag(key, sheet, tag)
    old, old_tag = parse_entry_path(first[1][0])
    assert old.generation == 1 and old_tag != tag
    assert sheet_code(key, sheet) in page_texts(out / "score-sheets-set-01-zh.pdf")[1]


def test_results_add_fills_the_slot_from_a_scanned_entry_url(demo: tuple[Event, Path, Path], tmp_path: Path) -> None:
    event, event_file, boards = demo
    key = EventFolder(event.id, boards).entry_key(create=True)
    assert key is not None
    url = entry_url(LAN, key, SheetId(event.id, 1, "2", "B", 1))
    code, said, err = run("results", "add", event_file, "--qr", url, "--board", 5, "--points", 35,
                          "--boards-dir", boards)
    assert code == 0 and "added round 1 match 2 table B board 5: 35 points" in said, err
    code, said, err = run("results", "add", event_file, "--qr", "SJD1:S:demo:1:2:A", "--board", 5, "--points", 40,
                          "--boards-dir", boards)
    assert code == 0 and "added round 1 match 2 table A board 5: 40 points" in said, err
    code, _said, err = run("results", "add", event_file, "--qr", url, "--table", "A", "--board", 6, "--points", 35,
                           "--boards-dir", boards)
    assert code == 2 and "--table: value 'A': disagrees with the QR payload, which says B" in err, err
    code, _said, err = run("results", "add", event_file, "--qr", url.replace("/t/SJE1/", "/t/SJE9/"), "--board", 6,
                           "--points", 35, "--boards-dir", boards)
    assert code == 2 and "is not a SJE1 entry link" in err, err
    other = entry_url(LAN, key, SheetId("other", 1, "2", "B", 1))
    code, _said, err = run("results", "add", event_file, "--qr", other, "--board", 6, "--points", 35,
                           "--boards-dir", boards)
    assert code == 2 and "other" in err, err


def _levels(tmp_path: Path, tables: int | None = None) -> tuple[Path, Path]:
    text = LEVELS.read_text(encoding="utf-8")
    if tables is not None:
        text = text.replace("tables = 5 ", f"tables = {tables} ", 1)
        assert f"tables = {tables} " in text
    tmp_path.mkdir(exist_ok=True)
    event_file = tmp_path / "levels.toml"
    event_file.write_text(text, encoding="utf-8")
    boards = tmp_path / "boards"
    boards.mkdir()
    code, _said, err = run("round", "pair", event_file, "--round", 1, "--boards-dir", boards)
    assert code == 0, err
    return event_file, boards


def test_a_level_race_sheet_has_a_qr_and_code_per_table(tmp_path: Path) -> None:
    event_file, boards = _levels(tmp_path)
    out = tmp_path / "out"
    code, _said, err = run("print", "score-sheets", event_file, "--round", 1, "--boards-dir", boards, "--out", out,
                           "--serve-url", LAN)
    assert code == 0, err
    event = load_event(event_file)
    key = EventFolder(event.id, boards).entry_key()
    assert key is not None
    pdf = out / "level-sheets-round-01-zh.pdf"
    found, texts = qr_per_page(pdf), page_texts(pdf)
    assert len(found) == 2  # one page per match of round 1 (5 tables each)
    for match, codes, text in zip(("1", "2"), found, texts, strict=True):
        sheets = [SheetId(event.id, 1, match, str(n), 1) for n in range(1, 6)]
        assert sorted(codes) == sorted(entry_url(LAN, key, s) for s in sheets)
        for sheet in sheets:
            parsed, tag = parse_entry_path(entry_url(LAN, key, sheet))
            assert check_tag(key, parsed, tag)
            assert sheet_code(key, sheet) in text
    # A match of more tables than a page holds goes on over further pages; nothing sticks out.
    many, boards16 = _levels(tmp_path / "many", 16)
    event16 = load_event(many)
    for lang in ("zh", "en"):
        options = PrintOptions(lang=lang, out_dir=tmp_path / "many" / "out", boards_root=boards16, round=1,
                               serve_url=LAN)
        [document] = documents_of(event16, "score-sheets", options)
        assert len(document.pages) == 2 * 3  # 16 tables: 6 + 6 + 4 rows
        overflows, _texts = check_html(render_html(document.template, document.common, document.pages))
        assert not overflows, overflows[:5]


def test_team_cards_hold_each_teams_code_and_no_sheet_secret(demo: tuple[Event, Path, Path], tmp_path: Path) -> None:
    event, event_file, boards = demo
    out = tmp_path / "out"
    code, said, err = run("print", "team-cards", event_file, "--boards-dir", boards, "--out", out)
    assert code == 0 and "(owner-only: every team's code)" in said, err
    pdf = out / "team-cards-zh.pdf"
    assert stat.S_IMODE(pdf.stat().st_mode) == 0o600
    folder = EventFolder(event.id, boards)
    key = folder.entry_key()
    assert key is not None
    text = "\n".join(page_texts(pdf))
    for team in event.teams:
        assert team_code(key, event.id, team.id) in text and team.name in text and team.id in text
    instructions = "请保管好本卡。对方录入成绩后，请在自己的手机上扫描记分表二维码，输入本队代码确认。"
    assert instructions in text.replace("\n", "")
    sheets = [SheetId(event.id, m.round, m.id, table, 1) for m in event.matches() for table in ("A", "B")]
    for sheet in sheets:
        assert sheet_tag(key, sheet) not in text and sheet_code(key, sheet) not in text
    assert read_key(folder.key_path).hex() not in text and key.hex() not in text
    assert qr_per_page(pdf) == [[]]
    code, said, err = run("print", "team-cards", event_file, "--boards-dir", boards, "--out", out, "--lang", "en")
    assert code == 0, err
    english = "\n".join(page_texts(out / "team-cards-en.pdf")).replace("\n", " ")
    assert "Keep this card safe." in english and "type your team code to confirm" in english
    code, _said, err = run("print", "team-cards", event_file, "--boards-dir", boards, "--out", out, "--round", 1)
    assert code == 2 and "--round" in err, err


def test_team_cards_of_long_names_fit_their_cards(tmp_path: Path) -> None:
    text = demo_event_text().replace('name = "东风队"', 'name = "' + "东风浩荡万里长城永不倒" * 4 + ' Team"', 1)
    assert "永不倒" in text
    event_file = tmp_path / "long.toml"
    event_file.write_text(text, encoding="utf-8")
    event = load_event(event_file)
    deal_event(event, EventFolder(event.id, tmp_path / "boards"))
    for lang in ("zh", "en"):
        options = PrintOptions(lang=lang, out_dir=tmp_path / "out", boards_root=tmp_path / "boards")
        [document] = documents_of(event, "team-cards", options)
        overflows, texts = check_html(render_html(document.template, document.common, document.pages))
        assert not overflows, overflows[:5]
        assert min(p.size_pt for p in texts) >= 6.5
