"""Events for the site's tests: the demo as `make demo` leaves it (every played set and the key
released), a generated 16-team knockout played to its final, whose set 4 is not released
(the final is still being played: two results missing), and an 8-team Swiss of 3 rounds, all
played, sets 1 and 2 released."""

from __future__ import annotations

from pathlib import Path

from conftest import demo_event, release_of, site_of

from dealer.app import EventSession
from dealer.app.dealing import deal_event
from dealer.app.result_files import import_file
from dealer.app.rounds import pair_round
from dealer.app.session import event_as_played
from dealer.demo import sample_round_csv, site_demo
from dealer.event import Event
from dealer.files import load_event_text
from dealer.store.folder import EventFolder

SIXTEEN_TEAMS = "\n".join([
    "[event]", 'id = "cup16"', 'name = "十六队淘汰赛 Cup of 16"', 'date = "2026-12-07"',
    'profile = "official-2002"', "decks = 2", "boards_per_set = 4", "",
    "[format]", 'kind = "knockout"', 'elimination = "single"', "",
    *(line for n in range(1, 17) for line in (
        "[[teams]]", f'id = "K{n}"', f'name = "{"队" * (n % 3 + 1)}{n} Team {n}"', f"seed = {n}",
        f'players = ["P{n}a", "P{n}b", "P{n}c", "P{n}d"]', "")),
])

EIGHT_TEAM_SWISS = "\n".join([
    "[event]", 'id = "swiss8"', 'name = "八队积分编排赛 Swiss of eight"', 'date = "2026-12-14"',
    'profile = "official-2002"', "decks = 2", "boards_per_set = 4", "",
    "[format]", 'kind = "swiss"', "rounds = 3", 'first_round = "split"', "",
    *(line for n in range(1, 9) for line in (
        "[[teams]]", f'id = "S{n}"', f'name = "{"瑞" * (n % 2 + 1)}{n} Swiss {n}"', f"seed = {n}",
        f'club = "Club {n % 3}"', f'players = ["Q{n}a", "Q{n}b", "Q{n}c", "Q{n}d"]', "")),
])


def demo_site(root: Path, pdf: bool = False) -> tuple[Event, EventFolder, Path]:
    """The demo dealt into ``root`` with its sample results, and its site as `make demo` builds it."""
    from importlib import resources

    event = demo_event()
    folder = EventFolder(event.id, root / "boards", root / "output")
    deal_event(event, folder)
    with EventSession.open(event, folder, write=True) as store_session, \
            resources.as_file(resources.files("dealer") / "data" / "sample-travellers.csv") as sample:
        import_file(store_session, sample)
    list(site_demo(event, folder, pdf=pdf))
    return event, folder, folder.output_path / "site"


def _played_site(text: str, root: Path, rounds: int, released: int,
                 missing: int = 0) -> tuple[Event, EventFolder, Path]:
    """An event from ``text`` dealt into ``root``, each round paired (from the results before it)
    and its sample results imported, the last one less its last ``missing`` rows; the sets of
    the first ``released`` rounds released; its site built."""

    event = load_event_text(text, str(root / "event.toml"))
    folder = EventFolder(event.id, root / "boards", root / "output")
    deal_event(event, folder)
    for number in range(1, rounds + 1):
        with EventSession.open(event, folder, write=True, as_played=False) as session:
            pair_round(session, number, entered_by="test")
        scheduled = event_as_played(event, folder)
        lines = sample_round_csv(scheduled, number).splitlines()
        if number == rounds and missing:
            lines = lines[:-missing]
        path = root / f"round-{number}.csv"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        with EventSession.open(scheduled, folder, write=True) as store_session:
            import_file(store_session, path)
        if number <= released:
            release_of(event, folder, number, f"round {number} played")
    site_of(event, folder, pdf=False)
    return event, folder, folder.output_path / "site"


def sixteen_team_site(root: Path) -> tuple[Event, EventFolder, Path]:
    """The 16-team knockout: rounds 1-3 complete and released, the final paired with two results
    missing (its last two slips are still to come) and its set not released."""
    return _played_site(SIXTEEN_TEAMS, root, rounds=4, released=3, missing=2)


def swiss_site(root: Path) -> tuple[Event, EventFolder, Path]:
    """The 8-team Swiss: each round paired from the standings after the one before, all three
    played; sets 1 and 2 released, set 3 not yet."""
    return _played_site(EIGHT_TEAM_SWISS, root, rounds=3, released=2)
