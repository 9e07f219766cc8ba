"""Appeals (申诉 → 仲裁, issue 38): seed 000 第二十二条 (重大比赛应设立仲裁委员会), seed 001 8(7) (the
referee takes a second offence to the 仲裁委员会), seed 002 八.8 (运动员如对裁判判决不服，可向仲裁委员会
请求仲裁) and 七.6 (争议问题提交本次比赛裁判组讨论决定).

An appeal is lodged by a team against a ruling or a result of a round (``dealer results appeal``),
within the event's window (``[organization] appeal_minutes``) counted from the round's bulletin:
the moment its last result in force was stored, when its 成绩公告 can first be posted. It is stored
in the results chain with its time and deadline. The committee (``[officials] arbitration``;
without one, the referees) decides it, upheld or dismissed, with its reason; what an upheld
appeal changes goes through the existing corrections (``dealer results correct``) and penalty
withdrawals (``dealer results penalty --withdraw``), each of which names the appeal in its reason.
While an appeal is open the standings and the prizes are provisional.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from dealer.app.played import RoundError, team_match
from dealer.errors import Phrase, quote
from dealer.event import Event
from dealer.store.rows import AppealRow
from dealer.words import section

if TYPE_CHECKING:
    from dealer.app.session import EventSession
    from dealer.store.db import ResultsStore

DECISIONS = ("upheld", "dismissed")


def _text(value: str, field: str) -> str:
    if not value or not value.strip():
        raise RoundError("appeal.needs_text", field=field)
    return value.strip()


def bulletin_time(store: ResultsStore, number: int) -> str | None:
    """When round ``number``'s bulletin could first be posted: its last result in force stored
    (UTC, ISO); ``None`` while it has none."""
    return store.round_entered_at(number)


def appeal_deadline(event: Event, store: ResultsStore, number: int) -> str | None:
    """The deadline of an appeal against round ``number`` (UTC, ISO): the round's bulletin plus
    the event's ``appeal_minutes``; ``None`` when the event sets no window or the round has no
    result yet (an appeal is then taken at any time)."""
    minutes = event.organization.appeal_minutes
    posted = bulletin_time(store, number)
    if minutes is None or posted is None:
        return None
    return (dt.datetime.fromisoformat(posted) + dt.timedelta(minutes=minutes)).isoformat(timespec="milliseconds")


def lodge_appeal(session: EventSession, number: int, team: str, against: str, reason: str,
                 entered_by: str | None = None, *, now: dt.datetime | None = None) -> Phrase:
    """Record ``team``'s appeal against ``against`` (a ruling or a result) of round ``number``, with
    its deadline; refused after the deadline (naming it) or for a team or round the event has not."""
    event = session.declared
    why, what = _text(reason, "reason"), _text(against, "against")
    if team not in {t.id for t in event.teams}:
        raise RoundError("appeal.unknown_team", field="team", team=quote(team),
                         teams=", ".join(t.id for t in event.teams))
    store = session.writable_store()
    with store.transaction():
        team_match(event, store, number, team)  # the round is paired and the team played in it
        deadline = appeal_deadline(event, store, number)
        moment = now or dt.datetime.now(dt.UTC)
        if deadline is not None and moment > dt.datetime.fromisoformat(deadline):
            raise RoundError("appeal.too_late", field="round", number=number, deadline=shown_time(event, deadline),
                             minutes=event.organization.appeal_minutes)
        store.insert_appeal(number, team, what, why, deadline, entered_by=entered_by)
        appeal_number = len(store.appeals())
    return Phrase.of("appeal.lodged", id=appeal_number, round=number, team=team, against=what, reason=why,
                     deadline=shown_time(event, deadline) if deadline else "-",
                     body=Phrase("organization.body_arbitration" if event.organization.officials.arbitration
                                 else "organization.body_referees"))


def decide_appeal(session: EventSession, number: int, team: str, decision: str, reason: str,
                  decided_by: str | None) -> Phrase:
    """Record the decision on ``team``'s open appeal of round ``number`` (the last one lodged):
    ``upheld`` or ``dismissed``, by a member of the committee when the event names one."""
    event = session.declared
    why = _text(reason, "reason")
    if decision not in DECISIONS:
        raise RoundError("appeal.bad_decision", field="decide", decision=quote(decision), known=", ".join(DECISIONS))
    officials = event.organization.officials
    deciders = officials.deciders
    if deciders and (decided_by or "").strip() not in deciders:
        raise RoundError("organization.not_a_decider", field="by", name=quote(decided_by or ""),
                         body=Phrase("organization.body_arbitration" if officials.arbitration
                                     else "organization.body_referees"), roster="、".join(deciders))
    store = session.writable_store()
    with store.transaction():
        found = [a for a in store.appeals() if a.round == number and a.team == team and a.open]
        if not found:
            raise RoundError("appeal.none_open", field="team", team=quote(team), number=number)
        appeal = found[-1]
        store.insert_appeal_decision(appeal, decision, why, entered_by=decided_by)
    said = dict(id=appeal.number, round=number, team=team, against=appeal.against, reason=why)
    if decision == "upheld":
        return Phrase.of("appeal.decided_upheld", **said)
    return Phrase.of("appeal.decided_dismissed", **said)


def stored_appeals(store: ResultsStore | None) -> tuple[AppealRow, ...]:
    """Every appeal lodged, oldest first, with its decision (none without a database)."""
    return tuple(store.appeals()) if store is not None else ()


def shown_time(event: Event, stamp: str) -> str:
    """A stored time (UTC, ISO) as the event shows times: its zone (``[event] timezone``, else the
    machine's), "YYYY-MM-DD HH:MM"."""
    moment = dt.datetime.fromisoformat(stamp)
    if event.timezone:
        import zoneinfo

        moment = moment.astimezone(zoneinfo.ZoneInfo(event.timezone))
    else:
        moment = moment.astimezone()
    return moment.strftime("%Y-%m-%d %H:%M")


def appeal_lines(event: Event, appeals: tuple[AppealRow, ...], lang: str, number: int | None = None) -> list[str]:
    """Each appeal (of round ``number``, or all) in words of ``lang``, for the bulletin, the
    reports and the site: who, against what, lodged when, its deadline, and the decision or
    "pending" (while pending the standings are provisional)."""
    words = section("appeals", lang)
    names = {t.id: t.name for t in event.teams}
    lines = []
    for a in appeals:
        if number is not None and a.round != number:
            continue
        head = str(words["line"]).format(id=a.number, round=a.round, team=a.team, name=names.get(a.team, ""),
                                         against=a.against, reason=a.reason, at=shown_time(event, a.at),
                                         deadline=shown_time(event, a.deadline) if a.deadline else "-")
        if a.open:
            tail = str(words["pending"])
        else:
            tail = str(words[f"decided_{a.decision}"]).format(
                by=a.decided_by or "-", reason=a.decision_reason or "",
                at=shown_time(event, a.decided_at) if a.decided_at else "-")
        lines.append(f"{head} {tail}")
    return lines


def provisional_line(appeals: tuple[AppealRow, ...], lang: str, upto: int | None = None) -> str | None:
    """"Provisional: N appeal(s) pending" in ``lang`` (of rounds 1 to ``upto``, or any), or ``None``
    while none is open."""
    pending = [a for a in appeals if a.open and (upto is None or a.round <= upto)]
    if not pending:
        return None
    return str(section("appeals", lang)["provisional"]).format(count=len(pending),
                                                                ids=", ".join(str(a.number) for a in pending))
