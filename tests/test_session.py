"""The application layer's session: one per command, the deal checked once, each set file read
once, and no unreleased set read for public output (tested here, where the rule lives)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import run_dealer
from site_support import demo_site

import dealer.store.folder
from dealer.app import EventSession
from dealer.app.session import NotReleased
from dealer.resources import demo_event_text
from dealer.store.folder import EventFolder


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, EventFolder, Path]:
    """The demo as `make demo` leaves it: every played set and the key released, a site built."""
    root = tmp_path_factory.mktemp("demo")
    event, folder, site = demo_site(root)
    (root / "event.toml").write_text(demo_event_text(), encoding="utf-8")
    return event, folder, site


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """Counts of the deal checks and of the reads of each set file, calling through to the real ones."""
    counts: Counter[str] = Counter()
    check_deal = dealer.store.folder.EventFolder.check_deal
    read_bytes = dealer.store.folder.read_bytes

    def counting_check_deal(self: EventFolder, event: Any) -> Any:
        counts["check_deal"] += 1
        return check_deal(self, event)

    def counting_read_bytes(path: Any, what: Any, limit: int) -> bytes:
        counts[Path(path).name] += 1
        return read_bytes(path, what, limit)

    monkeypatch.setattr(dealer.store.folder.EventFolder, "check_deal", counting_check_deal)
    monkeypatch.setattr(dealer.store.folder, "read_bytes", counting_read_bytes)
    yield counts


def _set_reads(counts: Counter[str]) -> dict[str, int]:
    return {name: n for name, n in counts.items() if name.startswith("set-")}


@pytest.mark.parametrize("command", [
    ["site", "EVENT", "--no-pdf", "--out", "OUT"],
    pytest.param(["site", "EVENT", "--out", "OUT"], marks=pytest.mark.slow),  # every released set's PDFs too
    ["report", "EVENT", "--format", "csv", "--out", "OUT"],
    pytest.param(["print", "hand-records", "EVENT", "--out", "OUT"], marks=pytest.mark.slow),  # their PDF
    ["results", "missing", "EVENT"],
])
def test_one_command_checks_the_deal_once_and_reads_each_set_file_once(
        demo: tuple[Any, EventFolder, Path], counted: Counter[str], tmp_path: Path, command: list[str]) -> None:
    event, folder, _site = demo
    names = {"EVENT": str(folder.boards_root.parent / "event.toml"), "OUT": str(tmp_path / "out")}
    done = run_dealer(*(names.get(word, word) for word in command), "--boards-dir", folder.boards_root)
    assert done.exit_code == 0, done.output
    assert counted["check_deal"] == 1
    reads = _set_reads(counted)
    assert all(n == 1 for n in reads.values()), reads
    if command[0] in ("site", "print"):  # both read every released set (the demo releases all it plays)
        assert len(reads) == event.sets


def test_a_public_board_set_is_refused_until_it_is_released(dealt: tuple[Any, Path]) -> None:
    event, boards = dealt
    with EventSession.open(event, boards) as session:
        assert session.board_set(1).set_number == 1  # the director's: any set
        with pytest.raises(NotReleased):
            session.public_board_set(1)
        with pytest.raises(NotReleased):
            session.public_set_file(1)
    with EventSession.open(event, boards, write=True) as session:
        from dealer.app.release import release

        release(session, 1, "played", accept_missing=True)
    with EventSession.open(event, boards) as session:
        assert session.public_board_set(1).set_number == 1
        assert session.public_set_file(1) == (EventFolder(event.id, boards).set_path(1)).read_bytes()
        with pytest.raises(NotReleased):
            session.public_board_set(2)


def test_a_read_only_session_creates_nothing_and_a_refused_write_leaves_no_database(
        dealt: tuple[Any, Path]) -> None:
    event, boards = dealt
    folder = EventFolder(event.id, boards)
    with EventSession.open(event, boards) as session:
        assert session.store is None and session.report().no_results
    assert not folder.results_path.exists()
    with EventSession.open(event, boards, write=True) as session:
        from dealer.app.release import ReleaseError, release

        with pytest.raises(ReleaseError):
            release(session, 1, " ")  # no reason: refused before anything is written
    assert not folder.results_path.exists()


def test_the_session_holds_the_event_as_played(tmp_path: Path) -> None:
    """A paired event's session has the stored rounds; its declared event has none."""
    from site_support import EIGHT_TEAM_SWISS

    from dealer.app.dealing import deal_event
    from dealer.app.rounds import pair_round
    from dealer.files import load_event_text

    event = load_event_text(EIGHT_TEAM_SWISS, "swiss8.toml")
    folder = EventFolder(event.id, tmp_path / "boards")
    deal_event(event, folder)
    with EventSession.open(event, folder, write=True, as_played=False) as session:
        pair_round(session, 1, entered_by="test")
    with EventSession.open(event, folder) as session:
        assert not session.declared.rounds
        assert [r.number for r in session.event.rounds] == [1]
        assert len(session.event.rounds[0].matches) == 4
