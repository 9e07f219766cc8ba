"""The built-in demo: deal the example event (and, as the other parts land, print and score it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from dealer.boardsets import deal_event
from dealer.event import Event
from dealer.files import boardset_path, load_event_text, write_atomic
from dealer.resources import demo_event_text

DEMO_EVENT_FILE = "event.toml"


def demo_event_path(boards_root: Path) -> Path:
    return boards_root / "demo" / DEMO_EVENT_FILE


def run_demo(boards_root: Path, output_root: Path) -> Iterator[str]:
    """Deal the demo event (once: an existing deal is kept, never replaced) and yield a summary."""
    text = demo_event_text()
    event_path = demo_event_path(boards_root)
    event = load_event_text(text, str(event_path))
    if not event_path.exists():
        write_atomic(event_path, text.encode("utf-8"))
    if boardset_path(event, 1, boards_root).exists():
        yield f"demo event already dealt in {boards_root / event.slug}/ (kept as it is)"
    else:
        report = deal_event(event, root=boards_root)
        yield f"dealt {event.sets} sets of {event.boards_per_set} boards into {report.folder}/"
        yield f"throw-away key: {report.key_file} (demo only)"
        yield f"commitment: {report.commitment}"
    yield (
        f"event: {event.name}, {len(event.teams)} teams, {len(event.rounds)} rounds, "
        f"profile {event.profile.id}, {event.decks} decks, hands {event.hand} "
        f"(declarer {event.hand + event.kitty})"
    )
    yield f"event file: {event_path}"
    yield from print_demo(event, boards_root, output_root)
    from dealer.report.demo import score_demo

    yield from score_demo(event, boards_root, output_root)


def print_demo(event: Event, boards_root: Path, output_root: Path) -> Iterator[str]:
    """Render the whole print pack of the demo event (Chinese) into ``output/demo/``."""
    from dealer.render import PrintOptions, build_documents, render_documents

    options = PrintOptions(lang="zh", out_dir=output_root / event.slug, boards_root=boards_root)
    written = render_documents(build_documents(event, "all", options))
    pages = sum(item.pages for item in written)
    size = sum(item.size for item in written) / 1024 / 1024
    yield f"print pack: {len(written)} PDF files, {pages} pages, {size:.1f} MiB in {output_root / event.slug}/"
