"""Helpers for the print tests: rasterize pages, decode QR codes, read PDF fonts and text, and
the expected page counts, computed from the event and the layout data files (read here with
tomllib, never through the code under test)."""

from __future__ import annotations

import io
import math
import re
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from dealer.event import Event, Match

DPI = 150
DATA = Path(__file__).resolve().parent.parent / "dealer" / "data"
SEAT_POCKETS = 4  # 东 北 西 南


def read_data(*parts: str) -> dict[str, Any]:
    """A layout data file of ``dealer/data``."""
    return tomllib.loads(DATA.joinpath(*parts).read_text(encoding="utf-8"))


def per_sheet(layout: dict[str, Any]) -> int:
    return int(layout["columns"]) * int(layout["rows"])


def set_matches(event: Event, set_number: int) -> list[Match]:
    """The matches that play a set, straight from the event's rounds."""
    return [m for rnd in event.rounds for m in rnd.matches if m.set == set_number]


def set_copies(event: Event, set_number: int) -> int:
    """One physical copy of the set per match playing it in the same round (at least one)."""
    return max([1] + [sum(1 for m in rnd.matches if m.set == set_number) for rnd in event.rounds])


def kitty_apart(event: Event) -> bool:
    return event.kitty_mode == "separate" and event.kitty > 0


def pockets_per_wallet(event: Event) -> int:
    """东 北 西 南, and 底牌 when the kitty is dealt apart."""
    return SEAT_POCKETS + (1 if kitty_apart(event) else 0)


def expected_pages(event: Event, kind: str, set_number: int, per_page: int = 2,
                   label_layout: str = "a4-3x8") -> int:
    boards = event.boards_per_set
    copies = set_copies(event, set_number)
    matches = len(set_matches(event, set_number))
    pages = read_data("pages.toml")
    labels = read_data("labels", f"{label_layout}.toml")
    labels_per_wallet = 1 if labels["pocket_labels"] == "inline" else 1 + pockets_per_wallet(event)
    return {
        "hand-records": math.ceil(boards / per_page),
        "labels": math.ceil(boards * copies * labels_per_wallet / per_sheet(labels)),
        "curtain-cards": math.ceil(boards * copies * pockets_per_wallet(event) / per_sheet(pages["curtain-cards"])),
        "dealing-guide": math.ceil(boards / int(pages["dealing-guide"]["boards_per_page"])),
        "travellers": travellers_pages(boards, matches, per_sheet(pages["travellers"])),
        "score-sheets": 2 * matches,
        "table-cards": math.ceil(2 * matches / per_sheet(pages["table-cards"])),
    }[kind]


def travellers_pages(boards: int, matches: int, per_page: int) -> int:
    """One slip per board per table of each match; a table's slips start a page of their own when
    they fill one, smaller groups share pages."""
    if boards >= per_page:
        return 2 * matches * math.ceil(boards / per_page)
    return math.ceil(2 * matches * boards / per_page)


_POCKET_LABEL = re.compile(r"^(东|北|西|南|底牌)\s*(\d+) 张\s*牌号 (\d+) · 第 (\d+) 套 · 副本 (\d+)$")
MM = 72 / 25.4


def _grid_texts(path: Path, rows: int, columns: int,
                box: Callable[[int, int, float], tuple[float, float, float, float]]) -> Iterator[str]:
    """The text in each cell of a grid of a PDF's pages, page by page, row by row: ``box(row,
    column, page height in mm)`` gives a cell's (left, bottom, right, top) in mm from the page's
    bottom left; the text of a cell whatever order the page draws it in."""
    import pypdfium2

    pdf = pypdfium2.PdfDocument(str(path))
    try:
        for index in range(len(pdf)):
            page = pdf[index]
            text = page.get_textpage()
            page_height = page.get_height() / MM
            for row in range(rows):
                for column in range(columns):
                    left, bottom, right, top = box(row, column, page_height)
                    yield text.get_text_bounded(left * MM, bottom * MM, right * MM, top * MM)
    finally:
        pdf.close()


def label_texts(path: Path, label_layout: str = "a4-3x8") -> Iterator[str]:
    """The text inside each label of a label PDF, label by label (the places from the layout data)."""
    layout = read_data("labels", f"{label_layout}.toml")
    width, height = float(layout["label_width_mm"]), float(layout["label_height_mm"])

    def box(row: int, column: int, _page_height: float) -> tuple[float, float, float, float]:
        left = float(layout["margin_left_mm"]) + column * (width + float(layout["gap_x_mm"]))
        top = float(layout["margin_top_mm"]) + row * (height + float(layout["gap_y_mm"]))
        bottom = float(layout["page_height_mm"]) - top - height
        return left, bottom, left + width, bottom + height

    return _grid_texts(path, int(layout["rows"]), int(layout["columns"]), box)


#: How far down a curtain card's head reaches from the slip's top edge (padding, head and its rule).
CURTAIN_HEAD_MM = 17


def curtain_heads(path: Path) -> Iterator[str]:
    """The head of each curtain card of a PDF, slip by slip (the places from pages.toml; a layered
    page draws the copy number apart)."""
    layout = read_data("pages.toml")["curtain-cards"]
    width, height = float(layout["slip_width_mm"]), float(layout["slip_height_mm"])

    def box(row: int, column: int, page_height: float) -> tuple[float, float, float, float]:
        left, top = column * width, row * height
        return left, page_height - top - CURTAIN_HEAD_MM, left + width, page_height - top

    return _grid_texts(path, int(layout["rows"]), int(layout["columns"]), box)


def pocket_labels(path: Path) -> dict[tuple[int, int, int], dict[str, int]]:
    """The pocket labels of a Chinese 70 × 37 mm label PDF: (set, board, copy) → {pocket: count}."""
    found: dict[tuple[int, int, int], dict[str, int]] = {}
    for text in label_texts(path):
        match = _POCKET_LABEL.match(text.strip())
        if match is None:
            continue
        name, count, board, set_number, copy = match.groups()
        wallet = found.setdefault((int(set_number), int(board), int(copy)), {})
        assert name not in wallet, (name, board, copy)
        wallet[name] = int(count)
    return found


def page_images(path: Path) -> Iterator[Any]:
    import pypdfium2

    pdf = pypdfium2.PdfDocument(str(path))
    try:
        for index in range(len(pdf)):
            yield pdf[index].render(scale=DPI / 72).to_pil()
    finally:
        pdf.close()


def decode_qr_codes(path: Path) -> list[str]:
    """Every QR code on every page, rasterized at 150 dpi, decoded with zxing-cpp."""
    import zxingcpp

    found: list[str] = []
    for image in page_images(path):
        results = zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode)
        found.extend(result.text for result in results)
    return found


def page_count(path: Path) -> int:
    from pypdf import PdfReader

    return len(PdfReader(str(path)).pages)


def page_texts(path: Path) -> list[str]:
    from pypdf import PdfReader

    return [page.extract_text() for page in PdfReader(str(path)).pages]


_HEX = re.compile(r"<([0-9A-Fa-f]+)>")


def _to_unicode(cmap: bytes) -> dict[int, str]:
    """glyph id → text of a ToUnicode CMap (bfchar and bfrange sections)."""
    text = cmap.decode("latin-1")
    mapping: dict[int, str] = {}
    for block in re.findall(r"beginbfchar(.*?)endbfchar", text, re.S):
        pairs = _HEX.findall(block)
        for source, target in zip(pairs[::2], pairs[1::2], strict=True):
            mapping[int(source, 16)] = bytes.fromhex(target).decode("utf-16-be")
    for block in re.findall(r"beginbfrange(.*?)endbfrange", text, re.S):
        for line in block.strip().splitlines():
            values = _HEX.findall(line)
            if len(values) < 3:
                continue
            low, high = int(values[0], 16), int(values[1], 16)
            if "[" in line:
                for offset, target in enumerate(values[2:]):
                    mapping[low + offset] = bytes.fromhex(target).decode("utf-16-be")
            else:
                start = int(values[2], 16)
                width = len(values[2]) // 2
                for offset in range(high - low + 1):
                    mapping[low + offset] = (start + offset).to_bytes(width, "big").decode("utf-16-be")
    return mapping


def _drawn_glyphs(font_file: bytes, gids: set[int]) -> set[int]:
    """Glyph ids of an embedded CFF / OpenType font that have an outline."""
    from fontTools.cffLib import CFFFontSet
    from fontTools.ttLib import TTFont

    if font_file[:4] == b"OTTO":
        cff = TTFont(io.BytesIO(font_file))["CFF "].cff
    else:
        cff = CFFFontSet()
        cff.decompile(io.BytesIO(font_file), None)
    top = cff[cff.fontNames[0]]
    strings = top.CharStrings
    order = list(top.charset)
    drawn: set[int] = set()
    for gid in gids:
        if gid < len(order) and strings[order[gid]].calcBounds(strings) is not None:
            drawn.add(gid)
    return drawn


def _font_dicts(reader: Any) -> Iterator[Any]:
    """The font dictionaries of every page and of every form XObject the pages draw (a layered
    page draws the part it shares with other pages as a form)."""
    seen: set[int] = set()
    stack = [page["/Resources"].get_object() for page in reader.pages]
    while stack:
        resources = stack.pop()
        if id(resources) in seen:
            continue
        seen.add(id(resources))
        fonts = resources.get("/Font")
        if fonts:
            yield fonts.get_object()
        xobjects = resources.get("/XObject")
        for ref in xobjects.get_object().values() if xobjects else ():
            xobject = ref.get_object()
            if xobject.get("/Subtype") == "/Form" and "/Resources" in xobject:
                stack.append(xobject["/Resources"].get_object())


def font_coverage(path: Path) -> tuple[dict[str, set[str]], set[str]]:
    """Per embedded font: the characters it draws with a real glyph (not .notdef, not empty).
    Also the characters mapped only to .notdef or to an empty glyph anywhere (tofu)."""
    from pypdf import PdfReader

    reader = PdfReader(str(path))
    covered: dict[str, set[str]] = {}
    missing: set[str] = set()
    seen: set[int] = set()
    for font_dict in _font_dicts(reader):
        for ref in font_dict.values():
            font = ref.get_object()
            if id(font) in seen or "/ToUnicode" not in font:
                continue
            seen.add(id(font))
            name = str(font["/BaseFont"]).split("+", 1)[-1]
            descendant = font["/DescendantFonts"][0].get_object()
            descriptor = descendant["/FontDescriptor"].get_object()
            stream = descriptor.get("/FontFile3") or descriptor.get("/FontFile2")
            assert stream is not None, f"{path}: font {name} is not embedded"
            data = stream.get_object().get_data()
            to_unicode = _to_unicode(font["/ToUnicode"].get_object().get_data())
            drawn = _drawn_glyphs(data, set(to_unicode)) if "/FontFile3" in descriptor else None
            for gid, chars in to_unicode.items():
                ok = gid != 0 and (drawn is None or gid in drawn)
                for char in chars:
                    if ok:
                        covered.setdefault(name, set()).add(char)
                    elif not char.isspace():
                        missing.add(char)
    return covered, missing
