"""Shared fixtures: the demo event dealt into a temporary folder (never the repo's boards/), and
the one helper that drives the ``dealer`` command in-process (click's CliRunner)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import pytest
from click.testing import CliRunner

from dealer.app.dealing import deal_event
from dealer.app.session import EventSession
from dealer.cli import main
from dealer.errors import EXIT_DIFFERENCE, EXIT_ENVIRONMENT, EXIT_INTERNAL, EXIT_OK, EXIT_REJECTED
from dealer.event import Event
from dealer.files import load_event_text
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


@pytest.fixture
def dealer() -> Callable[..., Outcome]:
    """:func:`run_dealer`, for tests that take it as a fixture."""
    return run_dealer


def demo_event() -> Event:
    return load_event_text(demo_event_text(), "demo-event.toml")


@pytest.fixture
def event() -> Event:
    return demo_event()


@pytest.fixture
def dealt(tmp_path: Path) -> tuple[Event, Path]:
    """The demo event dealt with a fresh key into tmp_path/boards; returns (event, boards root)."""
    event = demo_event()
    root = tmp_path / "boards"
    deal_event(event, EventFolder(event.id, root))
    return event, root


# --- the use cases through one session, as the faces call them (datasette's tests use ds.client) ---


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
