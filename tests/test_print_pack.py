"""The print pack rendered for real: WeasyPrint PDFs, pages rasterized at 150 dpi by pypdfium2,
QR codes decoded by zxing-cpp. Expected counts come from the event, never from the output."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
from conftest import documents_of
from print_support import (
    CURTAIN_HEAD_MM,
    DPI,
    decode_qr_codes,
    expected_pages,
    font_coverage,
    page_count,
    page_images,
    page_texts,
    pocket_labels,
    read_data,
    set_copies,
    set_matches,
)

from dealer.app.dealing import deal_event
from dealer.cards import SEATS, SUITS, Card, parse_card
from dealer.files import load_event_text, read_key
from dealer.formats.entry import check_tag, parse_entry_path
from dealer.formats.qr import LabelId, TravellerId, check_label, label_payload, parse_payload
from dealer.render import KINDS, PrintOptions, render_documents
from dealer.render.strings import strings
from dealer.resources import demo_event_text
from dealer.store.folder import EventFolder

pytestmark = pytest.mark.slow  # the whole pack rendered and rasterised: minutes of worker time

# Rendered once per test run: ``--dist loadfile`` (Makefile) sends every test of this module to
# one xdist worker, which builds the fixture once.


PER_PAGE = 2


class Pack:
    def __init__(self, root: Path) -> None:
        self.event = load_event_text(demo_event_text(), "demo-event.toml")
        self.boards_root = root / "boards"
        deal_event(self.event, EventFolder(self.event.id, self.boards_root))
        self.key = read_key(EventFolder(self.event.id, self.boards_root).key_path)
        self.out = root / "output"
        self.files: dict[tuple[str, str, int], Path] = {}

    def render(self, lang: str, kinds: tuple[str, ...], sets: tuple[int, ...], jobs: int) -> None:
        options = PrintOptions(lang=lang, out_dir=self.out, sets=sets, boards_root=self.boards_root,
                               per_page=PER_PAGE)
        documents = [doc for kind in kinds for doc in documents_of(self.event, kind, options)]
        for written in render_documents(documents, "pdf", jobs):
            kind, set_part = written.path.name.split("-set-")
            self.files[(lang, kind, int(set_part[:2]))] = written.path


@pytest.fixture(scope="session")
def pack(tmp_path_factory: pytest.TempPathFactory) -> Pack:
    """The demo event dealt and printed once per test run (one xdist group): every kind of set 1 in Chinese
    (through the parallel path) and in English (serial); the match-dependent kinds of the other
    sets too (the rest is the same size for every set)."""
    result = Pack(tmp_path_factory.mktemp("print"))
    result.render("zh", KINDS, (1,), jobs=2)
    result.render("zh", MATCH_KINDS, tuple(range(2, result.event.sets + 1)), jobs=1)
    result.render("en", KINDS, (1,), jobs=1)
    return result


MATCH_KINDS = ("travellers", "score-sheets", "table-cards")
CASES = ([("zh", kind, 1) for kind in KINDS] + [("zh", kind, s) for kind in MATCH_KINDS for s in (2, 3)]
         + [("en", kind, 1) for kind in KINDS])


@pytest.mark.parametrize(("lang", "kind", "set_number"), CASES)
def test_page_counts_match_the_event(pack: Pack, lang: str, kind: str, set_number: int) -> None:
    path = pack.files[(lang, kind, set_number)]
    assert page_count(path) == expected_pages(pack.event, kind, set_number, PER_PAGE)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_label_qr_codes_name_every_wallet_copy_and_check_with_the_key(pack: Pack, lang: str) -> None:
    payloads = decode_qr_codes(pack.files[(lang, "labels", 1)])
    labels = [parse_payload(p) for p in payloads]
    assert all(isinstance(label, LabelId) for label in labels)
    copies = set_copies(pack.event, 1)
    expected = {(pack.event.id, 1, b, c) for b in range(1, pack.event.boards_per_set + 1)
                for c in range(1, copies + 1)}
    assert len(labels) == pack.event.boards_per_set * copies
    assert {(x.event, x.set, x.board, x.copy) for x in labels if isinstance(x, LabelId)} == expected
    assert all(check_label(pack.key, x) for x in labels if isinstance(x, LabelId))


def test_traveller_and_score_sheet_qr_codes(pack: Pack) -> None:
    event = pack.event
    for set_number in range(1, event.sets + 1):
        matches = set_matches(event, set_number)
        travellers = [parse_payload(p) for p in decode_qr_codes(pack.files[("zh", "travellers", set_number)])]
        assert len(travellers) == 2 * event.boards_per_set * len(matches)  # one slip per table
        assert all(isinstance(t, TravellerId) for t in travellers)
        assert {(t.event, t.round, t.match, t.board) for t in travellers if isinstance(t, TravellerId)} == {
            (event.id, m.round, m.id, b) for m in matches for b in range(1, event.boards_per_set + 1)
        }
        # A score sheet's QR is its entry URL (docs/qr.md, SJE1), its tag made with the entry key.
        entry_key = EventFolder(event.id, pack.boards_root).entry_key()
        assert entry_key is not None and entry_key != pack.key
        sheets = [parse_entry_path(p) for p in decode_qr_codes(pack.files[("zh", "score-sheets", set_number)])]
        assert len(sheets) == 2 * len(matches)
        assert all(check_tag(entry_key, sheet, tag) for sheet, tag in sheets)
        assert {(s.event, s.round, s.match, s.table, s.generation) for s, _tag in sheets} == {
            (event.id, m.round, m.id, table, 1) for m in matches for table in ("A", "B")
        }


def test_forged_label_fails_the_check(pack: Pack) -> None:
    forged = parse_payload(label_payload(bytes(32), pack.event.id, 1, 1, 1))
    assert isinstance(forged, LabelId)
    assert not check_label(pack.key, forged)
    genuine = parse_payload(decode_qr_codes(pack.files[("zh", "labels", 1)])[0])
    assert isinstance(genuine, LabelId)
    tampered = LabelId(genuine.event, genuine.set, genuine.board + 1, genuine.copy, genuine.tag)
    assert not check_label(pack.key, tampered)


def test_label_payloads_do_not_depend_on_the_cards(pack: Pack, tmp_path: Path) -> None:
    """The same key and wallets with other cards (another public value): the same label QR codes."""
    text = demo_event_text().replace('name = "升级复式赛示例 Demo Cup"',
                                     'name = "升级复式赛示例 Demo Cup"\npublic_value_source = "a draw"', 1)
    event = load_event_text(text, "drawn.toml")
    key_file = EventFolder(pack.event.id, pack.boards_root).key_path
    payloads = []
    for draw in ("1", "2"):
        root = tmp_path / draw
        deal_event(event, EventFolder(event.id, root), key_file, public_value=draw)
        assert EventFolder(event.id, root).read_set(event, 1).boards[0].deal.hands != \
            EventFolder(pack.event.id, pack.boards_root).read_set(pack.event, 1).boards[0].deal.hands
        options = PrintOptions(lang="zh", out_dir=root / "out", sets=(1,), boards_root=root, key_file=key_file)
        [written] = render_documents(documents_of(event, "labels", options), "pdf", 1)
        payloads.append(decode_qr_codes(written.path))
    assert payloads[0] == payloads[1] == decode_qr_codes(pack.files[("zh", "labels", 1)])


CARD_TEXT = re.compile(r"[♠♥♣♦]|大王|小王")


@pytest.mark.parametrize("kind", ["labels", "travellers", "score-sheets", "table-cards"])
def test_table_papers_never_show_a_card_or_the_key(pack: Pack, kind: str) -> None:
    for lang in ("zh", "en"):
        text = "\n".join(page_texts(pack.files[(lang, kind, 1)]))
        assert not CARD_TEXT.search(text)
        assert pack.key.hex() not in text
    raw = b"".join(p.read_bytes() for p in pack.files.values())
    assert pack.key.hex().encode() not in raw


@pytest.mark.parametrize("kind", KINDS)
def test_no_chinese_character_falls_back_to_a_missing_glyph(pack: Pack, kind: str) -> None:
    path = pack.files[("zh", kind, 1)]
    covered, missing = font_coverage(path)
    assert not missing
    assert any("CJK-SC" in name for name in covered)
    drawn = set().union(*covered.values())
    text = set("".join(page_texts(path)))
    assert {c for c in text if not c.isspace()} <= drawn
    assert any("\u4e00" <= c <= "\u9fff" for c in text)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_packs_user_agent_stylesheet_draws_every_page_as_weasyprints_own(pack: Pack, lang: str,
                                                                            tmp_path: Path) -> None:
    """The pack's documents leave out the user-agent rules of pseudo-elements it never shows
    (dealer/render/engine.py): left out with this WeasyPrint, on pages that hold no list item and
    no note, and the first pages of every document drawn pixel for pixel as with the full rules."""
    import weasyprint

    from dealer.render.engine import html_document, render_html
    from dealer.resources import templates_dir

    assert type(html_document("<p>x</p>")) is not weasyprint.HTML
    options = PrintOptions(lang=lang, out_dir=pack.out, boards_root=pack.boards_root, per_page=PER_PAGE)
    documents = [doc for doc in documents_of(pack.event, "all", options) if not doc.screen]
    assert {doc.kind for doc in documents} >= set(KINDS)
    for doc in documents:
        html = render_html(doc.template, doc.common, doc.pages[:2])
        assert not re.search(r"<(ol|ul|li)\b|list-item|float: *(footnote|note)", html), doc.kind
        css = "".join((templates_dir() / name).read_text("utf-8") for name in ("base.css", str(doc.common["css"])))
        assert not re.search(r"list-item|float: *(footnote|note)", css), doc.common["css"]
        full, trimmed = tmp_path / f"{doc.path.stem}-full.pdf", tmp_path / f"{doc.path.stem}-trimmed.pdf"
        weasyprint.HTML(string=html, base_url=str(templates_dir())).write_pdf(full)
        html_document(html).write_pdf(trimmed)
        drawn = [[image.tobytes() for image in page_images(path)] for path in (full, trimmed)]
        assert len(drawn[0]) == min(2, len(doc.pages)) and drawn[0] == drawn[1], doc.kind


#: The layered documents (dealer/render/engine.py) and how many pages of each the test draws.
LAYERED_KINDS = {"labels", "curtain-cards", "travellers", "score-sheets"}
LAYERED_PAGES = 4


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_layered_documents_draw_every_line_where_their_one_layer_pages_do(pack: Pack, lang: str,
                                                                        tmp_path: Path) -> None:
    """A layered document's pages, drawn layer by layer as the pack draws them, raster pixel for
    pixel as the same pages drawn whole, in one layer: but for the English curtain cards, whose
    copy numbers may differ by a digit's antialiasing, in the slips' heads only."""
    import numpy as np

    from dealer.render.engine import render_pdf

    curtain = read_data("pages.toml")["curtain-cards"]
    slip_height = float(curtain["slip_height_mm"]) * DPI / 25.4
    options = PrintOptions(lang=lang, out_dir=tmp_path, boards_root=pack.boards_root, per_page=PER_PAGE)
    documents = [doc for doc in documents_of(pack.event, "all", options) if doc.layers]
    assert {doc.kind for doc in documents} == LAYERED_KINDS
    for doc in documents:
        part = dataclasses.replace(doc, pages=doc.pages[:LAYERED_PAGES])
        (layered,) = render_documents([part], "pdf", 1)
        whole = tmp_path / f"{doc.path.stem}-whole.pdf"
        whole.write_bytes(render_pdf(doc.template, doc.common, part.pages, "all"))
        drawn = list(zip(page_images(layered.path), page_images(whole), strict=True))
        assert len(drawn) == len(part.pages), doc.kind
        for number, (in_layers, in_one) in enumerate(drawn, 1):
            rows, _ = np.nonzero(np.asarray(in_layers.convert("L")) != np.asarray(in_one.convert("L")))
            if lang == "en" and doc.kind == "curtain-cards":
                rows = rows[rows % slip_height > CURTAIN_HEAD_MM * DPI / 25.4]  # below the heads
            assert rows.size == 0, (doc.kind, number, rows[:5])


def test_font_check_detects_a_missing_glyph(tmp_path: Path) -> None:
    import weasyprint

    html = '<html lang="zh-CN"><body><p style="font-family: \'Noto Sans CJK SC\'">升级\ue000</p></body></html>'
    path = tmp_path / "tofu.pdf"
    weasyprint.HTML(string=html).write_pdf(str(path))
    _, missing = font_coverage(path)
    assert "\ue000" in missing


def _hands_from_text(text: str, lang: str) -> dict[int, dict[str, list[Card]]]:
    t = strings(lang)
    seat_of = {str(t.seat[s]): s for s in SEATS}
    big, small = str(t.big_joker), str(t.small_joker)
    board_heading = re.escape(str(t.board_n)).replace(r"\{n\}", r"(\d+)") + " " + re.escape(str(t.declarer))
    seat_names = "|".join(re.escape(name) for name in seat_of)
    hand = re.compile(
        rf"({seat_names})(?: {re.escape(str(t.declarer))})?\n(.*)\n♠ ?(.*)\n♥ ?(.*)\n♣ ?(.*)\n♦ ?(.*)\n\d+ "
    )
    boards: dict[int, dict[str, list[Card]]] = {}
    parts = re.split(board_heading, text)
    for number, body in zip(parts[1::2], parts[2::2], strict=True):
        found: dict[str, list[Card]] = {}
        for match in hand.finditer(body):
            seat = seat_of[match.group(1)]
            cards = [parse_card("BJ" if x == big else "LJ") for x in match.group(2).split() if x in (big, small)]
            for suit, ranks in zip(SUITS, match.groups()[2:], strict=True):
                cards += [parse_card(suit.value + r) for r in ranks.split() if r != "—"]
            found[seat] = cards
        boards[int(number)] = found
    return boards


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_hand_record_text_lists_exactly_the_cards_per_seat(pack: Pack, lang: str) -> None:
    text = "\n".join(page_texts(pack.files[(lang, "hand-records", 1)]))
    boards = _hands_from_text(text, lang)
    dealt = EventFolder(pack.event.id, pack.boards_root).read_set(pack.event, 1).boards
    assert sorted(boards) == [b.number for b in dealt]
    for board in dealt:
        for seat in SEATS:
            assert sorted(boards[board.number][seat]) == sorted(board.deal.hands[seat]), (board.number, seat)


def test_hand_record_footer_carries_fingerprint_and_commitment(pack: Pack) -> None:
    data = json.loads(EventFolder(pack.event.id, pack.boards_root).set_path(1).read_text(encoding="utf-8"))
    text = page_texts(pack.files[("zh", "hand-records", 1)])[0]
    assert data["fingerprint"] in text
    assert data["commitment"] in text.replace("\n", "")


def test_label_tags_are_the_documented_hmac_of_the_wallet_identity(pack: Pack) -> None:
    """docs/qr.md: tag = first 8 base32 characters of HMAC-SHA256(key, domain tag || identity);
    the cards come from SHAKE-256 under another domain tag (docs/dealing.md §2)."""
    import base64
    import hashlib
    import hmac

    from dealer.deal import STREAM_TAG
    from dealer.formats.qr import LABEL_TAG

    doc = (Path(__file__).resolve().parent.parent / "docs" / "qr.md").read_text(encoding="utf-8")
    assert LABEL_TAG.rstrip(b"\0").decode() in doc and STREAM_TAG.rstrip(b"\0").decode() in doc
    assert "board/v1" not in doc
    assert LABEL_TAG != STREAM_TAG
    for payload in decode_qr_codes(pack.files[("zh", "labels", 1)]):
        label = parse_payload(payload)
        assert isinstance(label, LabelId)
        identity = f"{label.event}\0{label.set}\0{label.board}\0{label.copy}".encode()
        message = b"shengji-dealer/label-tag/v1\x00" + identity
        digest = hmac.new(pack.key, message, hashlib.sha256).digest()
        assert label.tag == base64.b32encode(digest).decode()[:8]


def test_pocket_labels_add_up_to_the_pack_with_the_kitty_in_the_declarers_hand(pack: Pack) -> None:
    """计副制 (kitty in hand): four pockets per wallet; the declarer's holds the kitty too."""
    event = pack.event
    assert event.kitty_mode == "in-hand"
    labels = pocket_labels(pack.files[("zh", "labels", 1)])
    copies = set_copies(event, 1)
    assert set(labels) == {(1, b, c) for b in range(1, event.boards_per_set + 1) for c in range(1, copies + 1)}
    seat_of = {str(strings("zh").seat[s]): s for s in SEATS}
    hand = (54 * event.decks - event.kitty) // 4
    for (_, board, _), pockets in labels.items():
        declarer = event.board(1, board).declarer
        assert sorted(pockets) == sorted(seat_of)
        assert {seat_of[name]: count for name, count in pockets.items()} == {
            seat: hand + (event.kitty if seat == declarer else 0) for seat in SEATS
        }
        assert sum(pockets.values()) == 54 * event.decks


GUIDE_CHECK = "插袋 张数 分数 ♠ ♥ ♣ ♦ 王 级牌 核对"
GUIDE_ROW = re.compile(r"^(东|北|西|南|底牌)(?: \(庄家\))? ((?:\d+ ){7}\d+)$", re.M)


def expected_pocket(cards: list[Card] | tuple[Card, ...], level: str) -> list[int]:
    """Cards, points, ♠ ♥ ♣ ♦ lengths, jokers and level cards of a pocket, counted here."""
    rank = {"10": "T"}.get(level, level)
    return [len(cards), sum(c.points for c in cards), *(sum(1 for c in cards if c.suit == s) for s in SUITS),
            sum(1 for c in cards if c.is_joker), sum(1 for c in cards if not c.is_joker and c.rank == rank)]


@pytest.mark.parametrize("lang", ["zh"])
def test_dealing_guide_pocket_checks_equal_the_deal(pack: Pack, lang: str) -> None:
    """Every board of the set: each pocket's cards, points, suit lengths, jokers and level cards."""
    text = "\n".join(page_texts(pack.files[(lang, "dealing-guide", 1)]))
    tables = text.split(GUIDE_CHECK)[1:]
    boards = EventFolder(pack.event.id, pack.boards_root).read_set(pack.event, 1).boards
    assert len(tables) == len(boards)
    seat_of = {str(strings(lang).seat[s]): s for s in SEATS}
    for board, table in zip(boards, tables, strict=True):
        printed = {seat_of[name]: [int(x) for x in numbers.split()] for name, numbers in GUIDE_ROW.findall(table)}
        assert printed == {seat: expected_pocket(board.deal.hands[seat], board.level) for seat in SEATS}, board.number
