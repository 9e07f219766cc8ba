"""Helpers for the print tests: rasterize pages, decode QR codes, read PDF fonts and text."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

DPI = 150


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


def font_coverage(path: Path) -> tuple[dict[str, set[str]], set[str]]:
    """Per embedded font: the characters it draws with a real glyph (not .notdef, not empty).
    Also the characters mapped only to .notdef or to an empty glyph anywhere (tofu)."""
    from pypdf import PdfReader

    reader = PdfReader(str(path))
    covered: dict[str, set[str]] = {}
    missing: set[str] = set()
    seen: set[int] = set()
    for page in reader.pages:
        fonts = page["/Resources"].get_object().get("/Font")
        if not fonts:
            continue
        for ref in fonts.get_object().values():
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
