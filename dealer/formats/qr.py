"""QR payloads printed on wallet labels, travellers and score sheets (spec: ``docs/qr.md``).

Pure domain code. Payloads are short ASCII texts, fields separated by ``:``:

* wallet label ``SJD1:L:<event>:<set>:<board>:<copy>:<tag>`` — ``tag`` is 8 base32 characters of
  ``HMAC-SHA256(key, LABEL_TAG || event NUL set NUL board NUL copy)``: only the key holder can make
  it, and it depends on nothing but the identity of the wallet, so it tells nothing of the cards;
* traveller ``SJD1:T:<event>:<round>:<match>:<board>`` (no secret needed);
* table score sheet ``SJD1:S:<event>:<round>:<match>:<table>``.
"""

from __future__ import annotations

import base64
import hmac
import re
from dataclasses import dataclass

from dealer.errors import Phrase, UserError, quote
from dealer.event import EVENT_ID, MATCH_ID

PREFIX = "SJD1"
LABEL_TAG = b"shengji-dealer/label-tag/v1\x00"
TAG_LENGTH = 8


class PayloadError(UserError, ValueError):
    """A QR payload does not follow the spec."""


@dataclass(frozen=True)
class LabelId:
    event: str
    set: int
    board: int
    copy: int
    tag: str


@dataclass(frozen=True)
class TravellerId:
    event: str
    round: int
    match: str
    board: int


@dataclass(frozen=True)
class ScoreSheetId:
    event: str
    round: int
    match: str
    table: str


def label_tag(key: bytes, event: str, set_number: int, board: int, copy: int) -> str:
    message = LABEL_TAG + f"{event}\x00{set_number}\x00{board}\x00{copy}".encode()
    digest = hmac.new(key, message, "sha256").digest()
    return base64.b32encode(digest).decode("ascii")[:TAG_LENGTH]


def label_payload(key: bytes, event: str, set_number: int, board: int, copy: int) -> str:
    tag = label_tag(key, event, set_number, board, copy)
    return f"{PREFIX}:L:{event}:{set_number}:{board}:{copy}:{tag}"


def traveller_payload(event: str, round_number: int, match: str, board: int) -> str:
    return f"{PREFIX}:T:{event}:{round_number}:{match}:{board}"


def score_sheet_payload(event: str, round_number: int, match: str, table: str) -> str:
    return f"{PREFIX}:S:{event}:{round_number}:{match}:{table}"


#: Numbers in payloads: 1 to 9 ASCII decimal digits, no sign, no leading zero.
_NUMBER = re.compile(r"[1-9][0-9]{0,8}")


def _positive(text: str, name: str, payload: str) -> int:
    if not _NUMBER.fullmatch(text):
        raise PayloadError("qr.bad_number", shown=_shown(payload), name=name)
    return int(text)


def _shown(payload: str) -> str:
    return quote(payload)


def parse_payload(payload: str) -> LabelId | TravellerId | ScoreSheetId:
    """Parse any payload of the spec; raises :class:`PayloadError`."""
    parts = payload.strip().split(":")
    if len(parts) < 2 or parts[0] != PREFIX:
        raise PayloadError("qr.not_a_payload", shown=_shown(payload), prefix=PREFIX)
    kind, fields = parts[1], parts[2:]
    expected = {"L": 5, "T": 4, "S": 4}
    if kind not in expected:
        raise PayloadError("qr.unknown_kind", shown=_shown(payload), kind=quote(kind))
    if len(fields) != expected[kind]:
        raise PayloadError("qr.field_count", shown=_shown(payload), kind=kind, expected=expected[kind])
    event = fields[0]
    if not EVENT_ID.fullmatch(event):
        raise PayloadError("qr.bad_event_id", shown=_shown(payload), event=quote(event))
    if kind == "L":
        tag = fields[4]
        if len(tag) != TAG_LENGTH or not re.fullmatch(r"[A-Z2-7]+", tag):
            raise PayloadError("qr.bad_tag", shown=_shown(payload), tag=quote(tag))
        return LabelId(event, _positive(fields[1], "set", payload),
                       _positive(fields[2], "board", payload),
                       _positive(fields[3], "copy", payload), tag)
    round_number = _positive(fields[1], "round", payload)
    match = fields[2]
    if not MATCH_ID.fullmatch(match):
        raise PayloadError("qr.bad_match_id", shown=_shown(payload), match=quote(match))
    if kind == "T":
        return TravellerId(event, round_number, match, _positive(fields[3], "board", payload))
    table = fields[3]
    if table not in ("A", "B"):
        raise PayloadError("qr.bad_table", shown=_shown(payload))
    return ScoreSheetId(event, round_number, match, table)


def check_label(key: bytes, label: LabelId) -> bool:
    """Whether a label's check tag was made with ``key`` (constant-time comparison)."""
    expected = label_tag(key, label.event, label.set, label.board, label.copy)
    return hmac.compare_digest(expected, label.tag)


@dataclass(frozen=True)
class LabelCheck:
    """What ``dealer check-label`` says of one scanned payload."""

    payload: str
    genuine: bool
    #: The wallet it names when genuine; otherwise why it is not.
    phrase: Phrase
    label: LabelId | None = None

    @property
    def text(self) -> str:
        """:attr:`phrase` in English."""
        return str(self.phrase)


def check_label_payload(key: bytes, event_id: str, sets: int, boards_per_set: int, payload: str) -> LabelCheck:
    """Check one wallet-label payload as a scanner typed it: well formed, of this event, its tag
    made with this key, and naming a board of the event."""
    text = payload.strip()
    try:
        parsed = parse_payload(text)
    except PayloadError as error:
        # The reason without the payload the line shows already ("QR payload …: "), in English.
        return LabelCheck(text, False, Phrase.of("said_label.invalid", reason=error.message.split(": ", 1)[-1]))
    if not isinstance(parsed, LabelId):
        return LabelCheck(text, False, Phrase("said_label.not_a_label"))
    if parsed.event != event_id:
        return LabelCheck(text, False, Phrase.of("said_label.other_event", label_event=repr(parsed.event),
                                                 event=repr(event_id)), parsed)
    if not check_label(key, parsed):
        return LabelCheck(text, False, Phrase("said_label.forged"), parsed)
    if parsed.set > sets or parsed.board > boards_per_set:
        return LabelCheck(text, False, Phrase.of("said_label.not_in_event", set=parsed.set, board=parsed.board,
                                                 sets=sets, boards=boards_per_set), parsed)
    return LabelCheck(text, True, Phrase.of("said_label.wallet", set=parsed.set, board=parsed.board,
                                            copy=parsed.copy), parsed)
