"""`dealer print` and `dealer doctor` through the command line: options, errors, layouts."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

import pytest
from conftest import assert_one_error, documents_of
from conftest import run_dealer as run
from print_support import decode_qr_codes, page_count
from test_results_support import dealer_at

from dealer.app.dealing import deal_event
from dealer.event import Event
from dealer.files import load_event_text
from dealer.formats.qr import LabelId, parse_payload
from dealer.render import KINDS
from dealer.resources import demo_event_text, label_layouts
from dealer.store.folder import EventFolder

DATA = Path(__file__).resolve().parent.parent / "dealer" / "data"


@pytest.fixture(scope="module")
def dealt_demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Event, Path, Path]:
    root = tmp_path_factory.mktemp("cli")
    event = load_event_text(demo_event_text(), "demo")
    boards = root / "boards"
    deal_event(event, EventFolder(event.id, boards))
    event_file = root / "event.toml"
    event_file.write_text(demo_event_text(), encoding="utf-8")
    return event, boards, event_file


def test_print_writes_the_default_file_names_and_a_summary(
    dealt_demo: tuple[Event, Path, Path], tmp_path: Path
) -> None:
    _, boards, event_file = dealt_demo
    out = tmp_path / "out"
    code, stdout, _ = run("print", "score-sheets", event_file, "--boards-dir", boards, "--set", 2, "--out", out,
                          "--lang", "en")
    assert code == 0, stdout
    assert (out / "score-sheets-set-02-en.pdf").exists()
    assert "1 file(s), 4 page(s)" in stdout


def test_labels_need_the_key(dealt_demo: tuple[Event, Path, Path], tmp_path: Path) -> None:
    _, boards, event_file = dealt_demo
    code, _, stderr = run("print", "labels", event_file, "--boards-dir", boards, "--out", tmp_path,
                          "--key-file", tmp_path / "nowhere.key")
    assert code == 2
    assert "--key-file: " in stderr and "nowhere.key: no key file" in stderr
    assert "labels cannot be printed" in stderr
    assert stderr.count("\n") == 1


def test_undealt_event_is_a_clear_error(tmp_path: Path) -> None:
    event_file = tmp_path / "event.toml"
    event_file.write_text(demo_event_text(), encoding="utf-8")
    code, _, stderr = run("print", "hand-records", event_file, "--boards-dir", tmp_path / "boards",
                          "--out", tmp_path / "out")
    assert code == 2
    assert "--boards-dir: " in stderr and "boards/demo: no such folder" in stderr
    (tmp_path / "boards" / "demo").mkdir(parents=True)
    code, _, stderr = run("print", "travellers", event_file, "--boards-dir", tmp_path / "boards",
                          "--out", tmp_path / "out")
    assert code == 2 and "event demo is not dealt yet" in stderr and "dealer deal" in stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("args", "words"), [
    (["--set", "9"], "--set: set 9 is not in the event (sets 1 to 3)"),
    (["--copies", "0"], "--copies: 0 copies: expected 1 to 200"),
    (["--copies", "100000"], "--copies: 100000 copies: expected 1 to 200"),
    (["--layout", "nope"], "--layout: unknown label layout 'nope'"),
])
def test_bad_options(dealt_demo: tuple[Event, Path, Path], tmp_path: Path, args: list[str], words: str) -> None:
    _, boards, event_file = dealt_demo
    code, _, stderr = run("print", "labels", event_file, "--boards-dir", boards, "--out", tmp_path, *args)
    assert code == 2
    assert words in stderr


def test_half_page_labels_and_copies_option(dealt_demo: tuple[Event, Path, Path], tmp_path: Path) -> None:
    event, boards, event_file = dealt_demo
    code, stdout, _ = run("print", "labels", event_file, "--boards-dir", boards, "--set", 3, "--copies", 1,
                          "--layout", "a4-half", "--out", tmp_path,
                          "--key-file", EventFolder(event.id, boards).key_path)
    assert code == 0, stdout
    path = tmp_path / "labels-set-03-zh.pdf"
    layout = tomllib.loads((DATA / "labels" / "a4-half.toml").read_text(encoding="utf-8"))
    per_sheet = layout["columns"] * layout["rows"]
    assert page_count(path) == math.ceil(event.boards_per_set / per_sheet)
    labels = [parse_payload(p) for p in decode_qr_codes(path)]
    assert sorted(x.board for x in labels if isinstance(x, LabelId)) == list(range(1, event.boards_per_set + 1))


@pytest.mark.parametrize("per_page", [1, 4])
def test_hand_records_per_page(dealt_demo: tuple[Event, Path, Path], tmp_path: Path, per_page: int) -> None:
    event, boards, event_file = dealt_demo
    code, stdout, _ = run("print", "hand-records", event_file, "--boards-dir", boards, "--set", 1,
                          "--per-page", per_page, "--out", tmp_path)
    assert code == 0, stdout
    assert page_count(tmp_path / "hand-records-set-01-zh.pdf") == math.ceil(event.boards_per_set / per_page)


def test_html_format_declares_chinese(dealt_demo: tuple[Event, Path, Path], tmp_path: Path) -> None:
    _, boards, event_file = dealt_demo
    code, _, _ = run("print", "travellers", event_file, "--boards-dir", boards, "--set", 1, "--format", "html",
                     "--out", tmp_path)
    assert code == 0
    html = (tmp_path / "travellers-set-01-zh.html").read_text(encoding="utf-8")
    assert '<html lang="zh-CN">' in html
    assert '<img class="qr"' in html


def test_layouts_fit_their_page() -> None:
    layouts = label_layouts()
    assert {"a4-3x8", "a4-half"} <= set(layouts)
    for layout in layouts.values():
        width = layout["margin_left_mm"] + layout["columns"] * layout["label_width_mm"] \
            + (layout["columns"] - 1) * layout["gap_x_mm"]
        height = layout["margin_top_mm"] + layout["rows"] * layout["label_height_mm"] \
            + (layout["rows"] - 1) * layout["gap_y_mm"]
        assert width <= layout["page_width_mm"] + 0.01
        assert height <= layout["page_height_mm"] + 0.01
        assert layout["qr_module_mm"] >= 0.5


def test_slip_page_layouts_fit_a4() -> None:
    layouts = tomllib.loads((DATA / "pages.toml").read_text(encoding="utf-8"))
    assert {"curtain-cards", "travellers"} <= set(layouts)
    for layout in (layouts[kind] for kind in ("curtain-cards", "travellers")):
        assert layout["columns"] >= 1 and layout["rows"] >= 1
        assert layout["columns"] * layout["slip_width_mm"] <= 210 + 0.01
        assert layout["rows"] * layout["slip_height_mm"] <= 297 + 0.01


def test_doctor_names_the_chinese_font() -> None:
    code, stdout, _ = run("doctor")
    assert code == 0, stdout
    assert "font used for Chinese" in stdout and "CJK" in stdout


def test_rendering_writes_through_a_unique_fsynced_temporary_file(
    dealt_demo: tuple[Event, Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another print run's temporary file beside the output is left alone (no fixed temporary name),
    the data is fsynced before the rename, and an earlier rendering of the same file is replaced."""
    import dealer.files
    from dealer.render import PrintOptions, render_documents

    event, boards, _ = dealt_demo
    target = tmp_path / "travellers-set-01-zh.html"
    target.write_text("an earlier rendering", encoding="utf-8")
    other_run = tmp_path / f".{target.name}.tmp"
    other_run.write_text("another print run, still writing", encoding="utf-8")
    synced: list[int] = []
    real_fsync = dealer.files.os.fsync
    monkeypatch.setattr(dealer.files.os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])
    options = PrintOptions(out_dir=tmp_path, sets=(1,), boards_root=boards, fmt="html")
    [written] = render_documents(documents_of(event, "travellers", options), "html", 1)
    assert written.path == target
    assert '<img class="qr"' in target.read_text(encoding="utf-8")
    assert other_run.read_text(encoding="utf-8") == "another print run, still writing"
    assert synced
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([target.name, other_run.name])


def test_the_command_knows_every_print_kind() -> None:
    """cli.py lists the kinds itself (``--help`` imports nothing heavy): they must be render's."""
    from dealer.cli import PAPERWORK_KINDS, PRINT_KINDS
    from dealer.render import KINDS
    from dealer.render.writers import PAPERWORK

    assert PRINT_KINDS == KINDS
    assert PAPERWORK_KINDS == tuple(PAPERWORK)


def test_hand_records_with_results_show_each_tables_trump_and_points(
    dealt_demo: tuple[Event, Path, Path], tmp_path: Path
) -> None:
    import csv
    import shutil

    from print_support import page_texts

    _, boards, event_file = dealt_demo
    own = tmp_path / "boards"
    shutil.copytree(boards, own)
    code, _, stderr = run("print", "hand-records", event_file, "--boards-dir", own, "--set", 1, "--board", 3,
                          "--with-results", "--out", tmp_path)
    assert code == 2 and "--with-results: no results yet" in stderr
    sample = DATA / "sample-travellers.csv"
    code, _, stderr = run("results", "import", event_file, sample, "--boards-dir", own)
    assert code == 0, stderr
    code, _, stderr = run("print", "hand-records", event_file, "--boards-dir", own, "--set", 1, "--board", 3,
                          "--with-results", "--out", tmp_path)
    assert code == 0, stderr
    text = "\n".join(page_texts(tmp_path / "hand-records-set-01-zh.pdf"))
    lines = [line for line in sample.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    played = {(r["match"], r["table"]): r for r in csv.DictReader(lines) if r["round"] == "1" and r["board"] == "3"}
    assert len(played) == 4
    for match in ("1", "2"):
        a, b = played[(match, "A")], played[(match, "B")]
        assert (f"第 1 轮 第 {match} 场: A 桌 将牌 {a['trump']} 防守方得分 {a['defenders_points']} · "
                f"B 桌 将牌 {b['trump']} 防守方得分 {b['defenders_points']}") in text


def test_board_option_reprints_one_fouled_wallets_papers(dealt_demo: tuple[Event, Path, Path], tmp_path: Path) -> None:
    from print_support import page_texts

    _, boards, event_file = dealt_demo
    code, stdout, stderr = run("print", "all", event_file, "--boards-dir", boards, "--set", 1, "--board", 5,
                               "--copies", 1, "--out", tmp_path, "--jobs", 1)
    assert code == 0, stderr
    assert sorted(p.name for p in tmp_path.glob("*.pdf")) == [
        f"{kind}-set-01-zh.pdf" for kind in ("curtain-cards", "dealing-guide", "hand-records", "labels", "travellers")]
    labels = [parse_payload(p) for p in decode_qr_codes(tmp_path / "labels-set-01-zh.pdf")]
    assert [(x.board, x.copy) for x in labels if isinstance(x, LabelId)] == [(5, 1)]
    travellers = {(p.match, p.board) for p in map(parse_payload, decode_qr_codes(tmp_path / "travellers-set-01-zh.pdf"))
                  if not isinstance(p, LabelId)}
    assert travellers == {("1", 5), ("2", 5)}
    for kind in ("hand-records", "dealing-guide"):
        text = "\n".join(page_texts(tmp_path / f"{kind}-set-01-zh.pdf"))
        assert "第 5 副" in text and "第 4 副" not in text and "第 6 副" not in text
    assert "4 slips" in stdout  # 北 西 东 南 of one copy
    code, _, stderr = run("print", "score-sheets", event_file, "--boards-dir", boards, "--board", 5, "--out", tmp_path)
    assert code == 2 and "--board: a score sheet lists every board of a match" in stderr
    code, _, stderr = run("print", "labels", event_file, "--boards-dir", boards, "--board", 17, "--out", tmp_path)
    assert code == 2 and "--board: board 17 is not in the event (boards 1 to 16)" in stderr


def test_print_all_of_a_round_is_the_rounds_whole_paperwork(
    dealt_demo: tuple[Event, Path, Path], tmp_path: Path
) -> None:
    """`print all --round N` prints the round's pairings with every paper of the set it plays, its
    座位图 and the 成绩公告 posted as it starts (the previous round's), and leaves out only the team
    cards (once for the event); without --round it is the whole pack with the team cards and says
    it left out the pairings."""
    _, boards, event_file = dealt_demo
    code, stdout, stderr = run("print", "all", event_file, "--boards-dir", boards, "--round", 2, "--format", "html",
                               "--out", tmp_path / "round")
    assert code == 0, stderr
    assert sorted(p.name for p in (tmp_path / "round").iterdir()) == sorted(
        ["pairings-round-02-zh.html", *(f"{kind}-set-02-zh.html" for kind in KINDS),
         "seating-round-02-zh.html", "bulletin-round-01-zh.html"])
    assert "座位图" in (tmp_path / "round" / "seating-round-02-zh.html").read_text(encoding="utf-8")
    assert "成绩公告" in (tmp_path / "round" / "bulletin-round-01-zh.html").read_text(encoding="utf-8")
    assert [line for line in stdout.splitlines() if line.startswith("left out")] == [
        "left out: team cards: printed once for the event: dealer print team-cards EVENT.toml"]
    # The hall's tables: match (场) 2 sits at tables 2A and 2B, on the pairings and the table cards.
    pairings = (tmp_path / "round" / "pairings-round-02-zh.html").read_text(encoding="utf-8")
    assert "<th>场</th>" in pairings and "桌号" not in pairings
    assert all(f"{name} 号桌" in pairings for name in ("1A", "1B", "2A", "2B"))
    cards = (tmp_path / "round" / "table-cards-set-02-zh.html").read_text(encoding="utf-8")
    assert "桌卡 · 2B 号桌 · 第 2 场 B 桌" in cards and "与 2A 号桌交换牌套" in cards
    code, stdout, stderr = run("print", "all", event_file, "--boards-dir", boards, "--format", "html",
                               "--out", tmp_path / "pack")
    assert code == 0, stderr
    assert not list((tmp_path / "pack").glob("pairings-*"))
    assert (tmp_path / "pack" / "team-cards-zh.html").exists()
    assert "left out: pairings: printed one round at a time: dealer print all EVENT.toml --round N adds them" in stdout
    code, stdout, stderr = run("print", "all", event_file, "--boards-dir", boards, "--round", 1, "--board", 5,
                               "--format", "html", "--out", tmp_path / "board")
    assert code == 0, stderr
    assert not list((tmp_path / "board").glob("pairings-*"))
    for kind in ("pairings", "score sheets", "table cards"):
        assert f"left out: {kind}: --board reprints one board's papers only" in stdout


#: Elements a board may take on the hand records and the dealing guide (WeasyPrint's time goes by
#: the box, about a millisecond each: issue 24's 0.25 CPU-seconds a page). Before issue 24 a hand
#: record's board took about 270 (the analysis table's 119 cells), a guide's board about 310; then
#: about 205 each; now about 125 (a suit's line of text, the analysis by columns) and 62 (the guide's
#: grid a block a suit, its check table a line a pocket).
ELEMENTS_PER_BOARD = {"hand-records": 150, "dealing-guide": 80}


@pytest.mark.parametrize("kind", ["hand-records", "dealing-guide"])
def test_hand_records_and_the_dealing_guide_stay_within_their_element_budget(
    dealt_demo: tuple[Event, Path, Path], tmp_path: Path, kind: str
) -> None:
    _, boards, event_file = dealt_demo
    code, stdout, _ = run("print", kind, event_file, "--boards-dir", boards, "--set", 1, "--format", "html",
                          "--out", tmp_path, "--lang", "en")
    assert code == 0, stdout
    html = (tmp_path / f"{kind}-set-01-en.html").read_text(encoding="utf-8")
    board_class = "board" if kind == "hand-records" else "guide"
    pages = html.split('<section class="page')[1:]
    assert pages
    for page in pages:
        count = page.count(f'<div class="{board_class} ')
        assert count
        assert page.count("<") - page.count("</") <= ELEMENTS_PER_BOARD[kind] * count, (kind, count)


def test_a_set_no_match_plays_gets_no_travellers(tmp_path: Path) -> None:
    """``print travellers --set 4`` of a set no match plays is refused (no 0-byte
    file); ``print all`` skips its travellers and score sheets and prints the rest."""
    text = demo_event_text()
    assert "sets = 3 " in text
    event = tmp_path / "four.toml"
    event.write_text(text.replace('id = "demo"', 'id = "four"').replace("sets = 3 ", "sets = 4 "), encoding="utf-8")
    assert dealer_at(tmp_path, "deal", event).exit_code == 0
    out = tmp_path / "out"
    for kind in ("travellers", "score-sheets"):
        result = dealer_at(tmp_path, "print", kind, event, "--set", 4, "--format", "html", "--out", out)
        assert_one_error(result, "--set", "set 4")
    assert not out.exists() or not any(out.iterdir())
    every = dealer_at(tmp_path, "print", "all", event, "--set", 4, "--format", "html", "--out", out)
    assert every.exit_code == 0, every.output
    written = sorted(p.name for p in out.iterdir())
    assert written == sorted(f"{k}-set-04-zh.html" for k in ("hand-records", "labels", "curtain-cards",
                                                             "dealing-guide")), written
    assert all((out / name).stat().st_size > 0 for name in written)


def test_copies_are_checked_for_every_kind(dealt_demo: tuple[Event, Path, Path], tmp_path: Path) -> None:
    _, boards, event_file = dealt_demo
    for kind in ("travellers", "hand-records"):
        assert_one_error(run("print", kind, event_file, "--copies", -5, "--format", "html", "--boards-dir", boards,
                             "--out", tmp_path / "out"), "--copies", "expected 1 to 200")
