"""Registration sheets (报名表, CSV or XLSX) as a document: bytes in, the teams out.

Pure, like :mod:`dealer.formats.travellers`, whose file reading it shares (UTF-8 or GBK CSV,
XLSX, Chinese or English headers, limits): every problem names the file, the row as a
spreadsheet shows it, the column and the value. One row is one team: 队号 (id) and 队名 (name)
are required; 单位/分会 (club), 领队 (leader), 选手 (players: one cell, names separated by 、 , ;
/ or a line break, or columns 选手1, 选手2 …), 证件号/会员号 (player_ids: one per player, in the
players' order, separated as they are), 种子 (seed), 联系方式 (contact) and 跨分会 (mixed_club: 是/否,
yes/no) are optional unless the rule profile requires them. A player is identified within the
team: the same name on two teams is two people (张伟 and 张伟), unless they give the same ID. Checking the
teams against the ones already registered, and writing them, is :mod:`dealer.app.teams`'.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dealer.errors import Problem, Rejected
from dealer.formats.columns import Cell, Layout
from dealer.formats.travellers import parse_file
from dealer.numbers import fold_typed, whole_number_or_none

#: Most players a team may list in numbered columns (选手1 … 选手12).
NUMBERED_PLAYERS = 12
#: Canonical field → accepted header spellings; the second is the one messages name.
COLUMNS: dict[str, tuple[str, ...]] = {
    "id": ("id", "队号", "team_id", "编号", "队伍编号"),
    "name": ("name", "队名", "team", "队伍名称", "队伍"),
    "club": ("club", "单位", "分会", "单位/分会", "所属分会", "所在单位"),
    "leader": ("leader", "领队"),
    "players": ("players", "选手", "队员", "参赛选手"),
    **{f"player_{n}": (f"player_{n}", f"选手{n}", f"player{n}", f"队员{n}") for n in range(1, NUMBERED_PLAYERS + 1)},
    "player_ids": ("player_ids", "证件号", "会员号", "证件号码", "身份证号", "选手证件号", "选手会员号"),
    "seed": ("seed", "种子", "种子号"),
    "contact": ("contact", "联系方式", "电话", "联系电话"),
    "mixed_club": ("mixed_club", "跨分会", "跨分会组队"),
}
REGISTRATION = Layout(COLUMNS, ("id", "name"))
#: How a cell lists several players.
PLAYER_SEPARATORS = re.compile(r"[、,，;；/／\n]+")
YES = ("是", "yes", "y", "true", "1", "√", "✓", "跨分会")
NO = ("否", "no", "n", "false", "0", "×", "", "-")


@dataclass(frozen=True)
class RegisteredTeam:
    """One row of a registration sheet: a team as the event file's ``[[teams]]`` holds it."""

    row: int
    id: str
    name: str
    players: tuple[str, ...] = ()
    club: str | None = None
    leader: str | None = None
    seed: int | None = None
    contact: str | None = None
    mixed_club: bool | None = None  # None: the sheet does not say
    #: Each player's 证件号 or 会员号, in the players' order (none: the sheet gives none).
    player_ids: tuple[str, ...] = ()
    #: Field → the column it was read from (letter and header), for messages.
    columns: tuple[tuple[str, str], ...] = ()

    def column(self, field: str) -> str | None:
        return dict(self.columns).get(field)

    def as_toml_table(self) -> dict[str, Any]:
        """The team as a ``[[teams]]`` table (only what the sheet gave)."""
        table: dict[str, Any] = {"id": self.id, "name": self.name}
        for key in ("club", "leader", "seed", "contact"):
            if getattr(self, key) is not None:
                table[key] = getattr(self, key)
        if self.players:
            table["players"] = list(self.players)
        if self.player_ids:
            table["player_ids"] = list(self.player_ids)
        if self.mixed_club is not None:
            table["mixed_club"] = self.mixed_club
        return table


def _text(cell: Cell) -> str:
    """A cell's text: full-width letters and digits as ASCII (:func:`~dealer.numbers.fold_typed`: a
    superscript or circled digit stays what it is), spaces trimmed."""
    return fold_typed(cell.value).strip()


def read_registration(data: bytes, source: str, required: Sequence[str] = (), profile: str = "",
                      sheet: str | None = None) -> list[RegisteredTeam]:
    """The teams of a registration sheet's bytes, in row order. ``required``: fields every team
    must give (the rule profile's ``registration.required``, ``profile`` its id). Raises
    :class:`~dealer.errors.Rejected` with every problem (nothing is half-read), or
    :class:`~dealer.errors.FileProblem` when the file cannot be read."""
    parsed = parse_file(data, source, sheet, REGISTRATION)
    problems: list[Problem] = []
    has = set(parsed.fields)
    for field in required:
        present = field in has or (field == "players" and any(k.startswith("player_") for k in has))
        if not present:
            problems.append(Problem(source, None, field, None, None, "teams.required_by_profile_column",
                                    params={"name": field, "columns": COLUMNS[field][1], "profile": profile}))
    if problems:
        raise Rejected(source, problems, len(parsed.rows))
    teams: list[RegisteredTeam] = []
    for raw in parsed.rows:
        row = raw.number or 0
        cells = raw.cells
        columns = tuple((k, c.column) for k, c in cells.items() if c.column is not None)

        def at(field: str, row: int = row, cells: Mapping[str, Cell] = cells) -> tuple[str, int, str, str | None]:
            """Where a problem of ``field`` is: the file, the row, the field, its column."""
            cell = cells.get(field)
            return source, row, field, cell.column if cell else None

        values = {k: _text(c) for k, c in cells.items()}
        for field in ("id", "name"):
            if not values.get(field):
                problems.append(Problem(*at(field), value=None, key="teams.value_missing", params={"name": field}))
        for field in required:
            if field == "players":
                continue
            if field in values and not values[field]:
                problems.append(Problem(*at(field), value=None, key="teams.required_by_profile",
                                        params={"name": field, "profile": profile}))
        players: list[str] = []
        if values.get("players"):
            players.extend(p.strip() for p in PLAYER_SEPARATORS.split(values["players"]) if p.strip())
        for n in range(1, NUMBERED_PLAYERS + 1):
            if values.get(f"player_{n}"):
                players.append(values[f"player_{n}"])
        if "players" in required and not players:
            problems.append(Problem(*at("players" if "players" in cells else "player_1"), value=None,
                                    key="teams.required_by_profile", params={"name": "players", "profile": profile}))
        seen: set[str] = set()
        for player in players:
            if player in seen:
                problems.append(Problem(*at("players" if "players" in cells else "player_1"), value=player,
                                        key="teams.player_twice_in_team", params={"player": player}))
            seen.add(player)
        ids = [p.strip() for p in PLAYER_SEPARATORS.split(values.get("player_ids", "")) if p.strip()]
        if ids and len(ids) != len(players):
            problems.append(Problem(*at("player_ids"), value=cells["player_ids"].value, key="teams.player_ids_count",
                                    params={"ids": len(ids), "players": len(players)}))
        for place, player_id in enumerate(ids):
            if player_id in ids[:place]:
                problems.append(Problem(*at("player_ids"), value=player_id, key="teams.player_id_twice_in_team"))
        seed = None
        if values.get("seed"):
            number = whole_number_or_none(values["seed"])  # not int(): it reads "²" or "٢" as 2
            if number is not None and 1 <= number <= 100_000:
                seed = number
            else:
                problems.append(Problem(*at("seed"), value=cells["seed"].value, key="teams.bad_seed"))
        mixed = None
        if "mixed_club" in values:
            text = values["mixed_club"].lower()
            if text in YES:
                mixed = True
            elif text in NO and text:
                mixed = False
            elif text:
                problems.append(Problem(*at("mixed_club"), value=cells["mixed_club"].value, key="teams.bad_yes_no"))
        teams.append(RegisteredTeam(
            row, values.get("id", ""), values.get("name", ""), tuple(players),
            values.get("club") or None, values.get("leader") or None, seed, values.get("contact") or None, mixed,
            player_ids=tuple(ids), columns=columns))
    if not teams and not problems:
        problems.append(Problem(source, None, None, None, None, "teams.no_team_rows"))
    problems.extend(_duplicates(source, teams))
    if problems:
        raise Rejected(source, sorted(problems, key=lambda p: p.row or 0), len(parsed.rows))
    return teams


def _duplicates(source: str, teams: Sequence[RegisteredTeam]) -> list[Problem]:
    """A team id, team name, seed or player ID (证件号/会员号) that two rows of the sheet give. A
    player's name may: players are told apart by their team (two 张伟 on two teams are two people)."""
    found: list[Problem] = []
    first: dict[tuple[str, str], tuple[int, str]] = {}
    for team in teams:
        keys = [("id", team.id), ("name", team.name)] + ([("seed", str(team.seed))] if team.seed else [])
        keys += [("player_ids", p) for p in team.player_ids]
        for field, value in keys:
            if not value:
                continue
            if (field, value) in first:
                column = team.column(field)
                row, other = first[(field, value)]
                found.append(Problem(source, team.row, field, column, value,
                                     "teams.player_on_two_teams" if field == "player_ids"
                                     else "teams.duplicate_in_file",
                                     params={"name": field, "other_row": row, "other": other}))
            else:
                first[(field, value)] = (team.row, team.id)
    return found
