"""Group commit in ``dealer serve``'s writer (:meth:`dealer.serve.app.Live.write`): the phones'
writes that queue while the database thread is busy share one ``BEGIN IMMEDIATE … COMMIT``, each in
its own savepoint. A refused write rolls back alone; a COMMIT that fails stores none of the batch
and answers every phone to send again (with the same nonce: then it is stored once); the schema
check before a write is read again when another connection changed the schema.

The batch is made certain here by holding the database thread until every write has queued. The
real server under load (batches in flight when it is killed) is in tests/test_serve_load.py.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from serve_support import JSON
from test_serve_console import Venue, event_file

from dealer.app import live
from dealer.app.session import EventSession
from dealer.errors import FileProblem, Rejected
from dealer.serve.app import Live
from dealer.store.db import ResultsStore

__all__ = ["event_file"]  # the fixture, from the console's tests

Write = Callable[[EventSession], live.Outcome]


def _entry(venue: Venue, table: str, board: int, points: str, device: str = "phone-a",
           nonce: str | None = None) -> tuple[Write, str]:
    """A phone's entry of one board of match 1 (the use the server runs, and its form's nonce)."""
    sheet = venue.sheet("1", table)
    nonce = nonce or venue.nonce("1", table, f"enter/{board}")
    return (lambda s: live.enter(s, sheet, str(board), {"defenders_points": points}, live.Device(device), nonce)), nonce


async def _one_batch(state: Live, uses: list[Write]) -> list[Any]:
    """``uses`` written as one batch: the database thread is held until all have queued."""
    loop = asyncio.get_running_loop()
    gate = threading.Event()
    held = loop.run_in_executor(state.executor, gate.wait)
    writes = [asyncio.ensure_future(state.write(use)) for use in uses]
    while state.queued < len(uses):
        await asyncio.sleep(0.01)
    gate.set()
    await held
    return list(await asyncio.gather(*writes, return_exceptions=True))


def _entries(venue: Venue) -> list[tuple[str, str, Any]]:
    sheets = [venue.sheet("1", t) for t in ("A", "B")]

    def read(s: EventSession) -> list[tuple[str, str, Any]]:
        return sorted((sheet.id.table, st.slot, st.fields.get("defenders_points"))
                      for sheet in sheets for st in live.sheet_state(s, sheet).slots.values() if st.state != "missing")
    return list(venue.on_db(read))


def test_a_refused_write_rolls_back_alone_and_the_rest_of_its_batch_is_stored(event_file: Path) -> None:
    venue = Venue(event_file)
    try:
        good_1, _ = _entry(venue, "A", 1, "60")
        bad, _ = _entry(venue, "A", 2, "61")  # not a multiple of 5: refused by the profile
        good_3, _ = _entry(venue, "B", 3, "85", device="phone-b")
        sheet_b = venue.sheet("1", "B")
        wrong_code = venue.nonce("1", "B", "confirm")

        def wrong(s: EventSession) -> live.Outcome:
            return live.confirm(s, venue.state.key, sheet_b, None, "WRONG-CODE", live.Device("phone-c"), wrong_code)

        answers = asyncio.run(_one_batch(venue.state, [good_1, bad, good_3, wrong]))
        assert isinstance(answers[0], live.Outcome) and answers[0].key == "live.entered"
        assert isinstance(answers[2], live.Outcome) and answers[2].key == "live.entered"
        assert isinstance(answers[1], Rejected)
        # the wrong code is refused, and its count (its own savepoint, after the write's rolled back) is kept
        assert isinstance(answers[3], live.LiveRefused) and answers[3].key == "live.wrong_code"
        assert _entries(venue) == [("A", "1", 60), ("B", "3", 85)]
        assert venue.on_db(lambda s: live.sheet_state(s, sheet_b).wrong_codes) == 1
    finally:
        venue.state.close()


def _deny_commit(action: int, first: str | None, *_: object) -> int:
    """A SQLite authorizer that refuses COMMIT (as a failing disk would make it fail)."""
    if action == sqlite3.SQLITE_TRANSACTION and first == "COMMIT":
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK


def test_a_failed_commit_stores_none_of_its_batch_and_each_phone_sends_again(
        event_file: Path, capfd: pytest.CaptureFixture[str]) -> None:
    venue = Venue(event_file)
    try:
        state = venue.state
        writes = [_entry(venue, "A", 1, "60"), _entry(venue, "A", 2, "65"), _entry(venue, "B", 1, "70", "phone-b")]

        def authorizer(deny: bool) -> None:
            def set_it(s: EventSession) -> None:
                assert s.store is not None
                s.store.conn.set_authorizer(_deny_commit if deny else None)
            venue.on_db(set_it)

        authorizer(True)
        answers = asyncio.run(_one_batch(state, [use for use, _ in writes]))
        assert [getattr(a, "key", a) for a in answers] == ["serve.not_stored"] * 3
        assert all(isinstance(a, live.LiveRefused) and a.status == 503 for a in answers)
        assert "3 write(s) not stored" in capfd.readouterr().err
        assert _entries(venue) == []
        assert all(venue.on_db(lambda s, n=n: live.outcome_of(s, n)) is None for _, n in writes)

        authorizer(False)
        again = asyncio.run(_one_batch(state, [use for use, _ in writes]))  # the same nonces
        assert [a.key for a in again] == ["live.entered"] * 3 and not any(a.repeated for a in again)
        once_more = asyncio.run(_one_batch(state, [use for use, _ in writes]))
        assert all(a.repeated for a in once_more)
        assert _entries(venue) == [("A", "1", 60), ("A", "2", 65), ("B", "1", 70)]
    finally:
        venue.state.close()


def test_a_phone_is_answered_503_to_send_again_when_the_commit_fails(event_file: Path) -> None:
    venue = Venue(event_file)
    try:
        def deny(s: EventSession) -> None:
            assert s.store is not None
            s.store.conn.set_authorizer(_deny_commit)

        sheet = venue.sheet("1", "A")

        async def post() -> Any:
            from dealer.formats.entry import entry_path, sheet_tag

            path = entry_path(sheet.id, sheet_tag(venue.state.key, sheet.id))
            async with venue.client() as phone:
                await phone.get(path)
                venue.on_db(deny)
                return await phone.post(path + "/enter", data={"slot": "1", "defenders_points": "60",
                                                               "nonce": venue.nonce("1", "A", "enter/1")},
                                        headers=JSON)
        answer = asyncio.run(post())
        assert answer.status_code == 503 and answer.json()["key"] == "serve.not_stored"
        assert "再提交一次" in answer.json()["message"]
    finally:
        venue.state.close()


def test_the_schema_check_sees_a_guard_dropped_by_another_connection(event_file: Path) -> None:
    """The check before a write reads the schema again only when ``schema_version`` moved: a
    store kept open (the server's) still refuses to write once another connection dropped a guard."""
    with EventSession.open(event_file, write=True) as session:
        store = session.writable_store()
        with store.transaction():
            pass  # the schema checked, and its version remembered
        with store.transaction():
            pass  # unchanged: not read again
        other = sqlite3.connect(store.path)
        try:
            other.execute("DROP TRIGGER results_no_update")
            other.commit()
        finally:
            other.close()
        with pytest.raises(FileProblem) as refused, store.transaction():
            pass
        assert refused.value.key == "store.counts_changed_outside"
        assert "results_no_update" in str(refused.value.params)


def test_a_batch_of_savepoints_stores_every_write_but_the_refused_one(tmp_path: Path) -> None:
    """The store's batch (:meth:`ResultsStore.batch`): each transaction inside it a savepoint."""
    with ResultsStore.open(tmp_path / "r.sqlite", "ev") as store:
        with store.batch():
            for nonce in ("a", "b", "c"):
                try:
                    with store.transaction():
                        store.live.spend(nonce, "2026-12-05T00:00:00", {"n": nonce})
                        if nonce == "b":
                            raise ValueError("refused")
                except ValueError:
                    pass
            assert store.in_transaction
        assert [n for n in "abc" if store.live.outcome(n) is not None] == ["a", "c"]
