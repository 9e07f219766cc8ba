"""The kitty dealt apart (kitty_mode = "separate"): every paper that fills or checks the pockets
handles a fifth pocket, 底牌. Expected counts come from the event and the layout data files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import documents_of
from print_support import (
    curtain_heads,
    expected_pages,
    page_count,
    page_texts,
    pocket_labels,
    pockets_per_wallet,
    set_copies,
)

from dealer.app.dealing import deal_event
from dealer.cards import SEATS
from dealer.files import load_event_text
from dealer.render import PrintOptions, render_documents
from dealer.render.strings import strings
from dealer.resources import demo_event_text
from dealer.store.folder import EventFolder

# Rendered once per test run: ``--dist loadfile`` (Makefile) sends every test of this module to
# one xdist worker, which builds the fixture once.


IN_HAND_LINE = '# kitty_mode = "in-hand"'
KINDS = ("labels", "curtain-cards", "dealing-guide")


def kitty_event_text() -> str:
    text = demo_event_text()
    assert IN_HAND_LINE in text
    return text.replace(IN_HAND_LINE, 'kitty_mode = "separate"')


class KittyPack:
    def __init__(self, root: Path) -> None:
        self.event = load_event_text(kitty_event_text(), "kitty-event.toml")
        self.boards_root = root / "boards"
        deal_event(self.event, EventFolder(self.event.id, self.boards_root))
        self.out = root / "output"
        self.files: dict[str, Path] = {}
        self.units: dict[str, dict[str, int]] = {}
        options = PrintOptions(lang="zh", out_dir=self.out, sets=(1,), boards_root=self.boards_root)
        documents = [doc for kind in KINDS for doc in documents_of(self.event, kind, options)]
        half = PrintOptions(lang="zh", out_dir=root / "half", sets=(1,), boards_root=self.boards_root,
                            layout="a4-half")
        documents += documents_of(self.event, "labels", half)
        for written in render_documents(documents, "pdf", 1):
            name = written.kind + ("-half" if written.path.parent.name == "half" else "")
            self.files[name] = written.path
            self.units[name] = written.units


@pytest.fixture(scope="module")
def kitty_pack(tmp_path_factory: pytest.TempPathFactory) -> KittyPack:
    return KittyPack(tmp_path_factory.mktemp("kitty"))


def test_the_event_deals_the_kitty_apart(kitty_pack: KittyPack) -> None:
    event = kitty_pack.event
    assert event.kitty_mode == "separate" and event.kitty > 0
    assert pockets_per_wallet(event) == 5
    for board in EventFolder(event.id, kitty_pack.boards_root).read_set(event, 1).boards:
        assert len(board.deal.kitty) == event.kitty


@pytest.mark.parametrize("kind", KINDS)
def test_page_counts_with_a_kitty_pocket(kitty_pack: KittyPack, kind: str) -> None:
    assert page_count(kitty_pack.files[kind]) == expected_pages(kitty_pack.event, kind, 1)


def test_half_page_labels_carry_five_pockets(kitty_pack: KittyPack) -> None:
    event = kitty_pack.event
    path = kitty_pack.files["labels-half"]
    assert page_count(path) == expected_pages(event, "labels", 1, label_layout="a4-half")
    text = "\n".join(page_texts(path))
    assert text.count("底牌") == event.boards_per_set * set_copies(event, 1)


def test_summary_counts_the_kitty_pocket_and_slip(kitty_pack: KittyPack) -> None:
    event = kitty_pack.event
    wallets = event.boards_per_set * set_copies(event, 1)
    assert kitty_pack.units["labels"] == {"wallet labels": wallets, "pocket labels": 5 * wallets}
    assert kitty_pack.units["curtain-cards"] == {"slips": 5 * wallets}


def test_pocket_labels_add_up_to_the_pack(kitty_pack: KittyPack) -> None:
    event = kitty_pack.event
    labels = pocket_labels(kitty_pack.files["labels"])
    copies = set_copies(event, 1)
    assert set(labels) == {(1, b, c) for b in range(1, event.boards_per_set + 1) for c in range(1, copies + 1)}
    hand = (54 * event.decks - event.kitty) // 4
    names = [str(strings("zh").seat[s]) for s in SEATS]
    for pockets in labels.values():
        assert pockets == {**dict.fromkeys(names, hand), "底牌": event.kitty}
        assert sum(pockets.values()) == 54 * event.decks


# A slip's head, read at its place on the page: seat, board and card count, level, set and copy.
SLIP_HEAD = re.compile(r"(东|北|西|南|底牌)(?: · 庄家)?\s+牌号 (\d+) · (\d+) 张\s+级数 \S+ · 第 1 套 · 副本 (\d+)")


def test_curtain_cards_have_a_kitty_slip_per_board_copy(kitty_pack: KittyPack) -> None:
    event = kitty_pack.event
    slips: dict[tuple[int, int], dict[str, int]] = {}
    for head in curtain_heads(kitty_pack.files["curtain-cards"]):
        if not head.strip():
            continue  # the last page's empty places
        found = SLIP_HEAD.fullmatch(head.strip())
        assert found is not None, head
        name, board, count, copy = found.groups()
        assert name not in slips.get((int(board), int(copy)), {}), head
        slips.setdefault((int(board), int(copy)), {})[name] = int(count)
    copies = set_copies(event, 1)
    assert set(slips) == {(b, c) for b in range(1, event.boards_per_set + 1) for c in range(1, copies + 1)}
    for found in slips.values():
        assert found["底牌"] == event.kitty
        assert sorted(found) == sorted(["东", "北", "西", "南", "底牌"])
        assert sum(found.values()) == 54 * event.decks


GUIDE_CHECK = "插袋 张数 分数 ♠ ♥ ♣ ♦ 王 级牌 核对"
GUIDE_ROW = re.compile(r"^(东|北|西|南|底牌|合计)(?: \(庄家\))? ((?:\d+ ){7}\d+)$", re.M)


def test_dealing_guide_has_a_kitty_row_and_totals_add_up_to_the_pack(kitty_pack: KittyPack) -> None:
    event = kitty_pack.event
    boards = EventFolder(event.id, kitty_pack.boards_root).read_set(event, 1).boards
    t = strings("zh")
    text = "\n".join(page_texts(kitty_pack.files["dealing-guide"]))
    tables = text.split(GUIDE_CHECK)[1:]
    assert len(tables) == len(boards)
    for board, table in zip(boards, tables, strict=True):
        rows = {name: [int(x) for x in numbers.split()] for name, numbers in GUIDE_ROW.findall(table)}
        assert list(rows) == [*(str(t.seat[s]) for s in ("E", "N", "W", "S")), str(t.kitty), str(t.total)]
        cards = [row[0] for row in rows.values()]
        points = [row[1] for row in rows.values()]
        assert cards[-1] == sum(cards[:-1]) == 54 * event.decks
        assert points[-1] == sum(points[:-1]) == 100 * event.decks
        assert cards[4] == event.kitty == len(board.deal.kitty)
        assert cards[:4] == [len(board.deal.hands[s]) for s in ("E", "N", "W", "S")]
    # the grid and the joker line name the kitty pocket once per kitty card, for every board
    assert text.split().count(str(t.kitty_short)) == event.kitty * len(boards)
