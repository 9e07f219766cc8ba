"""Label sheets on a real office printer: the safe area (checked when a layout loads and measured
on the rendered page), --start-at, --offset-x/-y, the alignment sheet, and `dealer check-label`
on payloads decoded from the rendered labels with zxing-cpp."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from conftest import run_dealer as run
from print_support import DATA, DPI, decode_qr_codes, page_images

from dealer.app.dealing import deal_event
from dealer.files import load_event_text, read_key
from dealer.formats.qr import label_payload, parse_payload
from dealer.resources import demo_event_text
from dealer.store.folder import EventFolder

PX_PER_MM = DPI / 25.4


class Sheets:
    def __init__(self, root: Path) -> None:
        self.event = load_event_text(demo_event_text(), "demo")
        self.boards = root / "boards"
        deal_event(self.event, EventFolder(self.event.id, self.boards))
        self.event_file = root / "event.toml"
        self.event_file.write_text(demo_event_text(), encoding="utf-8")
        self.root = root

    def print(self, name: str, *args: Any) -> Path:
        out = self.root / name
        code, _, stderr = run("print", *args, self.event_file, "--boards-dir", self.boards, "--out", out,
                                   "--jobs", 1)
        assert code == 0, stderr
        [pdf] = sorted(out.glob("*.pdf"))
        return pdf


@pytest.fixture(scope="module")
def sheets(tmp_path_factory: pytest.TempPathFactory) -> Sheets:
    return Sheets(tmp_path_factory.mktemp("labels"))


def ink_box(image: Any) -> tuple[float, float, float, float]:
    """Left, top, right, bottom of everything printed on a page, in mm."""
    box = image.convert("L").point(lambda v: 255 if v < 200 else 0).getbbox()
    assert box is not None
    return tuple(v / PX_PER_MM for v in box)  # type: ignore[return-value]


def layout_data(name: str) -> dict[str, Any]:
    return tomllib.loads((DATA / "labels" / f"{name}.toml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("layout", ["a4-3x8", "a4-3x8-36", "a4-half"])
def test_ink_stays_in_the_safe_area(sheets: Sheets, layout: str) -> None:
    """≥ 5 mm from the sheet edge; ≥ 2 mm inside each label (no ink within 2 mm of a label edge)."""
    pdf = sheets.print(f"safe-{layout}", "labels", "--set", 1, "--layout", layout, "--board", 1, "--board", 2,
                       "--board", 3, "--board", 4, "--board", 5)
    data = layout_data(layout)
    image = next(page_images(pdf)).convert("L")
    left, top, right, bottom = ink_box(image)
    assert min(left, top, 210 - right, 297 - bottom) >= 5 - 0.2
    grey = image.point(lambda v: 255 if v < 200 else 0)
    width, height = grey.size
    for column in range(1, data["columns"]):
        x = data["margin_left_mm"] + column * (data["label_width_mm"] + data["gap_x_mm"]) - data["gap_x_mm"] / 2
        band = grey.crop((int((x - 2) * PX_PER_MM) + 2, 0, int((x + 2) * PX_PER_MM) - 2, height))  # 0.3 mm slack
        assert band.getbbox() is None, (layout, "column edge", column)
    for row in range(1, data["rows"]):
        y = data["margin_top_mm"] + row * (data["label_height_mm"] + data["gap_y_mm"]) - data["gap_y_mm"] / 2
        band = grey.crop((0, int((y - 2) * PX_PER_MM) + 2, width, int((y + 2) * PX_PER_MM) - 2))
        if data["pocket_labels"] == "inline":  # the half page has a dashed cut line at its middle
            continue
        assert band.getbbox() is None, (layout, "row edge", row)


def test_layout_files_name_their_label_product() -> None:
    assert layout_data("a4-3x8")["product"] == "Avery Zweckform 3474"
    assert (layout_data("a4-3x8")["label_width_mm"], layout_data("a4-3x8")["label_height_mm"]) == (70, 37)
    assert layout_data("a4-3x8-36")["product"] == "Avery Zweckform 3475"
    assert (layout_data("a4-3x8-36")["label_height_mm"], layout_data("a4-3x8-36")["margin_top_mm"]) == (36, 4.4)


@pytest.mark.parametrize(("change", "words"), [
    ({"inset_mm": 1}, "inset_mm = 1 mm: ink must stay at least 2 mm inside each label"),
    ({"sheet_edge_mm": 3}, "sheet_edge_mm = 3 mm: ink must stay at least 5 mm from the sheet edge"),
    ({"label_height_mm": 30, "margin_top_mm": 0}, "keeps 63.0 × 23.0 mm inside the safe area"),
    ({"columns": 4}, "the labels do not fit on the 210 × 297 mm sheet"),
])
def test_a_layout_that_breaks_the_safe_area_is_refused(
    sheets: Sheets, tmp_path: Path, change: dict[str, Any], words: str
) -> None:
    data = {**layout_data("a4-3x8"), **change}
    path = tmp_path / "my-labels.toml"
    path.write_text("\n".join(f"{k} = {v!r}" if isinstance(v, str) else f"{k} = {v}" for k, v in data.items())
                    .replace("'", '"'), encoding="utf-8")
    code, _, stderr = run("print", "labels", sheets.event_file, "--boards-dir", sheets.boards, "--out",
                          tmp_path / "out", "--layout", path)
    assert code == 2
    assert f"--layout: label layout {path}: " in stderr and words in stderr
    assert not (tmp_path / "out").exists()


def qr_corner(pdf: Path, payload: str) -> tuple[float, float]:
    """Top-left corner (mm) of the QR code carrying ``payload`` on the first page."""
    import zxingcpp

    for result in zxingcpp.read_barcodes(next(page_images(pdf)), formats=zxingcpp.BarcodeFormat.QRCode):
        if result.text == payload:
            return result.position.top_left.x / PX_PER_MM, result.position.top_left.y / PX_PER_MM
    raise AssertionError(f"{payload} not found on {pdf}")


def test_start_at_and_offsets_move_the_ink(sheets: Sheets) -> None:
    key = read_key(EventFolder(sheets.event.id, sheets.boards).key_path)
    first, second = (label_payload(key, "demo", 1, board, 1) for board in (1, 2))
    boards = ("--set", 1, "--copies", 1, "--board", 1, "--board", 2)
    plain = sheets.print("plain", "labels", *boards)
    started = sheets.print("started", "labels", *boards, "--start-at", 6)
    moved = sheets.print("moved", "labels", *boards, "--offset-x", 3, "--offset-y", -2.5)
    # Board 1's wallet label now sits in position 6, where board 2's sat (after 1 + 4 pocket labels).
    assert qr_corner(started, first) == pytest.approx(qr_corner(plain, second), abs=0.3)
    assert qr_corner(started, first) != pytest.approx(qr_corner(plain, first), abs=5)
    # Everything printed moves by the offsets.
    plain_box, moved_box = ink_box(next(page_images(plain))), ink_box(next(page_images(moved)))
    assert [b - a for a, b in zip(plain_box, moved_box, strict=True)] == pytest.approx([3, -2.5, 3, -2.5], abs=0.2)
    x, y = qr_corner(plain, first)
    assert qr_corner(moved, first) == pytest.approx((x + 3, y - 2.5), abs=0.3)


@pytest.mark.parametrize(("args", "words"), [
    (["--start-at", 25], "--start-at: 25: a sheet of layout a4-3x8 has positions 1 to 24"),
    (["--offset-x", 6], "--offset-x: 6 mm: an offset corrects printer drift of at most 5 mm"),
])
def test_bad_sheet_options(sheets: Sheets, tmp_path: Path, args: list[Any], words: str) -> None:
    code, _, stderr = run("print", "labels", sheets.event_file, "--boards-dir", sheets.boards, "--out", tmp_path,
                          *args)
    assert code == 2 and words in stderr


def test_alignment_sheet_draws_a_cross_per_label_moved_by_the_offsets(sheets: Sheets) -> None:
    plain = sheets.print("align", "alignment")
    moved = sheets.print("align-moved", "alignment", "--offset-x", -1.5, "--offset-y", 2)
    assert plain.name == "alignment-a4-3x8-zh.pdf"
    data = layout_data("a4-3x8")
    for pdf, (dx, dy) in ((plain, (0, 0)), (moved, (-1.5, 2))):
        image = next(page_images(pdf)).convert("L")
        for position in range(data["columns"] * data["rows"]):
            column, row = position % data["columns"], position // data["columns"]
            cx = data["margin_left_mm"] + (column + 0.5) * data["label_width_mm"] + dx
            cy = data["margin_top_mm"] + (row + 0.5) * data["label_height_mm"] + dy
            if 100 < cy < 160:  # the instructions box covers the middle rows
                continue
            centre = image.getpixel((round(cx * PX_PER_MM), round(cy * PX_PER_MM)))
            beside = image.getpixel((round((cx + 1) * PX_PER_MM), round((cy + 1) * PX_PER_MM)))
            assert centre < 128 and beside > 200, (pdf.name, position)


def test_check_label_accepts_the_printed_labels_and_rejects_forged_ones(sheets: Sheets) -> None:
    pdf = sheets.print("check", "labels", "--set", 2, "--copies", 2, "--board", 7, "--board", 16)
    payloads = decode_qr_codes(pdf)
    assert len(payloads) == 4
    code, stdout, _ = run("check-label", sheets.event_file, "--boards-dir", sheets.boards,
                          input="\r\n".join(payloads) + "\n")
    assert code == 0
    for payload in payloads:
        label = parse_payload(payload)
        assert f"genuine: {payload}: set 2, board {label.board}, copy {label.copy}" in stdout  # type: ignore[union-attr]
    altered = payloads[0].replace(":2:7:", ":2:8:").replace(":2:16:", ":2:15:")
    forged = label_payload(bytes(32), "demo", 2, 7, 1)
    code, stdout, stderr = run("check-label", sheets.event_file, payloads[1], altered, forged, "SJD1:T:demo:1:1:3",
                               "--boards-dir", sheets.boards)
    assert code == 1
    assert f"genuine: {payloads[1]}" in stdout
    assert f"NOT GENUINE: {altered}: check tag does not match" in stdout
    assert f"NOT GENUINE: {forged}: check tag does not match" in stdout
    assert "NOT GENUINE: SJD1:T:demo:1:1:3: not a wallet label" in stdout
    assert "1 of 4 label(s) genuine" in stderr


def test_check_label_needs_the_committed_key(sheets: Sheets, tmp_path: Path) -> None:
    other = tmp_path / "other.key"
    other.write_text("00" * 32 + "\n", encoding="utf-8")
    code, _, stderr = run("check-label", sheets.event_file, "SJD1:L:demo:1:1:1:AAAAAAAA", "--key-file", other,
                          "--boards-dir", sheets.boards)
    assert code == 2 and "not the key of event demo" in stderr


