"""The built-in demo: deal the example event, print its whole pack, score sample results."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from dealer.app import EventFolder
from dealer.app.dealing import deal_event
from dealer.app.session import EventSession, event_as_played
from dealer.errors import EnvironmentProblem
from dealer.event import Event
from dealer.files import OWNER_ONLY_FOLDER, load_event_text, make_folder, write_atomic
from dealer.resources import data_path, demo_event_text, templates_dir

DEMO_EVENT_FILE = "event.toml"
SAMPLE_TRAVELLERS = "sample-travellers.csv"  # invented results for the demo event (样例数据)
SWISS_DEMO = "demo-swiss.toml"  # the Swiss demo, run through the whole round loop
LEVELS_DEMO = "demo-levels.toml"  # the level-race demo (计时制, seed 001's format)
SAMPLE_MARK = "# 样例数据 / SAMPLE DATA: invented results, not a real event"
DEMO_EVENTS = ("demo", "demo-swiss", "demo-levels")  # the folders' names, under boards/ and output/


def _unit(*parts: object) -> int:
    """A reproducible number from text (sample data only; nothing here touches a deal)."""
    return int.from_bytes(hashlib.sha256("|".join(map(str, parts)).encode("utf-8")).digest()[:4], "big")


def sample_round_csv(event: Event, round_number: int) -> str:
    """Invented traveller results for every match of a round, marked as sample data on its first
    line (so reports carry the sample banner). Teams get a fixed strength from their id, so the
    standings spread as a real field's would."""
    rnd = event.round(round_number)
    if rnd is None:
        raise ValueError(f"round {round_number} is not in the event")
    top = 100 * event.decks

    def strength(team: str) -> int:
        return _unit(event.id, team) % 5

    lines = [SAMPLE_MARK, "round,match,table,board,defenders_points,ns_team,ew_team"]
    for match in rnd.matches:
        for table in ("A", "B"):
            seats = match.seats(table)
            for board in event.set_boards(match.set):
                declarers, defenders = (seats["NS"], seats["EW"]) if board.declarer in "NS" else \
                    (seats["EW"], seats["NS"])
                noise = _unit(event.id, round_number, match.id, table, board.number) % 25 - 12
                points = 5 * max(0, min(top // 5, 16 + 2 * (strength(defenders) - strength(declarers)) + noise))
                lines.append(f"{round_number},{match.id},{table},{board.number},{points},{seats['NS']},{seats['EW']}")
    return "\n".join(lines) + "\n"


def demo_event_path(folder: EventFolder) -> Path:
    return folder.path / DEMO_EVENT_FILE


def check_can_run() -> None:
    """What the steps after the deal need, checked before anything is written: the templates
    (print pack, reports, site) and WeasyPrint with Pango (``dealer doctor`` says more)."""
    templates_dir()
    try:
        import weasyprint  # noqa: F401
    except (ImportError, OSError) as error:
        raise EnvironmentProblem("demo.no_weasyprint", error=str(error)) from error


def run_demo(boards_root: Path, output_root: Path) -> Iterator[str]:
    """Deal the demo events, print and score them, build the demo's site, and yield a summary.

    Never a half-made demo: what the later steps need is checked before dealing, and a first run
    (none of the demo's folders there yet) that fails or is interrupted part-way removes every
    folder it made, so the next run starts whole. A run over an existing demo keeps it (a deal is
    never replaced) and does only what is left."""
    check_can_run()
    made = [root / name for name in DEMO_EVENTS for root in (boards_root, output_root)]
    roots = [root for root in (boards_root, output_root) if not os.path.lexists(root)]
    if any(os.path.lexists(path) for path in made):
        yield from _run_demo(boards_root, output_root)
        return
    try:
        yield from _run_demo(boards_root, output_root)
    except BaseException:  # GeneratorExit and KeyboardInterrupt too: the run did not finish
        for path in made:
            shutil.rmtree(path, ignore_errors=True)
        for root in roots:
            with contextlib.suppress(OSError):
                root.rmdir()  # only when empty: made for the demo alone
        raise


def _run_demo(boards_root: Path, output_root: Path) -> Iterator[str]:
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
    yield from site_demo(event, folder)
    yield from swiss_demo(boards_root, output_root)
    yield from levels_demo(boards_root, output_root)


def print_demo(event: Event, folder: EventFolder) -> Iterator[str]:
    """Render the whole print pack of the demo event (Chinese) into ``output/demo/``."""
    from dealer.render import PrintOptions, build_documents, render_documents

    options = PrintOptions(lang="zh", out_dir=folder.output_path, boards_root=folder.boards_root)
    with EventSession.open(event, folder) as session:
        documents = build_documents(session, "all", options)
    written = render_documents(documents)
    pages = sum(item.pages for item in written)
    size = sum(item.size for item in written) / 1024 / 1024
    yield f"print pack: {len(written)} PDF files, {pages} pages, {size:.1f} MiB in {folder.output_path}/"


def score_demo(event: Event, folder: EventFolder) -> Iterator[str]:
    """Import the sample travellers once (a second run is a no-op) and write every report."""
    from dealer.app.result_files import import_file
    from dealer.app.results import missing
    from dealer.report import REPORT_WRITERS, write_reports

    with EventSession.open(event, folder, write=True) as session:
        imported = import_file(session, data_path(SAMPLE_TRAVELLERS), entered_by="demo")
        gaps = [report for report in missing(session) if report.gaps]
    yield "sample travellers (样例数据, invented for the demo): " + imported.summary()
    for report in gaps:
        yield f"still missing: {report.text()}"
    with EventSession.open(event, folder) as session:
        data = session.report()
    paths = write_reports(data, folder.reports_path, list(REPORT_WRITERS), "zh")
    yield f"results reports ({len(paths)} files) in {folder.reports_path}/: " + ", ".join(p.name for p in paths)
    leader = data.standings[0]
    yield (f"standings leader: {leader.team} with {leader.match_points} match points, "
           f"net {leader.net_level_points:+d} level points")


def site_demo(event: Event, folder: EventFolder, pdf: bool = True) -> Iterator[str]:
    """Release the hands of every played set (the demo's results are sample data: the one slip
    still missing is accepted), declare the event over (that slip never comes back) and release
    the throw-away key, then build the players' site."""
    from dealer.app.played import unfinished
    from dealer.app.release import release
    from dealer.app.rounds import end_event
    from dealer.site import build_site

    played = sorted({m.set for m in event.matches()})
    for number in played:
        with EventSession.open(event, folder, write=True) as session:
            outcome = release(session, number, "样例：本套牌已打完 demo: set played", entered_by="demo",
                              accept_missing=True)
        if outcome.release is not None:
            yield f"released the hands of set {number}" + (f" ({'; '.join(outcome.warnings)})"
                                                           if outcome.warnings else "")
    with EventSession.open(event, folder) as session:
        data = session.report()
    if unfinished(data.scored, data.places):  # the key waits for the event's end
        with EventSession.open(event, folder, write=True, as_played=False) as session:
            ended = end_event(session, "样例：比赛结束，最后一张记分条未交回 demo: event over, the last sample slip "
                              "never came back", entered_by="demo")
        yield str(ended)
    with EventSession.open(event, folder, write=True) as session:
        revealed = release(session, None, "样例：比赛结束 demo: event over", entered_by="demo").release is not None
    if revealed:
        yield "revealed the demo's throw-away key (the site shows it with the verify command)"
    with EventSession.open(event, folder) as session:
        summary = build_site(session, pdf=pdf)
    yield summary.text()


def swiss_demo(boards_root: Path, output_root: Path) -> Iterator[str]:
    """The Swiss demo through the whole loop: deal (throw-away key), then per round: pair, print
    the pairings and travellers, import sample results; then the reports. A second run keeps
    what is there and does only what is left."""
    from dealer.app.result_files import import_file
    from dealer.app.rounds import pair_round, record_lateness
    from dealer.render import PrintOptions, build_documents, render_documents
    from dealer.report import REPORT_WRITERS, write_reports

    text = data_path(SWISS_DEMO).read_text(encoding="utf-8")
    folder = EventFolder("demo-swiss", boards_root, output_root)
    event_path = folder.path / DEMO_EVENT_FILE
    event = load_event_text(text, str(event_path))
    if folder.deal_state() != "complete":
        deal_event(event, folder)
        yield f"Swiss demo: dealt {event.sets} sets of {event.boards_per_set} boards into {folder.path}/"
    if not event_path.exists():
        write_atomic(event_path, text.encode("utf-8"))
    yield f"Swiss demo event file: {event_path} ({len(event.teams)} teams, {event.format.rounds} rounds)"
    for number in range(1, event.format.rounds + 1):
        scheduled = event_as_played(event, folder)
        if scheduled.round(number) is None:
            with EventSession.open(event, folder, write=True, as_played=False) as session:
                view, _stored = pair_round(session, number, entered_by="demo")
            yield (f"round {number} paired: " + ", ".join(f"{m.home}-{m.away}" for m in view.matches)
                   + "".join(f", bye {t}" for t in view.byes))
            scheduled = event_as_played(event, folder)
            options = PrintOptions(lang="zh", out_dir=folder.output_path, boards_root=folder.boards_root,
                                   round=number)
            with EventSession.open(event, folder) as session:
                documents = [*build_documents(session, "pairings", options),
                             *build_documents(session, "travellers", options)]
            written = render_documents(documents)
            yield f"  printed {', '.join(item.path.name for item in written)}"
            if number == 3:
                with EventSession.open(event, folder, write=True, as_played=False) as session:
                    late = record_lateness(session, number, "T4", 8, "8 分钟迟到（样例）sample", "demo")
                yield f"  {late}"
        sample = folder.path / f"sample-round-{number}.csv"
        if not sample.exists():
            write_atomic(sample, sample_round_csv(scheduled, number).encode("utf-8"))
        with EventSession.open(event, folder, write=True) as session:
            imported = import_file(session, sample, entered_by="demo")
        yield f"  round {number} sample results: {imported.summary()}"
    with EventSession.open(event, folder) as session:
        data = session.report()
    paths = write_reports(data, folder.reports_path, list(REPORT_WRITERS), "zh")
    yield f"Swiss demo reports ({len(paths)} files) in {folder.reports_path}/"
    for award in data.prizes():
        yield f"  {award.name}: {', '.join(award.teams)}"


def sample_levels_csv(event: Event, round_number: int) -> str:
    """Invented table results of a level race's round (样例数据), marked as sample data: each
    side's final level from its team's fixed strength and some noise; a tie names the last game."""
    from dealer.race import RACE_LEVELS

    rnd = event.round(round_number)
    if rnd is None:
        raise ValueError(f"round {round_number} is not in the event")
    start = RACE_LEVELS.index(event.profile.level_race.start)
    lines = [SAMPLE_MARK, "轮次,场次,桌,主队级数,客队级数,末局胜方"]
    for match in rnd.matches:
        for table in range(1, event.tables + 1):
            home, away = (start + min(len(RACE_LEVELS) - 1 - start, _unit(event.id, team) % 4
                                      + _unit(event.id, round_number, match.id, table, side) % 7)
                          for side, team in (("home", match.home), ("away", match.away)))
            if home == away == len(RACE_LEVELS) - 1:
                away -= 1  # only one side can pass A first
            last = ("主" if _unit(event.id, round_number, match.id, table) % 2 else "客") if home == away else ""
            lines.append(f"{round_number},{match.id},{table},{RACE_LEVELS[home]},{RACE_LEVELS[away]},{last}")
    return "\n".join(lines) + "\n"


def levels_demo(boards_root: Path, output_root: Path) -> Iterator[str]:
    """The level-race demo: per round, pair (round robin) and import sample table results; then
    the CSV and XLSX reports and the place points. A second run does only what is left."""
    from dealer.app.result_files import import_file
    from dealer.app.rounds import pair_round
    from dealer.report import write_reports

    text = data_path(LEVELS_DEMO).read_text(encoding="utf-8")
    folder = EventFolder("demo-levels", boards_root, output_root)
    event = load_event_text(text, str(folder.path / DEMO_EVENT_FILE))
    make_folder(folder.path, OWNER_ONLY_FOLDER)  # nothing is dealt: the folder holds the results only
    rounds = event.format.rounds_needed(len(event.teams))
    for number in range(1, rounds + 1):
        scheduled = event_as_played(event, folder)
        if scheduled.round(number) is None:
            with EventSession.open(event, folder, write=True, as_played=False) as session:
                pair_round(session, number, entered_by="demo")
            scheduled = event_as_played(event, folder)
        sample = folder.path / f"sample-levels-round-{number}.csv"
        if not sample.exists():
            write_atomic(sample, sample_levels_csv(scheduled, number).encode("utf-8"))
        with EventSession.open(event, folder, write=True) as session:
            imported = import_file(session, sample, entered_by="demo")
        yield f"level-race demo round {number} sample results (样例数据): {imported.summary()}"
    event_path = folder.path / DEMO_EVENT_FILE
    if not event_path.exists():
        write_atomic(event_path, text.encode("utf-8"))
    with EventSession.open(event, folder) as session:
        data = session.report()
    paths = write_reports(data, folder.reports_path, ["csv", "xlsx"], "zh")
    yield f"level-race demo reports ({len(paths)} files) in {folder.reports_path}/"
    points = event.profile.place_points
    yield "  place points: " + ", ".join(
        f"{s.team} {points[s.rank - 1] if s.rank <= len(points) else 0}" for s in data.standings)
