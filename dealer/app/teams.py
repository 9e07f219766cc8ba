"""Teams: registration from a sheet (报名表), the list, withdrawals and rejoining (暂退与重加入).

Where the teams live: the event file is the director's, written by hand with comments, and is
never rewritten. An event that registers its teams from a sheet names a registration file
beside it (``teams_file = "teams.toml"`` in ``[event]``); ``dealer teams import`` writes that
file (the ``[[teams]]`` tables, atomically, whole or not at all) and every command reads the
teams from it as if the event file listed them. Late entries are accepted until the first
round is paired (a fixed schedule: until its first result); after that the field is fixed.

A withdrawal is data in the event's results store (an ``actions`` row in the hash chain, like a
forfeit): the team is not paired from the round after ``after_round``, its played results stay;
``rejoin`` brings it back from a round not yet paired. How a withdrawn team counts in its
opponents' 对手分 is the profile's (``withdrawal.opponents_match_points``).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dealer.adjustments import Withdrawal
from dealer.app.played import RoundError, _current_pairings, declared_end, stored_adjustments
from dealer.app.session import EventSession
from dealer.errors import FileProblem, Phrase, Problem, Rejected, UserError, quote
from dealer.event import Event, Team
from dealer.files import (
    EVENT_FILE_LIMIT,
    event_from_data,
    event_profile,
    parse_toml,
    read_bytes,
    read_teams_file,
    read_text,
    teams_file_path,
    write_atomic,
)
from dealer.formats.registration import COLUMNS, RegisteredTeam, read_registration
from dealer.formats.travellers import FILE_LIMIT
from dealer.store.db import ResultsStore
from dealer.store.folder import EventFolder
from dealer.store.schema import RESULT_TABLES

#: The formats a team can withdraw from: a knockout's or a fixed schedule's later matches are
#: forfeits (``dealer results forfeit``), not a change of the field.
WITHDRAW_FORMATS = ("swiss", "round-robin")
#: Team ids an import names (the rest are counted).
SHOWN_IDS = 20
#: The registration fields shown and compared, in order.
FIELDS = ("name", "club", "leader", "players", "player_ids", "seed", "contact", "mixed_club")


class TeamsError(UserError, ValueError):
    """A registration or withdrawal refused: the message says why and what to do."""


@dataclass(frozen=True)
class TeamsImported:
    """What ``dealer teams import`` did."""

    source: str
    teams_file: str
    added: tuple[str, ...]
    unchanged: int
    replaced: bool
    teams: int

    def phrase(self) -> Phrase:
        if not self.added and not self.replaced:
            return Phrase.of("said_teams.import_unchanged", source=self.source, unchanged=self.unchanged,
                             teams_file=self.teams_file)
        return Phrase.of("said_teams.imported", source=self.source, added=len(self.added),
                         ids=", ".join(self.added[:SHOWN_IDS]) + (", …" if len(self.added) > SHOWN_IDS else "")
                         or "-", unchanged=self.unchanged, teams=self.teams,
                         teams_file=self.teams_file,
                         replaced=Phrase("said_teams.replaced") if self.replaced else "")


def _event_data(event_path: Path) -> dict[str, Any]:
    return parse_toml(read_text(event_path, Phrase("files.what_event_file"), limit=EVENT_FILE_LIMIT),
                      str(event_path))


def _required(data: dict[str, Any], event_path: Path) -> tuple[tuple[str, ...], str]:
    """The fields the event's profile (its ``[rules]`` merged in) requires of a team, and the
    profile's id (nothing when the profile cannot be used: parsing the event says why)."""
    profile = event_profile(data, str(event_path))
    return (profile.registration_required, profile.id) if profile is not None else ((), "")


def _value(table: dict[str, Any], field: str) -> Any:
    value = table.get(field)
    if field in ("players", "player_ids"):
        return tuple(value or ())
    if field == "mixed_club":
        return bool(value)
    return value


def _shown(value: Any) -> str:
    if isinstance(value, tuple):
        return "、".join(value)
    return "" if value is None else str(value)


def _merge(source: str, existing: Sequence[dict[str, Any]], teams: Sequence[RegisteredTeam]
           ) -> tuple[list[dict[str, Any]], list[str], int]:
    """The registration with the sheet's teams added: (all teams, ids added, rows unchanged).
    A row whose id is registered must say what the registration says; a team name or a player
    ID (证件号/会员号) of another registered team is refused (a player's name is not: players are
    told apart by their team)."""
    by_id = {str(t.get("id")): t for t in existing}
    names = {str(t.get("name", t.get("id"))): str(t.get("id")) for t in existing}
    player_ids = {str(p): str(t.get("id")) for t in existing for p in t.get("player_ids", ())}
    problems: list[Problem] = []
    added: list[str] = []
    unchanged = 0
    merged = list(existing)
    for team in teams:
        table = team.as_toml_table()
        stored = by_id.get(team.id)
        if stored is not None:
            differs = [f for f in FIELDS if f in table and _value(table, f) != _value(stored, f)]
            if differs:
                field = differs[0]
                problems.append(Problem(source, team.row, field, _column(team, field), _shown(_value(table, field)),
                                        "teams.registered_otherwise", hint="teams_replace",
                                        params={"team": quote(team.id), "name": field,
                                                "stored": quote(_shown(_value(stored, field)))}))
            else:
                unchanged += 1
            continue
        if team.name in names:
            problems.append(Problem(source, team.row, "name", _column(team, "name"), team.name,
                                    "teams.name_registered", params={"other": names[team.name]}))
        for player_id in team.player_ids:
            if player_id in player_ids:
                problems.append(Problem(source, team.row, "player_ids", _column(team, "player_ids"), player_id,
                                        "teams.player_registered", params={"other": player_ids[player_id]}))
        added.append(team.id)
        merged.append(table)
    if problems:
        raise Rejected(source, problems, len(teams))
    return merged, added, unchanged


def _column(team: RegisteredTeam, field: str) -> str | None:
    return team.column(field) or (team.column("player_1") if field == "players" else None)


def _reading(event: Event, event_path: str | Path, boards_root: str | Path | None) -> EventSession:
    """A read-only session of the event (its folder found from the event file, as every command
    finds it), its results database if there is one: none before the first pairing of a level
    race, nor before the commitment of a boards event."""
    folder = EventFolder.for_file(event_path, event, boards_root)
    return EventSession.open(event, folder, check_deal=False, results=folder.results_path.exists(),
                             as_played=False)


def first_pairing(event: Event, store: ResultsStore | None) -> Phrase | None:
    """Why the field is fixed now: round 1 paired (a fixed schedule: a result stored), or ``None``."""
    if store is None:
        return None
    if event.format.paired:
        first = _current_pairings(store).get(1)
        return None if first is None else Phrase.of("teams.fixed_by_pairing", at=first.at)
    if store.current(RESULT_TABLES[event.result]):
        return Phrase("teams.fixed_by_results")
    return None


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)  # a TOML basic string: JSON's escapes are TOML's


def teams_toml(teams: Sequence[dict[str, Any]], source: str) -> str:
    """The registration file's text (``[[teams]]`` tables, a comment saying where they came from)."""
    lines = [f"# Teams of this event, written by `dealer teams import` from {Path(source).name} on "
             f"{dt.date.today().isoformat()}.",
             "# Read by every command as if the event file listed them. Import the registration again",
             "# (or with --replace before round 1 is paired) rather than edit this by hand.", ""]
    for team in teams:
        lines.append("[[teams]]")
        for key in ("id", "name", "club", "leader", "players", "player_ids", "seed", "mixed_club", "contact"):
            if key in team:
                lines.append(f"{key} = {_toml_value(team[key])}")
        lines.append("")
    return "\n".join(lines)


def import_teams(event_path: str | Path, source_path: str | Path, boards_root: str | Path | None, *,
                 replace: bool = False, sheet: str | None = None) -> TeamsImported:
    """Register the teams of a sheet into the event's ``teams_file``: whole or not at all.

    Refused: an event file without a ``teams_file`` (it lists its teams itself); every problem of
    the sheet, named by row, column and value (a player on two teams, a team id or name twice, a
    field the profile requires); a row that says otherwise than the registration (``replace``:
    the sheet replaces the registration); any change once the field is fixed (round 1 paired)."""
    event_path = Path(event_path)
    return register(_event_data(event_path), event_path, source_path, boards_root, replace=replace, sheet=sheet)


def register(data: dict[str, Any], event_path: Path, source_path: str | Path, boards_root: str | Path | None, *,
             replace: bool = False, sheet: str | None = None) -> TeamsImported:
    """:func:`import_teams` of an event file's parsed ``data`` (``dealer init`` registers before
    it writes the event file)."""
    source = str(source_path)
    teams_path = teams_file_path(data, event_path)
    if teams_path is None:
        raise TeamsError("teams.no_teams_file", path=str(event_path))
    if "teams" in data:
        raise FileProblem("files.teams_twice", source=str(event_path), teams_file=str(teams_path))
    existing = read_teams_file(teams_path)
    required, profile_id = _required(data, event_path)
    sheet_teams = read_registration(read_bytes(Path(source_path), Phrase("files.what_teams_sheet"), FILE_LIMIT),
                                    source, required, profile_id, sheet)
    if replace:
        merged = [t.as_toml_table() for t in sheet_teams]
        old = {str(t.get("id")): t for t in existing}
        added = tuple(t.id for t in sheet_teams if t.id not in old)
        unchanged = sum(1 for t in sheet_teams if old.get(t.id) == t.as_toml_table())
        changed = merged != existing
    else:
        merged, added_list, unchanged = _merge(source, existing, sheet_teams)
        added, changed = tuple(added_list), bool(added_list)
    event = event_from_data({**data, "teams": merged}, str(event_path), source)
    if changed:
        with _reading(event, event_path, boards_root) as session:
            fixed = first_pairing(event, session.store)
        if fixed is not None:
            raise TeamsError("teams.late_entry_refused", why=fixed,
                             ids=", ".join(added) or "-")
        write_atomic(teams_path, teams_toml(merged, source).encode("utf-8"), replace=True)
    return TeamsImported(source, str(teams_path), added, unchanged, replace and changed, len(merged))


# --- the list ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class TeamLine:
    """One registered team as ``dealer teams list`` shows it."""

    team: Team
    withdrawals: tuple[Withdrawal, ...]

    @property
    def out(self) -> bool:
        return any(w.back_from is None for w in self.withdrawals)

    def as_dict(self) -> dict[str, Any]:
        t = self.team
        return {"id": t.id, "name": t.name, "club": t.club, "leader": t.leader, "players": list(t.players),
                "player_ids": list(t.player_ids),
                "seed": t.seed, "mixed_club": t.mixed_club, "contact": t.contact,
                "withdrawals": [{"after_round": w.after_round, "reason": w.reason, "back_from": w.back_from,
                                 "back_reason": w.back_reason} for w in self.withdrawals],
                "withdrawn": self.out}


def list_teams(event_path: str | Path, boards_root: str | Path | None = None) -> tuple[Event, list[TeamLine]]:
    """The registered teams, each with its withdrawals (before any result or pairing too: no
    folder or database is needed)."""
    with _listing_session(event_path, boards_root) as session:
        withdrawals = session.adjustments.withdrawals
        return session.declared, [TeamLine(t, tuple(w for w in withdrawals if w.team == t.id))
                                  for t in session.declared.teams]


def _listing_session(event_path: str | Path, boards_root: str | Path | None) -> EventSession:
    from dealer.files import load_event

    return _reading(load_event(event_path), event_path, boards_root)


# --- withdrawals -------------------------------------------------------------------------------


def _team_id(event: Event, text: str) -> str:
    found = event.team_named(text)
    if found is None:
        raise TeamsError("teams.unknown_team", team=quote(text),
                         known=", ".join(t.id for t in event.teams[:20]))
    return found


def _policy(event: Event) -> Phrase:
    """The profile's 对手分 rule for a withdrawn team's opponents, in words."""
    rule = event.profile.withdrawn_opponent
    return Phrase.of("said_teams.policy_excluded" if rule == "excluded" else "said_teams.policy_as_played",
                     profile=event.profile.id)


def withdraw_team(session: EventSession, team: str, after_round: int, reason: str,
                  entered_by: str | None = None) -> Phrase:
    """Withdraw ``team`` after round ``after_round`` (0: before round 1): not paired from the next
    round; its played results stay. Refused for a knockout or a fixed schedule (their later
    matches are forfeits), when that next round is already paired, when the team is out already,
    and after the event's last round or its declared end."""
    event = session.declared
    team_id = _team_id(event, team)
    if not reason.strip():
        raise RoundError("round.reason_required", field="reason")
    if event.format.kind not in WITHDRAW_FORMATS:
        raise TeamsError("teams.withdraw_format", kind=event.format.kind)
    needed = event.format.rounds_needed(len(event.teams))
    if after_round >= needed:
        raise TeamsError("teams.withdraw_after_last", field="after_round", round=after_round, last=needed)
    store = session.writable_store()
    with store.transaction():
        end = declared_end(store)
        if end is not None:
            raise TeamsError("teams.event_ended", round=end.round, reason=end.reason)
        out = [w for w in stored_adjustments(store).withdrawals if w.team == team_id and w.back_from is None]
        if out:
            raise TeamsError("teams.already_withdrawn", team=quote(team_id), round=out[0].after_round)
        paired = max(_current_pairings(store), default=0)
        if after_round < paired:
            raise TeamsError("teams.next_round_paired", field="after_round", round=after_round + 1,
                             last=paired, team=quote(team_id))
        store.insert_action("withdraw", after_round + 1, {"team": team_id, "after_round": after_round},
                            reason=reason.strip(), entered_by=entered_by)
    return Phrase.of("said_teams.withdrawn", team=team_id, round=after_round, next=after_round + 1,
                     reason=reason.strip(), policy=_policy(event))


def rejoin_team(session: EventSession, team: str, from_round: int, reason: str,
                entered_by: str | None = None) -> Phrase:
    """Bring a withdrawn ``team`` back from round ``from_round`` (not yet paired)."""
    event = session.declared
    team_id = _team_id(event, team)
    if not reason.strip():
        raise RoundError("round.reason_required", field="reason")
    needed = event.format.rounds_needed(len(event.teams))
    store = session.writable_store()
    with store.transaction():
        out = [w for w in stored_adjustments(store).withdrawals if w.team == team_id and w.back_from is None]
        if not out:
            raise TeamsError("teams.not_withdrawn", team=quote(team_id))
        paired = max(_current_pairings(store), default=0)
        if from_round <= max(paired, out[0].after_round) or from_round > needed:
            raise TeamsError("teams.bad_rejoin_round", field="from_round", round=from_round,
                             low=max(paired, out[0].after_round) + 1, last=needed)
        store.insert_action("rejoin", from_round, {"team": team_id}, reason=reason.strip(), entered_by=entered_by)
    return Phrase.of("said_teams.rejoined", team=team_id, round=from_round, reason=reason.strip())


__all__ = ["COLUMNS", "TeamsImported", "import_teams", "list_teams", "rejoin_team", "withdraw_team"]
