"""What players may see of an event (:func:`published`): the one public read model, read the same
way by the static site (:mod:`dealer.site`) and the live pages of ``dealer serve``
(:mod:`dealer.serve.livepages`).

The director's report, audited (every row that becomes public is trusted only as a link of the
results chain); the public report made from it (no board's results while a table of the field
still has to play it, :func:`dealer.app.standings.public_report`); the released sets and their
boards (a set that is not released is never read); the key's release; the time of the last
stored entry; the sets declared unused. From the director's report players see only counts,
board numbers and table names (each round in play's progress, the matches still missing a
result), never a value.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dealer.app.played import folder_seed
from dealer.app.standings import ReportData, public_report, rounds_in_play

if TYPE_CHECKING:
    from dealer.app.session import EventSession
    from dealer.formats.boardset import BoardSet
    from dealer.store.chain import AuditMark


@dataclass
class Published:
    """What players may see, read from a session (:func:`published`)."""

    scores: ReportData  # as the director sees it
    data: ReportData  # as players see it
    #: set → the boards whose results are left out until every table has played them
    withheld: dict[int, list[int]]
    released: dict[int, dict[str, Any]]  # set → {"at", "reason"}
    key_release: dict[str, Any] | None  # {"at", "reason"} once the key is released
    last_update: str | None  # when the tool last stored anything (the site's "last update")
    unused: dict[int, dict[str, Any]]  # set → {"at", "reason"}: declared not played, never read
    boardsets: dict[int, BoardSet]  # the released sets only
    lots_seed: bytes  # what draws the lots of the standings (:func:`dealer.app.played.folder_seed`)

    @functools.cached_property
    def progress(self) -> dict[int, dict[str, Any]]:
        """Each round not complete in the public report → how far it is played, from every
        stored result (:class:`~dealer.app.standings.RoundProgress` as a dict: counts, board
        numbers and table names)."""
        return {n: p.as_dict() for n, p in rounds_in_play(self.data, self.scores).items()}

    @property
    def missing_matches(self) -> int:
        """The matches that still miss a stored result (the director's count: a match whose
        boards are withheld has every result it can have)."""
        return sum(1 for s in self.scores.scored.scores if not s.complete)


def published(session: EventSession, audited: AuditMark | None = None) -> Published:
    """What players may see of ``session``'s event (``audited``: the mark of the last audit of
    the results chain, :class:`~dealer.store.chain.AuditMark`: only the rows after it are audited)."""
    scores = session.report(publishing=True, audited=audited)
    released, key_release, last_update, unused = _released(session)
    data, withheld = public_report(scores, released)  # no board still in play
    # what the field says: the released sets' boards the whole field has played only
    data = dataclasses.replace(data, made_tables={}, public_sets=frozenset(released))
    boardsets = {n: session.public_board_set(n) for n in sorted(released)}
    return Published(scores, data, withheld, released, key_release, last_update, unused, boardsets,
                     folder_seed(session.folder))


def _released(session: EventSession) -> tuple[dict[int, dict[str, Any]], dict[str, Any] | None, str | None,
                                              dict[int, dict[str, Any]]]:
    """Released sets (set → when, why), the key's release, the time of the last stored entry
    (result, action or release), and the sets declared unused (set → when, why)."""
    if session.store is None:
        return {}, None, None, {}
    releases = session.releases
    last = session.store.last_entry_at()
    sets, unused = ({r.set_number: {"at": r.at, "reason": r.reason} for r in releases
                     if r.kind == kind and r.set_number is not None} for kind in ("set", "unused"))
    key = next(({"at": r.at, "reason": r.reason} for r in releases if r.kind == "key"), None)
    return sets, key, last, unused


def public_field(session: EventSession) -> tuple[ReportData, dict[int, dict[str, Any]]]:
    """The public report (as players see it, what the field says counting only the released
    sets' boards the whole field has played) and the released sets, for papers handed out after
    a set's release (``dealer print review``); without the chain audit of :func:`published`."""
    scores = session.report()
    released = _released(session)[0]
    data, _withheld = public_report(scores, released)
    return dataclasses.replace(data, made_tables={}, public_sets=frozenset(released)), released
