"""The built-in demo: deal the example event, print its whole pack, score sample results."""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources
from pathlib import Path

from dealer.dealing import deal_event
from dealer.event import Event
from dealer.files import load_event_text, write_atomic
from dealer.folder import EventFolder
from dealer.resources import demo_event_text

DEMO_EVENT_FILE = "event.toml"
SAMPLE_TRAVELLERS = "sample-travellers.csv"  # invented results for the demo event (样例数据)


def demo_event_path(folder: EventFolder) -> Path:
    return folder.path / DEMO_EVENT_FILE


def run_demo(boards_root: Path, output_root: Path) -> Iterator[str]:
    """Deal the demo event (once: an existing deal is kept, never replaced), print and score it,
    and yield a summary."""
    text = demo_event_text()
    folder = EventFolder("demo", boards_root, output_root)
    event_path = demo_event_path(folder)
    event = load_event_text(text, str(event_path))
    if folder.deal_state() == "complete":
        yield f"demo event already dealt in {folder.path}/ (kept as it is)"
    else:
        report = deal_event(event, folder)
        yield f"dealt {event.sets} sets of {event.boards_per_set} boards into {report.folder}/"
        yield f"throw-away key: {report.key_file} (demo only)"
        yield f"commitment: {report.commitment}"
    if not event_path.exists():
        write_atomic(event_path, text.encode("utf-8"))
    yield (
        f"event: {event.name}, {len(event.teams)} teams, {len(event.rounds)} rounds, "
        f"profile {event.profile.id}, {event.decks} decks, hands {event.hand} "
        f"(declarer {event.hand + event.kitty})"
    )
    yield f"event file: {event_path}"
    yield from print_demo(event, folder)
    yield from score_demo(event, folder)


def print_demo(event: Event, folder: EventFolder) -> Iterator[str]:
    """Render the whole print pack of the demo event (Chinese) into ``output/demo/``."""
    from dealer.render import PrintOptions, build_documents, render_documents

    options = PrintOptions(lang="zh", out_dir=folder.output_path, boards_root=folder.boards_root)
    written = render_documents(build_documents(event, "all", options))
    pages = sum(item.pages for item in written)
    size = sum(item.size for item in written) / 1024 / 1024
    yield f"print pack: {len(written)} PDF files, {pages} pages, {size:.1f} MiB in {folder.output_path}/"


def score_demo(event: Event, folder: EventFolder) -> Iterator[str]:
    """Import the sample travellers once (a second run is a no-op) and write every report."""
    from dealer.report import REPORT_WRITERS, build_report, write_reports
    from dealer.results.entry import missing, open_results
    from dealer.results.importer import import_file

    with open_results(event, folder) as store:
        with resources.as_file(resources.files("dealer") / "data" / SAMPLE_TRAVELLERS) as sample:
            yield "sample travellers (样例数据, invented for the demo): " + import_file(
                store, event, sample, entered_by="demo").summary()
        gaps = [report for report in missing(store, event) if report.gaps]
    for report in gaps:
        yield f"still missing: {report.text()}"
    data = build_report(event, folder)
    paths = write_reports(data, folder.reports_path, list(REPORT_WRITERS), "zh")
    yield f"results reports ({len(paths)} files) in {folder.reports_path}/: " + ", ".join(p.name for p in paths)
    leader = data.standings[0]
    yield (f"standings leader: {leader.team} with {leader.match_points} match points, "
           f"net {leader.net_level_points:+d} level points")
