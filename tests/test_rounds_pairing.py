"""Pairing a round through the use case both faces call (:func:`dealer.app.rounds.pair_round`):
a Swiss round 1 by lots reads the event's key there, not in the face."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_dealer

import dealer
from dealer.app.rounds import pair_round
from dealer.app.session import EventSession
from dealer.errors import FileProblem

DEMO_SWISS = Path(dealer.__file__).parent / "data" / "demo-swiss.toml"


@pytest.fixture
def by_lots(tmp_path: Path) -> Path:
    """The demo Swiss event, round 1 drawn by lots, dealt."""
    path = tmp_path / "lots.toml"
    path.write_text(DEMO_SWISS.read_text(encoding="utf-8").replace('first_round = "pinyin"', 'first_round = "lots"',
                                                                   1), encoding="utf-8")
    assert run_dealer("deal", path).exit_code == 0
    return path


def test_a_swiss_round_1_by_lots_is_drawn_from_the_events_key(by_lots: Path, tmp_path: Path) -> None:
    with EventSession.open(by_lots, write=True, as_played=False) as session:
        with pytest.raises(FileProblem) as refused:  # another key file than the event's: it must exist
            pair_round(session, 1, key_file=tmp_path / "no.key", entered_by="test")
        assert refused.value.key == "folder.no_key_file"
        view, stored = pair_round(session, 1, entered_by="test")  # the folder's own key
    assert stored and len(view.matches) == 4
    shown = run_dealer("round", "show", by_lots, "--round", "1", "--json")
    assert shown.exit_code == 0 and '"home"' in shown.stdout
