"""Table cards: for each table of each match, which boards it plays, in which order, and when it
exchanges wallets with the other table of its match; per round with --round, in both languages.
The expected movement is worked out here from the layout data (dealer/data/pages.toml), not
through the code under test."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import run_dealer as run
from print_support import page_count, page_texts, read_data

from dealer.app.dealing import deal_event
from dealer.files import load_event_text
from dealer.resources import demo_event_text
from dealer.store.folder import EventFolder

CARD = re.compile(
    r"桌卡 · (\d+[AB]) 号桌 · 第 (\d+) 场 ([AB]) 桌\n"
    r"\S+ Demo Cup · 第 (\d+) 轮 · 第 \d+ 场 · 牌套 第 (\d+) 套 副本 (\d+)\n"
    r"南北 (\S+) \((主队|客队)\) · 东西 (\S+) \((主队|客队)\)\n(.*?)按顺序打每一副", re.S)
STEP = re.compile(r"第 (\d+) 段 打牌号 (\d+)–(\d+)"
                  r"|交换 与 \d+([AB]) 号桌交换牌套：交出牌号 (\d+)–(\d+)，换回牌号 (\d+)–(\d+)")


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("table-cards")
    text = demo_event_text()
    event = load_event_text(text, "demo")
    deal_event(event, EventFolder(event.id, root / "boards"))
    event_file = root / "event.toml"
    event_file.write_text(text, encoding="utf-8")
    return event_file, root / "boards"


def expected_steps(table: str) -> list[tuple[str, ...]]:
    """Two runs of eight boards (stanzas = 2): A plays 1–8 while B plays 9–16, then they exchange."""
    assert read_data("pages.toml")["table-cards"]["stanzas"] == 2
    first, second = ("1", "8"), ("9", "16")
    mine, theirs = (first, second) if table == "A" else (second, first)
    other = "B" if table == "A" else "A"
    return [("play", "1", *mine), ("exchange", other, *mine, *theirs), ("play", "2", *theirs)]


def steps_of(text: str) -> list[tuple[str, ...]]:
    found = []
    for m in STEP.finditer(text):
        if m.group(1):
            found.append(("play", m.group(1), m.group(2), m.group(3)))
        else:
            found.append(("exchange", *m.group(4, 5, 6, 7, 8)))
    return found


def test_table_cards_give_each_table_its_boards_in_order_and_the_exchange(demo: tuple[Path, Path],
                                                                         tmp_path: Path) -> None:
    event_file, boards = demo
    code, stdout, stderr = run("print", "table-cards", event_file, "--boards-dir", boards, "--set", 1,
                               "--out", tmp_path, "--jobs", 1)
    assert code == 0, stderr
    assert "4 table cards" in stdout
    path = tmp_path / "table-cards-set-01-zh.pdf"
    assert page_count(path) == 2  # two matches, a page each: table A above, table B below
    cards = {}
    for page in page_texts(path):
        for m in CARD.finditer(page):
            name, match, table, round_, set_number, copy = m.group(1, 2, 3, 4, 5, 6)
            ns, ns_side, ew, ew_side, body = m.group(7, 8, 9, 10, 11)
            assert (round_, set_number) == ("1", "1")
            assert name == f"{match}{table}"  # the hall's table: match 1 sits at tables 1A and 1B
            # Home is E-W at table A and N-S at table B (as the scoring counts it).
            assert (ns_side, ew_side) == (("客队", "主队") if table == "A" else ("主队", "客队"))
            cards[(match, table)] = (copy, ns, ew, steps_of(body))
    # Round 1: match 1 (东风队 home, 长城队 away) and match 2 on set 1, each with its own copy.
    assert sorted(cards) == [("1", "A"), ("1", "B"), ("2", "A"), ("2", "B")]
    assert cards[("1", "A")][:3] == ("1", "长城队", "东风队")
    assert cards[("1", "B")][:3] == ("1", "东风队", "长城队")
    assert cards[("2", "A")][0] == cards[("2", "B")][0] == "2"
    for (_, table), (_, _, _, steps) in cards.items():
        assert steps == expected_steps(table)


def test_table_cards_per_round_and_in_english(demo: tuple[Path, Path], tmp_path: Path) -> None:
    event_file, boards = demo
    code, _, stderr = run("print", "table-cards", event_file, "--boards-dir", boards, "--round", 2,
                          "--lang", "en", "--out", tmp_path, "--jobs", 1)
    assert code == 0, stderr
    assert sorted(p.name for p in tmp_path.glob("*.pdf")) == ["table-cards-set-02-en.pdf"]
    text = "\n".join(page_texts(tmp_path / "table-cards-set-02-en.pdf"))
    assert re.findall(r"Table card · Table (\d+[AB]) · Match (\d+) Table ([AB])", text) == [
        ("1A", "1", "A"), ("1B", "1", "B"), ("2A", "2", "A"), ("2B", "2", "B")]
    assert text.count("Round 2 · Match") == 4 and "Round 1" not in text
    assert text.count("Play boards 1–8") == text.count("Play boards 9–16") == 4
    assert "Exchange wallets with Table 1B: hand over boards 1–8, take boards 9–" in text
    code, _, stderr = run("print", "table-cards", event_file, "--boards-dir", boards, "--board", 5,
                          "--out", tmp_path)
    assert code == 2 and "--board: a table card lists every board of a match" in stderr
