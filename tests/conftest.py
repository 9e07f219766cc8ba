"""Shared fixtures: the demo event dealt into a temporary folder (never the repo's boards/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dealer.boardsets import deal_event
from dealer.event import Event
from dealer.files import load_event_text
from dealer.resources import demo_event_text


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
    deal_event(event, root=root)
    return event, root
