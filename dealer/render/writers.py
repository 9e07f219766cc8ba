"""The table of writers: one per KIND, each turning the event into documents to render.

Writers read dealt boards with :func:`dealer.boardsets.load_boards` and the key file for labels;
they never deal, and never change anything under ``boards/``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dealer.boardsets import KEY_FILE, check_plan, load_boards, read_commitment
from dealer.event import Event
from dealer.files import FileProblem, boards_dir, boardset_path, read_boardset, read_key
from dealer.render import context as ctx
from dealer.render.engine import Document
from dealer.render.pages import page_layout
from dealer.render.strings import strings
from dealer.resources import label_layouts

KINDS = ("hand-records", "labels", "curtain-cards", "dealing-guide", "travellers", "score-sheets")
HAND_RECORDS_PER_PAGE = (1, 2, 4)
DEFAULT_LAYOUT = "a4-3x8"


@dataclass
class PrintOptions:
    lang: str = "zh"
    fmt: str = "pdf"
    out_dir: Path | None = None
    sets: tuple[int, ...] | None = None
    copies: int | None = None
    boards_root: Path = Path("boards")
    key_file: Path | None = None
    per_page: int = 2
    layout: str = DEFAULT_LAYOUT

    def output_dir(self, event: Event) -> Path:
        return self.out_dir if self.out_dir is not None else Path("output") / event.slug


class Source:
    """What the writers read: the event, its dealt sets (cached) and, for labels, the key."""

    def __init__(self, event: Event, options: PrintOptions) -> None:
        self.event = event
        self.options = options
        self._boards: dict[int, Any] = {}
        self._key: bytes | None = None

    def set_numbers(self) -> list[int]:
        if self.options.sets is None:
            return list(range(1, self.event.sets + 1))
        for number in self.options.sets:
            if not 1 <= number <= self.event.sets:
                raise FileProblem(f"--set {number}: the event has sets 1 to {self.event.sets}")
        return list(self.options.sets)

    def copies(self, set_number: int) -> int:
        if self.options.copies is not None:
            if self.options.copies < 1:
                raise FileProblem(f"--copies {self.options.copies}: expected at least 1")
            return self.options.copies
        return self.event.copies_needed(set_number)

    def boards(self, set_number: int) -> Any:
        if set_number not in self._boards:
            self._boards[set_number] = load_boards(self.event, set_number, self.options.boards_root)
        return self._boards[set_number]

    def set_info(self, set_number: int) -> dict[str, str]:
        data = read_boardset(boardset_path(self.event, set_number, self.options.boards_root))
        return {"fingerprint": str(data.get("fingerprint", "")), "commitment": str(data.get("commitment", ""))}

    def key(self) -> bytes:
        if self._key is None:
            path = self.options.key_file or boards_dir(self.event, self.options.boards_root) / KEY_FILE
            if not path.exists():
                raise FileProblem(
                    f"{path}: no key file, so wallet labels cannot be printed "
                    "(their QR check tag needs the key; give it with --key-file)"
                )
            self._key = read_key(path)
        return self._key

    def layout(self) -> dict[str, Any]:
        layouts = label_layouts()
        if self.options.layout not in layouts:
            raise FileProblem(
                f"--layout {self.options.layout}: unknown label layout (known: {', '.join(sorted(layouts))})"
            )
        return layouts[self.options.layout]

    def common(self, kind: str, set_number: int | None) -> dict[str, Any]:
        event = self.event
        return {
            "lang": self.options.lang,
            "kind": kind,
            "css": f"{kind}.css",
            "event_name": event.name,
            "event_id": event.id,
            "event_date": event.date,
            "profile": event.profile.id,
            "decks": event.decks,
            "set_number": set_number,
        }

    def path(self, kind: str, set_number: int) -> Path:
        suffix = "pdf" if self.options.fmt == "pdf" else "html"
        return self.options.output_dir(self.event) / f"{kind}-set-{set_number:02d}-{self.options.lang}.{suffix}"


Writer = Callable[[Source, int], Document]


def hand_records(source: Source, set_number: int) -> Document:
    t = strings(source.options.lang)
    per_page = source.options.per_page
    if per_page not in HAND_RECORDS_PER_PAGE:
        raise FileProblem(f"--per-page {per_page}: expected 1, 2 or 4 boards per page")
    boards = source.boards(set_number)
    common = source.common("hand-records", set_number)
    info = source.set_info(set_number)
    common.update(info)
    common["commitment"] = read_commitment(source.event, source.options.boards_root) or info["commitment"]
    common["per_page"] = per_page
    pages = ctx.hand_record_pages(boards, per_page, t)
    return Document(source.path("hand-records", set_number), "hand-records", "hand-records.html",
                    common, pages, {"boards": len(boards)})


def labels(source: Source, set_number: int) -> Document:
    t = strings(source.options.lang)
    layout = source.layout()
    copies = source.copies(set_number)
    cells, wallets = ctx.label_items(source.event, set_number, copies, source.key(), layout, t)
    common = source.common("labels", set_number)
    common["layout"] = layout
    common["copies"] = copies
    pages = ctx.label_pages(cells, layout)
    return Document(source.path("labels", set_number), "labels", "labels.html", common, pages,
                    {"wallet labels": wallets, "pocket labels": wallets * len(ctx.pocket_places(source.event))})


def curtain_cards(source: Source, set_number: int) -> Document:
    t = strings(source.options.lang)
    copies = source.copies(set_number)
    boards = source.boards(set_number)
    common = source.common("curtain-cards", set_number)
    common["slip"] = page_layout("curtain-cards")
    pages = ctx.curtain_pages(boards, copies, t)
    return Document(source.path("curtain-cards", set_number), "curtain-cards", "curtain-cards.html",
                    common, pages, {"slips": sum(len(page["slips"]) for page in pages)})


def dealing_guide(source: Source, set_number: int) -> Document:
    t = strings(source.options.lang)
    boards = source.boards(set_number)
    common = source.common("dealing-guide", set_number)
    common["copies"] = source.copies(set_number)
    pages = [ctx.guide_page(board, source.event.decks, t) for board in boards]
    return Document(source.path("dealing-guide", set_number), "dealing-guide", "dealing-guide.html",
                    common, pages, {"boards": len(boards)})


def travellers(source: Source, set_number: int) -> Document:
    t = strings(source.options.lang)
    common = source.common("travellers", set_number)
    common["slip"] = page_layout("travellers")
    pages = ctx.traveller_pages(source.event, set_number, t)
    count = sum(len(page["slips"]) for page in pages)
    return Document(source.path("travellers", set_number), "travellers", "travellers.html",
                    common, pages, {"travellers": count})


def score_sheets(source: Source, set_number: int) -> Document:
    t = strings(source.options.lang)
    common = source.common("score-sheets", set_number)
    pages = ctx.score_sheet_pages(source.event, set_number, t)
    return Document(source.path("score-sheets", set_number), "score-sheets", "score-sheets.html",
                    common, pages, {"score sheets": len(pages)})


WRITERS: dict[str, Writer] = {
    "hand-records": hand_records,
    "labels": labels,
    "curtain-cards": curtain_cards,
    "dealing-guide": dealing_guide,
    "travellers": travellers,
    "score-sheets": score_sheets,
}


def expand_kinds(kind: str) -> list[str]:
    if kind == "all":
        return list(KINDS)
    if kind not in WRITERS:
        raise FileProblem(f"unknown kind {kind!r} (one of {', '.join(KINDS)}, all)")
    return [kind]


def build_documents(event: Event, kind: str, options: PrintOptions) -> list[Document]:
    """Every document that ``dealer print KIND`` writes, not yet rendered."""
    # Labels, travellers and score sheets print the event's declarers and levels.
    check_plan(event, options.boards_root)
    source = Source(event, options)
    kinds = expand_kinds(kind)
    sets = source.set_numbers()
    if "labels" in kinds:
        source.key()  # fail early, before anything is rendered
    return [WRITERS[k](source, s) for k in kinds for s in sets]
