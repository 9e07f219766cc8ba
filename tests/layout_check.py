"""Text that does not fit its box, found in WeasyPrint's own layout (the engine that prints the
PDF): every piece of text must lie inside the padding box of every block that holds it (a table
cell, a slip, a label, the page), so nothing is cut off by ``overflow: hidden`` nor spills over a
neighbour; and no text is set below a minimum size."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from dealer.render.engine import html_document

#: CSS pixels per millimetre and per point (WeasyPrint lays out in CSS px: 96 per inch).
PX_PER_MM = 96 / 25.4
PX_PER_PT = 96 / 72
#: Rounding slack of the text shaper, in CSS px (0.05 mm).
TOLERANCE = 0.2


@dataclass(frozen=True)
class Overflow:
    page: int
    text: str
    container: str
    #: How far the text sticks out, in millimetres (largest side).
    by_mm: float

    def __str__(self) -> str:
        return f"page {self.page}: {self.text!r} sticks out of {self.container} by {self.by_mm:.2f} mm"


@dataclass(frozen=True)
class TextPiece:
    page: int
    text: str
    size_pt: float


def _describe(box: Any) -> str:
    element = getattr(box, "element", None)
    if element is None:
        return type(box).__name__
    classes = element.get("class", "")
    return f"<{element.tag}{' class=' + repr(classes) if classes else ''}>"


def _is_container(box: Any) -> bool:
    from weasyprint.formatting_structure import boxes

    if isinstance(box, boxes.LineBox | boxes.InlineBox | boxes.TextBox | boxes.TableRowBox
                  | boxes.TableRowGroupBox | boxes.TableColumnBox | boxes.TableColumnGroupBox):
        return False
    return isinstance(box, boxes.BlockLevelBox | boxes.TableCellBox | boxes.InlineBlockBox
                      | boxes.PageBox | boxes.FlexContainerBox | boxes.BlockContainerBox)


def _bounds_height(box: Any) -> bool:
    """Whether a box holds its content to its height: a set height, clipping, or a page. Other
    blocks grow with their content, so only widths bind them."""
    from weasyprint.formatting_structure import boxes

    if isinstance(box, boxes.PageBox):
        return True
    return box.style["height"] != "auto" or box.style["overflow"] != "visible"


def _walk(box: Any, page: int, clips: list[tuple[str, bool, float, float, float, float]],
          overflows: list[Overflow], texts: list[TextPiece]) -> None:
    from weasyprint.formatting_structure import boxes

    box = getattr(box, "_box", box)  # an absolutely positioned box sits behind a placeholder
    if isinstance(box, boxes.TextBox):
        if box.text.strip():
            size = box.style["font_size"]
            texts.append(TextPiece(page, box.text, size / PX_PER_PT))
            left, right = box.position_x, box.position_x + box.width
            # The glyphs' ink, not the font's line box: from the cap height to the descenders.
            baseline = box.position_y + box.baseline
            top, bottom = baseline - 0.9 * size, baseline + 0.22 * size
            for name, vertical, cl, ct, cr, cb in clips:
                beyond_y = max(ct - top, bottom - cb) if vertical else 0.0
                out = max(cl - left, right - cr, beyond_y, 0.0)
                if out > TOLERANCE:
                    overflows.append(Overflow(page, box.text, name, out / PX_PER_MM))
                    break
        return
    if _is_container(box) and box.width is not None:
        clips = [*clips, (_describe(box), _bounds_height(box), box.padding_box_x(), box.padding_box_y(),
                          box.padding_box_x() + box.padding_width(),
                          box.padding_box_y() + box.padding_height())]
    for child in getattr(box, "children", ()):
        _walk(child, page, clips, overflows, texts)


def check_html(html: str) -> tuple[list[Overflow], list[TextPiece]]:
    """Lay out ``html`` as the PDF renderer does (its stylesheets' links resolved in ``templates/``);
    the text sticking out of its boxes, and every piece of text with its size."""
    document = html_document(html).render()
    overflows: list[Overflow] = []
    texts: list[TextPiece] = []
    for number, page in enumerate(document.pages, start=1):
        _walk(page._page_box, number, [], overflows, texts)
    return overflows, texts


def pieces(items: list[Overflow]) -> Iterator[str]:
    for item in items:
        yield str(item)
