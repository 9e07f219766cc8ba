"""The built-in demo: deal the example event (and, as the other parts land, print and score it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from dealer.boardsets import deal_event
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
    from dealer.report.demo import score_demo

    yield from score_demo(event, boards_root, output_root)
