"""Shared fixtures: the demo event dealt into a temporary folder (never the repo's boards/), and
the one helper that drives the ``dealer`` command in-process (click's CliRunner)."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import pytest
from click.testing import CliRunner

from dealer.app.dealing import deal_event
from dealer.app.session import EventSession
from dealer.cli import main
from dealer.errors import EXIT_DIFFERENCE, EXIT_ENVIRONMENT, EXIT_INTERNAL, EXIT_OK, EXIT_REJECTED
from dealer.event import Event
from dealer.files import load_event, load_event_text
from dealer.resources import demo_event_text
from dealer.store.folder import EventFolder

if TYPE_CHECKING:
    from dealer.app.release import ReleaseOutcome
    from dealer.app.standings import ReportData
    from dealer.render import Document, PrintOptions
    from dealer.site import SiteSummary

# The tests read the command line's messages in English (``dealer --lang`` defaults from
# DEALER_LANG): set here, before any run, for in-process runs and every subprocess alike.
os.environ["DEALER_LANG"] = "en"

#: Every exit status the command documents (README, "Exit statuses"); an internal error is not one.
DOCUMENTED_STATUSES = {EXIT_OK, EXIT_DIFFERENCE, EXIT_REJECTED, EXIT_ENVIRONMENT}


class Outcome(NamedTuple):
    """What one run of ``dealer`` did: its exit status and what it printed (also unpacks as
    ``code, out, err``)."""

    exit_code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def run_dealer(*args: object, input: str | None = None) -> Outcome:
    """Run ``dealer ARGS…`` in this process. A traceback (the internal-error status) fails the
    test at once, with the traceback shown."""
    result = CliRunner().invoke(main, [str(a) for a in args], input=input)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    outcome = Outcome(result.exit_code, result.stdout, result.stderr)
    assert outcome.exit_code != EXIT_INTERNAL, outcome.stderr
    assert outcome.exit_code in DOCUMENTED_STATUSES, (outcome.exit_code, outcome.output)
    return outcome


def assert_one_error(result: Outcome, *texts: str, status: int = 2) -> None:
    """Refused with ``status``: stderr opens with an ``error:`` line, the texts are named, no
    traceback, no line too long to read."""
    assert result.exit_code == status, result.output
    assert result.stderr.startswith("error: "), result.output
    assert "Traceback" not in result.output
    for text in texts:
        assert text in result.output, (text, result.output)
    assert max(len(line) for line in result.output.splitlines()) < 400, result.output


@pytest.fixture
def dealer() -> Callable[..., Outcome]:
    """:func:`run_dealer`, for tests that take it as a fixture."""
    return run_dealer


def demo_event() -> Event:
    return load_event_text(demo_event_text(), "demo-event.toml")


@pytest.fixture
def event() -> Event:
    return demo_event()


#: The demo's sample traveller file (every slip of its three rounds but one).
SAMPLE_TRAVELLERS = Path(__file__).resolve().parent.parent / "dealer" / "data" / "sample-travellers.csv"


def dealt_demo(folder: Path) -> Path:
    """The demo event file ``folder/demo.toml`` dealt by ``dealer deal`` into ``folder/boards``;
    the event file."""
    path, boards = event_file(folder, demo_event_text())
    result = run_dealer("deal", path, "--boards-dir", boards)
    assert result.exit_code == 0, result.output
    return path


def files_under(path: Path) -> dict[str, bytes]:
    """Every file below ``path`` by its relative name, with its bytes (to compare a folder whole)."""
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


@pytest.fixture
def event_from(tmp_path: Path) -> Iterator[Callable[..., EventSession]]:
    """An event from a few lines of TOML, as a session of it: ``event_from(TEXT, dealt=True,
    write=False, **open_options)`` writes the text to ``tmp_path/<id>.toml`` beside its boards
    folder ``tmp_path/boards`` (so ``dealer`` commands on that file find the same folder with no
    ``--boards-dir``), deals it the first time (a level race is never dealt) and opens the session
    (:meth:`EventSession.open`'s options). Called again with the same text it opens a new session
    on the same folder: what an earlier one wrote, deal and results alike, is there. A session
    not closed by the test is closed at its end. A new use case's test::

        def test_a_forfeit_scores_five_levels_a_table(event_from: Callable[..., EventSession]) -> None:
            with event_from(SEED_002, write=True, as_played=False) as session:
                record_forfeit(session, 2, "2", "T4", "did not come")
            with event_from(SEED_002) as session:
                assert report_json(session.report())["matches"][3]["home_level_points"] == 10
    """
    opened: list[EventSession] = []

    def open_event(text: str, dealt: bool = True, write: bool = False, **options: Any) -> EventSession:
        path, boards = event_file(tmp_path, text)
        event = load_event(path)
        folder = EventFolder.of(event, boards, tmp_path / "output")
        if dealt and not event.levels and folder.deal_state() != "complete":
            deal_event(event, folder)
        session = EventSession.open(path, folder, write=write, **options)
        opened.append(session)
        return session

    yield open_event
    for session in opened:
        session.close()


@pytest.fixture
def dealt(tmp_path: Path) -> tuple[Event, Path]:
    """The demo event dealt with a fresh key into tmp_path/boards; returns (event, boards root)."""
    event = demo_event()
    root = tmp_path / "boards"
    deal_event(event, EventFolder(event.id, root))
    return event, root


def event_file(folder: Path, text: str) -> tuple[Path, Path]:
    """The event file of ``text`` written as ``folder/<id>.toml`` (``event.toml`` when the text
    names no id: a file the test expects refused), and the boards folder beside it
    (``folder/boards``, made; nothing dealt): the event as a director's folder holds it."""
    try:
        event_id = str(tomllib.loads(text)["event"]["id"])
    except (tomllib.TOMLDecodeError, KeyError, TypeError):
        event_id = "event"
    path = folder / f"{event_id}.toml"
    path.write_text(text, encoding="utf-8")
    boards = folder / "boards"
    boards.mkdir(exist_ok=True)
    return path, boards


# --- the use cases through one session, as the faces call them (datasette's tests use ds.client) ---


def report_json_of(event_file: Path, boards: Path | None = None) -> dict[str, Any]:
    """``dealer report EVENT --json [--boards-dir BOARDS]``, in this process (the same document)."""
    from dealer.report import report_json

    with EventSession.open(event_file, boards) as session:
        return report_json(session.report(), sheets=True)


def report_of(event: Event, folder: EventFolder) -> ReportData:
    """The event's report data, from a read-only session."""
    with EventSession.open(event, folder) as session:
        return session.report()


def site_of(event: Event, folder: EventFolder, *args: Any, **options: Any) -> SiteSummary:
    """``dealer site`` of the event, from a read-only session."""
    from dealer.site import build_site

    with EventSession.open(event, folder) as session:
        return build_site(session, *args, **options)


def documents_of(event: Event, kind: str, options: PrintOptions) -> list[Document]:
    """``dealer print KIND`` of the event, not yet rendered."""
    from dealer.render import build_documents

    with EventSession.open(event, options.boards_root, check_deal=False) as session:
        return build_documents(session, kind, options)


def release_of(event: Event, folder: EventFolder, *args: Any, **options: Any) -> ReleaseOutcome:
    """``dealer release`` of the event, from a session for writing."""
    from dealer.app.release import release

    with EventSession.open(event, folder, write=True) as session:
        return release(session, *args, **options)
