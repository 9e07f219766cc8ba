"""Rules the command line and the director's console once decided each on its own, decided once by
the use cases both call: what a release asks for, a penalty's table as the director writes it."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_dealer
from serve_support import dealt_demo

from dealer.app.penalties import PenaltyAsk, record_penalty, record_warning
from dealer.app.release import ReleaseError, asked_set, release
from dealer.app.session import EventSession


def test_a_release_is_of_a_set_or_of_the_key(tmp_path: Path) -> None:
    assert asked_set(3, key=False) == 3
    assert asked_set(None, key=True) is None  # the key
    for set_number, key in ((None, False), (3, True)):
        with pytest.raises(ReleaseError) as refused:
            asked_set(set_number, key)
        assert refused.value.key == "site.set_or_key" and refused.value.field == "set"
    event_file = dealt_demo(tmp_path)
    with EventSession.open(event_file, write=True) as session, pytest.raises(ReleaseError) as unused:
        release(session, asked_set(None, key=True), "over", unused=True)  # the key is no set to declare unused
    assert unused.value.key == "site.unused_needs_set"
    neither = run_dealer("release", event_file, "--reason", "x")
    assert neither.exit_code == 2 and "--set" in neither.stderr


def test_a_penalty_table_is_stored_as_the_event_names_it_whoever_wrote_it(tmp_path: Path) -> None:
    with EventSession.open(dealt_demo(tmp_path), write=True) as session:
        record_penalty(session, 1, None, "T1", PenaltyAsk("points", -10, "b", 3), "slow play", "td")
        record_warning(session, 1, None, "T2", "陈静", "late", "td", table="a")
        store = session.store
        assert store is not None
        assert [(p.kind, p.data.get("table")) for p in store.penalties()] == [("points", "B"), ("warning", "A")]
