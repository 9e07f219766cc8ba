"""``dealer init``: a commented event file to start from, and its teams registered from a sheet.

The file comes from the template ``dealer/data/init-event.toml``: the profile's decks, the
format's keys with their defaults, ``teams_file`` naming the registration file beside it
(:mod:`dealer.app.teams`). An existing event file is never replaced. With a registration sheet,
the teams are imported first (whole or not at all): the event file is written only when they went in.
"""

from __future__ import annotations

import datetime as dt
import re
import string
from dataclasses import dataclass
from pathlib import Path

from dealer.app.teams import TeamsError, TeamsImported, register
from dealer.errors import Phrase, quote
from dealer.event import FORMAT_KINDS, RESULT_KINDS
from dealer.files import parse_toml, write_atomic
from dealer.resources import init_event_template, load_profile

#: Each format's lines of ``[format]`` (defaults a director changes).
FORMAT_LINES = {
    "swiss": ('kind = "swiss"                    # fixed | round-robin | swiss | knockout\n'
              "rounds = 5                        # rounds to play\n"
              'first_round = "pinyin"            # "pinyin" (seed 002), "split" (by seed) or "lots" (from the key)\n'
              "avoid_same_club = false           # avoid two teams of one 单位/分会 meeting, when the scores allow"),
    "round-robin": ('kind = "round-robin"              # fixed | round-robin | swiss | knockout\n'
                    "cycles = 1                        # 2: a double round robin (home and away mirrored)\n"
                    "groups = 1                        # groups filled by serpentine on the seeds"),
    "knockout": ('kind = "knockout"                 # fixed | round-robin | swiss | knockout\n'
                 'elimination = "single"            # or "double" (with grand_final = "reset" | "single")'),
    "fixed": ('kind = "fixed"                    # the rounds are listed below\n\n'
              "# [[rounds]]\n# number = 1\n"
              '# matches = [{ id = "1", home = "T1", away = "T2", set = 1 }]'),
}
RESULT_LINES = {
    "boards": ("boards_per_set = 16               # boards a round (a set); commit and deal them: "
               "`dealer commit EVENT.toml`"),
    "levels": ('result = "levels"                 # a level race (计时制 / 计局制): no deal; '
               "`dealer round pair EVENT.toml --round 1`\n"
               "tables = 2                        # tables a match (seed 002: 2, seed 001: 5)"),
}


@dataclass(frozen=True)
class Initialised:
    path: str
    teams: TeamsImported | None

    def phrase(self) -> Phrase:
        return Phrase.of("said_teams.initialised", path=self.path,
                         teams=self.teams.phrase() if self.teams else Phrase("said_teams.init_no_teams"))


def event_id(stem: str) -> str:
    """An event id from a file's name: lower-case letters, digits and -."""
    text = re.sub(r"[^a-z0-9-]+", "-", stem.lower()).strip("-")[:64]
    return text if text and text[0].isalnum() else "event"


def init_event(path: str | Path, profile_id: str, format_kind: str = "swiss", result: str = "boards",
               teams_sheet: str | Path | None = None, boards_root: str | Path | None = None,
               sheet: str | None = None) -> Initialised:
    """Write a commented event file at ``path`` (refused when a file is there), its teams from
    ``teams_sheet`` when given."""
    path = Path(path)
    if path.exists():
        raise TeamsError("teams.init_exists", path=str(path))
    if format_kind not in FORMAT_KINDS or result not in RESULT_KINDS:
        raise TeamsError("event.not_a_choice", where="format", choices=", ".join(FORMAT_KINDS),
                         value=quote(format_kind))
    profile = load_profile(profile_id)
    decks = 2 if 2 in profile.supported_decks else profile.supported_decks[0]
    ident = event_id(path.stem)
    teams_file = f"{ident}.teams.toml"
    if (path.parent / teams_file).exists():
        raise TeamsError("teams.init_teams_file_exists", path=str(path.parent / teams_file))
    text = string.Template(init_event_template()).substitute(
        today=dt.date.today().isoformat(), id=ident, id_pad=" " * max(1, 27 - len(ident)),
        name=path.stem.replace('"', ""), profile=profile.id, profile_pad=" " * max(1, 22 - len(profile.id)),
        decks=decks, supported=", ".join(map(str, profile.supported_decks)) + " deck(s)",
        result_lines=RESULT_LINES[result], teams_file=teams_file, format_lines=FORMAT_LINES[format_kind])
    imported = None
    if teams_sheet is not None:
        imported = register(parse_toml(text, str(path)), path, teams_sheet, boards_root, sheet=sheet)
    try:
        write_atomic(path, text.encode("utf-8"))
    except BaseException:
        if imported is not None:  # no registration left without its event file
            (path.parent / teams_file).unlink(missing_ok=True)
        raise
    return Initialised(str(path), imported)
