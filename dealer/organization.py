"""The event's organisation and officials as data (issue 38): who holds it and where, when each
round starts, the referees and the arbitration committee, the captains' meeting, the arrival
deadline and the appeal window; read from the event file's ``[organization]`` and ``[officials]``.

Pure domain code: :func:`parse_organization` takes the two parsed TOML tables and raises
:class:`dealer.event.EventError`-like :class:`OrganizationError` naming the key. Seed 000 第二十二条
(竞赛组织机构, 裁判长, 副裁判长, 仲裁委员会) and 第二十三条 (竞赛规程: dates, venue; the captains'
meeting where the 补充规定 are explained); seed 002 §八.7 (arrive 5 minutes early), §八.8 (仲裁).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dealer.errors import UserError, quote

#: Keys of ``[organization]`` and ``[officials]``.
ORGANIZATION_KEYS = {"host", "organizer", "co_organizers", "venue", "start_times", "captains_meeting",
                     "arrival_minutes", "lateness", "appeal_minutes", "appeal_deposit"}
OFFICIALS_KEYS = {"chief_referee", "deputy_referees", "referees", "arbitration"}
#: A round's start: "YYYY-MM-DD HH:MM", or "HH:MM" on the event's date.
_START = re.compile(r"(?:(\d{4}-\d{2}-\d{2})[ T])?(\d{1,2}):(\d{2})")
#: Longest text of one of these fields (a name or a place is printed in the booklet).
TEXT_LIMIT = 200


class OrganizationError(UserError, ValueError):
    """``[organization]`` or ``[officials]`` is not valid; the message names the key."""


@dataclass(frozen=True)
class Officials:
    """The event's referees (裁判长, 副裁判长, 裁判员) and its arbitration committee (仲裁委员会)."""

    chief_referee: str | None = None
    deputy_referees: tuple[str, ...] = ()
    referees: tuple[str, ...] = ()
    arbitration: tuple[str, ...] = ()

    @property
    def roster(self) -> tuple[str, ...]:
        """Every referee, chief first: who may give a penalty (``--by``)."""
        names = ((self.chief_referee,) if self.chief_referee else ()) + self.deputy_referees + self.referees
        return tuple(dict.fromkeys(names))

    @property
    def deciders(self) -> tuple[str, ...]:
        """Who may decide an appeal: the arbitration committee; without one, the referees (seed
        002 七.6: 提交本次比赛裁判组讨论决定)."""
        return self.arbitration or self.roster


@dataclass(frozen=True)
class Organization:
    """What a 竞赛规程 / 秩序册 states about the event besides its rules (every field optional)."""

    host: str | None = None  # 主办单位
    organizer: str | None = None  # 承办单位
    co_organizers: tuple[str, ...] = ()  # 协办单位
    venue: str | None = None  # 比赛地点
    #: Each round's start, in round order, as "YYYY-MM-DD HH:MM" (the event's date filled in).
    start_times: tuple[str, ...] = ()
    captains_meeting: str | None = None  # 领队会议: its time and place, as the director writes them
    #: Minutes before each round's start the players must be seated (seed 002 §八.7: 5).
    arrival_minutes: int | None = None
    lateness: str | None = None  # how lateness is handled, beyond the profile's rule (text)
    #: Minutes after a round's bulletin within which an appeal may be lodged (``None``: no window).
    appeal_minutes: int | None = None
    appeal_deposit: str | None = None  # 申诉费 / 押金, as the 补充规定 set it
    officials: Officials = Officials()

    def start(self, round_number: int) -> dt.datetime | None:
        """Round ``round_number``'s start, or ``None`` when the timetable does not give it."""
        if not 1 <= round_number <= len(self.start_times):
            return None
        return dt.datetime.fromisoformat(self.start_times[round_number - 1])

    @property
    def stated(self) -> bool:
        """Whether the event file says anything of its organisation or officials."""
        return self != Organization()


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise OrganizationError("organization.not_a_text", where=where, value=quote(value))
    if len(value.strip()) > TEXT_LIMIT:
        raise OrganizationError("organization.text_too_long", where=where, limit=TEXT_LIMIT,
                                length=len(value.strip()))
    return value.strip()


def _names(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise OrganizationError("organization.not_a_list", where=where, value=quote(value))
    names = tuple(_text(v, f"{where}[{i}]") for i, v in enumerate(value))
    seen: set[str] = set()
    for i, name in enumerate(names):
        if name in seen:
            raise OrganizationError("organization.named_twice", where=f"{where}[{i}]", name=quote(name))
        seen.add(name)
    return names


def _minutes(value: Any, where: str, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high:
        raise OrganizationError("organization.bad_minutes", where=where, high=high, value=quote(value))
    return value


def _keys(value: Any, where: str, allowed: set[str]) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise OrganizationError("organization.not_a_table", where=where, value=quote(value))
    unknown = set(value) - allowed
    if unknown:
        raise OrganizationError("organization.unknown_keys", where=where, unknown=", ".join(sorted(unknown)),
                                allowed=", ".join(sorted(allowed)))
    return value


def _start_times(value: Any, date: str) -> tuple[str, ...]:
    where = "organization.start_times"
    if not isinstance(value, list):
        raise OrganizationError("organization.not_a_list", where=where, value=quote(value))
    starts: list[str] = []
    for i, raw in enumerate(value):
        here = f"{where}[{i}]"
        found = _START.fullmatch(raw.strip()) if isinstance(raw, str) else None
        day = found and (found.group(1) or date)
        try:
            if not found or not day:
                raise ValueError(raw)
            start = dt.datetime.combine(dt.date.fromisoformat(day),
                                        dt.time(int(found.group(2)), int(found.group(3))))
        except ValueError:
            raise OrganizationError("organization.bad_start", where=here, value=quote(raw),
                                    dated=bool(date)) from None
        if starts and start <= dt.datetime.fromisoformat(starts[-1]):
            raise OrganizationError("organization.start_not_after", where=here, value=quote(raw),
                                    before=starts[-1])
        starts.append(start.isoformat(sep=" ", timespec="minutes"))
    return tuple(starts)


def parse_organization(organization: Any, officials: Any, date: str) -> Organization:
    """``[organization]`` and ``[officials]`` of the event file (either may be absent: ``{}``);
    ``date``: the event's first day (``[event] date``, "" if none), for start times without one."""
    raw = _keys(organization, "organization", ORGANIZATION_KEYS)
    people = _keys(officials, "officials", OFFICIALS_KEYS)
    text = {key: _text(raw[key], f"organization.{key}") if key in raw else None
            for key in ("host", "organizer", "venue", "captains_meeting", "lateness", "appeal_deposit")}
    return Organization(
        host=text["host"], organizer=text["organizer"], venue=text["venue"],
        co_organizers=_names(raw.get("co_organizers", []), "organization.co_organizers"),
        start_times=_start_times(raw.get("start_times", []), date),
        captains_meeting=text["captains_meeting"],
        arrival_minutes=_minutes(raw["arrival_minutes"], "organization.arrival_minutes", 240)
        if "arrival_minutes" in raw else None,
        lateness=text["lateness"],
        appeal_minutes=_minutes(raw["appeal_minutes"], "organization.appeal_minutes", 7 * 24 * 60)
        if "appeal_minutes" in raw else None,
        appeal_deposit=text["appeal_deposit"],
        officials=Officials(
            chief_referee=_text(people["chief_referee"], "officials.chief_referee")
            if "chief_referee" in people else None,
            deputy_referees=_names(people.get("deputy_referees", []), "officials.deputy_referees"),
            referees=_names(people.get("referees", []), "officials.referees"),
            arbitration=_names(people.get("arbitration", []), "officials.arbitration"),
        ),
    )
