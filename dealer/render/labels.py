"""Label sheet layouts (data: ``dealer/data/labels/*.toml``), checked when they load.

Every layout keeps a safe area: no ink nearer than ``SHEET_EDGE_MM`` to the edge of the sheet
(office lasers print nothing in their last 4-5 mm) and none nearer than ``LABEL_INSET_MM`` to the
edge of its label (die-cut sheets feed with about ±1 mm of play). A label at the sheet's edge gets
a wider inset on that side. ``--start-at`` and ``--offset-x/-y`` move the ink on the sheet.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dealer.errors import Phrase, UserError

SHEET_EDGE_MM = 5.0
LABEL_INSET_MM = 2.0
#: Printer drift corrected by --offset-x/--offset-y is a few millimetres; more is a wrong layout.
MAX_OFFSET_MM = 5.0
#: The least room, inside the safe area, that each label style needs for its content
#: (width, height in mm): a 70 × 37 mm wallet label (board, conditions, QR code) and a half page.
MIN_CONTENT_MM = {"separate": (55.0, 26.0), "inline": (150.0, 110.0)}
_NUMBERS = ("page_width_mm", "page_height_mm", "label_width_mm", "label_height_mm", "margin_top_mm",
            "margin_left_mm", "gap_x_mm", "gap_y_mm", "qr_module_mm", "inset_mm", "sheet_edge_mm")


class LayoutError(UserError):
    """A label layout file that would put ink where a printer or a label cannot take it."""


@dataclass(frozen=True)
class LabelLayout:
    id: str
    name: str
    product: str
    page_width_mm: float
    page_height_mm: float
    columns: int
    rows: int
    label_width_mm: float
    label_height_mm: float
    margin_top_mm: float
    margin_left_mm: float
    gap_x_mm: float
    gap_y_mm: float
    pocket_labels: str
    qr_module_mm: float
    inset_mm: float
    sheet_edge_mm: float

    @property
    def per_sheet(self) -> int:
        return self.columns * self.rows

    def label_box(self, position: int) -> tuple[float, float, float, float]:
        """Left, top, right, bottom (mm on the sheet) of the label at ``position`` (0-based,
        row by row)."""
        column, row = position % self.columns, position // self.columns
        left = self.margin_left_mm + column * (self.label_width_mm + self.gap_x_mm)
        top = self.margin_top_mm + row * (self.label_height_mm + self.gap_y_mm)
        return left, top, left + self.label_width_mm, top + self.label_height_mm

    def safe_insets(self, position: int) -> tuple[float, float, float, float]:
        """Insets (left, top, right, bottom, mm) inside the label that keep its ink in the safe area."""
        left, top, right, bottom = self.label_box(position)
        return (max(self.inset_mm, self.sheet_edge_mm - left),
                max(self.inset_mm, self.sheet_edge_mm - top),
                max(self.inset_mm, right - (self.page_width_mm - self.sheet_edge_mm)),
                max(self.inset_mm, bottom - (self.page_height_mm - self.sheet_edge_mm)))

    def place(self, position: int, offset_x: float = 0.0, offset_y: float = 0.0) -> dict[str, Any]:
        """Where the template draws the label at ``position``: its box moved by the offsets, and
        the insets of its safe area (all in mm)."""
        left, top, _, _ = self.label_box(position)
        inset = [round(value, 3) for value in self.safe_insets(position)]
        left, top = round(left + offset_x, 3), round(top + offset_y, 3)
        return {"left": left, "top": top,
                "width": self.label_width_mm, "height": self.label_height_mm,
                "inset_left": inset[0], "inset_top": inset[1], "inset_right": inset[2], "inset_bottom": inset[3],
                # the safe area's edges from the sheet's edges: a part placed on the page directly
                "safe_left": round(left + inset[0], 3), "safe_top": round(top + inset[1], 3),
                "safe_right": round(self.page_width_mm - (left + self.label_width_mm - inset[2]), 3),
                "safe_bottom": round(self.page_height_mm - (top + self.label_height_mm - inset[3]), 3),
                # a cut line under the label unless it is the sheet's edge
                "cut": self.label_box(position)[3] < self.page_height_mm - self.sheet_edge_mm}

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def layout_from_mapping(layout_id: str, data: dict[str, Any]) -> LabelLayout:
    """Build and check a layout; :class:`LayoutError` names the layout and what breaks."""
    where = f"label layout {layout_id}"
    missing = [key for key in (*_NUMBERS, "columns", "rows", "pocket_labels") if key not in data]
    if missing:
        raise LayoutError("render.layout_missing", field="layout", where=where, missing=', '.join(missing))
    try:
        numbers = {key: float(data[key]) for key in _NUMBERS}
        columns, rows = int(data["columns"]), int(data["rows"])
    except (TypeError, ValueError):
        raise LayoutError("render.sizes_not_numbers", field="layout", where=where) from None
    if data["pocket_labels"] not in MIN_CONTENT_MM:
        raise LayoutError("render.bad_pocket_labels", field="layout", where=where)
    if numbers["inset_mm"] < LABEL_INSET_MM:
        raise LayoutError("render.inset_too_small",
                          field="layout", where=where, inset=numbers['inset_mm'], minimum=LABEL_INSET_MM)
    if numbers["sheet_edge_mm"] < SHEET_EDGE_MM:
        raise LayoutError("render.sheet_edge_too_small",
                          field="layout", where=where, edge=numbers['sheet_edge_mm'], minimum=SHEET_EDGE_MM)
    layout = LabelLayout(
        id=layout_id, name=str(data.get("name", layout_id)), product=str(data.get("product", "")),
        columns=columns, rows=rows, pocket_labels=str(data["pocket_labels"]),
        **numbers,
    )
    if columns < 1 or rows < 1 or layout.label_width_mm <= 0 or layout.label_height_mm <= 0:
        raise LayoutError("render.no_label", field="layout", where=where)
    right, bottom = layout.label_box(layout.per_sheet - 1)[2:]
    if layout.margin_left_mm < 0 or layout.margin_top_mm < 0 or right > layout.page_width_mm + 0.01 \
            or bottom > layout.page_height_mm + 0.01:
        raise LayoutError("render.labels_do_not_fit", field="layout", where=where, width=layout.page_width_mm,
                          height=layout.page_height_mm)
    need_width, need_height = MIN_CONTENT_MM[layout.pocket_labels]
    for position in range(layout.per_sheet):
        inset = layout.safe_insets(position)
        width = layout.label_width_mm - inset[0] - inset[2]
        height = layout.label_height_mm - inset[1] - inset[3]
        if width < need_width or height < need_height:
            column, row = position % columns + 1, position // columns + 1
            raise LayoutError(
                "render.label_too_small",
                field="layout", where=where, row=row, column=column, width=max(width, 0), height=max(height, 0),
                edge=layout.sheet_edge_mm, inset=layout.inset_mm, need_width=need_width, need_height=need_height)
    return layout


def check_offsets(offset_x: float, offset_y: float) -> None:
    for name, value in (("offset_x", offset_x), ("offset_y", offset_y)):
        if abs(value) > MAX_OFFSET_MM:
            raise UserError("render.offset_too_big", field=name, value=value, limit=MAX_OFFSET_MM)


def load_label_layout(name: str) -> LabelLayout:
    """A layout by id (``dealer/data/labels/<id>.toml``) or from a ``.toml`` file of one's own
    label product; checked before anything is printed."""
    import tomllib
    from pathlib import Path

    from dealer.resources import label_layouts

    if name.endswith(".toml"):
        from dealer.files import read_bytes

        path = Path(name)
        try:
            data = tomllib.loads(read_bytes(path, Phrase("files.what_label_layout"), 1 << 16).decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
            raise LayoutError("render.bad_layout_file", field="layout", path=path, error=error) from None
        return layout_from_mapping(str(path), data)
    layouts = label_layouts()
    if name not in layouts:
        raise LayoutError("render.unknown_layout",
                          field="layout", name=name, layouts=', '.join(sorted(layouts)))
    return layout_from_mapping(name, layouts[name])
